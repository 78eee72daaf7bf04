import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// Issue 31, remote and config, the rules under the end-to-end tests (HandedOverRepositoryTests):
/// which config keys a repository may not set for rollout's git, which hint fits which failure,
/// and the query string of a URL.
final class HandedOverConfigTests: XCTestCase {
    private func entries(_ list: [(String, String, String)]) -> [HandedOverConfig.Entry] {
        list.map { HandedOverConfig.Entry(scope: $0.0, key: $0.1, value: $0.2) }
    }

    func testTheRepositorysProgramsGoBackToTheUsersOrGitsDefault() {
        let listed = entries([
            ("global", "credential.helper", "store"),
            ("global", "core.sshcommand", "ssh -i ~/.ssh/deploy"),
            ("local", "credential.helper", "!evil"),
            ("local", "credential.https://git.example.com.helper", "!evil too"),
            ("local", "core.sshcommand", "evil-ssh"),
            ("local", "core.askpass", "evil-askpass"),
            ("local", "protocol.allow", "always"),
            ("local", "gpg.ssh.program", "evil-gpg"),
            ("local", "remote.origin.url", "/srv/packs.git"),
            ("local", "http.sslcainfo", "/etc/ca.pem"),
        ])
        let overrides = HandedOverConfig.overrides(listed, [:])
        func values(_ key: String) -> [String] { overrides.filter { $0.0 == key }.map(\.1) }
        XCTAssertEqual(values("core.hooksPath"), ["/dev/null"], "hooks never run")
        XCTAssertEqual(values("credential.helper"), ["", "store"], "emptied, then the user's own list")
        XCTAssertEqual(values("credential.https://git.example.com.helper"), [""])
        XCTAssertEqual(values("core.sshcommand"), ["ssh -i ~/.ssh/deploy"], "the user's own command")
        XCTAssertEqual(values("core.askpass"), [""])
        XCTAssertEqual(values("gpg.ssh.program"), ["ssh-keygen"])
        XCTAssertEqual(values("protocol.allow"), ["user"])
        XCTAssertEqual(values("protocol.ext.allow"), ["never"], "a repository cannot allow ext:: URLs")
        XCTAssertEqual(values("remote.origin.url"), [], "data stays the repository's")
        XCTAssertEqual(values("http.sslcainfo"), [])

        // Only what the repository set is touched: the user's own settings are left to git.
        XCTAssertEqual(
            HandedOverConfig.overrides(entries([("global", "core.sshcommand", "ssh -i key")]), [:]).map(\.0),
            ["core.hooksPath"])
        // GIT_SSH stands in for ssh when the user has no core.sshCommand.
        XCTAssertEqual(
            HandedOverConfig.overrides(entries([("local", "core.sshCommand", "x")]), ["GIT_SSH": "/opt/my ssh"]).last?
                .1,
            "'/opt/my ssh'")
        // Appended after the user's own GIT_CONFIG_* entries.
        let environment = HandedOverConfig.adding(
            [("core.hooksPath", "/dev/null")],
            to: ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "a.b", "GIT_CONFIG_VALUE_0": "c"])
        XCTAssertEqual(environment["GIT_CONFIG_COUNT"], "2")
        XCTAssertEqual(environment["GIT_CONFIG_KEY_1"], "core.hooksPath")
        XCTAssertEqual(environment["GIT_CONFIG_KEY_0"], "a.b")
    }

    func testGitsListingIsRead() {
        let text = "global\0user.name\nA B\0local\0core.bare\ntrue\0local\0remote.origin.mirror\0"
        XCTAssertEqual(
            HandedOverConfig.parse(text),
            entries([
                ("global", "user.name", "A B"), ("local", "core.bare", "true"),
                ("local", "remote.origin.mirror", "true"),
            ]))
        XCTAssertEqual(HandedOverConfig.folded("Remote.Origin.UploadPack"), "remote.Origin.uploadpack")
    }

    func testEachUntrustedServerGetsItsOwnAdvice() {
        let changed = GitTransport.Failure(
            kind: .hostKey,
            lines: [
                "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @",
                "Host key for [127.0.0.1]:2222 has changed and you have requested strict checking.",
                "Host key verification failed.",
            ])
        XCTAssertTrue(changed.hostKeyChanged)
        XCTAssertTrue(changed.hostKeyAdvice.contains("man in the middle"))
        XCTAssertFalse(changed.hostKeyAdvice.contains("accept-new"))
        let unknown = GitTransport.Failure(
            kind: .hostKey,
            lines: [
                "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.",
                "Host key verification failed.",
            ])
        XCTAssertFalse(unknown.hostKeyChanged)
        XCTAssertTrue(unknown.hostKeyAdvice.contains("ssh-keyscan"))

        func advice(_ line: String) -> String {
            GitTransport.Failure(kind: .certificate, lines: [line]).certificateAdvice
        }
        for line in [
            "fatal: unable to access 'https://127.0.0.1:8443/x.git/': SSL: no alternative certificate subject name matches target host name '127.0.0.1'",
            "fatal: unable to access 'https://127.0.0.1:8443/x.git/': SSL: certificate subject name (other.example) does not match target host name '127.0.0.1'",
        ] {
            XCTAssertTrue(advice(line).contains("another name"), line)
            XCTAssertFalse(advice(line).contains("give git the CA"), line)
        }
        XCTAssertTrue(advice("SSL certificate problem: certificate has expired").contains("expired"))
        XCTAssertTrue(
            advice("SSL certificate problem: unable to get local issuer certificate").contains("give git the CA"))
    }

    func testTheExitCodesThatNeedAPersonAndThatMayPass() {
        XCTAssertEqual(RolloutError.diverged("x").exitCode, 76)
        XCTAssertEqual(RolloutError.diverged("x").code, "diverged")
        XCTAssertEqual(RolloutError.unreachable("x").exitCode, 75)
        XCTAssertEqual(RolloutError.unreachable("x").code, "unreachable")
        XCTAssertEqual(RolloutError.conflict("x").code, "conflict")
        XCTAssertEqual(RolloutError.diverged("x").withMessage { $0 + "y" }, .diverged("xy"))
    }

    func testAQueryStringsValuesAreNeverShown() {
        XCTAssertEqual(
            RemoteURL.redacted("https://git.example.com/p.git?private_token=glpat-abc123&ref=main#top"),
            "https://git.example.com/p.git?private_token=***&ref=***#top")
        XCTAssertEqual(
            RemoteURL.redacted("https://tok3nUser@git.example.com/p.git?sig=abcd"),
            "https://git.example.com/p.git?sig=***")
        XCTAssertEqual(RemoteURL.credentials(in: "https://h/p.git?token=s3cr%2Ft"), ["s3cr%2Ft", "s3cr/t"])
        XCTAssertEqual(
            RemoteURL.redactingURLs(in: "fatal: unable to access 'https://h/p.git?token=s3cret/': Failed"),
            "fatal: unable to access 'https://h/p.git?token=***': Failed")
        XCTAssertEqual(RemoteURL.redacted("/srv/p.git?x=1"), "/srv/p.git?x=1", "a path has no query string")
        // One pass, whatever the text: 60,000 characters of "://?" take no time.
        let long = String(repeating: "://?a=b", count: 10_000)
        let started = Date()
        _ = RemoteURL.redactingURLs(in: long)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }
}
