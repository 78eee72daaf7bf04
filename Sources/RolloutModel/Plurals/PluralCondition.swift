/// One category's condition in CLDR's rule syntax (UTS #35, "Plural rules syntax"): relations
/// joined by `and`, alternatives by `or` (`and` binds tighter); a relation is an operand, an
/// optional `mod`/`%`, then `=`, `!=`, `in`, `not in`, `within`, `not within`, `is` or `is not`
/// and a range list (`2..4,9`). Samples (`@integer ...`) are not part of a condition.
struct PluralCondition: Equatable, Sendable {
    enum Operand: String, Sendable {
        case n, i, v, w, f, t, c, e
    }

    struct Relation: Equatable, Sendable {
        var operand: Operand
        var modulus: UInt64?
        var negated: Bool
        /// `within`: any value between a range's ends, fractions too; `in`: whole values only.
        var within: Bool
        var ranges: [ClosedRange<UInt64>]
    }

    struct SyntaxError: Error, Equatable {
        let message: String
    }

    /// Alternatives, each relations that must all hold.
    var alternatives: [[Relation]]

    init(_ text: String) throws {
        var parser = Parser(text: text, tokens: try Self.tokens(text)[...])
        alternatives = [[]]
        while true {
            alternatives[alternatives.count - 1].append(try parser.relation())
            guard let joiner = parser.tokens.popFirst() else { return }
            switch joiner {
            case "and": break
            case "or": alternatives.append([])
            default: throw parser.error("\"\(joiner)\" where and, or or the end should be")
            }
        }
    }

    /// Reads relations off the tokens of one condition, front to back.
    private struct Parser {
        let text: String
        var tokens: ArraySlice<String>

        func error(_ what: String) -> SyntaxError { SyntaxError(message: "\"\(text)\": \(what)") }

        mutating func next() throws -> String {
            guard let token = tokens.popFirst() else { throw SyntaxError(message: "\"\(text)\" ends early") }
            return token
        }

        mutating func number() throws -> UInt64 {
            let token = try next()
            guard let value = UInt64(token) else { throw error("\"\(token)\" is not a number") }
            return value
        }

        /// An operand, an optional modulus, the comparison and its range list.
        mutating func relation() throws -> Relation {
            let name = try next()
            guard let operand = Operand(rawValue: name) else { throw error("\"\(name)\" is not an operand") }
            var relation = Relation(operand: operand, modulus: nil, negated: false, within: false, ranges: [])
            if tokens.first == "mod" || tokens.first == "%" {
                tokens.removeFirst()
                relation.modulus = try number()
                guard relation.modulus != 0 else { throw error("mod 0") }
            }
            switch try next() {
            case "=": break
            case "!=": relation.negated = true
            case "is":
                if tokens.first == "not" {
                    tokens.removeFirst()
                    relation.negated = true
                }
            case "not":
                relation.negated = true
                let word = try next()
                guard word == "in" || word == "within" else { throw error("\"not \(word)\"") }
                relation.within = word == "within"
            case "in": break
            case "within": relation.within = true
            case let word: throw error("\"\(word)\" is not a relation")
            }
            relation.ranges = try ranges()
            return relation
        }

        /// `2..4,9`: one or more values or ranges, joined by commas.
        mutating func ranges() throws -> [ClosedRange<UInt64>] {
            var ranges: [ClosedRange<UInt64>] = []
            repeat {
                if tokens.first == "," { tokens.removeFirst() }
                let low = try number()
                var high = low
                if tokens.first == ".." {
                    tokens.removeFirst()
                    high = try number()
                }
                guard low <= high else { throw error("the range \(low)..\(high) is empty") }
                ranges.append(low...high)
            } while tokens.first == ","
            return ranges
        }
    }

    /// Words, numbers and the symbols `=`, `!=`, `%`, `,` and `..`; spaces only separate.
    private static func tokens(_ text: String) throws -> [String] {
        var tokens: [String] = []
        var rest = Substring(text)
        while let c = rest.first {
            if c == " " {
                rest = rest.dropFirst()
            } else if c.isLetter || c.isNumber {
                let word = rest.prefix { ($0.isLetter || $0.isNumber) && $0.isASCII }
                guard !word.isEmpty else { throw SyntaxError(message: "\"\(text)\": \"\(c)\" is not ASCII") }
                tokens.append(String(word))
                rest = rest.dropFirst(word.count)
            } else if let symbol = ["!=", "..", "=", "%", ","].first(where: { rest.hasPrefix($0) }) {
                tokens.append(symbol)
                rest = rest.dropFirst(symbol.count)
            } else {
                throw SyntaxError(message: "\"\(text)\": unexpected \"\(c)\"")
            }
        }
        return tokens
    }

    func matches(_ number: PluralOperands) -> Bool {
        alternatives.contains { $0.allSatisfy { $0.matches(number) } }
    }
}

extension PluralCondition.Relation {
    func matches(_ number: PluralOperands) -> Bool {
        let digits: PluralOperands.Digits
        switch operand {
        case .n, .i: digits = number.i
        case .f: digits = number.f
        case .t: digits = number.t
        case .v: digits = .init(number.v)
        case .w: digits = .init(number.w)
        case .c, .e: digits = .init(number.e)
        }
        // n is i plus a fraction: in a range only when the fraction is zero, within one up to its end.
        let fraction = operand == .n && !number.f.isZero
        var value = digits.low
        var exceeds = digits.exceeds
        // When the modulus divides 10^18 (every CLDR modulus does), the last 18 digits give the remainder.
        if let modulus, !exceeds || PluralOperands.Digits.limit % modulus == 0 {
            value %= modulus
            exceeds = false
        }
        let inside =
            !exceeds
            && ranges.contains { range in
                within
                    ? range.contains(value) && (value < range.upperBound || !fraction)
                    : range.contains(value) && !fraction
            }
        return inside != negated
    }
}
