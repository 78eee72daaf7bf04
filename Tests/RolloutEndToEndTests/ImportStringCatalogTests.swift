import Foundation
import XCTest

@testable import RolloutClient

/// rollout pack import of a String Catalog shaped like real apps' (Tests/Fixtures/import/
/// xcstrings-shapes): what the device shows from the imported ICU text is what the app shows from
/// the catalog through Foundation (docs/import.md, "String Catalogs").
final class ImportStringCatalogTests: XCTestCase {
    static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/import/xcstrings-shapes/Localizable.xcstrings").path

    /// Keys that are their own source text, and source values in every state Xcode writes
    /// (Tests/Fixtures/import/xcstrings-key-source).
    static let keySource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/import/xcstrings-key-source/Localizable.xcstrings").path

    private func imported() throws -> (Workspace, [String: Any]) { try importCatalog(Self.catalog, []) }

    func testSubstitutionsTakeTheArgumentsXcodeGivesThem() throws {
        let (w, _) = try imported()
        let en = try packStrings(w, "en@1")
        let de = try packStrings(w, "de@1")
        let fr = try packStrings(w, "fr@1")
        XCTAssertEqual(
            en["%lld files in %lld folders"],
            "{0, plural, one {# file} other {# files}} in {1, plural, one {# folder} other {# folders}}",
            "two substitutions without argNum count two different arguments")
        let files = (argNum: Int?.none, forms: ["one": "%arg file", "other": "%arg files"])
        let folders = (argNum: Int?.none, forms: ["one": "%arg folder", "other": "%arg folders"])
        for args in [["1", "3"], ["5", "1"]] {
            XCTAssertEqual(
                deviceText(en["%lld files in %lld folders"], args, language: "en"),
                referencePrintf("%#@files@ in %#@folders@", args, substitutions: ["files": files, "folders": folders]))
        }
        XCTAssertEqual(
            deviceText(de["%lld files in %lld folders"], ["1", "3"], language: "de"), "1 Datei in 3 Ordnern")
        XCTAssertEqual(en["%@ shared %lld photos"], "{0} shared {1, plural, one {# photo} other {# photos}}")
        XCTAssertEqual(
            fr["%@ shared %lld photos"], "{1, plural, one {# photo} other {# photos}} partagées par {0}",
            "argNum 2 wins; its %lld forms count it")
        let photos = (argNum: Int?(2), forms: ["one": "%lld photo", "other": "%lld photos"])
        XCTAssertEqual(
            deviceText(fr["%@ shared %lld photos"], ["Ada", "4"], language: "fr"),
            referencePrintf(
                "%#@photos@ partagées par %1$@", ["Ada", "4"], language: "fr", substitutions: ["photos": photos],
                category: { $0 <= 1 ? "one" : "other" }))
    }

    func testApostrophesBracesAndPrecisionShowAsFoundationShowsThem() throws {
        let (w, _) = try imported()
        let en = try packStrings(w, "en@1")
        let fr = try packStrings(w, "fr@1")
        let de = try packStrings(w, "de@1")
        let cases: [(String?, String, [String], String)] = [
            (en["Download %.1f%% done, %@'s {draft}"], "Download %.1f%% done, %@'s {draft}", ["42.25", "Ada"], "en"),
            (
                fr["Download %.1f%% done, %@'s {draft}"], "Téléchargement : %.1f %% fait, l'{ébauche} de %@",
                ["42.25", "Ada"], "fr"
            ),
            (en["Total: %1$.2f of %2$.2f"], "Total: %1$.2f of %2$.2f", ["3", "9.5"], "en"),
            (de["Total: %1$.2f of %2$.2f"], "Gesamt: %2$.2f von %1$.2f", ["3", "9.5"], "de"),
            (fr["Don't stop"], "N'arrêtez pas", [], "fr"),
        ]
        for (stored, value, args, language) in cases {
            XCTAssertEqual(
                deviceText(stored, args, language: language), referencePrintf(value, args, language: language),
                "\(value) stored as \(stored ?? "nothing")")
        }
        XCTAssertEqual(en["Download %.1f%% done, %@'s {draft}"], "Download {0, number, ::.0}% done, {1}''s '{'draft'}'")
    }

