import CGit2
import Foundation
import RolloutModel

/// A pack in objects/pack: `pack-<name>.pack` and its `.idx`.
public struct PackFile: Sendable, Equatable {
    /// The pack's name: objects/pack/pack-<name>.pack and .idx.
    public let name: String
    public let objects: Int
    /// The .pack's size on disk.
    public let bytes: Int
    /// A `.keep` file beside it: rollout never deletes or merges it (git's convention).
    public let kept: Bool
}

/// A loose object file: objects/<2 hex>/<38 hex>.
struct LooseObject: Sendable {
    let id: ObjectID
    let path: String
    let bytes: Int
    /// Last modified (seconds since 1970): libgit2 and git touch an object they would write again.
    let modified: Int
}

extension GitRepository {
    /// The name of the objects/ fan-out directory for a first byte: two lowercase hex digits.
    static func fanOutName(_ byte: Int) -> String {
        let hex = String(byte, radix: 16)
        return hex.count == 1 ? "0" + hex : hex
    }

    /// objects/ of this (bare) repository.
    var objectsDirectory: String {
        var directory = path
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        return directory + "/objects"
    }

    var packDirectory: String { objectsDirectory + "/pack" }

    /// Writes one pack of every object a ref reaches, except what the commits in `hiding` reach: a
    /// commit found in one of those packs is left out with its whole history and tree (the packs
    /// already hold them), so a pack of the last few changes costs only those changes. With no
    /// packs to hide, it is every reachable object. The packbuilder's indexer writes the pack and its
    /// .idx under temporary names, fsyncs them (fsync is on for every write, `Git.initialized`) and
    /// renames them into place, so a reader sees either no pack or a whole one. Metrics rollups go
    /// into a second pack, without deltas (`writeRollupPack`). Empty when there is nothing new to pack.
    func writePack(hiding: [PackFile]) throws -> [PackFile] {
        let boundary = try commits(reachableFromRefsFoundIn: hiding)
        var walk: OpaquePointer?
        try check(git_revwalk_new(&walk, handle), "starting a walk of the history")
        defer { git_revwalk_free(walk) }
        let pushed = git_revwalk_push_glob(walk, "refs/*")
        if pushed == GIT_ENOTFOUND.rawValue { return [] }
        try check(pushed, "walking every ref")
        // What the hidden commits' trees reach is in the packs already: never copied again.
        var seen = Set<ObjectID>()
        for commit in boundary {
            var oid = commit.raw
            try check(git_revwalk_hide(walk, &oid), "leaving packed commit \(commit.short) out of the pack")
            try markTree(try self.commit(commit).tree, seen: &seen)
        }
        var builder: OpaquePointer?
        // Metrics rollups go into a pack of their own, without a delta search (`writeRollupPack`).
        var rollups: [ObjectID] = []
        try check(git_packbuilder_new(&builder, handle), "starting a pack")
        defer { git_packbuilder_free(builder) }
        git_packbuilder_set_threads(builder, 0)
        var oid = git_oid()
        while true {
            let next = git_revwalk_next(&oid, walk)
            if next == GIT_ITEROVER.rawValue { break }
            try check(next, "walking the history")
            let commit = ObjectID(oid)
            try check(git_packbuilder_insert(builder, &oid, nil), "adding commit \(commit.short) to the pack")
            try insertTree(try self.commit(commit).tree, path: "", into: builder, seen: &seen, rollups: &rollups)
        }
        // The walk sees commits only: an annotated tag, and a blob or tree a ref names directly, go in
        // here, or gc would count them unreachable and prune them. One a hidden pack holds is there
        // already with what it points at.
        let hidden = hiding.isEmpty ? nil : try openPacks(hiding)
        defer { if let hidden { git_odb_free(hidden) } }
        for object in try referencedObjects() {
            var raw = object.id.raw
            if let hidden, git_odb_exists(hidden, &raw) == 1 { continue }
            switch object.type {
            case GIT_OBJECT_TAG:
                try check(git_packbuilder_insert(builder, &raw, nil), "adding tag \(object.id.short) to the pack")
            case GIT_OBJECT_TREE:
                try insertTree(object.id, path: "", into: builder, seen: &seen, rollups: &rollups)
            case GIT_OBJECT_BLOB where seen.insert(object.id).inserted:
                try check(git_packbuilder_insert(builder, &raw, nil), "adding blob \(object.id.short) to the pack")
            default:
                continue
            }
        }
        var written = try finishPack(builder).map { [$0] } ?? []
        if let rollupPack = try writeRollupPack(rollups) { written.append(rollupPack) }
        return written
    }

