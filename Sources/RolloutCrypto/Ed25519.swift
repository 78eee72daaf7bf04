#if canImport(CryptoKit)
    import CryptoKit
    import Foundation
#else
    import CCrypto
#endif

/// Ed25519 signatures (RFC 8032): the signatures on published manifests. A device verifies with
/// CryptoKit where it exists (Apple platforms) and with OpenSSL's libcrypto elsewhere.
public enum Ed25519 {
    public static let publicKeyBytes = 32
    public static let signatureBytes = 64
    /// How public keys are written for people and apps: `ed25519:` and the base64 of the 32 raw bytes.
    public static let publicKeyPrefix = "ed25519:"

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    #if !canImport(CryptoKit)
        /// A private key, held by libcrypto. Signing is the publisher's (`rollout keys generate`,
        /// `rollout publish`), which runs where OpenSSL is: CryptoKit's Ed25519 signatures are randomized,
        /// and the publish cache's key needs RFC 8032's deterministic ones (docs/client.md "Apple platforms").
        public final class PrivateKey {
            fileprivate let key: OpaquePointer

            fileprivate init(key: OpaquePointer) { self.key = key }
            deinit { EVP_PKEY_free(key) }

            public static func generate() throws -> PrivateKey {
                guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else {
                    throw Failure(description: "Ed25519 is not available in this libcrypto")
                }
                defer { EVP_PKEY_CTX_free(context) }
                var key: OpaquePointer?
                guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_keygen(context, &key) == 1, let key else {
                    throw Failure(description: "Ed25519 key generation failed")
                }
                return PrivateKey(key: key)
            }

            /// Reads a PKCS#8 PEM private key (what `keys generate` writes, and `openssl genpkey -algorithm ed25519`).
            public static func pem(_ text: String) throws -> PrivateKey {
                let bytes = Array(text.utf8)
                let key: OpaquePointer? = bytes.withUnsafeBytes { buffer in
                    guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
                    defer { BIO_free(bio) }
                    // No passphrase, ever: OpenSSL's default would prompt on the terminal, and hang a CI job
                    // that has one.
                    return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
                }
                guard let key else {
                    if text.contains("ENCRYPTED") {
                        throw .encryptedKey
                    }
                    throw Failure(description: "not a PEM private key")
                }
                guard EVP_PKEY_get_id(key) == EVP_PKEY_ED25519 else {
                    EVP_PKEY_free(key)
                    throw Failure(description: "the key is not an Ed25519 key")
                }
                return PrivateKey(key: key)
            }

            public var pem: String {
                guard let bio = BIO_new(BIO_s_mem()) else { preconditionFailure("BIO_new failed") }
                defer { BIO_free(bio) }
                precondition(
                    PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1, "PEM_write_bio_PrivateKey failed")
                var data: UnsafeMutablePointer<CChar>?
                let length = rollout_bio_get_mem_data(bio, &data)
                return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
            }

            public var publicKey: PublicKey {
                var raw = [UInt8](repeating: 0, count: publicKeyBytes)
                var length = publicKeyBytes
                precondition(EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1 && length == publicKeyBytes)
                return PublicKey(raw: raw)!
            }

            public func sign(_ message: [UInt8]) -> [UInt8] {
                guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
                defer { EVP_MD_CTX_free(context) }
                var signature = [UInt8](repeating: 0, count: signatureBytes)
                var length = signatureBytes
                let ok =
                    EVP_DigestSignInit(context, nil, nil, nil, key) == 1
                    && message.withUnsafeBufferPointer {
                        EVP_DigestSign(context, &signature, &length, $0.baseAddress, $0.count)
                    } == 1
                precondition(ok && length == signatureBytes, "Ed25519 signing failed")
                return signature
            }
        }
    #endif

    public struct PublicKey: Equatable, Sendable, CustomStringConvertible {
        public let raw: [UInt8]

        public init?(raw: [UInt8]) {
            guard raw.count == publicKeyBytes else { return nil }
            self.raw = raw
        }

        /// Parses `ed25519:BASE64` (or the bare base64).
        public init?(_ text: String) {
            let body = text.hasPrefix(publicKeyPrefix) ? String(text.dropFirst(publicKeyPrefix.count)) : text
            guard let raw = Base64.decode(body.filter { !$0.isWhitespace }) else { return nil }
            self.init(raw: raw)
        }

        public var description: String { publicKeyPrefix + Base64.encode(raw) }

        public func verify(_ signature: [UInt8], for message: [UInt8]) -> Bool {
            #if canImport(CryptoKit)
                guard signature.count == signatureBytes,
                    let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
                else { return false }
                return key.isValidSignature(signature, for: message)
            #else
                guard signature.count == signatureBytes,
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
            #endif
        }
    }
}

/// RFC 4648 base64 with padding, strict on decode.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let b0 = bytes[index]
            let b1 = index + 1 < bytes.count ? bytes[index + 1] : 0
            let b2 = index + 2 < bytes.count ? bytes[index + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(index + 1 < bytes.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(index + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var values: [UInt8] = []
        var out: [UInt8] = []
        for (position, c) in chars.enumerated() {
            if c == UInt8(ascii: "=") {
                guard position >= chars.count - 2, chars[position...].allSatisfy({ $0 == UInt8(ascii: "=") }) else {
                    return nil
                }
                values.append(0)
                continue
            }
            guard let value = alphabet.firstIndex(of: c) else { return nil }
            values.append(UInt8(value))
        }
        for group in stride(from: 0, to: values.count, by: 4) {
            out.append(values[group] << 2 | values[group + 1] >> 4)
            out.append(values[group + 1] << 4 | values[group + 2] >> 2)
            out.append(values[group + 2] << 6 | values[group + 3])
        }
        let padding = chars.suffix(2).filter { $0 == UInt8(ascii: "=") }.count
        // Canonical only: the bits padding discards must be zero, so one text means one byte string.
        if padding == 1, values[values.count - 2] & 0x03 != 0 { return nil }
        if padding == 2, values[values.count - 3] & 0x0F != 0 { return nil }
        return Array(out.dropLast(padding))
    }
}

extension Error where Self == Ed25519.Failure {
    fileprivate static var encryptedKey: Ed25519.Failure {
        Ed25519.Failure(
            description: """
                the key is encrypted with a passphrase; rollout reads unencrypted keys \
                (openssl pkey -in FILE -out PLAIN, kept where only the publisher can read it)
                """)
    }
}
