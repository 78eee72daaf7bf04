import Foundation
import XCTest

@testable import RolloutClient

/// `rollout pack import` of i18next catalogs shaped like real web apps' (Tests/Fixtures/import/
/// i18next-shapes): what the device shows from the stored ICU text is what i18next shows from the
/// JSON (docs/import.md, "i18next").
final class ImportI18nextTests: XCTestCase {
    static let locales = ImportTests.fixtures + "/i18next-shapes/locales"

    private func imported(file: StaticString = #filePath, line: UInt = #line) throws -> (Workspace, [String: Any]) {
        try importCatalog(Self.locales, ["--format", "i18next", "--skip-invalid"], file: file, line: line)
    }

    private func resource(_ locale: String) throws -> [String: Any] {
        let data = try XCTUnwrap(FileManager.default.contents(atPath: "\(Self.locales)/\(locale)/translation.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testEveryLocaleSpellingIsImportedAndEveryOtherFileIsListed() throws {
        let (_, report) = try imported()
        let packs = (report["added"] as? [[String: Any]] ?? []).compactMap { $0["pack"] as? String }.filter {
            $0 != "hu@1"
        }
        XCTAssertEqual(
            packs, ["ar@1", "en-US@1", "nb-NO@1", "pt-BR@1", "ru@1", "sr-Latn@1", "zh-Hant@1"],
            "en_US, pt_BR, nb_NO are locales")
        XCTAssertEqual(report["sourceLocale"] as? String, "en-US")
        let files = (report["skippedFiles"] as? [[String: String]] ?? []).map {
            "\(($0["path"]! as NSString).lastPathComponent): \($0["reason"]!)"
        }.sorted()
        XCTAssertEqual(
            files,
            [
                ".DS_Store: not an i18next .json file", "README.md: not an i18next .json file",
                "common: not a locale folder (such as pt-BR, pt_BR or zh-Hant)", "index.js: not an i18next .json file",
            ])
        let skipped = skippedEntries(report).filter { !$0.hasPrefix("hu ") }
        XCTAssertEqual(
            skipped,
            [
                "en-US items: not a string (arrays and numbers are not imported)",
                "en-US nested: nests another key with $t(...), which the pack form cannot",
                "en-US place_ordinal_one: an ordinal plural form (_ordinal_one): ordinals are not imported",
                "en-US place_ordinal_other: an ordinal plural form (_ordinal_other): ordinals are not imported",
                "en-US price: formats a value ({{amount, currency}}) with an i18next formatter, which the pack form does not have",
                "ru files: the key is also the name of plural forms (files_other); the plural is imported under it",
            ])
    }

    func testApostrophesBracesAndHashAreTextAsI18nextShowsThem() throws {
        let (w, _) = try imported()
        let en = try packStrings(w, "en-US@1")
        XCTAssertEqual(en["apostrophe"], "Don''t lose ''{name}'' – it''s {name}''s file")
        XCTAssertEqual(
            en["braces"], "Use '{'braces'}' as they are: '{' '}' '}}' '{{'", "a run of braces is quoted as one")
        XCTAssertEqual(
            en["files"], "{count, plural, =0 {No files} one {{count} file} other {{count} files '#' {folder}}}",
            "{{count}} is the count as the app passes it; a # of the text is quoted")
        for (locale, key, arguments) in [
            ("en_US", "apostrophe", ["name": "Ada"]), ("en_US", "braces", [:]), ("en_US", "greeting", ["name": "Ada"]),
            ("en_US", "unescaped", ["user": "<b>Ada</b>"]), ("en_US", "percent", ["percent": "20"]),
            ("pt_BR", "apostrophe", ["name": "Ada"]), ("zh-Hant", "greeting", ["name": "Ada"]),
        ] {
            let id = locale.replacingOccurrences(of: "_", with: "-") + "@1"
            let stored = try XCTUnwrap(try packStrings(w, id)[key], "\(id) \(key)")
            XCTAssertEqual(
                MessageFormat.format(stored, arguments, language: String(locale.prefix(2))),
                Self.i18next(try resource(locale)[key] as! String, arguments), "\(id) \(key)")
        }
    }

    func testPluralFormsCountAsI18nextCountsThem() throws {
        let (w, _) = try imported()
        for (locale, language) in [("en_US", "en"), ("pt_BR", "pt"), ("ar", "ar"), ("zh-Hant", "zh"), ("ru", "ru")] {
            let id = locale.replacingOccurrences(of: "_", with: "-") + "@1"
            let stored = try XCTUnwrap(try packStrings(w, id)["files"], id)
            let json = try resource(locale)
            for n in [0, 1, 2, 3, 5, 11, 21, 100, 1_000_000] {
                let arguments = ["count": String(n), "folder": "Docs"]
                XCTAssertEqual(
                    MessageFormat.format(stored, arguments, language: language),
                    Self.i18nextPlural(json, "files", arguments, language: language), "\(id) files, count \(n)")
            }
        }
        let en = try packStrings(w, "en-US@1")
        XCTAssertEqual(
            en["lonely_one"], "just a key named lonely_one", "_one without a sibling _other is an ordinary key")
        XCTAssertEqual(en["friend_male"], "He is a friend", "a context suffix is an ordinary key")
        XCTAssertEqual(
            try packStrings(w, "ru@1")["files"],
            "{count, plural, one {{count} файл в {folder}} few {{count} файла в {folder}} many {{count} файлов в {folder}} other {{count} файлов в {folder}}}",
            "v3 _0 _1 _2 by Russian's rule set")
    }

    /// `{{percent}}%-ot` (Hungarian): the % is text, in i18next and in the pack.
    func testALiteralPercentStaysText() throws {
        let (w, report) = try imported()
        XCTAssertEqual(
            MessageFormat.format(try packStrings(w, "en-US@1")["percent"]!, ["percent": "20"], language: "en"),
            "20% off")
        XCTAssertFalse(
            (report["skipped"] as? [[String: String]] ?? []).contains(where: { $0["locale"] == "hu" }),
            "lint reads %-o as text")
        XCTAssertEqual(
            MessageFormat.format(try packStrings(w, "hu@1")["percent"]!, ["percent": "20"], language: "hu"),
            "20%-ot kapsz")
    }

    // MARK: i18next, for reference

    /// i18next's interpolation (escapeValue off, as React apps set it): `{{name}}` and `{{- name}}`
    /// are the argument; one without a value stays as written (skipOnVariables).
    static func i18next(_ text: String, _ arguments: [String: String]) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            out += rest[..<open.lowerBound]
            var name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("-") { name = name.dropFirst().trimmingCharacters(in: .whitespaces) }
            out += arguments[name] ?? String(rest[open.lowerBound..<close.upperBound])
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    /// i18next's plural lookup: `key_zero` for a count of 0 when it exists, else the language's
    /// CLDR category, else `key_other`; JSON v3 numbered keys for Russian.
    static func i18nextPlural(_ json: [String: Any], _ key: String, _ arguments: [String: String], language: String)
        -> String
    {
        let n = Int(arguments["count"]!)!
        let category = MessageFormat.pluralCategory(n, language: language)
        let candidates: [String]
        if language == "ru" {
            candidates = ["\(key)_\(["one": 0, "few": 1][category] ?? 2)"]
        } else {
            candidates = (n == 0 ? ["\(key)_zero"] : []) + ["\(key)_\(category)", "\(key)_other"]
        }
        let text = candidates.lazy.compactMap { json[$0] as? String }.first!
        return i18next(text, arguments)
    }

    /// Polish, Russian, Ukrainian: every whole-number count is one, few or many, so a catalog that
    /// writes no `_other` is still a plural (`many` stands for `other`); and an empty locale file is
    /// said to be left out, not passed over.
    func testAPluralWithoutOtherWhereOnlyFractionsNeedItAndAnEmptyFile() throws {
        let (w, report) = try importCatalog(
            ImportTests.fixtures + "/i18next-shapes/plural-without-other", ["--format", "i18next"])
        let pl = try packStrings(w, "pl@1")
        XCTAssertEqual(pl.keys.sorted(), ["files"], "no literal files_few key")
        for (count, shown) in [
            ("1", "1 plik"), ("3", "3 pliki"), ("5", "5 plików"), ("22", "22 pliki"), ("112", "112 plików"),
        ] {
            XCTAssertEqual(MessageFormat.format(pl["files"]!, ["count": count], language: "pl"), shown)
        }
        let files = (report["skippedFiles"] as? [[String: String]] ?? []).map {
            "\(($0["path"]! as NSString).pathComponents.suffix(2).joined(separator: "/")): \($0["reason"]!)"
        }
        XCTAssertEqual(files, ["sv/translation.json: no strings in it"])
    }

    /// An empty value shows nothing of its own: i18next (returnEmptyString: false) shows the
    /// fallback and RolloutClient falls through to the next locale, so the source's `{{count}}`
    /// and `{{name}}` need not be in it. Imported without --skip-invalid, with the empty-value warning.
    func testAnEmptyTranslationOfAStringWithPlaceholdersIsImported() throws {
        let (w, report) = try importCatalog(ImportTests.fixtures + "/i18next-empty-values", ["--format", "i18next"])
        XCTAssertEqual(skippedEntries(report), [])
        let ar = try packStrings(w, "ar@1")
        XCTAssertEqual(ar["left"], "")
        XCTAssertEqual(ar["help.description"], "")
        let warnings = (report["warnings"] as? [[String: Any]] ?? []).map {
            "\($0["key"] as? String ?? "") \($0["rule"] as? String ?? "")"
        }
        XCTAssertEqual(warnings.sorted(), ["help.description empty-value", "left empty-value"])
    }

    // MARK: Issue 30: namespace folders, en + en_US, duplicate keys, --json order

    static let namespaces = ImportTests.fixtures + "/i18next-namespaces/locales"

    /// i18next's backends load `/locales/{{lng}}/{{ns}}.json` with the namespace as it is, so
    /// `locales/en/views/live.json` is namespace `views/live` (keys `views/live.title`); a file
    /// there that is not JSON is still listed.
    func testANamespaceInASubfolderIsReadAsItsPath() throws {
        let (w, report) = try importCatalog(Self.namespaces)
        let en = try packStrings(w, "en@1")
        XCTAssertEqual(
            en.keys.sorted(),
            [
                "app.title", "components/dialog.confirm", "save", "views/live.cameras.count", "views/live.cameras.none",
                "views/live.title",
            ])
        XCTAssertEqual(
            MessageFormat.format(try XCTUnwrap(en["components/dialog.confirm"]), ["name": "Ada"], language: "en"),
            Self.i18next("Delete {{name}}?", ["name": "Ada"]))
        let count = try XCTUnwrap(try packStrings(w, "de@1")["views/live.cameras.count"])
        for n in [1, 2] {
            XCTAssertEqual(
                MessageFormat.format(count, ["count": String(n)], language: "de"),
                n == 1 ? "1 Kamera" : "2 Kameras")
        }
        let files = (report["skippedFiles"] as? [[String: String]] ?? []).map {
            "\(($0["path"]! as NSString).pathComponents.suffix(3).joined(separator: "/")): \($0["reason"]!)"
        }
        XCTAssertEqual(files, ["en/views/README.txt: not a namespace file (<namespace>.json)"])
    }

    /// `en` and `en_US` side by side: `en` is the source (the fallbackLng i18next apps set), so
    /// en-US falls back to it and nothing makes a cycle.
    func testEnAndEnUSFolderMakeEnTheSource() throws {
        let (_, report) = try importCatalog(Self.namespaces)
        XCTAssertEqual(report["sourceLocale"] as? String, "en")
        let fallbacks = (report["added"] as? [[String: Any]] ?? []).map {
            "\($0["pack"]!) -> \($0["fallbackLocale"] as? String ?? "-")"
        }
        XCTAssertEqual(fallbacks, ["de@1 -> en", "en@1 -> -", "en-US@1 -> en"])
    }

    /// JSON.parse takes a key given twice: the same value twice is one key (en `save`); different
    /// values leave that key out, listed with the file and lines (de `app.title`), and the rest of
    /// the file is imported, without --skip-invalid.
    func testADuplicateKeyIsOneKeyOrLeftOutWithItsLines() throws {
        let (w, report) = try importCatalog(Self.namespaces)
        XCTAssertEqual(try packStrings(w, "en@1")["save"], "Save")
        XCTAssertEqual(try packStrings(w, "de@1")["save"], "Speichern")
        XCTAssertNil(try packStrings(w, "de@1")["app.title"])
        XCTAssertEqual(
            skippedEntries(report).map { $0.replacingOccurrences(of: Self.namespaces + "/", with: "") },
            [
                "de app.title: de/translation.json: given 2 times with different values (lines 3, 4); JSON.parse would take the last silently, so which one is meant is not known: keep one"
            ])
    }

    /// `--json` lists `skipped` in the same order every run: by locale, then key.
    func testSkippedIsListedInOneOrder() throws {
        let first = try imported().1["skipped"] as? [[String: String]] ?? []
        let second = try imported().1["skipped"] as? [[String: String]] ?? []
        XCTAssertGreaterThan(first.count, 5)
        XCTAssertEqual(first, second)
        let order = first.map { [$0["locale"]!, $0["key"]!] }
        XCTAssertEqual(order, order.sorted { ($0[0], $0[1]) < ($1[0], $1[1]) })
    }
}

/// i18next-icu projects (Tests/Fixtures/import/i18next-icu): values are ICU MessageFormat, read as
/// the app's i18next.use(ICU) reads them, detected from the nearest package.json or named with
/// --i18next-format.
extension ImportI18nextTests {
    static let icuProject = ImportTests.fixtures + "/i18next-icu"

    private func icuSource(_ locale: String) throws -> [String: String] {
        let data = try XCTUnwrap(
            FileManager.default.contents(atPath: "\(Self.icuProject)/locales/\(locale)/translation.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: String])
    }

    /// The locales without the package.json, in a folder of their own.
    private func bareCopy() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("icu-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: "\(Self.icuProject)/locales", toPath: folder.appendingPathComponent("locales").path)
        return folder.appendingPathComponent("locales").path
    }

    func testICUAnI18nextICUProjectIsImportedAsItsICUSource() throws {
        let (w, report) = try importCatalog(Self.icuProject + "/locales")
        let reading = try XCTUnwrap(report["reading"] as? [String: String], "\(report)")
        XCTAssertEqual(reading["format"], "icu")
        XCTAssertTrue(reading["because"]?.hasSuffix("i18next-icu/package.json") == true, "\(reading)")
        // `{{name}}` is not interpolation under i18next-icu: ICU refuses it, as it does an unclosed plural.
        XCTAssertEqual(
            skippedEntries(report).map { $0.components(separatedBy: " (i18next-icu)")[0] },
            [
                "en legacy: not ICU MessageFormat", "en unclosed: not ICU MessageFormat",
            ])
        for locale in ["en", "de"] {
            XCTAssertEqual(
                try packStrings(w, "\(locale)@1"),
                try icuSource(locale).filter { !["legacy", "unclosed"].contains($0.key) },
                locale)
        }
        let text = try w.rollout(
            "pack", "import", Self.icuProject + "/locales", "--content-version", "2", "--min-app-version", "4.0",
            "--dry-run")
        XCTAssertTrue(text.stdout.contains("values read as icu (i18next-icu in "), text.output)
    }

    func testICUADeviceShowsTheFilledText() throws {
        let (w, _) = try importCatalog(Self.icuProject + "/locales")
        for id in ["en@1", "de@1"] { XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0, id) }
        let key = try XCTUnwrap(
            try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("k.key"), "--json"))["publicKey"]
                as? String)
        XCTAssertEqual(
            try w.rollout("publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("k.key")).status, 0)
        func shown(_ device: String, _ region: String, _ name: String, _ args: [String]) throws -> String {
            let phone = [
                "device", "--state", w.scratch.path("devices/\(device)"), "--site", w.scratch.path("site"),
                "--public-key", key, "--locale", device, "--region", region, "--app-version", "4.8.1",
            ]
            _ = try w.rollout(phone + ["refresh", "--force"])
            _ = try w.rollout(phone + ["activate"])
            let result = try w.rollout(phone + ["get", name] + args.flatMap { ["--arg", $0] })
            XCTAssertEqual(result.status, 0, result.output)
            return result.stdout.trimmingCharacters(in: .newlines)
        }
        XCTAssertEqual(
            try shown("en-US", "US", "invite", ["inviterName=Ada", "spaceName=Ops"]), "Ada invited you to join Ops")
        XCTAssertEqual(try shown("en-US", "US", "seats", ["count=1"]), "Add 1 seat")
        XCTAssertEqual(try shown("en-US", "US", "seats", ["count=3"]), "Add 3 seats")
        XCTAssertEqual(try shown("en-US", "US", "pronoun", ["gender=female"]), "She replied")
        XCTAssertEqual(try shown("en-US", "US", "quote", []), "Don't show {braces}")
        XCTAssertEqual(try shown("de-DE", "DE", "seats", ["count=3"]), "3 Plätze hinzufügen")
        XCTAssertEqual(try shown("de-DE", "DE", "pronoun", ["gender=male"]), "Er hat geantwortet")
    }

    func testICUWithoutPackageJSONValuesAreI18nextTextUnlessTheFlagSaysICU() throws {
        let bare = try bareCopy()
        let (w, report) = try importCatalog(bare)
        XCTAssertTrue(report["reading"] is NSNull, "\(report)")
        XCTAssertEqual(
            try packStrings(w, "en@1")["invite"], "'{'inviterName'}' invited you to join '{'spaceName'}'",
            "i18next shows single braces as text")
        let (flagged, flaggedReport) = try importCatalog(bare, ["--i18next-format", "icu"])
        XCTAssertEqual((flaggedReport["reading"] as? [String: String])?["because"], "--i18next-format")
        XCTAssertEqual(try packStrings(flagged, "en@1")["invite"], try icuSource("en")["invite"])
        // The flag overrides the project's package.json.
        let (plain, _) = try importCatalog(Self.icuProject + "/locales", ["--i18next-format", "i18next"])
        let quote = try XCTUnwrap(try packStrings(plain, "en@1")["quote"])
        XCTAssertEqual(
            MessageFormat.format(quote, [:], language: "en"), try icuSource("en")["quote"], "shown as written")
        let bad = try Workspace()
        XCTAssertEqual(try bad.rollout("init").status, 0)
        let refused = try bad.rollout(
            "pack", "import", bare, "--content-version", "1", "--i18next-format", "messageformat")
        XCTAssertEqual(refused.status, 64, refused.output)
        XCTAssertTrue(refused.stderr.contains("--i18next-format \"messageformat\" is not one of icu, i18next"))
    }

    /// A package.json beside the locales that is not JSON (a merge conflict left in it) says
    /// nothing about i18next-icu: the catalog is imported as i18next, and the file is listed with
    /// its line and the flag that says it instead.
    func testICUAPackageJSONThatIsNotJSONIsListedNotFatal() throws {
        let bare = try bareCopy()
        let manifest = (bare as NSString).deletingLastPathComponent + "/package.json"
        try Data("{\n<<<<<<< HEAD\n  \"dependencies\": {}\n}\n".utf8).write(to: URL(fileURLWithPath: manifest))
        let (w, report) = try importCatalog(bare)
        XCTAssertTrue(report["reading"] is NSNull, "\(report)")
        let files = try XCTUnwrap(report["skippedFiles"] as? [[String: String]])
        XCTAssertEqual(files.map { $0["path"] }, [manifest], "\(files)")
        XCTAssertTrue(files[0]["reason"]?.hasPrefix("not read (2:1: ") == true, "\(files)")
        XCTAssertTrue(files[0]["reason"]?.hasSuffix("give --i18next-format icu if the app uses i18next-icu") == true)
        XCTAssertEqual(
            try packStrings(w, "en@1")["invite"], "'{'inviterName'}' invited you to join '{'spaceName'}'")
        let (flagged, flaggedReport) = try importCatalog(bare, ["--i18next-format", "icu"])
        XCTAssertEqual((flaggedReport["skippedFiles"] as? [Any])?.count, 0, "the flag decides; the file is not read")
        XCTAssertEqual(try packStrings(flagged, "en@1")["invite"], try icuSource("en")["invite"])
    }

    /// Every package.json up to the project's root counts (a workspace's root lists the plugin
    /// its apps share, as Node finds it through every node_modules up the tree), in any of the
    /// dependency sections; a folder named package.json is no manifest; the walk stops at `.git`.
    func testICUAPackageJSONUpTheWorkspaceDecidesInAnySection() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("icu-ws-\(UUID().uuidString)").path
        func project(_ name: String, _ manifests: [String: String], git: String? = nil) throws -> String {
            for (folder, text) in manifests {
                try FileManager.default.createDirectory(
                    atPath: "\(root)/\(name)/\(folder)", withIntermediateDirectories: true)
                if text == "folder" {
                    try FileManager.default.createDirectory(
                        atPath: "\(root)/\(name)/\(folder)/package.json", withIntermediateDirectories: true)
                } else {
                    try Data(text.utf8).write(to: URL(fileURLWithPath: "\(root)/\(name)/\(folder)/package.json"))
                }
            }
            if let git {
                try FileManager.default.createDirectory(
                    atPath: "\(root)/\(name)/\(git)/.git", withIntermediateDirectories: true)
            }
            let locales = "\(root)/\(name)/apps/web/public/locales"
            try FileManager.default.createDirectory(atPath: locales, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "\(Self.icuProject)/locales/en", toPath: "\(locales)/en")
            return locales
        }
        let icu = #"{"dependencies": {"i18next-icu": "^2.4.3"}}"#
        let plain = #"{"name": "web", "dependencies": {"i18next": "^26"}}"#
        for (name, manifests, git, expected) in [
            ("hoisted", [".": icu, "apps/web": plain], nil, "hoisted/package.json"),
            ("peer", ["apps/web": #"{"peerDependencies": {"i18next-icu": "^2"}}"#], nil, "peer/apps/web/package.json"),
            ("folder", [".": icu, "apps/web": "folder"], nil, "folder/package.json"),
            ("outside", [".": icu, "apps/web": plain], "apps", nil),
        ] as [(String, [String: String], String?, String?)] {
            let (w, report) = try importCatalog(try project(name, manifests, git: git))
            let because = (report["reading"] as? [String: String])?["because"]
            XCTAssertEqual(
                because.map {
                    String(
                        $0.split(separator: "/").suffix(expected?.split(separator: "/").count ?? 0).joined(
                            separator: "/"))
                }, expected, "\(name): \(report)")
            XCTAssertEqual(
                try packStrings(w, "en@1")["invite"] == (try icuSource("en")["invite"]), expected != nil, name)
        }
    }

    /// A flag for how one format is read, given for another format's catalog, would do nothing: it
    /// is a usage error before the repository is opened, as is a bad value of it.
    func testAFormatFlagForAnotherFormatIsAUsageError() throws {
        let w = try Workspace()
        let outside = try w.rollout(
            "pack", "import", ImportTests.fixtures + "/arb", "--content-version", "1", "--i18next-format", "fancy")
        XCTAssertEqual(outside.status, 64, "outside any repository: \(outside.output)")
        XCTAssertTrue(
            outside.stderr.contains(
                "--i18next-format is for i18next catalogs; \(ImportTests.fixtures)/arb is read as arb"),
            outside.output)
        XCTAssertEqual(try w.rollout("init").status, 0)
        for (catalog, flag) in [
            ("/arb", ["--i18next-format", "icu"]), ("/i18next", ["--format", "i18next", "--arb-use-escaping"]),
            ("/android/res", ["--i18next-format", "i18next"]), ("/Localizable.xcstrings", ["--arb-use-escaping"]),
        ] {
            let refused = try w.rollout(
                ["pack", "import", ImportTests.fixtures + catalog, "--content-version", "1"] + flag)
            XCTAssertEqual(refused.status, 64, "\(catalog) \(flag): \(refused.output)")
            XCTAssertTrue(refused.stderr.contains("\(flag.last { $0.hasPrefix("--") }!) is for "), refused.output)
            XCTAssertTrue(refused.stderr.contains(" is read as "), refused.output)
        }
        let bad = try w.rollout(
            "pack", "import", ImportTests.fixtures + "/i18next", "--format", "i18next", "--content-version", "1",
            "--i18next-format", "x")
        XCTAssertEqual(bad.status, 64, bad.output)
        XCTAssertTrue(bad.stderr.contains("--i18next-format \"x\" is not one of icu, i18next"), bad.output)
    }
}
