import Foundation
import XCTest

/// One test's operator: a workspace whose every rollout run is kept, and the credentials that
/// must never show in any of their output nor in any file of a clone but its `config`.
private final class Session {
    let w: Workspace
    private(set) var runs: [(arguments: [String], result: RunResult)] = []
    var secrets: [String] = []

    init() throws {
        w = try Workspace()
        // A test that lacks a credential must fail, not wait at a prompt on the terminal.
        w.environment["GIT_TERMINAL_PROMPT"] = "0"
    }

    var home: String { w.environment["HOME"]! }

    @discardableResult
    func rollout(_ arguments: String..., env: [String: String] = [:]) throws -> RunResult {
        try rollout(arguments, env: env)
    }

    @discardableResult
    func rollout(_ arguments: [String], env: [String: String] = [:]) throws -> RunResult {
        try timed(arguments, env: env).0
    }

    func timed(_ arguments: String..., env: [String: String] = [:]) throws -> (RunResult, TimeInterval) {
        try timed(arguments, env: env)
    }

    /// Runs rollout and returns the result and how long it took, in seconds.
    func timed(_ arguments: [String], env: [String: String] = [:]) throws -> (RunResult, TimeInterval) {
        let started = Date()
        let result = try w.rollout(arguments, env: env)
        runs.append((arguments, result))
        return (result, Date().timeIntervalSince(started))
    }

    /// Appends to the test's global git config, ~/.gitconfig in the test's HOME.
    func gitConfig(_ text: String) throws {
        let file = home + "/.gitconfig"
        let old = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        try Data((old + text + "\n").utf8).write(to: URL(fileURLWithPath: file))
    }

    /// `credential.helper store` with these lines in ~/.git-credentials.
    func storeCredentials(_ lines: [String]) throws {
        if !((try? String(contentsOfFile: home + "/.gitconfig", encoding: .utf8)) ?? "").contains("helper = store") {
            try gitConfig("[credential]\n\thelper = store")
        }
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: home + "/.git-credentials"))
    }

    /// Every ref of a server-side repository with its target, to show a refusal changed nothing.
    func refs(_ repository: String) throws -> String {
        try Processes.run(
            "/usr/bin/env", ["git", "--git-dir", repository, "for-each-ref", "--format=%(refname) %(objectname)"],
            in: w.root, environment: w.environment
        ).stdout
    }

    /// No secret in the output of any rollout command this session ran, nor in any file under the
    /// clones except their `config` (logs, reflogs, FETCH_HEAD, packed-refs included), nor in any
    /// object they hold (commit messages and trailers are compressed in the files).
    func assertNothingLeaked(clones: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertFalse(secrets.isEmpty, "a test names its secrets", file: file, line: line)
        for (arguments, result) in runs {
            for secret in secrets where result.output.contains(secret) {
                XCTFail(
                    "rollout \(arguments.joined(separator: " ")) printed a credential: \(result.output)", file: file,
                    line: line)
            }
        }
        for clone in clones where FileManager.default.fileExists(atPath: clone) {
            let enumerator = FileManager.default.enumerator(atPath: clone)
            while let relative = enumerator?.nextObject() as? String {
                let path = clone + "/" + relative
                guard relative != "config", let data = FileManager.default.contents(atPath: path) else { continue }
                for secret in secrets where data.range(of: Data(secret.utf8)) != nil {
                    XCTFail("\(path) holds a credential", file: file, line: line)
                }
            }
            let objects = try Processes.run(
                "/usr/bin/env", ["git", "--git-dir", clone, "cat-file", "--batch-all-objects", "--batch"], in: w.root,
                environment: w.environment)
            for secret in secrets where objects.stdout.contains(secret) {
                XCTFail("an object in \(clone) holds a credential", file: file, line: line)
            }
        }
    }
}

/// A `--json` error's code, from stderr.
private func errorCode(_ result: RunResult) -> String? {
    let document = try? JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: [String: Any]]
    return document?["error"]?["code"] as? String
}

private func basic(_ user: String, _ password: String) -> String {
    Data("\(user):\(password)".utf8).base64EncodedString()
}

