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

/// What `--skip-invalid` leaves out is judged against what is kept (issue 30, class 9); what was
/// left out is listed even when the import is refused; and `--json` lists it in one order.
final class ImportLeftOutTests: XCTestCase {
    static let fixtures = ImportTests.fixtures

    /// pt's greet renames {{name}} and is left out; pt-BR's greet matches en's, which is what pt-BR
    /// falls back to once pt's is gone, so it is kept; pt-BR's sync renames {{count}} and is left out.
    func testAStringIsJudgedAgainstWhatIsKeptNotAgainstWhatIsLeftOut() throws {
        let (w, report) = try importCatalog(
            Self.fixtures + "/pt-parent-left-out/locales", ["--source-locale", "en", "--skip-invalid"])
        XCTAssertEqual(
            skippedEntries(report).map { $0.components(separatedBy: ":")[0] }, ["pt greet", "pt-BR sync"])
        let ptBR = try packStrings(w, "pt-BR@1")
        XCTAssertEqual(
            ptBR["greet"], "Olá, {name}!", "valid against en, what it is compared with once pt's is left out")
        XCTAssertNil(ptBR["sync"])
        XCTAssertEqual(try packStrings(w, "pt@1").keys.sorted(), ["bye", "sync"])
        XCTAssertEqual(
            try w.json(try w.rollout("pack", "show", "pt-BR@1", "--json"))["fallbackLocale"] as? String, "pt")
        // A device on pt-BR shows pt-BR's greet; on pt, en's.
        XCTAssertEqual(deviceText(ptBR["greet"], [], language: "pt").map { $0.hasPrefix("Olá") }, true)
    }

    /// A catalog whose import lint refuses: one string the importer leaves out ($t nesting), one
    /// lint refuses (a renamed placeholder).
    private func refusedCatalog(_ w: Workspace) throws -> String {
        _ = try w.scratch.write(
            "refused/en/translation.json", #"{"greet": "Hello {{name}}", "bye": "Bye", "nested": "$t(bye)!"}"#)
        _ = try w.scratch.write(
            "refused/tr/translation.json", #"{"greet": "Merhaba {{isim}}", "bye": "Hoşça kal", "nested": "$t(bye)!"}"#)
        _ = try w.scratch.write("refused/README.md", "translations")
        return w.scratch.path("refused")
    }

    func testARefusalSaysWhatGetsPastItFirstAndStillListsWhatWasLeftOut() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let path = try refusedCatalog(w)
        let arguments = ["pack", "import", path, "--content-version", "1", "--min-app-version", "4.0"]
        let refused = try w.rollout(arguments)
        XCTAssertEqual(refused.status, 65, refused.output)
        let lines = refused.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines.first,
            "rollout: refused, nothing was stored: pass --skip-invalid to leave out the 1 string(s) lint refuses and import the rest"
        )
        XCTAssertTrue(lines.contains { $0.hasPrefix("  tr@1 \"greet\": placeholders differ") }, refused.stderr)
        XCTAssertTrue(lines.contains("left out 2 string(s) and 1 file(s):"), refused.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("left out ") && $0.contains("README.md: ") }, refused.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("left out en nested: ") }, refused.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("left out tr nested: ") }, refused.stderr)
        // --json: one error document, its message the same.
        let json = try w.rollout(arguments + ["--json"])
        XCTAssertEqual(json.status, 65)
        let error =
            (try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: Any])?["error"]
            as? [String: Any]
        let message = try XCTUnwrap(error?["message"] as? String, json.output)
        XCTAssertTrue(message.hasPrefix("refused, nothing was stored: pass --skip-invalid"), message)
        XCTAssertTrue(message.contains("\nleft out tr nested: "), message)
        // The same with --dry-run, which lints and stores nothing.
        let dry = try w.rollout(arguments + ["--dry-run"])
        XCTAssertEqual(dry.status, 65)
        XCTAssertEqual(dry.stderr.split(separator: "\n").first.map(String.init), lines.first)
        XCTAssertTrue(dry.stderr.contains("left out tr nested: "), dry.stderr)
    }

    /// `skipped` and `skippedFiles` in one order, whatever order the reader found them in and lint
    /// refused them in: locale, key, reason; path, reason.
    func testJSONListsWhatWasLeftOutInOneOrder() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        _ = try w.scratch.write(
            "order/en/translation.json", #"{"alpha": "A {{n}}", "mid": "M", "zeta": "Z", "omega": "O"}"#)
        for locale in ["tr", "de", "fr"] {
            _ = try w.scratch.write(
                "order/\(locale)/translation.json",
                #"{"alpha": "A {{x}}", "mid": "M", "zeta": "$t(mid)", "omega": "{{v, number}}"}"#)
        }
        _ = try w.scratch.write("order/README.md", "x")
        _ = try w.scratch.write("order/.gitignore", "x")
        _ = try w.scratch.write("order/tr/notes.txt", "x")
        let report = try w.json(
            try w.rollout(
                "pack", "import", w.scratch.path("order"), "--content-version", "1", "--min-app-version", "4.0",
                "--source-locale", "en", "--skip-invalid", "--json"))
        let skipped = (report["skipped"] as? [[String: String]] ?? []).map {
            [$0["locale"] ?? "", $0["key"] ?? "", $0["reason"] ?? ""]
        }
        XCTAssertEqual(skipped.count, 9, "\(skipped)")
        XCTAssertEqual(skipped, skipped.sorted { $0.lexicographicallyPrecedes($1) }, "\(skipped)")
        XCTAssertEqual(skipped.map { "\($0[0]) \($0[1])" }.first, "de alpha")
        let files = (report["skippedFiles"] as? [[String: String]] ?? []).map { $0["path"] ?? "" }
        XCTAssertEqual(files.count, 3, "\(files)")
        XCTAssertEqual(files, files.sorted())
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
