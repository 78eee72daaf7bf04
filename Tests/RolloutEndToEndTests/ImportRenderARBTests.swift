import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// What a Flutter gen-l10n getter returns for an ARB message, written from gen-l10n's message parser
/// (flutter_tools' localizations/message_parser.dart) and Dart's `Intl.pluralLogic`, kept apart
/// from the importer (Sources/RolloutImport/ARBImport.swift): the reference the render property
/// holds the device's text to.
///
/// Lexing: outside braces, text runs to the next `{` or `}`; with `use-escaping`, `'...'` is text as
/// it is (`''` an apostrophe; a quoted run right after another keeps its opening `'`), and an
/// apostrophe never closed is an error. Every brace toggles between text and syntax. Syntax:
/// `{name}`, `{n, plural, =0|zero {..} =1|one {..} =2|two {..} few {..} many {..} other {..}}`,
/// `{x, select, case {..} other {..}}`. `#` is text everywhere. nil: gen-l10n refuses the message.
enum GenL10nReference {
    indirect enum Node {
        case text(String)
        case placeholder(String)
        case plural(String, [String: [Node]])
        case select(String, [String: [Node]])
    }

    enum Token: Equatable {
        case text(String)
        case open, close, comma, equal
        case word(String)
    }

    static func parse(_ message: String, escaping: Bool) -> [Node]? {
        guard let tokens = lex(Array(message.unicodeScalars), escaping: escaping) else { return nil }
        var parser = Parser(t: tokens)
        guard let nodes = parser.message(), parser.i == tokens.count else { return nil }
        return nodes
    }

    static func lex(_ s: [Unicode.Scalar], escaping: Bool) -> [Token]? {
        var tokens: [Token] = []
        var isString = true
        var i = 0
        func run(_ stop: String) -> String {
            var out = String.UnicodeScalarView()
            while i < s.count, !stop.unicodeScalars.contains(s[i]) {
                out.append(s[i])
                i += 1
            }
            return String(out)
        }
        while i < s.count {
            let c = s[i]
            if isString, escaping, c == "'" {
                guard let close = s[(i + 1)...].firstIndex(of: "'") else { return nil }
                let inner = String(String.UnicodeScalarView(s[(i + 1)..<close]))
                tokens.append(.text(close == i + 1 ? "'" : i > 1 && s[i - 1] == "'" ? "'" + inner : inner))
                i = close + 1
            } else if isString, c != "{", c != "}" {
                tokens.append(.text(run(escaping ? "{}'" : "{}")))
            } else if c == "{" || c == "}" {
                tokens.append(c == "{" ? .open : .close)
                isString.toggle()
                i += 1
            } else if c.properties.isWhitespace {
                i += 1
            } else if c == "," || c == "=" {
                tokens.append(c == "," ? .comma : .equal)
                i += 1
            } else if c.isASCII, c.properties.isAlphabetic || ("0"..."9").contains(c) {
                tokens.append(.word(run(" \t\n,={}'")))
            } else {
                return nil  // "ICU Lexing Error: Unexpected character."
            }
        }
        return tokens
    }

    struct Parser {
        let t: [Token]
        var i = 0
        static let pluralCases: Set = ["=0", "=1", "=2", "zero", "one", "two", "few", "many", "other"]

        func at(_ k: Int) -> Token? { k < t.count ? t[k] : nil }

        /// Nodes up to an unmatched `}` or the end.
        mutating func message() -> [Node]? {
            var out: [Node] = []
            while let token = at(i), token != .close {
                if case .text(let text) = token {
                    out.append(.text(text))
                    i += 1
                    continue
                }
                guard token == .open, case .word(let name)? = at(i + 1) else { return nil }
                if at(i + 2) == .close {
                    out.append(.placeholder(name))
                    i += 3
                    continue
                }
                guard at(i + 2) == .comma, case .word(let kind)? = at(i + 3), kind == "plural" || kind == "select",
                    at(i + 4) == .comma
                else { return nil }
                i += 5
                guard let cases = cases(plural: kind == "plural") else { return nil }
                out.append(kind == "plural" ? .plural(name, cases) : .select(name, cases))
            }
            return out
        }

