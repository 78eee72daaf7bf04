import Foundation
import RolloutModel

/// Packing the repository's objects (`rollout gc`, and automatically after a write), so a
/// repository stays near its `git gc --aggressive` size without anyone running git
/// (docs/pack-format.md, "Packing").
///
/// Safe while other rollout processes read and write: a pack is complete on disk before anything
/// goes; a loose object goes only after it was read back from the packs; an old pack goes only when
/// the packs that stay hold each of its objects; objects no ref reaches yet (a writer's, before its
/// compare-and-swap) are never packed, and `rollout gc` deletes unreachable loose objects, and packs
/// of them, only once they are older than `pruneAge`. libgit2 and git both look for new packs when an object they
/// expected is gone.
public enum Packing {
    /// More loose objects than this, or more loose bytes than this many times `bytesPerObject`,
    /// and a write packs them (`ROLLOUT_PACK_THRESHOLD` sets it).
    public static let automaticThreshold = 2_000
    /// The bytes half of the threshold: 2,000 objects or 1 MiB. Bytes matter because a loose object
    /// is zlib alone: one version of a 450 KB pack costs ~120 KB loose, a few KB as a delta in a pack.
    public static let bytesPerObject = 512
    /// A write never rewrites a pack this large: libgit2 computes every delta anew, so merging
    /// 1,000 versions of a 450 KB pack took 45 s inside one `pack add`. Such packs stay until
    /// `rollout gc`, each costing about one more delta base than one big pack would.
    public static let automaticMergeLimit = 2_000
    /// Nor a pack of this many bytes: metrics ingest writes its rollups as a pack of its own
    /// (`BlobPackWriter`), a few large blobs, whose delta search took 14 s for one aggregated week
    /// (docs/performance.md, "metrics ingest"). `rollout gc` still merges every pack.
    public static let automaticMergeBytes = 4 << 20
    /// Unreachable loose objects younger than this stay: a writer's objects are unreachable until its
    /// ref moves (git's default grace period, `gc.pruneExpire`, is the same two weeks).
    public static let pruneAge = 14 * 24 * 3600
    /// A temporary file a killed write left in objects/ (`pack_git2_*`, `objects/pack/*.lock`,
    /// `tmp_object_git2_*`) older than this goes at the next `rollout gc`: a writer at work changes
    /// its file far more often than once an hour.
    public static let staleTemporaryAge = 3600

    public struct Report: Sendable {
        /// The pack written, nil when there was nothing to pack.
        public var pack: PackFile?
        public var looseBefore = 0
        /// Loose objects removed because a pack holds them.
        public var removed = 0
        /// Unreachable loose objects older than `pruneAge`, removed (`rollout gc` only).
        public var pruned = 0
        /// Older packs deleted because the packs that stay hold every object of each.
        public var mergedPacks = 0
        /// Older packs of objects no ref reaches, older than `pruneAge`, removed (`rollout gc` only).
        public var prunedPacks = 0
        /// Temporary files killed writes left, older than `staleTemporaryAge`, removed (`rollout gc`
        /// only), relative to the repository.
        public var removedTemporaries: [String] = []
        public var packsAfter = 0
    }

    /// `rollout gc`: removes what killed writes left in objects/ (older than `staleTemporaryAge`),
    /// packs every reachable object into one pack, removes the loose copies and the
    /// older packs it holds, and prunes unreachable loose objects and packs older than `pruneAge`.
    /// Throws `conflict` when another process is packing.
    public static func run(_ repository: PackRepository, now: Int = Int(Date().timeIntervalSince1970)) throws -> Report
    {
        guard let report = try whileLocked(repository, { try collect(repository.git, now: now) }) else {
            throw .packingElsewhere
        }
        return report
    }

    /// After a write: when loose objects pass `threshold` (or their bytes `threshold` times
    /// `bytesPerObject`), packs the ones
    /// a ref reaches that no pack holds yet into a small pack, then merges small packs so that each
    /// pack holds at least twice the objects of all smaller ones together (git's geometric repack),
    /// leaving packs of `automaticMergeLimit` objects or more as they are: a write costs about its
    /// own objects, and a repository keeps a handful of packs plus one per ~2,000 objects. Nil when
    /// nothing needed packing or another process is packing. A failure is the caller's to report as
    /// a warning: the write it follows has landed, and a failed pack leaves at most an extra file.
    @discardableResult
    public static func packIfNeeded(_ repository: PackRepository, threshold: Int = automaticThreshold) throws -> Report?
    {
        let loose = repository.git.looseObjects()
        let bytes = threshold > Int.max / bytesPerObject ? Int.max : threshold * bytesPerObject
        guard loose.count > threshold || loose.reduce(0, { $0 + $1.bytes }) > bytes else { return nil }
        return try whileLocked(repository) { try packIncrementally(repository.git, loose: loose) }
    }

