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
        XCTAssertFalse(packs.isEmpty, "a write packed the loose objects")
        XCTAssertLessThan(try looseCount(w), 40 * 3)
        try w.assertFsckClean()
    }

    func testGCRacingConcurrentPackAddsLosesNothing() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let writers = 4, versionsEach = 12
        var files: [[String]] = []
        for writer in 0..<writers {
            files.append(try (0..<versionsEach).map { try w.packVariant(of: "tr-TR@18", version: 100 + writer * versionsEach + $0) })
        }
        let run = w.rollout
        let paths = files
        let outcomes = simultaneously(writers + 2) { index -> [Int32] in
            if index < writers {
                return paths[index].map { (try? run(["pack", "add", $0], nil, [:]))?.status ?? -1 }
            }
            // Two collectors, over and over: a busy one says so (75) and changes nothing.
            return (0..<8).map { _ in (try? run(["gc"], nil, [:]))?.status ?? -1 }
        }
        for (index, statuses) in outcomes.enumerated() {
            XCTAssertTrue(statuses.allSatisfy { $0 == 0 || (index >= writers && $0 == 75) }, "process \(index): \(statuses)")
        }
        let listing = try w.json(try w.rollout("pack", "list", "--json"))
        let ids = Set((listing["packs"] as? [[String: Any]] ?? []).compactMap { $0["pack"] as? String })
        for version in 100..<(100 + writers * versionsEach) {
            XCTAssertTrue(ids.contains("tr-TR@\(version)"), "tr-TR@\(version) was lost")
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
