import Foundation

/// The pack's canonical form for what catalogs write in many ways (docs/import.md): literal text
/// escaped for ICU (every format), and printf arguments as numbered ICU arguments that keep their
/// position and type (`%1$@`, `%s` -> `{0}`; `%2$d`, `%lld` -> `{1, number}`; `%%` -> `%`), plural
/// forms as one ICU `plural` whose argument the forms count with `#`.
public enum Placeholders {
    /// Literal text (what a catalog means to show as it is) in ICU form: an apostrophe doubled, and
    /// `{`, `}` (and `#` inside a plural form) quoted, so that ICU's apostrophe rules give back
    /// exactly this text (docs/import.md, "Apostrophes").
    ///
    /// A run of special characters (with any apostrophes among them) is quoted as one span: two
    /// spans side by side would read as an apostrophe inside one (`'{''{'` is "{'{"), and an
    /// apostrophe between two would close the quote early.
    /// Read as Unicode scalars, as ICU reads it: a brace with a combining mark after it is a brace.
    public static func literal(_ text: String, inPlural: Bool = false) -> String {
        func special(_ c: Unicode.Scalar) -> Bool { c == "{" || c == "}" || (inPlural && c == "#") }
        guard text.unicodeScalars.contains(where: { $0 == "'" || special($0) }) else { return text }
        let characters = Array(text.unicodeScalars)
        var out = ""
        var i = 0
        while i < characters.count {
            guard special(characters[i]) else {
                if characters[i] == "'" { out += "''" } else { out.unicodeScalars.append(characters[i]) }
                i += 1
                continue
            }
            // The run: specials, and apostrophes that have another special after them.
            var end = i + 1
            while end < characters.count {
                if special(characters[end]) {
                    end += 1
                } else if characters[end] == "'", let next = characters[end...].firstIndex(where: { $0 != "'" }),
                    special(characters[next])
                {
                    end = next
                } else {
                    break
                }
            }
            out += "'" + characters[i..<end].map { $0 == "'" ? "''" : String($0) }.joined() + "'"
            i = end
        }
        return out
    }

    /// The CLDR plural categories in CLDR order, the order ICU plurals are written in.
    static let pluralOrder = ["zero", "one", "two", "few", "many", "other"]

    public static func pluralCategories<S: Sequence>(_ categories: S) -> [String] where S.Element == String {
        categories.sorted { (pluralOrder.firstIndex(of: $0) ?? 99, $0) < (pluralOrder.firstIndex(of: $1) ?? 99, $1) }
    }
}

// MARK: printf-style strings (Android's Java String.format, Apple's printf)

/// Whose printf a string is written for: the conversions and flags each accepts differ.
public enum PrintfDialect: Sendable {
    /// java.util.Formatter, as Android's `getString(id, args...)` uses it.
    case java
    /// Apple's `String(format:)` and String Catalogs (`%@`, `%lld`, `%#@name@`).
    case apple
}

/// Why a printf string has no faithful ICU form; the string is left out with this reason.
public struct PrintfRefusal: Error, Equatable, Sendable {
    public let reason: String
    public init(reason: String) { self.reason = reason }
}

extension Placeholders {
    /// One piece of a printf string.
    public enum PrintfPiece: Equatable, Sendable {
        /// Text shown as it is (`%%` already read as `%`).
        case text(String)
        /// A conversion: the 0-based argument and how it is shown.
        case argument(Int, PrintfValue)
        /// An Apple substitution token `%#@name@`, standing for the argument it takes.
        case substitution(String, Int)
    }

    public enum PrintfValue: Equatable, Sendable {
        case text
        case integer
        /// A decimal with a fixed number of fraction digits (`%.2f`; `%f` is six).
        case decimal(Int)
    }

