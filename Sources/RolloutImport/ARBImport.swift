import Foundation
import RolloutModel

extension CatalogImporter {
    // MARK: Flutter ARB

    /// `app_en.arb`, `app_pt_BR.arb` (or `@@locale` inside), read as Flutter's gen-l10n reads them
    /// (docs/import.md, "ARB"): apostrophes are text unless the project's l10n.yaml (or
    /// `useEscaping`) turns `use-escaping` on; `@key` and `@@` entries are metadata.
    static func arb(_ path: String, useEscaping: Bool?) throws -> CatalogImport {
        var result = CatalogImport()
        var files: [String] = []
        if isDirectory(path) {
            for entry in entries(path) {
                let full = "\(path)/\(entry)"
                if entry.hasSuffix(".arb"), !isDirectory(full) {
                    files.append(full)
                } else {
                    result.skipFile(full, "not an .arb file")
                }
            }
        } else {
            files = [path]
        }
        guard !files.isEmpty else { throw RolloutError.missing("\(path): no .arb files in it") }
        let project = ARBProject.settings(
            near: isDirectory(path) ? path : (path as NSString).deletingLastPathComponent)
        let escaping = useEscaping ?? (project["use-escaping"] == "true")
        // gen-l10n's template (l10n.yaml's template-arb-file, app_en.arb by default) is the source.
        let template = project["template-arb-file"] ?? "app_en.arb"
        for file in files {
            let (object, ambiguous) = try catalogJSON(file)
            guard ambiguous.allSatisfy({ !$0.path[0].hasPrefix("@@") }) else {
                let duplicate = ambiguous.first { $0.path[0].hasPrefix("@@") }!
                result.skipFile(
                    file, "\(duplicate.path[0]) " + ambiguousReason(duplicate, in: file, toolchain: "gen-l10n"))
                continue
            }
            guard let tag = ARBProject.locale(of: file, declared: object["@@locale"]?.stringValue) else {
                result.skipFile(file, "no @@locale, and the file name does not end in a locale (app_pt_BR.arb)")
                continue
            }
            if (file as NSString).lastPathComponent == template { result.sourceLocale = tag }
            if !object.keys.contains(where: { !$0.hasPrefix("@") }) && ambiguous.isEmpty {
                // A file with nothing in it makes no pack, and is said so.
                result.skipFile(file, "no strings in it")
                continue
            }
            try arbStrings(object, ambiguous: ambiguous, file: file, locale: tag, escaping: escaping, into: &result)
        }
        return result
    }

    /// One ARB file's strings, in key order. A key (or its `@key` metadata) given twice with
    /// different values is left out with the lines.
    static func arbStrings(
        _ object: [String: JSONValue], ambiguous: [JSONDuplicateKey], file: String, locale tag: String,
        escaping: Bool, into result: inout CatalogImport
    ) throws {
        var leftOut: Set<String> = []
        for duplicate in ambiguous {
            let key = duplicate.path[0].hasPrefix("@") ? String(duplicate.path[0].dropFirst()) : duplicate.path[0]
            guard leftOut.insert(key).inserted else { continue }
            let what = duplicate.path[0].hasPrefix("@") ? "its metadata \(duplicate.path[0]) " : ""
            result.skip(tag, key, what + ambiguousReason(duplicate, in: file, toolchain: "gen-l10n"))
        }
        for key in object.keys.sorted() where !key.hasPrefix("@") && !leftOut.contains(key) {
            guard let text = object[key]!.stringValue else {
                result.skip(tag, key, "not a string")
                continue
            }
            if object["@\(key)"]?.objectValue?["x-state"]?.stringValue == "needs-review" {
                result.skip(tag, key, "needs review")
                continue
            }
            do {
                let message = try ARBMessage.parse(text, useEscaping: escaping)
                result.add(tag, key, try message.icu(language: tag))
            } catch let error as ARBMessage.Refusal {
                result.skip(tag, key, error.message)
            }
        }
    }
}

