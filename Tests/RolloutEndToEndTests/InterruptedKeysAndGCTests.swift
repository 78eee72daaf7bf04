import Foundation
import XCTest

/// Issue 31, minor items: what a killed `keys rotate` or `gc` leaves does not block the next run,
/// and `keys init` makes its folder private whatever the umask.
final class InterruptedKeysAndGCTests: XCTestCase {
    /// A process id that no process has now: a child that already exited.
    private func deadPid() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    private func mode(_ path: String) -> mode_t {
        var status = stat()
        XCTAssertEqual(stat(path, &status), 0, path)
        return status.st_mode & 0o777
    }

    /// What a `keys rotate` killed between writing its key and committing leaves (the temporary
    /// files of LocalFile beside `publish-2.key`, and the key itself, or a cut one): the temporary
    /// files go, and the refusal to overwrite the key says why it is there and the `rm` that clears it.
    func testAKilledRotateLeavesNothingThatBlocksWithoutAHint() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        XCTAssertEqual(try w.rollout("keys", "init", "--out", "keys").status, 0)
        let keys = w.work + "/keys"
        let dead = try deadPid()
        let temporaries = [".publish-2.key.tmp-\(dead)-1", ".publish-2.key.tmp-\(dead)-2"]
        for name in temporaries { FileManager.default.createFile(atPath: keys + "/" + name, contents: Data()) }
        // Another process's, still running (this one): kept.
        let live = ".publish-2.key.tmp-\(getpid())-3"
        FileManager.default.createFile(atPath: keys + "/" + live, contents: Data())

        for (content, why) in [(nil, "no key list of this repository names"), ("", "is not a whole private key")] {
            if let content {
                try Data(content.utf8).write(to: URL(fileURLWithPath: keys + "/publish-2.key"))
            } else {
                XCTAssertEqual(try w.rollout("keys", "generate", "--out", "keys/publish-2.key").status, 0)
            }
            let blocked = try w.rollout("keys", "rotate", "--root", "keys/root.key")
            XCTAssertEqual(blocked.status, 64, blocked.output)
            XCTAssertTrue(blocked.stderr.contains(why), blocked.output)
            XCTAssertTrue(blocked.stderr.contains("rm keys/publish-2.key"), blocked.output)
            for name in temporaries { XCTAssertFalse(FileManager.default.fileExists(atPath: keys + "/" + name)) }
            XCTAssertTrue(FileManager.default.fileExists(atPath: keys + "/" + live))
            try FileManager.default.removeItem(atPath: keys + "/publish-2.key")
        }
        let rotated = try w.rollout("keys", "rotate", "--root", "keys/root.key")
        XCTAssertEqual(rotated.status, 0, rotated.output)
        // A key the list names is still refused plainly: it is in use, not a leftover.
        let again = try w.rollout("keys", "rotate", "--root", "keys/root.key", "--out", "keys/publish-2.key")
        XCTAssertEqual(again.status, 64, again.output)
        XCTAssertFalse(again.stderr.contains("no key list"), again.output)
    }

    /// Under umask 000 the key folder (and a folder made above it) is 0700, the keys 0600; a folder
    /// that was there keeps its mode.
    func testKeysInitMakesItsFolderPrivateUnderAnyUmask() throws {
        let w = try Workspace(process: true)
        XCTAssertEqual(try w.rollout("init").status, 0)
        let result = try Processes.run(
            "/bin/sh",
            [
                "-c", "umask 000 && exec \"$0\" \"$@\"", Processes.rolloutBinary, "keys", "init", "--out",
                "secrets/keys",
            ], in: w.work, environment: w.environment)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(mode(w.work + "/secrets"), 0o700)
        XCTAssertEqual(mode(w.work + "/secrets/keys"), 0o700)
        XCTAssertEqual(mode(w.work + "/secrets/keys/root.key"), 0o600)
        XCTAssertEqual(mode(w.work + "/secrets/keys/publish-1.key"), 0o600)
    }

    /// The files a killed `gc` (or any killed libgit2 write) leaves in objects/ go at the next `gc`
    /// once they are an hour old; a fresh one (a writer still at work) stays.
    func testGCRemovesWhatKilledWritesLeft() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("gc").status, 0)
        let objects = w.repository + "/objects"
        let stale = [
            "objects/pack/pack_git2_0123456789abcdef",
            "objects/pack/pack-\(String(repeating: "a", count: 40)).idx.lock",
            "objects/tmp_object_git2_AbCdEf", "objects/4f/tmp_object_git2_XyZ123",
        ]
        let fresh = ["objects/pack/pack_git2_fedcba9876543210", "objects/tmp_object_git2_fresh1"]
        try FileManager.default.createDirectory(atPath: objects + "/4f", withIntermediateDirectories: true)
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        for path in stale + fresh {
            FileManager.default.createFile(atPath: w.repository + "/" + path, contents: Data("partial".utf8))
        }
        for path in stale {
            try FileManager.default.setAttributes(
                [.modificationDate: twoHoursAgo], ofItemAtPath: w.repository + "/" + path)
        }
        let gc = try w.rollout("gc", "--json")
        XCTAssertEqual(gc.status, 0, gc.output)
        let json = try w.json(gc)
        XCTAssertEqual((json["removedTemporaries"] as? [String])?.sorted(), stale.sorted())
        for path in stale { XCTAssertFalse(FileManager.default.fileExists(atPath: w.repository + "/" + path), path) }
        for path in fresh { XCTAssertTrue(FileManager.default.fileExists(atPath: w.repository + "/" + path), path) }
        XCTAssertEqual(try w.rollout("verify").status, 0)
        try w.assertFsckClean()
    }
}
