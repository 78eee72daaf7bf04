import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// The one classification of what git and the server said when a fetch or push failed
/// (docs/teams.md, "When the remote fails"): a CI job that retries on 75 must never retry a wrong
/// password, a host key or a hook refusal, and must retry a dropped connection. The messages are
/// the ones git 2.39, OpenSSH and the common servers print.
final class RemoteFailureTests: XCTestCase {
    private func kind(_ stderr: String) -> GitTransport.FailureKind {
        GitTransport.classify(GitTransport.messageLines(stderr))
    }

    func testCredentialFailuresArePermanentPermissionFailures() {
        for stderr in [
            "fatal: Authentication failed for 'https://git.example.com/mobile/packs.git/'",
            "fatal: could not read Username for 'https://git.example.com': terminal prompts disabled",
            "fatal: could not read Password for 'https://bot@git.example.com': No such device or address",
            "remote: HTTP Basic: Access denied\nfatal: Authentication failed for 'https://gitlab.example.com/m/p.git/'",
            "remote: Permission to mobile/packs.git denied to ci-bot.\nfatal: unable to access 'https://github.com/mobile/packs.git/': The requested URL returned error: 403",
            "fatal: unable to access 'http://127.0.0.1:8080/shared.git/': The requested URL returned error: 401",
            "git@127.0.0.1: Permission denied (publickey).\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists.",
            "Received disconnect from 10.0.0.5 port 22:2: Too many authentication failures\nfatal: Could not read from remote repository.",
            "error: RPC failed; HTTP 401 curl 22 The requested URL returned error: 401\nfatal: the remote end hung up unexpectedly",
            "ERROR: The key you are authenticating with has been marked as read only.\nfatal: Could not read from remote repository.",
            "remote: \nremote: ========================================================================\nremote: \nremote: ERROR: You are not allowed to push code to this project.\nfatal: Could not read from remote repository.",
            "remote: The project you were looking for could not be found or you don't have permission to view it.\nfatal: repository 'https://gitlab.com/m/p.git/' not found",
            "remote: Public key authentication failed.\nfatal: Could not read from remote repository.",
            "Gitea: User permission denied for writing\nfatal: Could not read from remote repository.",
            "fatal: unable to access 'https://git.example.com/p.git/': Received HTTP code 407 from proxy after CONNECT",
        ] {
            XCTAssertEqual(kind(stderr), .authentication, stderr)
        }
    }

    func testUntrustedServersAreNeitherRetriedNorPermissionFailures() {
        XCTAssertEqual(
            kind(
                "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\nHost key verification failed.\nfatal: Could not read from remote repository."
            ), .hostKey)
        XCTAssertEqual(
            kind(
                "@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed."
            ), .hostKey)
        for stderr in [
            "fatal: unable to access 'https://127.0.0.1:8443/shared.git/': SSL certificate problem: unable to get local issuer certificate",
            "fatal: unable to access 'https://git.internal/p.git/': server certificate verification failed. CAfile: none CRLfile: none",
            "fatal: unable to access 'https://127.0.0.1:8443/x.git/': SSL: no alternative certificate subject name matches target host name '127.0.0.1'",
            "fatal: unable to access 'https://expired.example/x.git/': SSL certificate problem: certificate has expired",
        ] {
            XCTAssertEqual(kind(stderr), .certificate, stderr)
        }
    }

    func testARepositoryThatIsNotThereIsMissing() {
        for stderr in [
            "remote: Repository not found.\nfatal: repository 'https://github.com/mobile/nope.git/' not found",
            "fatal: unable to access 'http://127.0.0.1:8080/nope.git/': The requested URL returned error: 404",
            "fatal: '/srv/nope.git' does not appear to be a git repository\nfatal: Could not read from remote repository.",
            "fatal: remote error: access denied or repository not exported: /nope.git",
            "fatal: unable to access 'https://git.example.com/gone.git/': The requested URL returned error: 410",
        ] {
            XCTAssertEqual(kind(stderr), .notFound, stderr)
        }
    }