/// A secret that appears nowhere by chance.
private func secret(_ kind: String) -> String { "\(kind)-\(UUID().uuidString.lowercased())" }

/// The lines of a private key that only it holds: what must never be printed or stored.
private func keyLines(_ key: String) -> [String] {
    key.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") && $0.count >= 20 }
}

/// Shared repositories on real servers the tests start on loopback and stop: smart HTTP behind
/// Basic auth (private, and public-read with authenticated push), HTTPS with an internal CA, and
/// an sshd that accepts keys only. Every way git authenticates works the same for rollout, a
/// refusal fails at once with its own exit code, and no credential is ever printed or stored.
final class RemoteAuthTests: XCTestCase {
    /// Longest a permanent failure may take: well under the two minutes of retries a conflict gets.
    private let atOnce: TimeInterval = 10

    private let promote = ["promote", "en-US@2", "--to", "10%", "--force", "--reason", "widen en-US"]

    private func httpServer(
        _ s: Session, mode: HTTPGitServer.Mode = .private, users: [String: String], forbidden: [String] = [],
        headers: [String: String] = [:],
        tls: TestCertificates? = nil
    ) throws -> HTTPGitServer {
        try HTTPGitServer(
            root: s.w.scratch.path("server"), state: s.w.scratch.path("http"), mode: mode, users: users,
            forbidden: forbidden, headers: headers, tls: tls)
    }

    /// Clones `url` with `env` and checks that a promote in the clone lands on the server.
    private func cloneAndPromote(
        _ s: Session, _ url: String, repository: String, env: [String: String] = [:], file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> String {
        let clone = s.w.scratch.path("clone")
        let cloned = try s.rollout("clone", url, clone, env: env)
        XCTAssertEqual(cloned.status, 0, cloned.output, file: file, line: line)
        try assertPromoteLands(s, clone: clone, repository: repository, env: env, file: file, line: line)
        return clone
    }

    private func assertPromoteLands(
        _ s: Session, clone: String, repository: String, env: [String: String] = [:], file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let before = try actions(s.w, repository).count
        let promoted = try s.rollout(["--repo", clone] + promote, env: env)
        XCTAssertEqual(promoted.status, 0, promoted.output, file: file, line: line)
        XCTAssertEqual(
            try actions(s.w, repository).count, before + 1, "the promote is on the server", file: file, line: line)
    }

    // MARK: HTTP credentials, as git takes them

    func testACredentialHelperAuthenticatesCloneAndPromote() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let password = secret("password")
        let server = try httpServer(s, users: ["alice": password])
        defer { server.stop() }
        try s.storeCredentials(["http://alice:\(password)@127.0.0.1:\(server.port)"])
        s.secrets = [password, basic("alice", password)]

        let clone = try cloneAndPromote(s, server.url("shared.git"), repository: repository)
        XCTAssertTrue(try server.requests().contains { $0.isPush && $0.user == "alice" && $0.status == 200 })
        try s.assertNothingLeaked(clones: [clone])
    }

    /// The "token in a CI variable" recipe: a helper for that server only, reading the variable
    /// when git asks, so the token is in no file at all.
    func testACredentialHelperReadingACIVariableAuthenticates() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let token = secret("glpat")
        let server = try httpServer(s, users: ["oauth2": token])
        defer { server.stop() }
        // The recipe as docs/teams.md writes it, under a global `store` helper that must not get
        // the token: the empty helper resets the list, and the recipe's helper answers only `get`.
        try s.gitConfig("[credential]\n\thelper = store")
        try s.gitConfig(
            "[credential \"\(server.origin)\"]\n\thelper =\n\thelper = \"!f() { test \\\"$1\\\" = get && echo username=oauth2 && echo \\\"password=$PACKS_TOKEN\\\"; }; f\""
        )
        s.secrets = [token, basic("oauth2", token)]
        let env = ["PACKS_TOKEN": token]

