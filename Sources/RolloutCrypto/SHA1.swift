#if canImport(CryptoKit)
    import CryptoKit
#else
    import CCrypto
#endif

/// Streaming SHA-1, for git's formats only: a pack file ends with the SHA-1 of its bytes, which
/// git and libgit2 check before they index it. Never for anything rollout signs or trusts.
public final class SHA1Hasher {
    public static let byteCount = 20

    #if canImport(CryptoKit)
        private var hasher = Insecure.SHA1()

        public init() {}

        public func update(_ buffer: UnsafeRawBufferPointer) {
            hasher.update(bufferPointer: buffer)
        }

        public func finalize() -> [UInt8] { Array(hasher.finalize()) }
    #else
        private let context: OpaquePointer

        public init() {
            guard let ctx = EVP_MD_CTX_new(), EVP_DigestInit_ex(ctx, EVP_sha1(), nil) == 1 else {
                preconditionFailure("EVP_DigestInit_ex(SHA-1) failed")
            }
            context = ctx
        }

        deinit { EVP_MD_CTX_free(context) }

        public func update(_ buffer: UnsafeRawBufferPointer) {
            guard buffer.count > 0 else { return }
            precondition(EVP_DigestUpdate(context, buffer.baseAddress, buffer.count) == 1, "EVP_DigestUpdate failed")
        }

        public func finalize() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: SHA1Hasher.byteCount)
            var length: UInt32 = 0
            let ok = out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
            precondition(ok == 1, "EVP_DigestFinal_ex failed")
            return out
        }
    #endif
}
