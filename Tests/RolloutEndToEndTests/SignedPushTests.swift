import Foundation
import XCTest

/// `rollout hook pre-receive` checking signatures (docs/teams.md, "Signatures on the server") on
/// real servers on loopback, sshd and smart HTTP: a shared repository whose signers are Ana (admin,
/// release), Mallory (release) and guard's bot (bot), each pushing from a clone that signs with
/// rollout's own signing (commit.gpgSign). A signed change lands; an unsigned one, one signed by a
/// key no signer holds, the bot's promote and Mallory's signed change claiming to be Ana's are
/// refused, with the hook's line shown to the pusher and the server's refs as they were.
final class SignedPushTests: XCTestCase {
    let ana = ["ROLLOUT_ACTOR": "Ana Release <ana@example.com>"]
    let mallory = ["ROLLOUT_ACTOR": "Mallory <mallory@example.com>"]

    /// `git --git-dir REPOSITORY ARGUMENTS` with the workspace's HOME, asserting it worked: its stdout, trimmed.
    @discardableResult
    private func git(_ w: Workspace, _ repository: String, _ arguments: [String]) throws -> String {
        let result = try Processes.run(
            "/usr/bin/env", ["git", "--git-dir", repository] + arguments, in: w.root, environment: w.environment)
        XCTAssertEqual(result.status, 0, "git \(arguments.joined(separator: " ")): \(result.output)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Signs every change `repository` makes with the ssh key at `key`, as git config asks.
    private func signWith(_ w: Workspace, _ repository: String, key: String) throws {
        for (name, value) in [("gpg.format", "ssh"), ("user.signingKey", key), ("commit.gpgSign", "true")] {
            try git(w, repository, ["config", name, value])
        }
    }

    /// The shared repository (`server/shared.git`) with Ana and Mallory as signers, each change
    /// signed by Ana, and the hook as docs/teams.md installs it with `hookArguments`. With
    /// `policyRequires`, the policy's `signing.requireSigned` is set too. Returns the keys by name.
    private func signedServer(_ w: Workspace, hookArguments: String, policyRequires: Bool) throws -> [String: String] {
        let repository = try shared(w)
        let signing = GitSigning(w: w)
        var keys: [String: String] = [:]
        for name in ["ana", "mallory", "bot", "eve"] { keys[name] = try signing.sshKey(name) }
        try signWith(w, repository, key: keys["ana"]!)
        for (name, roles) in [("ana", "admin,release"), ("mallory", "release"), ("bot", "bot")] {
            let added = try w.rollout(
                [
                    "--repo", repository, "signers", "add", "\(name)@example.com", "--key", keys[name]! + ".pub",
                    "--role",
                    roles,
                ], env: ana)
            XCTAssertEqual(added.status, 0, added.output)
        }
        if policyRequires {
            let policy = try w.scratch.write("policy.json", #"{"signing": {"requireSigned": true}}"#)
            let set = try w.rollout(["--repo", repository, "policy", "set", policy], env: ana)
            XCTAssertEqual(set.status, 0, set.output)
        }
        let hook = repository + "/hooks/pre-receive"
        try FileManager.default.createDirectory(atPath: repository + "/hooks", withIntermediateDirectories: true)
        try Data("#!/bin/sh\nexec \(Processes.rolloutBinary) hook pre-receive\(hookArguments)\n".utf8).write(
            to: URL(fileURLWithPath: hook))
        XCTAssertEqual(chmod(hook, 0o755), 0)
        return keys
    }

    /// Every ref of the server with its target: what a refused push must leave as it was.
    private func refs(_ w: Workspace) throws -> String {
        try git(w, w.scratch.path("server/shared.git"), ["for-each-ref", "--format=%(refname) %(objectname)"])
    }

    /// The story on one server, reached at `url`: Ana's signed promote lands; an unsigned promote,
    /// one signed with Eve's key (no signer's), the bot's promote (its role may not) and Mallory's
    /// promote claiming Ana (--actor) are each refused with the hook's reason; Mallory's own lands,
    /// and `verify --since REF --require-signed` on the clone agrees.
    private func assertSignaturesHold(
        _ w: Workspace, url: String, keys: [String: String], checkedHere: Bool, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let clone = w.scratch.path("clone")
        let cloned = try w.rollout("clone", url, clone)
        XCTAssertEqual(cloned.status, 0, cloned.output, file: file, line: line)
        let start = try git(w, clone, ["rev-parse", "main"])
        try signWith(w, clone, key: keys["ana"]!)
        let promote = ["--repo", clone, "promote", "tr-TR@18", "--force", "--reason", "signed push"]
        let signed = try w.rollout(promote + ["--to", "10%"], env: ana)
        XCTAssertEqual(signed.status, 0, signed.output, file: file, line: line)
        let server = w.scratch.path("server/shared.git")
        XCTAssertEqual(try git(w, server, ["rev-parse", "main"]), try git(w, clone, ["rev-parse", "main"]))
        let landed = try refs(w)

        let eve = try fingerprint(w, keys["eve"]! + ".pub")
        let refusals: [(arguments: [String], key: String, env: [String: String], shown: String)] = [
            (["--no-sign"], "ana", ana, ": is not signed, and signing is required\n"),
            ([], "eve", ana, ": is signed by \(eve), a key no allowed signer held at this change\n"),
            (
                [], "bot", ["ROLLOUT_ACTOR": "Guard Bot <bot@example.com>"],
                ": is a promote signed by bot@example.com, whose roles (bot) may not sign it\n"
            ),
            (
                ["--actor", "Ana Release <ana@example.com>"], "mallory", mallory,
                ": claims Rollout-Actor Ana Release <ana@example.com>, but mallory@example.com signed it: a forged actor\n"
            ),
        ]
        for refusal in refusals {
            try git(w, clone, ["config", "user.signingKey", keys[refusal.key]!])
            let pushed = try w.rollout(refusal.arguments + promote + ["--to", "20%"], env: refusal.env)
            XCTAssertEqual(pushed.status, 77, "\(refusal.key): \(pushed.output)", file: file, line: line)
            // Where the policy requires signing, rollout's own admission check refuses it before any push.
            let shown = checkedHere ? "cannot be admitted: it" : "remote: rollout: refused "
            XCTAssertTrue(pushed.stderr.contains(shown), pushed.stderr, file: file, line: line)
            XCTAssertTrue(
                pushed.stderr.contains(refusal.shown.dropFirst(2).dropLast()), pushed.stderr, file: file, line: line)
            XCTAssertEqual(try refs(w), landed, "\(refusal.key): the server is unchanged", file: file, line: line)
        }
        // The same changes made with plain git: Ana's good change, unsigned or signed with another key.
        try git(w, clone, ["config", "user.signingKey", keys["ana"]!])
        let tip = try git(w, clone, ["rev-parse", "main"])
        XCTAssertEqual(try w.rollout(["--offline"] + promote + ["--to", "30%"], env: ana).status, 0)
        let good = try git(w, clone, ["rev-parse", "main"])
        try git(w, clone, ["update-ref", "refs/heads/main", tip])
        try git(w, clone, ["reflog", "expire", "--expire-unreachable=all", "refs/heads/main"])
        for refusal in refusals {
            let commit = try remade(
                w, clone, good, on: tip, key: refusal.arguments == ["--no-sign"] ? nil : keys[refusal.key]!)
            let pushed = try w.git("push", "origin", "\(commit):refs/heads/main", repository: clone)
            XCTAssertNotEqual(pushed.status, 0, pushed.output, file: file, line: line)
            XCTAssertTrue(
                pushed.stderr.contains("remote: rollout: refused \(commit.prefix(12))" + refusal.shown.dropLast()),
                "\(refusal.key): \(pushed.stderr)", file: file, line: line)
            XCTAssertTrue(
                pushed.stderr.contains(
                    "remote: rollout: the push is refused; the server is unchanged. Each change must be signed"),
                pushed.stderr, file: file, line: line)
            XCTAssertEqual(try refs(w), landed, "\(refusal.key): the server is unchanged", file: file, line: line)
        }
        try git(w, clone, ["config", "user.signingKey", keys["mallory"]!])
        let honest = try w.rollout(promote + ["--to", "20%"], env: mallory)
        XCTAssertEqual(honest.status, 0, honest.output, file: file, line: line)
        XCTAssertEqual(try git(w, server, ["rev-parse", "main"]), try git(w, clone, ["rev-parse", "main"]))
        // The CI status check on the clone agrees: both changes since the clone are signed and allowed.
        let since = try w.rollout("--repo", clone, "verify", "--since", start, "--require-signed")
        XCTAssertEqual(since.status, 0, since.output, file: file, line: line)
        XCTAssertTrue(since.stdout.contains("2 signature(s) checked since "), since.stdout, file: file, line: line)
    }

    /// A proposal pushed with plain git (`refs/rollout/proposals/*`): Mallory's signed change on
    /// main's tip is taken; the same change unsigned, a signed change on top of the proposal (not
    /// on main's history) and a signed commit whose trailers do not match its files are refused;
    /// deleting a proposal passes.
    private func assertProposalsAreSigned(
        _ w: Workspace, keys: [String: String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let clone = w.scratch.path("clone")
        let tip = try git(w, clone, ["rev-parse", "main"])
        let offline = ["--repo", clone, "--offline", "promote", "tr-TR@18", "--to", "50%", "--force", "--reason", "p"]
        XCTAssertEqual(try w.rollout(offline, env: mallory).status, 0, file: file, line: line)
        let proposal = try git(w, clone, ["rev-parse", "main"])
        let further = offline.map { $0 == "50%" ? "60%" : $0 }
        XCTAssertEqual(try w.rollout(further, env: mallory).status, 0, file: file, line: line)
        let onTheProposal = try git(w, clone, ["rev-parse", "main"])
        XCTAssertEqual(try git(w, clone, ["rev-parse", "main^"]), proposal, file: file, line: line)
        try git(w, clone, ["update-ref", "refs/heads/main", tip])
        XCTAssertEqual(try w.rollout(["--no-sign"] + offline, env: mallory).status, 0, file: file, line: line)
        let unsigned = try git(w, clone, ["rev-parse", "main"])
        try git(w, clone, ["update-ref", "refs/heads/main", tip])

        let taken = try w.git("push", "origin", "\(proposal):refs/rollout/proposals/p1", repository: clone)
        XCTAssertEqual(taken.status, 0, taken.output, file: file, line: line)
        let refused = try w.git("push", "origin", "\(unsigned):refs/rollout/proposals/p2", repository: clone)
        XCTAssertNotEqual(refused.status, 0, refused.output, file: file, line: line)
        XCTAssertTrue(
            refused.stderr.contains(
                "remote: rollout: refused \(unsigned.prefix(12)): is not signed, and signing is required"),
            refused.stderr, file: file, line: line)
        let stacked = try w.git("push", "origin", "\(onTheProposal):refs/rollout/proposals/p3", repository: clone)
        XCTAssertNotEqual(stacked.status, 0, stacked.output, file: file, line: line)
        XCTAssertTrue(
            stacked.stderr.contains(
                "remote: rollout: refused \(onTheProposal.prefix(12)): a proposal starts from a change of refs/heads/main"
            ),
            stacked.stderr, file: file, line: line)
        XCTAssertTrue(
            stacked.stderr.contains("Each change must be signed by an allowed signer who may make it"), stacked.stderr,
            file: file, line: line)
        // Signed by Mallory with plain git, as herself (a good signature), but a testers change
        // that changes no tester group and writes a plan: verify's checks of a change refuse it.
        let identity = ["GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": "mallory@example.com"]
        let made = try Processes.run(
            "/usr/bin/env",
            [
                "git", "--git-dir", clone, "commit-tree", "\(proposal)^{tree}", "-p", tip, "-S", "-m",
                "testers add\n\nRollout-Action: testers-add\nRollout-Actor: Mallory <mallory@example.com>\n",
            ], in: w.root,
            environment: w.environment.merging(identity) { $1 }.merging(
                ["GIT_COMMITTER_NAME": "Mallory", "GIT_COMMITTER_EMAIL": "mallory@example.com"]) { $1 })
        XCTAssertEqual(made.status, 0, made.output, file: file, line: line)
        let mislabelled = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let checked = try w.git("push", "origin", "\(mislabelled):refs/rollout/proposals/p4", repository: clone)
        XCTAssertNotEqual(checked.status, 0, checked.output, file: file, line: line)
        XCTAssertTrue(
            checked.stderr.contains("remote: rollout: refused \(mislabelled.prefix(12)): testers/"),
            checked.stderr, file: file, line: line)
        let deleted = try w.git("push", "origin", ":refs/rollout/proposals/p1", repository: clone)
        XCTAssertEqual(deleted.status, 0, deleted.output, file: file, line: line)
        XCTAssertFalse(try refs(w).contains("refs/rollout/proposals/"), file: file, line: line)
    }

    /// `good`'s tree and message on `parent`, made with plain git and signed with the ssh key at
    /// `key` (nil: unsigned, whatever commit.gpgSign says).
    private func remade(_ w: Workspace, _ clone: String, _ good: String, on parent: String, key: String?) throws
        -> String
    {
        let message = try git(w, clone, ["log", "-1", "--format=%B", good])
        let signing = key.map { ["-c", "gpg.format=ssh", "-c", "user.signingKey=\($0)"] } ?? []
        let identity = [
            "GIT_AUTHOR_NAME": "Ana Release", "GIT_AUTHOR_EMAIL": "ana@example.com",
            "GIT_COMMITTER_NAME": "Ana Release", "GIT_COMMITTER_EMAIL": "ana@example.com",
        ]
        let made = try Processes.run(
            "/usr/bin/env",
            ["git", "--git-dir", clone] + signing + [
                "commit-tree", "\(good)^{tree}", "-p", parent, key == nil ? "--no-gpg-sign" : "-S", "-m", message,
            ], in: w.root, environment: w.environment.merging(identity) { $1 })
        XCTAssertEqual(made.status, 0, made.output)
        return made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `ssh-keygen -lf`'s fingerprint of a public key.
    private func fingerprint(_ w: Workspace, _ publicKey: String) throws -> String {
        let result = try Processes.run(
            "/usr/bin/env", ["ssh-keygen", "-lf", publicKey], in: w.root, environment: w.environment)
        return String(result.stdout.split(separator: " ")[1])
    }

    /// Over ssh, the hook's own --require-signed: the policy does not ask for signatures.
    func testOverSSHTheHookRefusesUnsignedNotAllowedAndForgedPushes() throws {
        let w = try Workspace()
        let keys = try signedServer(w, hookArguments: " --require-signed", policyRequires: false)
        let server = try SSHGitServer(directory: w.scratch.path("ssh"), authorized: ["deploy"])
        defer { server.stop() }
        try Data("[core]\n\tsshCommand = \(server.sshCommand)\n".utf8).write(
            to: URL(fileURLWithPath: w.environment["HOME"]! + "/.gitconfig"))
        try assertSignaturesHold(
            w, url: server.url(w.scratch.path("server/shared.git"), as: "deploy"), keys: keys, checkedHere: false)
        try assertProposalsAreSigned(w, keys: keys)
    }

    /// Over smart HTTP, the hook as it is: the repository's policy requires signed changes.
    func testOverSmartHTTPThePolicyMakesTheHookRefuseUnsignedNotAllowedAndForgedPushes() throws {
        let w = try Workspace()
        let keys = try signedServer(w, hookArguments: "", policyRequires: true)
        let password = "signed-\(UUID().uuidString)"
        let server = try HTTPGitServer(
            root: w.scratch.path("server"), state: w.scratch.path("http"), users: ["alice": password])
        defer { server.stop() }
        try assertSignaturesHold(
            w, url: server.url("shared.git", user: "alice", password: password), keys: keys, checkedHere: true)
    }
}