    static func lockPath(_ repository: PackRepository) -> String { repository.path + "/rollout-gc.lock" }

    /// Runs `body` holding an exclusive flock on the lock file; nil when another process holds it.
    /// The kernel drops the lock when its holder exits, however it exits, so a crash leaves nothing
    /// to clean up (the empty file stays; removing it while in use could let two lock two files).
    private static func whileLocked(_ repository: PackRepository, _ body: () throws -> Report) throws -> Report? {
        let lock = lockPath(repository)
        let descriptor = open(lock, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .lockFailed(repository, "opening", lock)
        }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            if errno == EWOULDBLOCK { return nil }
            throw .lockFailed(repository, "locking", lock)
        }
        return try body()
    }

    private static func collect(_ git: GitRepository, now: Int) throws -> Report {
        var report = Report()
        // Under the packing lock, so no other packing's files are among them.
        report.removedTemporaries = git.removeStaleTemporaries(modifiedBefore: now - staleTemporaryAge)
        // Listed before packing: everything listed that a ref reaches is in the new pack.
        let loose = git.looseObjects()
        report.looseBefore = loose.count
        let before = git.packsOnDisk()
        let written = try git.writePack(hiding: [])
        report.pack = written.first
        let cleaned = try git.removeLooseObjectsInPacks(loose)
        report.removed = cleaned.removed
        if !written.isEmpty {
            let merged = try git.removePacks(before, heldBy: written)
            report.mergedPacks = merged.count
            // Every reachable object is in `written`, so an older pack that stays holds unreachable ones.
            let staying = before.filter { pack in !(merged + written).contains { $0.name == pack.name } }
            report.prunedPacks = git.pruneUnreachablePacks(staying, modifiedBefore: now - pruneAge).count
        }
        // Every reachable object is in a pack now, so a loose object no pack holds is unreachable;
        // one a ref names (a tag, a blob, a tree) never is, whatever the packing did.
        let named = Set(try git.referencedObjects().map(\.id))
        let unreachable = cleaned.unpacked.filter { !named.contains($0.id) }
        report.pruned = try git.pruneLooseObjects(unreachable, modifiedBefore: now - pruneAge)
        git.removeEmptyFanOutDirectories()
        report.packsAfter = git.packsOnDisk().count
        return report
    }

    private static func packIncrementally(_ git: GitRepository, loose: [LooseObject]) throws -> Report {
        var report = Report()
        report.looseBefore = loose.count
        let existing = git.packsOnDisk()
        report.pack = try git.writePack(hiding: existing).first
        report.removed = try git.removeLooseObjectsInPacks(loose).removed
        git.removeEmptyFanOutDirectories()
        let packs = git.packsOnDisk()
        let merge = packsToMerge(packs, below: automaticMergeLimit, bytes: automaticMergeBytes)
        if merge.count > 1 {
            let staying = packs.filter { !merge.contains($0) }
            let merged = try git.writePack(hiding: staying)
            if !merged.isEmpty {
                report.mergedPacks = try git.removePacks(merge, heldBy: staying + merged).count
            }
        }
        report.packsAfter = git.packsOnDisk().count
        return report
    }

    /// The smallest packs to merge so that, sorted by object count, each pack that stays holds at
    /// least twice the objects of all smaller packs together. Packs with a .keep file, and packs of
    /// `limit` objects or `byteLimit` bytes or more, never merge.
    static func packsToMerge(_ packs: [PackFile], below limit: Int = .max, bytes byteLimit: Int = .max) -> [PackFile] {
        let sorted = packs.filter { !$0.kept && $0.objects < limit && $0.bytes < byteLimit }.sorted {
            ($0.objects, $0.name) < ($1.objects, $1.name)
        }
        guard sorted.count > 1 else { return [] }
        var split = 0
        for index in stride(from: sorted.count - 1, to: 0, by: -1)
        where sorted[index].objects < 2 * sorted[index - 1].objects {
            split = index + 1
            break
        }
        var merged = sorted[..<split].reduce(0) { $0 + $1.objects }
        while split < sorted.count, sorted[split].objects < 2 * merged {
            merged += sorted[split].objects
            split += 1
        }
        return split > 1 ? Array(sorted[..<split]) : []
    }
}

/// The failures of packing, named (an extension of Error, so that `throw .name(...)` finds them).
extension Error where Self == RolloutError {
    fileprivate static var packingElsewhere: RolloutError {
        .conflict("another rollout process is packing this repository; run rollout gc again when it is done")
    }

    /// Reads `errno`: call it right after the failing call.
    fileprivate static func lockFailed(_ repository: PackRepository, _ doing: String, _ lock: String) -> RolloutError {
        .io(
            "I/O error in the repository \(repository.path) while \(doing) \(lock): \(String(cString: strerror(errno)))"
        )
    }
}