/// What a Flutter project says about its ARB files.
enum ARBProject {
    /// The settings of the l10n.yaml in `directory` or up to three folders above it (it sits at
    /// the project root, ARB files usually in lib/l10n): `use-escaping`, `template-arb-file`...,
    /// as `key: value` lines; empty when there is none.
    static func settings(near directory: String) -> [String: String] {
        var folder = directory
        for _ in 0...3 {
            if let data = FileManager.default.contents(atPath: "\(folder)/l10n.yaml"),
                let yaml = String(data: data, encoding: .utf8)
            {
                var settings: [String: String] = [:]
                for line in yaml.split(whereSeparator: \.isNewline) {
                    let setting = line.split(separator: "#", maxSplits: 1).first.map(String.init) ?? ""
                    let parts = setting.split(separator: ":", maxSplits: 1).map {
                        $0.trimmingCharacters(in: .whitespaces)
                    }
                    guard parts.count == 2, settings[parts[0]] == nil else { continue }
                    settings[parts[0]] = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                }
                return settings
            }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return [:]
    }

    /// `@@locale`, else the file name after its first `_` (`app_zh_Hant_TW.arb`), else the whole
    /// name (`pt_BR.arb`), as gen-l10n reads them; nil when neither is a locale.
    static func locale(of file: String, declared: String?) -> String? {
        if let declared { return CatalogImporter.canonicalLocale(declared) }
        let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        if let underscore = stem.firstIndex(of: "_"),
            let tag = CatalogImporter.canonicalLocale(String(stem[stem.index(after: underscore)...]))
        {
            return tag
        }
        return CatalogImporter.canonicalLocale(stem)
    }
}

/// An ARB message as gen-l10n's parser reads it: text, `{name}`, `{n, plural, ...}`,
/// `{x, select, ...}` and `{d, date, ::skeleton}` (Flutter's message_parser.dart grammar).
indirect enum ARBMessage {
    case text(String)
    case placeholder(String)
    case plural(String, [(selector: String, message: [ARBMessage])])
    case select(String, [(selector: String, message: [ARBMessage])])
    case argument(String, type: String, skeleton: String)

    struct Refusal: Error {
        let message: String
    }

    static func parse(_ text: String, useEscaping: Bool) throws -> [ARBMessage] {
        var parser = Parser(s: MessageTokens.split(text), useEscaping: useEscaping)
        let message = try parser.message(nested: false)
        return message
    }

    struct Parser {
        let s: [Character]
        let useEscaping: Bool
        var i = 0

        func fail(_ what: String) -> Refusal {
            Refusal(message: "gen-l10n cannot read it: \(what) at character \(min(i, s.count) + 1)")
        }

        mutating func message(nested: Bool) throws -> [ARBMessage] {
            var parts: [ARBMessage] = []
            var text = ""
            while i < s.count {
                let c = s[i]
                if c == "{" {
                    if !text.isEmpty {
                        parts.append(.text(text))
                        text = ""
                    }
                    parts.append(try expression())
                } else if c == "}" {
                    guard nested else { throw fail("a '}' that closes nothing") }
                    break
                } else if c == "'" && useEscaping {
                    // use-escaping: '...' is text as it is, '' an apostrophe; a quote right after
                    // another keeps its apostrophe ('a''b' is a'b), as gen-l10n's lexer does.
                    guard let close = s[(i + 1)...].firstIndex(of: "'") else {
                        throw fail("an apostrophe that is never closed (use-escaping is on)")
                    }
                    if close == i + 1 {
                        text += "'"
                    } else {
                        if i > 1 && s[i - 1] == "'" { text += "'" }
                        text += String(s[(i + 1)..<close])
                    }
                    i = close + 1
                } else {
                    text.append(c)
                    i += 1
                }
            }
            if nested && i >= s.count { throw fail("a '{' that is never closed") }
            if !text.isEmpty { parts.append(.text(text)) }
            return parts
        }

        mutating func spaces() { while i < s.count, s[i].isWhitespace { i += 1 } }

        mutating func word() -> String {
            var w = ""
            while i < s.count, s[i].isASCII, s[i].isLetter || s[i].isNumber || s[i] == "_" || s[i] == "|" {
                w.append(s[i])
                i += 1
            }
            return w
        }

        mutating func expect(_ c: Character) throws {
            spaces()
            guard i < s.count, s[i] == c else { throw fail("expected '\(c)'") }
            i += 1
        }

        /// `{` ... `}`, from the opening brace.
        mutating func expression() throws -> ARBMessage {
            i += 1
            spaces()
            let name = word()
            guard !name.isEmpty else { throw fail("a '{' without a placeholder name (a lone brace is syntax in ARB)") }
            spaces()
            if i < s.count, s[i] == "}" {
                i += 1
                return .placeholder(name)
            }
            try expect(",")
            spaces()
            let kind = word()
            try expect(",")
            switch kind {
            case "plural", "select":
                var cases: [(selector: String, message: [ARBMessage])] = []
                while true {
                    spaces()
                    guard i < s.count else { throw fail("a '{' that is never closed") }
                    if s[i] == "}" {
                        i += 1
                        break
                    }
                    var selector = ""
                    if s[i] == "=" {
                        i += 1
                        spaces()
                        selector = "=" + word()
                    } else {
                        selector = word()
                    }
                    guard selector != "", selector != "=" else { throw fail("a \(kind) case without a name") }
                    try expect("{")
                    let body = try message(nested: true)
                    try expect("}")
                    cases.append((selector, body))
                }
                return kind == "plural" ? .plural(name, cases) : .select(name, cases)
            case "date", "time":
                spaces()
                var skeleton = ""
                while i < s.count, s[i] != "}" {
                    skeleton.append(s[i])
                    i += 1
                }
                try expect("}")
                return .argument(name, type: kind, skeleton: skeleton.trimmingCharacters(in: .whitespaces))
            default:
                throw fail("\"\(kind)\" is not plural, select, date or time")
            }
        }
    }
}

extension Array where Element == ARBMessage {
    /// The canonical ICU form of what gen-l10n shows: text literal (apostrophes doubled, braces and
    /// a plural's `#` quoted, since Dart's intl never reads `#`), and plural cases as Dart's intl
    /// chooses them: `zero`/`=0`, `one`/`=1`, `two`/`=2` are the same case there and take the exact
    /// number first, then the CLDR category of that name.
    func icu(language: String, inPlural: Bool = false) throws -> String {
        var out = ""
        for part in self {
            switch part {
            case .text(let text):
                out += Placeholders.literal(text, inPlural: inPlural)
            case .placeholder(let name):
                out += "{\(name)}"
            case .argument(let name, let type, let skeleton):
                out += "{\(name), \(type), \(skeleton)}"
            case .select(let name, let cases):
                // A select's cases are not a plural's, even inside one: # is text there for the client and lint.
                let body = try cases.map {
                    "\($0.selector) {\(try $0.message.icu(language: language, inPlural: false))}"
                }
                out += "{\(name), select, \(body.joined(separator: " "))}"
            case .plural(let name, let cases):
                let exact = ["=0": "zero", "=1": "one", "=2": "two"]
                var seen: Set<String> = []
                var body: [String] = []
                for (selector, message) in cases {
                    let category = exact[selector] ?? selector
                    guard MessageSyntax.pluralCategories.contains(category) else {
                        throw ARBMessage.Refusal.unknownPluralCase(selector)
                    }
                    guard seen.insert(category).inserted else { continue }
                    let text = try message.icu(language: language, inPlural: true)
                    let number = exact.first { $0.value == category }?.key
                    let hasCategory =
                        number == nil || PluralRules(locale: language).categories.contains { $0.rawValue == category }
                    // The exact number where the category alone would not take it.
                    if let number, !hasCategory { body.append("\(number) {\(text)}") }
                    if hasCategory { body.append("\(category) {\(text)}") }
                }
                if !seen.contains("other") {
                    throw ARBMessage.Refusal(message: "gen-l10n cannot read it: a plural without an other case")
                }
                out += "{\(name), plural, \(body.joined(separator: " "))}"
            }
        }
        return out
    }
}

extension ARBMessage.Refusal {
    /// A plural case gen-l10n does not read (it takes the categories and =0, =1, =2 only).
    fileprivate static func unknownPluralCase(_ selector: String) -> Self {
        Self(
            message:
                "gen-l10n cannot read it: plural case \"\(selector)\" is not zero, one, two, few, many, other, =0, =1 or =2"
        )
    }
}
