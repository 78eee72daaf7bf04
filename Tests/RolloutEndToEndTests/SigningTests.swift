import Foundation
import XCTest

/// Change commits signed as `git commit -S` signs them, with real keys made here: an ssh key file,
/// a key held only by a real ssh-agent, a key with a passphrase, and gpg. Plain `git verify-commit`
/// is the judge; a signing failure must change nothing (the state ref and its reflog) and end
/// within its deadline.
final class SigningTests: XCTestCase {
    /// A workspace whose git config (the test's HOME) asks for ssh-signed commits with a new
    /// ed25519 key file, and an allowed-signers file naming that key for the actor's email.
    private func sshWorkspace() throws -> (Workspace, key: String, allowed: String) {
        let w = try Workspace()
        let key = w.scratch.path("ana")
        try run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ana", "-f", key)
        let allowed = try w.scratch.write(
            "allowed_signers", "test@example.com namespaces=\"git\" \(try publicKey(key))\n")
        try config(w, "gpg.format", "ssh")
        try config(w, "user.signingKey", key + ".pub")
        try config(w, "commit.gpgSign", "true")
        return (w, key, allowed)
    }

    func testAnSSHKeyFileSignsEveryChangeAndGitVerifiesEach() throws {
        let (w, _, allowed) = try sshWorkspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%").status, 0)
        let commits = try w.git("rev-list", "main").stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(commits.count, 3, "init, pack add, promote")
        for commit in commits {
            let verified = try w.git("-c", "gpg.ssh.allowedSignersFile=\(allowed)", "verify-commit", commit)
            XCTAssertEqual(verified.status, 0, verified.output)
            XCTAssertTrue(verified.stderr.contains("Good \"git\" signature for test@example.com"), verified.stderr)
        }
        try w.assertFsckClean()
        let shown = try w.git("-c", "gpg.ssh.allowedSignersFile=\(allowed)", "log", "--show-signature", "-1")
        XCTAssertTrue(shown.stdout.contains("Good \"git\" signature for test@example.com"), shown.output)
        // Another person's allowed-signers file does not accept it: the signature is the key's, not the email's.
        let other = w.scratch.path("other")
        try run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other)
        let wrong = try w.scratch.write("wrong", "test@example.com namespaces=\"git\" \(try publicKey(other))\n")
        XCTAssertNotEqual(try w.git("-c", "gpg.ssh.allowedSignersFile=\(wrong)", "verify-commit", "main").status, 0)