    func testPluralsAndWhatIsLeftOut() throws {
        let (w, report) = try imported()
        let skipped = skippedEntries(report)
        XCTAssertEqual(skipped, ["en Padded %3d: %3d: a width of 3 pads it, which the ICU form cannot keep"])
        XCTAssertEqual(
            deviceText(try packStrings(w, "en@1")["Don't stop"], [], language: "en"), "Don't stop",
            "a key with no en value is its own en text")
        XCTAssertEqual(try packStrings(w, "ja@1")["%lld items"], "{0, plural, other {# 個}}")
        let ru = try packStrings(w, "ru@1")["%lld items"]
        XCTAssertEqual(ru, "{0, plural, one {# элемент} few {# элемента} many {# элементов} other {# элементов}}")
        XCTAssertEqual(deviceText(ru, ["22"], language: "ru"), "22 элемента")
    }

    func testAKeyWithoutASourceValueIsItsOwnSourceText() throws {
        for flags in [[], ["--skip-invalid"]] {
            let (w, report) = try importCatalog(Self.keySource, flags)
            XCTAssertEqual(
                (report["added"] as? [[String: Any]])?.compactMap { $0["pack"] as? String },
                ["de@1", "en@1", "fr@1", "ja@1"], "\(flags): a source pack, so every translation has its fallback")
            let en = try packStrings(w, "en@1")
            XCTAssertEqual(en["Welcome back"], "Welcome back")
            XCTAssertEqual(en["Tap to retry"], "Tap to retry", "a key with only a comment")
            XCTAssertEqual(en["%lld unread messages"], "{0, number} unread messages")
            XCTAssertEqual(en["%@'s {deal}: 50%% off"], "{0}''s '{'deal'}': 50% off")
            for (key, args) in [
                ("Welcome back", []), ("%lld unread messages", ["3"]), ("%@'s {deal}: 50%% off", ["Ada"]),
            ] {
                XCTAssertEqual(deviceText(en[key], args, language: "en"), referencePrintf(key, args), key)
            }
            XCTAssertEqual(try packStrings(w, "de@1")["Welcome back"], "Willkommen zurück")
        }
    }

    func testSourceValuesInEveryStateAreTheAppsTextAndOnlyTranslatedTranslationsAreImported() throws {
        let (w, report) = try importCatalog(Self.keySource)
        let en = try packStrings(w, "en@1")
        XCTAssertEqual(en["settings.title"], "Settings", "new: what the developer typed")
        XCTAssertEqual(en["greeting %@"], "Hello, {0}!", "extracted_with_value: the code's default value")
        XCTAssertEqual(en["profile.edit"], "Edit profile", "needs_review: Xcode builds it")
        XCTAssertEqual(en["sync.status"], "Synced", "stale value: Xcode builds it")
        XCTAssertEqual(en["photos.count"], "{0, plural, one {# photo} other {# photos}}", "plural forms in state new")
        XCTAssertEqual(try packStrings(w, "ja@1")["photos.count"], "{0, plural, other {写真 # 枚}}")
        XCTAssertEqual(
            skippedEntries(report),
            [
                "de Old banner: stale: no longer in the source code",
                "de profile.edit: needs review",
                "de sync.status: stale",
                "en Old banner: stale: no longer in the source code",
                "en app.name: marked shouldTranslate false",
                "fr greeting %@: not translated",
            ])
    }

    /// A catalog refused whole still lists what it left out, with or without --skip-invalid, and
    /// the first line says what gets past the refusal. A development language whose every string is
    /// left out is in the catalog: the refusal says its strings were left out, not that it is missing.
    func testARefusedCatalogListsWhatItLeftOutAndTheFix() throws {
        let leftOut = URL(fileURLWithPath: Self.keySource).deletingLastPathComponent()
            .appendingPathComponent("SourceLeftOut.xcstrings").path
        for flags in [[], ["--skip-invalid"]] {
            let w = try Workspace()
            XCTAssertEqual(try w.rollout("init").status, 0)
            let refused = try w.rollout(
                ["pack", "import", leftOut, "--content-version", "1", "--min-app-version", "4.0"] + flags)
            XCTAssertEqual(refused.status, 65, refused.output)
            let first = refused.stderr.split(separator: "\n").first.map(String.init) ?? ""
            XCTAssertTrue(first.contains("source locale en") && first.contains("--source-locale"), first)
            XCTAssertFalse(first.contains("not in the catalog"), first)
            XCTAssertTrue(
                refused.stderr.contains(
                    "left out en Score: %5d: %5d: a width of 5 pads it, which the ICU form cannot keep"),
                refused.stderr)
            XCTAssertTrue(refused.stderr.contains("left out de Welcome back: marked shouldTranslate false"))

            let noVersion = try w.rollout(["pack", "import", Self.keySource, "--content-version", "1"] + flags)
            XCTAssertEqual(noVersion.status, 64, noVersion.output)
            XCTAssertTrue(
                noVersion.stderr.split(separator: "\n").first?.contains("--min-app-version") == true, noVersion.stderr)
            for line in [
                "left out de profile.edit: needs review", "left out en app.name: marked shouldTranslate false",
                "left out fr greeting %@: not translated",
            ] {
                XCTAssertTrue(noVersion.stderr.contains(line), "\(line) in \(noVersion.stderr)")
            }
        }
    }

