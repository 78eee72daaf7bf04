import Foundation
import XCTest

/// `rollout verify` and `rollout log` against real signatures (docs/audit.md, "Who made each change:
/// verified signers"): ssh-keygen keys, commits signed by git itself, and rollout's verdict held to
/// `git verify-commit` with the allowed-signers file in force at each change.
final class SignatureVerifyTests: XCTestCase {
    let ana = ["ROLLOUT_ACTOR": "Ana Release <ana@example.com>"]
    let bot = ["ROLLOUT_ACTOR": "Guard Bot <bot@example.com>"]

    /// Runs rollout, asserting it worked.
    func run(
        _ w: Workspace, _ arguments: [String], env: [String: String], file: StaticString = #filePath, line: UInt = #line
    )
        throws
    {
        let result = try w.rollout(arguments, env: env)
        XCTAssertEqual(
            result.status, 0, "rollout \(arguments.joined(separator: " ")): \(result.output)", file: file, line: line)
    }

    /// A repository whose history after its signers holds one change of each kind: good, signed by a
    /// key no signer has, changed after signing, a forged actor, a bot's promote, a bot's revert.
    /// Returns the commits of each, by name.
    func mixedHistory(_ w: Workspace, _ s: GitSigning) throws -> [String: String] {
        try w.initWithExamples()
        let anaKey = try s.sshKey("ana")
        let botKey = try s.sshKey("bot")
        let eveKey = try s.sshKey("eve")
        var commits: [String: String] = [:]
        try run(
            w, ["signers", "add", "ana@example.com", "--key", anaKey + ".pub", "--role", "admin,release"], env: ana)
        commits["first signers"] = try s.signTip(anaKey)
        try run(w, ["signers", "add", "bot@example.com", "--key", botKey + ".pub", "--role", "bot"], env: ana)
        try s.signTip(anaKey)
        try run(w, ["promote", "en-US@1", "--to", "100%"], env: ana)
        commits["good"] = try s.signTip(anaKey)
        try run(w, ["promote", "tr@1", "--to", "100%"], env: ana)
        commits["unknown key"] = try s.signTip(eveKey)
        try run(w, ["promote", "tr-TR@17", "--to", "100%"], env: ana)
        try s.signTip(anaKey)
        commits["tampered"] = try s.tamperTip()
        try run(w, ["promote", "tr-TR@18", "--to", "10%", "--region", "TR"], env: ana)
        try s.signTip(anaKey)
        try run(w, ["revert", "tr-TR", "--reason", "crash spike"], env: ana)
        commits["forged actor"] = try s.signTip(botKey)
        try run(w, ["pack", "add", try w.packVariant(of: "tr-TR@18", version: 19)], env: ana)
        try s.signTip(anaKey)
        try run(w, ["promote", "tr-TR@19", "--to", "10%", "--region", "TR"], env: bot)
        commits["bot promote"] = try s.signTip(botKey)
        try run(w, ["revert", "tr-TR", "--reason", "guard: crash rate"], env: bot)
        commits["bot revert"] = try s.signTip(botKey)
        return commits
    }

