import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// Packing while a reader is open (GCTests drive `rollout gc` end to end): a process that started
/// reading before a gc deleted the packs it knew keeps reading every object, old and new.
final class PackingTests: XCTestCase {
    let actor = try! Actor.parse("Tester <tester@example.com>", from: "test")
    let time = Timestamp(iso8601: "2026-12-01T09:00:00Z")!

    func testAReaderOpenedBeforeAGCKeepsReadingFromDeletedPacksAndFindsTheNewOne() throws {
        let path = NSTemporaryDirectory() + "packing-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (repository, _) = try PackRepository.create(
            at: path, files: [("README.md", Array("hello\n".utf8))], actor: actor, time: time)
        repository.packThreshold = .max
        func write(_ number: Int) throws -> ObjectID {
            let change = Change(
                summary: "note \(number)", trailers: [(.action, "note")],
                writes: [("notes/\(number).txt", Array("note \(number)\n".utf8))])
            return try repository.apply(actor: actor, time: { self.time }) { _ in (change, ()) }.commit!
        }
        func blob(_ git: GitRepository, _ commit: ObjectID, _ number: Int) throws -> String {
            let tree = try git.commit(commit).tree
            let entry = try XCTUnwrap(try git.treeEntry(tree, path: "notes/\(number).txt"))
            return String(decoding: try git.readBlob(entry.id), as: UTF8.self)
        }

        var commits = try (1...20).map(write)
        XCTAssertNotNil(try Packing.run(repository).pack)
        commits += try (21...25).map(write)
        let incremental = try XCTUnwrap(try Packing.packIfNeeded(repository, threshold: 0))
        XCTAssertEqual(incremental.packsAfter, 2, "notes 21-25 went into a second, small pack")
        XCTAssertEqual(incremental.removed, 5 * 4, "each note's commit, two trees and blob")

        // The reader has listed both packs and read note 25 from the newer; the older is not open yet.
        let reader = try GitRepository.openBare(path)
        XCTAssertEqual(try blob(reader, commits[24], 25), "note 25\n")

        commits += [try write(26)]
        let gc = try Packing.run(repository)
        XCTAssertEqual(gc.mergedPacks, 2, "both packs the reader knew are gone")
        XCTAssertEqual(gc.packsAfter, 1)
        for number in 1...26 {
            XCTAssertEqual(
                try blob(reader, commits[number - 1], number), "note \(number)\n", "note \(number) after the gc")
        }
    }

    /// The packbuilder tries deltas only between neighbours in the order of this hash (libgit2's
    /// `name_hash`), so successive versions of a locale's pack must be neighbours.
    func testTheDeltaNameHintOrdersALocalesVersionsOneAfterAnother() {
        func hash(_ path: String) -> UInt32 {
            GitRepository.deltaNameHint(path).prefix { $0 != 0 }.reduce(UInt32(0)) { hash, char in
                let c = UInt32(UInt8(bitPattern: char))
                return [9, 10, 11, 12, 13, 32].contains(c) ? hash : (hash >> 2) &+ (c << 24)
            }
        }
        // Up to 4^11 - 1; a version past that (2026120101, a date) wraps, and only loses neighbours there.
        let versions = Array(1...3000) + [999_999, 4_194_303]
        let packs = versions.map { hash("packs/tr-TR/\($0 / 1000)/\($0).json") }
        XCTAssertTrue(packs == packs.sorted(), "tr-TR@N sorts by N")
        XCTAssertEqual(Set(packs).count, packs.count)
        XCTAssertEqual(hash("packs/tr-TR/17.json"), hash("packs/tr-TR/0/17.json"), "flat or sharded, the same version")
        let records = versions.map { hash("packs/tr-TR/\($0 / 1000)/\($0).meta.json") }
        XCTAssertTrue(records == records.sorted())
        XCTAssertTrue(
            records.max()! < packs.min()! || records.min()! > packs.max()!, "records never fall between packs")
        XCTAssertEqual(
            Array(GitRepository.deltaNameHint("plans/tr-TR.json")), Array("plans/tr-TR.json".utf8CString),
            "other files keep their path")
    }

    func testPacksMergeGeometricallySoARepositoryKeepsAFewPacks() {
        func packs(_ counts: [Int]) -> [PackFile] {
            counts.enumerated().map {
                PackFile(name: "p\($0.offset)", objects: $0.element, bytes: $0.element * 100, kept: false)
            }
        }
        func merged(_ counts: [Int]) -> [Int] { Packing.packsToMerge(packs(counts)).map(\.objects).sorted() }
        XCTAssertEqual(merged([5000]), [])
        XCTAssertEqual(merged([5000, 30]), [], "a small pack beside a big one stays")
        XCTAssertEqual(merged([5000, 30, 30]), [30, 30], "two alike merge")
        XCTAssertEqual(merged([5000, 60, 30]), [], "each at least twice the smaller ones")
        XCTAssertEqual(merged([5000, 60, 30, 30]), [30, 30, 60], "a merge that reaches the next pack takes it too")
        XCTAssertEqual(merged([100, 90, 80]), [80, 90, 100], "all of them when none is twice the rest")
        var kept = packs([30, 30])
        kept[0] = PackFile(name: "keep", objects: 30, bytes: 3000, kept: true)
        XCTAssertEqual(Packing.packsToMerge(kept).count, 0, "a pack with a .keep file never merges")
        XCTAssertEqual(
            Packing.packsToMerge(packs([2500, 900, 1000]), below: 2000).map(\.objects).sorted(), [900, 1000],
            "a write leaves big packs alone")

        // Adding a pack of 30 objects at a time, 200 times, never leaves more than a handful.
        var current = packs([30])
        var most = 0
        for step in 1...200 {
            current.append(PackFile(name: "n\(step)", objects: 30, bytes: 3000, kept: false))
            let merge = Packing.packsToMerge(current)
            if !merge.isEmpty {
                current.removeAll { merge.contains($0) }
                current.append(
                    PackFile(name: "m\(step)", objects: merge.reduce(0) { $0 + $1.objects }, bytes: 0, kept: false))
            }
            most = max(most, current.count)
        }
        XCTAssertLessThanOrEqual(most, 9, "about log2(200) packs at most")
    }
}