    /// `text` read as `dialect`'s printf: text and conversions, each conversion with its argument
    /// (explicit `%2$d`, or the next in order; Java's `%<s` the previous one). A `%` that starts no
    /// conversion (`50% off`, a trailing `%`) is text, as the platform shows a string it does not
    /// format. Throws for a conversion whose output ICU cannot reproduce (width, padding, flags,
    /// hexadecimal, scientific, dates).
    /// `unnumbered`, when given, is the argument every conversion without a position takes (a String
    /// Catalog substitution's forms: `%lld` there is the substitution's own argument).
    /// Read as Unicode scalars, as the platforms' printf reads it: `%2$s` followed by a zero-width
    /// non-joiner (U+200C, which Swift groups into one Character with the `s`) is a conversion.
    public static func printf(_ text: String, dialect: PrintfDialect, unnumbered: Int? = nil) throws -> [PrintfPiece] {
        let s = Array(text.unicodeScalars)
        var pieces: [PrintfPiece] = []
        var literal = ""
        var arguments = PrintfArguments(unnumbered: unnumbered)
        func flush() {
            if !literal.isEmpty {
                pieces.append(.text(literal))
                literal = ""
            }
        }
        var i = 0
        while i < s.count {
            guard s[i] == "%", i + 1 < s.count else {
                literal.unicodeScalars.append(s[i])
                i += 1
                continue
            }
            if s[i + 1] == "%" {
                literal.append("%")
                i += 2
                continue
            }
            if dialect == .java, s[i + 1] == "n" {
                literal.append("\n")
                i += 2
                continue
            }
            guard let spec = PrintfSpec.parse(s, at: i, dialect: dialect) else {
                literal.append("%")
                i += 1
                continue
            }
            let spelled = String(String.UnicodeScalarView(s[i..<spec.end]))
            let argument = try arguments.take(spec, spelled: spelled)
            flush()
            if let name = spec.substitution {
                pieces.append(.substitution(name, argument))
            } else {
                pieces.append(.argument(argument, try spec.value(spelled, dialect: dialect)))
            }
            i = spec.end
        }
        flush()
        return pieces
    }

    /// A printf string in canonical ICU form: arguments become `{0}`, `{1, number}` or
    /// `{1, number, ::.00}`, everything else literal text. `pluralArgument`'s conversion is written
    /// `#` (the string is a plural form); `substitution` gives a `%#@name@` token's ICU text.
    public static func icu(
        _ pieces: [PrintfPiece], pluralArgument: Int? = nil,
        substitution: (String, Int) throws -> String = { name, _ in
            throw PrintfRefusal(reason: "%#@\(name)@ names no substitution")
        }
    ) throws -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let text):
                out += literal(text, inPlural: pluralArgument != nil)
            case .argument(let argument, let value) where argument == pluralArgument:
                if case .decimal(let digits) = value {
                    throw .pluralDecimals(digits)
                }
                out += "#"
            case .argument(let argument, .text):
                out += "{\(argument)}"
            case .argument(let argument, .integer):
                out += "{\(argument), number}"
            case .argument(let argument, .decimal(let digits)):
                out += "{\(argument), number, ::.\(String(repeating: "0", count: digits))}"
            case .substitution(let name, let argument):
                out += try substitution(name, argument)
            }
        }
        return out
    }

    /// A printf string (no plural, no substitution) in canonical ICU form.
    public static func printfICU(_ text: String, dialect: PrintfDialect) throws -> String {
        try icu(printf(text, dialect: dialect))
    }

    /// printf plural forms (category -> text) as one ICU plural, in CLDR order. The counted argument
    /// is `counted`, else the integer the forms count with (`countedArgument`); it is written `#` in each form. ICU
    /// needs an `other` form (as Android and Apple fall back to it), so forms without one are refused.
    /// With `counted`, a conversion without a position in a form is that argument.
    /// A language in which no whole number is `other` (it is for fractions), so a catalog may leave
    /// `other` out: `many` stands for it, as a whole-number count never reaches it.
    /// `countsWith`, when given, is the counted argument (the source locale's choice for the same
    /// key: the app passes one count whatever the language), without `counted`'s reading of
    /// conversions without a position.
    public static func printfPlural(
        _ forms: [String: String], dialect: PrintfDialect, counted: Int? = nil, countsWith: Int? = nil,
        language: String? = nil
    ) throws -> String {
        var forms = forms
        if forms["other"] == nil, let many = forms["many"], let language,
            !PluralRules(locale: language).wholeNumberCategories.contains(.other)
        {
            forms["other"] = many
        }
        guard forms["other"] != nil else {
            throw .noOtherForm(pluralCategories(forms.keys))
        }
        let categories = pluralCategories(forms.keys)
        let parsed = try categories.map { try printf(forms[$0]!, dialect: dialect, unnumbered: counted) }
        let argument =
            counted ?? countsWith
            ?? countedArgument(parsed, categories: categories, other: categories.firstIndex(of: "other")!)
        let cases = try zip(categories, parsed).map { category, pieces in
            "\(category) {\(try icu(pieces, pluralArgument: argument))}"
        }
        return "{\(argument), plural, \(cases.joined(separator: " "))}"
    }
}

