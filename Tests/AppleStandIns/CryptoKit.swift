// A stand-in for Apple's CryptoKit, so that RolloutCrypto's `#if canImport(CryptoKit)` branch can be
// compiled and run on Linux (docs/client.md "Apple platforms"). It declares only what that branch
// calls, with the public signatures Apple's documentation gives, and no conformance the real types
// lack (SHA256Digest is a Sequence, not a Collection), so code that compiles against it uses nothing
// CryptoKit does not have. The work is done by OpenSSL's libcrypto: this proves our use of the API,
// not Apple's implementation.
//
// Not a SwiftPM target: ApplePlatformTests builds it with swiftc into a scratch directory.

internal import CCrypto
import Foundation

public enum CryptoKitError: Error {
    case incorrectKeySize
}

/// Apple: `protocol Digest : ContiguousBytes, CustomStringConvertible, Hashable, Sendable, Sequence
/// where Self.Element == UInt8`.
public protocol Digest: ContiguousBytes, CustomStringConvertible, Hashable, Sendable, Sequence where Element == UInt8 {
    static var byteCount: Int { get }
}

/// Apple: `protocol HashFunction`, with `init()`, `update(bufferPointer:)`, `finalize()`, and the
/// extension methods `hash(data:)` and `update(data:)`.
public protocol HashFunction {
    associatedtype Digest: CryptoKit.Digest
    static var blockByteCount: Int { get }
    init()
    mutating func update(bufferPointer: UnsafeRawBufferPointer)
    func finalize() -> Digest
}

extension HashFunction {
    public static func hash<D>(data: D) -> Digest where D: DataProtocol {
        var hasher = Self()
        hasher.update(data: data)
        return hasher.finalize()
    }

    public mutating func update<D>(data: D) where D: DataProtocol {
        for region in data.regions {
            region.withUnsafeBytes { update(bufferPointer: $0) }
        }
    }
}

/// Apple: `struct SHA256` (a value: a copy hashes on its own). The stand-in keeps the input and
/// digests it at `finalize()`, which gives exactly those semantics.
public struct SHA256: HashFunction {
    public typealias Digest = SHA256Digest
    public static var blockByteCount: Int { 64 }
    public static var byteCount: Int { 32 }

    private var input: [UInt8] = []

    public init() {}

    public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
        input.append(contentsOf: bufferPointer)
    }

    public func finalize() -> SHA256Digest {
        SHA256Digest(bytes: evpDigest(input, EVP_sha256(), byteCount: SHA256.byteCount))
    }
}

/// The digest of `input` by OpenSSL's `algorithm`.
private func evpDigest(_ input: [UInt8], _ algorithm: OpaquePointer?, byteCount: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: byteCount)
    var length: UInt32 = 0
    let ok = input.withUnsafeBufferPointer { inBuffer in
        out.withUnsafeMutableBufferPointer {
            EVP_Digest(inBuffer.baseAddress, inBuffer.count, $0.baseAddress, &length, algorithm, nil)
        }
    }
    precondition(ok == 1 && Int(length) == byteCount, "EVP_Digest failed")
    return out
}

/// Apple: `enum Insecure` with `struct Insecure.SHA1` and `struct Insecure.SHA1Digest` (RolloutCrypto's
/// SHA1Hasher: git's object ids and pack trailers).
public enum Insecure {
    public struct SHA1: HashFunction {
        public typealias Digest = SHA1Digest
        public static var blockByteCount: Int { 64 }
        public static var byteCount: Int { 20 }

        private var input: [UInt8] = []

        public init() {}

        public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
            input.append(contentsOf: bufferPointer)
        }

        public func finalize() -> SHA1Digest {
            SHA1Digest(bytes: evpDigest(input, EVP_sha1(), byteCount: SHA1.byteCount))
        }
    }

    public struct SHA1Digest: CryptoKit.Digest {
        public static var byteCount: Int { 20 }
        private let bytes: [UInt8]

        fileprivate init(bytes: [UInt8]) { self.bytes = bytes }

        public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            try bytes.withUnsafeBytes(body)
        }

        public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }

        public var description: String { "SHA1 digest: " + bytes.map { String(format: "%02x", $0) }.joined() }
    }
}

/// Apple: `struct SHA256Digest`, conforming to Digest (and through it ContiguousBytes, Sequence,
/// Hashable, CustomStringConvertible, Sendable).
public struct SHA256Digest: Digest {
    public static var byteCount: Int { 32 }
    private let bytes: [UInt8]

    fileprivate init(bytes: [UInt8]) { self.bytes = bytes }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }

    public var description: String { "SHA256 digest: " + bytes.map { String(format: "%02x", $0) }.joined() }
}

/// Apple: `enum Curve25519`, `enum Curve25519.Signing`, `struct Curve25519.Signing.PublicKey` with
/// `init<D>(rawRepresentation: D) throws where D : ContiguousBytes`, `var rawRepresentation: Data`
/// and `func isValidSignature<S, D>(_ signature: S, for data: D) -> Bool where S : DataProtocol,
/// D : DataProtocol`.
public enum Curve25519 {
    public enum Signing {
        public struct PublicKey: Sendable {
            private let raw: [UInt8]

            public init<D>(rawRepresentation data: D) throws where D: ContiguousBytes {
                raw = data.withUnsafeBytes { Array($0) }
                guard raw.count == 32 else { throw CryptoKitError.incorrectKeySize }
            }

            public var rawRepresentation: Data { Data(raw) }

            public func isValidSignature<S, D>(_ signature: S, for data: D) -> Bool
            where S: DataProtocol, D: DataProtocol {
                let signature = [UInt8](signature)
                let message = [UInt8](data)
                guard
                    let key = raw.withUnsafeBufferPointer({
                        EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
                    })
                else { return false }
                defer { EVP_PKEY_free(key) }
                guard let context = EVP_MD_CTX_new() else { return false }
                defer { EVP_MD_CTX_free(context) }
                guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
                return message.withUnsafeBufferPointer { m in
                    signature.withUnsafeBufferPointer { s in
                        EVP_DigestVerify(context, s.baseAddress, s.count, m.baseAddress, m.count)
                    }
                } == 1
            }
        }
    }
}
