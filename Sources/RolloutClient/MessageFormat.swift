import Foundation
import RolloutModel

/// Fills a string's placeholders, in the forms packs use (docs/pack-format.md): `{name}` and
/// `{{name}}` by name, `%@` / `%d` in order and `%1$@` / `%2$d` by position (the arguments named
/// "1", "2", ...), and ICU `{n, plural, ...}` and `{x, select, ...}`. A placeholder without an
/// argument stays as written, so a missing argument shows in testing instead of vanishing.
/// A plural's count is its argument's text, digits as the app shows them ("1.50"): an `=N` case
/// equal to it in value, else the case of its CLDR category in the language (`PluralRules`, where
/// "1.5" is `other` in English and `one` in French), else `other` (docs/pack-format.md, "Plural forms").
/// Apostrophes and percent signs read as `MessageStyle` says, the rule lint uses too: ICU's
/// default apostrophe mode (`''` is one apostrophe; `'` before `{`, `}` or a plural's `#` quotes
/// text up to the next lone `'`) except in a string with `{{name}}` templates, and printf only in a
/// string without ICU arguments.
enum MessageFormat {
    /// How deep plurals and selects may nest before an argument is shown as written. Lint refuses
    /// more than 16 in a pack (docs/pack-format.md), but bundled strings are never linted, and a
    /// device must not recurse without end on text it was handed. Both clients use this number
    /// (the kit's formatting.json pins it).
    static let maximumNesting = 32