extension Placeholders {
    /// The counted argument of a plural `printfPlural` wrote (`{1, plural, ...}` is 1), else nil.
    public static func pluralArgument(_ icu: String) -> Int? {
        guard icu.hasPrefix("{"), let comma = icu.firstIndex(of: ","),
            icu[comma...].hasPrefix(", plural,")
        else { return nil }
        return Int(icu[icu.index(after: icu.startIndex)..<comma])
    }

    /// The argument plural forms count with. Like Android's `getQuantityString(id, count, args)`,
    /// the count only picks the form; the forms show it as an integer conversion. So: of the `other`
    /// form's integer conversions, the first that a `zero`, `one` or `two` form leaves out (that
    /// form writes its one number itself, in digits: `one = "%1$d of 1 article"`, `other = "%1$d of %2$d
    /// articles"` counts with %2$d); else the first integer conversion of `other`, else of any form,
    /// else the first number of any form (`one = "1 article, %2$.2f MB"`, `other = "%1$d articles,
    /// %2$.2f MB"` counts with %1$d). Android's Placeholders.java chooses the same way.
    static func countedArgument(_ parsed: [[PrintfPiece]], categories: [String], other: Int) -> Int {
        func arguments(_ pieces: [PrintfPiece], _ test: (PrintfValue) -> Bool) -> [Int] {
            var found: [Int] = []
            for case .argument(let argument, let value) in pieces where test(value) && !found.contains(argument) {
                found.append(argument)
            }
            return found
        }
        let isInteger: (PrintfValue) -> Bool = { $0 == .integer }
        let integers = arguments(parsed[other], isInteger)
        if integers.count > 1 {
            for (category, pieces) in zip(categories, parsed) where ["zero", "one", "two"].contains(category) {
                // It writes a number: a form that writes none says nothing of which it left out.
                let writesDigits = pieces.contains {
                    if case .text(let text) = $0 { return text.unicodeScalars.contains { ("0"..."9").contains($0) } }
                    return false
                }
                guard writesDigits else { continue }
                let shown = Set(arguments(pieces, { _ in true }))
                if let written = integers.first(where: { !shown.contains($0) }) { return written }
            }
        }
        return integers.first ?? arguments(parsed.flatMap { $0 }, isInteger).first
            ?? arguments(parsed.flatMap { $0 }, { $0 != .text }).first ?? 0
    }
}

/// Which argument each conversion of one printf string takes, in order: its explicit position, the
/// previous conversion's (`%<s`), `unnumbered` when given, else the next in sequence.
private struct PrintfArguments {
    let unnumbered: Int?
    var sequential = 0
    var previous: Int? = nil

    init(unnumbered: Int?) { self.unnumbered = unnumbered }

    mutating func take(_ spec: PrintfSpec, spelled: String) throws -> Int {
        let argument: Int
        if let position = spec.position {
            argument = position - 1
        } else if spec.relative {
            guard let previous else {
                throw PrintfRefusal(reason: "\(spelled) repeats a previous argument, and there is none")
            }
            argument = previous
        } else if let unnumbered {
            argument = unnumbered
        } else {
            argument = sequential
            sequential += 1
        }
        previous = argument
        return argument
    }
}

/// One printf conversion specification: `%` [position `$`] [flags] [width] [`.` precision]
/// [length] conversion.
struct PrintfSpec {
    var position: Int?
    var relative = false
    var flags = ""
    var width = ""
    var precision: Int?
    var conversion: Character = "@"
    var substitution: String?
    var end = 0

    static let javaConversions: Set<Character> = [
        "s", "S", "c", "C", "d", "o", "x", "X", "e", "E", "f", "g", "G", "a", "A", "b", "B", "h", "H", "t", "T",
    ]
    static let appleConversions: Set<Character> = [
        "@", "s", "S", "c", "C", "d", "D", "i", "u", "U", "o", "O", "x", "X", "e", "E", "f", "F", "g", "G", "a", "A",
        "p",
    ]

