import RolloutCrypto

// Signing exists only over OpenSSL (RolloutCrypto's PrivateKey): an app built with CryptoKit
// verifies and never signs, and RolloutModel must build there (docs/client.md "Apple platforms").
#if !canImport(CryptoKit)
    extension SignatureSet {
        /// Each key's signature over `bytes`, named by its key id (docs/keys.md, "Wire format").
        public static func signing(_ bytes: [UInt8], with keys: [Ed25519.PrivateKey]) -> SignatureSet {
            SignatureSet(keys.map { Entry(keyID: $0.publicKey.keyID, signature: $0.sign(bytes)) })
        }
    }
#endif
