import Foundation
import XCTest

/// Issue 31, items 5 and 7: `publish` never writes through a link in the site (a link that leads
/// out of `--out` is refused before anything is written; one that stays inside is replaced by the
/// real file), and a publish that fails half way says exactly what it left: which files, what
/// devices see, and `.rollout-publish.json` naming the unfinished publish apart from the last whole one.
final class PublishSiteLinkTests: XCTestCase {
    /// tr-TR@17 the baseline, tr-TR@18 at 10%, a signing key, the site published (index sequence 1
    /// or more), then tr-TR@18 widened so the next publish has something new to write.
    private func published() throws -> (Workspace, sequence: Int) {
        let w = try Workspace()
        try w.initWithExamples()
        for id in ["en-US@1", "tr@1", "tr-TR@17"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%").status, 0)
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key")).status, 0)
        XCTAssertEqual(try publish(w).status, 0)
        let sequence = try XCTUnwrap(try indexSequence(w))
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "20%", "--force", "--reason", "t").status, 0)
        return (w, sequence)
    }

    @discardableResult
    private func publish(_ w: Workspace) throws -> RunResult {
        try w.rollout("publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("signing.key"))
    }

    private func link(_ w: Workspace, _ relative: String, to target: String) throws {
        let path = w.scratch.path("site/" + relative)
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    private func isLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    private func marker(_ w: Workspace) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: w.scratch.path("site/.rollout-publish.json")))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func indexSequence(_ w: Workspace) throws -> Int? {
        let data = try Data(contentsOf: URL(fileURLWithPath: w.scratch.path("site/index.json")))
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["sequence"] as? Int
    }

    // MARK: item 5, links

    /// Each link out of the site (a file, a folder, a dangling one, the lock, the record) is refused
    /// with exit 65 naming it, and nothing is written anywhere: not the target, not the site, not
    /// the history.
    func testALinkOutOfTheSiteIsRefusedAndNothingIsWritten() throws {
        let (w, sequence) = try published()
        let victim = try w.scratch.write("victim", "VICTIM\n")
        try FileManager.default.createDirectory(
            atPath: w.scratch.path("elsewhere"), withIntermediateDirectories: true)
        let cases: [(String, String)] = [
            ("index.json", "../victim"), ("packs", "../elsewhere"), ("manifests/tr-TR.json", victim),
            ("manifests/tr-TR.json.sig", "/nonexistent/rollout-\(UUID().uuidString)"),
            (".rollout-publish.lock", "../victim"), (".rollout-publish.json", "../victim"),
        ]
        let pristine = w.scratch.path("pristine")
        try FileManager.default.copyItem(atPath: w.scratch.path("site"), toPath: pristine)
        for (relative, target) in cases {
            try FileManager.default.removeItem(atPath: w.scratch.path("site"))
            try FileManager.default.copyItem(atPath: pristine, toPath: w.scratch.path("site"))
            try link(w, relative, to: target)
            let tip = try w.stateTip()
            let result = try publish(w)
            XCTAssertEqual(result.status, 65, "\(relative) -> \(target): \(result.output)")
            XCTAssertTrue(result.stderr.contains("site/\(relative) is a symbolic link to"), result.output)
            XCTAssertTrue(result.stderr.contains("Nothing was written"), result.output)
            XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "VICTIM\n", relative)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: w.scratch.path("elsewhere")), [])
            XCTAssertTrue(isLink(w.scratch.path("site/" + relative)), relative)
            XCTAssertEqual(try w.stateTip(), tip, "\(relative): no record")
            if relative != "index.json" { XCTAssertEqual(try indexSequence(w), sequence, relative) }
        }
    }

    /// Links that stay inside the site are replaced by the real file or folder; what they pointed
    /// at is left as it was.
    func testALinkInsideTheSiteIsReplacedNotFollowed() throws {
        let (w, sequence) = try published()
        try w.scratch.write("site/keep.txt", "KEEP\n")
        // The record is read through its link (it stays inside the site), so the real one goes there.
        try FileManager.default.moveItem(
            atPath: w.scratch.path("site/.rollout-publish.json"), toPath: w.scratch.path("site/keep-record.txt"))
        let record = try Data(contentsOf: URL(fileURLWithPath: w.scratch.path("site/keep-record.txt")))
        try FileManager.default.moveItem(
            atPath: w.scratch.path("site/packs"), toPath: w.scratch.path("site/packs-real"))
        let before = try FileManager.default.subpathsOfDirectory(atPath: w.scratch.path("site/packs-real")).sorted()
        try link(w, "index.json", to: "keep.txt")
        try link(w, ".rollout-publish.json", to: "keep-record.txt")
        try link(w, "packs", to: "packs-real")
        let result = try publish(w)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(try String(contentsOfFile: w.scratch.path("site/keep.txt"), encoding: .utf8), "KEEP\n")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: w.scratch.path("site/keep-record.txt"))), record)
        for path in ["index.json", ".rollout-publish.json", "packs"] {
            XCTAssertFalse(isLink(w.scratch.path("site/" + path)), path)
        }
        XCTAssertEqual(try indexSequence(w), sequence + 1)
        XCTAssertEqual(
            try FileManager.default.subpathsOfDirectory(atPath: w.scratch.path("site/packs-real")).sorted(), before)
        XCTAssertFalse(try FileManager.default.subpathsOfDirectory(atPath: w.scratch.path("site/packs")).isEmpty)
    }

    // MARK: item 7, a publish that stops half way

    /// `site/manifests` cannot be written (a read-only mount where mounting is permitted, else a
    /// read-only folder, else a folder in the way of a manifest): the publish fails saying no
    /// manifest or index was written and devices still see the old sequence, the record beside
    /// the site keeps the old state and names the unfinished one apart, and nothing reaches the
    /// history. Once the folder can be written, the next publish finishes and says so.
    func testAPublishThatStopsSaysWhatItLeft() throws {
        let (w, sequence) = try published()
        let manifests = w.scratch.path("site/manifests")
        let oldMarker = try marker(w)
        let tip = try w.stateTip()
        let blocker = try ReadOnlyFolder(manifests)
        let result = try publish(w)
        XCTAssertEqual(result.status, blocker.exitCode, result.output)
        XCTAssertFalse(result.stderr.contains("was written from state"), result.output)
        XCTAssertTrue(
            result.stderr.contains("(index sequence \(sequence + 1)) to \(w.scratch.path("site")) stopped"),
            result.output)
        XCTAssertTrue(result.stderr.contains("no file was written"), result.output)
        XCTAssertTrue(result.stderr.contains("devices still see index sequence \(sequence)."), result.output)
        XCTAssertTrue(result.stderr.contains("records the publish as unfinished"), result.output)
        XCTAssertEqual(try indexSequence(w), sequence)
        XCTAssertEqual(try w.stateTip(), tip, "nothing recorded")
        let stopped = try marker(w)
        XCTAssertEqual(stopped["state"] as? String, oldMarker["state"] as? String)
        XCTAssertEqual(stopped["sequence"] as? Int, sequence)
        let writing = try XCTUnwrap(stopped["writing"] as? [String: Any], "\(stopped)")
        XCTAssertEqual(writing["sequence"] as? Int, sequence + 1)
        XCTAssertEqual(writing["state"] as? String, tip)

        try blocker.release()
        let again = try publish(w)
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertEqual(try indexSequence(w), sequence + 1)
        let done = try marker(w)
        XCTAssertNil(done["writing"], "\(done)")
        XCTAssertEqual(done["sequence"] as? Int, sequence + 1)
        XCTAssertEqual(done["state"] as? String, tip)
    }

    /// A stale clone is still refused while a publish of a newer state is unfinished in the site:
    /// the record names it, and the message says it did not finish.
    func testAnUnfinishedPublishStillRefusesAnOlderState() throws {
        let (w, _) = try published()
        let older = w.scratch.path("older")
        XCTAssertEqual(
            try Processes.run("/bin/cp", ["-a", w.work, older], in: w.root, environment: w.environment).status, 0)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "30%", "--force", "--reason", "t").status, 0)
        let blocker = try ReadOnlyFolder(w.scratch.path("site/manifests"))
        XCTAssertEqual(try publish(w).status, blocker.exitCode)
        try blocker.release()
        let stale = try w.rollout(
            "publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("signing.key"), in: older)
        XCTAssertEqual(stale.status, 1, stale.output)
        XCTAssertTrue(stale.stderr.contains("holds files of an unfinished publish of state"), stale.output)
    }
}

