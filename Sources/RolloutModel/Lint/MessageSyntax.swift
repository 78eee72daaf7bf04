/// Reads one translated string the way the apps will: `{{name}}` templates (seed 002), printf
/// specifiers (`%@`, `%d`, `%1$s`), and ICU MessageFormat arguments including plural and select.
/// It returns the placeholders the string uses and the syntax errors it has.
///
/// Placeholders are normalised for comparison across languages: `{{version}}`, `{name}` (ICU, of any
/// argument type), and `%N$c` for printf, where N is the explicit or implied position and c the
/// conversion with `i`/`u`/`D`/`U` folded into `d`.
public struct MessageSyntax: Equatable, Sendable {
    public var placeholders: Set<String> = []
    /// The placeholders that choose a plural form (`{count}` of `{count, plural, ...}`): counts a
    /// language with one form may leave unshown.
    public var counts: Set<String> = []
    /// The arguments whose value the text shows: `{name}` or `{name, number}` anywhere, and a
    /// plural's count where `#` stands in one of its forms. A plural's count that only chooses a
    /// form (`one {Account} other {Accounts}`) is not shown.
    public var shown: Set<String> = []
    /// Each plural argument (`{count, plural, ...}`, not `selectordinal`) with its case selectors
    /// (`one`, `=0`, ...), in the order written: the categories it covers (lint's plural-forms).
    public var plurals: [PluralCases] = []
    public var errors: [String] = []

    public struct PluralCases: Equatable, Sendable {
        public var argument: String
        public var selectors: [String]
    }

    public static let pluralCategories: Set<String> = ["zero", "one", "two", "few", "many", "other"]
    static let simpleArgumentTypes: Set<String> = ["number", "date", "time", "spellout", "ordinal", "duration"]

    public static func analyse(_ text: String) -> MessageSyntax {
        var scanner = Scanner(scalars: Array(text.unicodeScalars), style: MessageStyle(text))
        scanner.parseMessage(inPlural: false, nested: false, depth: 0)
        return scanner.result
    }

    private struct Scanner {
        let scalars: [Unicode.Scalar]
        var index = 0
        var result = MessageSyntax()
        var nextImplicitPosition = 1
        /// The plurals being read, innermost last: the argument a `#` shows.
        var pluralArguments: [String] = []

        /// How this string's apostrophes and percent signs read (the client's rule too).
        let style: MessageStyle

        init(scalars: [Unicode.Scalar], style: MessageStyle) {
            self.scalars = scalars
            self.style = style
        }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            index + offset < scalars.count ? scalars[index + offset] : nil
        }

        mutating func fail(_ message: String) {
            if !result.errors.contains(message) { result.errors.append(message) }
        }

        /// Parses message text until the end, or until the `}` closing a nested message (not consumed).
        mutating func parseMessage(inPlural: Bool, nested: Bool, depth: Int) {
            guard depth < 16 else {
                fail("ICU message nested more than 16 levels deep")
                index = scalars.count
                return
            }
            while let c = peek() {
                switch c {
                case "{":
                    if peek(1) == "{" {
                        parseTemplate()
                    } else {
                        parseArgument(depth: depth)
                    }
                case "}":
                    if nested { return }
                    fail("unmatched '}' at character \(index + 1)")
                    index += 1
                case "'" where style.icuApostrophes:
                    parseApostrophe(inPlural: inPlural)
                case "%" where style.printf:
                    parsePrintf()
                case "#" where inPlural:
                    if let count = pluralArguments.last { result.shown.insert("{\(count)}") }
                    index += 1
                default:
                    index += 1
                }
            }
            if nested { fail("unclosed '{' in an ICU plural or select case") }
        }

        /// `{{name}}`, the template placeholder of seed 002 (`Đã có phiên bản {{version}}`).
        mutating func parseTemplate() {
            let start = index
            index += 2
            var name = ""
            while let c = peek(), c != "}" {
                name.unicodeScalars.append(c)
                index += 1
            }
            guard peek() == "}", peek(1) == "}" else {
                fail("unclosed '{{' at character \(start + 1)")
                index = scalars.count
                return
            }
            index += 2
            let trimmed = name.trimmingSpaces
            guard !trimmed.isEmpty, trimmed.unicodeScalars.allSatisfy(Scanner.isNameScalar) else {
                fail("'{{\(name)}}' is not a template placeholder such as {{version}}")
                return
            }
            result.placeholders.insert("{{\(trimmed)}}")
        }

