import Foundation
import RolloutModel

/// Packing the repository's loose objects (`rollout gc`, and automatically after a write).
///
/// Safe while other rollout processes read and write: the pack is complete on disk before any loose
/// object goes, and a loose object goes only after it was read back from the packs; objects no ref
/// reaches yet (a writer's, before its compare-and-swap) are never packed and so never deleted.
/// libgit2 and git both look again for new packs when an object they expected loose is gone.
public enum Packing {
    /// More loose objects than this (estimated) and a write packs them. About 400 `pack add`s.
    public static let automaticThreshold = 2_000

    public struct Report: Sendable {
        /// The pack written, nil when nothing was reachable.
        public let pack: WrittenPack?
        public let looseBefore: Int
        public let removed: Int
        /// Older packs the new one holds every object of, deleted.
        public let redundantPacks: Int
    }

    /// Packs every reachable object and removes the loose copies the packs now hold. Throws
    /// `conflict` when another gc holds the lock.
    public static func run(_ repository: PackRepository) throws -> Report {
        guard let report = try runUnlessBusy(repository) else {
            let lock = lockPath(repository)
            throw RolloutError.conflict(
                "another rollout gc is packing this repository (\(lock) exists). If no rollout command is running, a crashed one left it: remove it with rm \(lock)")
        }
        return report
    }

    /// Packs when the estimated loose-object count passes `threshold`. A failure leaves the
    /// repository as it was (the pack is only added) and is not the write's failure, so it is
    /// returned for the caller to mention rather than thrown.
    @discardableResult
    public static func packIfNeeded(_ repository: PackRepository, threshold: Int = automaticThreshold) -> Result<Report?, Error> {
        guard repository.git.estimatedLooseObjects() > threshold else { return .success(nil) }
        return Result { try runUnlessBusy(repository) }
    }

    static func lockPath(_ repository: PackRepository) -> String { repository.path + "/rollout-gc.lock" }

    /// nil when another gc holds the lock: two at once would only write the same pack twice.
    private static func runUnlessBusy(_ repository: PackRepository) throws -> Report? {
        let lock = lockPath(repository)
        let descriptor = open(lock, O_CREAT | O_EXCL | O_WRONLY, 0o644)
        guard descriptor >= 0 else {
            if errno == EEXIST { return nil }
            throw RolloutError.io("I/O error in the repository \(repository.path) while creating \(lock): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        defer { unlink(lock) }
        let git = repository.git
        // Listed before packing: everything listed that a ref reaches is in the new pack.
        let loose = git.looseObjects()
        let pack = try git.writeReachablePack()
        let removed = pack == nil ? 0 : try git.removeLooseObjectsInPacks(loose)
        let redundant = try pack.map { try git.removePacksContained(in: $0) } ?? 0
        return Report(pack: pack, looseBefore: loose.count, removed: removed, redundantPacks: redundant)
    }
}
