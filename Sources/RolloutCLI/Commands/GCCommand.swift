import RolloutModel
import RolloutStore

/// `rollout gc`: pack the repository now (docs/pack-format.md, "Packing").
enum GCCommand {
    /// `bytes` in whole MiB from 1 MiB up, else in KiB (2,000 x 512 bytes is 1000 KiB, not "0 MiB").
    static func binarySize(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }

    static let spec = CommandSpec(
        path: ["gc"], summary: "pack every reachable object into one pack and remove what it replaces",
        discussion: """
            Writes every object a ref reaches into one pack with libgit2's packbuilder, removes each
            loose object and older pack the new pack holds (each read back from it first), and removes
            unreachable loose objects, and older packs of them (a refused ingest's), older than \(Packing.pruneAge / 86_400) days. First it removes what killed
            writes left in objects/ and has not changed for \(Packing.staleTemporaryAge / 60) minutes: packs
            libgit2 was writing (objects/pack/pack_git2_*), their locks (objects/pack/*.lock) and loose
            objects not yet renamed (tmp_object_git2_*). Safe while other
            rollout commands read and write. Writes pack their own new objects once more than
            \(Packing.automaticThreshold) objects or \(binarySize(Packing.automaticThreshold * Packing.bytesPerObject)) are
            loose (ROLLOUT_PACK_THRESHOLD=N: N objects or N x \(Packing.bytesPerObject) bytes); run gc to repack
            everything at once.
            """,
        options: NoOptions.self,
        arguments: .none,
        effects: .writesRepository,
        run: { invocation, context in
            let report = try Packing.run(try context.repository(invocation))
            let packed = report.pack.map { "packed \($0.objects) object(s) into pack-\($0.name)" } ?? "nothing to pack"
            return CommandOutput(
                json: [
                    "pack": report.pack.map { .string($0.name) } ?? .null,
                    "objects": .integer(report.pack?.objects ?? 0),
                    "looseBefore": .integer(report.looseBefore),
                    "removed": .integer(report.removed),
                    "pruned": .integer(report.pruned),
                    "packsRemoved": .integer(report.mergedPacks),
                    "packsPruned": .integer(report.prunedPacks),
                    "packs": .integer(report.packsAfter),
                    "removedTemporaries": .array(report.removedTemporaries.map { .string($0) }),
                ],
                text: (report.removedTemporaries.isEmpty
                    ? ""
                    : "removed \(report.removedTemporaries.count) temporary file(s) killed writes left: "
                        + report.removedTemporaries.joined(separator: ", ") + "\n")
                        + """
                        \(packed); removed \(report.removed) of \(report.looseBefore) loose object(s) and \(report.mergedPacks) older pack(s); \
                        pruned \(report.pruned) unreachable loose object(s) and \(report.prunedPacks) pack(s) of them older than \(Packing.pruneAge / 86_400) days; \(report.packsAfter) pack(s) now.

                        """)
        })
}
