#if canImport(CryptoKit)
    import CryptoKit
#else
    import CCrypto
#endif

/// Streaming SHA-1, for git's formats only: an object's id, and the trailer of a pack file, which
/// git and libgit2 check before they read it. Never for anything rollout signs or trusts.
public final class SHA1Hasher {
    public static let byteCount = 20

    #if canImport(CryptoKit)
        private let stream = DigestStream<Insecure.SHA1>()
    #else
        private let stream = DigestStream(EVP_sha1(), byteCount: SHA1Hasher.byteCount, name: "SHA-1")
    #endif

    public init() {}

    public func update(_ buffer: UnsafeRawBufferPointer) { stream.update(buffer) }

    public func finalize() -> [UInt8] { stream.finalize() }
}
