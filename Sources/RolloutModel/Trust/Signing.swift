import RolloutCrypto

extension SignatureSet {
    /// Each key's signature over `bytes`, named by its key id (docs/keys.md, "Wire format").
    public static func signing(_ bytes: [UInt8], with keys: [Ed25519.PrivateKey]) -> SignatureSet {
        SignatureSet(keys.map { Entry(keyID: $0.publicKey.keyID, signature: $0.sign(bytes)) })
    }
}