    /// `language` is the whole locale the text is in (`pt-PT`, not `pt`: Portugal's plural rules are
    /// not Brazil's), which chooses the plural rules (`PluralRules(locale:)`) and the decimal
    /// separator: the locale of the pack or bundle the text came from, not the device's.
    static func format(_ text: String, _ arguments: [String: String], language: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "{" || $0 == "%" || $0 == "'" }) else { return text }
        var sequential = 0
        return render(
            tokens(text), arguments, language: language, number: nil, style: MessageStyle(text), depth: 0,
            sequential: &sequential)
    }

    /// The message as its syntax reads it (`MessageTokens`, the rule the ARB importer reads with).
    static func tokens(_ text: String) -> [Character] { MessageTokens.split(text) }

    private static func render(
        _ s: [Character], _ arguments: [String: String], language: String, number: String?, style: MessageStyle,
        depth: Int, sequential: inout Int
    ) -> String {
        var out = ""
        var i = 0
        while i < s.count {
            let c = s[i]
            if c == "'", style.icuApostrophes {
                let (literal, next) = apostrophe(s, at: i, inPlural: number != nil)
                out += literal
                i = next
            } else if c == "{" && i + 1 < s.count && s[i + 1] == "{", let close = find("}}", in: s, from: i + 2) {
                let name = String(s[(i + 2)..<close]).trimmingCharacters(in: .whitespaces)
                out += arguments[name] ?? String(s[i..<(close + 2)])
                i = close + 2
            } else if c == "{", let close = matchingBrace(s, from: i, quoting: style.icuApostrophes) {
                let original = String(s[i...close])
                out +=
                    depth < maximumNesting
                    ? argument(
                        Array(s[(i + 1)..<close]), arguments, language: language, style: style, depth: depth,
                        original: original) : original
                i = close + 1
            } else if c == "#", let number {
                out += number
                i += 1
            } else if c == "%", style.printf, let (text, next) = printf(s, at: i, arguments, sequential: &sequential) {
                out += text
                i = next
            } else {
                out.append(c)
                i += 1
            }
        }
        return out
    }

    /// The text a `%` at `i` stands for, as `PackPrintf` reads it (lint's reader): `%%` is one
    /// percent sign, a specifier its argument (by position, "1", "2", ..., or the next in order) or
    /// itself without one; and where the text after it starts. nil: the `%` is text. A specifier
    /// may end inside a cluster (`%2$s` and a joiner): the rest of that cluster is text.
    private static func printf(
        _ s: [Character], at i: Int, _ arguments: [String: String], sequential: inout Int
    ) -> (String, Int)? {
        // The scalars from the `%` up to the first that no specifier holds: all the reader needs.
        var scalars: [Unicode.Scalar] = []
        var j = i
        gathering: while j < s.count {
            for scalar in s[j].unicodeScalars {
                scalars.append(scalar)
                if scalars.count > 1, !PackPrintf.alphabet.contains(scalar) { break gathering }
            }
            j += 1
        }
        guard let (token, end) = PackPrintf.read(scalars, at: 0) else { return nil }
        var text: String
        switch token {
        case .percent:
            text = "%"
        case .specifier(let position, _):
            let name: String
            if let position {
                name = String(position)
            } else {
                sequential += 1
                name = String(sequential)
            }
            text = arguments[name] ?? String(String.UnicodeScalarView(scalars[..<end]))
        }
        // Back from scalars to clusters: the cluster the specifier ends in may hold more.
        var used = 0
        var next = i
        while used < end {
            used += s[next].unicodeScalars.count
            next += 1
        }
        if used > end {
            let last = Array(s[next - 1].unicodeScalars)
            text += String(String.UnicodeScalarView(last[(last.count - (used - end))...]))
        }
        return (text, next)
    }

    /// The text an apostrophe at `i` stands for, and where the text after it starts.
    private static func apostrophe(_ s: [Character], at i: Int, inPlural: Bool) -> (String, Int) {
        guard i + 1 < s.count else { return ("'", i + 1) }
        let next = s[i + 1]
        if next == "'" { return ("'", i + 2) }
        guard next == "{" || next == "}" || (inPlural && next == "#") else { return ("'", i + 1) }
        var literal = ""
        var j = i + 1
        while j < s.count {
            if s[j] == "'" {
                if j + 1 < s.count && s[j + 1] == "'" {
                    literal.append("'")
                    j += 2
                    continue
                }
                return (literal, j + 1)
            }
            literal.append(s[j])
            j += 1
        }
        return (literal, j)
    }

    /// Where the quoted text an apostrophe at `i` starts ends (its closing apostrophe), or `i` when
    /// the apostrophe quotes nothing: brace matching must not count a quoted `'{'`.
    private static func quotedEnd(_ s: [Character], at i: Int) -> Int {
        guard i + 1 < s.count else { return i }
        if s[i + 1] == "'" { return i + 1 }
        guard s[i + 1] == "{" || s[i + 1] == "}" || s[i + 1] == "#" else { return i }
        var j = i + 1
        while j < s.count {
            if s[j] == "'" {
                if j + 1 < s.count && s[j + 1] == "'" {
                    j += 2
                    continue
                }
                return j
            }
            j += 1
        }
        return s.count - 1
    }

    private static func argument(
        _ body: [Character], _ arguments: [String: String], language: String, style: MessageStyle, depth: Int,
        original: String
    ) -> String {
        let parts = split(body, limit: 3, quoting: style.icuApostrophes)
        let name = parts[0].trimmingCharacters(in: .whitespaces)
        guard let value = arguments[name] else { return original }
        if parts.count == 3, parts[1].trimmingCharacters(in: .whitespaces) == "number" {
            return number(value, skeleton: parts[2].trimmingCharacters(in: .whitespaces), language: language)
        }
        guard parts.count == 3 else { return value }
        let kind = parts[1].trimmingCharacters(in: .whitespaces)
        let options = cases(tokens(parts[2]), quoting: style.icuApostrophes)
        var sequential = 0
        switch kind {
        case "plural":
            guard let count = PluralOperands(value) else { return value }
            let exact = options.keys.sorted().first {
                $0.hasPrefix("=") && PluralOperands(String($0.dropFirst()))?.isNumericallyEqual(to: count) == true
            }
            let category = PluralRules(locale: language).category(for: count).rawValue
            let chosen = exact.flatMap { options[$0] } ?? options[category] ?? options["other"]
            let shown = decimal(value, language: language)
            return chosen.map {
                render(
                    $0, arguments, language: language, number: shown, style: style, depth: depth + 1,
                    sequential: &sequential)
            } ?? value
        case "select":
            let chosen = options[value] ?? options["other"]
            return chosen.map {
                render(
                    $0, arguments, language: language, number: nil, style: style, depth: depth + 1,
                    sequential: &sequential)
            } ?? value
        default:
            return value
        }
    }

    /// A plural's count as `#` shows it: the digits as passed, with the language's decimal
    /// separator (1,5 in French) and no grouping, as `number` writes a skeleton's digits.
    private static func decimal(_ value: String, language: String) -> String {
        guard value.contains(".") else { return value }
        let separator = Locale(identifier: language).decimalSeparator ?? "."
        return separator == "." ? value : value.replacingOccurrences(of: ".", with: separator)
    }

    /// A number with an ICU skeleton's fraction digits (`::.00`: exactly two, as printf's `%.2f`),
    /// with the language's decimal separator and no grouping, as Android's and Apple's formatting in
    /// that locale writes it (3,50 in French); any other style leaves the value as given.
    private static func number(_ value: String, skeleton: String, language: String) -> String {
        guard skeleton.hasPrefix("::."), let number = Double(value) else { return value }
        let digits = skeleton.dropFirst(3).prefix { $0 == "0" }.count
        guard digits == skeleton.count - 3 else { return value }
        let plain = String(format: "%.\(digits)f", locale: Locale(identifier: "en_US_POSIX"), number)
        let separator = Locale(identifier: language).decimalSeparator ?? "."
        return separator == "." ? plain : plain.replacingOccurrences(of: ".", with: separator)
    }

    /// `one {# item} other {# items}` as [selector: body].
    private static func cases(_ s: [Character], quoting: Bool) -> [String: [Character]] {
        var result: [String: [Character]] = [:]
        var i = 0
        while i < s.count {
            while i < s.count, s[i].isWhitespace { i += 1 }
            var selector = ""
            while i < s.count, s[i] != "{", !s[i].isWhitespace {
                selector.append(s[i])
                i += 1
            }
            while i < s.count, s[i].isWhitespace { i += 1 }
            guard i < s.count, s[i] == "{", let close = matchingBrace(s, from: i, quoting: quoting) else { break }
            if result[selector] == nil { result[selector] = Array(s[(i + 1)..<close]) }
            i = close + 1
        }
        return result
    }

    private static func split(_ s: [Character], limit: Int, quoting: Bool) -> [String] {
        var parts: [String] = []
        var depth = 0
        var current = ""
        var i = 0
        while i < s.count {
            let c = s[i]
            if c == "'", quoting {
                let end = quotedEnd(s, at: i)
                current += String(s[i...end])
                i = end + 1
                continue
            }
            defer { i += 1 }
            if c == "{" { depth += 1 }
            if c == "}" { depth -= 1 }
            if c == ",", depth == 0, parts.count < limit - 1 {
                parts.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        parts.append(current)
        return parts
    }

    private static func matchingBrace(_ s: [Character], from start: Int, quoting: Bool) -> Int? {
        var depth = 0
        var i = start
        while i < s.count {
            if s[i] == "'", quoting {
                i = quotedEnd(s, at: i) + 1
                continue
            }
            defer { i += 1 }
            if s[i] == "{" { depth += 1 }
            if s[i] == "}" {
                depth -= 1
                if depth == 0 { return i }
            }
        }
        return nil
    }

    private static func find(_ needle: String, in s: [Character], from start: Int) -> Int? {
        let n = Array(needle)
        guard s.count >= n.count, start <= s.count - n.count else { return nil }
        for i in start...(s.count - n.count) where Array(s[i..<(i + n.count)]) == n { return i }
        return nil
    }

    /// The CLDR cardinal plural category of a whole number in `language` (`PluralRules`).
    static func pluralCategory(_ n: Int, language: String) -> String {
        PluralRules(locale: language).category(for: PluralOperands(n)).rawValue
    }
}