    func testVerifyFlagsExactlyTheBadChangesAndAgreesWithGitVerifyCommit() throws {
        let w = try Workspace()
        let s = GitSigning(w: w)
        let commits = try mixedHistory(w, s)
        let verify = try w.rollout("verify", "--json")
        XCTAssertEqual(verify.status, 1, verify.output)
        let problems = try XCTUnwrap(try w.json(verify)["problems"] as? [[String: Any]])
        var flagged: [String: [String]] = [:]
        for problem in problems {
            flagged[problem["commit"] as? String ?? "", default: []].append(problem["message"] as? String ?? "")
        }
        func short(_ name: String) -> String { String(commits[name]!.prefix(12)) }
        XCTAssertEqual(
            Set(flagged.keys), Set(["unknown key", "tampered", "forged actor", "bot promote"].map(short)),
            verify.output)
        XCTAssertEqual(
            flagged[short("unknown key")],
            ["is signed by \(try fingerprint(w, "eve")), a key no allowed signer held at this change"])
        XCTAssertEqual(flagged[short("tampered")]?.count, 1)
        XCTAssertTrue(flagged[short("tampered")]?.first?.hasPrefix("has a bad signature") == true)
        XCTAssertEqual(
            flagged[short("forged actor")],
            ["claims Rollout-Actor Ana Release <ana@example.com>, but bot@example.com signed it: a forged actor"])
        XCTAssertEqual(
            flagged[short("bot promote")],
            ["is a promote signed by bot@example.com, whose roles (bot) may not sign it"])

        // Each change's verdict is git's: verified exactly when git verify-commit accepts it with the
        // allowed signers of its parent (the first signers change: its own).
        let segment = try w.rollout("log", "--segment", "TR/4.8", "--verify")
        XCTAssertTrue(
            segment.stdout.contains("  signer: actor mismatch\n"), "the auditor's question: \(segment.stdout)")
        let log = try w.rollout("log", "--verify", "--limit", "0", "--json")
        XCTAssertEqual(log.status, 0, log.output)
        let entries = try XCTUnwrap(try w.json(log)["changes"] as? [[String: Any]])
        let history = try s.history()
        let start = try XCTUnwrap(history.firstIndex(of: commits["first signers"]!))
        for (index, commit) in history.enumerated() where index >= start {
            let entry = try XCTUnwrap(entries.first { $0["commit"] as? String == commit })
            let status = (entry["signature"] as? [String: Any])?["status"] as? String
            let at = index == start ? commit : history[index - 1]
            XCTAssertEqual(try s.gitVerifies(commit, signersAt: at), status == "verified", "\(commit): \(status ?? "")")
        }
        let text = try w.rollout("log", "--limit", "0").stdout
        XCTAssertTrue(text.contains("Ana Release <ana@example.com>  signer: ana@example.com\n"), text)
        XCTAssertTrue(text.contains("signer: not allowed (\(try fingerprint(w, "eve")))"), text)
        XCTAssertTrue(text.contains("signer: bad signature"), text)
        XCTAssertTrue(text.contains("signer: actor mismatch"), text)
        XCTAssertTrue(
            text.contains("Guard Bot <bot@example.com>  signer: bot@example.com\n"), "a bot's revert: \(text)")

        // The report's history shows the signer beside the actor too.
        XCTAssertEqual(try w.rollout("report", "tr-TR", "--out", "report.html").status, 0)
        let page = try String(contentsOfFile: w.work + "/report.html", encoding: .utf8)
        XCTAssertTrue(page.contains("Guard Bot &lt;bot@example.com&gt; (signer: bot@example.com)"), page)
        XCTAssertTrue(page.contains("Ana Release &lt;ana@example.com&gt; (signer: actor mismatch)"), page)
        XCTAssertTrue(page.contains("(signer: bad signature)"), page)
        // report --all checks each change once for every page, and shows the same signers.
        let all = try w.rollout("report", "--all", "--out", "reports")
        XCTAssertEqual(all.status, 0, all.output)
        let allPage = try String(contentsOfFile: w.work + "/reports/tr-TR.html", encoding: .utf8)
        XCTAssertTrue(allPage.contains("Ana Release &lt;ana@example.com&gt; (signer: actor mismatch)"), allPage)
    }

    /// `ssh-keygen -lf`'s fingerprint of a test key.
    func fingerprint(_ w: Workspace, _ name: String) throws -> String {
        let result = try Processes.run(
            "/usr/bin/env", ["ssh-keygen", "-lf", w.scratch.path("keys/\(name).pub")], in: w.root,
            environment: w.environment)
        return String(result.stdout.split(separator: " ")[1])
    }

    func testRequireSignedFlagsUnsignedChangesAndSinceChecksOnlyTheNewOnes() throws {
        let w = try Workspace()
        let s = GitSigning(w: w)
        try w.initWithExamples()
        let anaKey = try s.sshKey("ana")
        XCTAssertEqual(try w.rollout("verify").status, 0, "no signers: nothing to check")
        try run(
            w, ["signers", "add", "ana@example.com", "--key", anaKey + ".pub", "--role", "admin,release"], env: ana)
        try s.signTip(anaKey)
        let base = try w.stateTip()
        try run(w, ["promote", "en-US@1", "--to", "100%"], env: ana)
        try s.signTip(anaKey)
        try run(w, ["promote", "tr@1", "--to", "100%"], env: ana)
        let unsigned = try w.stateTip()

        let plain = try w.rollout("verify")
        XCTAssertEqual(plain.status, 0, "unsigned is no problem unless required: \(plain.output)")
        XCTAssertTrue(plain.stdout.contains("5 signature(s) checked: 2 verified, 3 unsigned.\n"), plain.stdout)
        let required = try w.rollout("verify", "--require-signed")
        XCTAssertEqual(required.status, 1, required.output)
        XCTAssertTrue(
            required.stdout.contains("commit \(unsigned.prefix(12)): is not signed, and signing is required\n"),
            required.stdout)
        XCTAssertEqual(required.stdout.components(separatedBy: "is not signed").count - 1, 3, "init, pack add, tr@1")

        let since = try w.rollout("verify", "--since", base, "--require-signed")
        XCTAssertEqual(since.status, 1, since.output)
        XCTAssertEqual(since.stdout.components(separatedBy: "is not signed").count - 1, 1, since.stdout)
        XCTAssertTrue(since.stdout.contains("2 signature(s) checked since \(base): 1 verified, 1 unsigned.\n"))
        try s.signTip(anaKey)
        let clean = try w.rollout("verify", "--since", base, "--require-signed")
        XCTAssertEqual(clean.status, 0, "the CI status check passes once the new changes are signed: \(clean.output)")
        let bad = try w.rollout("verify", "--since", "no-such-ref")
        XCTAssertEqual(bad.status, 66, bad.output)
        // Without ssh-keygen there is no verdict to give: 69, never a bad signature.
        let bin = w.scratch.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let missing = try w.rollout("verify", env: ["PATH": bin])
        XCTAssertEqual(missing.status, 69, missing.output)
        XCTAssertEqual(missing.stderr, "rollout: ssh-keygen is not installed: checking signatures needs it\n")
    }

