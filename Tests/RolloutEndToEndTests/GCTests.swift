import Foundation
import XCTest

/// Storage: rollout packs its own loose objects (`rollout gc`, and on its own after enough writes)
/// without losing or changing anything, even while other processes write.
final class GCTests: XCTestCase {
    func testGCPacksTheLooseObjectsOf300PackAddsAndEveryPackReadsBackTheSame() throws {
        let w = try Workspace()
        try w.initWithExamples()
        for version in 19..<319 {
            let added = try w.rollout("pack", "add", try w.packVariant(of: "tr-TR@18", version: version), env: ["ROLLOUT_PACK_THRESHOLD": "1000000"])
            XCTAssertEqual(added.status, 0, added.output)
        }
        let before = try looseCount(w)
        XCTAssertGreaterThan(before, 300 * 3, "each pack add writes a blob, trees and a commit")
        let archiveBefore = try w.git("archive", "--format=tar", "main").stdout

        let gc = try w.rollout("gc", "--json")
        XCTAssertEqual(gc.status, 0, gc.output)

        XCTAssertLessThan(try looseCount(w), before / 10, "the loose objects went into the pack")
        let fsck = try w.git("fsck", "--full", "--strict", "--no-dangling")
        XCTAssertEqual(fsck.status, 0, fsck.output)
        XCTAssertEqual(try w.git("archive", "--format=tar", "main").stdout, archiveBefore, "every stored file reads back byte for byte")
        XCTAssertEqual(try w.rollout("verify").status, 0)
        XCTAssertEqual(try w.rollout("pack", "show", "tr-TR@318").status, 0)
    }

    func testWritesPackOnTheirOwnOnceLooseObjectsPassTheThreshold() throws {
        let w = try Workspace()
        try w.initWithExamples()
        for version in 19..<59 {
            XCTAssertEqual(try w.rollout("pack", "add", try w.packVariant(of: "tr-TR@18", version: version), env: ["ROLLOUT_PACK_THRESHOLD": "100"]).status, 0)
        }
        let packs = try FileManager.default.contentsOfDirectory(atPath: w.repository + "/objects/pack").filter { $0.hasSuffix(".pack") }
        XCTAssertEqual(packs.count, 1, "a write packed the loose objects, and each pack replaced the one before: \(packs)")
        let counts = try w.git("count-objects", "-v").stdout
        // The estimate samples 16 of 256 directories, so allow twice the threshold.
        XCTAssertLessThan(try looseCount(w), 200, counts)
        try w.assertFsckClean()
    }

    func testGCRacingConcurrentPackAddsLosesNothing() throws {
        let w = try Workspace()
        try w.initWithExamples()
        // Each writer adds its own locale, version after version (a locale's versions only go up).
        let locales = ["de-DE", "fr-FR", "es-ES", "it-IT"]
        let writers = locales.count, versionsEach = 12
        let files = try locales.map { locale in
            try (1...versionsEach).map { version in
                try w.scratch.write("\(locale)@\(version).json", """
                    {"locale": "\(locale)", "schemaVersion": 2, "contentVersion": \(version), "minAppVersion": "4.0",
                     "fallbackLocale": "en-US", "strings": {"home.title": "\(locale) title \(version)"}}
                    """)
            }
        }
        let run = w.rollout
        let paths = files
        let outcomes = simultaneously(writers + 2) { index -> [(status: Int32, output: String)] in
            if index < writers {
                return paths[index].map { (try? run(["pack", "add", $0], nil, ["ROLLOUT_PACK_THRESHOLD": "30"])).map { ($0.status, $0.output) } ?? (-1, "") }
            }
            // Two collectors, over and over: a busy one says so (75) and changes nothing.
            return (0..<8).map { _ in (try? run(["gc"], nil, [:])).map { ($0.status, $0.output) } ?? (-1, "") }
        }
        for (index, runs) in outcomes.enumerated() {
            for run in runs where !(run.status == 0 || (index >= writers && run.status == 75)) {
                XCTFail("process \(index) exited \(run.status): \(run.output)")
            }
        }
        let listing = try w.json(try w.rollout("pack", "list", "--json"))
        let ids = Set((listing["packs"] as? [[String: Any]] ?? []).compactMap { $0["pack"] as? String })
        for locale in locales {
            for version in 1...versionsEach { XCTAssertTrue(ids.contains("\(locale)@\(version)"), "\(locale)@\(version) was lost") }
        }
        let fsck = try w.git("fsck", "--full", "--strict", "--no-dangling")
        XCTAssertEqual(fsck.status, 0, fsck.output)
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    /// `git count-objects -v`'s `count:` (loose objects).
    private func looseCount(_ w: Workspace) throws -> Int {
        let lines = try w.git("count-objects", "-v").stdout.split(separator: "\n")
        let count = lines.first { $0.hasPrefix("count: ") }.flatMap { Int($0.dropFirst("count: ".count)) }
        return try XCTUnwrap(count)
    }
}