        /// `selector {message}`... and the closing `}`.
        mutating func cases(plural: Bool) -> [String: [Node]]? {
            var cases: [String: [Node]] = [:]
            while true {
                var selector: String
                if at(i) == .equal, case .word(let n)? = at(i + 1) {
                    selector = "=\(n)"
                    i += 2
                } else if case .word(let w)? = at(i) {
                    selector = w
                    i += 1
                } else {
                    break
                }
                guard at(i) == .open else { return nil }
                i += 1
                guard let body = message(), at(i) == .close else { return nil }
                i += 1
                if plural && !Self.pluralCases.contains(selector) { return nil }
                cases[selector] = body
            }
            guard at(i) == .close, cases["other"] != nil else { return nil }
            i += 1
            return cases
        }
    }

    /// The getter's text: a placeholder is the argument as the app passes it (its `format` and
    /// type are not kept in the pack: docs/import.md, "ARB"), a select's case or `other`, and a
    /// plural's case by `Intl.pluralLogic`.
    static func render(_ nodes: [Node], _ arguments: [String: String], language: String) -> String {
        nodes.map { node in
            switch node {
            case .text(let text): return text
            case .placeholder(let name): return arguments[name] ?? "\u{FFFD}\(name)"
            case .select(let name, let cases):
                return render(cases[arguments[name] ?? ""] ?? cases["other"]!, arguments, language: language)
            case .plural(let name, let cases):
                let chosen = pluralLogic(arguments[name] ?? "0", cases, language: language)
                return render(chosen, arguments, language: language)
            }
        }.joined()
    }

    /// Dart's `Intl.pluralLogic(howMany, zero:, one:, two:, few:, many:, other:)`, gen-l10n passing
    /// `=0`/`zero` as zero, `=1`/`one` as one, `=2`/`two` as two: the exact number first, then the
    /// category (two falls to few, every other category to other).
    static func pluralLogic(_ count: String, _ cases: [String: [Node]], language: String) -> [Node] {
        let n = Double(count) ?? 0
        let zero = cases["=0"] ?? cases["zero"]
        let one = cases["=1"] ?? cases["one"]
        let two = cases["=2"] ?? cases["two"]
        let other = cases["other"]!
        if n == 0, let zero { return zero }
        if n == 1, let one { return one }
        if n == 2, let two { return two }
        switch dartCategory(count, language: language) {
        case "zero": return zero ?? other
        case "one": return one ?? other
        case "two": return two ?? cases["few"] ?? other
        case "few": return cases["few"] ?? other
        case "many": return cases["many"] ?? other
        default: return other
        }
    }

    /// Dart intl's plural rules (startRuleEvaluation) take the integer digits as `n.round()`: 1.5
    /// is read with i = 2, v = 1, f = 5, the operands of 2.5, where CLDR's i is 1 (so French 1.5 is
    /// `other` in Flutter, `one` in CLDR). The rules of the fixtures' languages read no `n` that
    /// tells 1.5 from 2.5.
    static func dartCategory(_ count: String, language: String) -> String {
        guard let dot = count.firstIndex(of: "."), let n = Double(count) else {
            return PluralRules.category(for: count, language: language)?.rawValue ?? "other"
        }
        let i = Int(n.rounded(.toNearestOrAwayFromZero))
        return PluralRules.category(for: "\(i)\(count[dot...])", language: language)?.rawValue ?? "other"
    }

    /// The arguments a message names, those a plural counts and those a select picks by.
    static func names(_ nodes: [Node]) -> (all: Set<String>, plurals: Set<String>, selects: Set<String>) {
        var out: (all: Set<String>, plurals: Set<String>, selects: Set<String>) = ([], [], [])
        for node in nodes {
            switch node {
            case .text: break
            case .placeholder(let name): out.all.insert(name)
            case .plural(let name, let cases), .select(let name, let cases):
                out.all.insert(name)
                if case .plural = node { out.plurals.insert(name) } else { out.selects.insert(name) }
                for body in cases.values {
                    let inner = names(body)
                    out = (out.all.union(inner.all), out.plurals.union(inner.plurals), out.selects.union(inner.selects))
                }
            }
        }
        return out
    }
}