    /// Writes what `builder` holds, if anything, and names the pack.
    private func finishPack(_ builder: OpaquePointer?) throws -> PackFile? {
        let count = git_packbuilder_object_count(builder)
        guard count > 0 else { return nil }
        try check(git_packbuilder_write(builder, packDirectory, 0, nil, nil), "writing a pack")
        guard let name = git_packbuilder_name(builder) else {
            throw RolloutError.internal("libgit2 wrote a pack without a name")
        }
        let packName = String(cString: name)
        return packsOnDisk().first { $0.name == packName }
            ?? PackFile(name: packName, objects: count, bytes: 0, kept: false)
    }

    /// Metrics rollups, packed as ingest packs them (`BlobPackWriter`): each inflated and deflated
    /// once, no delta search. libgit2's search over a week of aggregated rollups (56 blobs of a
    /// megabyte) took 40 s of `rollout gc` and saved nothing: rollups of different dates share
    /// keys but differ in every count.
    private func writeRollupPack(_ rollups: [ObjectID]) throws -> PackFile? {
        guard !rollups.isEmpty else { return nil }
        let writer = BlobPackWriter(repository: self, hashOnly: false)
        for id in rollups { _ = try writer.add(try readBlob(id)) }
        guard let name = try writer.finish() else { return nil }
        return packsOnDisk().first { $0.name == name }
            ?? PackFile(name: name, objects: rollups.count, bytes: 0, kept: false)
    }

    /// The object each ref names and, through annotated tags, each object down the chain to the
    /// first that is not a tag (a commit, tree or blob), without repeats.
    func referencedObjects() throws -> [(id: ObjectID, type: git_object_t)] {
        var found: [(id: ObjectID, type: git_object_t)] = []
        var seen = Set<ObjectID>()
        for reference in try references(prefix: "refs/") {
            var next: ObjectID? = reference.target
            while let id = next, seen.insert(id).inserted {
                next = nil
                var raw = id.raw
                var object: OpaquePointer?
                try checkRead(
                    git_object_lookup(&object, handle, &raw, GIT_OBJECT_ANY),
                    "reading \(id.short), which \(reference.name) names")
                defer { git_object_free(object) }
                let type = git_object_type(object)
                found.append((id, type))
                if type == GIT_OBJECT_TAG, let target = git_tag_target_id(object) { next = ObjectID(target.pointee) }
            }
        }
        return found
    }

    /// Adds `tree` and everything under it not in `seen`, each with the name hint the packbuilder
    /// sorts by before it looks for deltas (`deltaNameHint`).
    private func insertTree(
        _ tree: ObjectID, path: String, into builder: OpaquePointer?, seen: inout Set<ObjectID>,
        rollups: inout [ObjectID]
    ) throws {
        guard seen.insert(tree).inserted else { return }
        var oid = tree.raw
        try check(git_packbuilder_insert(builder, &oid, path), "adding tree \(tree.short) to the pack")
        for entry in try treeEntries(tree) {
            let child = path.isEmpty ? entry.name : path + "/" + entry.name
            if entry.isTree {
                try insertTree(entry.id, path: child, into: builder, seen: &seen, rollups: &rollups)
            } else if seen.insert(entry.id).inserted {
                if MetricsLayout.isRollup(child) {
                    rollups.append(entry.id)
                    continue
                }
                var blob = entry.id.raw
                let hint = Self.deltaNameHint(child)
                let inserted = hint.withUnsafeBufferPointer { git_packbuilder_insert(builder, &blob, $0.baseAddress) }
                try check(inserted, "adding blob \(entry.id.short) to the pack")
            }
        }
    }

    private func markTree(_ tree: ObjectID, seen: inout Set<ObjectID>) throws {
        guard seen.insert(tree).inserted else { return }
        for entry in try treeEntries(tree) {
            if entry.isTree { try markTree(entry.id, seen: &seen) } else { seen.insert(entry.id) }
        }
    }

