import Foundation
import XCTest

/// Issue 31, item 1: a change that landed must be reported as landed, whatever the retry path.
/// The remote is the real `git http-backend` with a slow pre-receive hook, behind a proxy that
/// cuts the connection serving the push while the hook runs; the server goes on and the push
/// lands. git (curl) sends the push again on a new connection, or rollout does after the failure,
/// and the second receive-pack loses to the first: rollout must read the branch, find its own
/// commit there, and report it, not re-run the command on the new tip as if another writer had
/// moved it ("nothing was ever promoted", "already at that share: nothing to do").
final class CutPushTests: XCTestCase {
    private func setUp(_ w: Workspace) throws -> (LandedPushRemote, String) {
        let remote = try LandedPushRemote(w)
        let clone = w.scratch.path("clone")
        let cloned = try w.rollout("clone", remote.url, clone)
        guard cloned.status == 0 else {
            remote.stop()
            throw ServerError(description: "clone: \(cloned.output)")
        }
        return (remote, clone)
    }

    /// Runs `arguments` in the clone with the first push attempt cut while the hook runs, and
    /// checks that it exits 0 naming the one commit with `reason` on the server's main.
    private func assertCutPushReportsItsCommit(
        _ arguments: [String], reason: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let w = try Workspace(process: true)
        let (remote, clone) = try setUp(w)
        defer { remote.stop() }
        try remote.slowHook(0.8)
        try remote.cut(["during"])
        let runsBefore = remote.hookRuns
        let result = try w.rollout(["--repo", clone] + arguments + ["--reason", reason, "--json"])
        try remote.waitUntilIdle()
        let history = try remote.history()
        let mine = history.filter { $0.reason == reason }
        XCTAssertEqual(mine.count, 1, "the change is on the server once: \(history)", file: file, line: line)
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
        let commit = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["commit"]
        XCTAssertEqual(
            commit as? String, mine.first?.id, "the command names its own commit: \(result.output)", file: file,
            line: line)
        XCTAssertEqual(
            try remote.tip(clone), try remote.tip(remote.shared), "the clone follows", file: file, line: line)
        XCTAssertTrue(
            remote.proxyLog().contains { ($0["action"] as? String) == "cut while the hook runs" },
            "the cut landed while the hook ran: \(remote.proxyLog())", file: file, line: line)
        XCTAssertGreaterThanOrEqual(remote.hookRuns - runsBefore, 1, file: file, line: line)
    }

    func testAnEmergencyRevertCutWhileTheHookRunsReportsItsOwnCommit() throws {
        try assertCutPushReportsItsCommit(["revert", "vi-VN"], reason: "emergency revert, cut")
    }

    func testAPromoteCutWhileTheHookRunsReportsItsOwnCommit() throws {
        try assertCutPushReportsItsCommit(
            ["promote", "tr-TR@18", "--to", "10%", "--force"], reason: "promote, cut")
    }

    /// Every attempt cut while a hook slower than rollout's retries (about 4 s) runs: each push reaches the
    /// server, which applies one of them after rollout gave up. The command may not say that nothing
    /// was changed: it says the push may have landed and how to find out (exit 76: retried as is, it
    /// would act again on top of its own change), and the change is on the server once.
    func testAPushCutEveryTimeSaysItMayHaveLanded() throws {
        let w = try Workspace(process: true)
        let (remote, clone) = try setUp(w)
        defer { remote.stop() }
        try remote.slowHook(6)
        try remote.cut(Array(repeating: "during", count: 12))
        let result = try w.rollout(["--repo", clone, "revert", "vi-VN", "--reason", "cut every time", "--json"])
        try remote.waitUntilIdle()
        let history = try remote.history()
        XCTAssertEqual(history.filter { $0.reason == "cut every time" }.count, 1, "landed once: \(history)")
        XCTAssertEqual(result.status, 76, result.output)
        XCTAssertFalse(result.stderr.contains("Nothing was changed"), result.stderr)
        XCTAssertTrue(result.stderr.contains("it may have landed"), result.stderr)
        XCTAssertTrue(result.stderr.contains("rollout sync"), result.stderr)
        // What the message says to do: sync brings the change in, and the clone is at the server's tip.
        let synced = try w.rollout("--repo", clone, "sync")
        XCTAssertEqual(synced.status, 0, synced.output)
        XCTAssertEqual(try remote.tip(clone), try remote.tip(remote.shared))
    }
}