    func testAFailureThatMayPassIsTransient() {
        for stderr in [
            "fatal: unable to access 'https://git.example.com/p.git/': Could not resolve host: git.example.com",
            "fatal: unable to access 'http://127.0.0.1:9/x.git/': Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server",
            "ssh: connect to host 127.0.0.1 port 2222: Connection refused\nfatal: Could not read from remote repository.",
            "error: RPC failed; HTTP 502 curl 22 The requested URL returned error: 502\nfatal: the remote end hung up unexpectedly",
            "fatal: unable to access 'https://git.example.com/p.git/': The requested URL returned error: 503",
            "fetch-pack: unexpected disconnect while reading sideband packet\nfatal: early EOF",
            "kex_exchange_identification: read: Connection reset by peer",
            "fatal: unable to access 'https://git.example.com/p.git/': Operation timed out after 300000 milliseconds with 0 out of 0 bytes received",
            "error: RPC failed; curl 56 GnuTLS recv error (-110): The TLS connection was non-properly terminated.\nfatal: early EOF",
            "fatal: unable to access 'https://github.com/m/p.git/': gnutls_handshake() failed: The TLS connection was non-properly terminated.",
            "fatal: unable to access 'https://github.com/m/p.git/': OpenSSL SSL_read: SSL_ERROR_SYSCALL, errno 104",
            "error: RPC failed; curl 92 HTTP/2 stream 5 was not closed cleanly: CANCEL (err 8)",
            "fatal: unable to access 'https://github.com/m/p.git/': The requested URL returned error: 429",
            "fatal: unable to access 'https://git.example.com/p.git/': Received HTTP code 503 from proxy after CONNECT",
            "Connection to git.example.com closed by remote host.\nfatal: Could not read from remote repository.",
            "error: RPC failed; curl 28 Operation too slow. Less than 1000 bytes/sec transferred the last 60 seconds",
        ] {
            XCTAssertEqual(kind(stderr), .transient, stderr)
        }
    }

    func testWhatNobodyRecognisesIsNotCalledTemporary() {
        XCTAssertEqual(kind("fatal: unable to find remote helper for 'gopher'"), .other)
        // The same URL, as git 2.39 says it when the helper it could not start closed the pipe
        // first: the broken pipe is a consequence, not a network that may come back (exit 69, not 75).
        XCTAssertEqual(
            kind(
                "git: 'remote-nosuch' is not a git command. See 'git --help'.\nfatal: full write to remote helper failed: Broken pipe"
            ), .other)
        XCTAssertEqual(kind("sh: 1: ssh: not found\nfatal: the remote end hung up unexpectedly"), .other)
        XCTAssertEqual(kind(""), .other)
        // A body over the server's limit will be over it next time too.
        XCTAssertEqual(
            kind(
                "error: RPC failed; HTTP 413 curl 22 The requested URL returned error: 413\nfatal: the remote end hung up unexpectedly"
            ), .other)
        XCTAssertEqual(
            kind("fatal: unable to access 'https://git.example.com/p.git/': The requested URL returned error: 501"),
            .other)
        // A missing ssh is not a missing repository, nor a local config problem a credential.
        XCTAssertEqual(kind("sh: 1: ssh: not found\nfatal: Could not read from remote repository."), .other)
        XCTAssertEqual(kind("fatal: detected dubious ownership in repository at '/srv/packs.git'"), .other)
    }

    /// receive-pack refuses a ref for a lost race (its lock, an old value that moved) and for a
    /// hook; only the first is "another writer was faster".
    func testALostRaceIsToldFromAHookRefusal() {
        XCTAssertTrue(GitTransport.isLostRace("[remote rejected] (failed to lock)"))
        XCTAssertTrue(
            GitTransport.isLostRace(
                "[remote rejected] (cannot lock ref 'refs/heads/main': is at 1a2b but expected 3c4d)"))
        XCTAssertTrue(GitTransport.isLostRace("[rejected] (stale info)"))
        XCTAssertFalse(GitTransport.isLostRace("[remote rejected] (pre-receive hook declined)"))
        XCTAssertFalse(GitTransport.isLostRace("[remote rejected] (protected branch hook declined)"))
    }

