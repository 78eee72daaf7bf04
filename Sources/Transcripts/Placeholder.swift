import Foundation

/// The few fields a page may leave unstated, because they differ from run to run: random keys make key ids,
/// public keys and signatures differ, and every commit after them. The one table: a page writes `[NAME]`
/// where such a value stands, and `transcripts update` puts it there (never a person), where two runs of
/// the page differ in a value of that shape.
public enum Placeholder: String, CaseIterable, Sendable {
    case commit
    case keyID = "key-id"
    case sha256
    case base64

    /// The whole token a placeholder stands for. Hex shapes are told apart by length; a token of any
    /// other shape that varies is an error, so nothing else can hide behind a placeholder.
    var pattern: String {
        switch self {
        case .commit: return "(?:[0-9a-f]{7,12}|[0-9a-f]{40})"
        case .keyID: return "[0-9a-f]{16}"
        case .sha256: return "[0-9a-f]{64}"
        case .base64: return "[A-Za-z0-9+/]{20,}={0,2}"
        }
    }

    var token: String { "[\(rawValue)]" }

    /// A number that varies is not an id: of two random ids, at least one has a letter (all-digit hex of
    /// 7 or more digits, twice, is rarer than one in 10,000).
    func hasLetters(_ token: String) -> Bool { token.contains { $0.isLetter } }

    public static var names: String { allCases.map(\.token).joined(separator: ", ") }

    /// The placeholder whose shape the token has, hex lengths first.
    static func classify(_ token: String) -> Placeholder? {
        allCases.first { $0.regex.firstMatch(in: token, range: NSRange(token.startIndex..., in: token)) != nil }
    }

    private var regex: NSRegularExpression { Self.shapes[self]! }

    // The patterns are constants of this file: compiled once.
    private static let shapes = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0, try! NSRegularExpression(pattern: "^" + $0.pattern + "$")) })

    /// Runs of characters a placeholder can stand for; what lies between them must match exactly.
    private static let tokens = try! NSRegularExpression(pattern: "[A-Za-z0-9+/]+={0,2}")

    /// Whether `actual` is `expected` with each placeholder standing for a value of its shape.
    static func matches(expected: String, actual: String) -> Bool {
        if expected == actual { return true }
        guard allCases.contains(where: { expected.contains($0.token) }) else { return false }
        var pattern = "^"
        var rest = Substring(expected)
        while let open = rest.firstIndex(of: "[") {
            let tail = rest[open...]
            if let placeholder = allCases.first(where: { tail.hasPrefix($0.token) }) {
                pattern += NSRegularExpression.escapedPattern(for: String(rest[..<open])) + placeholder.pattern
                rest = tail.dropFirst(placeholder.token.count)
            } else {
                pattern += NSRegularExpression.escapedPattern(for: String(rest[...open]))
                rest = rest[rest.index(after: open)...]
            }
        }
        pattern += NSRegularExpression.escapedPattern(for: String(rest)) + "$"
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
        return regex.firstMatch(in: actual, range: NSRange(actual.startIndex..., in: actual)) != nil
    }

    /// The line as a page shows it, from the same line of two runs: equal, or equal but for tokens that
    /// each have one placeholder's shape in both runs (those become the placeholder). Nil otherwise.
    static func template(_ first: String, _ second: String) -> String? {
        if first == second { return first }
        let a = split(first)
        let b = split(second)
        guard a.count == b.count else { return nil }
        var result = ""
        for (x, y) in zip(a, b) {
            if x == y {
                result += x.text
                continue
            }
            guard x.isToken, y.isToken, let kind = classify(x.text), classify(y.text) == kind,
                kind.hasLetters(x.text) || kind.hasLetters(y.text)
            else { return nil }
            result += kind.token
        }
        return result
    }

    private struct Piece: Equatable {
        var text: String
        var isToken: Bool
    }

    private static func split(_ line: String) -> [Piece] {
        var pieces: [Piece] = []
        var last = line.startIndex
        for match in tokens.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
            guard let range = Range(match.range, in: line) else { continue }
            if last < range.lowerBound {
                pieces.append(Piece(text: String(line[last..<range.lowerBound]), isToken: false))
            }
            pieces.append(Piece(text: String(line[range]), isToken: true))
            last = range.upperBound
        }
        if last < line.endIndex { pieces.append(Piece(text: String(line[last...]), isToken: false)) }
        return pieces
    }
}