    /// The name libgit2's packbuilder hashes to order objects before its delta search, which only
    /// tries the 10 objects before each. It hashes the last 16 characters, the last weighing most,
    /// so with real names `17.json` sits beside `27.json` and each version is a delta against one
    /// ten versions away (10 KB instead of 3 KB at 1% changed per version). For a stored pack or
    /// record this name makes the hash grow with the content version within one locale and kind:
    /// the version in base 4, one character (1...4) per digit, the most significant last, then one
    /// character for the locale and kind, spaced so groups never overlap. Other files keep their path.
    static func deltaNameHint(_ path: String) -> [CChar] {
        guard let file = StateLayout.storedPackFile(atPath: path) else { return Array(path.utf8CString) }
        var version = file.id.contentVersion % (1 << 22)
        var hint: [CChar] = []
        for _ in 0..<11 {
            hint.append(CChar(1 + version % 4))
            version /= 4
        }
        var group: UInt32 = 2_166_136_261
        for byte in (file.id.locale + (file.isRecord ? "/meta" : "/pack")).utf8 {
            group = (group ^ UInt32(byte)) &* 16_777_619
        }
        // Even, so groups are 2^25 apart and the version part (under 2^24.5) never reaches the next;
        // from 34, so never a space, which the hash skips.
        hint.append(CChar(34 + 2 * Int(group % 47)))
        return hint + [0]
    }

    /// The commits a ref reaches that one of `packs` holds, stopping at each (its ancestors are not
    /// visited). Empty when `packs` is.
    private func commits(reachableFromRefsFoundIn packs: [PackFile]) throws -> [ObjectID] {
        guard !packs.isEmpty else { return [] }
        let database = try openPacks(packs)
        defer { git_odb_free(database) }
        var walk: OpaquePointer?
        try check(git_revwalk_new(&walk, handle), "starting a walk of the history")
        defer { git_revwalk_free(walk) }
        final class Found {
            let database: OpaquePointer?
            var commits: [ObjectID] = []
            init(_ d: OpaquePointer?) { database = d }
        }
        let found = Found(database)
        // libgit2 asks for every commit it meets before queueing its parents; hidden ones stop there.
        try check(
            git_revwalk_add_hide_cb(
                walk,
                { oid, payload in
                    let found = Unmanaged<Found>.fromOpaque(payload!).takeUnretainedValue()
                    guard let oid, git_odb_exists(found.database, oid) == 1 else { return 0 }
                    found.commits.append(ObjectID(oid.pointee))
                    return 1
                }, Unmanaged.passUnretained(found).toOpaque()), "walking the history")
        let pushed = git_revwalk_push_glob(walk, "refs/*")
        if pushed == GIT_ENOTFOUND.rawValue { return [] }
        try check(pushed, "walking every ref")
        var oid = git_oid()
        while true {
            let next = git_revwalk_next(&oid, walk)
            if next == GIT_ITEROVER.rawValue { break }
            try check(next, "walking the history")
        }
        return found.commits
    }

    /// The packs in objects/pack, largest first, read from each .idx header (its fan-out table's
    /// last entry is the object count). A pack whose .idx or .pack is missing or unreadable is skipped.
    func packsOnDisk() -> [PackFile] {
        let directory = packDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var packs: [PackFile] = []
        for name in names where name.hasPrefix("pack-") && name.hasSuffix(".idx") {
            let base = directory + "/" + String(name.dropLast(".idx".count))
            guard let index = FileHandle(forReadingAtPath: base + ".idx") else { continue }
            defer { try? index.close() }
            guard let header = try? index.read(upToCount: 8 + 256 * 4), header.count == 8 + 256 * 4,
                Array(header.prefix(8)) == [0xFF, 0x74, 0x4F, 0x63, 0, 0, 0, 2],
                let attributes = try? FileManager.default.attributesOfItem(atPath: base + ".pack"),
                let size = attributes[.size] as? Int
            else { continue }
            let objects = header.suffix(4).reduce(0) { $0 << 8 | Int($1) }
            packs.append(
                PackFile(
                    name: String(name.dropFirst("pack-".count).dropLast(".idx".count)), objects: objects, bytes: size,
                    kept: FileManager.default.fileExists(atPath: base + ".keep")))
        }
        return packs.sorted { ($0.objects, $0.name) > ($1.objects, $1.name) }
    }

    /// The loose object files now in objects/, found by listing the fan-out directories (temporary
    /// files a writer has not renamed yet are not objects and are skipped).
    func looseObjects() -> [LooseObject] {
        let objects = objectsDirectory
        var found: [LooseObject] = []
        for fanOut in 0..<256 {
            let prefix = Self.fanOutName(fanOut)
            let directory = objects + "/" + prefix
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for name in names.sorted() where name.utf8.count == 38 {
                guard let id = ObjectID(hex: prefix + name) else { continue }
                var status = stat()
                guard stat(directory + "/" + name, &status) == 0 else { continue }
                found.append(
                    LooseObject(
                        id: id, path: directory + "/" + name, bytes: Int(status.st_size),
                        modified: Int(status.st_mtim.tv_sec)))
            }
        }
        return found
    }

