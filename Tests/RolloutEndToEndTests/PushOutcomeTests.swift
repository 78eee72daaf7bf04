import Foundation
import XCTest

/// What a push did is read from the remote's branch when git cannot say (docs/teams.md, "What a
/// change does when there is a remote"): a push the server took before the connection dropped is
/// done, never applied twice; a refusal in words rollout does not know is a lost race when the
/// branch moved, and the server's refusal when it did not.
final class PushOutcomeTests: XCTestCase {
    private let identity =
        "GIT_AUTHOR_NAME=Other GIT_AUTHOR_EMAIL=other@example.com GIT_COMMITTER_NAME=Other GIT_COMMITTER_EMAIL=other@example.com"

    /// A clone of a shared repository whose receive-pack runs through `wrapper` (a shell script
    /// body; $1 is the repository), sabotaging only the first push.
    private func clone(_ w: Workspace, wrapper body: String) throws -> (clone: String, shared: String) {
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let clone = w.scratch.path("clone")
        XCTAssertEqual(try w.rollout("clone", w.repository, clone).status, 0)
        let marker = w.scratch.path("sabotaged")
        let script = try w.scratch.write(
            "receive-pack-wrapper",
            "#!/bin/sh\n[ -e '\(marker)' ] && exec git-receive-pack \"$@\"\ntouch '\(marker)'\n\(body)\n")
        XCTAssertEqual(chmod(script, 0o755), 0)
        // The user's own setting: rollout runs no program a repository's config names.
        XCTAssertEqual(
            try w.git("config", "--global", "remote.origin.receivepack", script, repository: clone).status, 0)
        return (clone, w.repository)
    }

    /// Another writer's commit on top of the shared branch, as the shell lines of a wrapper.
    private var anotherWriterLandsOnTop: String {
        """
        tip=$(git --git-dir="$1" rev-parse refs/heads/main)
        next=$(env \(identity) git --git-dir="$1" commit-tree "$tip^{tree}" -p "$tip" -m "another writer")
        git --git-dir="$1" update-ref refs/heads/main "$next" "$tip"
        """
    }

    private func log(_ w: Workspace, _ repository: String) throws -> [String] {
        try w.git("log", "--format=%s", "refs/heads/main", repository: repository).stdout.split(separator: "\n").map(
            String.init)
    }

    func testAPushTheServerTookBeforeTheConnectionDroppedIsNotAppliedTwice() throws {
        let w = try Workspace()
        // receive-pack updates the branch, but the client never hears its report: the connection
        // "drops" after the advertisement. Then another writer lands on top at once.
        let (clone, shared) = try clone(
            w,
            wrapper: """
                git-receive-pack "$@" | python3 -c '
                import sys
                src, dst = sys.stdin.buffer, sys.stdout.buffer
                while True:
                    size = src.read(4)
                    if not size:
                        break
                    dst.write(size)
                    if size == b"0000":
                        break
                    dst.write(src.read(int(size, 16) - 4))
                dst.flush()
                src.read()
                '
                \(anotherWriterLandsOnTop)
                exit 1
                """)
        let before = try log(w, shared)
        let promoted = try w.rollout(
            "--repo", clone, "promote", "tr-TR@18", "--to", "10%", "--force", "--reason", "once", "--json")
        XCTAssertEqual(promoted.status, 0, promoted.output)
        // The command reports the commit that landed, not a re-application that found nothing to do.
        let landed = try w.git("rev-parse", "refs/heads/main~1", repository: shared).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        XCTAssertEqual(try w.json(promoted)["commit"] as? String, landed, promoted.stdout)
        let after = try log(w, shared)
        XCTAssertEqual(after.count, before.count + 2, "the promote once, and the other writer's commit: \(after)")
        XCTAssertEqual(after.filter { $0.hasPrefix("promote tr-TR@18") }.count, 1, "\(after)")
        XCTAssertEqual(after.first, "another writer")
    }

    func testARefusalInUnknownWordsIsARaceWhenTheBranchMovedAndIsRetried() throws {
        let w = try Workspace()
        // The first push is refused, in the words of a server rollout does not know, while another
        // writer's commit lands (outside the push's quarantine, where git forbids ref updates).
        let (clone, shared) = try clone(w, wrapper: "exec git-receive-pack \"$@\"")
        let refused = w.scratch.path("refused")
        let hook = try w.scratch.write(
            "pre-receive",
            """
            #!/bin/sh
            cat >/dev/null
            [ -e '\(refused)' ] && exit 0
            touch '\(refused)'
            env -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES sh -s "$GIT_DIR" <<'EOF'
            \(anotherWriterLandsOnTop)
            EOF
            echo 'TF401028: The reference has already been updated by another client' >&2
            exit 1

            """)
        XCTAssertEqual(chmod(hook, 0o755), 0)
        try FileManager.default.copyItem(atPath: hook, toPath: shared + "/hooks/pre-receive")
        let before = try log(w, shared)
        let promoted = try w.rollout(
            "--repo", clone, "promote", "tr-TR@18", "--to", "10%", "--force", "--reason", "raced")
        XCTAssertEqual(promoted.status, 0, promoted.output)
        let after = try log(w, shared)
        XCTAssertEqual(after.count, before.count + 2, "\(after)")
        XCTAssertEqual(
            Array(after.prefix(2).map { String($0.prefix(16)) }), ["promote tr-TR@18", "another writer"],
            "re-applied on the other writer's commit")
    }

    /// The same refusal while the branch stays where it was is the server's: exit 77 at once.
    func testARefusalInUnknownWordsWhileTheBranchStaysIsTheServers() throws {
        let w = try Workspace()
        let (clone, shared) = try clone(w, wrapper: "exec git-receive-pack \"$@\"")
        let runs = w.scratch.path("runs")
        let hook = try w.scratch.write(
            "pre-receive",
            "#!/bin/sh\ncat >/dev/null\necho run >> '\(runs)'\necho 'TF401027: You need the Git Contribute permission' >&2\nexit 1\n"
        )
        XCTAssertEqual(chmod(hook, 0o755), 0)
        try FileManager.default.copyItem(atPath: hook, toPath: shared + "/hooks/pre-receive")
        let before = try log(w, shared)
        let promoted = try w.rollout(
            "--repo", clone, "promote", "tr-TR@18", "--to", "10%", "--force", "--reason", "refused")
        XCTAssertEqual(promoted.status, 77, promoted.output)
        XCTAssertTrue(promoted.stderr.contains("TF401027: You need the Git Contribute permission"), promoted.stderr)
        XCTAssertEqual(try String(contentsOfFile: runs, encoding: .utf8), "run\n", "pushed once")
        XCTAssertEqual(try log(w, shared), before)
    }
}
