import Foundation
import XCTest

/// The two-person rule across two clones of one remote (docs/teams.md, "Two-person rule"): ana
/// (admin, release) proposes, bob (approver) approves, each with an ed25519 key of their own that
/// rollout signs with from the clone's git config; `git verify-commit` judges both signatures.
final class ApprovalTests: XCTestCase {
    let ana = ["ROLLOUT_ACTOR": "Ana Release <ana@example.com>"]
    let bob = ["ROLLOUT_ACTOR": "Bob Approver <bob@example.com>"]
    let bot = ["ROLLOUT_ACTOR": "Guard Bot <bot@example.com>"]

    /// A clone of `server` that signs every change with `key` (its own git config).
    func signingClone(_ w: Workspace, _ server: String, _ name: String, key: String) throws -> String {
        let clone = w.scratch.path(name)
        let cloned = try w.rollout("clone", server, clone)
        XCTAssertEqual(cloned.status, 0, cloned.output)
        for (name, value) in [("gpg.format", "ssh"), ("user.signingKey", key + ".pub"), ("commit.gpgSign", "true")] {
            XCTAssertEqual(try w.git("config", name, value, repository: clone).status, 0)
        }
        return clone
    }

    /// `rollout --repo CLONE ARGUMENTS` as `env`'s actor, asserting its exit status.
    @discardableResult
    func run(
        _ w: Workspace, _ clone: String, _ arguments: [String], env: [String: String], status: Int32 = 0,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> RunResult {
        let result = try w.rollout(["--repo", clone] + arguments, env: env)
        XCTAssertEqual(
            result.status, status, "rollout \(arguments.joined(separator: " ")): \(result.output)", file: file,
            line: line)
        return result
    }

    /// A shared remote whose signers are ana (admin, release), bob (approver) and bot (bot), whose
    /// policy asks an approver for a promote above 10%, with tr-TR@18 staged
    /// at 10% in TR and healthy crash counts; ana's and bob's clones (and bot's) of it.
    /// `url` is how the clones reach the server's repository (its path by default).
    func twoPeople(
        _ w: Workspace, approval: [String: Any] = ["promoteAbove": 10], url: (String) throws -> String = { $0 }
    ) throws -> (server: String, ana: String, bob: String, bot: String) {
        let server = try shared(w)
        let remote = try url(server)
        let s = GitSigning(w: w)
        let keys = try ["ana", "bob", "bot"].map { try s.sshKey($0) }
        let a = try signingClone(w, remote, "ana", key: keys[0])
        try run(
            w, a, ["signers", "add", "ana@example.com", "--key", keys[0] + ".pub", "--role", "admin,release"], env: ana)
        try run(w, a, ["signers", "add", "bob@example.com", "--key", keys[1] + ".pub", "--role", "approver"], env: ana)
        try run(w, a, ["signers", "add", "bot@example.com", "--key", keys[2] + ".pub", "--role", "bot"], env: ana)
        var policy =
            try JSONSerialization.jsonObject(
                with: Data(try w.git("show", "main:policy.json", repository: a).stdout.utf8)) as! [String: Any]
        policy["signing"] = ["approval": approval]
        let file = try w.scratch.write("policy.json", Data(try JSONSerialization.data(withJSONObject: policy)))
        try run(w, a, ["policy", "set", file], env: ana)
        try run(w, a, ["promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8"], env: ana)
        try run(
            w, a, ["metrics", "ingest", "--kind", "crash", MetricsIngestTests.examples + "/crashes-healthy.csv"],
            env: ana)
        let b = try signingClone(w, remote, "bob", key: keys[1])
        let c = try signingClone(w, remote, "bot", key: keys[2])
        return (server, a, b, c)
    }

    func serverTip(_ w: Workspace, _ server: String) throws -> String {
        try w.git("rev-parse", "main", repository: server).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether plain git accepts `commit`'s signature with the allowed-signers file of `at`.
    func gitVerifies(_ w: Workspace, _ server: String, _ commit: String, signersAt at: String) throws -> Bool {
        let allowed = try w.scratch.write(
            "allowed-\(commit)", try w.git("show", "\(at):signers/allowed_signers", repository: server).stdout)
        return try w.git(
            "-c", "gpg.ssh.allowedSignersFile=\(allowed)", "verify-commit", commit, repository: server
        ).status == 0
    }

    func testAnaProposesBobApprovesAndBothSignaturesVerify() throws {
        let w = try Workspace()
        let (server, a, b, _) = try twoPeople(w)
        // Not proposed: refused, nothing changed here or on the remote.
        let before = try serverTip(w, server)
        let refused = try run(w, a, ["promote", "tr-TR@18", "--to", "50%"], env: ana, status: 77)
        XCTAssertTrue(refused.stderr.contains("needs a second signer"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("a promote above 10%"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--propose"), refused.stderr)
        XCTAssertEqual(try serverTip(w, server), before)
        XCTAssertEqual(try w.git("rev-parse", "main", repository: a).stdout.trimmed, before)

        let proposed = try w.json(
            try run(w, a, ["promote", "tr-TR@18", "--to", "50%", "--propose", "--json"], env: ana))
        let id = try XCTUnwrap(proposed["proposal"] as? String)
        let proposal = try XCTUnwrap(proposed["commit"] as? String)
        XCTAssertEqual(try serverTip(w, server), before, "a proposal does not move main")
        XCTAssertEqual(
            try w.git("rev-parse", "refs/rollout/proposals/\(id)", repository: server).stdout.trimmed, proposal)

        let listed = try w.json(try run(w, b, ["proposals", "--json"], env: bob))
        let open = try XCTUnwrap((listed["proposals"] as? [[String: Any]])?.first)
        XCTAssertEqual(open["id"] as? String, id)
        XCTAssertEqual(open["proposer"] as? String, "ana@example.com")
        XCTAssertEqual(open["stale"] as? Bool, false)
        XCTAssertEqual(open["base"] as? String, before)
        XCTAssertTrue((open["summary"] as? String)?.contains("promote tr-TR@18 to 50%") == true, "\(open)")

        // Ana cannot approve her own change.
        let own = try run(w, a, ["approve", id], env: ana, status: 77)
        XCTAssertTrue(
            own.stderr.contains("ana@example.com proposed this promote and cannot approve their own change"), own.stderr
        )
        XCTAssertEqual(try serverTip(w, server), before)

        try run(w, b, ["approve", id, "--reason", "checked the crash numbers"], env: bob)
        let merge = try serverTip(w, server)
        let parents = try w.git("rev-list", "--parents", "-n", "1", merge, repository: server).stdout.trimmed
            .split(separator: " ").map(String.init)
        XCTAssertEqual(parents, [merge, before, proposal], "an approval is a merge of main's tip and the proposal")
        XCTAssertTrue(try gitVerifies(w, server, merge, signersAt: before), "bob's signature on the approval")
        XCTAssertTrue(try gitVerifies(w, server, proposal, signersAt: before), "ana's signature on the proposal")
        let message = try w.git("log", "-1", "--format=%B", merge, repository: server).stdout
        XCTAssertTrue(message.contains("Rollout-Actor: Ana Release <ana@example.com>"), message)
        XCTAssertTrue(message.contains("Rollout-Proposal: \(proposal)"), message)
        XCTAssertTrue(message.contains("Rollout-Approver: Bob Approver <bob@example.com>"), message)
        XCTAssertTrue(message.contains("Rollout-Approver-Reason: checked the crash numbers"), message)
        XCTAssertEqual(
            try w.git("ls-remote", server, "refs/rollout/proposals/*", repository: server).stdout, "",
            "the proposal is gone from the remote")

        let log = try run(w, b, ["log", "--segment", "TR/4.8"], env: bob).stdout
        XCTAssertTrue(log.contains("signer: ana@example.com, approved by bob@example.com"), log)
        let logged = try w.json(try run(w, b, ["log", "--limit", "1", "--json"], env: bob))
        let signature = try XCTUnwrap((logged["changes"] as? [[String: Any]])?.first?["signature"] as? [String: Any])
        XCTAssertEqual(signature["status"] as? String, "verified")
        XCTAssertEqual(signature["principal"] as? String, "bob@example.com", "who signed the applied commit")
        XCTAssertEqual(signature["proposer"] as? String, "ana@example.com")
        XCTAssertEqual(signature["approver"] as? String, "bob@example.com")
        try run(w, b, ["verify"], env: bob)
        try run(w, b, ["verify", "--require-signed", "--since", before], env: bob)
        XCTAssertTrue(try run(w, b, ["proposals"], env: bob).stdout.contains("No open proposals."))

        // An approval that applies other content than its proposal (the share raised from 50% to
        // 100%), written with plain git over the same parents and message: verify names the path.
        let plan = try w.git("show", "\(merge):plans/tr-TR.json", repository: b).stdout
        XCTAssertTrue(plan.contains("\"basisPoints\": 5000"), plan)
        let raised = try w.scratch.write(
            "raised-plan", plan.replacingOccurrences(of: "\"basisPoints\": 5000", with: "\"basisPoints\": 10000"))
        let blob = try w.git("hash-object", "-w", raised, repository: b).stdout.trimmed
        let index = w.scratch.path("forged-index")
        let git = { (arguments: [String]) throws -> String in
            let result = try Processes.run(
                "/usr/bin/env", ["git", "--git-dir", b] + arguments, in: w.root,
                environment: w.environment.merging([
                    "GIT_INDEX_FILE": index, "GIT_AUTHOR_NAME": "Bob Approver", "GIT_AUTHOR_EMAIL": "bob@example.com",
                    "GIT_COMMITTER_NAME": "Bob Approver", "GIT_COMMITTER_EMAIL": "bob@example.com",
                ]) { $1 })
            XCTAssertEqual(result.status, 0, result.output)
            return result.stdout.trimmed
        }
        _ = try git(["read-tree", merge])
        _ = try git(["update-index", "--cacheinfo", "100644,\(blob),plans/tr-TR.json"])
        let tree = try git(["write-tree"])
        let messageFile = try w.scratch.write("forged-approval", message)
        let forged = try git(["commit-tree", tree, "-p", before, "-p", proposal, "-F", messageFile])
        _ = try git(["update-ref", "refs/heads/main", forged, merge])
        let verify = try w.rollout(["verify", "--repo", b], env: bob)
        XCTAssertEqual(verify.status, 1, verify.output)
        XCTAssertTrue(
            verify.stdout.contains(
                "commit \(forged.prefix(12)) plans/tr-TR.json: an approval that applies what its proposal \(proposal.prefix(12)) does not propose here"
            ), verify.stdout)
    }

    /// The proposal's id, from `--propose --json`.
    func propose(_ w: Workspace, _ clone: String, _ arguments: [String]) throws -> String {
        let made = try w.json(try run(w, clone, arguments + ["--propose", "--json"], env: ana))
        return try XCTUnwrap(made["proposal"] as? String)
    }

    func testAProposalGoesStaleWhenAnotherChangeToItsPlanLandsFirst() throws {
        let w = try Workspace()
        let (server, a, b, _) = try twoPeople(w)
        let id = try propose(w, a, ["promote", "tr-TR@18", "--to", "50%"])
        // A lower share needs nobody: it lands at once, on the plan the proposal changes.
        try run(w, a, ["promote", "tr-TR@18", "--to", "5%", "--reason", "fewer devices while we look"], env: ana)
        let listed = try w.json(try run(w, b, ["proposals", "--json"], env: bob))
        let open = try XCTUnwrap((listed["proposals"] as? [[String: Any]])?.first)
        XCTAssertEqual(open["stale"] as? Bool, true)
        XCTAssertEqual(open["stalePaths"] as? [String], ["plans/tr-TR.json"])
        XCTAssertTrue(try run(w, b, ["proposals"], env: bob).stdout.contains("stale"))
        let tip = try serverTip(w, server)
        let refused = try run(w, b, ["approve", id], env: bob, status: 1)
        XCTAssertTrue(
            refused.stderr.contains(
                "proposal \(id) is stale: main changed plans/tr-TR.json since it was proposed"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--propose"), refused.stderr)
        XCTAssertEqual(try serverTip(w, server), tip, "nothing changed")
        let unknown = try run(w, b, ["approve", "00000000"], env: bob, status: 66)
        XCTAssertTrue(unknown.stderr.contains("no open proposal 00000000 (open: \(id))"), unknown.stderr)
    }

    /// Ana swaps the healthy crash export for the one with a TR/4.8 spike: tr-TR@18 turns unhealthy.
    private func turnUnhealthy(_ w: Workspace, _ clone: String) throws {
        let healthy = MetricsIngestTests.examples + "/crashes-healthy.csv"
        try run(w, clone, ["metrics", "retract", healthy, "--reason", "wrong export"], env: ana)
        try run(
            w, clone,
            ["metrics", "ingest", "--kind", "crash", MetricsIngestTests.examples + "/crashes-spike-TR-4.8.csv"],
            env: ana)
    }

    func testAnApprovalIsRefusedWhenTheMetricsTurnedUnhealthyMeanwhile() throws {
        let w = try Workspace()
        let (server, a, b, _) = try twoPeople(w)
        let id = try propose(w, a, ["promote", "tr-TR@18", "--to", "50%"])
        try turnUnhealthy(w, a)
        let tip = try serverTip(w, server)
        let refused = try run(w, b, ["approve", id], env: bob, status: 1)
        XCTAssertTrue(refused.stderr.contains("tr-TR@18 is unhealthy (TR/4.8 crash"), refused.stderr)
        XCTAssertEqual(try serverTip(w, server), tip, "the gate refused it on the state at approval")
        XCTAssertEqual(
            try w.git("rev-parse", "refs/rollout/proposals/\(id)", repository: server).status, 0,
            "a refused approval leaves the proposal open")
    }

    /// An experiment gives a variant to a share of devices as a promote does: above the threshold it
    /// waits for an approver, proposed and approved like any change; a plain stop never waits.
    func testAnExperimentAboveTheThresholdIsProposedAndApproved() throws {
        let w = try Workspace()
        let (server, a, b, _) = try twoPeople(w)
        try run(w, a, ["revert", "tr-TR", "--no-block", "--reason", "make room for the experiment"], env: ana)
        let start = ["experiment", "start", "title-test", "--variants", "tr-TR@17,tr-TR@18", "--metric", "checkout"]
        let before = try serverTip(w, server)
        let refused = try run(w, a, start, env: ana, status: 77)
        XCTAssertTrue(refused.stderr.contains("a promote above 10%"), refused.stderr)
        XCTAssertEqual(try serverTip(w, server), before)
        // 10% a variant is not above 10%: no approver.
        let small = try run(w, a, start + ["--split", "10/10", "--dry-run"], env: ana)
        XCTAssertTrue(small.stdout.contains("Rollout-Percent: 10%"), small.stdout)
        let proposed = try w.json(try run(w, a, start + ["--propose", "--json"], env: ana))
        let id = try XCTUnwrap(proposed["proposal"] as? String)
        XCTAssertEqual(try serverTip(w, server), before, "a proposal does not move main")
        try run(w, b, ["approve", id, "--reason", "the question is worth asking"], env: bob)
        let plan = try w.git("show", "main:plans/tr-TR.json", repository: server).stdout
        XCTAssertTrue(plan.contains("\"experiment\""), plan)
        try run(w, a, ["sync"], env: ana)
        try run(w, a, ["experiment", "stop", "title-test", "--reason", "enough"], env: ana)
        try run(w, a, ["verify", "--require-signed", "--since", before], env: ana)
    }

    func testRevertsNeverWaitAndGuardsBotKeyRevertsAloneButCannotPromote() throws {
        let w = try Workspace()
        let (server, a, _, c) = try twoPeople(w)
        try turnUnhealthy(w, a)
        // The bot may not promote, even below the approval threshold: refused here, nothing pushed.
        let tip = try serverTip(w, server)
        let promote = try run(
            w, c, ["promote", "tr-TR@18", "--to", "8%", "--force", "--reason", "x"], env: bot, status: 77)
        XCTAssertTrue(
            promote.stderr.contains("signed by bot@example.com, whose roles (bot) may not sign it"), promote.stderr)
        XCTAssertEqual(try serverTip(w, server), tip)
        // Guard reverts alone, signed with the bot's key: nobody approves a rollback.
        let guarded = try w.rollout(["--repo", c, "guard", "--auto-revert"], env: bot)
        XCTAssertTrue(guarded.status == 0 || guarded.status == 1, guarded.output)
        let reverted = try serverTip(w, server)
        XCTAssertNotEqual(reverted, tip, guarded.output)
        XCTAssertEqual(
            try w.git("log", "-1", "--format=%(trailers:key=Rollout-Action,valueonly)", reverted, repository: server)
                .stdout.trimmed, "revert")
        XCTAssertTrue(try gitVerifies(w, server, reverted, signersAt: tip), "signed by the bot's key")
        try run(w, c, ["verify"], env: bot)
        // A person's kill switch never waits either.
        try run(w, a, ["revert", "tr-TR", "--to", "bundled", "--reason", "still crashing"], env: ana)
    }

    func testAProtectedKeyChangeAPolicyChangeAndASignersChangeWaitForAnApprover() throws {
        let w = try Workspace()
        let (server, a, b, _) = try twoPeople(w, approval: ["protectedKeys": true, "policy": true, "signers": true])
        // A pack that leaves protected keys alone needs nobody.
        let plain = try w.packVariant(of: "tr-TR@18", version: 19, replacing: [("Ayarlar", "Ayarlar ✓")])
        try run(w, a, ["pack", "add", plain], env: ana)
        let paying = try w.packVariant(of: "tr-TR@18", version: 20, replacing: [("{amount} öde", "{amount} ödeyin")])
        let tip = try serverTip(w, server)
        let refused = try run(w, a, ["pack", "add", paying, "--approved-by", "Legal"], env: ana, status: 77)
        XCTAssertTrue(refused.stderr.contains("a pack that changes protected keys (checkout.pay)"), refused.stderr)
        XCTAssertEqual(try serverTip(w, server), tip)
        let pack = try propose(w, a, ["pack", "add", paying, "--approved-by", "Legal"])
        try run(w, b, ["approve", pack], env: bob)
        XCTAssertEqual(try run(w, b, ["pack", "list", "--json"], env: bob).stdout.contains("tr-TR@20"), true)

        let file = try w.scratch.write(
            "policy-2.json",
            #"{"requiredKeys": ["checkout.pay"], "signing": {"approval": {"protectedKeys": true, "policy": true, "signers": true}}}"#
        )
        let policyRefused = try run(w, a, ["policy", "set", file], env: ana, status: 77)
        XCTAssertTrue(policyRefused.stderr.contains("a policy change"), policyRefused.stderr)
        let change = try propose(w, a, ["policy", "set", file])
        try run(w, b, ["approve", change], env: bob)
        let shown = try w.json(try run(w, b, ["policy", "show", "--json"], env: bob))
        XCTAssertEqual(shown["requiredKeys"] as? [String], ["checkout.pay"])

        let carol = try GitSigning(w: w).sshKey("carol")
        let adding = ["signers", "add", "carol@example.com", "--key", carol + ".pub", "--role", "release"]
        let signersRefused = try run(w, a, adding, env: ana, status: 77)
        XCTAssertTrue(signersRefused.stderr.contains("a change to the signers"), signersRefused.stderr)
        try run(w, b, ["approve", try propose(w, a, adding)], env: bob)
        XCTAssertTrue(try run(w, b, ["signers", "list"], env: bob).stdout.contains("carol@example.com"))
        try run(w, b, ["verify"], env: bob)
    }

    /// The server's pre-receive hook (docs/teams.md, "Enforcing on the server") over smart HTTP on
    /// loopback takes the proposal's ref and the approval, a merge of main's tip and the proposal;
    /// a merge of anything else stays refused.
    func testTheServersHookTakesAProposalAndItsApprovalOverSmartHTTP() throws {
        let w = try Workspace()
        let password = "approve-\(UUID().uuidString)"
        var http: HTTPGitServer?
        defer { http?.stop() }
        let (server, a, b, _) = try twoPeople(w) { path in
            let hook = path + "/hooks/pre-receive"
            try FileManager.default.createDirectory(atPath: path + "/hooks", withIntermediateDirectories: true)
            try Data("#!/bin/sh\nexec \(Processes.rolloutBinary) hook pre-receive\n".utf8).write(
                to: URL(fileURLWithPath: hook))
            XCTAssertEqual(chmod(hook, 0o755), 0)
            http = try HTTPGitServer(
                root: w.scratch.path("server"), state: w.scratch.path("http"), users: ["alice": password])
            return http!.url("shared.git", user: "alice", password: password)
        }
        let before = try serverTip(w, server)
        let id = try propose(w, a, ["promote", "tr-TR@18", "--to", "50%"])
        try run(w, b, ["approve", id], env: bob)
        let merge = try serverTip(w, server)
        XCTAssertEqual(try w.git("rev-parse", "\(merge)^1", repository: server).stdout.trimmed, before)
        XCTAssertEqual(try w.git("cat-file", "-t", "\(merge)^2", repository: server).stdout.trimmed, "commit")
        // A merge that is no approval (its second parent some other commit) is refused by the hook.
        let made = try w.git(
            "-c", "user.name=Mallory", "-c", "user.email=mallory@example.com", "commit-tree", "\(merge)^{tree}", "-p",
            merge, "-p", before, "-m",
            "promote\n\nRollout-Action: promote\nRollout-Proposal: \(before)\nRollout-Actor: Ana <ana@example.com>",
            repository: b)
        let bogus = made.stdout.trimmed
        let pushed = try Processes.run(
            "/usr/bin/env", ["git", "--git-dir", b, "push", "origin", "\(bogus):refs/heads/main"], in: w.root,
            environment: w.environment)
        XCTAssertEqual(bogus.count, 40, made.output)
        XCTAssertNotEqual(pushed.status, 0, pushed.output)
        XCTAssertTrue(pushed.stderr.contains("has 2 parents"), pushed.stderr)
        XCTAssertEqual(try serverTip(w, server), merge)
    }

    /// An approval made offline is replayed by sync onto the tip another clone moved, still a
    /// merge with the proposal as its second parent, signed again by the approver.
    func testAnOfflineApprovalIsReplayedKeepingItsProposal() throws {
        let w = try Workspace()
        let (server, a, b, _) = try twoPeople(w)
        let id = try propose(w, a, ["promote", "tr-TR@18", "--to", "50%"])
        let proposal = try w.git("rev-parse", "refs/rollout/proposals/\(id)", repository: server).stdout.trimmed
        try run(w, b, ["proposals"], env: bob)
        try run(w, b, ["--offline", "approve", id], env: bob)
        try run(w, a, ["promote", "en-US@2", "--to", "5%"], env: ana)
        let moved = try serverTip(w, server)
        let synced = try run(w, b, ["sync"], env: bob)
        XCTAssertTrue(synced.stdout.contains("replayed"), synced.stdout)
        let merge = try serverTip(w, server)
        let parents = try w.git("rev-list", "--parents", "-n", "1", merge, repository: server).stdout.trimmed
            .split(separator: " ").map(String.init)
        XCTAssertEqual(parents, [merge, moved, proposal])
        XCTAssertTrue(try gitVerifies(w, server, merge, signersAt: moved), "signed again by bob")
        // gc packs the merge and the proposal it names; the history still verifies.
        try run(w, b, ["gc"], env: bob)
        XCTAssertEqual(try w.git("cat-file", "-t", proposal, repository: b).stdout.trimmed, "commit")
        try run(w, b, ["verify"], env: bob)
        XCTAssertTrue(try run(w, a, ["proposals"], env: ana).stdout.contains("No open proposals."))
    }

    /// A proposal moved onto main with plain git, never approved: verify names it.
    func testVerifyFlagsAChangeThatNeededAnApproverAndHasNone() throws {
        let w = try Workspace()
        let (server, a, _, _) = try twoPeople(w)
        let id = try propose(w, a, ["promote", "tr-TR@18", "--to", "50%"])
        let proposal = try w.git("rev-parse", "refs/rollout/proposals/\(id)", repository: server).stdout.trimmed
        XCTAssertEqual(try w.git("update-ref", "refs/heads/main", proposal, repository: server).status, 0)
        let verify = try run(w, server, ["verify"], env: ana, status: 1)
        XCTAssertTrue(
            verify.stdout.contains(
                "commit \(proposal.prefix(12)): is a promote the policy asks an approver for (a promote above 10%), and nobody approved it"
            ), verify.stdout)
        XCTAssertTrue(
            try run(w, server, ["log", "--limit", "1"], env: ana).stdout.contains("signer: not approved"))
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
