/// A CLDR plural category (UTS #35, "Language Plural Rules"), in CLDR's order.
public enum PluralCategory: String, CaseIterable, Comparable, Sendable {
    case zero, one, two, few, many, other

    public static func < (a: PluralCategory, b: PluralCategory) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// A number as CLDR's plural rules read it (UTS #35, "Plural Operand Meanings"), from the digits it
/// is shown with: "1.50" has i=1, v=2, w=1, f=50, t=5; "1.2c3" is 1200 with e=3. The visible
/// fraction digits matter ("1" is `one` in English, "1.0" is `other`), which is why a count reaches
/// the rules as text and never as a floating-point value.
public struct PluralOperands: Hashable, Sendable {
    /// An operand's value when it has more than 18 digits: the last 18 (every CLDR modulus divides
    /// 10^18) and that it is larger than any range a rule names.
    struct Digits: Hashable, Sendable {
        static let limit: UInt64 = 1_000_000_000_000_000_000
        var low: UInt64
        var exceeds: Bool

        init(_ digits: Substring) {
            let significant = digits.drop { $0 == "0" }
            low = UInt64(significant.suffix(18)) ?? 0
            exceeds = significant.count > 18
        }

        init(_ value: Int) {
            low = UInt64(value)
            exceeds = false
        }

        var isZero: Bool { low == 0 && !exceeds }
    }

    /// The integer digits (i), the visible fraction digits (f) and those without trailing zeros (t).
    let i, f, t: Digits
    /// The number of visible fraction digits, with (v) and without (w) trailing zeros.
    public let v, w: Int
    /// The compact decimal exponent (c, also written e): 0 unless the number is written `1.2c3`.
    public let e: Int
    /// A minus sign, which the rules ignore (they read the absolute value) and `=N` cases do not.
    public let isNegative: Bool

    /// The operands of a number written as ASCII digits with an optional minus sign, fraction and
    /// compact exponent (`-12`, `1.50`, `1.2c6`); nil for anything else (grouping separators, a
    /// locale's decimal comma, spaces).
    public init?(_ text: String) {
        var rest = Substring(text)
        isNegative = rest.hasPrefix("-")
        if isNegative { rest = rest.dropFirst() }
        var exponent = 0
        if let mark = rest.firstIndex(where: { $0 == "c" || $0 == "e" }) {
            let digits = rest[rest.index(after: mark)...]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(\.isASCIIDigit), let value = Int(digits) else {
                return nil
            }
            exponent = value
            rest = rest[..<mark]
        }
        let parts = rest.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return nil }
        var fraction = parts.count == 2 ? parts[1] : ""
        guard parts.count == 1 || !fraction.isEmpty, fraction.allSatisfy(\.isASCIIDigit) else { return nil }
        // The exponent moves the point: 1.2c3 is 1200, 1.23456c3 is 1234.56.
        var integer = String(whole)
        if exponent > 0 {
            let moved = fraction.prefix(exponent)
            integer += moved + String(repeating: "0", count: exponent - moved.count)
            fraction = fraction.dropFirst(moved.count)
        }
        let trimmed = fraction.prefix(fraction.count - fraction.reversed().prefix { $0 == "0" }.count)
        i = Digits(Substring(integer))
        f = Digits(fraction)
        t = Digits(trimmed)
        v = fraction.count
        w = trimmed.count
        e = exponent
    }

    public init(_ value: Int) {
        self.init(String(value))!
    }

    /// The same number, however many trailing zeros each shows: what an ICU `=N` case matches.
    public func isNumericallyEqual(to other: PluralOperands) -> Bool {
        let zero = i.isZero && t.isZero
        return i == other.i && t == other.t && w == other.w && (isNegative == other.isNegative || zero)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
