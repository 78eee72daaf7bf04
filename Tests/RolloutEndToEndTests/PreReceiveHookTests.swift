import Foundation
import XCTest

/// `rollout hook pre-receive` installed as the pre-receive hook of a server's bare repository, as
/// docs/teams.md ("Enforcing on the server") installs it, on real servers on loopback: sshd, and
/// smart HTTP through git http-backend. Pushes made with rollout land; what plain git pushes
/// around rollout (a commit that rewrites a stored pack, a force push, deleting main) is refused
/// with the hook's own line shown to the pusher, and the server's refs are as they were.
final class PreReceiveHookTests: XCTestCase {
    /// The hook script, exactly as the docs write it, with the binary under test.
    private func installHook(in repository: String) throws {
        let hook = repository + "/hooks/pre-receive"
        try FileManager.default.createDirectory(atPath: repository + "/hooks", withIntermediateDirectories: true)
        try Data("#!/bin/sh\nexec \(Processes.rolloutBinary) hook pre-receive\n".utf8).write(
            to: URL(fileURLWithPath: hook))
        XCTAssertEqual(chmod(hook, 0o755), 0)
    }

    /// Plain git in the workspace, with its HOME (and so its git config) and a fixed identity.
    private func git(_ w: Workspace, _ arguments: [String], env: [String: String] = [:]) throws -> RunResult {
        let identity = [
            "GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": "mallory@example.com",
            "GIT_COMMITTER_NAME": "Mallory", "GIT_COMMITTER_EMAIL": "mallory@example.com",
        ]
        return try Processes.run(
            "/usr/bin/env", ["git"] + arguments, in: w.root,
            environment: w.environment.merging(identity) { $1 }.merging(env) { $1 })
    }

    /// Every ref of a repository with its target: what a refused push must leave as it was.
    private func refs(_ w: Workspace, _ repository: String) throws -> String {
        try git(w, ["--git-dir", repository, "for-each-ref", "--format=%(refname) %(objectname)"]).stdout
    }

