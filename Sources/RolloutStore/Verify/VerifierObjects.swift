import CGit2
import Foundation
import RolloutModel

/// `rollout verify`'s first check: every object the history reaches can be read whole, as the
/// kind that names it, and every pack file in objects/pack is whole beside its index. A damaged
/// object store is listed here, one problem per object or pack file, and the checks that read
/// those objects are skipped (they would stop at the first one).
extension Verifier {
    /// What the object check found; empty when every object reads.
    struct ObjectDamage {
        var problems: [Problem] = []
    }

    /// Reads every commit from `tip` along all parents, every tree and blob under each, once each.
    static func checkObjects(_ git: GitRepository, tip: ObjectID) throws -> ObjectDamage {
        var damage = ObjectDamage()
        damage.problems += packFileProblems(git)
        var seen: Set<ObjectID> = [tip]
        // Each commit to read, with what names it.
        var queue: [(id: ObjectID, namedBy: String)] = [(tip, StateLayout.stateRef)]
        while let (id, namedBy) = queue.popLast() {
            if let why = try git.unreadableObject(id, GIT_OBJECT_COMMIT) {
                damage.problems.append(
                    Problem(commit: id.short, path: nil, message: "\(namedBy) names this commit, which \(why)"))
                continue
            }
            let commit = try git.commit(id)
            try checkTree(git, commit.tree, path: "", in: commit.id.short, seen: &seen, into: &damage)
            for parent in commit.parents where seen.insert(parent).inserted {
                queue.append((parent, "commit \(id.short)"))
            }
        }
        return damage
    }

    private static func checkTree(
        _ git: GitRepository, _ tree: ObjectID, path: String, in commit: String, seen: inout Set<ObjectID>,
        into damage: inout ObjectDamage
    ) throws {
        guard seen.insert(tree).inserted else { return }
        if let why = try git.unreadableObject(tree, GIT_OBJECT_TREE) {
            damage.problems.append(
                Problem(commit: commit, path: path.isEmpty ? "/" : path + "/", message: "the tree \(tree.short) \(why)")
            )
            return
        }
        for entry in try git.treeEntries(tree) {
            let child = path.isEmpty ? entry.name : path + "/" + entry.name
            if entry.isTree {
                try checkTree(git, entry.id, path: child, in: commit, seen: &seen, into: &damage)
            } else if seen.insert(entry.id).inserted, let why = try git.unreadableObject(entry.id, GIT_OBJECT_BLOB) {
                damage.problems.append(
                    Problem(commit: commit, path: child, message: "the blob \(entry.id.short) \(why)"))
            }
        }
    }

    /// Each pack in objects/pack has its index and each index its pack, and the pack ends with
    /// the checksum its index records (a pack cut short or overwritten at its end does not). A
    /// changed byte inside a pack is found when the object it belongs to is read.
    static func packFileProblems(_ git: GitRepository) -> [Problem] {
        let directory = git.packDirectory
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        var problems: [Problem] = []
        func problem(_ name: String, _ message: String) {
            problems.append(Problem(commit: nil, path: "objects/pack/\(name)", message: message))
        }
        for name in names.sorted() where name.hasPrefix("pack-") {
            let base = String(name.prefix(while: { $0 != "." }))
            if name.hasSuffix(".pack") && !names.contains(base + ".idx") {
                problem(name, "has no index (\(base).idx): git and rollout cannot read any object in it")
            } else if name.hasSuffix(".idx") && !names.contains(base + ".pack") {
                problem(name, "is the index of a pack that is missing (\(base).pack)")
            } else if name.hasSuffix(".pack"), let why = packTrailerProblem(directory + "/" + base) {
                problem(name, why)
            }
        }
        return problems
    }

    /// Nil when `base`.pack starts as a pack and ends with the checksum `base`.idx records for it.
    /// Reads the first and last bytes of each file only.
    static func packTrailerProblem(_ base: String) -> String? {
        func ends(_ path: String) -> (head: Data, tail: Data, size: UInt64)? {
            guard let file = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? file.close() }
            guard let size = try? file.seekToEnd(), size >= 40, (try? file.seek(toOffset: size - 40)) != nil,
                let tail = try? file.readToEnd(), (try? file.seek(toOffset: 0)) != nil,
                let head = try? file.read(upToCount: 4)
            else { return (Data(), Data(), 0) }
            return (head, tail, size)
        }
        guard let pack = ends(base + ".pack"), let index = ends(base + ".idx") else { return "cannot be read" }
        guard index.size >= 40 else { return "has an index too short to be one" }
        guard pack.size >= 32, pack.head == Data("PACK".utf8) else { return "is cut short or is not a pack" }
        guard pack.tail.suffix(20) == index.tail.prefix(20) else {
            return "is cut short or changed: it does not end with the checksum its index records"
        }
        return nil
    }
}

extension GitRepository {
    /// Nil when the object `id` reads whole (inflated, hash-checked) as a `kind`; otherwise why not,
    /// as a clause: "is missing or damaged (object not found - ...)". Throws only for the disk.
    func unreadableObject(_ id: ObjectID, _ kind: git_object_t) throws -> String? {
        var raw = id.raw
        var object: OpaquePointer?
        let result = git_object_lookup(&object, handle, &raw, kind)
        defer { git_object_free(object) }
        do {
            try check(result, "reading \(id.short)")
            return nil
        } catch let error as GitError where !error.isIOFailure {
            return "is missing or damaged (\(error.message))"
        }
    }
}