        /// ICU's default apostrophe mode: `''` is a literal apostrophe; `'` starts quoted text only
        /// before `{`, `}` (or `#` in a plural); any other apostrophe is just a character, so "l'app" is fine.
        mutating func parseApostrophe(inPlural: Bool) {
            guard let next = peek(1) else {
                index += 1
                return
            }
            if next == "'" {
                index += 2
                return
            }
            guard next == "{" || next == "}" || (inPlural && next == "#") else {
                index += 1
                return
            }
            let start = index
            index += 1
            var quoted = String.UnicodeScalarView()
            defer { checkQuoted(quoted, at: start, inPlural: inPlural) }
            while let c = peek() {
                if c == "'" {
                    if peek(1) == "'" {
                        quoted.append(c)
                        index += 2
                        continue
                    }
                    index += 1
                    return
                }
                quoted.append(c)
                index += 1
            }
        }

        /// Text an apostrophe quoted must not hold an argument (`{0}`, `{name}`) or, in a plural,
        /// `#` with more text: that is an apostrophe meant literally (`l'{0}`, `qu'# minute`) which
        /// ICU turns into quoting, so the argument is shown as its own source text, or never. A lone
        /// quoted `'{'`, `'}'` or `'#'` is the deliberate escape and passes (docs/import.md).
        mutating func checkQuoted(_ quoted: String.UnicodeScalarView, at start: Int, inPlural: Bool) {
            let text = Array(quoted)
            let holdsArgument = text.indices.contains { i in
                text[i] == "{" && i + 1 < text.count
                    && (Scanner.isNameScalar(text[i + 1]) || ("0"..."9").contains(text[i + 1]))
            }
            // `'##'` and `'{#}'` are the importers' escapes of literal runs: only text beside the # is a count's.
            let holdsCount = inPlural && text.contains("#") && text.contains { !"{}#'".unicodeScalars.contains($0) }
            guard holdsArgument || holdsCount else { return }
            let what = holdsArgument ? "an argument" : "the plural count #"
            fail(
                "the apostrophe at character \(start + 1) quotes \(what) as text, so it is never filled in: write '' for an apostrophe that is part of the text (l''{0}), or quote only the character meant literally ('{')"
            )
        }

        /// A `%`: `%%`, a specifier, or text, as `PackPrintf` reads it for lint and devices alike.
        mutating func parsePrintf() {
            guard let (token, end) = PackPrintf.read(scalars, at: index) else {
                index += 1  // a literal percent sign, as in "50% off"
                return
            }
            if case .specifier(let position, let conversion) = token {
                let resolved: Int
                if let position {
                    resolved = position
                } else {
                    resolved = nextImplicitPosition
                    nextImplicitPosition += 1
                }
                result.placeholders.insert("%\(resolved)$\(Character(conversion))")
            }
            index = end
        }

        mutating func skipSpaces() {
            while let c = peek(), c.properties.isWhitespace { index += 1 }
        }

        mutating func readName() -> String {
            var name = ""
            while let c = peek(), Scanner.isNameScalar(c) {
                name.unicodeScalars.append(c)
                index += 1
            }
            return name
        }

