import RolloutModel

/// A number of bytes: digits, optionally with K, M, G or T (powers of 1024) and an optional B or iB,
/// such as `100G`; at most 2^62 bytes.
package struct ByteSize: ArgumentValue, Sendable {
    package let bytes: Int

    package static func argument(_ text: String, flag: String) throws -> ByteSize {
        guard let bytes = bytes(text), bytes >= 1 else {
            throw RolloutError.usage(
                "\(flag) \"\(text.prefix(40))\" must be a number of bytes, optionally with K, M, G or T (powers of 1024), such as 100G"
            )
        }
        return ByteSize(bytes: bytes)
    }

    /// "100G" as 100 x 2^30; a plain number is bytes. Nil past 2^62 or when not such a size.
    static func bytes(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 10, "M": 20, "G": 30, "T": 40]
        var digits = Substring(text.trimmingSpaces.uppercased())
        var shift = 0
        if digits.hasSuffix("IB") {
            digits = digits.dropLast(2)
        } else if digits.hasSuffix("B") {
            digits = digits.dropLast()
        }
        if let last = digits.last, let unit = units[last] {
            shift = unit
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.count <= 19, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let value = Int(digits),
            value <= (1 << 62) >> shift
        else { return nil }
        return value << shift
    }
}
