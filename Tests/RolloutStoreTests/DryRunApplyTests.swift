import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// The one place every dry run stops (`PackRepository.dryRun`), without a process: `apply` hands the
/// operation the tip once, returns the change it built, and writes no object, ref or file.
/// `DryRunTests` drives every command's dry run end to end.
final class DryRunApplyTests: XCTestCase {
    let actor = try! Actor.parse("Tester <tester@example.com>", from: "test")
    let time = Timestamp(iso8601: "2026-12-01T09:00:00Z")!

    /// Every file under `path`, by relative path.
    func files(_ path: String) -> [String: Data] {
        var found: [String: Data] = [:]
        let walk = FileManager.default.enumerator(atPath: path)
        while let name = walk?.nextObject() as? String {
            found[name] = FileManager.default.contents(atPath: path + "/" + name) ?? Data("(folder)".utf8)
        }
        return found
    }

    func testADryRunReturnsTheChangeAndWritesNothing() throws {
        let path = NSTemporaryDirectory() + "dry-run-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (repository, first) = try PackRepository.create(
            at: path, files: [("README.md", Array("hello\n".utf8))], actor: actor, time: time)
        repository.packThreshold = 0
        let change = Change(
            summary: "note", trailers: [(.action, "note")], writes: [("notes/1.txt", Array("note\n".utf8))])
        let before = files(path)
        repository.dryRun = true
        var runs = 0
        let dry = try repository.apply(actor: actor, time: { self.time }) { snapshot in
            runs += 1
            XCTAssertEqual(snapshot.commit, first, "the operation sees the tip")
            return (change, "decided")
        }
        XCTAssertEqual(runs, 1)
        XCTAssertTrue(dry.dryRun)
        XCTAssertNil(dry.commit)
        XCTAssertEqual(dry.result, "decided")
        XCTAssertEqual(dry.change?.summary, "note")
        XCTAssertEqual(dry.change?.writes.map(\.path), ["notes/1.txt"])
        XCTAssertEqual(files(path), before, "no object, no ref, no pack, no config")
        XCTAssertEqual(try repository.stateTip(), first)

        repository.dryRun = false
        let real = try repository.apply(actor: actor, time: { self.time }) { _ in (change, "decided") }
        XCTAssertFalse(real.dryRun)
        XCTAssertNotNil(real.commit)
        XCTAssertEqual(real.change?.summary, dry.change?.summary)
        XCTAssertEqual(try repository.stateTip(), real.commit)
    }
}