/// The render property for ARB (docs/import.md, "ARB"): every string of every ARB fixture, imported
/// as its own tests import it, shows on a device (RolloutClient's MessageFormat on the stored text)
/// what the gen-l10n getter returns (`GenL10nReference`, with the project's use-escaping), for every
/// argument set `renderArgumentSets` makes (plural counts 0, 1, 2, 5, 21, and 1.5 where the count's
/// type takes it).
final class ImportRenderARBTests: XCTestCase {
    /// Every ARB fixture folder, the flags its tests import it with, and its use-escaping (its
    /// l10n.yaml's). The render fixtures are imported with --skip-invalid, so that a string lint
    /// refuses (such as a strftime pattern read as printf) is one unexpected left-out entry, not
    /// the end of the property.
    static let catalogs: [(path: String, flags: [String], escaping: Bool)] = [
        ("arb", [], false),
        ("arb-duplicates", [], false),
        ("arb-render/off/lib/l10n", ["--skip-invalid"], false),
        ("arb-render/on/lib/l10n", ["--skip-invalid"], true),
        ("arb-shapes/off/lib/l10n", [], false),
        ("arb-shapes/on/lib/l10n", [], true),
        ("arb-template/lib/l10n", [], false),
        ("en-and-en_US/arb", [], false),
    ]

    /// What the importer leaves out (`catalog locale key: reason`): strings gen-l10n refuses too,
    /// and states and duplicates it lists. Not here, and so failing until the importer reads it:
    /// arb-render/off en `zwnj` (`{name}` + U+200C), which gen-l10n reads (its lexer's regular
    /// expressions read UTF-16: the `}` closes the placeholder, the ZWNJ is text).
    static let expectedLeftOut = [
        "arb tr-TR greeting: needs review",
        "arb-duplicates de save: app_de.arb: given 2 times with different values (lines 5, 6); gen-l10n would take the last silently, so which one is meant is not known: keep one",
        "arb-shapes/off/lib/l10n en broken: gen-l10n cannot read it: expected ',' at character 14",
        "arb-shapes/off/lib/l10n en draft: needs review",
        "arb-shapes/off/lib/l10n en third: gen-l10n cannot read it: plural case \"=3\" is not zero, one, two, few, many, other, =0, =1 or =2",
        "arb-shapes/on/lib/l10n en unclosed: gen-l10n cannot read it: an apostrophe that is never closed (use-escaping is on) at character 4",
    ]

    /// Where Flutter and RolloutClient pick different plural forms, each for a reason of the
    /// platform, not of the import: Dart intl's rules read 1.5 with i = 2 (`n.round()`), so French
    /// 1.5 is `other` in Flutter and `one` in CLDR, which a device follows (docs/pack-format.md,
    /// "Plural forms"); a pack cannot say "round first".
    static let expectedDifferences = [
        "arb-render/off/lib/l10n fr days n=1.5",
        "arb-render/off/lib/l10n fr files count=1.5 folder=Zoë_folder",
    ]

    var differences: [String] = []

    /// The reference against gen-l10n's lexer and Dart's pluralLogic, apart from any device.
    func testTheReferenceReadsARBAsGenL10nDoes() {
        func shown(_ m: String, _ a: [String: String] = [:], escaping: Bool = false, _ l: String = "en") -> String? {
            GenL10nReference.parse(m, escaping: escaping).map { GenL10nReference.render($0, a, language: l) }
        }
        XCTAssertEqual(shown("It's '{name}' #", ["name": "Ada"]), "It's 'Ada' #", "use-escaping off")
        XCTAssertEqual(shown("'a''b' It''s '{x}'", escaping: true), "a'b It's {x}")
        XCTAssertNil(shown("Don't {name}", ["name": "Ada"], escaping: true), "an apostrophe never closed")
        XCTAssertNil(shown("a { lone brace"))
        XCTAssertNil(shown("{n, plural, =3{three} other{many}}", ["n": "3"]))
        XCTAssertEqual(shown("{name}\u{200C}s", ["name": "Ada"]), "Ada\u{200C}s")
        let files = "{n, plural, =0{none} =1{one} =2{two} other{{n} other}}"
        XCTAssertEqual(
            ["0", "1", "2", "5", "1.5"].map { shown(files, ["n": $0], "ja")! },
            ["none", "one", "two", "5 other", "1.5 other"])
        XCTAssertEqual(
            shown("{n, plural, one{{n} jour} other{{n} jours}}", ["n": "1.5"], "fr"), "1.5 jours", "i = round(1.5)")
        XCTAssertEqual(shown("{n, plural, two{two} few{few} other{other}}", ["n": "102"], "sl"), "two")
        XCTAssertEqual(shown("{n, plural, few{few} other{other}}", ["n": "102"], "sl"), "few", "two falls to few")
        XCTAssertEqual(shown("{g, select, female{She} other{They}} #", ["g": "x"]), "They #")
    }

