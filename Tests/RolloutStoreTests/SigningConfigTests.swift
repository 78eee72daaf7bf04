import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// How git config chooses the signer of a change commit (`CommitSigner.configured`), read as
/// `git commit -S` reads it, without running a signing program. `SigningTests` signs for real.
final class SigningConfigTests: XCTestCase {
    let actor = try! Actor.parse("Tester <tester@example.com>", from: "test")
    let time = Timestamp(iso8601: "2026-12-01T09:00:00Z")!
    var path = ""
    var repository: PackRepository!

    /// The user's own git config for these tests: empty unless a test writes its .gitconfig.
    var home: String { path + "-home" }

    override func setUpWithError() throws {
        path = NSTemporaryDirectory() + "signing-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        GitConfigSearchPath.use(["HOME": home, "XDG_CONFIG_HOME": home + "/.config"])
        (repository, _) = try PackRepository.create(
            at: path, files: [("README.md", Array("hello\n".utf8))], actor: actor, time: time)
        // The repository's own config decides below, whatever the user's global config says.
        try repository.git.setConfig("commit.gpgSign", "false")
        try repository.git.setConfig("gpg.format", "openpgp")
    }

    override func tearDown() {
        GitConfigSearchPath.use(ProcessInfo.processInfo.environment)
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: home)
    }

    private func signer(_ choice: SigningChoice) throws -> CommitSigner? {
        var request = SigningRequest()
        request.choice = choice
        request.workingDirectory = "/work"
        return try CommitSigner.configured(
            in: repository.git, request: request, environment: ["HOME": "/home/ana"])
    }

    func testCommitGPGSignDecidesUnlessSignOrNoSignSays() throws {
        XCTAssertNil(try signer(.asConfigured))
        XCTAssertNotNil(try signer(.always), "--sign signs without commit.gpgSign")
        try repository.git.setConfig("commit.gpgSign", "yes")
        let configured = try XCTUnwrap(try signer(.asConfigured))
        XCTAssertEqual(configured.format, .openpgp)
        XCTAssertEqual(configured.program, "gpg")
        XCTAssertNil(configured.programKey)
        XCTAssertNil(try signer(.never), "--no-sign wins over commit.gpgSign")
    }

    func testOpenPGPSignsAsTheCommitterWithoutAKeyAndNamesItsProgram() throws {
        // A program named by the repository's own config is never run: a repository handed over chooses none.
        try repository.git.setConfig("gpg.program", "/tmp/evil")
        let setup = try XCTUnwrap(try signer(.always)).setup(
            committer: GitSignature(name: "Ana", email: "ana@example.com", time: 0))
        XCTAssertEqual(setup.key, "Ana <ana@example.com>")
        XCTAssertTrue(setup.keyIsCommitter)
        XCTAssertEqual(setup.program, "gpg")
        XCTAssertNil(setup.programKey)
        // The user's own config names it: gpg.openpgp.program before gpg.program.
        try "[gpg]\n\tprogram = gpg2\n".write(toFile: home + "/.gitconfig", atomically: true, encoding: .utf8)
        XCTAssertEqual(try XCTUnwrap(try signer(.always)).program, "gpg2")
        try "[gpg]\n\tprogram = gpg2\n[gpg \"openpgp\"]\n\tprogram = /opt/gpg\n".write(
            toFile: home + "/.gitconfig", atomically: true, encoding: .utf8)
        try repository.git.setConfig("user.signingKey", "ABCD1234")
        let keyed = try XCTUnwrap(try signer(.always)).setup(
            committer: GitSignature(name: "Ana", email: "ana@example.com", time: 0))
        XCTAssertEqual(keyed.key, "ABCD1234")
        XCTAssertFalse(keyed.keyIsCommitter)
        XCTAssertEqual(keyed.program, "/opt/gpg")
        XCTAssertEqual(keyed.programKey, "gpg.openpgp.program")
    }

    func testSSHNeedsAKeyAndX509IsRefused() throws {
        try repository.git.setConfig("gpg.format", "ssh")
        XCTAssertThrowsError(try signer(.always)) { XCTAssertEqual($0 as? SigningRefusal, .noSSHKey) }
        // git's gpg.ssh.defaultKeyCommand stands in for the key, from the user's config only.
        try repository.git.setConfig("gpg.ssh.defaultKeyCommand", "ssh-add -L")
        XCTAssertThrowsError(try signer(.always)) { XCTAssertEqual($0 as? SigningRefusal, .noSSHKey) }
        try "[gpg \"ssh\"]\n\tdefaultKeyCommand = ssh-add -L\n".write(
            toFile: home + "/.gitconfig", atomically: true, encoding: .utf8)
        XCTAssertEqual(try XCTUnwrap(try signer(.always)).defaultKeyCommand, "ssh-add -L")
        try repository.git.setConfig("user.signingKey", "~/.ssh/id_ed25519.pub")
        let ssh = try XCTUnwrap(try signer(.always))
        XCTAssertEqual(ssh.program, "ssh-keygen")
        XCTAssertEqual(ssh.expandedPath("~/.ssh/id_ed25519.pub"), "/home/ana/.ssh/id_ed25519.pub")
        XCTAssertEqual(ssh.expandedPath("keys/ana.pub"), "/work/keys/ana.pub")
        XCTAssertEqual(ssh.expandedPath("/k/ana.pub"), "/k/ana.pub")
        try repository.git.setConfig("gpg.format", "x509")
        XCTAssertThrowsError(try signer(.always)) { XCTAssertEqual($0 as? SigningRefusal, .unsupportedFormat("x509")) }
        XCTAssertNil(try signer(.never), "--no-sign reads nothing")
    }

    func testALiteralKeyIsToldFromAPathAsGitTellsIt() {
        XCTAssertEqual(CommitSigner.literalSSHKey("key::ssh-ed25519 AAAA a"), "ssh-ed25519 AAAA a")
        XCTAssertEqual(CommitSigner.literalSSHKey("ssh-ed25519 AAAA"), "ssh-ed25519 AAAA")
        XCTAssertNil(CommitSigner.literalSSHKey("~/.ssh/id_ed25519.pub"))
        XCTAssertNil(CommitSigner.literalSSHKey("/keys/ssh-ed25519.pub"))
    }

    /// A change whose signature cannot be made leaves the ref, the reflog and the config as they were.
    func testAChangeThatCannotBeSignedMovesNothing() throws {
        try repository.git.setConfig("gpg.format", "ssh")
        try repository.git.setConfig("user.signingKey", path + "/no-such-key.pub")
        try repository.git.setConfig("rollout.format", "1")
        repository.signing.choice = .always
        let tip = try repository.stateTip()
        let reflog = try repository.git.reflog(StateLayout.stateRef).count
        let change = Change(summary: "note", trailers: [(.action, "note")], writes: [("n.txt", Array("n\n".utf8))])
        XCTAssertThrowsError(try repository.apply(actor: actor, time: { self.time }) { _ in (change, ()) }) {
            guard case .keyFileMissing = $0 as? SigningRefusal else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(try repository.stateTip(), tip)
        XCTAssertEqual(try repository.git.reflog(StateLayout.stateRef).count, reflog)
        XCTAssertEqual(try repository.git.localConfig("rollout.format"), "1", "the format mark waits for a commit")
    }
}
