#if canImport(CryptoKit)
    import CryptoKit
    import Foundation
#else
    import CCrypto
#endif

/// SHA-256: Apple's CryptoKit where it exists (Apple platforms, no C library to ship), OpenSSL's
/// libcrypto elsewhere. Both give the same bytes; docs/client.md "Apple platforms" says how the
/// CryptoKit branch is run on Linux.
public enum SHA256 {
    public static let byteCount = 32

    public static func digest<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        if let result = bytes.withContiguousStorageIfAvailable({ digest(buffer: UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(bytes).withUnsafeBytes { digest(buffer: $0) }
    }

    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Hex.encode(digest(bytes))
    }

    /// The first 8 bytes of the digest as a big-endian integer, computed without allocating.
    public static func leadingUInt64(_ buffer: UnsafeRawBufferPointer) -> UInt64 {
        #if canImport(CryptoKit)
            var value: UInt64 = 0
            for byte in CryptoKit.SHA256.hash(data: buffer).prefix(8) { value = value << 8 | UInt64(byte) }
            return value
        #else
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: byteCount) { out in
                var length: UInt32 = 0
                let ok = EVP_Digest(buffer.baseAddress, buffer.count, out.baseAddress, &length, EVP_sha256(), nil)
                precondition(ok == 1 && length == UInt32(byteCount), "EVP_Digest(SHA-256) failed")
                var value: UInt64 = 0
                for index in 0..<8 { value = value << 8 | UInt64(out[index]) }
                return value
            }
        #endif
    }

    public static func digest(buffer: UnsafeRawBufferPointer) -> [UInt8] {
        #if canImport(CryptoKit)
            return Array(CryptoKit.SHA256.hash(data: buffer))
        #else
            var out = [UInt8](repeating: 0, count: byteCount)
            var length: UInt32 = 0
            let ok = out.withUnsafeMutableBufferPointer { outBuffer in
                EVP_Digest(buffer.baseAddress, buffer.count, outBuffer.baseAddress, &length, EVP_sha256(), nil)
            }
            // EVP_Digest with a built-in digest only fails when memory runs out; there is nothing to recover.
            precondition(ok == 1 && length == UInt32(byteCount), "EVP_Digest(SHA-256) failed")
            return out
        #endif
    }
}

/// Streaming SHA-256, for inputs that should not be held in memory at once.
public final class SHA256Hasher {
    #if canImport(CryptoKit)
        private let stream = DigestStream<CryptoKit.SHA256>()
    #else
        private let stream = DigestStream(EVP_sha256(), byteCount: SHA256.byteCount, name: "SHA-256")
    #endif

    public init() {}

    public func update(_ buffer: UnsafeRawBufferPointer) { stream.update(buffer) }

    public func finalize() -> [UInt8] { stream.finalize() }
}

/// A digest computed a buffer at a time: CryptoKit's hash functions on Apple platforms, an
/// OpenSSL EVP context elsewhere. `SHA256Hasher` and `SHA1Hasher` are the two there are.
#if canImport(CryptoKit)
    final class DigestStream<Function: HashFunction> {
        private var hasher = Function()

        func update(_ buffer: UnsafeRawBufferPointer) { hasher.update(bufferPointer: buffer) }

        func finalize() -> [UInt8] { Array(hasher.finalize()) }
    }
#else
    final class DigestStream {
        private let context: OpaquePointer
        private let byteCount: Int

        init(_ algorithm: OpaquePointer?, byteCount: Int, name: String) {
            guard let ctx = EVP_MD_CTX_new(), EVP_DigestInit_ex(ctx, algorithm, nil) == 1 else {
                preconditionFailure("EVP_DigestInit_ex(\(name)) failed")
            }
            context = ctx
            self.byteCount = byteCount
        }

        deinit { EVP_MD_CTX_free(context) }

        func update(_ buffer: UnsafeRawBufferPointer) {
            guard buffer.count > 0 else { return }
            precondition(EVP_DigestUpdate(context, buffer.baseAddress, buffer.count) == 1, "EVP_DigestUpdate failed")
        }

        func finalize() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: byteCount)
            var length: UInt32 = 0
            let ok = out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
            precondition(ok == 1, "EVP_DigestFinal_ex failed")
            return out
        }
    }
#endif

public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out = [UInt8]()
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
