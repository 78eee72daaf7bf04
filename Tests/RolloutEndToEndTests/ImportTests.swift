import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// rollout pack import on real-shaped catalogs of each format (Tests/Fixtures/import).
final class ImportTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/import").path

    func testStringCatalogPluralsSubstitutionsAndStates() throws {
        let (w, report) = try importCatalog(Self.fixtures + "/Localizable.xcstrings")
        XCTAssertEqual(
            (report["added"] as? [[String: Any]])?.compactMap { $0["pack"] as? String }, ["ar@1", "en@1", "tr@1"])
        XCTAssertEqual(
            skippedEntries(report),
            [
                "ar home.banner: needs review", "en legal.old_terms: stale: no longer in the source code",
                "tr home.banner: not translated", "tr legal.old_terms: stale: no longer in the source code",
            ])
        let en = try packStrings(w, "en@1")
        let ar = try packStrings(w, "ar@1")
        let tr = try packStrings(w, "tr@1")
        XCTAssertEqual(en["files.count"], "{0, plural, one {# file} other {# files}}")
        XCTAssertEqual(
            ar["files.count"],
            "{0, plural, zero {لا ملفات} one {ملف واحد} two {ملفان} few {# ملفات} many {# ملفًا} other {# ملف}}",
            "Arabic's six categories, in CLDR order")
        XCTAssertEqual(en["photos.summary"], "{0} has {1, plural, one {# photo} other {# photos}}")
        XCTAssertEqual(tr["profile.greeting"], "Merhaba, {0}!")
        XCTAssertEqual(en["home.banner"], "Winter sale: 20% off")
        // The device fills what the import wrote.
        XCTAssertEqual(
            MessageFormat.format(en["photos.summary"]!, ["0": "Ada", "1": "1"], language: "en"), "Ada has 1 photo")
        XCTAssertEqual(MessageFormat.format(ar["files.count"]!, ["0": "11"], language: "ar"), "11 ملفًا")
        XCTAssertEqual(MessageFormat.format(ar["files.count"]!, ["0": "2"], language: "ar"), "ملفان")
    }

    func testAndroidResourcesEscapesPluralsAndPositionalArguments() throws {
        let (w, report) = try importCatalog(Self.fixtures + "/android/res", ["--source-locale", "en"])
        XCTAssertEqual(
            (report["added"] as? [[String: Any]])?.compactMap { $0["pack"] as? String }, ["ar@1", "en@1", "tr-TR@1"],
            "values-night is not a locale")
        XCTAssertEqual(
            skippedEntries(report),
            ["en app_name: marked translatable=\"false\"", "en tabs: string arrays are not imported"])
        let en = try packStrings(w, "en@1")
        let tr = try packStrings(w, "tr-TR@1")
        let ar = try packStrings(w, "ar@1")
        XCTAssertEqual(en["sync_status"], "{0} synced {1, number} files")
        XCTAssertEqual(tr["sync_status"], "{0}, {1, number} dosyayı eşitledi")
        XCTAssertEqual(en["checkout_pay"], "Pay {0}", "the text inside <xliff:g> is kept")
        // Android's \' is an apostrophe in the text: doubled in ICU, one again on the device.
        XCTAssertEqual(en["error_offline"], "You''re offline. We''ll sync when you''re back.")
        XCTAssertEqual(
            MessageFormat.format(en["error_offline"]!, [:], language: "en"),
            "You're offline. We'll sync when you're back.")
        XCTAssertEqual(en["quote"], "  Two spaces kept  ", "a quoted value keeps its spaces")
        XCTAssertEqual(
            ar["files_count"],
            "{0, plural, zero {لا ملفات} one {ملف واحد} two {ملفان} few {# ملفات} many {# ملفًا} other {# ملف}}")
        // A round trip: printf in the catalog, ICU in the pack, filled on the device.
        XCTAssertEqual(
            MessageFormat.format(tr["sync_status"]!, ["0": "Ada", "1": "3"], language: "tr"), "Ada, 3 dosyayı eşitledi")
        XCTAssertEqual(MessageFormat.format(en["files_count"]!, ["0": "1"], language: "en"), "1 file")
        XCTAssertEqual(
            try w.json(try w.rollout("pack", "show", "tr-TR@1", "--json"))["fallbackLocale"] as? String, "en")
    }

    func testI18nextNamespacesNestingAndPlurals() throws {
        let (w, report) = try importCatalog(Self.fixtures + "/i18next/locales")
        XCTAssertEqual(report["sourceLocale"] as? String, "en")
        let en = try packStrings(w, "en@1")
        let ar = try packStrings(w, "ar@1")
        XCTAssertEqual(en["home.subtitle"], "Hello, {name}!")
        XCTAssertEqual(en["settings.title"], "Settings", "a namespace other than translation prefixes its keys")
        XCTAssertEqual(en["files"], "{count, plural, one {{count} file} other {{count} files}}")
        XCTAssertEqual(
            ar["files"],
            "{count, plural, zero {لا ملفات} one {ملف واحد} two {ملفان} few {{count} ملفات} many {{count} ملفًا} other {{count} ملف}}"
        )
        XCTAssertEqual(MessageFormat.format(ar["files"]!, ["count": "5"], language: "ar"), "5 ملفات")
    }

    func testArbKeepsICUAndLeavesOutWhatNeedsReview() throws {
        let (w, report) = try importCatalog(Self.fixtures + "/arb")
        XCTAssertEqual(skippedEntries(report), ["tr-TR greeting: needs review"])
        // gen-l10n's grammar, written back in canonical spacing.
        XCTAssertEqual(
            try packStrings(w, "en@1")["filesCount"],
            "{count, plural, =0 {No files} one {{count} file} other {{count} files}}")
        XCTAssertEqual(try packStrings(w, "tr-TR@1").keys.sorted(), ["filesCount", "homeTitle"])
    }

    /// Placeholders compared across formats: English from a String Catalog, Turkish from Android.
    func testPlaceholderLintWorksAcrossFormats() throws {
        let (w, _) = try importCatalog(Self.fixtures + "/Localizable.xcstrings")
        let good = w.scratch.path("good/res/values-tr-rTR")
        try FileManager.default.createDirectory(atPath: good, withIntermediateDirectories: true)
        _ = try w.scratch.write(
            "good/res/values-tr-rTR/strings.xml",
            """
            <resources><string name="profile.greeting">Merhaba, %1$s!</string><string name="home.title">Hoş geldin</string></resources>
            """)
        let accepted = try w.rollout(
            "pack", "import", w.scratch.path("good/res"), "--content-version", "1", "--min-app-version", "4.0",
            "--source-locale", "en")
        XCTAssertEqual(accepted.status, 0, accepted.output)
        XCTAssertTrue(accepted.stdout.contains("added tr-TR@1"), accepted.stdout)
        _ = try w.scratch.write(
            "bad/res/values-tr-rTR/strings.xml",
            """
            <resources><string name="profile.greeting">Merhaba!</string><string name="home.title">Hoş geldin</string></resources>
            """)
        let tip = try w.stateTip()
        let refused = try w.rollout(
            "pack", "import", w.scratch.path("bad/res"), "--content-version", "2", "--min-app-version", "4.0",
            "--source-locale", "en")
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("{0}"), "the missing placeholder is named: \(refused.stderr)")
        XCTAssertEqual(try w.stateTip(), tip, "nothing stored")
    }

    /// Both en and en_US (issue 30, class 6), i18next folders and ARB files, whichever source the
    /// project names or the default: every pack imports, the source declares no fallback, en and
    /// en-US never fall back to each other in a loop, and fr falls back to the source.
    func testEnAndEnUSImportWithoutACycle() throws {
        for (path, extra) in [
            ("/en-and-en_US/i18next/locales", [String]()), ("/en-and-en_US/arb", []),
            ("/en-and-en_US/i18next/locales", ["--source-locale", "en-US"]),
            ("/en-and-en_US/arb", ["--source-locale", "en"]),
        ] {
            let (w, report) = try importCatalog(Self.fixtures + path, extra)
            let source = try XCTUnwrap(report["sourceLocale"] as? String)
            XCTAssertTrue(["en", "en-US"].contains(source), "\(path) \(extra): \(source)")
            let fallbacks = Dictionary(
                uniqueKeysWithValues: (report["added"] as? [[String: Any]] ?? []).map {
                    ($0["pack"] as? String ?? "", $0["fallbackLocale"] as? String ?? "-")
                })
            XCTAssertEqual(fallbacks.keys.sorted(), ["en-US@1", "en@1", "fr@1"], "\(path) \(extra)")
            XCTAssertEqual(fallbacks["\(source)@1"], "-", "\(path) \(extra): the source declares none")
            XCTAssertEqual(fallbacks["fr@1"], source, "\(path) \(extra)")
            XCTAssertEqual(
                fallbacks["en@1"] == "en-US" && fallbacks["en-US@1"] == "en", false, "\(path) \(extra): \(fallbacks)")
            // What devices show: en-US's own Color, en's Colour, and en-US finds the plural it lacks.
            let enUS = try packStrings(w, "en-US@1")
            XCTAssertEqual(enUS["color"], "Color")
            XCTAssertEqual(try packStrings(w, "en@1")["color"], "Colour")
            let lint = try w.rollout("pack", "lint", "--json")
            XCTAssertFalse(lint.output.contains("cycle"), lint.output)
        }
    }

    /// Through `rollout device get`: with en and en-US imported, whichever is the source, an en-US
    /// phone shows en-US's own strings and en's for what en-US lacks (as i18next's en-US -> en
    /// lookup, and Flutter's en_US -> en), an en-GB phone shows en's, and fr the source's.
    func testDevicesFollowTheEnAndEnUSChain() throws {
        for (source, frColor) in [("en", "Colour"), ("en-US", "Color")] {
            let (w, _) = try importCatalog(
                Self.fixtures + "/en-and-en_US/i18next/locales", ["--source-locale", source])
            for id in ["en@1", "en-US@1", "fr@1"] {
                XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0, id)
            }
            let key = try XCTUnwrap(
                try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("k.key"), "--json"))["publicKey"]
                    as? String)
            XCTAssertEqual(
                try w.rollout("publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("k.key")).status, 0)
            func shown(_ device: String, _ region: String, _ name: String, _ args: [String] = []) throws -> String {
                let phone = [
                    "device", "--state", w.scratch.path("devices/\(device)"), "--site", w.scratch.path("site"),
                    "--public-key", key, "--locale", device, "--region", region, "--app-version", "4.8.1",
                ]
                _ = try w.rollout(phone + ["refresh", "--force"])
                _ = try w.rollout(phone + ["activate"])
                let result = try w.rollout(phone + ["get", name] + args)
                XCTAssertEqual(result.status, 0, result.output)
                return result.stdout.trimmingCharacters(in: .newlines)
            }
            XCTAssertEqual(try shown("en-US", "US", "color"), "Color", source)
            XCTAssertEqual(try shown("en-US", "US", "files", ["--arg", "count=3"]), "3 files", source)
            XCTAssertEqual(try shown("en-GB", "GB", "color"), "Colour", source)
            XCTAssertEqual(try shown("fr-FR", "FR", "color"), frColor, source)
            XCTAssertEqual(try shown("fr-FR", "FR", "greet", ["--arg", "name=Ada"]), "Bonjour, Ada !", source)
        }
    }

    /// Each refusal of a whole catalog names, in its first line, the flag or fix that gets past it.
    func testEveryRefusalNamesWhatGetsPastItInItsFirstLine() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        _ = try w.scratch.write("c/en/translation.json", #"{"greet": "Hello {{name}}", "bye": "Bye"}"#)
        _ = try w.scratch.write("c/tr/translation.json", #"{"greet": "Merhaba {{name}}", "bye": "Hoşça kal"}"#)
        _ = try w.scratch.write("fr-only/fr/translation.json", #"{"greet": "Bonjour"}"#)
        let c = w.scratch.path("c")
        func firstLine(_ arguments: String..., status: Int32 = 65) throws -> String {
            let result = try w.rollout(["pack", "import"] + arguments + ["--min-app-version", "4.0"])
            XCTAssertEqual(result.status, status, result.output)
            return String(result.stderr.split(separator: "\n").first ?? "")
        }
        XCTAssertEqual(
            try firstLine(c, "--content-version", "1", "--locale", "de", "--locale", "pt-BR"),
            "rollout: \(c): --locale de, pt-BR matches no locale of the catalog; it has en, tr")
        XCTAssertEqual(
            try firstLine(c, "--content-version", "1", "--locale", "tr"),
            "rollout: \(c): the source locale en has no stored pack and is not imported: add --locale en (or import it first); 1 locale(s) (tr) fall back to it"
        )
        XCTAssertTrue(
            try firstLine(w.scratch.path("fr-only"), "--content-version", "1").contains(
                "name the catalog's development language with --source-locale L (it has fr)"))
        XCTAssertEqual(
            try w.rollout("pack", "import", c, "--content-version", "1", "--min-app-version", "4.0").status, 0)
        _ = try w.scratch.write("c/tr/translation.json", #"{"greet": "Merhaba {{name}}", "bye": "Güle güle"}"#)
        XCTAssertEqual(
            try firstLine(c, "--content-version", "1"),
            "rollout: refused, nothing was stored: pass --content-version 2", "tr@1 exists with other strings")
        _ = try w.scratch.write("c/tr/translation.json", #"{"greet": "Merhaba {{name}}"}"#)
        XCTAssertTrue(
            try firstLine(c, "--content-version", "2").hasPrefix(
                "rollout: refused, nothing was stored: pass --allow-removed-keys"))
        _ = try w.scratch.write("c/tr/translation.json", #"{"greet": "Merhaba {{isim}}", "bye": "Hoşça kal"}"#)
        XCTAssertEqual(
            try firstLine(c, "--content-version", "2"),
            "rollout: refused, nothing was stored: pass --skip-invalid to leave out the 1 string(s) lint refuses and import the rest"
        )
        XCTAssertTrue(
            try firstLine(c, "--content-version", "2", "--skip-invalid").hasPrefix(
                "rollout: refused, nothing was stored: pass --allow-removed-keys"),
            "leaving tr greet out removes a key tr@1 has")
        _ = try firstLine(c, "--content-version", "2", "--skip-invalid", "--allow-removed-keys", status: 0)
    }

    func testBadInputIsNamed() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let noVersion = try w.rollout("pack", "import", Self.fixtures + "/arb")
        XCTAssertEqual(noVersion.status, 64)
        XCTAssertTrue(noVersion.stderr.contains("--content-version"), noVersion.stderr)
        let noMinimum = try w.rollout("pack", "import", Self.fixtures + "/arb", "--content-version", "1")
        XCTAssertEqual(noMinimum.status, 64)
        XCTAssertTrue(noMinimum.stderr.contains("--min-app-version"), noMinimum.stderr)
        let broken = try w.scratch.write("broken.xcstrings", "{\"sourceLanguage\": \"en\", \"strings\": {\"a\": }")
        let parsed = try w.rollout("pack", "import", broken, "--content-version", "1", "--min-app-version", "4.0")
        XCTAssertEqual(parsed.status, 65)
        XCTAssertTrue(parsed.stderr.contains("broken.xcstrings:1:"), parsed.stderr)
        XCTAssertEqual(try w.rollout("pack", "import", w.scratch.path("nothing"), "--content-version", "1").status, 66)
    }

    /// A `%` that is text in its catalog (every `%` in i18next and ARB, `%%` in printf formats,
    /// all of a `formatted="false"` string) stays text in the pack: a strftime pattern whose
    /// translation adds `%S` is not read as a printf argument lint compares, and a device shows
    /// every one as written (docs/import.md, "Percent signs").
    func testALiteralPercentBeforeALetterIsTextInEveryFormat() throws {
        let catalogs = try Workspace()
        let i18next: [(String, String)] = [
            ("en", #"{"when": "%b %-d, %I:%M %p", "rate": "100%d", "twice": "%%s"}"#),
            ("pt", #"{"when": "%-d de %b, %H:%M:%S", "rate": "100%s", "twice": "%%d"}"#),
        ]
        for (locale, json) in i18next { _ = try catalogs.scratch.write("i18n/\(locale)/translation.json", json) }
        _ = try catalogs.scratch.write("arb/app_en.arb", #"{"@@locale": "en", "when": "%H:%M", "rate": "{n}% of %d"}"#)
        _ = try catalogs.scratch.write(
            "arb/app_de.arb", #"{"@@locale": "de", "when": "%H:%M:%S Uhr", "rate": "{n}% von %d"}"#)
        _ = try catalogs.scratch.write(
            "res/values/strings.xml",
            #"<resources><string name="rate">100%%d</string><string name="raw" formatted="false">%S and %%</string></resources>"#
        )
        _ = try catalogs.scratch.write(
            "res/values-de/strings.xml",
            #"<resources><string name="rate">100%%s</string><string name="raw" formatted="false">%d und %%</string></resources>"#
        )
        let shown: [(catalog: String, flags: [String], locale: String, key: String, text: String)] = [
            ("i18n", ["--format", "i18next"], "en", "when", "%b %-d, %I:%M %p"),
            ("i18n", ["--format", "i18next"], "pt", "when", "%-d de %b, %H:%M:%S"),
            ("i18n", ["--format", "i18next"], "pt", "rate", "100%s"),
            ("i18n", ["--format", "i18next"], "pt", "twice", "%%d"),
            ("arb", [], "de", "when", "%H:%M:%S Uhr"),
            ("arb", [], "de", "rate", "7% von %d"),
            ("res", ["--source-locale", "en"], "en", "rate", "100%d"),
            ("res", ["--source-locale", "en"], "de", "rate", "100%s"),
            ("res", ["--source-locale", "en"], "de", "raw", "%d und %%"),
        ]
        for catalog in ["i18n", "arb", "res"] {
            // A repository each: the three catalogs have different keys.
            let w = try Workspace()
            XCTAssertEqual(try w.rollout("init").status, 0)
            let flags = shown.first { $0.catalog == catalog }!.flags
            let result = try w.rollout(
                [
                    "pack", "import", catalogs.scratch.path(catalog), "--content-version", "1",
                    "--min-app-version", "4.0", "--json",
                ] + flags)
            XCTAssertEqual(result.status, 0, "nothing refused, nothing left out: \(result.output)")
            XCTAssertEqual(skippedEntries(try w.json(result)), [], catalog)
            for row in shown where row.catalog == catalog {
                let stored = try packStrings(w, "\(row.locale)@1")[row.key]
                // Arguments by every name a specifier could take: an unescaped `%s` would be filled.
                let arguments = ["n": "7", "0": "A", "1": "A", "2": "B", "3": "C"]
                XCTAssertEqual(
                    stored.map { MessageFormat.format($0, arguments, language: row.locale) }, row.text,
                    "\(catalog) \(row.locale) \(row.key) stored as \(stored ?? "nothing")")
            }
        }
    }
}
