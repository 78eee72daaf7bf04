import Foundation
import XCTest

@testable import RolloutClient

/// rollout pack import of an Android res/ tree shaped like real apps' (Tests/Fixtures/import/
/// android-shapes): what the device shows from the imported ICU text is what Android shows from the
/// resource (docs/import.md, "Android").
final class ImportAndroidTests: XCTestCase {
    static let res = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/import/android-shapes/res").path

    private func imported() throws -> (Workspace, [String: Any]) {
        try importCatalog(Self.res, ["--source-locale", "en"])
    }

    func testApostrophesBracesAndNumbersShowAsAndroidShowsThem() throws {
        let (w, _) = try imported()
        let en = try packStrings(w, "en@1")
        let fr = try packStrings(w, "fr@1")
        let ca = try packStrings(w, "ca@1")
        // (stored text, the value as aapt compiles it, arguments): Android shows String.format of it (referencePrintf).
        let cases: [(String?, String, [String], String)] = [
            (fr["minutes"], "qu'%1$d minute pour l'épisode", ["1"], "fr"),
            (ca["of_count"], "d'%d", ["3"], "ca"),
            (ca["quoted"], "'%1$s'", ["Ada"], "ca"),
            (ca["braces"], "Feu servir {claus} per a l'%1$s", ["app"], "ca"),
            (fr["offline"], "Vous êtes hors ligne, c'est l'heure", [], "fr"),
            (en["offline"], "You're offline, it's fine", [], "en"),
            (en["braces"], "Use {curly} braces for %1$s", ["x"], "en"),
            (en["progress"], "%1$.2f MB of %2$.1f MB", ["1.5", "20"], "en"),
            (fr["progress"], "%1$.2f Mo sur %2$.1f Mo", ["1.5", "20"], "fr"),
            (en["sale"], "Save 50%% with %1$s", ["Ada"], "en"),
            (en["two_args"], "%s and %s", ["tea", "cake"], "en"),
            (en["lines"], "Line one\nLine two%nend", [], "en"),
            (en["pay"], "Pay %1$s", ["$3"], "en"),
            (en["joined"], "<b>%1$s</b> joined", ["Ada"], "en"),
        ]
        for (stored, value, args, language) in cases {
            XCTAssertEqual(
                deviceText(stored, args, language: language),
                referencePrintf(value, args, java: true, language: language),
                "\(value) stored as \(stored ?? "nothing")")
        }
        XCTAssertEqual(fr["minutes"], "qu''{0, number} minute pour l''épisode", "the number is not quoted away")
        XCTAssertEqual(en["progress"], "{0, number, ::.00} MB of {1, number, ::.0} MB")
        XCTAssertEqual(en["markup"], "<b>Bold</b> text", "escaped markup is text, for Html.fromHtml")
        XCTAssertEqual(
            en["spaces"], "Many spaces  kept   here ", "aapt collapses spaces outside quotes, keeps them inside")
        XCTAssertEqual(
            deviceText(en["not_formatted"], ["x"], language: "en"), "100%% of %s",
            "formatted=\"false\": not a format string, every % shown as written")
        XCTAssertEqual(en["percent"], "100% sure", "a % that starts no conversion is text")
        XCTAssertEqual(en["tablet"], "Phone text", "the default product's text")
        XCTAssertEqual(
            fr["ready"], "Prêt\u{A0}? C''est parti\u{A0}!",
            "aapt collapses ASCII white space only: French no-break spaces are text")
    }

    func testLegacyAndTaggedFoldersAreLocalesAndQualifiersAreNot() throws {
        let (w, report) = try imported()
        let packs = (report["added"] as? [[String: Any]])?.compactMap { $0["pack"] as? String }
        XCTAssertEqual(
            packs, ["ca@1", "en@1", "es-419@1", "fr@1", "he@1", "id@1", "pl@1", "pt-BR@1", "sr-Latn@1", "yi@1"],
            "iw, in, ji are he, id, yi; night, v21, land, sw600dp and the pseudolocales are not translations")
        XCTAssertEqual(try packStrings(w, "he@1")["minutes"], "{0, number} דקה לפרק")
        XCTAssertEqual(
            try w.json(try w.rollout("pack", "show", "pt-BR@1", "--json"))["fallbackLocale"] as? String, "en")
    }

    func testWhatCannotBeKeptIsLeftOutWithItsReason() throws {
        let (w, report) = try imported()
        let skipped = skippedEntries(report)
        XCTAssertEqual(
            skipped,
            [
                "en app_name: marked translatable=\"false\"",
                "en hex: %1$x: a hexadecimal or octal number, which the ICU form cannot keep",
                "en padded: %05d: the flag 0 changes how it is written, which the ICU form cannot keep",
                "en tablet: the variant for product \"tablet\"; a build for it is not what devices get by default",
                "en title_ref: a reference to @string/minutes, not text",
                "fr episodes: its plural forms (one) have no \"other\", the form every count falls back to",
            ])
        let en = try packStrings(w, "en@1")
        let pl = try packStrings(w, "pl@1")
        XCTAssertEqual(en["episodes"], "{0, plural, one {# episode} other {# episodes}}")
        // Polish whole numbers are one, few or many: Android never asks for other, so many stands in.
        XCTAssertEqual(
            pl["episodes"], "{0, plural, one {# odcinek} few {# odcinki} many {# odcinków} other {# odcinków}}")
        for n in [1, 3, 5, 22, 25] {
            let form =
                n == 1
                ? "odcinek" : [2, 3, 4].contains(n % 10) && !(12...14).contains(n % 100) ? "odcinki" : "odcinków"
            XCTAssertEqual(deviceText(pl["episodes"], ["\(n)"], language: "pl"), "\(n) \(form)")
        }
    }

    /// The folders that are not a locale are named in the report, never dropped silently.
    func testFoldersLeftOutAreListed() throws {
        let (_, report) = try imported()
        let files = (report["skippedFiles"] as? [[String: String]] ?? []).compactMap {
            $0["path"].map { URL(fileURLWithPath: $0).lastPathComponent }
        }.sorted()
        XCTAssertEqual(
            files, ["values-ar-rXB", "values-en-rXA", "values-land", "values-night", "values-sw600dp", "values-v21"],
            "\(report)")
    }
}
