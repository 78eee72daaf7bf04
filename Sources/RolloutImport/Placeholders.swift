import Foundation
import RolloutModel

/// The pack's canonical form for what catalogs write in many ways (docs/import.md): printf
/// arguments become numbered ICU arguments that keep their position and type (`%1$@`, `%s` -> `{0}`;
/// `%2$d`, `%lld` -> `{1, number}`), `{{name}}` becomes `{name}`, and `%%` becomes `%`. Plural forms
/// become one ICU `plural` whose argument the forms count with `#`.
public enum Placeholders {
    /// One printf conversion found in a string.
    struct Conversion {
        let range: Range<Int>
        /// 0-based argument index.
        let argument: Int
        let numeric: Bool
    }

    static let numericConversions: Set<Character> = ["d", "i", "u", "f", "F", "e", "E", "g", "G", "x", "X", "o", "a", "A"]

    /// The printf conversions of `text` (Apple's and Java's flavours), in order, with their argument
    /// index: explicit (`%2$d`) or sequential.
    static func conversions(_ text: [Character]) -> [Conversion] {
        var found: [Conversion] = []
        var sequential = 0
        var i = 0
        while i < text.count {
            guard text[i] == "%" else { i += 1; continue }
            let start = i
            var j = i + 1
            guard j < text.count else { break }
            if text[j] == "%" { i = j + 1; continue }
            var position: Int? = nil
            var digits = ""
            while j < text.count, text[j].isASCII, text[j].isNumber { digits.append(text[j]); j += 1 }
            if !digits.isEmpty, j < text.count, text[j] == "$" {
                position = Int(digits)
                j += 1
            } else {
                j = start + 1
            }
            // Flags, width, precision, length modifiers.
            while j < text.count, "-+ #0123456789.".contains(text[j]) { j += 1 }
            while j < text.count, "hlqLzjt".contains(text[j]) { j += 1 }
            guard j < text.count else { break }
            let conversion = text[j]
            guard conversion == "@" || conversion == "s" || conversion == "S" || conversion == "c" || conversion == "C" || numericConversions.contains(conversion) else {
                i = start + 1
                continue
            }
            let argument: Int
            if let position, position >= 1 {
                argument = position - 1
            } else {
                argument = sequential
                sequential += 1
            }
            found.append(Conversion(range: start..<(j + 1), argument: argument, numeric: numericConversions.contains(conversion)))
            i = j + 1
        }
        return found
    }

    /// Literal text (what a catalog means to show as it is) in ICU form: an apostrophe doubled, and
    /// `{`, `}` (and `#` inside a plural form) quoted, so that ICU's apostrophe rules give back
    /// exactly this text (docs/import.md, "Apostrophes").
    ///
    /// A run of special characters (with any apostrophes among them) is quoted as one span: two
    /// spans side by side would read as an apostrophe inside one (`'{''{'` is "{'{"), and an
    /// apostrophe between two would close the quote early.
    public static func literal(_ text: String, inPlural: Bool = false) -> String {
        func special(_ c: Character) -> Bool { c == "{" || c == "}" || (inPlural && c == "#") }
        guard text.contains(where: { $0 == "'" || special($0) }) else { return text }
        let characters = Array(text)
        var out = ""
        var i = 0
        while i < characters.count {
            guard special(characters[i]) else {
                out += characters[i] == "'" ? "''" : String(characters[i])
                i += 1
                continue
            }
            // The run: specials, and apostrophes that have another special after them.
            var end = i + 1
            while end < characters.count {
                if special(characters[end]) {
                    end += 1
                } else if characters[end] == "'", let next = characters[end...].firstIndex(where: { $0 != "'" }), special(characters[next]) {
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

    /// `text` (a printf-style string: Android, Apple) in canonical ICU form: its printf conversions
    /// become ICU arguments and everything else is literal text. With `pluralArgument`, that
    /// argument's conversion becomes `#` (inside a plural form).
    public static func canonical(_ text: String, pluralArgument: Int? = nil) -> String {
        let characters = Array(text)
        let inPlural = pluralArgument != nil
        var out = ""
        var cursor = 0
        for conversion in conversions(characters) {
            out += literal(unescapePercents(String(characters[cursor..<conversion.range.lowerBound])), inPlural: inPlural)
            if conversion.argument == pluralArgument {
                out += "#"
            } else {
                out += conversion.numeric ? "{\(conversion.argument), number}" : "{\(conversion.argument)}"
            }
            cursor = conversion.range.upperBound
        }
        out += literal(unescapePercents(String(characters[cursor...])), inPlural: inPlural)
        return out
    }

    /// `%%` is a literal percent sign in printf strings.
    static func unescapePercents(_ text: String) -> String { text.replacingOccurrences(of: "%%", with: "%") }

    /// An i18next string: `{{name}}` becomes ICU `{name}`, and everything else is literal text
    /// (an apostrophe, a lone brace, a `%` are shown as they are).
    public static func templates(_ text: String, inPlural: Bool = false) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            out += literal(String(rest[..<open.lowerBound]), inPlural: inPlural)
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." || $0 == "-" }) {
                out += "{\(name)}"
            } else {
                out += literal(String(rest[open.lowerBound..<close.upperBound]), inPlural: inPlural)
            }
            rest = rest[close.upperBound...]
        }
        return out + literal(String(rest), inPlural: inPlural)
    }

    /// The argument a set of plural forms counts: the first numeric printf argument found in them.
    static func countedArgument(_ forms: [String]) -> Int? {
        for form in forms {
            if let numeric = conversions(Array(form)).first(where: \.numeric) { return numeric.argument }
        }
        return nil
    }

    /// Plural forms (category -> text) as one ICU plural in canonical form. `argument` names the
    /// counted argument when the forms use a named one (i18next's count); otherwise the forms' first
    /// numeric printf argument is counted, written `#` inside each form.
    public static func plural(_ forms: [String: String], namedArgument: String? = nil) -> String {
        let order = ["zero", "one", "two", "few", "many", "other"]
        let sorted = forms.keys.sorted { (order.firstIndex(of: $0) ?? 99, $0) < (order.firstIndex(of: $1) ?? 99, $1) }
        if let namedArgument {
            let cases = sorted.map { key in "\(key) {\(templates(forms[key]!, inPlural: true).replacingOccurrences(of: "{\(namedArgument)}", with: "#"))}" }
            return "{\(namedArgument), plural, \(cases.joined(separator: " "))}"
        }
        let counted = countedArgument(sorted.map { forms[$0]! }) ?? 0
        let cases = sorted.map { key in "\(key) {\(canonical(forms[key]!, pluralArgument: counted))}" }
        return "{\(counted), plural, \(cases.joined(separator: " "))}"
    }
}