    /// Once signers exist, a change of trust (the signers, the policy, the keys) is checked whether
    /// or not signing is required: an unsigned one written with plain git that deletes `signers/`
    /// is found, and verify keeps checking after it although the tip has no signers left.
    func testAnUnsignedChangeThatDeletesTheSignersIsFoundWithoutRequireSigned() throws {
        let w = try Workspace()
        let s = GitSigning(w: w)
        try w.initWithExamples()
        let anaKey = try s.sshKey("ana")
        try run(
            w, ["signers", "add", "ana@example.com", "--key", anaKey + ".pub", "--role", "admin,release"], env: ana)
        try s.signTip(anaKey)
        try run(w, ["promote", "en-US@1", "--to", "100%"], env: ana)
        XCTAssertEqual(try w.rollout("verify").status, 0, "an unsigned promote is no problem unless required")

        let tip = try s.git(["rev-parse", "refs/heads/main"])
        let tree = try s.git(["rev-parse", "\(tip)^{tree}"])
        let entries = try s.git(["ls-tree", tree]).components(separatedBy: "\n").filter { !$0.hasSuffix("\tsigners") }
        let listing = try w.scratch.write("tree-without-signers", entries.joined(separator: "\n") + "\n")
        let bare = try Processes.run(
            "/bin/sh", ["-c", "git --git-dir \"$0\" mktree < \"$1\"", w.repository, listing], in: w.root,
            environment: w.environment)
        XCTAssertEqual(bare.status, 0, bare.output)
        let message = try w.scratch.write(
            "forged-message",
            "signers: remove ana@example.com\n\nRollout-Action: signers\nRollout-Actor: Mallory <mallory@example.com>\n"
        )
        let mallory = ["GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": "mallory@example.com"]
        let forged = try s.git(
            ["commit-tree", bare.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "-p", tip, "-F", message],
            env: mallory.merging(["GIT_COMMITTER_NAME": "Mallory", "GIT_COMMITTER_EMAIL": "mallory@example.com"]) { $1 }
        )
        try s.move(from: tip, to: forged)

        let verify = try w.rollout("verify")
        XCTAssertEqual(verify.status, 1, verify.output)
        XCTAssertTrue(
            verify.stdout.contains("commit \(forged.prefix(12)): is not signed, and signing is required\n"),
            verify.stdout)
        XCTAssertEqual(verify.stdout.components(separatedBy: "is not signed").count - 1, 1, verify.stdout)
    }

