import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// Blobs written straight into a pack (metrics ingest's rollups): git reads them, `git fsck` finds
/// the pack whole, the ids are git's, and a dry run or an abandoned writer leaves objects/ as it was.
final class BlobPackWriterTests: XCTestCase {
    let actor = try! Actor.parse("Tester <tester@example.com>", from: "test")
    let time = Timestamp(iso8601: "2026-12-01T09:00:00Z")!
    var path = ""

    override func setUpWithError() throws {
        path = NSTemporaryDirectory() + "blob-pack-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: path)
    }

    private func git(_ arguments: String...) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = ["--git-dir", path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private func packFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path + "/objects/pack").filter { !$0.hasPrefix(".") }
            .sorted()
    }

    /// Blobs of every size class the entry header encodes (0, 15, 16, 2047, 2048 bytes and a
    /// megabyte of random bytes, which zlib cannot shrink), committed by a change that names them.
    func testBlobsInTheNewPackAreGitsBlobsAndTheRepositoryChecksClean() throws {
        let (repository, _) = try PackRepository.create(
            at: path, files: [("README.md", Array("hello\n".utf8))], actor: actor, time: time)
        var random = SystemRandomNumberGenerator()
        var contents: [[UInt8]] =
            [[], Array("x".utf8), [UInt8](repeating: 7, count: 15), [UInt8](repeating: 8, count: 16)]
            + [2047, 2048, 1 << 20].map { size in (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) } }
        contents.append(contents[4])  // the same bytes again: stored once
        let applied = try repository.apply(actor: actor, time: { self.time }) { snapshot in
            let pack = snapshot.blobPack()
            let blobs = try contents.enumerated().map { ("data/\($0.offset).bin", try pack.add($0.element)) }
            try pack.finish()
            return (Change(summary: "data", trailers: [(.action, "note")], writes: [], blobs: blobs), blobs)
        }
        for (index, content) in contents.enumerated() {
            let (id, blob) = (applied.result[index].1, applied.result[index].0)
            let file = path + "-\(index).bin"
            defer { try? FileManager.default.removeItem(atPath: file) }
            XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(content)))
            XCTAssertEqual(try git("hash-object", file).output, id.hex + "\n", "\(blob): git's id")
            XCTAssertEqual(try git("cat-file", "-s", "main:\(blob)").output, "\(content.count)\n")
        }
        let fsck = try git("fsck", "--strict", "--no-dangling")
        XCTAssertEqual(fsck.status, 0, fsck.output)
        let verified = try git(
            "verify-pack", "-v", path + "/objects/pack/" + (try packFiles().first { $0.hasSuffix(".idx") })!)
        XCTAssertEqual(verified.status, 0, verified.output)
        XCTAssertFalse(verified.output.contains(" delta "), "no blob is stored as a delta")
        XCTAssertTrue(verified.output.contains("non delta: 7 objects"), verified.output)
    }

    func testADryRunAndAnAbandonedWriterWriteNothing() throws {
        let (repository, _) = try PackRepository.create(
            at: path, files: [("README.md", Array("hello\n".utf8))], actor: actor, time: time)
        let before = try packFiles()
        repository.dryRun = true
        let dry = try repository.apply(actor: actor, time: { self.time }) { snapshot in
            let pack = snapshot.blobPack()
            let id = try pack.add(Array("counts\n".utf8))
            try pack.finish()
            return (nil as Change?, id)
        }
        XCTAssertEqual(dry.result.hex, "112bd2d3546bee83c0ea8ae5e15c2c470bb9db5b", "git hash-object of counts\\n")
        repository.dryRun = false
        struct Refused: Error {}
        XCTAssertThrowsError(
            try repository.apply(actor: actor, time: { self.time }) { snapshot -> (Change?, Void) in
                let pack = snapshot.blobPack()
                _ = try pack.add(Array("one of two\n".utf8))
                throw Refused()
            })
        XCTAssertEqual(try packFiles(), before, "nothing new in objects/pack, not even a temporary file")
    }

    /// Packs of metrics rollups are large; the packing after a write leaves them as they are.
    func testAutomaticPackingNeverMergesALargePack() {
        let packs = [
            PackFile(name: "a", objects: 5, bytes: 9 << 20, kept: false),
            PackFile(name: "b", objects: 3, bytes: 2_000, kept: false),
            PackFile(name: "c", objects: 4, bytes: 3_000, kept: false),
        ]
        XCTAssertEqual(
            Packing.packsToMerge(packs, below: Packing.automaticMergeLimit, bytes: Packing.automaticMergeBytes).map(
                \.name
            )
            .sorted(), ["b", "c"])
        XCTAssertEqual(Packing.packsToMerge(packs).map(\.name).sorted(), ["a", "b", "c"], "rollout gc merges them all")
    }
}
