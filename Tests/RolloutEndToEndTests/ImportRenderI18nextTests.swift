import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// i18next's `t(key, options)`, written from i18next's documentation and behaviour, kept apart from
/// the importer (Sources/RolloutImport/I18nextImport.swift): the reference the render property holds
/// the device's text to. Lookup (Translator.resolve): with a numeric `count`, `key_zero` for 0
/// (v4 JSON), then the key of the count's CLDR category (`Intl.PluralRules`, here `PluralRules`), or
/// with JSON v3 the numbered key of i18next v3's rule set; then `key` itself; nothing else in the same
/// language (a missing form sends i18next to the next language of fallbackLng: nil here).
/// Interpolation (Interpolator.interpolate, skipOnVariables on): `{{-(.+?)}}` first, then
/// `{{(.+?)}}`, the name trimmed; a name without a value stays as written. Every other character is
/// text: apostrophes, lone braces, `#`, `%`, backslashes.
enum I18nextReference {
    /// What `t(key, arguments)` shows in one language's resources (namespace-prefixed, flattened as
    /// the pack names keys), `count` (when given) passed as a JavaScript number.
    static func t(_ resources: [String: String], _ key: String, _ arguments: [String: String], language: String)
        -> String?
    {
        var keys = [key]
        if let count = arguments["count"], let n = Double(count) {
            if isV3(resources) {
                keys.append("\(key)_\(v3Index(n))")
            } else {
                keys.append("\(key)_\(PluralRules.category(for: count, language: language)?.rawValue ?? "other")")
                if n == 0 { keys.append("\(key)_zero") }
            }
        }
        // finalKeys.pop(): the most specific key first.
        guard let text = keys.reversed().lazy.compactMap({ resources[$0] }).first else { return nil }
        return interpolate(text, arguments)
    }