        static func isNameScalar(_ c: Unicode.Scalar) -> Bool {
            c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "." || c == "-")
        }

        mutating func parseArgument(depth: Int) {
            let start = index
            index += 1
            skipSpaces()
            let name = readName()
            skipSpaces()
            guard !name.isEmpty else {
                fail("ICU argument at character \(start + 1) has no name")
                recover()
                return
            }
            result.placeholders.insert("{\(name)}")
            guard let c = peek() else {
                fail("unclosed ICU argument '{\(name)'")
                return
            }
            if c == "}" {
                result.shown.insert("{\(name)}")
                index += 1
                return
            }
            guard c == "," else {
                fail("ICU argument '{\(name)' must continue with ',' or '}'")
                recover()
                return
            }
            index += 1
            skipSpaces()
            let type = readName()
            skipSpaces()
            switch type {
            case "plural", "selectordinal":
                result.counts.insert("{\(name)}")
                pluralArguments.append(name)
                parseCases(argument: name, kind: type, depth: depth)
                pluralArguments.removeLast()
            case "select":
                parseCases(argument: name, kind: type, depth: depth)
            case _ where MessageSyntax.simpleArgumentTypes.contains(type):
                result.shown.insert("{\(name)}")
                if peek() == "," {
                    index += 1
                    while let s = peek(), s != "}", s != "{" { index += 1 }
                }
                guard peek() == "}" else {
                    fail("ICU argument '{\(name), \(type)' is not closed")
                    recover()
                    return
                }
                index += 1
            case "":
                fail("ICU argument '{\(name),' has no type")
                recover()
            default:
                fail(
                    "ICU argument '{\(name), \(type)' has an unknown type (plural, select, selectordinal, number, date, time)"
                )
                recover()
            }
        }

        mutating func parseCases(argument: String, kind: String, depth: Int) {
            guard peek() == "," else {
                fail("ICU \(kind) '{\(argument), \(kind)' needs ',' and its cases")
                recover()
                return
            }
            index += 1
            skipSpaces()
            if kind != "select" { skipOffset() }
            var selectors: Set<String> = []
            var written: [String] = []
            while true {
                skipSpaces()
                guard let c = peek() else {
                    fail("ICU \(kind) '{\(argument)' is not closed")
                    return
                }
                if c == "}" {
                    index += 1
                    break
                }
                guard let selector = readSelector(argument: argument, kind: kind) else { return }
                if !selectors.insert(selector).inserted {
                    fail("ICU \(kind) '{\(argument)' repeats the case '\(selector)'")
                }
                written.append(selector)
                skipSpaces()
                guard peek() == "{" else {
                    fail("ICU \(kind) '{\(argument)' case '\(selector)' must be followed by {message}")
                    recover()
                    return
                }
                index += 1
                parseMessage(inPlural: kind != "select", nested: true, depth: depth + 1)
                guard peek() == "}" else { return }
                index += 1
            }
            if kind == "plural" { result.plurals.append(PluralCases(argument: argument, selectors: written)) }
            if selectors.isEmpty {
                fail("ICU \(kind) '{\(argument)' has no cases")
            } else if !selectors.contains("other") {
                fail("ICU \(kind) '{\(argument)' has no 'other' case, which every \(kind) needs")
            }
        }

        /// A plural's `offset:N` before its cases: read past, the number unchecked.
        mutating func skipOffset() {
            guard peek() == "o",
                String(String.UnicodeScalarView(scalars[index..<min(index + 7, scalars.count)])) == "offset:"
            else {
                return
            }
            index += 7
            skipSpaces()
            _ = readName()
        }

        /// One case's selector: `=N`, or a name (a plural category unless `kind` is select). nil, after
        /// `recover()`, where text stands instead of a name.
        mutating func readSelector(argument: String, kind: String) -> String? {
            guard peek() == "=" else {
                let selector = readName()
                if selector.isEmpty {
                    fail("ICU \(kind) '{\(argument)' has text where a case name should be")
                    recover()
                    return nil
                }
                if kind != "select", !MessageSyntax.pluralCategories.contains(selector) {
                    fail(
                        "ICU \(kind) '{\(argument)' has unknown category '\(selector)' (zero, one, two, few, many, other or =N)"
                    )
                }
                return selector
            }
            index += 1
            let selector = "=" + readName()
            if selector == "=" || !selector.dropFirst().allSatisfy({ $0.isNumber }) {
                fail("ICU \(kind) '{\(argument)' has an invalid explicit value '\(selector)'")
            }
            return selector
        }

        /// After an error, skip to the end of the current argument so one mistake gives one message.
        mutating func recover() {
            var depth = 1
            while let c = peek() {
                index += 1
                if c == "{" { depth += 1 }
                if c == "}" {
                    depth -= 1
                    if depth == 0 { return }
                }
            }
        }
    }
}

extension StringProtocol {
    /// Only the ASCII digits 0-9, and at least one: what a count, a duration's number or a row's
    /// integer field may be (no sign, no Unicode digits that `Int(_:)` would refuse anyway).
    public var isDecimalDigits: Bool { !isEmpty && utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
}

extension String {
    public var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