    /// Deletes each of `candidates` that a pack in objects/pack holds, and only those: the object is
    /// read back from the packs alone (a fresh object database with no loose backend), whole and
    /// hash-checked, before its loose file goes. Returns how many went and the candidates no pack holds.
    func removeLooseObjectsInPacks(_ candidates: [LooseObject]) throws -> (
        removed: Int, unpacked: [LooseObject]
    ) {
        var packs: OpaquePointer?
        try check(git_odb_new(&packs), "opening the packs")
        defer { git_odb_free(packs) }
        var backend: OpaquePointer?
        try check(git_odb_backend_pack(&backend, objectsDirectory), "opening the packs in \(packDirectory)")
        // Once added, the database owns the backend and frees it with itself.
        try check(git_odb_add_backend(packs, backend, 1), "opening the packs")
        var removed = 0
        var unpacked: [LooseObject] = []
        for object in candidates {
            var oid = object.id.raw
            var read: OpaquePointer?
            let result = git_odb_read(&read, packs, &oid)
            if result == GIT_ENOTFOUND.rawValue {
                unpacked.append(object)
                continue
            }
            try check(result, "reading \(object.id.short) from the packs")
            git_odb_object_free(read)
            try unlinkObject(object.path)
            removed += 1
        }
        return (removed, unpacked)
    }

    /// Deletes each loose object of `candidates` last modified before `cutoff` (seconds since 1970),
    /// looking at the file again just before it goes: a writer that reuses an object touches it.
    /// Returns how many went.
    func pruneLooseObjects(_ candidates: [LooseObject], modifiedBefore cutoff: Int) throws -> Int {
        var pruned = 0
        for object in candidates where object.modified < cutoff {
            var status = stat()
            guard stat(object.path, &status) == 0, Int(status.st_mtim.tv_sec) < cutoff else { continue }
            try unlinkObject(object.path)
            pruned += 1
        }
        return pruned
    }

    /// A fan-out directory changed this recently (seconds) is left alone: a writer may have just made
    /// it, a `git fetch` under rollout sync among them, which does not try again when it goes.
    static let fanOutQuietAge = 300

    /// Removes the fan-out directories left empty (4 KB each on ext4, 1 MiB for all 256, as much as
    /// hundreds of versions in a pack) whose last change is more than `fanOutQuietAge` before `now`:
    /// one this packing emptied goes at a later one. rmdir removes only an empty directory, so an
    /// object written in the meantime keeps its own. Returns how many went.
    @discardableResult
    func removeEmptyFanOutDirectories(now: Int = Int(Date().timeIntervalSince1970)) -> Int {
        (0..<256).filter { byte in
            let directory = objectsDirectory + "/" + Self.fanOutName(byte)
            var status = stat()
            guard stat(directory, &status) == 0, Int(status.st_mtim.tv_sec) < now - Self.fanOutQuietAge else {
                return false
            }
            return rmdir(directory) == 0
        }.count
    }

