import Foundation
import XCTest

/// rollout verify on intact repositories, and on histories changed behind rollout's back.
final class VerifyTests: XCTestCase {
    /// A repository with packs, baselines, a staged rollout, metrics and a revert.
    private func busyRepository() throws -> Workspace {
        let w = try Workspace()
        try w.initWithExamples()
        for id in ["en-US@1", "tr@1", "tr-TR@17"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--reason", "typo fix").status, 0)
        XCTAssertEqual(
            try w.rollout(
                "metrics", "ingest", "--kind", "crash", MetricsIngestTests.examples + "/crashes-spike-TR-4.8.csv"
            ).status, 0)
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--reason", "crash spike").status, 0)
        return w
    }

    private func git(_ w: Workspace, _ arguments: [String], env: [String: String] = [:]) throws -> String {
        let result = try Processes.run(
            "/usr/bin/env", ["git", "--git-dir", w.repository] + arguments, in: w.root,
            environment: w.environment.merging(env) { $1 })
        XCTAssertEqual(result.status, 0, result.output)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func problems(_ result: RunResult) throws -> [[String: Any]] {
        let object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.output)
        return try XCTUnwrap(object["problems"] as? [[String: Any]])
    }

    func testAnIntactRepositoryVerifies() throws {
        let w = try busyRepository()
        let result = try w.rollout("verify", "--json")
        XCTAssertEqual(result.status, 0, result.output)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["ok"] as? Bool, true)
        XCTAssertEqual(report["packs"] as? Int, 5)
        XCTAssertEqual(report["rollbacks"] as? Int, 1)
        XCTAssertEqual(report["commits"] as? Int, 8)
        XCTAssertTrue(try w.rollout("verify").stdout.hasPrefix("repository intact: 8 commit(s), 5 pack(s)"))
    }

    /// The kill switch blocks the baseline it takes off devices; an incident must never break a
    /// CI gate on verify, nor does coming back from it.
    func testTheKillSwitchAndTheWayBackVerify() throws {
        let w = try busyRepository()
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--to", "bundled", "--reason", "kill switch").status, 0)
        var result = try w.rollout("verify")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(try w.rollout("revert", "en-US", "--to", "bundled", "--reason", "kill switch").status, 0)
        result = try w.rollout("verify")
        XCTAssertEqual(result.status, 0, result.output)
        let fixed = try w.packVariant(of: "tr-TR@18", version: 19)
        XCTAssertEqual(try w.rollout("pack", "add", fixed).status, 0)
        result = try w.rollout("promote", "tr-TR@19", "--to", "100%", "--force", "--reason", "fixed")
        XCTAssertEqual(result.status, 0, result.output)
        result = try w.rollout("verify")
        XCTAssertEqual(result.status, 0, result.output)
    }

    /// Key list commits and the publishes signed under them are part of an intact history.
    func testARepositoryThatPublishedUnderAKeyListVerifies() throws {
        let w = try busyRepository()
        let keys = w.scratch.path("keys")
        XCTAssertEqual(try w.rollout("keys", "init", "--out", keys).status, 0)
        XCTAssertEqual(
            try w.rollout("publish", "--out", w.scratch.path("site"), "--key", keys + "/publish-1.key").status, 0)
        XCTAssertEqual(try w.rollout("keys", "rotate", "--root", keys + "/root.key").status, 0)
        let published = try w.rollout("publish", "--out", w.scratch.path("site"), "--key", keys + "/publish-2.key")
        XCTAssertEqual(published.status, 0, published.output)
        let result = try w.rollout("verify")
        XCTAssertEqual(result.status, 0, result.output)
    }

    func testAPackChangedByACommitOutsideRolloutIsReported() throws {
        let w = try busyRepository()
        let index = w.scratch.path("tmp-index")
        _ = try git(w, ["read-tree", "main"], env: ["GIT_INDEX_FILE": index])
        let pack = try git(w, ["show", "main:packs/tr-TR/0/17.json"]).replacingOccurrences(
            of: "Hoş gledin", with: "Hoş geldin")
        let blob = try git(w, ["hash-object", "-w", try w.scratch.write("17.json", pack + "\n")])
        _ = try git(
            w, ["update-index", "--cacheinfo", "100644,\(blob),packs/tr-TR/0/17.json"], env: ["GIT_INDEX_FILE": index])
        let tree = try git(w, ["write-tree"], env: ["GIT_INDEX_FILE": index])
        let identity = [
            "GIT_AUTHOR_NAME": "Someone", "GIT_AUTHOR_EMAIL": "someone@example.com", "GIT_COMMITTER_NAME": "Someone",
            "GIT_COMMITTER_EMAIL": "someone@example.com",
        ]
        let commit = try git(w, ["commit-tree", tree, "-p", "main", "-m", "fix the typo in place"], env: identity)
        _ = try git(w, ["update-ref", "refs/heads/main", commit])

        let result = try w.rollout("verify", "--json")
        XCTAssertEqual(result.status, 1, result.output)
        let found = try problems(result).map {
            "\($0["commit"] as? String ?? "-") \($0["path"] as? String ?? "-") \($0["message"] as! String)"
        }
        let short = String(commit.prefix(12))
        XCTAssertTrue(found.contains { $0.hasPrefix("\(short) - has no Rollout-Action trailer") }, "\(found)")
        XCTAssertTrue(found.contains { $0.hasPrefix("\(short) packs/tr-TR/0/17.json changed content") }, "\(found)")
        XCTAssertTrue(found.contains { $0.contains("packs/tr-TR/0/17.json checksum mismatch") }, "\(found)")
        XCTAssertEqual(found.count, 3, "\(found)")
    }

