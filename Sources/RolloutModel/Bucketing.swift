import RolloutCrypto

/// Which percentile bucket a device is in for one rollout (docs/targeting.md, "Bucketing").
///
///     digest = SHA-256( UTF-8(salt) || 0x00 || UTF-8(installID) )
///     bucket = (first 8 bytes of digest, big-endian unsigned) mod 10000
///
/// A device is inside a rule at B basis points when bucket < B. The same install id and salt always
/// give the same bucket, so growing a share only adds devices; a new salt draws an independent sample.
/// The modulo bias is 1616 / 2^64, far below anything measurable.
public enum Bucketing {
    public static let buckets = 10_000

    public static func bucket(installID: String, salt: String) -> Int {
        let saltBytes = salt.utf8
        let idBytes = installID.utf8
        let count = saltBytes.count + 1 + idBytes.count
        // Built on the stack: this runs once per device in simulations and on every refresh on a device.
        let value = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { input -> UInt64 in
            var index = 0
            for byte in saltBytes {
                input[index] = byte
                index += 1
            }
            input[index] = 0
            index += 1
            for byte in idBytes {
                input[index] = byte
                index += 1
            }
            return SHA256.leadingUInt64(UnsafeRawBufferPointer(input))
        }
        return Int(value % UInt64(buckets))
    }

    /// A fresh salt that is still reproducible: derived from what the rollout is and the commit it
    /// starts from, so two rollouts never share one and the same history always gives the same bytes.
    public static func salt(locale: String, contentVersion: Int, parent: String) -> String {
        String(SHA256.hex(Array("rollout-salt\u{0}\(locale)\u{0}\(contentVersion)\u{0}\(parent)".utf8)).prefix(16))
    }
}