    /// The specification starting at `s[start]` (a `%`), or nil when the `%` starts none and is text.
    /// A `%` followed by a space is text: catalogs write `50% off`, never the space flag.
    static func parse(_ s: [Unicode.Scalar], at start: Int, dialect: PrintfDialect) -> PrintfSpec? {
        var spec = PrintfSpec()
        var j = start + 1
        func digits() -> String {
            var text = ""
            while j < s.count, ("0"..."9").contains(s[j]) {
                text.unicodeScalars.append(s[j])
                j += 1
            }
            return text
        }
        guard j < s.count, s[j] != " " else { return nil }
        let lead = digits()
        if !lead.isEmpty, j < s.count, s[j] == "$" {
            spec.position = Int(lead)
            guard (spec.position ?? 0) >= 1 else { return nil }
            j += 1
        } else {
            j = start + 1
        }
        if dialect == .apple, j + 1 < s.count, s[j] == "#", s[j + 1] == "@" {
            guard let close = s[(j + 2)...].firstIndex(of: "@"), close > j + 2 else { return nil }
            spec.substitution = String(String.UnicodeScalarView(s[(j + 2)..<close]))
            spec.end = close + 1
            return spec
        }
        let flagSet: Set<Unicode.Scalar> =
            dialect == .java ? ["-", "#", "+", " ", "0", ",", "(", "<"] : ["-", "+", " ", "#", "0", "'"]
        while j < s.count, flagSet.contains(s[j]) {
            if s[j] == "<" { spec.relative = true } else { spec.flags.unicodeScalars.append(s[j]) }
            j += 1
        }
        spec.width = digits()
        if j < s.count, s[j] == "." {
            j += 1
            let precision = digits()
            guard !precision.isEmpty || dialect == .apple else { return nil }
            spec.precision = Int(precision) ?? 0
        }
        if dialect == .apple {
            while j < s.count, "hlqLzjt".unicodeScalars.contains(s[j]) { j += 1 }
        }
        guard j < s.count else { return nil }
        let conversion = Character(s[j])
        guard (dialect == .java ? javaConversions : appleConversions).contains(conversion) else { return nil }
        if dialect == .java, conversion == "t" || conversion == "T" {
            j += 1  // a date conversion has a suffix letter
        }
        spec.conversion = conversion
        spec.end = min(j + 1, s.count)
        return spec
    }

    /// How the argument is shown, or why ICU cannot show it the same way.
    func value(_ spelled: String, dialect: PrintfDialect) throws -> Placeholders.PrintfValue {
        func refuse(_ why: String) -> PrintfRefusal {
            PrintfRefusal(reason: "\(spelled): \(why), which the ICU form cannot keep")
        }
        let textual: Set<Character> = dialect == .java ? ["s", "c"] : ["@", "s", "S", "c", "C"]
        let integral: Set<Character> = dialect == .java ? ["d"] : ["d", "D", "i", "u", "U"]
        if textual.contains(conversion) || integral.contains(conversion) || conversion == "f" || conversion == "F" {
            if !flags.isEmpty { throw refuse("the flag \(flags) changes how it is written") }
            if !width.isEmpty { throw refuse("a width of \(width) pads it") }
        }
        if textual.contains(conversion) {
            if precision != nil { throw refuse("a precision cuts the text short") }
            return .text
        }
        if integral.contains(conversion) {
            if precision != nil { throw refuse("a precision pads the number with zeros") }
            return .integer
        }
        switch conversion {
        case "f", "F": return .decimal(precision ?? 6)
        case "x", "X", "o", "O": throw refuse("a hexadecimal or octal number")
        case "e", "E", "g", "G", "a", "A": throw refuse("a number in scientific notation")
        case "S", "C": throw refuse("the text in capitals")
        case "t", "T": throw refuse("a date or time")
        case "b", "B": throw refuse("a true/false value")
        case "h", "H": throw refuse("a hash code")
        default: throw refuse("a pointer")
        }
    }
}

extension Error where Self == PrintfRefusal {
    fileprivate static func pluralDecimals(_ digits: Int) -> PrintfRefusal {
        PrintfRefusal(
            reason: "the counted number is written with \(digits) decimals, which an ICU plural's # does not keep")
    }

    fileprivate static func noOtherForm(_ categories: [String]) -> PrintfRefusal {
        let forms = categories.joined(separator: ", ")
        return PrintfRefusal(
            reason: "its plural forms (\(forms)) have no \"other\", the form every count falls back to")
    }
}