    func testARevertRemovedFromTheHistoryIsReported() throws {
        let w = try busyRepository()
        let revert = try git(w, ["rev-parse", "main"])
        _ = try git(w, ["update-ref", "refs/heads/main", "main~1"])
        let result = try w.rollout("verify")
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(
            result.stdout.contains(
                "the history was rewritten: \(revert.prefix(12)) (\"rollout: revert tr-TR to last-known-good\") was the tip once and is no longer part of main"
            ),
            result.stdout)
    }

    func testAHistoryRewrittenWithAMutatedPackIsReported() throws {
        let w = try busyRepository()
        let exported = try Processes.run(
            "/usr/bin/env", ["git", "--git-dir", w.repository, "fast-export", "--reencode=no", "main"], in: w.root,
            environment: w.environment)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        // Same length, so the stream stays valid: the pack is mutated in the commit that added it and in every later one.
        let stream = try w.scratch.write(
            "stream", exported.stdout.replacingOccurrences(of: "Hoş gledin", with: "Hoş gledim"))
        let imported = try Processes.run(
            "/bin/sh", ["-c", "git --git-dir \(w.repository) fast-import --force --quiet < \(stream)"], in: w.root,
            environment: w.environment)
        XCTAssertEqual(imported.status, 0, imported.output)

        let result = try w.rollout("verify", "--json")
        XCTAssertEqual(result.status, 1, result.output)
        let messages = try problems(result).map { $0["message"] as! String }
        XCTAssertTrue(messages.contains { $0.hasPrefix("the history was rewritten") }, "\(messages)")
        XCTAssertTrue(messages.contains { $0.hasPrefix("checksum mismatch") }, "\(messages)")
    }

    func testAStaleLockIsReportedWithTheCommandThatClearsIt() throws {
        let w = try busyRepository()
        let lock = w.repository + "/refs/heads/main.lock"
        XCTAssertTrue(FileManager.default.createFile(atPath: lock, contents: Data()))
        let result = try w.rollout("verify")
        XCTAssertEqual(result.status, 0, "a lock is not damage: \(result.output)")
        XCTAssertTrue(result.stdout.contains("clear it with: rm \(lock)"), result.stdout)
    }

    /// libgit2 writes the reflog entry before it renames the ref's lock into place. A process
    /// killed between the two leaves an entry for a commit that never became the tip (found by the
    /// kill harness): an interrupted update, not a rewritten history.
    func testAnUpdateKilledBeforeItsRenameIsNotARewrite() throws {
        let w = try busyRepository()
        let tip = try git(w, ["rev-parse", "main"])
        let identity = [
            "GIT_AUTHOR_NAME": "Killed", "GIT_AUTHOR_EMAIL": "k@example.com", "GIT_COMMITTER_NAME": "Killed",
            "GIT_COMMITTER_EMAIL": "k@example.com",
        ]
        let orphan = try git(
            w,
            ["commit-tree", try git(w, ["rev-parse", "main^{tree}"]), "-p", tip, "-m", "promote that never landed"],
            env: identity)
        let log = w.repository + "/logs/refs/heads/main"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        handle.write(
            Data(
                "\(tip) \(orphan) Killed <k@example.com> 1796000000 +0000\trollout: promote tr-TR@18 to 50% in TR\n"
                    .utf8))
        try handle.close()
        let lock = w.repository + "/refs/heads/main.lock"
        XCTAssertTrue(FileManager.default.createFile(atPath: lock, contents: Data((orphan + "\n").utf8)))

        let killed = try w.rollout("verify")
        XCTAssertEqual(killed.status, 0, killed.output)
        XCTAssertTrue(killed.stdout.contains("clear it with: rm \(lock)"), killed.stdout)
        try FileManager.default.removeItem(atPath: lock)
        XCTAssertEqual(
            try w.rollout(
                "metrics", "ingest", "--kind", "fallback", MetricsIngestTests.examples + "/fallbacks-healthy.csv"
            ).status, 0)
        let after = try w.rollout("verify")
        XCTAssertEqual(after.status, 0, "the next update starts from the old tip again: \(after.output)")
    }
}
