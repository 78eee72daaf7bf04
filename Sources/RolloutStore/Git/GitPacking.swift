import CGit2
import Foundation
import RolloutModel

/// A pack libgit2's packbuilder wrote into objects/pack.
public struct WrittenPack: Sendable {
    /// The pack's name: objects/pack/pack-<name>.pack and .idx.
    public let name: String
    public let objects: Int
}

/// A loose object file: objects/<2 hex>/<38 hex>.
public struct LooseObject: Sendable {
    public let id: ObjectID
    public let path: String
}

extension GitRepository {
    /// objects/ of this (bare) repository.
    var objectsDirectory: String {
        var directory = path
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        return directory + "/objects"
    }

    /// Writes one pack of every object reachable from a ref. The packbuilder's indexer writes the
    /// pack and its .idx under temporary names, fsyncs them (fsync is on for every write, `Git.initialized`)
    /// and renames them into place, so a reader sees either no pack or a whole one. Nil when no ref
    /// reaches anything.
    public func writeReachablePack() throws -> WrittenPack? {
        var walk: OpaquePointer?
        try check(git_revwalk_new(&walk, handle), "starting a walk of the history")
        defer { git_revwalk_free(walk) }
        let pushed = git_revwalk_push_glob(walk, "refs/*")
        if pushed == GIT_ENOTFOUND.rawValue { return nil }
        try check(pushed, "walking every ref")
        var builder: OpaquePointer?
        try check(git_packbuilder_new(&builder, handle), "starting a pack")
        defer { git_packbuilder_free(builder) }
        git_packbuilder_set_threads(builder, 0)
        try check(git_packbuilder_insert_walk(builder, walk), "collecting the objects to pack")
        let count = git_packbuilder_object_count(builder)
        guard count > 0 else { return nil }
        try check(git_packbuilder_write(builder, objectsDirectory + "/pack", 0, nil, nil), "writing a pack")
        guard let name = git_packbuilder_name(builder) else { throw RolloutError.internal("libgit2 wrote a pack without a name") }
        return WrittenPack(name: String(cString: name), objects: count)
    }

    /// The loose object files now in objects/, found by listing the fan-out directories (temporary
    /// files a writer has not renamed yet are not objects and are skipped).
    public func looseObjects() -> [LooseObject] {
        let objects = objectsDirectory
        var found: [LooseObject] = []
        for fanOut in 0..<256 {
            let prefix = String(fanOut, radix: 16).leftPadded(2)
            let directory = objects + "/" + prefix
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for name in names.sorted() where name.utf8.count == 38 {
                guard let id = ObjectID(hex: prefix + name) else { continue }
                found.append(LooseObject(id: id, path: directory + "/" + name))
            }
        }
        return found
    }

    /// An estimate of the loose objects, cheap enough to take after every write: like `git gc --auto`,
    /// count the files in a sample of the 256 fan-out directories and scale up (object ids are uniform).
    public func estimatedLooseObjects(sampledDirectories: Int = 16) -> Int {
        let objects = objectsDirectory
        var count = 0
        for fanOut in 0..<sampledDirectories {
            let directory = objects + "/" + String(fanOut, radix: 16).leftPadded(2)
            count += ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.utf8.count == 38 }.count
        }
        return count * 256 / sampledDirectories
    }

    /// Deletes each of `candidates` that a pack in objects/pack holds, and only those: the object is
    /// read back from the packs alone (a fresh object database with no loose backend), whole and
    /// hash-checked, before its loose file goes. Returns how many were deleted.
    public func removeLooseObjectsInPacks(_ candidates: [LooseObject]) throws -> Int {
        var packs: OpaquePointer?
        try check(git_odb_new(&packs), "opening the packs")
        defer { git_odb_free(packs) }
        var backend: OpaquePointer?
        try check(git_odb_backend_pack(&backend, objectsDirectory), "opening the packs in \(objectsDirectory)/pack")
        // Once added, the database owns the backend and frees it with itself.
        try check(git_odb_add_backend(packs, backend, 1), "opening the packs")
        var removed = 0
        for object in candidates {
            var oid = object.id.raw
            var read: OpaquePointer?
            let result = git_odb_read(&read, packs, &oid)
            if result == GIT_ENOTFOUND.rawValue { continue }
            try check(result, "reading \(object.id.short) from the packs")
            git_odb_object_free(read)
            if unlink(object.path) == 0 {
                removed += 1
            } else if errno != ENOENT {
                throw RolloutError.io("I/O error in the repository \(path) while removing the packed loose object \(object.path): \(String(cString: strerror(errno)))")
            }
        }
        return removed
    }

    /// Deletes every other pack in objects/pack whose each object `pack` also holds (each gc writes
    /// everything reachable, so the packs before it are redundant). A pack with a .keep file, or
    /// with any object the new pack lacks (one only another ref or a racing writer reached), stays.
    /// The .idx goes first, so no reader finds an index without its pack. Returns how many went.
    public func removePacksContained(in pack: WrittenPack) throws -> Int {
        let directory = objectsDirectory + "/pack"
        let newest = try openSinglePack(directory + "/pack-\(pack.name).idx")
        defer { git_odb_free(newest) }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var removed = 0
        for name in names.sorted() where name.hasPrefix("pack-") && name.hasSuffix(".idx") && name != "pack-\(pack.name).idx" {
            let base = directory + "/" + String(name.dropLast(".idx".count))
            if FileManager.default.fileExists(atPath: base + ".keep") { continue }
            let old = try openSinglePack(base + ".idx")
            defer { git_odb_free(old) }
            final class Payload { var newest: OpaquePointer?; var allPresent = true; init(_ n: OpaquePointer?) { newest = n } }
            let payload = Payload(newest)
            let walked = git_odb_foreach(old, { oid, context in
                let payload = Unmanaged<Payload>.fromOpaque(context!).takeUnretainedValue()
                guard git_odb_exists(payload.newest, oid) == 1 else { payload.allPresent = false; return 1 }
                return 0
            }, Unmanaged.passUnretained(payload).toOpaque())
            guard payload.allPresent else { continue }
            try check(walked, "listing the objects of \(base).pack")
            if unlink(base + ".idx") == 0 || errno == ENOENT {
                unlink(base + ".pack")
                removed += 1
            }
        }
        return removed
    }

    /// An object database of the one pack whose index is `index`; the caller frees it.
    private func openSinglePack(_ index: String) throws -> OpaquePointer? {
        var database: OpaquePointer?
        try check(git_odb_new(&database), "opening \(index)")
        var backend: OpaquePointer?
        let opened = git_odb_backend_one_pack(&backend, index)
        if opened < 0 { git_odb_free(database) }
        try check(opened, "opening \(index)")
        try check(git_odb_add_backend(database, backend, 1), "opening \(index)")
        return database
    }
}
