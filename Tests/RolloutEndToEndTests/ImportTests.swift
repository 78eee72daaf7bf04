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
        XCTAssertEqual(en["files"], "{count, plural, one {# file} other {# files}}")
        XCTAssertEqual(
            ar["files"],
            "{count, plural, zero {لا ملفات} one {ملف واحد} two {ملفان} few {# ملفات} many {# ملفًا} other {# ملف}}")
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
}
