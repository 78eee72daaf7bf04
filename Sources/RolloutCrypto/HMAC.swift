/// HMAC-SHA256 (RFC 2104): a tag only the holder of `key` can compute, for data kept outside the
/// signed site that must not be trusted unless we wrote it (the publish cache).
public enum HMACSHA256 {
    static let blockBytes = 64

    public static func tag(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > blockBytes ? SHA256.digest(key) : key
        block += [UInt8](repeating: 0, count: blockBytes - block.count)
        let inner = SHA256.digest(block.map { $0 ^ 0x36 } + message)
        return SHA256.digest(block.map { $0 ^ 0x5c } + inner)
    }

    public static func hex(key: [UInt8], message: [UInt8]) -> String { Hex.encode(tag(key: key, message: message)) }
}