    func testNoCredentialSurvivesInAURLOrInText() {
        XCTAssertEqual(
            RemoteURL.redacted("https://x-access-token:ghs_abc123def@github.com/m/p.git"), "https://github.com/m/p.git")
        XCTAssertEqual(RemoteURL.redacted("https://ghp_onlyAToken@github.com/m/p.git"), "https://github.com/m/p.git")
        XCTAssertEqual(RemoteURL.redacted("https://oauth2:glpat-XYZ@gitlab.com/m/p.git"), "https://gitlab.com/m/p.git")
        XCTAssertEqual(
            RemoteURL.redacted("ssh://git@git.example.com:2222/m/p.git"), "ssh://git@git.example.com:2222/m/p.git",
            "an ssh account is not a secret")
        XCTAssertEqual(
            RemoteURL.redacted("ssh://git:hunter22@git.example.com/m/p.git"), "ssh://git.example.com/m/p.git")
        XCTAssertEqual(RemoteURL.redacted("git@github.com:m/p.git"), "git@github.com:m/p.git")
        XCTAssertEqual(RemoteURL.redacted("/srv/packs.git"), "/srv/packs.git")

        let secrets = RemoteURL.credentials(in: "https://bot:p%40ss%2Fword@git.example.com/p.git")
        XCTAssertEqual(secrets, ["p%40ss%2Fword", "p@ss/word"], "the password, not the account")
        XCTAssertEqual(RemoteURL.credentials(in: "https://ghp_tokenAsUser@github.com/m/p.git"), ["ghp_tokenAsUser"])
        let text =
            "remote: your password p@ss/word is old\nfatal: Authentication failed for 'https://bot:p%40ss%2Fword@git.example.com/p.git/'"
        let failure = GitTransport.Failure(GitTransport.messageLines(text), secrets: secrets)
        XCTAssertEqual(failure.kind, .authentication)
        XCTAssertFalse(failure.lines.joined().contains("p@ss/word"), "\(failure.lines)")
        XCTAssertFalse(failure.lines.joined().contains("p%40ss"), "\(failure.lines)")
        XCTAssertTrue(
            failure.lines.contains("fatal: Authentication failed for 'https://git.example.com/p.git/'"),
            "\(failure.lines)")
        XCTAssertEqual(RemoteURL.credentials(in: "git@github.com:m/p.git"), [])
        XCTAssertEqual(RemoteURL.credentials(in: "ssh://git@host/p.git"), [])

        // A raw '@' or quote in a password, and a password typed into an scp-like address.
        XCTAssertEqual(RemoteURL.redacted("https://bot:p@ss@git.example.com/x.git"), "https://git.example.com/x.git")
        XCTAssertEqual(RemoteURL.redacted("https://bot:it's\"q@git.example.com/x.git"), "https://git.example.com/x.git")
        XCTAssertEqual(RemoteURL.redacted("deploy:s3cretPass@git.example.com:m/p.git"), "git.example.com:m/p.git")
        XCTAssertEqual(RemoteURL.credentials(in: "deploy:s3cretPass@git.example.com:m/p.git"), ["s3cretPass"])
        XCTAssertEqual(RemoteURL.redacted("/srv/repos/team@2026/packs.git"), "/srv/repos/team@2026/packs.git")
        XCTAssertEqual(RemoteURL.redacted("HTTPS://tok3nValue@[::1]:8443/p.git"), "HTTPS://[::1]:8443/p.git")
    }

    /// git runs with the user's settings but never on another repository: rollout inside a git
    /// hook inherits GIT_DIR and friends. Its messages are in English so they can be classified.
    func testGitRunsOnThisRepositoryWithTheUsersSettings() {
        let environment = GitTransport.environment(from: [
            "GIT_DIR": "/elsewhere/.git", "GIT_OBJECT_DIRECTORY": "/elsewhere/objects",
            "GIT_ASKPASS": "/usr/bin/askpass",
            "LC_ALL": "de_DE.UTF-8", "LANGUAGE": "de", "HOME": "/home/ci", "GIT_SSH_COMMAND": "ssh -i key",
        ])
        XCTAssertNil(environment["GIT_DIR"])
        XCTAssertNil(environment["GIT_OBJECT_DIRECTORY"])
        XCTAssertEqual(environment["GIT_ASKPASS"], "/usr/bin/askpass")
        XCTAssertEqual(environment["GIT_SSH_COMMAND"], "ssh -i key")
        XCTAssertEqual(environment["HOME"], "/home/ci")
        XCTAssertNil(environment["LC_ALL"])
        XCTAssertEqual(environment["LC_CTYPE"], "de_DE.UTF-8", "file names keep the user's encoding")
        XCTAssertEqual(environment["LC_MESSAGES"], "C")
        XCTAssertNil(environment["LANGUAGE"])
    }

    /// Each kind has its own exit code; only what may pass is 75.
    func testEachKindHasItsDocumentedExitCode() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "remote-failure-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        _ = try PackRepository.createBare(scratch)
        let repository = try PackRepository.open(scratch)
        _ = try repository.addRemote("origin", url: "https://bot:tok3nValue@git.example.com/p.git")
        let expected: [(GitTransport.FailureKind, Int32)] = [
            (.authentication, 77), (.refusedByServer, 77), (.hostKey, 69), (.certificate, 69), (.notFound, 66),
            (.transient, 75), (.other, 69),
            (.noGit, 69),
        ]
        for (kind, code) in expected {
            let failure = repository.remoteFailure(
                .init(kind: kind, lines: ["fatal: something"]), "push to", "origin", attempts: 1)
            // What may pass is a refusal the command line words (its way out names --offline); the
            // others carry git's advice as they are.
            if let refusal = failure as? RemoteRefusal {
                XCTAssertEqual(
                    refusal,
                    .unreachable(
                        doing: "push to", remote: "origin", url: "https://git.example.com/p.git", attempts: 1,
                        gitSaid: ["fatal: something"]))
                XCTAssertEqual(refusal.kind.exitCode.rawValue, code, "\(kind)")
                continue
            }
            let error = try XCTUnwrap(failure as? RolloutError, "\(kind)")
            XCTAssertEqual(error.exitCode, code, "\(kind)")
            XCTAssertTrue(error.message.contains("https://git.example.com/p.git"), error.message)
            XCTAssertFalse(error.message.contains("tok3nValue"), error.message)
        }
    }
}
