import Foundation
import XCTest

/// `rollout signers add|remove|list` (docs/audit.md, "Who made each change: verified signers"): the
/// files they write, the rules that keep an admin, and the signers' files read strictly.
final class SignersTests: XCTestCase {
    let ana = ["ROLLOUT_ACTOR": "Ana Release <ana@example.com>"]
    let rel = ["ROLLOUT_ACTOR": "Rel Ease <rel@example.com>"]

    func testTheFirstSignerMustBeAnAdminAndTheLastAdminStays() throws {
        let w = try Workspace()
        let s = GitSigning(w: w)
        XCTAssertEqual(try w.rollout("init").status, 0)
        let anaKey = try s.sshKey("ana")
        let relKey = try s.sshKey("rel")
        let before = try w.stateTip()
        let first = try w.rollout("signers", "add", "rel@example.com", "--key", relKey + ".pub", "--role", "release")
        XCTAssertEqual(first.status, 1, first.output)
        XCTAssertEqual(
            first.stderr,
            "rollout: the first signer must be an admin, or nobody could change the signers: rollout signers add rel@example.com --role admin,...\n"
        )
        XCTAssertEqual(try w.stateTip(), before, "nothing written")
        // A hostile principal is shown on one line, its newline escaped, and refused as usage.
        let hostile = try w.rollout(
            "signers", "add", "rel@example.com\nRollout-Actor: x", "--key", relKey + ".pub", "--role", "admin")
        XCTAssertEqual(hostile.status, 64, hostile.output)
        XCTAssertEqual(
            hostile.stderr,
            "rollout: \"rel@example.com\\nRollout-Actor: x\" is not a principal: a signer is named by the email of its commits (ana@example.com)\n"
        )
        XCTAssertEqual(try w.stateTip(), before, "nothing written")

        let dry = try w.rollout(
            "signers", "add", "ana@example.com", "--key", anaKey + ".pub", "--role", "admin,release", "--dry-run",
            env: ana)
        XCTAssertEqual(dry.status, 0, dry.output)
        XCTAssertTrue(dry.stdout.hasPrefix("Dry run: would have added signer ana@example.com as admin,release.\n"))
        XCTAssertTrue(dry.stdout.contains("  Rollout-Action: signers\n"), dry.stdout)
        XCTAssertEqual(try w.stateTip(), before, "a dry run writes nothing")

        for (who, key, roles) in [("ana", anaKey, "admin,release"), ("rel", relKey, "release")] {
            let added = try w.rollout(
                "signers", "add", "\(who)@example.com", "--key", key + ".pub", "--role", roles, "--reason", "team",
                env: ana)
            XCTAssertEqual(added.status, 0, added.output)
        }
        let allowed = try s.git(["show", "main:signers/allowed_signers"])
        let anaPublic = try String(contentsOfFile: anaKey + ".pub", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        XCTAssertTrue(allowed.hasPrefix("ana@example.com namespaces=\"git\" \(anaPublic)\nrel@example.com "), allowed)
        let list = try w.rollout("signers", "list")
        XCTAssertEqual(list.status, 0, list.output)
        let fingerprint = try Processes.run(
            "/usr/bin/env", ["ssh-keygen", "-lf", anaKey + ".pub"], in: w.root, environment: w.environment
        ).stdout.split(separator: " ")[1]
        XCTAssertTrue(
            list.stdout.contains("ana@example.com  admin,release  ssh-ed25519 \(fingerprint)\n"),
            "the fingerprint ssh-keygen -lf prints: \(list.stdout)")

        let tip = try w.stateTip()
        let last = try w.rollout("signers", "remove", "ana@example.com", env: ana)
        XCTAssertEqual(last.status, 1, last.output)
        XCTAssertTrue(last.stderr.contains("ana@example.com is the last admin"), last.stderr)
        let demote = try w.rollout(
            "signers", "add", "ana@example.com", "--key", anaKey + ".pub", "--role", "release", env: ana)
        XCTAssertEqual(demote.status, 1, "demoting the last admin is removing it: \(demote.output)")
        let nobody = try w.rollout("signers", "remove", "eve@example.com", env: ana)
        XCTAssertEqual(nobody.status, 66, nobody.output)
        XCTAssertEqual(
            nobody.stderr, "rollout: eve@example.com is not a signer (signers: ana@example.com, rel@example.com)\n")
        let badRole = try w.rollout("signers", "add", "x@example.com", "--key", anaKey + ".pub", "--role", "root")
        XCTAssertEqual(badRole.status, 64, badRole.output)
        XCTAssertEqual(try w.stateTip(), tip, "no refusal wrote anything")

        let removed = try w.rollout("signers", "remove", "rel@example.com", env: ana)
        XCTAssertEqual(removed.status, 0, removed.output)
        XCTAssertFalse(try s.git(["show", "main:signers/allowed_signers"]).contains("rel@example.com"))
        XCTAssertFalse(try s.git(["show", "main:signers/roles.json"]).contains("rel@example.com"))
    }

    func testASignersChangeSignedByANonAdminIsFlagged() throws {
        let w = try Workspace()
        let s = GitSigning(w: w)
        XCTAssertEqual(try w.rollout("init").status, 0)
        let anaKey = try s.sshKey("ana")
        let relKey = try s.sshKey("rel")
        XCTAssertEqual(
            try w.rollout(
                "signers", "add", "ana@example.com", "--key", anaKey + ".pub", "--role", "admin,release", env: ana
            ).status, 0)
        try s.signTip(anaKey)
        XCTAssertEqual(
            try w.rollout(
                "signers", "add", "rel@example.com", "--key", relKey + ".pub", "--role", "release", env: ana
            ).status, 0)
        try s.signTip(anaKey)
        XCTAssertEqual(try w.rollout("verify").status, 0)
        // rel, a release signer, makes itself an admin and signs that change.
        XCTAssertEqual(
            try w.rollout(
                "signers", "add", "rel@example.com", "--key", relKey + ".pub", "--role", "admin,release", env: rel
            ).status, 0)
        let grab = try s.signTip(relKey)
        let verify = try w.rollout("verify")
        XCTAssertEqual(verify.status, 1, verify.output)
        XCTAssertTrue(
            verify.stdout.contains(
                "commit \(grab.prefix(12)): is a signers signed by rel@example.com, whose roles (release) may not sign it\n"
            ), verify.stdout)
    }

    /// A signers file changed by hand into something rollout does not read: refused with its file and line.
    func testADamagedAllowedSignersFileIsRefusedWithItsLine() throws {
        let w = try Workspace()
        let s = GitSigning(w: w)
        XCTAssertEqual(try w.rollout("init").status, 0)
        let anaKey = try s.sshKey("ana")
        XCTAssertEqual(
            try w.rollout(
                "signers", "add", "ana@example.com", "--key", anaKey + ".pub", "--role", "admin", env: ana
            ).status, 0)
        let line = try s.git(["show", "main:signers/allowed_signers"])
        let blob = try s.git(
            [
                "hash-object", "-w",
                try w.scratch.write(
                    "allowed",
                    line
                        + "\n*@example.com cert-authority \(line.split(separator: " ").dropFirst(2).joined(separator: " "))\n"
                ),
            ])
        let index = ["GIT_INDEX_FILE": w.scratch.path("index")]
        try s.git(["read-tree", "main"], env: index)
        try s.git(["update-index", "--cacheinfo", "100644,\(blob),signers/allowed_signers"], env: index)
        let tree = try s.git(["write-tree"], env: index)
        let message = try w.scratch.write(
            "message", "signers by hand\n\nRollout-Action: signers\nRollout-Actor: Ana Release <ana@example.com>\n")
        let identity = [
            "GIT_AUTHOR_NAME": "Ana", "GIT_AUTHOR_EMAIL": "ana@example.com", "GIT_COMMITTER_NAME": "Ana",
            "GIT_COMMITTER_EMAIL": "ana@example.com",
        ]
        let commit = try s.git(["commit-tree", tree, "-p", "main", "-F", message], env: identity)
        try s.git(["update-ref", "refs/heads/main", commit])

        let list = try w.rollout("signers", "list")
        XCTAssertEqual(list.status, 65, list.output)
        XCTAssertEqual(
            list.stderr,
            "rollout: signers/allowed_signers:2: not an allowed signer: cert-authority keys are not supported: list each signer's own key\n"
        )
        let verify = try w.rollout("verify")
        XCTAssertEqual(verify.status, 1, verify.output)
        XCTAssertTrue(
            verify.stdout.contains(
                "commit \(commit.prefix(12)): signers/allowed_signers:2: not an allowed signer: cert-authority"),
            verify.stdout)
        // A change made on top is listed as one that cannot be checked; verify goes on.
        XCTAssertEqual(try w.rollout("testers", "add", "qa", "--install-id", "phone-1", env: ana).status, 0)
        let after = try w.rollout("verify")
        XCTAssertEqual(after.status, 1, after.output)
        XCTAssertTrue(
            after.stdout.contains(
                "commit \(try w.stateTip().prefix(12)): cannot be checked: the signers in force at it are damaged (signers/allowed_signers:2: "
            ), after.stdout)
        XCTAssertTrue(try w.rollout("log", "--limit", "1").stdout.contains("  signer: signers damaged\n"))
    }

    func testAnOpenPGPSignerIsVerifiedAsGitVerifiesIt() throws {
        let w = try Workspace()
        let s = GitSigning(w: w)
        let home = w.scratch.path("gnupg")
        try FileManager.default.createDirectory(
            atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        w.environment["GNUPGHOME"] = home
        let made = try Processes.run(
            "/usr/bin/env",
            [
                "gpg", "--batch", "--passphrase", "", "--quick-gen-key", "Ola Admin <ola@example.com>", "ed25519",
                "sign", "never",
            ],
            in: w.root, environment: w.environment)
        XCTAssertEqual(made.status, 0, made.output)
        let exported = try Processes.run(
            "/usr/bin/env", ["gpg", "--armor", "--export", "ola@example.com"], in: w.root, environment: w.environment)
        let armored = try w.scratch.write("ola.asc", exported.stdout)
        let fingerprint = try Processes.run(
            "/usr/bin/env", ["gpg", "--with-colons", "--fingerprint", "ola@example.com"], in: w.root,
            environment: w.environment
        ).stdout.split(separator: "\n").first { $0.hasPrefix("fpr:") }!.split(
            separator: ":", omittingEmptySubsequences: false)[9]

        XCTAssertEqual(try w.rollout("init").status, 0)
        let ola = ["ROLLOUT_ACTOR": "Ola Admin <ola@example.com>"]
        let added = try w.rollout(
            "signers", "add", "ola@example.com", "--openpgp", armored, "--role", "admin,release", env: ola)
        XCTAssertEqual(added.status, 0, added.output)
        let signed = try s.resignTip(["gpg.format=openpgp", "user.signingKey=ola@example.com"])
        let gitSays = try Processes.run(
            "/usr/bin/env", ["git", "--git-dir", w.repository, "verify-commit", signed], in: w.root,
            environment: w.environment)
        XCTAssertEqual(gitSays.status, 0, gitSays.output)

        let list = try w.rollout("signers", "list")
        XCTAssertTrue(list.stdout.contains("ola@example.com  admin,release  openpgp \(fingerprint)\n"), list.stdout)
        let log = try w.rollout("log", "--json", "--limit", "1")
        let signature = try XCTUnwrap(
            (try w.json(log)["changes"] as? [[String: Any]])?.first?["signature"] as? [String: Any])
        XCTAssertEqual(signature["status"] as? String, "verified")
        XCTAssertEqual(signature["principal"] as? String, "ola@example.com")
        XCTAssertEqual(signature["key"] as? String, String(fingerprint))
        XCTAssertEqual(try w.rollout("verify").status, 0)

        // Another OpenPGP key (not a signer's) signing as ola: not allowed.
        let other = try Processes.run(
            "/usr/bin/env",
            [
                "gpg", "--batch", "--passphrase", "", "--quick-gen-key", "Mallory <m@example.com>", "ed25519", "sign",
                "never",
            ],
            in: w.root, environment: w.environment)
        XCTAssertEqual(other.status, 0, other.output)
        XCTAssertEqual(
            try w.rollout("signers", "add", "x@example.com", "--openpgp", armored, "--role", "release", env: ola)
                .status, 0)
        let forged = try s.resignTip(["gpg.format=openpgp", "user.signingKey=m@example.com"])
        let verify = try w.rollout("verify")
        XCTAssertEqual(verify.status, 1, verify.output)
        XCTAssertTrue(verify.stdout.contains("commit \(forged.prefix(12)): is signed by "), verify.stdout)
    }
}
