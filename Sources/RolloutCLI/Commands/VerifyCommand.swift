import RolloutModel
import RolloutStore

/// `rollout verify`: the repository is intact, or exactly what is wrong (docs/reliability.md).
enum VerifyCommand {
    static let spec = CommandSpec(
        path: ["verify"],
        summary: "prove the repository is intact: packs, history, trailers, plans and rollback manifests",
        discussion: """
            Re-checks every stored pack's checksum and record; that no pack, rollback manifest or
            ingest record ever changed or disappeared in the whole history; that each commit's
            Rollout-* trailers agree with the files it changed; that plans name stored packs and
            stage nothing blocked; that rollback manifests are numbered without a gap and each was
            written by a revert commit; that the key lists (keys/<n>.json) run 1, 2, 3, ... and each
            is accepted from the one before it as a device accepts it; and that every tip the reflog remembers is still in the
            history (a history rewritten behind rollout's back). First it reads every object the
            history reaches and checks each pack file against its index: a missing or damaged object
            or pack file is listed, and the checks that would read it are skipped. Stale lock files are
            listed with the command that clears them. Exit 1 with every problem, each naming its commit
            and file.
            """,
        options: NoOptions.self,
        arguments: .none,
        effects: [.readsRepository, .checks],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let report = try Verifier.verify(repository)
            var text = ""
            if report.isIntact {
                text += "repository intact: "
            } else {
                text += "repository damaged: \(report.problems.count) problem(s):\n"
                for problem in report.problems {
                    let place = [problem.commit.map { "commit \($0)" }, problem.path].compactMap { $0 }.joined(
                        separator: " ")
                    text += "  \(place.isEmpty ? "" : place + ": ")\(problem.message)\n"
                }
            }
            if let notChecked = report.notChecked {
                text += "\(notChecked).\n"
            } else {
                text +=
                    "\(report.commits) commit(s), \(report.packs) pack(s), \(report.plans) plan(s), \(report.rollbacks) rollback manifest(s), \(report.keyLists > 0 ? "\(report.keyLists) key list version(s), " : "")\(report.reflogEntries) reflog entr\(report.reflogEntries == 1 ? "y" : "ies") checked.\n"
            }
            for lock in report.locks {
                text +=
                    "stale lock? \(lock.path) exists; if no rollout or git command is running, clear it with: \(lock.clear)\n"
            }
            return CommandOutput(
                json: [
                    "ok": .bool(report.isIntact),
                    "problems": .array(
                        report.problems.map { problem in
                            .object([
                                "commit": problem.commit.map { .string($0) } ?? .null,
                                "path": problem.path.map { .string($0) } ?? .null,
                                "message": .string(problem.message),
                            ])
                        }),
                    "locks": .array(
                        report.locks.map { .object(["path": .string($0.path), "clear": .string($0.clear)]) }),
                    "commits": .integer(report.commits), "packs": .integer(report.packs),
                    "plans": .integer(report.plans),
                    "rollbacks": .integer(report.rollbacks), "keyLists": .integer(report.keyLists),
                    "reflogEntries": .integer(report.reflogEntries),
                    "notChecked": report.notChecked.map { .string($0) } ?? .null,
                ],
                text: text, exitCode: report.isIntact ? 0 : 1)
        })
}