        // --no-sign overrides commit.gpgSign=true: an unsigned commit, which verify-commit refuses.
        let unsigned = try w.rollout("--no-sign", "promote", "tr-TR@18", "--to", "20%")
        XCTAssertEqual(unsigned.status, 0, unsigned.output)
        XCTAssertFalse(try w.git("cat-file", "commit", "main").stdout.contains("gpgsig"))
        XCTAssertNotEqual(try w.git("-c", "gpg.ssh.allowedSignersFile=\(allowed)", "verify-commit", "main").status, 0)
        // --sign signs without commit.gpgSign; without either, nothing is signed.
        try config(w, "commit.gpgSign", "false")
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "30%").status, 0)
        XCTAssertFalse(try w.git("cat-file", "commit", "main").stdout.contains("gpgsig"))
        XCTAssertEqual(try w.rollout("--sign", "promote", "tr-TR@18", "--to", "40%").status, 0)
        XCTAssertEqual(try w.git("-c", "gpg.ssh.allowedSignersFile=\(allowed)", "verify-commit", "main").status, 0)
        let both = try w.rollout("--sign", "--no-sign", "promote", "tr-TR@18", "--to", "50%")
        XCTAssertEqual(both.status, 64, both.output)
    }

    func testAKeyHeldOnlyBySSHAgentSignsThroughTheAgent() throws {
        let (w, key, allowed) = try sshWorkspace()
        try w.initWithExamples()
        let socket = w.scratch.path("agent.sock")
        let agent = Process()
        agent.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-agent")
        agent.arguments = ["-D", "-a", socket]
        agent.standardOutput = FileHandle.nullDevice
        agent.standardError = FileHandle.nullDevice
        try agent.run()
        defer {
            agent.terminate()
            agent.waitUntilExit()
        }
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
        w.environment["SSH_AUTH_SOCK"] = socket
        try run("ssh-add", "-q", key, environment: ["SSH_AUTH_SOCK": socket])
        // The private key file is gone: only the agent can sign. Both spellings of a literal key.
        try FileManager.default.removeItem(atPath: key)
        let literal = try publicKey(key)
        for (share, spelled) in [("10%", "key::" + literal), ("20%", literal)] {
            try config(w, "user.signingKey", spelled)
            let promoted = try w.rollout("promote", "tr-TR@18", "--to", share)
            XCTAssertEqual(promoted.status, 0, promoted.output)
            let verified = try w.git("-c", "gpg.ssh.allowedSignersFile=\(allowed)", "verify-commit", "main")
            XCTAssertEqual(verified.status, 0, verified.output)
        }

        // No user.signingKey: the first key gpg.ssh.defaultKeyCommand prints, as git takes it.
        XCTAssertEqual(try w.git("config", "--global", "--unset", "user.signingKey").status, 0)
        try config(w, "gpg.ssh.defaultKeyCommand", "ssh-add -L")
        let defaulted = try w.rollout("promote", "tr-TR@18", "--to", "30%")
        XCTAssertEqual(defaulted.status, 0, defaulted.output)
        XCTAssertEqual(try w.git("-c", "gpg.ssh.allowedSignersFile=\(allowed)", "verify-commit", "main").status, 0)

        // An agent without the key, then no agent at all: refused, named, nothing changed.
        try run("ssh-add", "-q", "-D", environment: ["SSH_AUTH_SOCK": socket])
        try assertRefusedUnchanged(w, containing: "gpg.ssh.defaultKeyCommand (ssh-add -L) gave no ssh public key")
        try config(w, "user.signingKey", literal)
        try assertRefusedUnchanged(w, containing: "ssh-agent does not hold that key")
        w.environment["SSH_AUTH_SOCK"] = nil
        try assertRefusedUnchanged(w, containing: "no agent answers")
    }

    func testAKeyWithAPassphraseFailsAtOnceAndChangesNothing() throws {
        let (w, _, _) = try sshWorkspace()
        try w.initWithExamples()
        let locked = w.scratch.path("locked")
        try run("ssh-keygen", "-q", "-t", "ed25519", "-N", "a passphrase", "-f", locked)
        try config(w, "user.signingKey", locked + ".pub")
        let started = Date()
        try assertRefusedUnchanged(w, containing: "the key needs its passphrase")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "a passphrase prompt fails, it does not wait")
    }

    func testAMissingProgramOrKeyOrASignerThatHangsChangesNothing() throws {
        let (w, _, _) = try sshWorkspace()
        try w.initWithExamples()
        try config(w, "gpg.ssh.program", "/nonexistent/ssh-keygen")
        try assertRefusedUnchanged(w, containing: "point git config gpg.ssh.program at it")
        // The repository's own config names no program: the user's is the one run.
        XCTAssertEqual(try w.git("config", "gpg.ssh.program", "ssh-keygen").status, 0)
        try assertRefusedUnchanged(w, containing: "/nonexistent/ssh-keygen (git config gpg.ssh.program)")
        XCTAssertEqual(try w.git("config", "--unset", "gpg.ssh.program").status, 0)

        // A signer that never answers (a prompt nobody sees): killed at the deadline, with what it started.
        let pidFile = w.scratch.path("sleeper.pid")
        let hanging = try w.scratch.write("hang.sh", "#!/bin/sh\nsleep 300 &\necho $! > \(pidFile)\nwait\n")
        chmod(hanging, 0o755)
        try config(w, "gpg.ssh.program", hanging)
        w.environment["ROLLOUT_SIGN_TIMEOUT"] = "soon"
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "60%").status, 64)
        w.environment["ROLLOUT_SIGN_TIMEOUT"] = "1"
        let started = Date()
        try assertRefusedUnchanged(w, containing: "did not finish within 1 s")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        let sleeper = try XCTUnwrap(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmed))
        for _ in 0..<100 where kill(sleeper, 0) == 0 { usleep(20_000) }
        XCTAssertNotEqual(kill(sleeper, 0), 0, "what the signer started is stopped with it")

        try config(w, "gpg.ssh.program", "ssh-keygen")
        try config(w, "user.signingKey", w.scratch.path("no-such-key.pub"))
        try assertRefusedUnchanged(w, containing: "no-such-key.pub: that key file does not exist")
        _ = try w.git("config", "--global", "--unset", "user.signingKey")
        try assertRefusedUnchanged(w, containing: "user.signingKey is not set")
        try config(w, "gpg.format", "x509")
        try assertRefusedUnchanged(w, containing: "gpg.format is x509")
        // init's first commit is signed too: refused, it leaves no repository behind.
        let fresh = try w.rollout("init", w.scratch.path("fresh"))
        XCTAssertEqual(fresh.status, 69, fresh.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: w.scratch.path("fresh")))
    }

    func testGPGSignsAsTheCommitterOrTheConfiguredKey() throws {
        let w = try Workspace()
        let home = w.scratch.path("g")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        chmod(home, 0o700)
        w.environment["GNUPGHOME"] = home
        defer { _ = try? run("gpgconf", "--kill", "gpg-agent", environment: ["GNUPGHOME": home]) }
        try run(
            "gpg", "--batch", "--passphrase", "", "--quick-gen-key", "Test Runner <test@example.com>", "ed25519",
            "sign", "never", environment: ["GNUPGHOME": home])
        try config(w, "commit.gpgSign", "true")
        // No user.signingKey: gpg signs as the committer, as git does.
        try w.initWithExamples()
        let verified = try w.git("verify-commit", "main")
        XCTAssertEqual(verified.status, 0, verified.output)
        XCTAssertTrue(
            verified.stderr.contains("Good signature from \"Test Runner <test@example.com>\""), verified.stderr)
        let shown = try w.git("log", "--show-signature", "--format=%h %G? %s")
        XCTAssertEqual(shown.stdout.components(separatedBy: "Good signature from").count - 1, 2, shown.output)

        let fingerprint = try XCTUnwrap(
            try run("gpg", "--list-secret-keys", "--with-colons", environment: ["GNUPGHOME": home]).split(
                separator: "\n"
            ).first { $0.hasPrefix("fpr:") }?.split(separator: ":").last.map(String.init))
        try config(w, "user.signingKey", fingerprint)
        XCTAssertEqual(
            try w.rollout("--actor", "Someone Else <else@example.com>", "promote", "tr-TR@18", "--to", "10%").status, 0)
        XCTAssertEqual(try w.git("verify-commit", "main").status, 0)

        // A committer gpg holds no key for, and no user.signingKey: refused, naming the config line.
        _ = try w.git("config", "--global", "--unset", "user.signingKey")
        try assertRefusedUnchanged(
            w,
            containing:
                "the committer's key Bob <bob@example.com>, as user.signingKey is not set: gpg holds no secret key",
            actor: "Bob <bob@example.com>")
    }

    func testAChangeReappliedOnAnotherClonesTipIsSignedAgain() throws {
        let (w, _, allowed) = try sshWorkspace()
        let shared = w.scratch.path("shared.git")
        XCTAssertEqual(try w.rollout("init", shared).status, 0)
        XCTAssertEqual(try w.rollout(["--repo", shared, "pack", "add"] + Fixtures.allExamplePacks).status, 0)
        let a = w.scratch.path("a")
        let b = w.scratch.path("b")
        for clone in [a, b] { XCTAssertEqual(try w.rollout("clone", shared, clone).status, 0) }
        // b moves main first; a's promote is made on b's tip, and its offline change is replayed by sync.
        XCTAssertEqual(try w.rollout("--repo", b, "promote", "tr-TR@18", "--to", "10%").status, 0)
        XCTAssertEqual(try w.rollout("--repo", a, "promote", "tr-TR@18", "--to", "20%").status, 0)
        let offline = try w.rollout("--repo", a, "--offline", "promote", "vi-VN@3", "--to", "100%")
        XCTAssertEqual(offline.status, 0, offline.output)
        XCTAssertEqual(try w.rollout("--repo", b, "promote", "tr-TR@18", "--to", "30%").status, 0)
        let synced = try w.rollout("--repo", a, "sync")
        XCTAssertEqual(synced.status, 0, synced.output)
        XCTAssertTrue(synced.stdout.contains("replayed"), synced.stdout)
        let commits = try w.git("rev-list", "main", repository: shared).stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(commits.count, 6)
        for commit in commits {
            let verified = try w.git(
                "-c", "gpg.ssh.allowedSignersFile=\(allowed)", "verify-commit", commit, repository: shared)
            XCTAssertEqual(verified.status, 0, "\(commit): \(verified.output)")
        }
    }

    // MARK: helpers

    /// A promote refused with exit 69 and `text` in its message, leaving the state ref and its reflog as they were.
    private func assertRefusedUnchanged(
        _ w: Workspace, containing text: String, actor: String? = nil, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let tip = try w.stateTip()
        let reflog = try w.git("reflog", "show", "main").stdout
        let config = try String(contentsOfFile: w.repository + "/config", encoding: .utf8)
        let arguments = (actor.map { ["--actor", $0] } ?? []) + ["promote", "tr-TR@18", "--to", "60%"]
        let refused = try w.rollout(arguments)
        XCTAssertEqual(refused.status, 69, refused.output, file: file, line: line)
        XCTAssertTrue(refused.stderr.contains(text), refused.stderr, file: file, line: line)
        XCTAssertTrue(refused.stderr.contains("Nothing was changed"), refused.stderr, file: file, line: line)
        XCTAssertEqual(try w.stateTip(), tip, file: file, line: line)
        XCTAssertEqual(try w.git("reflog", "show", "main").stdout, reflog, file: file, line: line)
        XCTAssertEqual(
            try String(contentsOfFile: w.repository + "/config", encoding: .utf8), config, file: file, line: line)
    }

    /// Sets `key` in the git config of the test's HOME, which rollout and git read.
    private func config(_ w: Workspace, _ key: String, _ value: String) throws {
        let set = try w.git("config", "--global", key, value)
        XCTAssertEqual(set.status, 0, set.output)
    }

    private func publicKey(_ key: String) throws -> String {
        try String(contentsOfFile: key + ".pub", encoding: .utf8).trimmed
    }

    /// Runs a program (found in PATH) to its end; fails the test if it fails. Its stdout.
    @discardableResult
    private func run(_ arguments: String..., environment: [String: String] = [:]) throws -> String {
        let result = try Processes.run(
            "/usr/bin/env", arguments, in: NSTemporaryDirectory(),
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.output)")
        return result.stdout
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