    func testEveryARBFixtureFolderIsInTheProperty() throws {
        XCTAssertEqual(
            fixtureFiles(outside: Self.catalogs.map(\.path)) { $0.hasSuffix(".arb") }, [],
            "every ARB fixture is in catalogs")
    }

    func testEveryARBFixtureStringShowsWhatGenL10nShows() throws {
        var leftOut: [String] = []
        var checked = 0
        for catalog in Self.catalogs {
            let root = ImportTests.fixtures + "/" + catalog.path
            let (w, skipped, packs) = try importForProperty(catalog.path, catalog.flags)
            leftOut += skipped
            let (files, metadata) = try Self.read(root)
            for (locale, messages) in files.sorted(by: { $0.key < $1.key }) {
                let pack = packs.contains("\(locale)@1") ? try packStrings(w, "\(locale)@1") : [:]
                for key in messages.keys.sorted() {
                    XCTAssertTrue(
                        pack[key] != nil || skipped.contains { $0.hasPrefix("\(catalog.path) \(locale) \(key):") },
                        "\(catalog.path) \(locale) \(key) is neither imported nor listed as left out")
                    guard let stored = pack[key] else { continue }
                    checked += compare(
                        stored, messages[key]!, metadata[key] ?? [:], locale: locale,
                        "\(catalog.path) \(locale) \(key)", escaping: catalog.escaping)
                }
            }
        }
        XCTAssertEqual(leftOut, Self.expectedLeftOut)
        XCTAssertEqual(differences, Self.expectedDifferences)
        XCTAssertGreaterThan(checked, 150)
    }

    /// locale -> key -> message of every `.arb` file whose locale can be told (`@@locale`, else the
    /// file name after its first `_`), and key -> placeholder -> its `@key` metadata (any file's).
    static func read(_ root: String) throws -> ([String: [String: String]], [String: [String: [String: Any]]]) {
        var files: [String: [String: String]] = [:]
        var metadata: [String: [String: [String: Any]]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: root) where name.hasSuffix(".arb") {
            let json = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(root)/\(name)")))
                    as? [String: Any])
            let stem = name.dropLast(4)
            guard
                let locale = (json["@@locale"] as? String)
                    ?? stem.firstIndex(of: "_").map({ String(stem[stem.index(after: $0)...]) })
            else { continue }
            for (key, value) in json {
                if key.hasPrefix("@"), !key.hasPrefix("@@"), let info = value as? [String: Any],
                    let placeholders = info["placeholders"] as? [String: [String: Any]]
                {
                    metadata[String(key.dropFirst()), default: [:]].merge(placeholders) { $1 }
                } else if !key.hasPrefix("@"), let text = value as? String {
                    files[locale.replacingOccurrences(of: "_", with: "-"), default: [:]][key] = text
                }
            }
        }
        return (files, metadata)
    }

    /// Compares the device's text of one stored string with the getter's for each argument set;
    /// returns how many it compared. A count declared `int`, or with a `format` (which the pack does
    /// not keep: the app passes the text), is not given 1.5.
    private func compare(
        _ stored: String, _ message: String, _ placeholders: [String: [String: Any]], locale: String,
        _ what: String, escaping: Bool
    ) -> Int {
        guard let nodes = GenL10nReference.parse(message, escaping: escaping) else {
            XCTFail("\(what): imported, but gen-l10n refuses \(message)")
            return 0
        }
        let names = GenL10nReference.names(nodes)
        let fractions = names.plurals.allSatisfy {
            placeholders[$0]?["type"] as? String != "int" && placeholders[$0]?["format"] == nil
        }
        let counts = ["0", "1", "2", "5", "21"] + (fractions ? ["1.5"] : [])
        var compared = 0
        for arguments in renderArgumentSets(
            names: names.all, plurals: names.plurals, selects: names.selects, counts: counts)
        {
            let shown = arguments.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let device = MessageFormat.format(stored, arguments, language: locale)
            let flutter = GenL10nReference.render(nodes, arguments, language: locale)
            if Self.expectedDifferences.contains("\(what) \(shown)") {
                XCTAssertNotEqual(device, flutter, "\(what) \(shown) is no longer a difference")
                differences.append("\(what) \(shown)")
                continue
            }
            XCTAssertEqual(device, flutter, "\(what) \(shown): stored as \(stored)")
            compared += 1
        }
        return compared
    }
}
