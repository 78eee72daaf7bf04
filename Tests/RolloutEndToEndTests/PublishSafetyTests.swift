import Foundation
import XCTest

/// Publish under the conditions a real team produces (docs/manifest.md, "rollout publish"): stale
/// copies, other repositories and overlapping jobs publishing into one site, files it did not
/// write, an edited cache; and the record each publish leaves in the history.
final class PublishSafetyTests: XCTestCase {
    /// tr-TR@17 the baseline, tr-TR@18 at 10% in TR on >=4.8, a signing key, the site published.
    private func published() throws -> (Workspace, publicKey: String) {
        let w = try Workspace()
        try w.initWithExamples()
        for id in ["en-US@1", "tr@1", "tr-TR@17"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8").status, 0)
        let keys = try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key"), "--json"))
        XCTAssertEqual(try publish(w).status, 0)
        return (w, try XCTUnwrap(keys["publicKey"] as? String))
    }

    @discardableResult
    private func publish(_ w: Workspace, repo: String? = nil, site: String = "site", _ extra: String...) throws
        -> RunResult
    {
        try w.rollout(
            (repo.map { ["--repo", $0] } ?? []) + [
                "publish", "--out", w.scratch.path(site), "--key", w.scratch.path("signing.key"),
            ] + extra)
    }

    /// Every file of the site (dot files too) with its bytes.
    private func snapshot(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return files }
        for case let path as String in walker {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files[path] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path))
            }
        }
        return files
    }

    private func indexSequence(_ w: Workspace, site: String = "site") throws -> Int {
        let index =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: w.scratch.path("\(site)/index.json")))) as? [String: Any]
        return try XCTUnwrap(index?["sequence"] as? Int)
    }

    func testAStaleCopyAnotherRepositoryOrASiteWithoutItsRecordCannotTakeTheSiteBack() throws {
        let (w, key) = try published()
        // A copy made now, before the revert: what an --offline laptop or a stale CI cache holds.
        let stale = w.scratch.path("stale.rollout")
        XCTAssertEqual(
            try Processes.run("/bin/cp", ["-a", w.repository, stale], in: w.root, environment: w.environment).status, 0)
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--reason", "crash spike").status, 0)
        XCTAssertEqual(try publish(w).status, 0)
        let site = try snapshot(w.scratch.path("site"))
        let sequence = try indexSequence(w)

        let refused = try publish(w, repo: stale)
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(refused.stderr.contains("which this repository does not have"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("rollout sync"), "names the way out: \(refused.stderr)")
        XCTAssertEqual(try snapshot(w.scratch.path("site")), site, "the site is exactly as it was")

        // Another repository with the same packs and plans of its own.
        let other = w.scratch.path("other.rollout")
        XCTAssertEqual(try w.rollout("init", other).status, 0)
        XCTAssertEqual(try w.rollout(["--repo", other, "pack", "add"] + Fixtures.allExamplePacks).status, 0)
        for id in ["en-US@1", "tr@1", "tr-TR@17", "tr-TR@18"] {
            XCTAssertEqual(
                try w.rollout("--repo", other, "promote", id, "--to", "100%", "--force", "--reason", "test").status, 0)
        }
        for _ in 0..<3 {
            XCTAssertEqual(
                try w.rollout("--repo", other, "promote", "tr-TR@18", "--to", "100%", "--force", "--reason", "test")
                    .status, 0)
        }
        let unrelated = try publish(w, repo: other)
        XCTAssertEqual(unrelated.status, 1, unrelated.output)
        XCTAssertEqual(try snapshot(w.scratch.path("site")), site)

        // Without the record beside the site (an older rollout wrote it, or it was lost), the signed
        // files still say enough: the stale copy is older, and would serve the blocked tr-TR@18 again.
        try FileManager.default.removeItem(atPath: w.scratch.path("site/.rollout-publish.json"))
        let withoutRecord = try snapshot(w.scratch.path("site"))
        let older = try publish(w, repo: stale)
        XCTAssertEqual(older.status, 1, older.output)
        XCTAssertTrue(older.stderr.contains("holds index sequence \(sequence), newer than"), older.stderr)
        XCTAssertEqual(try snapshot(w.scratch.path("site")), withoutRecord)
        let otherHistory = try publish(w, repo: other)
        XCTAssertEqual(otherHistory.status, 1, otherHistory.output)
        XCTAssertEqual(try snapshot(w.scratch.path("site")), withoutRecord)
        XCTAssertEqual(try w.rollout("verify-site", w.scratch.path("site"), "--public-key", key).status, 0)

        // The repository that published it carries on.
        XCTAssertEqual(try publish(w).status, 0)
        XCTAssertEqual(try w.rollout("verify-site", w.scratch.path("site"), "--public-key", key).status, 0)
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    func testAStaleCloneCannotPublishAnOldStateEvenIntoANewDirectory() throws {
        let w = try Workspace()
        let server = w.scratch.path("server.rollout")
        XCTAssertEqual(try w.rollout("init", server).status, 0)
        XCTAssertEqual(try w.rollout(["--repo", server, "pack", "add"] + Fixtures.allExamplePacks).status, 0)
        for id in ["en-US@1", "tr@1", "tr-TR@17"] {
            XCTAssertEqual(try w.rollout("--repo", server, "promote", id, "--to", "100%").status, 0)
        }
        for name in ["laptop", "ci"] { XCTAssertEqual(try w.rollout("clone", server, w.scratch.path(name)).status, 0) }
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key")).status, 0)
        let laptop = w.scratch.path("laptop")
        let ci = w.scratch.path("ci")
        XCTAssertEqual(
            try w.rollout("--repo", laptop, "promote", "tr-TR@18", "--to", "10%", "--force", "--reason", "test").status,
            0)
        XCTAssertEqual(try w.rollout("--repo", laptop, "revert", "tr-TR", "--reason", "crash spike").status, 0)
        XCTAssertEqual(try publish(w, repo: laptop, site: "cdn-1").status, 0)

        // The CI clone has not fetched since: its publish into a fresh directory still carries the revert.
        XCTAssertEqual(try publish(w, repo: ci, site: "cdn-2").status, 0)
        XCTAssertEqual(try indexSequence(w, site: "cdn-2"), try indexSequence(w, site: "cdn-1"))
        let files = try FileManager.default.contentsOfDirectory(atPath: w.scratch.path("cdn-2/packs/tr-TR"))
        XCTAssertFalse(files.contains { $0.hasPrefix("18.") }, "the reverted pack is not published: \(files)")

        // Offline, publish would put a state on devices that no other clone can see: refused.
        let offline = try publish(w, repo: ci, site: "cdn-3", "--offline")
        XCTAssertEqual(offline.status, 64, offline.output)
        XCTAssertTrue(offline.stderr.contains("rollout sync"), offline.stderr)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: w.scratch.path("cdn-3")), "a refused publish leaves no directory")

        // Work done offline and not yet pushed is not published either.
        XCTAssertEqual(
            try w.rollout("--repo", ci, "--offline", "revert", "en-US", "--to", "bundled", "--reason", "offline")
                .status, 0)
        let unpushed = try publish(w, repo: ci, site: "cdn-3")
        XCTAssertEqual(unpushed.status, 76, unpushed.output)
        XCTAssertTrue(unpushed.stderr.contains("run rollout sync first"), unpushed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: w.scratch.path("cdn-3")))
        // An empty directory the operator made (a mount point) stays.
        try FileManager.default.createDirectory(atPath: w.scratch.path("mounted"), withIntermediateDirectories: true)
        XCTAssertEqual(try publish(w, repo: ci, site: "mounted").status, 76)
        XCTAssertTrue(FileManager.default.fileExists(atPath: w.scratch.path("mounted")))
    }

    func testEachPublishIsRecordedAndTheLogShowsWhenAChangeWentLive() throws {
        let (w, _) = try published()
        let tip = try w.stateTip()
        let again = try publish(w)
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertEqual(try w.stateTip(), tip, "publishing the same state to the same place again records nothing new")

        let record = try w.git("log", "-1", "--format=%B", tip).stdout
        XCTAssertTrue(record.hasPrefix("publish index sequence "), record)
        XCTAssertTrue(record.contains("Rollout-Action: publish\n"), record)
        XCTAssertTrue(record.contains("Rollout-Destination: \(w.scratch.path("site"))\n"), record)
        let parent = try w.git("rev-parse", "\(tip)^").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(record.contains("Rollout-Published-State: \(parent)\n"), record)

        XCTAssertEqual(
            try w.rollout(
                "promote", "tr-TR@18", "--to", "50%", "--region", "TR", "--app-version", ">=4.8", "--force", "--reason",
                "test"
            ).status, 0)
        XCTAssertEqual(try publish(w, site: "staging", "--destination", "staging").status, 0)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "50%", "--region", "DE", "--force", "--reason", "test").status,
            0)
        XCTAssertEqual(try publish(w, site: "site", "--destination", "https://cdn.example.com/l10n").status, 0)
        let log = try w.rollout("log", "--segment", "TR/4.8", "--locale", "tr-TR")
        XCTAssertEqual(log.status, 0, log.output)
        // Newest first: the publishes that carried the 50% change to each site (the CDN, then staging
        // earlier), the change, the publish that carried 10%, 10%.
        let summaries = log.stdout.split(separator: "\n").filter { $0.hasPrefix("    ") && !$0.hasPrefix("    tr-TR ") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(summaries.count, 6, log.stdout)
        XCTAssertTrue(
            summaries[0].hasPrefix("publish index sequence")
                && summaries[0].hasSuffix("to https://cdn.example.com/l10n"), log.stdout)
        XCTAssertTrue(
            summaries[1].hasPrefix("publish index sequence") && summaries[1].hasSuffix("to staging"), log.stdout)
        XCTAssertTrue(summaries[2].hasPrefix("promote tr-TR@18 to 50% in TR"), log.stdout)
        XCTAssertTrue(
            summaries[3].hasPrefix("publish index sequence") && summaries[3].hasSuffix("to \(w.scratch.path("site"))"),
            log.stdout)
        XCTAssertTrue(summaries[4].hasPrefix("promote tr-TR@18 to 10% in TR"), log.stdout)
        XCTAssertTrue(summaries[5].hasPrefix("complete tr-TR@17"), log.stdout)
        XCTAssertFalse(log.stdout.contains("in DE"), "the DE change did not alter TR: \(log.stdout)")
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    func testTwoPublishesIntoOneDirectoryWaitForEachOther() throws {
        let (w, key) = try published()
        // A publish holding the lock (flock(1) takes the same kind of lock): the next one waits.
        // The holder marks when it has the lock and, just before it lets go, that it is done.
        let lockFile = w.scratch.path("site/.rollout-publish.lock")
        let held = w.scratch.path("held")
        let done = w.scratch.path("done")
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = [lockFile, "/bin/sh", "-c", "touch '\(held)'; sleep 1; touch '\(done)'"]
        try holder.run()
        while !FileManager.default.fileExists(atPath: held) { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--reason", "crash spike").status, 0)
        let result = try publish(w)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: done), "the publish waited until the lock was let go")
        holder.waitUntilExit()

        // Rounds of a changing state with two publishes each into the same directory at once:
        // every site after a round is one a device accepts, and matches the repository.
        for round in 0..<4 {
            let promoted = try w.rollout(
                "promote", "vi-VN@3", "--to", "\(10 * (round + 1))%", "--force", "--reason", "round \(round)")
            XCTAssertEqual(promoted.status, 0, promoted.output)
            let environment = w.environment
            let binary = Processes.rolloutBinary
            let work = w.work
            let arguments = ["publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("signing.key")]
            let statuses = simultaneously(2) { _ in
                (try? Processes.run(binary, arguments, in: work, environment: environment).status) ?? -1
            }
            XCTAssertEqual(statuses, [0, 0])
            let check = try w.rollout("verify-site", w.scratch.path("site"), "--public-key", key)
            XCTAssertEqual(check.status, 0, check.output)
        }
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    /// Two repositories publish into one new directory at once: one is refused, and its failure
    /// never takes away the site the other one wrote (and recorded).
    func testAFailedPublishNeverRemovesASiteAnotherPublishWrote() throws {
        let (w, key) = try published()
        // Another team's repository (rollout's commits are deterministic: the same actor in the same
        // second would make the same first commits, one history).
        let other = w.scratch.path("other.rollout")
        let team = ["ROLLOUT_ACTOR": "Other Team <other@example.com>"]
        XCTAssertEqual(try w.rollout("init", other, env: team).status, 0)
        XCTAssertEqual(try w.rollout(["--repo", other, "pack", "add"] + Fixtures.allExamplePacks, env: team).status, 0)
        XCTAssertEqual(try w.rollout("--repo", other, "promote", "en-US@1", "--to", "100%", env: team).status, 0)
        let environment = w.environment
        let binary = Processes.rolloutBinary
        let work = w.work
        let keyPath = w.scratch.path("signing.key")
        for round in 0..<8 {
            let site = w.scratch.path("race-\(round)")
            let statuses = simultaneously(2) { index in
                let repository = index == 0 ? work + "/.rollout" : other
                let arguments = ["--repo", repository, "publish", "--out", site, "--key", keyPath]
                return (try? Processes.run(binary, arguments, in: work, environment: environment).status) ?? -1
            }
            XCTAssertEqual(statuses.sorted(), [0, 1], "round \(round): one lands, the other is refused")
            // As a device sees it: outside any repository.
            let check = try w.rollout("verify-site", site, "--public-key", key, in: w.scratch.path("home"))
            XCTAssertEqual(check.status, 0, "round \(round): \(check.output)")
        }
    }

    /// A publish recorded in a repository without a remote is not replayed by sync onto changes it
    /// never published: every clone still verifies, and log does not claim the change went live.
    func testSyncDoesNotReplayAPublishRecordOntoNewerChanges() throws {
        let (w, _) = try published()
        let copy = w.scratch.path("copy.rollout")
        let remote = w.scratch.path("remote.git")
        let clone = w.scratch.path("clone")
        XCTAssertEqual(
            try Processes.run("/bin/cp", ["-a", w.repository, copy], in: w.root, environment: w.environment).status, 0)
        XCTAssertEqual(
            try Processes.run(
                "/usr/bin/env", ["git", "init", "-q", "--bare", remote], in: w.root, environment: w.environment
            ).status, 0)
        XCTAssertEqual(try w.rollout("remote", "add", "origin", remote).status, 0)
        XCTAssertEqual(try w.rollout("sync").status, 0)
        XCTAssertEqual(try w.rollout("clone", remote, clone).status, 0)
        XCTAssertEqual(
            try w.rollout(
                "--repo", clone, "promote", "tr-TR@18", "--to", "20%", "--region", "TR", "--app-version", ">=4.8",
                "--force", "--reason", "wider"
            ).status, 0)
        // The copy publishes on its own, then joins the remote.
        XCTAssertEqual(try publish(w, repo: copy, site: "copy-site", "--destination", "copy-site").status, 0)
        XCTAssertEqual(try w.rollout("--repo", copy, "remote", "add", "origin", remote).status, 0)
        let synced = try w.rollout("--repo", copy, "sync")
        XCTAssertEqual(synced.status, 0, synced.output)
        for repository in [copy, clone] {
            if repository == clone { XCTAssertEqual(try w.rollout("--repo", clone, "sync").status, 0) }
            let verify = try w.rollout("--repo", repository, "verify")
            XCTAssertEqual(verify.status, 0, verify.output)
            XCTAssertFalse(
                try w.rollout("--repo", repository, "log", "--segment", "TR/4.8").stdout.contains("copy-site"))
        }
    }

    func testPublishRemovesOnlyTheFilesItWrote() throws {
        let (w, key) = try published()
        let packs = w.scratch.path("site/packs/tr-TR")
        let ours = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: packs).first { $0.hasPrefix("18.") })
        try w.scratch.write("site/packs/tr-TR/18.backup.json", "{\"kept\": true}")
        try w.scratch.write("site/packs/tr-TR/18.en.json", "{}")
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--reason", "crash spike").status, 0)
        let result = try w.json(try publish(w, "--json"))
        XCTAssertEqual(result["removed"] as? [String], ["packs/tr-TR/\(ours)"])
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: packs).filter { $0.hasPrefix("18.") }.sorted(),
            ["18.backup.json", "18.en.json"])
        XCTAssertEqual(
            try w.rollout("verify-site", w.scratch.path("site"), "--public-key", key).status, 1,
            "verify-site still reports files a blocked version left")
    }

    func testAnEmptyOutIsAUsageErrorThatWritesNothing() throws {
        let (w, _) = try published()
        let before = try FileManager.default.contentsOfDirectory(atPath: w.work).sorted()
        let result = try w.rollout("publish", "--out", "", "--key", w.scratch.path("signing.key"))
        XCTAssertEqual(result.status, 64, result.output)
        XCTAssertTrue(result.stderr.contains("--out"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: w.work).sorted(), before)
    }

    /// The cache outside git is not trusted: an edited line is read again, never signed.
    func testAnEditedPublishCacheIsNotSigned() throws {
        let (w, key) = try published()
        let cache = w.repository + "/rollout/publish-cache"
        let text = try String(contentsOfFile: cache, encoding: .utf8)
        XCTAssertFalse(text.isEmpty)
        // Swap every digest for another one of the same shape; keep the rest of each line.
        let edited =
            text.split(separator: "\n").map { line -> String in
                var fields = line.split(separator: " ").map(String.init)
                fields[1] = String(repeating: "0", count: 64)
                return fields.joined(separator: " ")
            }.joined(separator: "\n") + "\n"
        try Data(edited.utf8).write(to: URL(fileURLWithPath: cache))
        let result = try publish(w, site: "fresh")
        XCTAssertEqual(result.status, 0, result.output)
        let check = try w.rollout("verify-site", w.scratch.path("fresh"), "--public-key", key)
        XCTAssertEqual(check.status, 0, check.output)
        XCTAssertFalse(
            try String(contentsOfFile: w.scratch.path("fresh/manifests/tr-TR.json"), encoding: .utf8).contains(
                String(repeating: "0", count: 64)))
    }
}