    /// Through `rollout device get`, with the app's bundled strings as Xcode builds them from the
    /// catalog: every string a locale has a value for (and every key in the development language)
    /// shows what the app shows, imported or left out (a left-out translation shows the bundle's).
    func testADeviceShowsWhatTheAppBuiltFromTheCatalogShows() throws {
        let (w, _) = try importCatalog(Self.keySource)
        for id in ["de@1", "en@1", "fr@1", "ja@1"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
        let key = try XCTUnwrap(
            try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key"), "--json"))["publicKey"]
                as? String)
        XCTAssertEqual(
            try w.rollout("publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("signing.key")).status, 0)
        let built = BundledStrings(xcstrings: URL(fileURLWithPath: Self.keySource), device: "other")
        XCTAssertEqual(built.problems, [])
        for (locale, strings) in built.strings {
            let data = try JSONSerialization.data(withJSONObject: strings, options: [.sortedKeys])
            try w.scratch.write("bundled/\(locale).json", String(decoding: data, as: UTF8.self))
        }
        let catalog = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.keySource)))
                as? [String: Any])
        let entries = try XCTUnwrap(catalog["strings"] as? [String: [String: Any]])
        var checked = 0
        for (language, device, region) in [
            ("en", "en-US", "US"), ("de", "de-DE", "DE"), ("fr", "fr-FR", "FR"), ("ja", "ja-JP", "JP"),
        ] {
            let phone = [
                "device", "--state", w.scratch.path("devices/\(device)"), "--site", w.scratch.path("site"),
                "--public-key", key, "--bundled", w.scratch.path("bundled"), "--locale", device, "--region", region,
                "--app-version", "4.8.1",
            ]
            XCTAssertEqual(try w.rollout(phone + ["refresh", "--force"]).status, 0)
            XCTAssertEqual(try w.rollout(phone + ["activate"]).status, 0)
            for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
                for count in ["1", "3"] {
                    guard let expected = xcodeText(entry, key: name, language: language, count: count) else { continue }
                    let shown = try w.rollout(phone + ["get", name, "--arg", "0=\(count)"])
                    XCTAssertEqual(shown.status, 0, shown.output)
                    XCTAssertEqual(
                        shown.stdout.trimmingCharacters(in: .newlines), expected, "\(device) \(name) with \(count)")
                    checked += 1
                }
            }
        }
        XCTAssertEqual(checked, 2 * (11 + 8 + 5 + 4), "every key in en, and each translation with a value")
    }

    /// What an app built from the catalog shows in `language` for `key` with one argument `count`,
    /// written from Xcode's rules (independently of the importer): the localization's value in any
    /// state, its plural form for `count`, or in the development language (en) the key itself.
    /// nil when `language` has no value and is not the development language.
    private func xcodeText(_ entry: [String: Any], key: String, language: String, count: String) -> String? {
        guard let localization = (entry["localizations"] as? [String: Any])?[language] as? [String: Any] else {
            return language == "en" ? referencePrintf(key, [count]) : nil
        }
        if let value = (localization["stringUnit"] as? [String: Any])?["value"] as? String {
            return referencePrintf(value, [count], language: language)
        }
        guard let forms = (localization["variations"] as? [String: Any])?["plural"] as? [String: Any] else {
            return nil
        }
        let category = language != "ja" && count == "1" ? "one" : "other"
        let form = (forms[category] ?? forms["other"]) as? [String: Any]
        return ((form?["stringUnit"] as? [String: Any])?["value"] as? String).map {
            referencePrintf($0, [count], language: language)
        }
    }
}