    private func revParse(_ w: Workspace, _ repository: String, _ revision: String) throws -> String {
        try git(w, ["--git-dir", repository, "rev-parse", revision]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// A commit on `repository`'s main made with git plumbing: `path` holds `content`.
    private func plumbedCommit(_ w: Workspace, _ repository: String, path: String, content: String, message: String)
        throws -> String
    {
        let index = ["GIT_INDEX_FILE": w.scratch.path("plumbed-\(UUID().uuidString).index")]
        let file = try w.scratch.write("plumbed-\(UUID().uuidString)", Data(content.utf8))
        XCTAssertEqual(try git(w, ["--git-dir", repository, "read-tree", "main"], env: index).status, 0)
        let blob = try git(w, ["--git-dir", repository, "hash-object", "-w", file]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let updated = try git(
            w, ["--git-dir", repository, "update-index", "--add", "--cacheinfo", "100644,\(blob),\(path)"], env: index)
        XCTAssertEqual(updated.status, 0, updated.output)
        let tree = try git(w, ["--git-dir", repository, "write-tree"], env: index).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let commit = try git(w, ["--git-dir", repository, "commit-tree", tree, "-p", "main", "-m", message])
        XCTAssertEqual(commit.status, 0, commit.output)
        return commit.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A commit on `clone`'s main that rollout never writes: under a promote's trailers, it
    /// rewrites the stored pack tr-TR@18, which may never change once written.
    private func forgedCommit(_ w: Workspace, clone: String) throws -> String {
        try plumbedCommit(
            w, clone, path: "packs/tr-TR/0/18.json", content: "{\"forged\": true}\n",
            message:
                "promote tr-TR@18 to 50%\n\nRollout-Action: promote\nRollout-Actor: Mallory <mallory@example.com>\nRollout-Locale: tr-TR\n"
        )
    }

    /// The whole story on one server: `url` reaches `repository` (the server's path), `pushURL`
    /// is what plain git pushes to (with its credentials). rollout's own push lands through the
    /// hook; a forged commit is refused whether rollout or git pushes it; a force push and
    /// deleting main are refused; other refs pass.
    private func assertHookHolds(
        _ w: Workspace, url: String, repository: String, file: StaticString = #filePath, line: UInt = #line
    )
        throws
    {
        try installHook(in: repository)
        let clone = w.scratch.path("clone")
        let cloned = try w.rollout("clone", url, clone)
        XCTAssertEqual(cloned.status, 0, cloned.output, file: file, line: line)
        let before = try actions(w, repository).count
        let promoted = try w.rollout(
            "--repo", clone, "promote", "tr-TR@18", "--to", "10%", "--force", "--reason", "through the hook")
        XCTAssertEqual(promoted.status, 0, promoted.output, file: file, line: line)
        XCTAssertEqual(try actions(w, repository).count, before + 1, "the promote landed", file: file, line: line)
        let landed = try refs(w, repository)

        // Pushed by rollout: the clone's main holds the forged commit, sync pushes it.
        let forged = try forgedCommit(w, clone: clone)
        let good = try revParse(w, clone, "main")
        XCTAssertEqual(try git(w, ["--git-dir", clone, "update-ref", "refs/heads/main", forged]).status, 0)
        let synced = try w.rollout("--repo", clone, "sync")
        XCTAssertEqual(synced.status, 77, synced.output, file: file, line: line)
        let refusal = "remote: rollout: refused \(forged.prefix(12)): packs/tr-TR/0/18.json: changed content"
        XCTAssertTrue(synced.stderr.contains(refusal), synced.stderr, file: file, line: line)
        XCTAssertEqual(try refs(w, repository), landed, "the server is unchanged", file: file, line: line)
        XCTAssertEqual(try git(w, ["--git-dir", clone, "update-ref", "refs/heads/main", good]).status, 0)

        // Pushed by plain git: the forged commit, a force push, deleting main.
        let pushes: [(arguments: [String], shown: String)] = [
            (["\(forged):refs/heads/main"], refusal),
            (
                ["--force", "\(good)~1:refs/heads/main"],
                "remote: rollout: refused \(try revParse(w, clone, "main~1").prefix(12)): it does not continue refs/heads/main at \(good.prefix(12))"
            ),
            ([":refs/heads/main"], "remote: rollout: refused deleting refs/heads/main: it holds every change"),
        ]
        for push in pushes {
            let pushed = try git(w, ["--git-dir", clone, "push", "origin"] + push.arguments)
            XCTAssertNotEqual(pushed.status, 0, pushed.output, file: file, line: line)
            XCTAssertTrue(
                pushed.stderr.contains(push.shown), "\(push.arguments): \(pushed.stderr)", file: file, line: line)
            XCTAssertTrue(pushed.stderr.contains("pre-receive hook declined"), pushed.stderr, file: file, line: line)
            XCTAssertEqual(try refs(w, repository), landed, "\(push.arguments) changed nothing", file: file, line: line)
        }
        // Other refs are not rollout's history: they pass (proposals are SignedPushTests').
        let other = try git(
            w,
            ["--git-dir", clone, "push", "origin", "\(forged):refs/heads/scratch", "\(good):refs/rollout/replayed/1"])
        XCTAssertEqual(other.status, 0, other.output, file: file, line: line)
        XCTAssertEqual(try revParse(w, repository, "refs/heads/scratch"), forged, file: file, line: line)
    }

    func testOverSSHTheHookLetsRolloutsPushesThroughAndRefusesTheRest() throws {
        let w = try Workspace()
        let repository = try shared(w)
        let server = try SSHGitServer(directory: w.scratch.path("ssh"), authorized: ["deploy"])
        defer { server.stop() }
        try Data("[core]\n\tsshCommand = \(server.sshCommand)\n".utf8).write(
            to: URL(fileURLWithPath: w.environment["HOME"]! + "/.gitconfig"))
        try assertHookHolds(w, url: server.url(repository, as: "deploy"), repository: repository)
    }

    func testOverSmartHTTPTheHookLetsRolloutsPushesThroughAndRefusesTheRest() throws {
        let w = try Workspace()
        let repository = try shared(w)
        let password = "hook-\(UUID().uuidString)"
        let server = try HTTPGitServer(
            root: w.scratch.path("server"), state: w.scratch.path("http"), users: ["alice": password])
        defer { server.stop() }
        try assertHookHolds(
            w, url: server.url("shared.git", user: "alice", password: password), repository: repository)
    }

    /// The server as docs/teams.md sets one up: a plain `git init --bare` with no rollout.format,
    /// the hook in it, and the whole history pushed by `rollout sync` (the first push: every commit
    /// from the first is checked). Then one push of 201 changes made offline, the first retracting
    /// metrics the server took before (checked against what the server's tip holds), lands; a
    /// forged commit after them does not.
    func testAPlainBareServerTakesTheWholeHistoryAndTwoHundredChangesInOnePush() throws {
        let w = try HealthDecisionTests.stagedInTR()
        let server = w.scratch.path("server/packs.git")
        XCTAssertEqual(try git(w, ["init", "--bare", "--quiet", server]).status, 0)
        try installHook(in: server)
        XCTAssertEqual(try w.rollout("remote", "add", "origin", server).status, 0)
        let first = try w.rollout("sync")
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertEqual(try revParse(w, server, "main"), try revParse(w, w.repository, "main"))

        let retracted = try w.rollout(
            "--offline", "metrics", "retract", MetricsIngestTests.examples + "/crashes-healthy.csv", "--reason", "twice"
        )
        XCTAssertEqual(retracted.status, 0, retracted.output)
        for percent in 1...100 {
            for id in ["en-US@1", "vi-VN@3"] {
                let promoted = try w.rollout(
                    "--offline", "promote", id, "--to", "\(percent)%", "--force", "--reason", "step")
                XCTAssertEqual(promoted.status, 0, promoted.output)
            }
        }
        let started = Date()
        let synced = try w.rollout("sync")
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(synced.status, 0, synced.output)
        XCTAssertEqual(try revParse(w, server, "main"), try revParse(w, w.repository, "main"))
        XCTAssertLessThan(seconds, 10, "201 changes through the hook in one push")
        print("PreReceiveHookTests: a push of 201 changes through the hook took \(String(format: "%.2f", seconds)) s")

        let landed = try refs(w, server)
        let forged = try forgedCommit(w, clone: w.repository)
        let pushed = try git(w, ["--git-dir", w.repository, "push", "origin", "\(forged):refs/heads/main"])
        XCTAssertNotEqual(pushed.status, 0, pushed.output)
        XCTAssertTrue(pushed.stderr.contains("remote: rollout: refused \(forged.prefix(12)): "), pushed.stderr)
        XCTAssertEqual(try refs(w, server), landed)
    }

    /// The hook as git runs it, with `lines` on its standard input, in `repository` (GIT_DIR).
    private func hook(_ w: Workspace, _ repository: String, _ lines: String, json: Bool = false) throws -> RunResult {
        let input = try w.scratch.write("hook-input-\(UUID().uuidString)", Data(lines.utf8))
        let command = "exec \"$0\" hook pre-receive \(json ? "--json " : "")< '\(input)'"
        return try Processes.run(
            "/bin/sh", ["-c", command, Processes.rolloutBinary], in: w.root,
            environment: w.environment.merging(["GIT_DIR": repository]) { $1 })
    }

    /// What git writes is read exactly: a line that is not `OLD NEW REF` is a usage error naming
    /// it; an update along first parents passes in silence; a merge whose first parents do not
    /// reach the old tip is a rewrite (text and --json), while other refs pass unread; a pack-add
    /// whose pack is not what its name says, and a promote whose plan names a pack not held, are
    /// refused.
    func testTheHookReadsGitsLinesAndRefusesAMergeOntoMain() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let tip = try revParse(w, w.repository, "main")
        let before = try revParse(w, w.repository, "main~1")

        let garbage = try hook(w, w.repository, "\(before) \(tip)\n")
        XCTAssertEqual(garbage.status, 64, garbage.output)
        XCTAssertTrue(garbage.stderr.contains("line 1 of standard input is not OLD NEW REF"), garbage.stderr)

        let forward = try hook(w, w.repository, "\(before) \(tip) refs/heads/main\n")
        XCTAssertEqual(forward.status, 0, forward.output)
        XCTAssertEqual(forward.output, "")

        let tree = try revParse(w, w.repository, "main^{tree}")
        let side = try git(w, ["--git-dir", w.repository, "commit-tree", tree, "-p", before, "-m", "side"])
        let sideID = side.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let merge = try git(
            w, ["--git-dir", w.repository, "commit-tree", tree, "-p", sideID, "-p", tip, "-m", "merge"])
        let mergeID = merge.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let zero = String(repeating: "0", count: 40)
        let lines = "\(tip) \(mergeID) refs/heads/main\n\(zero) \(mergeID) refs/heads/topic\n"
        let refused = try hook(w, w.repository, lines)
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertEqual(
            refused.stderr.split(separator: "\n").first.map(String.init),
            "rollout: refused \(mergeID.prefix(12)): it does not continue refs/heads/main at \(tip.prefix(12)) "
                + "(a force push, or a merge); rollout's history only grows")
        let json = try hook(w, w.repository, lines, json: true)
        XCTAssertEqual(json.status, 1, json.output)
        let document = try w.json(json)
        XCTAssertEqual(document["ok"] as? Bool, false)
        let refusals = try XCTUnwrap(document["refused"] as? [[String: Any]])
        XCTAssertEqual(refusals.map { $0["ref"] as? String }, ["refs/heads/main"])
        XCTAssertEqual(try revParse(w, w.repository, "main"), tip, "the hook moves no ref")

        // An annotated tag as main's new tip: not a commit.
        XCTAssertEqual(try git(w, ["--git-dir", w.repository, "tag", "-a", "-m", "tag", "v1", "main"]).status, 0)
        let tag = try revParse(w, w.repository, "v1")
        let tagged = try hook(w, w.repository, "\(tip) \(tag) refs/heads/main\n")
        XCTAssertEqual(tagged.status, 1, tagged.output)
        XCTAssertTrue(
            tagged.stderr.hasPrefix("rollout: refused \(tag.prefix(12)): it is not a commit"), tagged.stderr)

        // A pack-add commit whose trailers and paths agree, but whose pack is tr-TR@18's bytes
        // under tr-TR@19's name, with no record beside it: verify's pack checks refuse it.
        let copied = try String(contentsOfFile: Fixtures.examplePack("tr-TR@18"), encoding: .utf8)
        let added = try plumbedCommit(
            w, w.repository, path: "packs/tr-TR/0/19.json", content: copied,
            message:
                "pack add tr-TR@19\n\nRollout-Action: pack-add\nRollout-Actor: Mallory <mallory@example.com>\nRollout-Pack: tr-TR@19\n"
        )
        let pack = try hook(w, w.repository, "\(tip) \(added) refs/heads/main\n")
        XCTAssertEqual(pack.status, 1, pack.output)
        XCTAssertTrue(
            pack.stderr.hasPrefix(
                "rollout: refused \(added.prefix(12)): packs/tr-TR/0/19.json: holds tr-TR@18, not tr-TR@19; "
                    + "packs/tr-TR/0/19.meta.json: is missing or damaged\n"), pack.stderr)

        // A promote whose plan gives a pack the repository does not hold.
        let plan = """
            {"baseline": {"contentVersion": 99, "minAppVersion": "4.8.0"}, "blocked": [], "bundledOnly": false, \
            "lastChange": {"action": "complete", "actor": "Mallory <mallory@example.com>", "time": "2026-12-06T10:00:00Z"}, \
            "locale": "tr-TR", "previousBaselines": [], "rules": [], "sequence": 1, "withdrawn": []}
            """
        let promoted = try plumbedCommit(
            w, w.repository, path: "plans/tr-TR.json", content: plan,
            message:
                "promote tr-TR@99 to 100%\n\nRollout-Action: promote\nRollout-Actor: Mallory <mallory@example.com>\nRollout-Locale: tr-TR\n"
        )
        let planned = try hook(w, w.repository, "\(tip) \(promoted) refs/heads/main\n")
        XCTAssertEqual(planned.status, 1, planned.output)
        XCTAssertTrue(
            planned.stderr.hasPrefix(
                "rollout: refused \(promoted.prefix(12)): plans/tr-TR.json: names tr-TR@99 as a baseline; "
                    + "the repository does not hold it\n"), planned.stderr)
    }

    /// A promote written by a rollout that does not know experiments (a stale binary on one
    /// operator's machine) rewrites the plan without the running experiment: the hook refuses it, as
    /// verify reports it (docs/experiments.md, "What is stored").
    func testAPlanThatDropsARunningExperimentIsRefused() throws {
        let w = try Workspace()
        try w.initWithExamples()
        for arguments in [
            ["promote", "tr-TR@17", "--to", "100%"],
            ["experiment", "start", "t", "--variants", "tr-TR@17,tr-TR@18", "--metric", "checkout"],
        ] {
            let result = try w.rollout(arguments)
            XCTAssertEqual(result.status, 0, result.output)
        }
        let tip = try revParse(w, w.repository, "main")
        var plan = try XCTUnwrap(
            try JSONSerialization.jsonObject(
                with: Data(try git(w, ["--git-dir", w.repository, "show", "main:plans/tr-TR.json"]).stdout.utf8))
                as? [String: Any])
        plan["experiment"] = nil
        let content = String(decoding: try JSONSerialization.data(withJSONObject: plan), as: UTF8.self)
        let promoted = try plumbedCommit(
            w, w.repository, path: "plans/tr-TR.json", content: content,
            message:
                "promote tr-TR@18 to 10%\n\nRollout-Action: promote\nRollout-Locale: tr-TR\nRollout-Actor: Old <old@example.com>\n"
        )
        let refused = try hook(w, w.repository, "\(tip) \(promoted) refs/heads/main\n")
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("experiments/t.json: says it runs, but the plan of tr-TR does not run it"),
            refused.stderr)
        XCTAssertEqual(
            try hook(w, w.repository, "\(try revParse(w, w.repository, "main~1")) \(tip) refs/heads/main\n").status, 0)
    }

    /// `Rollout-Plans` (docs/audit.md, "The Rollout-Plans trailer"): a clone's log index is built
    /// from it, so one that does not say what the commit did to the plans is refused by the hook and
    /// reported by verify. A commit without one (plain git), or with one rollout does not write so,
    /// is read from its trees; one that is well formed is believed, which is why verify checks it.
    func testARolloutPlansTrailerThatMisstatesThePlansIsRefusedAndVerifyNamesIt() throws {
        let w = try Workspace()
        try w.initWithExamples()
        for arguments in [["tr-TR@17", "--to", "100%"], ["tr-TR@18", "--to", "10%", "--region", "TR", "--force"]] {
            let promoted = try w.rollout(["promote"] + arguments + ["--reason", "setup"])
            XCTAssertEqual(promoted.status, 0, promoted.output)
        }
        let good = try revParse(w, w.repository, "main")
        let plan = try git(w, ["--git-dir", w.repository, "show", "main:plans/tr-TR.json"]).stdout
        XCTAssertTrue(plan.contains("\"basisPoints\": 1000"), plan)
        // Three commits raising TR's share, made with git plumbing: without the trailer, with one
        // rollout does not write so, and with one that names DE where the change altered TR.
        var made: [String] = []
        for (share, trailer) in [("3000", nil), ("4000", "tr-TR garbage"), ("5000", "lie")] as [(String, String?)] {
            let content = plan.replacingOccurrences(of: "\"basisPoints\": 1000", with: "\"basisPoints\": \(share)")
            let before = try revParse(w, w.repository, "main:plans/tr-TR.json")
            let file = try w.scratch.write("plan-\(share).json", Data(content.utf8))
            let after = try git(w, ["hash-object", file]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let said = trailer == "lie" ? "tr-TR \(before) \(after) DE" : trailer
            let message =
                "promote tr-TR@18 to \(share.dropLast(2))%\n\nRollout-Action: promote\nRollout-Locale: tr-TR\n"
                + (said.map { "Rollout-Plans: \($0)\n" } ?? "") + "Rollout-Actor: Mallory <mallory@example.com>\n"
            let commit = try plumbedCommit(
                w, w.repository, path: "plans/tr-TR.json", content: content, message: message)
            XCTAssertEqual(try git(w, ["--git-dir", w.repository, "update-ref", "refs/heads/main", commit]).status, 0)
            made.append(commit)
        }
        let (plain, garbled, lying) = (made[0], made[1], made[2])
        let lie = "Rollout-Plans says tr-TR \(try revParse(w, w.repository, "\(garbled):plans/tr-TR.json")) "
        let truth = "but the plans it changed give tr-TR "

        let refused = try hook(w, w.repository, "\(good) \(lying) refs/heads/main\n")
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(
            refused.stderr.contains(
                "\(garbled.prefix(12)): has a Rollout-Plans trailer rollout does not write so (tr-TR garbage)"),
            refused.stderr)
        XCTAssertTrue(refused.stderr.contains(lie), refused.stderr)
        XCTAssertTrue(
            refused.stderr.range(
                of: #" DE, but the plans it changed give tr-TR [0-9a-f]{40} [0-9a-f]{40} TR;"#,
                options: .regularExpression) != nil, refused.stderr)

        // Landed anyway (a server without the hook): verify names both; the two commits it cannot
        // read from a trailer are in the log, the one whose trailer says DE is not in TR's.
        let verified = try w.rollout("verify")
        XCTAssertNotEqual(verified.status, 0, verified.output)
        XCTAssertTrue(verified.output.contains("commit \(lying.prefix(12)): \(lie)"), verified.output)
        XCTAssertTrue(verified.output.contains(truth), verified.output)
        let log = try w.rollout("log", "--segment", "TR/4.8")
        XCTAssertEqual(log.status, 0, log.output)
        XCTAssertTrue(log.stdout.contains(plain.prefix(12)) && log.stdout.contains(garbled.prefix(12)), log.stdout)
        XCTAssertFalse(log.stdout.contains(lying.prefix(12)), log.stdout)
    }
}
