import Foundation
import XCTest

/// Many writers, one repository: every change lands exactly once, history stays linear, fsck clean.
// Processes: writers in several processes at once, each with its own libgit2 and locks.
final class ConcurrencyTests: XCTestCase {
    func testEightProcessesAddingDifferentPacksAtOnceAllLand() throws {
        let w = try Workspace(process: true)
        XCTAssertEqual(try w.rollout("init").status, 0)
        XCTAssertEqual(try w.rollout("pack", "add", Fixtures.examplePack("en-US@1")).status, 0)

        let locales = ["de-DE", "fr-FR", "es-ES", "it-IT", "pt-BR", "ja-JP", "ko-KR", "ar-EG"]
        var files: [String] = []
        for locale in locales {
            files.append(
                try w.scratch.write(
                    "\(locale).json",
                    """
                    {"locale": "\(locale)", "schemaVersion": 2, "contentVersion": 1, "minAppVersion": "4.0",
                     "fallbackLocale": "en-US",
                     "strings": {"home.title": "\(locale) title", "update.body": "\(locale) {{version}}"}}
                    """))
        }
        let before = try w.stateTip()
        let run = w.rollout
        let paths = files
        let results = simultaneously(locales.count) { index in try? run(["pack", "add", paths[index]], nil, [:]) }
        for (locale, result) in zip(locales, results) {
            let result = try XCTUnwrap(result, locale)
            XCTAssertEqual(result.status, 0, "\(locale): \(result.output)")
        }

        let listing = try w.json(try w.rollout("pack", "list", "--json"))
        let ids = Set((listing["packs"] as? [[String: Any]] ?? []).compactMap { $0["pack"] as? String })
        XCTAssertEqual(ids, Set(locales.map { "\($0)@1" } + ["en-US@1"]))

        // Linear: every commit after `before` has exactly one parent, and there are exactly eight.
        let parents = try w.git("rev-list", "--parents", "\(before)..main").stdout.split(separator: "\n")
        XCTAssertEqual(parents.count, 8)
        XCTAssertTrue(parents.allSatisfy { $0.split(separator: " ").count == 2 }, parents.joined(separator: "\n"))
        let added = try w.git("log", "--format=%(trailers:key=Rollout-Pack,valueonly)", "\(before)..main").stdout
            .split(separator: "\n").filter { !$0.isEmpty }.map(String.init)
        XCTAssertEqual(added.sorted(), locales.map { "\($0)@1" }.sorted(), "each pack recorded exactly once")
        try w.assertFsckClean()
    }

    func testTwoWritersRacingOnTheSameNewVersionAgreeOnOneWinner() throws {
        let w = try Workspace(process: true)
        try w.initWithExamples()
        // Two different packs both claiming tr-TR@19: exactly one may land; the other is refused as immutable.
        let first = try w.scratch.write("a.json", try patched(title: "Hoş geldiniz"))
        let second = try w.scratch.write("b.json", try patched(title: "Selam"))
        let run = w.rollout
        let files = [first, second]
        let statuses = simultaneously(2) { index in (try? run(["pack", "add", files[index]], nil, [:]))?.status ?? -1 }
        XCTAssertEqual(statuses.sorted(), [0, 65])
        XCTAssertEqual(try w.git("rev-list", "--count", "main").stdout, "3\n")
    }

    private func patched(title: String) throws -> String {
        var object = try XCTUnwrap(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("tr-TR@18")))) as? [String: Any])
        object["checksum"] = nil
        object["contentVersion"] = 19
        var strings = try XCTUnwrap(object["strings"] as? [String: String])
        strings["home.title"] = title
        object["strings"] = strings
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }
}
