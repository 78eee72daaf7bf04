import Foundation
import XCTest

@testable import RolloutClient

/// rollout pack import of a String Catalog shaped like real apps' (Tests/Fixtures/import/
/// xcstrings-shapes): what the device shows from the imported ICU text is what the app shows from
/// the catalog through Foundation (docs/import.md, "String Catalogs").
final class ImportStringCatalogTests: XCTestCase {
    static let catalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/import/xcstrings-shapes/Localizable.xcstrings").path

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
        XCTAssertEqual(
            skipped,
            [
                "en Don't stop: no en value: the key is the text the app shows",
                "en Padded %3d: %3d: a width of 3 pads it, which the ICU form cannot keep",
            ])
        XCTAssertEqual(try packStrings(w, "ja@1")["%lld items"], "{0, plural, other {# 個}}")
        let ru = try packStrings(w, "ru@1")["%lld items"]
        XCTAssertEqual(ru, "{0, plural, one {# элемент} few {# элемента} many {# элементов} other {# элементов}}")
        XCTAssertEqual(deviceText(ru, ["22"], language: "ru"), "22 элемента")
    }
}
