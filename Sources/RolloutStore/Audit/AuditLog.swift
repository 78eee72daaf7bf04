import Foundation
import RolloutModel

/// The audit log: the state ref's first-parent history read as changes, with an index so that
/// "what did TR on 4.8 get" does not mean reading every commit ever made.
///
/// The index lives in `<repository>/rollout/log-index/` and is only a cache: it is derived from the
/// history alone, and rebuilt from scratch when it is missing, damaged, or the history it indexed is
/// no longer the history of the state ref. It covers the newest changes down to a floor, and grows
/// back towards the first commit only as far as a query needs (docs/audit.md, "The index"). Files:
/// - `changes.jsonl`: one line per change, newest first, from the change the index was first built
///   at down to the floor (plans referenced by blob id, not copied); `later/changes.jsonl`: the
///   changes made since, oldest first;
/// - `locale-<L>.idx`, `region-<R>.idx`, `region-_other.idx`, `publish.idx` (and the same under
///   `later/`): `<seq> <offset>` of each change naming locale L, altering what devices in region R
///   receive, altering regions no rule names, or publishing;
/// - `HEAD`: the format, the newest and the oldest commit indexed and their positions.
///
/// Queries are in AuditQuery.swift, bringing the index up to date in AuditIndexWriter.swift, `HEAD`
/// in AuditIndexHead.swift, the index's lines in AuditIndexLine.swift and its files in
/// AuditIndexFiles.swift and AuditIndexReaders.swift.
public final class AuditLog {
    let repository: PackRepository
    public let directory: String
    static let flushEvery = 2_000
    /// How many of the newest changes the first query indexes; a query that needs older ones grows
    /// the index back by at least as many as it already covers (tests make it small).
    var firstReach = 1_000
    /// How many lines a whole-history query reads at a time, the plans of the next ones read meanwhile
    /// on another thread (`PlanPrefetch`; tests make it small).
    var prefetchChunk = 512
    /// Tests only: after this many more appends to the index's files, the next one writes half its
    /// bytes and fails, as when the process is killed in the middle of an update (AuditIndexModelTests).
    /// A property of this log, not a static, so that no test hook is state shared between threads.
    var appendsBeforeKill: Int?
    /// The rest of the first-parent chain below the floor, when this process walked it: growing the
    /// index back then needs no second walk.
    var chainBelowFloor: (floorSeq: Int, ids: ArraySlice<ObjectID>)?
    private var planCache: [String: Plan] = [:]
    /// The digest of each index line this process wrote, by sequence: a line read back the same is
    /// one derived from its commit moments ago, and a query takes it without reading the commit again
    /// (`AuditQuery.collect`; docs/audit.md, "A fresh clone").
    var writtenLines: [Int: Int] = [:]
    /// Tests only: read every plan with `Plan.parse` alone, as queries did before they used the fast
    /// reader too (AuditWholeHistoryTests compares the two).
    var strictPlansOnly = false
    /// How many `withoutRehashing` calls are running: only the outermost turns re-hashing back on.
    private var unhashedDepth = 0
    /// Why the index was rebuilt during this query, for `Result.warnings`.
    var distrusted: [String] = []
    /// Where indexing spent its time, when asked for (`ROLLOUT_LOG_PROFILE`, bench/log).
    public var profile: BuildProfile?

    public init(repository: PackRepository) {
        self.repository = repository
        self.directory = repository.path + "/rollout/log-index"
    }

    /// The index directory cannot be created or written (a read-only repository, a full disk).
    struct IndexUnavailable: Error {}
    /// A file of the index is shorter than the index wrote it, or the index counts the history wrongly.
    struct IndexDamaged: Error {
        let reason: String
    }
    /// The index this query was reading was thrown away and started over by another process.
    struct IndexStartedOver: Error {}

    /// A line's digest for `writtenLines`: SipHash with this process's own random key, so no line
    /// can be made to match another's.
    static func digest(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: bytes)
        return hasher.finalize()
    }

    /// Records why the index is not trusted, for the warning `log` prints.
    func distrust(_ damage: IndexDamaged) {
        distrusted.append(AuditLog.notTrusted(damage.reason))
    }

    /// Throws the index away, saying why; the next refresh rebuilds it from the history.
    func rebuild(because damage: IndexDamaged) throws {
        distrust(damage)
        if FileManager.default.fileExists(atPath: directory) { try reset() }
    }

    /// The warning for an index that does not match the history: the one line `log` prints on stderr.
    static func notTrusted(_ reason: String) -> String {
        "the log index does not match the history (\(reason)); rebuilt it from the history"
    }

    /// Runs `body` without libgit2 re-hashing each object it reads (`withoutRehashingObjects`, justified in
    /// docs/audit.md, "A fresh clone"); nested calls leave it off until the outermost one ends, so an
    /// index update inside a query does not turn re-hashing back on under the rest of the query.
    func withoutRehashing<T>(_ body: () throws -> T) rethrows -> T {
        guard unhashedDepth == 0 else { return try body() }
        unhashedDepth += 1
        defer { unhashedDepth -= 1 }
        return try repository.git.withoutRehashingObjects(body)
    }

    /// The entry for `commit`, given the plan files that differ from its first parent's.
    func makeEntry(_ commit: GitCommit, changedPlans: [GitChangedBlob], sequence: Int) throws -> AuditEntry {
        var planChanges: [AuditEntry.PlanChange] = []
        let changed = changedPlans.compactMap { file in
            file.new.flatMap { new in PlansTrailer.locale(ofPlanFile: file.name[...]).map { ($0, file.old, new) } }
        }
        for (locale, old, new) in changed.sorted(by: { $0.0 < $1.0 }) {
            guard
                let change = AuditEntry.PlanChange(
                    locale: locale, beforeBlob: old?.hex, afterBlob: new.hex,
                    loadPlan: { loadPlan($0) })
            else { throw RolloutError.damagedPlan(locale, at: commit.id) }
            planChanges.append(change)
        }
        return AuditEntry(commit, sequence: sequence, planChanges: planChanges)
    }

    /// The plan in blob `blob`. The index build reads every plan version ever written and a whole-history
    /// query every one it returns, most through the fast reader; whatever that reader does not take is
    /// read by `Plan.parse`, which decides what is valid (the reader returns only what `Plan.parse`
    /// would, AuditPlanReaderTests), so both give the same plans.
    func loadPlan(_ blob: String) -> Plan? {
        if let cached = planCache[blob] { return cached }
        guard let id = ObjectID(hex: blob), let bytes = try? repository.git.readBlob(id),
            let plan = AuditPlanReader.plan(bytes, blob: blob, strictOnly: strictPlansOnly)
        else {
            return nil
        }
        // Bounded: a rebuild reads every plan version ever written; the next change to a locale is
        // usually a few hundred commits later, so recent plans are what is asked for again.
        if planCache.count >= 4_096 { planCache.removeAll(keepingCapacity: true) }
        planCache[blob] = plan
        return plan
    }
}

extension RolloutError {
    fileprivate static func damagedPlan(_ locale: String, at commit: ObjectID) -> RolloutError {
        .repositoryDamaged("\(StateLayout.plan(locale)) at commit \(commit.short) cannot be read as a plan")
    }
}