/// A folder made unwritable for one test, by the strongest means this machine allows.
private final class ReadOnlyFolder {
    let path: String
    private var mounted = false
    private var moved: String?
    /// What a publish that cannot write there exits with: 74 for the disk (EROFS, EACCES), 64 when
    /// a folder stands where a manifest goes ("is a directory").
    let exitCode: Int32

    init(_ path: String) throws {
        self.path = path
        let saved = path + ".saved"
        try FileManager.default.copyItem(atPath: path, toPath: saved)
        if geteuid() != 0 {
            chmod(path, 0o555)
            exitCode = 74
        } else if ReadOnlyFolder.shell("mount -t tmpfs -o size=1m tmpfs '\(path)'") == 0 {
            mounted = true
            _ = ReadOnlyFolder.shell("cp -a '\(saved)/.' '\(path)/' && mount -o remount,ro '\(path)'")
            exitCode = 74
        } else {
            // root without mount(2): nothing is read-only to root, so a folder is put in the way.
            try FileManager.default.removeItem(atPath: path + "/tr-TR.json")
            try FileManager.default.createDirectory(atPath: path + "/tr-TR.json/x", withIntermediateDirectories: true)
            exitCode = 64
        }
        moved = saved
    }

    func release() throws {
        if mounted { _ = ReadOnlyFolder.shell("umount -l '\(path)'") }
        chmod(path, 0o755)
        if let moved {
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: moved, toPath: path)
        }
        mounted = false
        moved = nil
    }

    deinit { try? release() }

    static func shell(_ command: String) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