    /// Files a killed write leaves in objects/, none of them an object: a pack libgit2 was writing
    /// (`objects/pack/pack_git2_*`), the lock of a pack's index or of a pack being renamed into
    /// place (`objects/pack/*.lock`), and a loose object not yet renamed (`tmp_object_git2_*` in
    /// objects/ or a fan-out directory). Each one last modified before `cutoff` (seconds since
    /// 1970) is removed: a writer that is still at work keeps changing its file. Returns the
    /// paths removed, relative to the repository.
    func removeStaleTemporaries(modifiedBefore cutoff: Int) -> [String] {
        var candidates: [String] = []
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: packDirectory)) ?? []
        where name.hasPrefix("pack_git2_") || name.hasSuffix(".lock") {
            candidates.append("objects/pack/" + name)
        }
        for name in (try? fm.contentsOfDirectory(atPath: objectsDirectory)) ?? [] {
            if name.hasPrefix("tmp_object_git2_") {
                candidates.append("objects/" + name)
            } else if name.utf8.count == 2, name.allSatisfy(\.isHexDigit) {
                for inner in (try? fm.contentsOfDirectory(atPath: objectsDirectory + "/" + name)) ?? []
                where inner.hasPrefix("tmp_object_git2_") {
                    candidates.append("objects/\(name)/\(inner)")
                }
            }
        }
        let base = String(objectsDirectory.dropLast("objects".count))
        return candidates.sorted().filter { relative in
            var status = stat()
            guard lstat(base + relative, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                Int(status.st_mtim.tv_sec) < cutoff
            else { return false }
            return unlink(base + relative) == 0
        }
    }

    private func unlinkObject(_ path: String) throws {
        if unlink(path) != 0 && errno != ENOENT {
            throw RolloutError.io(
                "I/O error in the repository \(self.path) while removing the loose object \(path): \(String(cString: strerror(errno)))"
            )
        }
    }

    /// Deletes each of `candidates` whose every object one of `holders` also holds. A pack with a
    /// .keep file, or with any object the holders lack (one no ref reached when they were written),
    /// stays. The .idx goes first (then the .pack and its .rev, .bitmap, .mtimes and .promisor),
    /// so no reader finds an index without its pack; a reader that already
    /// opened the pack keeps reading it (an open file outlives its name), and one that had not yet
    /// finds the object missing, rescans objects/pack and reads it from a holder (libgit2 and git
    /// both do). Returns the packs deleted.
    func removePacks(_ candidates: [PackFile], heldBy holders: [PackFile]) throws -> [PackFile] {
        guard !holders.isEmpty else { return [] }
        let database = try openPacks(holders)
        defer { git_odb_free(database) }
        var removed: [PackFile] = []
        // A pack is its name: one written again with the same objects has the same name.
        for pack in candidates where !pack.kept && !holders.contains(where: { $0.name == pack.name }) {
            let base = packDirectory + "/pack-" + pack.name
            let old = try openPacks([pack])
            defer { git_odb_free(old) }
            final class Payload {
                let holders: OpaquePointer?
                var allHeld = true
                init(_ h: OpaquePointer?) { holders = h }
            }
            let payload = Payload(database)
            let walked = git_odb_foreach(
                old,
                { oid, context in
                    let payload = Unmanaged<Payload>.fromOpaque(context!).takeUnretainedValue()
                    guard git_odb_exists(payload.holders, oid) == 1 else {
                        payload.allHeld = false
                        return 1
                    }
                    return 0
                }, Unmanaged.passUnretained(payload).toOpaque())
            guard payload.allHeld else { continue }
            try check(walked, "listing the objects of \(base).pack")
            if deletePack(base) { removed.append(pack) }
        }
        return removed
    }

    /// Deletes each of `packs` (a pack with a .keep file stays) last modified before `cutoff`
    /// (seconds since 1970). `rollout gc` calls it with the older packs it could not remove once it
    /// had written every object a ref reaches: what they hold besides is unreachable, the rollups of
    /// an ingest refused after it wrote its pack (a signing refusal, a lost race). Such a pack goes
    /// as unreachable loose objects go, once older than `Packing.pruneAge`: a writer that needs an
    /// object a pack holds touches the pack instead of writing the object (libgit2 and git do), so
    /// a pack in use is young. Its time is read again just before it goes. Returns the packs deleted.
    func pruneUnreachablePacks(_ packs: [PackFile], modifiedBefore cutoff: Int) -> [PackFile] {
        packs.filter { pack in
            let base = packDirectory + "/pack-" + pack.name
            var status = stat()
            guard !pack.kept, stat(base + ".pack", &status) == 0, Int(status.st_mtim.tv_sec) < cutoff else {
                return false
            }
            return deletePack(base)
        }
    }

    /// Deletes the pack at `base` (objects/pack/pack-NAME): the .idx first, so no reader finds an
    /// index without its pack, then the .pack and what git writes beside one (reverse index,
    /// bitmap, cruft mtimes, promisor mark), which means nothing without it. False when the .idx
    /// could not be deleted.
    private func deletePack(_ base: String) -> Bool {
        guard unlink(base + ".idx") == 0 || errno == ENOENT else { return false }
        unlink(base + ".pack")
        for sibling in [".rev", ".bitmap", ".mtimes", ".promisor"] { unlink(base + sibling) }
        return true
    }

    /// An object database of exactly `packs`; the caller frees it.
    private func openPacks(_ packs: [PackFile]) throws -> OpaquePointer? {
        var database: OpaquePointer?
        try check(git_odb_new(&database), "opening packs")
        for pack in packs {
            let index = packDirectory + "/pack-\(pack.name).idx"
            var backend: OpaquePointer?
            let opened = git_odb_backend_one_pack(&backend, index)
            if opened < 0 { git_odb_free(database) }
            try check(opened, "opening \(index)")
            let added = git_odb_add_backend(database, backend, 1)
            if added < 0 { git_odb_free(database) }
            try check(added, "opening \(index)")
        }
        return database
    }
}
