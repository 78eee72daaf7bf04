import Foundation
import XCTest

/// Signed changes made with plain git, until rollout signs its own commits: the tip change is
/// re-created signed (same tree, message, author and committer) with `git commit-tree -S`, as
/// `git commit -S` signs, and the state ref moved to it; the unsigned tip is dropped from the reflog.
struct GitSigning {
    let w: Workspace

    /// `git --git-dir REPO ARGUMENTS`, asserting it worked; its stdout, trimmed.
    @discardableResult
    func git(_ arguments: [String], env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line)
        throws -> String
    {
        let result = try Processes.run(
            "/usr/bin/env", ["git", "--git-dir", w.repository] + arguments, in: w.root,
            environment: w.environment.merging(env) { $1 })
        XCTAssertEqual(
            result.status, 0, "git \(arguments.joined(separator: " ")): \(result.output)", file: file, line: line)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A new ed25519 key pair (no passphrase) in the scratch directory: the private key's path;
    /// the public key is beside it with `.pub`.
    func sshKey(_ name: String) throws -> String {
        let path = w.scratch.path("keys/\(name)")
        try FileManager.default.createDirectory(
            atPath: w.scratch.path("keys"), withIntermediateDirectories: true)
        let made = try Processes.run(
            "/usr/bin/env", ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path], in: w.root,
            environment: w.environment)
        XCTAssertEqual(made.status, 0, made.output)
        return path
    }

    /// `git cat-file commit` of `commit`, split into headers and message.
    func raw(_ commit: String) throws -> String { try git(["cat-file", "commit", commit]) + "\n" }

    /// The tip, re-created signed with `config` (`gpg.format=ssh`, `user.signingKey=...`): returns its id.
    @discardableResult
    func resignTip(_ config: [String], env: [String: String] = [:]) throws -> String {
        let tip = try git(["rev-parse", "refs/heads/main"])
        let tree = try git(["rev-parse", "\(tip)^{tree}"])
        let parent = try git(["rev-parse", "\(tip)^"])
        let text = try raw(tip)
        let message = String(text[text.range(of: "\n\n")!.upperBound...])
        let messageFile = try w.scratch.write("message-\(tip)", message)
        let who = try git(["log", "-1", "--date=raw", "--format=%an%n%ae%n%ad%n%cn%n%ce%n%cd", tip]).components(
            separatedBy: "\n")
        let identity = [
            "GIT_AUTHOR_NAME": who[0], "GIT_AUTHOR_EMAIL": who[1], "GIT_AUTHOR_DATE": who[2],
            "GIT_COMMITTER_NAME": who[3], "GIT_COMMITTER_EMAIL": who[4], "GIT_COMMITTER_DATE": who[5],
        ]
        let signed = try git(
            config.flatMap { ["-c", $0] } + ["commit-tree", tree, "-p", parent, "-S", "-F", messageFile],
            env: identity.merging(env) { $1 })
        try move(from: tip, to: signed)
        return signed
    }

    /// The tip signed with the SSH key at `key`.
    @discardableResult
    func signTip(_ key: String) throws -> String {
        try resignTip(["gpg.format=ssh", "user.signingKey=\(key)"])
    }

    /// The tip with one byte of its summary changed and its signature kept: a change altered after signing.
    @discardableResult
    func tamperTip() throws -> String {
        let tip = try git(["rev-parse", "refs/heads/main"])
        var text = try raw(tip)
        let body = text.range(of: "\n\n")!.upperBound
        let index = text.index(body, offsetBy: 1)
        text.replaceSubrange(index...index, with: text[index] == "X" ? "Y" : "X")
        let file = try w.scratch.write("tampered-\(tip)", text)
        let tampered = try git(["hash-object", "-t", "commit", "-w", "--literally", file])
        try move(from: tip, to: tampered)
        return tampered
    }

    func move(from old: String, to new: String) throws {
        try git(["update-ref", "refs/heads/main", new, old])
        try git(["reflog", "expire", "--expire-unreachable=all", "refs/heads/main"])
    }

    /// Whether plain `git verify-commit` accepts `commit` with the allowed-signers file of `at` (its
    /// parent; the first signers change itself), as docs/audit.md tells a third party to check it.
    func gitVerifies(_ commit: String, signersAt at: String) throws -> Bool {
        let allowed = try w.scratch.write(
            "allowed-\(commit)", try git(["show", "\(at):signers/allowed_signers"]) + "\n")
        let result = try Processes.run(
            "/usr/bin/env",
            ["git", "--git-dir", w.repository, "-c", "gpg.ssh.allowedSignersFile=\(allowed)", "verify-commit", commit],
            in: w.root, environment: w.environment)
        return result.status == 0
    }

    /// The first-parent history, oldest first.
    func history() throws -> [String] {
        try git(["rev-list", "--first-parent", "--reverse", "refs/heads/main"]).components(separatedBy: "\n")
    }
}