        let clone = try cloneAndPromote(s, server.url("shared.git"), repository: repository, env: env)
        XCTAssertFalse(try server.requests().contains { $0.user != "oauth2" && $0.status == 200 })
        try s.assertNothingLeaked(clones: [clone, s.home])
    }

    func testGitAskpassAuthenticatesCloneAndPromote() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let password = secret("password")
        let server = try httpServer(s, users: ["alice": password])
        defer { server.stop() }
        let askpass = try s.w.scratch.write(
            "askpass.sh", "#!/bin/sh\ncase \"$1\" in Username*) echo alice ;; *) echo '\(password)' ;; esac\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: askpass)
        s.secrets = [password, basic("alice", password)]

        let clone = try cloneAndPromote(
            s, server.url("shared.git"), repository: repository, env: ["GIT_ASKPASS": askpass])
        try s.assertNothingLeaked(clones: [clone])
    }

    /// The GitHub Actions recipe: actions/checkout passes the token as an extraheader, here
    /// through GIT_CONFIG_COUNT/KEY_n/VALUE_n in the environment.
    func testAnExtraheaderFromTheEnvironmentAuthenticates() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let token = secret("ghs")
        let server = try httpServer(s, users: ["x-access-token": token])
        defer { server.stop() }
        s.secrets = [token, basic("x-access-token", token)]
        let env = [
            "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.\(server.origin)/.extraheader",
            "GIT_CONFIG_VALUE_0": "AUTHORIZATION: basic \(basic("x-access-token", token))",
        ]

        let clone = try cloneAndPromote(s, server.url("shared.git"), repository: repository, env: env)
        let synced = try s.rollout("--repo", clone, "sync", env: env)
        XCTAssertEqual(synced.status, 0, synced.output)
        try s.assertNothingLeaked(clones: [clone])
    }

    func testAnExtraheaderFromGitConfigAuthenticates() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let token = secret("bearer")
        let server = try httpServer(s, users: [:], headers: ["Bearer \(token)": "ci"])
        defer { server.stop() }
        try s.gitConfig("[http]\n\textraheader = Authorization: Bearer \(token)")
        s.secrets = [token]

        let clone = try cloneAndPromote(s, server.url("shared.git"), repository: repository)
        XCTAssertTrue(try server.requests().contains { $0.isPush && $0.user == "ci" })
        try s.assertNothingLeaked(clones: [clone])
    }

    /// The GitLab job-token recipe: the token in the URL works, and is shown nowhere.
    func testATokenInTheURLWorksAndIsNeverShown() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let token = secret("glcbt")
        let server = try httpServer(s, users: ["gitlab-ci-token": token])
        defer { server.stop() }
        s.secrets = [token, basic("gitlab-ci-token", token)]
        let shown = "127.0.0.1:\(server.port)/shared.git"

        let clone = s.w.scratch.path("clone")
        let cloned = try s.rollout("clone", server.url("shared.git", user: "gitlab-ci-token", password: token), clone)
        XCTAssertEqual(cloned.status, 0, cloned.output)
        let listed = try s.rollout("--repo", clone, "remote", "list")
        XCTAssertEqual(listed.status, 0, listed.output)
        XCTAssertTrue(listed.stdout.contains(shown), listed.stdout)
        let json = try s.rollout("--repo", clone, "remote", "list", "--json")
        XCTAssertEqual(json.status, 0, json.output)
        XCTAssertTrue(json.stdout.contains(shown), json.stdout)
        try assertPromoteLands(s, clone: clone, repository: repository)

        server.stop()
        let unreachable = try s.rollout(
            "--repo", clone, "promote", "tr-TR@18", "--to", "20%", "--force", "--reason", "server down")
        XCTAssertEqual(unreachable.status, 75, unreachable.output)
        XCTAssertTrue(
            unreachable.stderr.contains(shown), "names the remote's URL, without the token: \(unreachable.stderr)")
        let unreachableJSON = try s.rollout(["--repo", clone, "sync", "--json"])
        XCTAssertEqual(unreachableJSON.status, 75, unreachableJSON.output)
        try s.assertNothingLeaked(clones: [clone])
    }

    // MARK: HTTP refusals: permanent, at once, exit 77

    func testPublicReadClonesAnonymouslyAndRefusesAnAnonymousPushAtOnce() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let password = secret("password")
        let server = try httpServer(s, mode: .publicRead, users: ["alice": password])
        defer { server.stop() }
        s.secrets = [password, basic("alice", password)]

        let clone = s.w.scratch.path("clone")
        let cloned = try s.rollout("clone", server.url("shared.git"), clone)
        XCTAssertEqual(cloned.status, 0, cloned.output)
        let before = try s.refs(repository)
        let (refused, seconds) = try s.timed(["--repo", clone] + promote + ["--json"])
        XCTAssertEqual(refused.status, 77, refused.output)
        XCTAssertEqual(errorCode(refused), "permission", refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains("origin") && refused.stderr.contains("127.0.0.1:\(server.port)/shared.git"),
            refused.stderr)
        XCTAssertLessThan(seconds, atOnce, "not retried")
        XCTAssertEqual(
            try server.requests().filter { $0.query == "service=git-receive-pack" }.count, 1, "the push was tried once")
        XCTAssertEqual(try s.refs(repository), before, "the remote is unchanged")

        try s.storeCredentials(["http://alice:\(password)@127.0.0.1:\(server.port)"])
        try assertPromoteLands(s, clone: clone, repository: repository)
        try s.assertNothingLeaked(clones: [clone])
    }

    func testAWrongPasswordIsRefusedAtOnce() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let password = secret("password")
        let wrong = secret("wrong")
        let server = try httpServer(s, users: ["alice": password])
        defer { server.stop() }
        s.secrets = [password, wrong, basic("alice", password), basic("alice", wrong)]

        let (cloneRefused, cloneSeconds) = try s.timed(
            "clone", server.url("shared.git", user: "alice", password: wrong), s.w.scratch.path("refused"))
        XCTAssertEqual(cloneRefused.status, 77, cloneRefused.output)
        XCTAssertTrue(cloneRefused.stderr.contains("127.0.0.1:\(server.port)/shared.git"), cloneRefused.stderr)
        XCTAssertLessThan(cloneSeconds, atOnce)

        try s.storeCredentials(["http://alice:\(password)@127.0.0.1:\(server.port)"])
        let clone = s.w.scratch.path("clone")
        let cloned = try s.rollout("clone", server.url("shared.git"), clone)
        XCTAssertEqual(cloned.status, 0, cloned.output)
        try s.storeCredentials(["http://alice:\(wrong)@127.0.0.1:\(server.port)"])
        let before = try s.refs(repository)
        let (refused, seconds) = try s.timed(["--repo", clone] + promote + ["--json"])
        XCTAssertEqual(refused.status, 77, refused.output)
        XCTAssertEqual(errorCode(refused), "permission", refused.stderr)
        XCTAssertLessThan(seconds, atOnce, "not retried")
        XCTAssertFalse(try server.requests().contains { $0.isPush }, "nothing was sent")
        XCTAssertEqual(try s.refs(repository), before)
        try s.assertNothingLeaked(clones: [clone, s.w.scratch.path("refused")])
    }

    func testNoCredentialsAtAllIsRefusedAtOnce() throws {
        let s = try Session()
        _ = try shared(s.w)
        let password = secret("password")
        let server = try httpServer(s, users: ["alice": password])
        defer { server.stop() }
        s.secrets = [password]

        let (refused, seconds) = try s.timed("clone", server.url("shared.git"), s.w.scratch.path("clone"), "--json")
        XCTAssertEqual(refused.status, 77, refused.output)
        XCTAssertEqual(errorCode(refused), "permission", refused.stderr)
        XCTAssertTrue(refused.stderr.contains("127.0.0.1:\(server.port)/shared.git"), refused.stderr)
        XCTAssertLessThan(seconds, atOnce)
        try s.assertNothingLeaked(clones: [s.w.scratch.path("clone")])
    }

    /// A user the server knows but does not let push (HTTP 403).
    func testAForbiddenUserIsRefusedAtOnce() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let password = secret("password")
        let server = try httpServer(s, mode: .publicRead, users: ["mallory": password], forbidden: ["mallory"])
        defer { server.stop() }
        try s.storeCredentials(["http://mallory:\(password)@127.0.0.1:\(server.port)"])
        s.secrets = [password, basic("mallory", password)]

        let clone = s.w.scratch.path("clone")
        let cloned = try s.rollout("clone", server.url("shared.git"), clone)
        XCTAssertEqual(cloned.status, 0, cloned.output)
        let before = try s.refs(repository)
        let (refused, seconds) = try s.timed(["--repo", clone] + promote)
        XCTAssertEqual(refused.status, 77, refused.output)
        XCTAssertTrue(refused.stderr.contains("127.0.0.1:\(server.port)/shared.git"), refused.stderr)
        XCTAssertLessThan(seconds, atOnce)
        XCTAssertEqual(try server.requests().filter { $0.status == 403 }.count, 1, "asked once")
        XCTAssertEqual(try s.refs(repository), before)
        try s.assertNothingLeaked(clones: [clone])
    }

    // MARK: HTTPS with an internal CA

    func testHTTPSWithAnInternalCAGivenThroughGitSettings() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let password = secret("password")
        let certificates = try TestCertificates(in: s.w.scratch.path("tls"))
        let server = try httpServer(s, users: ["alice": password], tls: certificates)
        defer { server.stop() }
        try s.storeCredentials(["https://alice:\(password)@127.0.0.1:\(server.port)"])
        s.secrets = [password, basic("alice", password)]

        let (untrusted, seconds) = try s.timed(
            "clone", server.url("shared.git"), s.w.scratch.path("untrusted"), "--json")
        XCTAssertEqual(untrusted.status, 69, untrusted.output)
        XCTAssertEqual(errorCode(untrusted), "unavailable", untrusted.stderr)
        XCTAssertTrue(untrusted.stderr.contains("certificate"), untrusted.stderr)
        XCTAssertLessThan(seconds, atOnce)

        let clone = s.w.scratch.path("clone")
        let cloned = try s.rollout(
            "clone", server.url("shared.git"), clone, env: ["GIT_SSL_CAINFO": certificates.authorityFile])
        XCTAssertEqual(cloned.status, 0, cloned.output)
        try s.gitConfig("[http \"\(server.origin)\"]\n\tsslCAInfo = \(certificates.authorityFile)")
        try assertPromoteLands(s, clone: clone, repository: repository)
        XCTAssertTrue(try server.requests().contains { $0.isPush && $0.status == 200 }, server.errors)
        try s.assertNothingLeaked(clones: [clone, s.w.scratch.path("untrusted")])
    }

    // MARK: ssh

    private func sshServer(_ s: Session, authorized: [String], unauthorized: [String] = [], trustHostKey: Bool = true)
        throws -> SSHGitServer
    {
        let server = try SSHGitServer(
            directory: s.w.scratch.path("ssh"), authorized: authorized, unauthorized: unauthorized,
            trustHostKey: trustHostKey)
        try s.gitConfig("[core]\n\tsshCommand = \(server.sshCommand)")
        return server
    }

    func testSSHWithAKeyFileThroughAHostAlias() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let server = try sshServer(s, authorized: ["deploy"])
        defer { server.stop() }
        s.secrets = keyLines(try server.privateKey("deploy"))

        let clone = s.w.scratch.path("clone")
        // The scp-like form of the recipe: ALIAS:PATH.
        let cloned = try s.rollout("clone", "\(server.alias("deploy")):\(repository)", clone)
        XCTAssertEqual(cloned.status, 0, cloned.output)
        try assertPromoteLands(s, clone: clone, repository: repository)
        let offline = try s.rollout(
            "--repo", clone, "--offline", "promote", "tr-TR@18", "--to", "5%", "--force", "--reason", "offline")
        XCTAssertEqual(offline.status, 0, offline.output)
        let synced = try s.rollout("--repo", clone, "sync")
        XCTAssertEqual(synced.status, 0, synced.output)
        XCTAssertTrue(
            try actions(s.w, repository).first?.hasPrefix("promote|tr-TR|") ?? false, "sync pushed the offline change")
        try s.assertNothingLeaked(clones: [clone])
    }

    func testAnUnknownHostKeyIsRefusedUntilAcceptedByTheSSHCommand() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let server = try SSHGitServer(directory: s.w.scratch.path("ssh"), authorized: ["deploy"], trustHostKey: false)
        defer { server.stop() }
        s.secrets = keyLines(try server.privateKey("deploy"))

        let (refused, seconds) = try s.timed(
            "clone", server.url(repository, as: "deploy"), s.w.scratch.path("refused"), "--json",
            env: ["GIT_SSH_COMMAND": server.sshCommand])
        XCTAssertEqual(refused.status, 69, refused.output)
        XCTAssertEqual(errorCode(refused), "unavailable", refused.stderr)
        XCTAssertTrue(refused.stderr.contains("host key"), refused.stderr)
        XCTAssertLessThan(seconds, atOnce)
        XCTAssertEqual(try String(contentsOfFile: server.knownHostsFile, encoding: .utf8), "", "nothing was trusted")

        let clone = s.w.scratch.path("clone")
        let accepting = ["GIT_SSH_COMMAND": server.sshCommand + " -o StrictHostKeyChecking=accept-new"]
        let cloned = try s.rollout("clone", server.url(repository, as: "deploy"), clone, env: accepting)
        XCTAssertEqual(cloned.status, 0, cloned.output)
        XCTAssertTrue(
            try String(contentsOfFile: server.knownHostsFile, encoding: .utf8).contains("[127.0.0.1]:\(server.port)"))
        let before = try actions(s.w, repository).count
        let promoted = try s.rollout(["--repo", clone] + promote, env: ["GIT_SSH_COMMAND": server.sshCommand])
        XCTAssertEqual(promoted.status, 0, "the accepted key is known from now on: \(promoted.output)")
        XCTAssertEqual(try actions(s.w, repository).count, before + 1)
        try s.assertNothingLeaked(clones: [clone, s.w.scratch.path("refused")])
    }

    func testAnSSHKeyTheServerDoesNotKnowIsRefusedAtOnce() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let server = try sshServer(s, authorized: ["deploy"], unauthorized: ["stranger"])
        defer { server.stop() }
        s.secrets = keyLines(try server.privateKey("stranger")) + keyLines(try server.privateKey("deploy"))

        let (refused, seconds) = try s.timed(
            "clone", server.url(repository, as: "stranger"), s.w.scratch.path("refused"), "--json")
        XCTAssertEqual(refused.status, 77, refused.output)
        XCTAssertEqual(errorCode(refused), "permission", refused.stderr)
        XCTAssertTrue(refused.stderr.contains(server.alias("stranger")), refused.stderr)
        XCTAssertLessThan(seconds, atOnce)

        let clone = s.w.scratch.path("clone")
        XCTAssertEqual(try s.rollout("clone", server.url(repository, as: "deploy"), clone).status, 0)
        let before = try s.refs(repository)
        // The deploy key is swapped for one the server does not know.
        XCTAssertEqual(
            try s.w.git("config", "remote.origin.url", server.url(repository, as: "stranger"), repository: clone)
                .status, 0)
        let (pushRefused, pushSeconds) = try s.timed(["--repo", clone] + promote)
        XCTAssertEqual(pushRefused.status, 77, pushRefused.output)
        XCTAssertLessThan(pushSeconds, atOnce)
        XCTAssertEqual(try s.refs(repository), before)
        try s.assertNothingLeaked(clones: [clone, s.w.scratch.path("refused")])
    }

    // MARK: a protected main, and a bot allowed to push

    private let protection = "GL-HOOK-ERR: main is protected: changes go through the release bot"

    func testAHookRefusalOverHTTPIsQuotedAndNotRetried() throws {
        let s = try Session()
        let repository = try shared(s.w)
        try ServerHooks.protectMain(in: repository, allowing: "release-bot", message: protection)
        let password = secret("password")
        let botPassword = secret("bot")
        let server = try httpServer(s, users: ["alice": password, "release-bot": botPassword])
        defer { server.stop() }
        try s.storeCredentials([
            "http://alice:\(password)@127.0.0.1:\(server.port)",
            "http://release-bot:\(botPassword)@127.0.0.1:\(server.port)",
        ])
        s.secrets = [password, botPassword, basic("alice", password), basic("release-bot", botPassword)]

        let clone = s.w.scratch.path("clone")
        XCTAssertEqual(try s.rollout("clone", server.url("shared.git", user: "alice"), clone).status, 0)
        let before = try s.refs(repository)
        let (refused, seconds) = try s.timed(["--repo", clone] + promote + ["--json"])
        XCTAssertEqual(refused.status, 77, refused.output)
        XCTAssertEqual(errorCode(refused), "permission", refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains("main is protected: changes go through the release bot"),
            "quotes the hook: \(refused.stderr)")
        XCTAssertLessThan(seconds, atOnce)
        XCTAssertEqual(ServerHooks.runs(in: repository), 1, "the push was attempted exactly once")
        XCTAssertEqual(try server.requests().filter(\.isPush).count, 1)
        XCTAssertEqual(try s.refs(repository), before, "the remote is unchanged")

        let bot = s.w.scratch.path("bot")
        XCTAssertEqual(try s.rollout("clone", server.url("shared.git", user: "release-bot"), bot).status, 0)
        try assertPromoteLands(s, clone: bot, repository: repository)
        XCTAssertEqual(ServerHooks.runs(in: repository), 2)
        try s.assertNothingLeaked(clones: [clone, bot])
    }

    func testAHookRefusalOverSSHIsQuotedAndNotRetried() throws {
        let s = try Session()
        let repository = try shared(s.w)
        try ServerHooks.protectMain(in: repository, allowing: "release-bot", message: protection)
        let server = try sshServer(s, authorized: ["alice", "release-bot"])
        defer { server.stop() }
        s.secrets = keyLines(try server.privateKey("alice")) + keyLines(try server.privateKey("release-bot"))

        let clone = s.w.scratch.path("clone")
        XCTAssertEqual(try s.rollout("clone", server.url(repository, as: "alice"), clone).status, 0)
        let before = try s.refs(repository)
        let (refused, seconds) = try s.timed(["--repo", clone] + promote)
        XCTAssertEqual(refused.status, 77, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("main is protected: changes go through the release bot"),
            "quotes the hook: \(refused.stderr)")
        XCTAssertLessThan(seconds, atOnce)
        XCTAssertEqual(ServerHooks.runs(in: repository), 1, "the push was attempted exactly once")
        XCTAssertEqual(try s.refs(repository), before, "the remote is unchanged")

        let bot = s.w.scratch.path("bot")
        XCTAssertEqual(try s.rollout("clone", server.url(repository, as: "release-bot"), bot).status, 0)
        try assertPromoteLands(s, clone: bot, repository: repository)
        XCTAssertEqual(ServerHooks.runs(in: repository), 2)
        try s.assertNothingLeaked(clones: [clone, bot])
    }

    // MARK: several clones racing

    func testClonesRacingOverAuthenticatedHTTPLoseNothing() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let password = secret("password")
        let server = try httpServer(s, users: ["alice": password])
        defer { server.stop() }
        try s.storeCredentials(["http://alice:\(password)@127.0.0.1:\(server.port)"])
        s.secrets = [password, basic("alice", password)]
        try fourClonesAtOnce(url: { server.url($0) }, serverRepository: repository, w: s.w, rounds: 6, clones: 3)
        try s.assertNothingLeaked(clones: (0..<3).map { s.w.scratch.path("clone\($0)") })
    }

    /// Fewer rounds than over HTTP: every operation opens two or more ssh connections.
    func testClonesRacingOverSSHLoseNothing() throws {
        let s = try Session()
        let repository = try shared(s.w)
        let server = try sshServer(s, authorized: ["deploy"])
        defer { server.stop() }
        s.secrets = keyLines(try server.privateKey("deploy"))
        try fourClonesAtOnce(
            url: { server.url(s.w.scratch.path("server/\($0)"), as: "deploy") }, serverRepository: repository, w: s.w,
            rounds: 4, clones: 3)
        try s.assertNothingLeaked(clones: (0..<3).map { s.w.scratch.path("clone\($0)") })
    }
}
