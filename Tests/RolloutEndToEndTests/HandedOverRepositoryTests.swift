import Foundation
import XCTest

/// Issue 31, remote and config: a repository handed over with a hostile config runs nothing the
/// user did not configure; an interrupted clone leaves nothing; exit codes that need a person are
/// not 75; hints that fit the failure; no token printed from a URL's query string.
final class HandedOverRepositoryTests: XCTestCase {
    // MARK: 6. a repository handed over

    /// Every git hook name that a fetch or a push could run on the client.
    private static let hookNames = [
        "reference-transaction", "pre-push", "post-update", "post-receive", "pre-receive", "update",
        "push-to-checkout", "post-checkout", "post-merge", "pre-auto-gc", "fsmonitor-watchman", "post-rewrite",
    ]

    /// `clone`'s config as a hostile sender leaves it: hooks (its own hooks directory and a
    /// core.hooksPath) and commands (upload-pack, receive-pack, credential helper, askpass, ssh,
    /// fsmonitor, a signed push's gpg) that each append their name to `marker`, and go on working
    /// where they stand in for git's own program, so a command that runs one still succeeds.
    private func makeHostile(_ w: Workspace, _ clone: String, marker: String) throws {
        let hooks = w.scratch.path("evil-hooks")
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
        for directory in [hooks, clone + "/hooks"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for name in Self.hookNames {
                let path = directory + "/" + name
                try Data("#!/bin/sh\necho hook:\(name) >> '\(marker)'\ncat >/dev/null\nexit 0\n".utf8).write(
                    to: URL(fileURLWithPath: path))
                XCTAssertEqual(chmod(path, 0o755), 0)
            }
        }
        let config: [(String, String)] = [
            ("core.hooksPath", hooks),
            ("remote.origin.uploadpack", "echo uploadpack >> '\(marker)'; git-upload-pack"),
            ("remote.origin.receivepack", "echo receivepack >> '\(marker)'; git-receive-pack"),
            ("credential.helper", "!echo credential >> '\(marker)'; true"),
            ("core.askPass", "/bin/sh -c 'echo askpass >> \(marker)'"),
            ("core.sshCommand", "echo ssh >> '\(marker)'; ssh"),
            ("core.fsmonitor", "echo fsmonitor >> '\(marker)'"),
            ("push.gpgSign", "if-asked"),
            ("gpg.program", "/bin/sh -c 'echo gpg >> \(marker)'"),
            ("core.alternateRefsCommand", "echo alternates >> '\(marker)'; true"),
        ]
        // An alternate object store, so a fetch asks core.alternateRefsCommand for its tips.
        let server = w.scratch.path("server/shared.git")
        try FileManager.default.createDirectory(atPath: clone + "/objects/info", withIntermediateDirectories: true)
        try Data("\(server)/objects\n".utf8).write(to: URL(fileURLWithPath: clone + "/objects/info/alternates"))
        for (key, value) in config {
            let set = try w.git("config", key, value, repository: clone)
            XCTAssertEqual(set.status, 0, set.output)
        }
    }

