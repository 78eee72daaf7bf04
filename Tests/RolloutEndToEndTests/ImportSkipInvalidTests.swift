import Foundation
import XCTest

/// `pack import --skip-invalid` (docs/import.md, "All or nothing, or --skip-invalid"): every string
/// lint refuses is left out and listed with its rule, the rest is imported; without the flag,
/// nothing is stored.
final class ImportSkipInvalidTests: XCTestCase {
    private func catalog(_ w: Workspace) throws -> String {
        _ = try w.scratch.write(
            "locales/en/translation.json",
            #"{"greet": "Hello {{name}}", "bye": "Bye", "apostrophe": "It's {{count}} o'clock"}"#)
        _ = try w.scratch.write(
            "locales/tr/translation.json",
            #"{"greet": "Merhaba {{isim}}", "bye": "Hoşça kal", "apostrophe": "Saat {{count}}"}"#)
        return w.scratch.path("locales")
    }

    func testWithoutTheFlagARefusedStringStoresNothing() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let refused = try w.rollout(
            "pack", "import", try catalog(w), "--content-version", "1", "--min-app-version", "4.0", "--source-locale",
            "en")
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("greet"), refused.stderr)
        XCTAssertEqual(try w.rollout("pack", "list", "--json").stdout.contains("tr@1"), false)
    }

    func testWithTheFlagTheRestIsImportedAndEveryLeftOutStringIsListed() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let path = try catalog(w)
        let imported = try w.rollout(
            "pack", "import", path, "--content-version", "1", "--min-app-version", "4.0", "--source-locale", "en",
            "--skip-invalid")
        XCTAssertEqual(imported.status, 0, imported.output)
        XCTAssertTrue(imported.stderr.contains("left out tr greet: lint placeholders"), imported.stderr)
        let tr =
            try w.json(try w.rollout("pack", "show", "tr@1", "--strings", "--json"))["strings"] as? [String: String]
        XCTAssertEqual(tr?["bye"], "Hoşça kal")
        XCTAssertNil(tr?["greet"], "the refused string is not stored")
        let en =
            try w.json(try w.rollout("pack", "show", "en@1", "--strings", "--json"))["strings"] as? [String: String]
        XCTAssertEqual(en?["apostrophe"], "It''s {count} o''clock", "an i18next apostrophe is text")

        let json = try w.json(
            try w.rollout(
                "pack", "import", path, "--content-version", "2", "--min-app-version", "4.0", "--source-locale", "en",
                "--skip-invalid", "--dry-run", "--json"))
        let skipped = (json["skipped"] as? [[String: String]] ?? []).map { "\($0["locale"] ?? "") \($0["key"] ?? "")" }
        XCTAssertEqual(skipped, ["tr greet"])
    }
}

/// Locale folders in any case a catalog writes them, and two folders for one locale: nothing is
/// overwritten silently (docs/import.md, "Locales").
final class ImportLocaleSpellingTests: XCTestCase {
    func testLowerCaseSpellingsAreLocalesAndASecondFolderForOneLocaleIsListed() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        _ = try w.scratch.write("locales/en/translation.json", #"{"title": "Title", "save": "Save"}"#)
        _ = try w.scratch.write("locales/pt-br/translation.json", #"{"title": "Título", "save": "Salvar"}"#)
        _ = try w.scratch.write("locales/pt_BR/translation.json", #"{"title": "Titulo"}"#)
        let imported = try w.json(
            try w.rollout(
                "pack", "import", w.scratch.path("locales"), "--content-version", "1", "--min-app-version", "4.0",
                "--source-locale", "en", "--json"))
        XCTAssertEqual(
            (imported["added"] as? [[String: Any]])?.compactMap { $0["pack"] as? String }, ["en@1", "pt-BR@1"])
        let skipped = (imported["skipped"] as? [[String: String]] ?? []).map { "\($0["locale"]!) \($0["key"]!)" }
        XCTAssertEqual(
            skipped, ["pt-BR title"], "the second folder's different title is listed, not written over the first")
    }
}
