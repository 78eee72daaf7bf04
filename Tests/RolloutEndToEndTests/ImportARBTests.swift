import Foundation
import XCTest

@testable import RolloutClient

/// `rollout pack import` of Flutter ARB files shaped like real apps' (Tests/Fixtures/import/
/// arb-shapes): what the device shows from the stored ICU text is what a gen-l10n getter returns
/// (docs/import.md, "ARB").
final class ImportARBTests: XCTestCase {
    static let off = ImportTests.fixtures + "/arb-shapes/off/lib/l10n"
    static let on = ImportTests.fixtures + "/arb-shapes/on/lib/l10n"

    private func arb(_ name: String) throws -> [String: Any] {
        let data = try XCTUnwrap(FileManager.default.contents(atPath: "\(Self.off)/\(name)"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testLocalesFromFileNamesAndAFileWithoutOneIsListed() throws {
        let (_, report) = try importCatalog(Self.off)
        XCTAssertEqual(
            (report["added"] as? [[String: Any]])?.compactMap { $0["pack"] as? String },
            ["en@1", "es-419@1", "fr@1", "ja@1", "pt-BR@1", "zh-Hant-TW@1"],
            "app_pt_BR, intl_zh_Hant_TW, and @@locale es_419 over app_es")
        let files = (report["skippedFiles"] as? [[String: String]] ?? []).map {
            "\(($0["path"]! as NSString).lastPathComponent): \($0["reason"]!)"
        }.sorted()
        XCTAssertEqual(
            files,
            [
                "l10n.dart: not an .arb file",
                "strings.arb: no @@locale, and the file name does not end in a locale (app_pt_BR.arb)",
            ])
        let skipped = skippedEntries(report)
        XCTAssertEqual(
            skipped,
            [
                "en broken: gen-l10n cannot read it: expected ',' at character 14",
                "en draft: needs review",
                "en third: gen-l10n cannot read it: plural case \"=3\" is not zero, one, two, few, many, other, =0, =1 or =2",
            ])
    }

    /// use-escaping off (gen-l10n's default): every apostrophe is itself, so `'{type}'` is a
    /// placeholder between apostrophes, and `#` in a plural is text (Dart's intl never reads it).
    func testWithEscapingOffApostrophesAndHashAreText() throws {
        let (w, _) = try importCatalog(Self.off)
        let en = try packStrings(w, "en@1")
        let fr = try packStrings(w, "fr@1")
        XCTAssertEqual(en["quoted"], "Delete ''{type}''? It''s gone for good.")
        XCTAssertEqual(
            fr["quoted"], "Supprimer l''{type} « ''{type}'' » ? C''est définitif.",
            "a valid translation is imported, not refused")
        XCTAssertEqual(
            en["files"],
            "{count, plural, =0 {No files} one {One file in ''{folder}''} other {{count} files '#' {folder}}}")
        XCTAssertEqual(
            en["hash"], "Item #{number} of {total}", "typed placeholders stay plain; @@x- metadata is not a string")
        for (file, id, language) in [
            ("app_en.arb", "en@1", "en"), ("app_fr.arb", "fr@1", "fr"), ("app_pt_BR.arb", "pt-BR@1", "pt"),
        ] {
            let source = try arb(file)
            let stored = try packStrings(w, id)
            for (key, arguments) in [
                ("quoted", ["type": "photo"]), ("hash", ["number": "3", "total": "12"]), ("role", ["gender": "female"]),
                ("role", ["gender": "x"]),
            ] {
                guard let text = source[key] as? String else { continue }
                XCTAssertEqual(
                    MessageFormat.format(stored[key]!, arguments, language: language),
                    Self.genL10n(text, arguments, language: language), "\(id) \(key)")
            }
        }
    }

    /// Dart's Intl.pluralLogic takes `=0`/`zero`, `=1`/`one`, `=2`/`two` for the exact number
    /// first, in every language, then the CLDR category.
    func testPluralCasesArePickedAsDartPicksThem() throws {
        let (w, _) = try importCatalog(Self.off)
        XCTAssertEqual(
            try packStrings(w, "ja@1")["files"], "{count, plural, =1 {1 つのファイル} other {{count} 個のファイル '#' {folder}}}",
            "Japanese has no one category: the exact 1 is kept")
        for (file, id, language) in [
            ("app_en.arb", "en@1", "en"), ("app_fr.arb", "fr@1", "fr"), ("app_ja.arb", "ja@1", "ja"),
            ("intl_zh_Hant_TW.arb", "zh-Hant-TW@1", "zh"),
        ] {
            let text = try XCTUnwrap(try arb(file)["files"] as? String)
            let stored = try XCTUnwrap(try packStrings(w, id)["files"])
            for n in [0, 1, 2, 5, 21] {
                let arguments = ["count": String(n), "folder": "Docs"]
                XCTAssertEqual(
                    MessageFormat.format(stored, arguments, language: language),
                    Self.genL10n(text, arguments, language: language), "\(id) files, count \(n)")
            }
        }
    }

    /// use-escaping: true in the project's l10n.yaml (two folders above the ARB files): ICU
    /// quoting as gen-l10n reads it, `'{name}'` is text and `''` an apostrophe.
    func testEscapingOnFromTheProjectsL10nYaml() throws {
        let (w, report) = try importCatalog(Self.on)
        let en = try packStrings(w, "en@1")
        let fr = try packStrings(w, "fr@1")
        XCTAssertEqual(MessageFormat.format(en["braces"]!, ["name": "Ada"], language: "en"), "Write {name} to show Ada")
        XCTAssertEqual(MessageFormat.format(en["apostrophe"]!, ["name": "Ada"], language: "en"), "It's Ada's turn")
        XCTAssertEqual(
            MessageFormat.format(en["adjacent"]!, [:], language: "en"), "a'b",
            "a quote right after a quote keeps its apostrophe, as gen-l10n's lexer does")
        XCTAssertEqual(MessageFormat.format(fr["apostrophe"]!, ["name": "Ada"], language: "fr"), "C'est le tour d'Ada")
        XCTAssertEqual(
            (report["skipped"] as? [[String: String]])?.map { "\($0["key"]!): \($0["reason"]!)" },
            [
                "unclosed: gen-l10n cannot read it: an apostrophe that is never closed (use-escaping is on) at character 4"
            ])
    }

    func testTheFlagTurnsEscapingOnForAProjectWithoutL10nYaml() throws {
        let (w, report) = try importCatalog(Self.off, ["--arb-use-escaping"])
        XCTAssertEqual(
            MessageFormat.format(try packStrings(w, "pt-BR@1")["quoted"]!, ["type": "photo"], language: "pt"),
            "Apagar {type}? Não dá pra desfazer.")
        XCTAssertTrue(
            (report["skipped"] as? [[String: String]] ?? []).contains {
                $0["locale"] == "en" && $0["key"] == "quoted" && $0["reason"]!.contains("never closed")
            })
    }

    // MARK: Issue 30: the template is the source, duplicate keys, count-less plurals

    static let duplicates = ImportTests.fixtures + "/arb-duplicates"

    /// gen-l10n's template is the source locale: l10n.yaml's `template-arb-file` (here app_de.arb,
    /// a German-first app), else gen-l10n's default app_en.arb; so `app_en.arb` beside
    /// `app_en_US.arb` makes en the source and en-US falls back to it, never a cycle.
    func testTheTemplateArbFileIsTheSource() throws {
        for (path, source, fallbacks) in [
            (ImportTests.fixtures + "/arb-template/lib/l10n", "de", ["de@1 -> -", "en@1 -> de", "en-US@1 -> en"]),
            (Self.duplicates, "en", ["de@1 -> en", "en@1 -> -", "en-US@1 -> en"]),
        ] {
            let (_, report) = try importCatalog(path)
            XCTAssertEqual(report["sourceLocale"] as? String, source, path)
            XCTAssertEqual(
                (report["added"] as? [[String: Any]] ?? []).map {
                    "\($0["pack"]!) -> \($0["fallbackLocale"] as? String ?? "-")"
                }, fallbacks, path)
        }
    }

    /// Dart's json.decode takes a key given twice: the same key and metadata twice is one key
    /// (en `title`); different values leave that key out with the file and lines (de `save`), and
    /// the rest of the file is imported, without --skip-invalid.
    func testADuplicateKeyIsOneKeyOrLeftOutWithItsLines() throws {
        let (w, report) = try importCatalog(Self.duplicates)
        XCTAssertEqual(try packStrings(w, "en@1")["title"], "Accounts")
        let de = try packStrings(w, "de@1")
        XCTAssertEqual(de.keys.sorted(), ["accounts", "files", "title"])
        XCTAssertEqual(
            skippedEntries(report).map { $0.replacingOccurrences(of: Self.duplicates + "/", with: "") },
            [
                "de save: app_de.arb: given 2 times with different values (lines 5, 6); gen-l10n would take the last silently, so which one is meant is not known: keep one"
            ])
    }

    /// `{count, plural, zero {Account} one {Account} other {Accounts}}` never shows the count, so
    /// German `Konten` drops nothing a device would show: gen-l10n compiles it, and the import
    /// stores it with a warning, not a refusal. A count the source shows stays required.
    func testAPluralCountTheSourceNeverShowsMayBeLeftOut() throws {
        let (w, report) = try importCatalog(Self.duplicates)
        let de = try packStrings(w, "de@1")
        for n in [0, 1, 5] {
            XCTAssertEqual(MessageFormat.format(de["accounts"]!, ["count": String(n)], language: "de"), "Konten")
            XCTAssertEqual(
                MessageFormat.format(de["files"]!, ["count": String(n)], language: "de"),
                Self.genL10n(
                    "{count, plural, one {{count} Datei} other {{count} Dateien}}", ["count": String(n)],
                    language: "de"))
        }
        let warnings = (report["warnings"] as? [[String: Any]] ?? []).map { "\($0["rule"]!) \($0["key"]!)" }
        XCTAssertEqual(warnings, ["placeholders accounts"])
    }

    // MARK: gen-l10n, for reference

    /// What a gen-l10n getter returns with use-escaping off: text as written, `{name}` filled,
    /// `{x, select, ...}`, and `{n, plural, ...}` by Dart's Intl.pluralLogic.
    static func genL10n(_ message: String, _ arguments: [String: String], language: String) -> String {
        let s = Array(message)
        func close(_ open: Int) -> Int {
            var depth = 0
            for i in open..<s.count {
                if s[i] == "{" { depth += 1 }
                if s[i] == "}" {
                    depth -= 1
                    if depth == 0 { return i }
                }
            }
            return s.count
        }
        func render(_ range: Range<Int>) -> String {
            var out = ""
            var i = range.lowerBound
            while i < range.upperBound {
                guard s[i] == "{" else {
                    out.append(s[i])
                    i += 1
                    continue
                }
                let end = close(i)
                let header = String(s[(i + 1)..<end]).split(separator: ",", maxSplits: 2).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                if header.count == 1 {
                    out += arguments[header[0]]!
                } else {
                    var cases: [String: Range<Int>] = [:]
                    var j =
                        i + 1
                        + String(s[(i + 1)..<end]).split(separator: ",", maxSplits: 2)[0...1].map(\.count).reduce(2, +)
                    while j < end {
                        while s[j].isWhitespace { j += 1 }
                        guard j < end else { break }
                        var selector = ""
                        while s[j] != "{" {
                            if !s[j].isWhitespace { selector.append(s[j]) }
                            j += 1
                        }
                        let caseEnd = close(j)
                        cases[selector] = (j + 1)..<caseEnd
                        j = caseEnd + 1
                    }
                    let value = arguments[header[0]]!
                    if header[1] == "select" {
                        out += render(cases[value] ?? cases["other"]!)
                    } else {
                        let n = Int(value)!
                        let exact = [0: ["=0", "zero"], 1: ["=1", "one"], 2: ["=2", "two"]][n] ?? []
                        let category = MessageFormat.pluralCategory(n, language: language)
                        let aliases = ["zero": "=0", "one": "=1", "two": "=2"]
                        let chosen =
                            exact.lazy.compactMap { cases[$0] }.first ?? cases[category] ?? aliases[category].flatMap {
                                cases[$0]
                            } ?? cases["other"]!
                        out += render(chosen)
                    }
                }
                i = end + 1
            }
            return out
        }
        return render(0..<s.count)
    }
}