    /// A locale file written in i18next v3's JSON (`key_0`, `key_1`, ...).
    static func isV3(_ resources: [String: String]) -> Bool {
        resources.keys.contains { $0.range(of: #"_[0-9]$"#, options: .regularExpression) != nil }
    }

    /// i18next v3's rule set for Russian, Ukrainian and Belarusian (numbers [1, 2, 5]), on the
    /// JavaScript number: 1.5 % 10 is 1.5, so 1.5 is form 2.
    static func v3Index(_ n: Double) -> Int {
        let n10 = n.truncatingRemainder(dividingBy: 10)
        let n100 = n.truncatingRemainder(dividingBy: 100)
        if n10 == 1 && n100 != 11 { return 0 }
        if n10 >= 2 && n10 <= 4 && (n100 < 10 || n100 >= 20) { return 1 }
        return 2
    }

    static func interpolate(_ text: String, _ arguments: [String: String]) -> String {
        [#"\{\{-(.+?)\}\}"#, #"\{\{(.+?)\}\}"#].reduce(text) { replace($0, $1, arguments) }
    }

    /// One pass of a `g` regular expression over UTF-16 (as JavaScript's), left to right, a value
    /// never read again.
    private static func replace(_ text: String, _ pattern: String, _ arguments: [String: String]) -> String {
        let regex = try! NSRegularExpression(pattern: pattern)
        let ns = text as NSString
        var out = ""
        var last = 0
        for match in regex.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let name = ns.substring(with: match.range(at: 1)).trimmingCharacters(in: .whitespacesAndNewlines)
            out += ns.substring(with: NSRange(location: last, length: match.range.location - last))
            out += arguments[name] ?? ns.substring(with: match.range)
            last = match.range.location + match.range.length
        }
        return out + ns.substring(from: last)
    }

    /// The names a value interpolates.
    static func names(_ text: String) -> Set<String> {
        let regex = try! NSRegularExpression(pattern: #"\{\{-?(.+?)\}\}"#)
        let ns = text as NSString
        return Set(
            regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map {
                ns.substring(with: $0.range(at: 1)).trimmingCharacters(in: .whitespacesAndNewlines)
            })
    }
}

/// ICU MessageFormat as intl-messageformat formats it (i18next-icu's `parse`), for the subset the
/// fixtures use, written apart from RolloutClient's MessageFormat: `{name}`, `{n, plural, =N {..}
/// category {..}}` (`#` the count in the locale's number format, only directly inside a plural form),
/// `{x, select, ..}`; apostrophes in ICU's default mode (`''` is `'`; `'` before `{`, `}`, or `#` in
/// a plural form, quotes up to the next lone `'`; any other `'` is itself). nil: not ICU.
struct ICUReference {
    let s: [Unicode.Scalar]
    var i = 0
    let arguments: [String: String]
    let language: String

    static func format(_ text: String, _ arguments: [String: String], language: String) -> String? {
        var reader = ICUReference(s: Array(text.unicodeScalars), arguments: arguments, language: language)
        guard let out = reader.message(count: nil), reader.i == reader.s.count else { return nil }
        return out
    }

    /// Text up to an unmatched `}` or the end.
    mutating func message(count: String?) -> String? {
        var out = String.UnicodeScalarView()
        while i < s.count, s[i] != "}" {
            if s[i] == "'" {
                out += quote(inPlural: count != nil).unicodeScalars
            } else if s[i] == "{" {
                guard let argument = argument() else { return nil }
                out += argument.unicodeScalars
            } else if s[i] == "#", let count {
                out += Self.number(count, language: language).unicodeScalars
                i += 1
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return String(out)
    }

    mutating func quote(inPlural: Bool) -> String {
        guard i + 1 < s.count else {
            i += 1
            return "'"
        }
        if s[i + 1] == "'" {
            i += 2
            return "'"
        }
        guard s[i + 1] == "{" || s[i + 1] == "}" || (inPlural && s[i + 1] == "#") else {
            i += 1
            return "'"
        }
        i += 1
        var out = String.UnicodeScalarView()
        while i < s.count {
            if s[i] == "'" {
                if i + 1 < s.count, s[i + 1] == "'" {
                    out.append("'")
                    i += 2
                    continue
                }
                i += 1
                return String(out)
            }
            out.append(s[i])
            i += 1
        }
        return String(out)
    }

    mutating func word() -> String {
        while i < s.count, s[i].properties.isWhitespace { i += 1 }
        var out = String.UnicodeScalarView()
        while i < s.count, !s[i].properties.isWhitespace, !",{}".unicodeScalars.contains(s[i]) {
            out.append(s[i])
            i += 1
        }
        while i < s.count, s[i].properties.isWhitespace { i += 1 }
        return String(out)
    }

    /// `{name}`, `{n, plural, ...}` or `{x, select, ...}` at `i`.
    mutating func argument() -> String? {
        i += 1
        let name = word()
        guard i < s.count, let value = arguments[name] else { return nil }
        if s[i] == "}" {
            i += 1
            return value
        }
        guard s[i] == "," else { return nil }
        i += 1
        let kind = word()
        guard kind == "plural" || kind == "select", i < s.count, s[i] == "," else { return nil }
        i += 1
        var forms: [String: String] = [:]
        while true {
            let selector = word()
            guard i < s.count else { return nil }
            if selector.isEmpty, s[i] == "}" { break }
            guard s[i] == "{" else { return nil }
            i += 1
            guard let form = message(count: kind == "plural" ? value : nil), i < s.count else { return nil }
            i += 1
            forms[selector] = form
        }
        i += 1
        if kind == "select" { return forms[value] ?? forms["other"] }
        let exact = forms.first { $0.key.hasPrefix("=") && Double($0.key.dropFirst()) == Double(value) }?.value
        let category = PluralRules.category(for: value, language: language)?.rawValue ?? "other"
        return exact ?? forms[category] ?? forms["other"]
    }

    /// `Intl.NumberFormat(locale).format(n)`: the locale's decimal separator, up to 3 decimals.
    static func number(_ value: String, language: String) -> String {
        let formatter = NumberFormatter()
        formatter.locale = Locale(identifier: language)
        formatter.numberStyle = .decimal
        formatter.maximumFractionDigits = 3
        return Double(value).flatMap { formatter.string(from: NSNumber(value: $0)) } ?? value
    }

    /// The arguments a message names, those a plural counts and those a select picks by.
    static func names(_ text: String) -> (all: Set<String>, plurals: Set<String>, selects: Set<String>) {
        func names(_ pattern: String) -> Set<String> {
            let regex = try! NSRegularExpression(pattern: pattern)
            let ns = text as NSString
            return Set(
                regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map {
                    ns.substring(with: $0.range(at: 1))
                })
        }
        return (
            names(#"\{\s*([A-Za-z0-9_]+)\s*[,}]"#), names(#"\{\s*([A-Za-z0-9_]+)\s*,\s*plural\s*,"#),
            names(#"\{\s*([A-Za-z0-9_]+)\s*,\s*select\s*,"#)
        )
    }
}

/// A fixture folder of i18next JSON read as the pack names its keys: `locale folder -> key -> value`,
/// nested objects joined with `.`, a namespace other than `translation` (its path below the locale
/// folder) before its keys. Values that are not strings are not strings i18next shows.
enum I18nextFixture {
    static func resources(_ root: String) throws -> [String: [String: String]] {
        var out: [String: [String: String]] = [:]
        let fm = FileManager.default
        for folder in try fm.contentsOfDirectory(atPath: root).sorted()
        where folder.range(of: #"^[a-z]{2,3}([_-][A-Za-z0-9]{2,4})*$"#, options: .regularExpression) != nil {
            var strings: [String: String] = [:]
            let enumerator = fm.enumerator(atPath: "\(root)/\(folder)")
            while let file = enumerator?.nextObject() as? String {
                guard file.hasSuffix(".json") else { continue }
                let data = try Data(contentsOf: URL(fileURLWithPath: "\(root)/\(folder)/\(file)"))
                let namespace = String(file.dropLast(5))
                flatten(
                    try JSONSerialization.jsonObject(with: data), namespace == "translation" ? "" : "\(namespace).",
                    into: &strings)
            }
            out[folder] = strings
        }
        return out
    }

    private static func flatten(_ value: Any, _ prefix: String, into out: inout [String: String]) {
        if let text = value as? String {
            out[String(prefix.dropLast())] = text
        } else if let object = value as? [String: Any] {
            for (key, inner) in object { flatten(inner, "\(prefix)\(key).", into: &out) }
        }
    }

    /// `files_one` -> `files`: a plural form's key, or nil.
    static func pluralBase(_ key: String) -> String? {
        guard let range = key.range(of: #"_(zero|one|two|few|many|other|plural|[0-9])$"#, options: .regularExpression)
        else { return nil }
        return String(key[..<range.lowerBound])
    }
}

/// The argument sets a render property formats a string with: every name a value of its own
/// (`Zoë_name`, so swapped arguments show), each of `counts` for a plural's count, and each of
/// female, male and a value no case names for a select.
func renderArgumentSets(names: Set<String>, plurals: Set<String>, selects: Set<String>, counts: [String])
    -> [[String: String]]
{
    var base: [String: String] = [:]
    for name in names { base[name] = "Zoë_\(name)" }
    var sets = [base]
    if !plurals.isEmpty {
        sets = counts.map { n in base.merging(plurals.map { ($0, n) }) { $1 } }
    }
    if !selects.isEmpty {
        sets = sets.flatMap { set in ["female", "male", "x"].map { g in set.merging(selects.map { ($0, g) }) { $1 } } }
    }
    return sets
}

/// The render property for i18next (docs/import.md, "i18next"): every string of every i18next
/// fixture folder, imported as its own tests import it, shows on a device (RolloutClient's
/// MessageFormat on the stored text) what i18next's `t()` shows from the JSON (`I18nextReference`,
/// or `ICUReference` for an i18next-icu project), for every argument set `renderArgumentSets` makes
/// (plural counts 0, 1, 2, 5, 21 and 1.5).
final class ImportRenderI18nextTests: XCTestCase {
    static let counts = ["0", "1", "2", "5", "21", "1.5"]

    /// Every folder of i18next JSON among the fixtures, with the flags its own tests import it with,
    /// and whether its values are ICU (an i18next-icu project: the reading the import detects).
    /// The render fixtures are imported with --skip-invalid, so that a string lint refuses (fa
    /// `nbsp`, ZWNJ after `}}`; a strftime pattern read as printf) is one unexpected left-out entry,
    /// not the end of the property.
    static let catalogs: [(path: String, flags: [String], icu: Bool)] = [
        ("en-and-en_US/i18next/locales", [], false),
        ("i18next/locales", [], false),
        ("i18next-empty-values", [], false),
        ("i18next-icu/locales", [], true),
        ("i18next-namespaces/locales", [], false),
        ("i18next-render/icu/locales", ["--skip-invalid"], true),
        ("i18next-render/plain/locales", ["--skip-invalid"], false),
        ("i18next-shapes/locales", ["--format", "i18next", "--skip-invalid"], false),
        ("i18next-shapes/plural-without-other", ["--format", "i18next"], false),
        ("pt-parent-left-out/locales", ["--source-locale", "en", "--skip-invalid"], false),
    ]

    /// What the importer leaves out of those folders (`catalog locale key: reason`): each a string
    /// i18next would not show as text the pack can hold, or one lint refuses under --skip-invalid.
    /// Not here, and so failing until the importer reads them: i18next-render/plain fa `nbsp`
    /// (`{{name}}` + U+200C) and fa `files` (`{{count}}` + U+200C), which i18next interpolates
    /// (its regular expression reads UTF-16, the ZWNJ is text after `}}`).
    static let expectedLeftOut: [String] = [
        "i18next-icu/locales en legacy: not ICU MessageFormat (i18next-icu): {{name}} is not a placeholder in ICU, write {name}",
        "i18next-icu/locales en unclosed: not ICU MessageFormat (i18next-icu): ICU plural '{count' is not closed",
        "i18next-namespaces/locales de app.title: de/translation.json: given 2 times with different values (lines 3, 4); JSON.parse would take the last silently, so which one is meant is not known: keep one",
        "i18next-shapes/locales en-US items: not a string (arrays and numbers are not imported)",
        "i18next-shapes/locales en-US nested: nests another key with $t(...), which the pack form cannot",
        "i18next-shapes/locales en-US place_ordinal_one: an ordinal plural form (_ordinal_one): ordinals are not imported",
        "i18next-shapes/locales en-US place_ordinal_other: an ordinal plural form (_ordinal_other): ordinals are not imported",
        "i18next-shapes/locales en-US price: formats a value ({{amount, currency}}) with an i18next formatter, which the pack form does not have",
        "i18next-shapes/locales ru files: the key is also the name of plural forms (files_other); the plural is imported under it",
        "pt-parent-left-out/locales pt greet: lint placeholders: placeholders differ from en@1: missing {name}; has {nome} that en does not",
        "pt-parent-left-out/locales pt-BR sync: lint placeholders: placeholders differ from pt@1: missing {count}; has {total} that pt does not",
    ]

    /// Counts for which i18next finds no form in the language and goes on to fallbackLng: Polish
    /// without `_other` shows the English `1.5 files`, where the pack's `many` stands for `other`
    /// (docs/import.md, "Plurals") and a device shows the Polish `many` form.
    static let expectedFallbacks = ["i18next-shapes/plural-without-other pl files count=1.5"]

    var fallbacks: [String] = []

    /// The references against i18next's documented behaviour, apart from any device.
    func testTheReferencesReadI18nextAsI18nextDoes() {
        let i = I18nextReference.interpolate
        XCTAssertEqual(i("{{- user}} and {{user}} and {{ user }}", ["user": "<b>"]), "<b> and <b> and <b>")
        XCTAssertEqual(i("Hi {{nobody}}, {{name}}", ["name": "Ada"]), "Hi {{nobody}}, Ada", "skipOnVariables")
        XCTAssertEqual(i("{{ {{name}}", ["name": "Ada"]), "{{ {{name}}", "`{{(.+?)}}` reads ` {{name` as the name")
        XCTAssertEqual(i("It's {x} # 100%d '{{name}}'", ["name": "Ada"]), "It's {x} # 100%d 'Ada'")
        XCTAssertEqual(i("{{name}}\u{200C}ها", ["name": "Ada"]), "Ada\u{200C}ها", "ZWNJ after `}}` is text")
        let en = ["files_zero": "none", "files_one": "{{count}} file", "files_other": "{{count}} files"]
        let t = { (r: [String: String], n: String, l: String) in
            I18nextReference.t(r, "files", ["count": n], language: l)
        }
        XCTAssertEqual(t(en, "0", "en"), "none")
        XCTAssertEqual(t(en, "1", "en"), "1 file")
        XCTAssertEqual(t(en, "1.5", "en"), "1.5 files", "String(1.5), never localized")
        XCTAssertEqual(
            t(["files_one": "{{count}} plik", "files_many": "x"], "1.5", "pl"), nil, "no _other: fallbackLng")
        let ru = ["files_0": "{{count}} файл", "files_1": "{{count}} файла", "files_2": "{{count}} файлов"]
        XCTAssertEqual(
            ["1", "3", "5", "21", "1.5"].map { t(ru, $0, "ru")! },
            ["1 файл", "3 файла", "5 файлов", "21 файл", "1.5 файлов"])
        let icu = { (m: String, a: [String: String], l: String) in ICUReference.format(m, a, language: l) }
        XCTAssertEqual(icu("It's '{'x'}' '' and 'y'", [:], "en"), "It's {x} ' and 'y'")
        XCTAssertEqual(icu("{n, plural, =0 {none} one {# '#'} other {# #}}", ["n": "1.5"], "de"), "1,5 1,5")
        XCTAssertEqual(icu("{n, plural, one {# '#'} other {#}}", ["n": "1"], "en"), "1 #")
        XCTAssertEqual(icu("{g, select, female {# her} other {them}}", ["g": "female"], "en"), "# her")
        XCTAssertNil(icu("{count, plural, one {# seat}", ["count": "1"], "en"))
    }

    func testEveryI18nextFixtureFolderIsInTheProperty() throws {
        let outside = fixtureFiles(outside: Self.catalogs.map(\.path)) {
            $0.hasSuffix(".json") && !$0.hasSuffix("package.json") && $0 != "android-aapt/expected.json"
        }
        XCTAssertEqual(outside, [], "every i18next JSON fixture is in catalogs")
    }

    func testEveryI18nextFixtureStringShowsWhatI18nextShows() throws {
        var leftOut: [String] = []
        var checked = 0
        for catalog in Self.catalogs {
            let root = ImportTests.fixtures + "/" + catalog.path
            let (w, skipped, packs) = try importForProperty(catalog.path, catalog.flags)
            leftOut += skipped
            for (folder, resources) in try I18nextFixture.resources(root).sorted(by: { $0.key < $1.key }) {
                let locale = folder.replacingOccurrences(of: "_", with: "-")
                let pack = packs.contains("\(locale)@1") ? try packStrings(w, "\(locale)@1") : [:]
                assertCovered(resources, pack, skipped, locale: locale, catalog.path)
                for (key, stored) in pack.sorted(by: { $0.key < $1.key }) {
                    checked += compare(stored, key, resources, locale: locale, catalog.path, icu: catalog.icu)
                }
            }
        }
        XCTAssertEqual(leftOut, Self.expectedLeftOut)
        XCTAssertEqual(fallbacks, Self.expectedFallbacks)
        XCTAssertGreaterThan(checked, 280)
    }

    /// Every string of the locale is imported (as itself or as a form of its plural) or listed as
    /// left out: nothing is dropped silently.
    private func assertCovered(
        _ resources: [String: String], _ pack: [String: String], _ skipped: [String], locale: String, _ path: String
    ) {
        for key in resources.keys.sorted() {
            let base = I18nextFixture.pluralBase(key)
            let listed = skipped.contains { entry in
                entry.hasPrefix("\(path) \(locale) \(key):")
                    || base.map { entry.hasPrefix("\(path) \(locale) \($0):") } == true
            }
            XCTAssertTrue(
                pack[key] != nil || base.flatMap { pack[$0] } != nil || listed,
                "\(path) \(locale) \(key) is neither imported nor listed as left out")
        }
    }

    /// Compares the device's text of one stored string with i18next's for each argument set;
    /// returns how many it compared. An empty value is not compared: RolloutClient falls through to
    /// the next locale for it, as i18next does with returnEmptyString false.
    private func compare(
        _ stored: String, _ key: String, _ resources: [String: String], locale: String, _ path: String, icu: Bool
    ) -> Int {
        guard !stored.isEmpty else { return 0 }
        let forms = resources.filter { $0.key == key || I18nextFixture.pluralBase($0.key) == key }
        var names = Set<String>()
        var plurals = Set<String>()
        var selects = Set<String>()
        for value in forms.values {
            if icu {
                let read = ICUReference.names(value)
                (names, plurals, selects) = (
                    names.union(read.all), plurals.union(read.plurals), selects.union(read.selects)
                )
            } else {
                names.formUnion(I18nextReference.names(value))
            }
        }
        if !icu, names.contains("count") || forms.keys.contains(where: { $0 != key }) { plurals = ["count"] }
        var compared = 0
        for arguments in renderArgumentSets(names: names, plurals: plurals, selects: selects, counts: Self.counts) {
            let what =
                "\(path) \(locale) \(key) "
                + arguments.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let expected =
                icu
                ? resources[key].flatMap { ICUReference.format($0, arguments, language: locale) }
                : I18nextReference.t(resources, key, arguments, language: locale)
            guard let expected else {
                fallbacks.append(what)
                continue
            }
            XCTAssertEqual(
                MessageFormat.format(stored, arguments, language: locale), expected, "\(what): stored as \(stored)")
            compared += 1
        }
        return compared
    }
}
