import RolloutModel
import RolloutStore

/// `rollout gc`: pack the repository's loose objects now (docs/architecture.md, "Storage").
enum GCCommand {
    static let spec = CommandSpec(
        path: ["gc"], usage: "gc",
        summary: "pack the repository's loose objects into one pack",
        discussion: """
            Writes every object a ref reaches into one pack with libgit2's packbuilder, then removes
            each loose object the packs now hold, read back from them first. Safe while other
            rollout commands read and write. Writes do this themselves once more than
            \(Packing.automaticThreshold) objects are loose; run it by hand to pack now.
            """,
        options: [],
        arguments: .none,
        run: { invocation, context in
            let report = try Packing.run(try context.repository(invocation))
            let packed = report.pack.map { "packed \($0.objects) object(s) into pack-\($0.name)" } ?? "nothing to pack"
            return CommandOutput(
                json: [
                    "pack": report.pack.map { .string($0.name) } ?? .null,
                    "objects": .integer(report.pack?.objects ?? 0),
                    "looseBefore": .integer(report.looseBefore),
                    "removed": .integer(report.removed),
                ],
                text: "\(packed); removed \(report.removed) of \(report.looseBefore) loose object(s).\n")
        })
}
