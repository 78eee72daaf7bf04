/// An app version compared numerically by dotted components: `4.10 > 4.9`, `1.5 == 1.5.0`.
/// Anything that is not digits separated by single dots is not a version.
public struct AppVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public let components: [Int]
    /// The text as written ("4.08" stays "4.08"), so a pack's checksum covers what its file says.
    public let description: String

    public static let maximumComponents = 8
    /// Components above this are refused rather than overflowing.
    public static let maximumComponentValue = 999_999_999

    public init?(_ text: String) {
        let trimmed = text
        guard !trimmed.isEmpty, trimmed.utf8.count <= InputLimits.appVersionBytes else { return nil }
        var parts: [Int] = []
        var current = 0
        var digits = 0
        for byte in trimmed.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return nil }
                parts.append(current)
                current = 0
                digits = 0
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                current = current * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                guard current <= AppVersion.maximumComponentValue else { return nil }
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        parts.append(current)
        guard parts.count <= AppVersion.maximumComponents else { return nil }
        components = parts
        description = text
    }

    public init(components: [Int]) {
        precondition(!components.isEmpty && components.allSatisfy { $0 >= 0 })
        self.components = components
        self.description = components.map(String.init).joined(separator: ".")
    }

    /// Components with trailing zeros removed: the identity used for equality and hashing.
    private var significant: ArraySlice<Int> {
        var end = components.count
        while end > 1 && components[end - 1] == 0 { end -= 1 }
        return components[..<end]
    }

    public static func == (lhs: AppVersion, rhs: AppVersion) -> Bool { lhs.significant == rhs.significant }

    /// The app-version family a segment names: the first two components (4.8.1 is in 4.8).
    public var family: String { components.prefix(2).map(String.init).joined(separator: ".") }

    /// One spelling per version: trailing zero components dropped (4.8.0 and 4.08 are both 4.8).
    public var normalized: String { significant.map(String.init).joined(separator: ".") }

    public func hash(into hasher: inout Hasher) { hasher.combine(Array(significant)) }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        let count = max(lhs.components.count, rhs.components.count)
        for i in 0..<count {
            let l = i < lhs.components.count ? lhs.components[i] : 0
            let r = i < rhs.components.count ? rhs.components[i] : 0
            if l != r { return l < r }
        }
        return false
    }
}