    /// Randomized and model-based: three clones of one remote, each signing every change with its
    /// own key (commit.gpgSign): Ana's (admin, release), the bot's (bot) and Eve's (no signer's).
    /// Each step is one of: a tester change Ana signs as herself (good); a change made with
    /// --no-sign in any clone; a change from Eve's clone; a change signed by Ana's or the bot's key
    /// claiming the other (--actor: a forged actor); the bot's change of testers, which only a
    /// release signer may make; or a clone's sync. Every change lands through the remote, so each
    /// clone catches up with the others first. The model records which changes are bad; at the end
    /// `verify --require-signed --json` flags exactly those, and plain `git verify-commit` accepts
    /// exactly the changes signed by a signer's key. The seed is fixed (35) unless
    /// `SIGNATURE_SEED=N`; `SIGNATURE_STEPS=N` runs longer (scripts/signing-model.sh).
    func testRequireSignedFlagsExactlyTheBadChangesOfThreeClonesSyncing() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["SIGNATURE_SEED"].flatMap { UInt64($0) } ?? 35
        let steps = environment["SIGNATURE_STEPS"].flatMap { Int($0) } ?? 24
        var random = SeededGenerator(seed: seed)
        let w = try Workspace()
        let s = GitSigning(w: w)
        let clones = try threeSigningClones(w, s)
        let start = try w.stateTip()
        let actors = ["ana": ana, "bot": bot, "eve": ["ROLLOUT_ACTOR": "Eve <eve@example.com>"]]
        var bad: Set<String> = []
        var signedByASigner: Set<String> = []
        var kinds: [String] = []
        for step in 0..<steps {
            let kind = random.pick(["good", "good", "unsigned", "outsider", "forged", "bot role", "sync"])
            kinds.append(kind)
            var who =
                ["good": "ana", "outsider": "eve", "bot role": "bot"][kind] ?? random.pick(["ana", "bot", "eve"])
            var flags: [String] = []
            switch kind {
            case "sync":
                try run(w, ["--repo", clones[who]!, "sync"], env: actors[who]!)
                continue
            case "unsigned": flags = ["--no-sign"]
            case "forged":
                who = random.pick(["ana", "bot"])
                flags = ["--actor", who == "ana" ? "Guard Bot <bot@example.com>" : "Ana Release <ana@example.com>"]
            default: break
            }
            try run(
                w, flags + ["--repo", clones[who]!, "testers", "add", "qa", "--install-id", "phone-\(step)"],
                env: actors[who]!)
            let commit = try s.git(["--git-dir", clones[who]!, "rev-parse", "refs/heads/main"])
            if kind != "good" { bad.insert(commit) }
            if kind != "unsigned" && who != "eve" { signedByASigner.insert(commit) }
        }
        try run(w, ["sync"], env: ana)
        let verify = try w.rollout("verify", "--require-signed", "--since", start, "--json")
        let problems = try XCTUnwrap(try w.json(verify)["problems"] as? [[String: Any]], verify.output)
        let flagged = Set(problems.compactMap { $0["commit"] as? String })
        let replay = "seed \(seed), \(steps) steps (SIGNATURE_SEED=\(seed)): \(kinds)"
        XCTAssertEqual(flagged, Set(bad.map { String($0.prefix(12)) }), "\(replay): \(verify.stdout)")
        XCTAssertEqual(verify.status, bad.isEmpty ? 0 : 1, replay)
        for commit in try s.git(["rev-list", "--first-parent", "\(start)..refs/heads/main"]).split(separator: "\n") {
            XCTAssertEqual(
                try s.gitVerifies(String(commit), signersAt: "\(commit)^"), signedByASigner.contains(String(commit)),
                "\(replay): git verify-commit on \(commit)")
        }
        print("SignatureVerifyTests: seed \(seed), \(steps) steps, \(bad.count) bad change(s) flagged")
    }

    /// This workspace's repository (Ana's clone) and two clones of the same remote (a plain bare
    /// repository), each signing with its own key: Ana's (admin, release) and the bot's (bot) are
    /// signers, added by Ana; Eve's is no signer's. The clones by name.
    func threeSigningClones(_ w: Workspace, _ s: GitSigning) throws -> [String: String] {
        XCTAssertEqual(try w.rollout("init").status, 0)
        var keys: [String: String] = [:]
        for name in ["ana", "bot", "eve"] { keys[name] = try s.sshKey(name) }
        var clones = ["ana": w.repository]
        try signEveryChange(s, w.repository, key: keys["ana"]!)
        for (name, roles) in [("ana", "admin,release"), ("bot", "bot")] {
            try run(
                w, ["signers", "add", "\(name)@example.com", "--key", keys[name]! + ".pub", "--role", roles], env: ana)
        }
        let server = w.scratch.path("server/model.git")
        let created = try Processes.run(
            "/usr/bin/env", ["git", "init", "--bare", "--quiet", server], in: w.root, environment: w.environment)
        XCTAssertEqual(created.status, 0, created.output)
        try run(w, ["remote", "add", "origin", server], env: ana)
        try run(w, ["sync"], env: ana)
        for name in ["bot", "eve"] {
            clones[name] = w.scratch.path("clone-\(name)")
            try run(w, ["clone", server, clones[name]!], env: ana)
            try signEveryChange(s, clones[name]!, key: keys[name]!)
        }
        return clones
    }

    /// Makes `repository` sign every change with the ssh key at `key`, as git config asks.
    func signEveryChange(_ s: GitSigning, _ repository: String, key: String) throws {
        for (name, value) in [("gpg.format", "ssh"), ("user.signingKey", key), ("commit.gpgSign", "true")] {
            try s.git(["--git-dir", repository, "config", name, value])
        }
    }

    /// The policy's `signing.requireSigned` makes unsigned a problem as `--require-signed` does, and
    /// rollout itself refuses an unsigned change once it is in force (the admission check).
    func testThePolicyCanRequireSignedChanges() throws {
        let w = try Workspace()
        let s = GitSigning(w: w)
        XCTAssertEqual(try w.rollout("init").status, 0)
        let anaKey = try s.sshKey("ana")
        try run(
            w, ["signers", "add", "ana@example.com", "--key", anaKey + ".pub", "--role", "admin,release"], env: ana)
        try s.signTip(anaKey)
        let base = try w.stateTip()
        // Unsigned, before the policy asks for signatures: accepted then, flagged once it does.
        try run(w, ["testers", "add", "qa", "--install-id", "phone-1"], env: ana)
        let unsigned = try w.stateTip()
        let policy = try w.scratch.write("policy.json", #"{"signing": {"requireSigned": true}}"#)
        try run(w, ["policy", "set", policy], env: ana)
        try s.signTip(anaKey)
        let shown = try w.rollout("policy", "show", "--json")
        XCTAssertEqual(
            (try w.json(shown)["signing"] as? [String: Any])?["requireSigned"] as? Bool, true, shown.output)
        let verify = try w.rollout("verify", "--since", base)
        XCTAssertEqual(verify.status, 1, verify.output)
        XCTAssertTrue(
            verify.stdout.contains("commit \(unsigned.prefix(12)): is not signed, and signing is required\n"),
            verify.stdout)
        let tip = try w.stateTip()
        let refused = try w.rollout(["testers", "add", "qa", "--install-id", "phone-2"], env: ana)
        XCTAssertEqual(refused.status, 77, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("this testers-add cannot be admitted: it is not signed, and signing is required"),
            refused.stderr)
        XCTAssertEqual(try w.stateTip(), tip, "nothing changed")
    }

    /// Changes rollout signs itself (commit.gpgSign): verified as the signer; a change claiming Ana
    /// (--actor) signed with guard's key is an actor mismatch, and git verify-commit agrees on whose
    /// key signed each.
    func testChangesRolloutSignsItselfAreVerifiedAndAForgedActorIsCaught() throws {
        let w = try Workspace()
        let s = GitSigning(w: w)
        try w.initWithExamples()
        let anaKey = try s.sshKey("ana")
        let guardKey = try s.sshKey("guard")
        for (name, value) in [("gpg.format", "ssh"), ("user.signingKey", anaKey), ("commit.gpgSign", "true")] {
            try s.git(["config", name, value])
        }
        try run(
            w, ["signers", "add", "ana@example.com", "--key", anaKey + ".pub", "--role", "admin,release"], env: ana)
        try run(w, ["signers", "add", "guard@example.com", "--key", guardKey + ".pub", "--role", "bot"], env: ana)
        try run(w, ["promote", "en-US@1", "--to", "100%"], env: ana)
        let good = try w.stateTip()
        try s.git(["config", "user.signingKey", guardKey])
        try run(w, ["revert", "en-US", "--to", "bundled", "--reason", "kill switch"], env: ana)
        let forged = try w.stateTip()

        let log = try w.rollout("log", "--limit", "2", "--json")
        let signatures = try XCTUnwrap(try w.json(log)["changes"] as? [[String: Any]]).map {
            $0["signature"] as? [String: Any] ?? [:]
        }
        XCTAssertEqual(signatures.map { $0["principal"] as? String }, ["guard@example.com", "ana@example.com"])
        XCTAssertEqual(signatures.map { $0["status"] as? String }, ["verified", "verified"])
        XCTAssertEqual((signatures[0]["problems"] as? [String])?.count, 1, "the forged actor")
        let verify = try w.rollout("verify")
        XCTAssertEqual(verify.status, 1, verify.output)
        XCTAssertTrue(
            verify.stdout.contains("commit \(forged.prefix(12)): claims Rollout-Actor Ana Release"), verify.stdout)
        XCTAssertFalse(verify.stdout.contains("commit \(good.prefix(12))"), verify.stdout)
        XCTAssertTrue(try s.gitVerifies(good, signersAt: good + "^"))
        XCTAssertTrue(try s.gitVerifies(forged, signersAt: forged + "^"), "git: a good signature, by guard's key")
    }
}