    private func contents(of path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    func testAHandedOverRepositoryRunsNothingFromItsConfig() throws {
        let w = try Workspace()
        let server = try shared(w)
        let sender = w.scratch.path("sender")
        XCTAssertEqual(try w.rollout("clone", server, sender).status, 0)
        // Handed over: copied, so the receiving user owns every file (git's safe.directory lets it be).
        let clone = w.scratch.path("received")
        let copied = try Processes.run(
            "/usr/bin/env", ["cp", "-R", sender, clone], in: w.root, environment: w.environment)
        XCTAssertEqual(copied.status, 0, copied.output)
        let marker = w.scratch.path("marker")
        try makeHostile(w, clone, marker: marker)
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key")).status, 0)

        let commands: [[String]] = [
            ["sync"],
            [
                "promote", "tr-TR@18", "--to", "5%", "--ramp", "5,50,100", "--every", "24h", "--force", "--reason",
                "handed over",
            ],
            ["pause", "tr-TR", "--reason", "handed over"],
            ["resume", "tr-TR", "--reason", "handed over"],
            ["revert", "tr-TR", "--reason", "handed over"],
            ["publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("signing.key")],
            ["remote", "add", "second", server],
            ["sync"],
        ]
        for command in commands {
            let result = try w.rollout(["--repo", clone] + command)
            XCTAssertEqual(result.status, 0, "\(command): \(result.output)")
            XCTAssertEqual(
                contents(of: marker), "", "rollout \(command.joined(separator: " ")) ran the repository's config")
        }
        XCTAssertTrue(
            try actions(w, server).contains { $0.hasPrefix("revert|tr-TR|") }, "the changes reached the server")
    }

    /// The user's own settings of the same keys still count: a credential helper, an ssh command
    /// and an upload-pack in the user's config are what git runs.
    func testTheUsersOwnProgramsStillRun() throws {
        let w = try Workspace()
        let server = try shared(w)
        let clone = w.scratch.path("clone")
        XCTAssertEqual(try w.rollout("clone", server, clone).status, 0)
        let marker = w.scratch.path("marker")
        try makeHostile(w, clone, marker: marker)
        let mine = w.scratch.path("mine")
        try Data("[remote \"origin\"]\n\tuploadpack = \"echo mine >> '\(mine)'; git-upload-pack\"\n".utf8).write(
            to: URL(fileURLWithPath: w.environment["HOME"]! + "/.gitconfig"))
        let synced = try w.rollout("--repo", clone, "sync")
        XCTAssertEqual(synced.status, 0, synced.output)
        XCTAssertEqual(contents(of: marker), "")
        XCTAssertEqual(contents(of: mine), "mine\n", "the user's own upload-pack ran")
    }

    /// A URL the repository's config turns into a command (`ext::`, allowed by the repository's
    /// protocol.allow) is refused, and runs nothing.
    func testARepositoryCannotAllowExtURLs() throws {
        let w = try Workspace()
        let server = try shared(w)
        let clone = w.scratch.path("clone")
        XCTAssertEqual(try w.rollout("clone", server, clone).status, 0)
        let marker = w.scratch.path("marker")
        for (key, value) in [
            ("protocol.allow", "always"), ("remote.origin.pushurl", "ext::sh -c echo% ext% >>% \(marker)% ;false"),
            ("url.ext::sh -c echo% fetch% >>% \(marker)% ;false #.insteadOf", server),
        ] {
            XCTAssertEqual(try w.git("config", key, value, repository: clone).status, 0)
        }
        let promoted = try w.rollout("--repo", clone, "promote", "tr-TR@18", "--to", "5%", "--force", "--reason", "x")
        XCTAssertNotEqual(promoted.status, 0, promoted.output)
        XCTAssertNotEqual(promoted.status, 70, promoted.output)
        XCTAssertEqual(contents(of: marker), "", "an ext:: URL ran: \(promoted.output)")
    }

    /// A repository another user owns is refused before anything runs (git's safe.directory, which
    /// libgit2 checks when rollout opens it), unless the user lists it.
    func testARepositoryAnotherUserOwnsIsRefused() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to give the repository to another user") }
        let w = try Workspace()
        let server = try shared(w)
        let clone = w.scratch.path("clone")
        XCTAssertEqual(try w.rollout("clone", server, clone).status, 0)
        let marker = w.scratch.path("marker")
        try makeHostile(w, clone, marker: marker)
        let chowned = try Processes.run(
            "/usr/bin/env", ["chown", "-R", "65534:65534", clone], in: w.root, environment: w.environment)
        XCTAssertEqual(chowned.status, 0, chowned.output)
        let refused = try w.rollout("--repo", clone, "sync")
        XCTAssertNotEqual(refused.status, 0, refused.output)
        XCTAssertNotEqual(refused.status, 70, refused.output)
        XCTAssertTrue(refused.stderr.contains("safe.directory"), refused.stderr)
        XCTAssertEqual(contents(of: marker), "")
        try Data("[safe]\n\tdirectory = \(clone)\n".utf8).write(
            to: URL(fileURLWithPath: w.environment["HOME"]! + "/.gitconfig"))
        let listed = try w.rollout("--repo", clone, "sync")
        XCTAssertEqual(listed.status, 0, listed.output)
        XCTAssertEqual(contents(of: marker), "", "listed as safe, its programs still do not run")
    }

    // MARK: 11. an interrupted clone

    /// Starts the built `rollout clone` from `server` into `target` with an upload-pack (the user's
    /// own setting) that stalls, sends `signal` while git fetches, and returns how it ended.
    private func interruptedClone(_ w: Workspace, server: String, into target: String, signal: Int32) throws
        -> (Process, String)
    {
        let home = w.environment["HOME"]!
        try Data("[remote \"origin\"]\n\tuploadpack = \"sleep 5; git-upload-pack\"\n".utf8).write(
            to: URL(fileURLWithPath: home + "/.gitconfig"))
        defer { try? FileManager.default.removeItem(atPath: home + "/.gitconfig") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Processes.rolloutBinary)
        process.arguments = ["clone", server, target]
        process.currentDirectoryURL = URL(fileURLWithPath: w.root)
        process.environment = w.environment
        let errors = w.scratch.path("clone-\(signal).err")
        FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        process.standardOutput = FileHandle.nullDevice
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        // The remote is configured (its URL is in the new config) before the fetch starts.
        let config = target + "/config"
        for _ in 0..<400 where !(((try? String(contentsOfFile: config, encoding: .utf8)) ?? "").contains("url =")) {
            usleep(10_000)
        }
        usleep(300_000)
        kill(process.processIdentifier, signal)
        XCTAssertEqual(finished.wait(timeout: .now() + 20), .success, "rollout clone ended after the signal")
        return (process, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    func testAnInterruptedCloneLeavesNothing() throws {
        let w = try Workspace(process: true)
        let server = try shared(w)
        for signal in [SIGINT, SIGTERM] {
            let target = w.scratch.path("clone-\(signal)")
            let (process, stderr) = try interruptedClone(w, server: server, into: target, signal: signal)
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, stderr)
            XCTAssertEqual(process.terminationStatus, signal, stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: target), "the half-made \(target) is gone: \(stderr)")
            XCTAssertTrue(stderr.contains("clone interrupted"), stderr)
        }
        // An empty directory the operator made stays, empty.
        let mounted = w.scratch.path("mounted")
        try FileManager.default.createDirectory(atPath: mounted, withIntermediateDirectories: true)
        let (process, stderr) = try interruptedClone(w, server: server, into: mounted, signal: SIGINT)
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mounted), [], stderr)
        // And a clone that is not interrupted still works.
        XCTAssertEqual(try w.rollout("clone", server, w.scratch.path("whole")).status, 0)
    }

    // MARK: 12. exit codes that need a person

    /// A `--json` error's code, from stderr.
    private func errorCode(_ result: RunResult) -> String? {
        let document = try? JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: [String: Any]]
        return document?["error"]?["code"] as? String
    }

    func testAClashAndUnpushedWorkNeedAPersonNotARetry() throws {
        let w = try Workspace()
        let server = try shared(w)
        let (laptop, ci) = (w.scratch.path("laptop"), w.scratch.path("ci"))
        for clone in [laptop, ci] { XCTAssertEqual(try w.rollout("clone", server, clone).status, 0) }
        let offline = try w.rollout(
            "--repo", laptop, "--offline", "promote", "tr-TR@18", "--to", "5%", "--force", "--reason", "offline")
        XCTAssertEqual(offline.status, 0, offline.output)
        // Offline work waiting: an online change in the same clone is refused until a person syncs.
        let waiting = try w.rollout(
            "--repo", laptop, "promote", "tr-TR@18", "--to", "10%", "--force", "--reason", "online", "--json")
        XCTAssertEqual(waiting.status, 76, waiting.output)
        XCTAssertEqual(errorCode(waiting), "diverged", waiting.stderr)
        XCTAssertTrue(waiting.stderr.contains("rollout sync"), waiting.stderr)
        // The same file changed on the remote: sync names the clash and stops, 76, not 75.
        let other = try w.rollout("--repo", ci, "promote", "tr-TR@18", "--to", "20%", "--force", "--reason", "ci")
        XCTAssertEqual(other.status, 0, other.output)
        let clash = try w.rollout("--repo", laptop, "sync", "--json")
        XCTAssertEqual(clash.status, 76, clash.output)
        XCTAssertEqual(errorCode(clash), "diverged", clash.stderr)
        XCTAssertTrue(clash.stderr.contains("--discard-local"), clash.stderr)
        XCTAssertEqual(try w.rollout("--repo", laptop, "sync", "--discard-local").status, 0)
    }

    func testAnUnreachableRemoteIsNotAConflict() throws {
        let w = try Workspace()
        let server = try shared(w)
        let clone = w.scratch.path("clone")
        XCTAssertEqual(try w.rollout("clone", server, clone).status, 0)
        for url in ["http://127.0.0.1:1/shared.git", "http://rollout-test.invalid/shared.git"] {
            XCTAssertEqual(try w.git("remote", "set-url", "origin", url, repository: clone).status, 0)
            let synced = try w.rollout("--repo", clone, "sync", "--json")
            XCTAssertEqual(synced.status, 75, "\(url): \(synced.output)")
            XCTAssertEqual(errorCode(synced), "unreachable", "\(url): \(synced.stderr)")
        }
    }

    // MARK: 13. hints that fit the failure

    func testAChangedHostKeyIsNotTreatedAsAnUnknownOne() throws {
        let w = try Workspace()
        let repository = try shared(w)
        let server = try SSHGitServer(directory: w.scratch.path("ssh"), authorized: ["deploy"])
        defer { server.stop() }
        // known_hosts holds another key for the server's address: what a man in the middle looks like.
        let other = w.scratch.path("other_host_key")
        let made = try Processes.run(
            "/usr/bin/env", ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other], in: w.root,
            environment: w.environment)
        XCTAssertEqual(made.status, 0, made.output)
        let otherKey = try String(contentsOfFile: other + ".pub", encoding: .utf8)
        try Data("[127.0.0.1]:\(server.port) \(otherKey)".utf8).write(to: URL(fileURLWithPath: server.knownHostsFile))

        let refused = try w.rollout(
            "clone", server.url(repository, as: "deploy"), w.scratch.path("refused"), "--json",
            env: ["GIT_SSH_COMMAND": server.sshCommand])
        XCTAssertEqual(refused.status, 69, refused.output)
        XCTAssertEqual(errorCode(refused), "unavailable", refused.stderr)
        XCTAssertTrue(refused.stderr.contains("CHANGED"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("man in the middle"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("accept-new"), "no advice to accept the new key: \(refused.stderr)")
        XCTAssertFalse(refused.stderr.contains("ssh-keyscan"), "no advice to scan the new key: \(refused.stderr)")
    }

    /// A certificate for another name, from a CA git trusts: trusting the CA is not the fix.
    func testATLSNameMismatchIsNotAnUnknownCA() throws {
        let w = try Workspace()
        let directory = w.scratch.path("tls")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let made = try Processes.run(
            "/usr/bin/env",
            [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=other.example",
                "-addext", "subjectAltName=DNS:other.example", "-keyout", directory + "/key.pem", "-out",
                directory + "/cert.pem",
            ], in: directory, environment: w.environment)
        XCTAssertEqual(made.status, 0, made.output)
        let script = """
            import http.server, ssl, sys
            server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain("cert.pem", "key.pem")
            server.socket = context.wrap_socket(server.socket, server_side=True)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // SIGKILL: a child spawned from the test's threads inherits their blocked SIGTERM.
        defer { kill(process.processIdentifier, SIGKILL) }
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        let port = try XCTUnwrap(Int(line.trimmingCharacters(in: .whitespacesAndNewlines)), line)

        let refused = try w.rollout(
            "clone", "https://127.0.0.1:\(port)/shared.git", w.scratch.path("refused"),
            env: ["GIT_SSL_CAINFO": directory + "/cert.pem"])
        XCTAssertEqual(refused.status, 69, refused.output)
        XCTAssertTrue(refused.stderr.contains("another name"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("give git the CA"), refused.stderr)
    }

    func testACloneWithATokenSaysWhereItIsKept() throws {
        let w = try Workspace()
        _ = try shared(w)
        let token = "glpat-\(UUID().uuidString.lowercased())"
        let server = try HTTPGitServer(
            root: w.scratch.path("server"), state: w.scratch.path("http"), users: ["ci": token])
        defer { server.stop() }
        let clone = w.scratch.path("clone")
        let cloned = try w.rollout("clone", server.url("shared.git", user: "ci", password: token), clone)
        XCTAssertEqual(cloned.status, 0, cloned.output)
        XCTAssertTrue(cloned.stdout.contains("kept in \(clone)/config"), cloned.stdout)
        XCTAssertFalse(cloned.output.contains(token), cloned.output)
        let plain = try w.rollout(
            "clone", server.url("shared.git"), w.scratch.path("plain"), env: ["GIT_ASKPASS": "/bin/false"])
        XCTAssertFalse(plain.stdout.contains("kept in"), plain.output)
    }

    // MARK: minor: a token in a URL's query string

    func testATokenInAURLsQueryStringIsNeverPrinted() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let token = "qs-\(UUID().uuidString.lowercased())"
        let url = "http://127.0.0.1:1/shared.git?private_token=\(token)&ref=main"
        let added = try w.rollout("remote", "add", "origin", url)
        XCTAssertEqual(added.status, 0, added.output)
        XCTAssertTrue(added.stdout.contains("private_token=***"), added.stdout)
        XCTAssertTrue(added.stdout.contains("holds a credential"), added.stdout)
        let listed = try w.rollout("remote", "list", "--json")
        let synced = try w.rollout("sync", "--json")
        XCTAssertEqual(synced.status, 75, synced.output)
        for result in [added, listed, synced] {
            XCTAssertFalse(result.output.contains(token), "printed the token: \(result.output)")
        }
    }
}
