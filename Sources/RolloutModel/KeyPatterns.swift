/// A glob over string keys, matched against the whole key (docs/policy.md, "Key patterns"): `*`
/// matches any run of characters (dots included, and the empty run), `?` exactly one character,
/// every other character only itself. A pattern is not empty and has no white space.
public struct KeyPattern: Hashable, Sendable, CustomStringConvertible {
    public let pattern: String
    private let characters: [Character]

    public init?(_ pattern: String) {
        guard !pattern.isEmpty, !pattern.contains(where: { $0.isWhitespace }) else { return nil }
        self.pattern = pattern
        self.characters = Array(pattern)
    }

    public var description: String { pattern }

    public func matches(_ key: String) -> Bool {
        let text = Array(key)
        var p = 0
        var t = 0
        var star = -1
        var mark = 0
        while t < text.count {
            if p < characters.count && (characters[p] == "?" || characters[p] == text[t]) {
                p += 1
                t += 1
            } else if p < characters.count && characters[p] == "*" {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < characters.count && characters[p] == "*" { p += 1 }
        return p == characters.count
    }

    public static func == (lhs: KeyPattern, rhs: KeyPattern) -> Bool { lhs.pattern == rhs.pattern }
    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }
}

/// A list of key patterns, as the policy's `protectedKeys` and `bundleOnlyKeys` and a manifest's
/// `bundleOnly` hold them; a key matches the list when it matches any of them. The empty list
/// matches nothing (an old manifest without `bundleOnly`).
public struct KeyPatterns: Equatable, Sendable {
    public let patterns: [KeyPattern]

    public static let none = KeyPatterns([])

    public init(_ patterns: [KeyPattern]) { self.patterns = patterns }

    /// nil when one of `spellings` is not a pattern.
    public init?(spellings: [String]) {
        let parsed = spellings.compactMap(KeyPattern.init)
        guard parsed.count == spellings.count else { return nil }
        self.patterns = parsed
    }

    public var isEmpty: Bool { patterns.isEmpty }
    public var spellings: [String] { patterns.map(\.pattern) }

    /// The first pattern `key` matches, to name it in a message.
    public func firstMatch(_ key: String) -> KeyPattern? { patterns.first { $0.matches(key) } }

    public func matches(_ key: String) -> Bool { firstMatch(key) != nil }

    /// `strings` without the keys the list matches.
    public func removing(from strings: [String: String]) -> [String: String] {
        isEmpty ? strings : strings.filter { !matches($0.key) }
    }
}
