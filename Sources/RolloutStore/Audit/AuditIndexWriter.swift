import Foundation
import RolloutModel

/// Bringing the log index up to date (docs/audit.md, "The index"): at the tip after new changes,
/// from scratch when there is nothing usable, and back below the floor as far as a query needs.
/// Every update holds the index's lock and ends with one atomic write of `HEAD`.
extension AuditLog {
    /// Brings the index up to the tip of the state ref, indexing the newest changes first when there
    /// is no index yet; returns what it covers.
    @discardableResult
    public func refresh() throws -> Int {
        try refreshCoverage().tipSeq
    }

    func refreshCoverage() throws -> Coverage {
        let tip = try repository.stateTip()
        return try locked {
            var coverage = readHead()
            if let coverage, coverage.tip == tip.hex { return coverage }
            // A file shorter than recorded (deleted or cut) would otherwise be recreated holding only the
            // new changes: start over instead.
            if let recorded = coverage?.sizes, shortenedFile(sizes: recorded) != nil {
                distrust(.someFileShorter)
                coverage = nil
            }
            var clock = profile.map { _ in PhaseClock() }
            if let coverage, let updated = try indexNewer(than: coverage, tip: tip, clock: &clock) {
                return updated
            }
            return try startOver(at: tip, clock: &clock)
        }
    }

    /// Indexes the changes from `known`'s tip up to `tip` into `later/`; nil when the walk back from
    /// `tip` does not meet what is indexed (the history was rewritten, or the index is another's).
    private func indexNewer(than known: Coverage, tip: ObjectID, clock: inout PhaseClock?) throws -> Coverage? {
        let chain = try withoutRehashing {
            try repository.git.firstParentChain(from: tip, until: ObjectID(hex: known.tip))
        }
        clock?.lap(.walk, into: &profile)
        guard chain.reachedStop else {
            // A commit this repository has never had means an index made for another history: say
            // so. One it has (the branch was reset or replayed by sync) is an ordinary start-over.
            if ObjectID(hex: known.tip).flatMap({ try? repository.git.commit($0) }) == nil {
                distrust(.unknownTip(known.tip))
            }
            return nil
        }
        var coverage = known
        try index(chain.ids.reversed(), family: .later, firstSequence: known.tipSeq + 1, step: 1, from: &coverage) {
            coverage, commit, sequence in
            coverage.tip = commit
            coverage.tipSeq = sequence
        }
        return coverage
    }

    /// Nothing usable indexed (none yet, another format, a damaged file) or a rewritten history:
    /// count the history, then index its newest changes.
    private func startOver(at tip: ObjectID, clock: inout PhaseClock?) throws -> Coverage {
        try reset()
        let chain = try withoutRehashing {
            try repository.git.firstParentChain(from: tip, until: nil)
        }
        clock?.lap(.walk, into: &profile)
        // Always 16 hex digits: an id of one shape (docs/audit.md shows it), whatever the random value.
        let hex = String(UInt64.random(in: 1...UInt64.max), radix: 16)
        let generation = String(repeating: "0", count: 16 - hex.count) + hex
        let count = chain.ids.count
        let empty = Coverage(generation: generation, tip: tip.hex, tipSeq: count, floor: tip.hex, floorSeq: count + 1)
        chainBelowFloor = (empty.floorSeq, chain.ids[...])
        return try indexOlder(empty, count: firstReach)
    }

    /// Indexes changes below the floor: all of them, or at least as many as are covered already (and
    /// at least `firstReach`), so a query that keeps needing older changes grows the index a few times,
    /// not once per change.
    func growBack(from known: Coverage, all: Bool) throws -> Coverage {
        try locked {
            guard let coverage = readHead(), coverage.generation == known.generation,
                shortenedFile(sizes: coverage.sizes) == nil
            else {
                // Thrown away or damaged since this query read it; it is started over on the next try.
                throw IndexStartedOver()
            }
            if coverage.floorSeq < known.floorSeq || coverage.complete {
                // Another process grew it meanwhile.
                return coverage
            }
            let count = all ? coverage.floorSeq - 1 : max(firstReach, coverage.tipSeq - coverage.floorSeq + 1)
            return try indexOlder(coverage, count: count)
        }
    }

    /// Indexes up to `count` commits below `coverage`'s floor, newest first, into the files the
    /// index was first built in.
    private func indexOlder(_ coverage: Coverage, count: Int) throws -> Coverage {
        let ids = try chain(below: coverage, count: count)
        guard !ids.isEmpty || count == 0 else { throw IndexDamaged.countsBelowFirstCommit(coverage) }
        guard ids.count <= coverage.floorSeq - 1 else { throw IndexDamaged.historyHasMore(coverage) }
        var grown = coverage
        try index(ids, family: .first, firstSequence: coverage.floorSeq - 1, step: -1, from: &grown) {
            coverage, commit, sequence in
            coverage.floor = commit
            coverage.floorSeq = sequence
        }
        if let known = chainBelowFloor, known.floorSeq == coverage.floorSeq {
            chainBelowFloor = (grown.floorSeq, known.ids.dropFirst(ids.count))
        }
        return grown
    }

    /// Up to `count` commit ids of the first-parent chain below `coverage`'s floor, newest first:
    /// from the walk this process made, or from a new walk from the indexed tip.
    private func chain(below coverage: Coverage, count: Int) throws -> [ObjectID] {
        if let known = chainBelowFloor, known.floorSeq == coverage.floorSeq {
            return Array(known.ids.prefix(count))
        }
        var clock = profile.map { _ in PhaseClock() }
        // The floor is checked against the history, not taken from HEAD: the walk from the indexed
        // tip must meet it where HEAD counts it, and the commits below it are the walk's.
        let covered = coverage.tipSeq - coverage.floorSeq + 1
        guard let tip = ObjectID(hex: coverage.tip),
            let chain = try? withoutRehashing({
                try repository.git.firstParentChain(from: tip, until: nil, limit: covered + count).ids
            }),
            chain.count >= covered, chain[covered - 1].hex == coverage.floor
        else { throw IndexDamaged.floorNotBelowTip(coverage) }
        clock?.lap(.walk, into: &profile)
        return Array(chain[covered...])
    }

    /// Indexes `ids` (a first-parent chain, in the order given) into `family`, numbering them from
    /// `firstSequence` by `step`; after each batch, `cover` moves `coverage` to the batch's last commit,
    /// and `HEAD` records it with the files' new lengths in one atomic write. Whatever a killed update
    /// left past the recorded lengths is cut off first, so each file holds exactly what `HEAD` covers
    /// followed by what this update appends.
    private func index(
        _ ids: [ObjectID], family: IndexFamily, firstSequence: Int, step: Int, from coverage: inout Coverage,
        cover: (inout Coverage, String, Int) -> Void
    ) throws {
        guard !ids.isEmpty else { return }
        try trim(to: coverage.sizes)
        var clock = profile.map { _ in PhaseClock() }
        var batch = Batch()
        var position = 0
        // Objects are not re-hashed while the history is read: git log does not either (docs/audit.md).
        try withoutRehashing {
            try repository.git.forEachChange(ids, in: StateLayout.plansDirectory) { commit, changed in
                let sequence = firstSequence + step * position
                position += 1
                if position == ids.count, step < 0, commit.parents.isEmpty != (sequence == 1) {
                    throw IndexDamaged.historyCountedWrongly(hasFewer: commit.parents.isEmpty)
                }
                // A commit that says what it did to the plans (`Rollout-Plans`) is indexed from that
                // alone; any other from its trees and plans (docs/audit.md, "The Rollout-Plans trailer").
                let record = AuditEntry.CommitRecord(commit)
                let line: [UInt8]
                let pointers: [String]
                if let (read, locales, regions) = record.indexLine(commit: commit.id, sequence: sequence) {
                    clock?.lap(.commitsAndTrees, into: &profile)
                    (line, pointers) = (read, files(locales: locales, action: record.action, regions: regions))
                } else {
                    let changed = try changed()
                    clock?.lap(.commitsAndTrees, into: &profile)
                    let entry = try makeEntry(commit, changedPlans: changed, sequence: sequence)
                    clock?.lap(.plans, into: &profile)
                    let regions = entry.planChanges.flatMap { PlansTrailer.regions(from: $0.before, to: $0.after) }
                    (line, pointers) = (
                        entry.indexLine(), files(locales: entry.locales, action: entry.action, regions: Set(regions))
                    )
                }
                clock?.lap(.segments, into: &profile)
                writtenLines[sequence] = line.dropLast().withUnsafeBytes(AuditLog.digest)
                batch.add(line, sequence: sequence, pointers: pointers)
                if position % AuditLog.flushEvery == 0 || position == ids.count {
                    let sizes = try batch.flush(to: directory, family: family, appendsBeforeKill: &appendsBeforeKill)
                    for (file, size) in sizes { coverage.sizes[file] = size }
                    batch = Batch()
                    cover(&coverage, commit.id.hex, sequence)
                    try writeHead(coverage)
                }
                clock?.lap(.writing, into: &profile)
            }
        }
        profile?.commits += ids.count
    }

    /// The pointer files a change belongs in: one per locale it names, publish.idx for a publish, and
    /// one per region token it altered (`PlansTrailer.regions`; `*` is region-_other.idx).
    private func files(locales: [String], action: String, regions: Set<String>) -> [String] {
        var files = locales.map { "locale-\($0).idx" }
        if action == ChangeAction.publish.rawValue { files.append("publish.idx") }
        let names = regions.map { $0 == PlansTrailer.otherRegions ? "_other" : $0 }
        return files + names.sorted().map { "region-\($0).idx" }
    }

    /// Runs `body` holding the index's lock, creating the directory first; an index that cannot be
    /// created or written makes the index unavailable (the query walks the history instead).
    private func locked<T>(_ body: () throws -> T) throws -> T {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw IndexUnavailable()
        }
        let lock = open(directory + "/lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard lock >= 0, access(directory, W_OK) == 0 else {
            if lock >= 0 { close(lock) }
            throw IndexUnavailable()
        }
        defer { close(lock) }
        // flock is released by the kernel if this process dies: no stale lock to clean up.
        flock(lock, LOCK_EX)
        defer { flock(lock, LOCK_UN) }
        return try body()
    }

    /// Cuts every index file back to the length `sizes` records for it (nothing, for a file it does
    /// not list): what is past it was written by an update that was killed before `HEAD` covered it.
    private func trim(to sizes: [String: Int]) throws {
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? []
        for file in files where file.hasSuffix(".jsonl") || file.hasSuffix(".idx") {
            let recorded = sizes[file] ?? 0
            if length(of: file) > recorded && truncate(directory + "/" + file, off_t(recorded)) != 0 {
                throw IndexUnavailable()
            }
        }
    }

    /// Deletes every file of the index but the lock.
    func reset() throws {
        do {
            chainBelowFloor = nil
            writtenLines = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name != "lock" {
                try FileManager.default.removeItem(atPath: directory + "/" + name)
            }
        } catch {
            throw AuditLog.IndexUnavailable()
        }
    }
}

/// Why an update finds the index not to match the history (docs/audit.md, "The index": `HEAD` is
/// not taken on trust).
extension AuditLog.IndexDamaged {
    fileprivate static let someFileShorter = AuditLog.IndexDamaged(reason: "a file is shorter than the index wrote it")

    fileprivate static func unknownTip(_ tip: String) -> Self {
        Self(reason: "it indexes commit \(tip.prefix(12)), which this repository does not have")
    }

    fileprivate static func floorNotBelowTip(_ coverage: AuditLog.Coverage) -> Self {
        let below = coverage.tipSeq - coverage.floorSeq
        return Self(
            reason: "HEAD's oldest indexed commit \(coverage.floor.prefix(12)) is not \(below) commits below its newest"
        )
    }

    fileprivate static func countsBelowFirstCommit(_ coverage: AuditLog.Coverage) -> Self {
        Self(
            reason: "HEAD counts \(coverage.floorSeq - 1) commits below \(coverage.floor.prefix(12)), the first commit")
    }

    fileprivate static func historyHasMore(_ coverage: AuditLog.Coverage) -> Self {
        Self(
            reason:
                "HEAD counts \(coverage.floorSeq - 1) commits below \(coverage.floor.prefix(12)), the history has more")
    }

    fileprivate static func historyCountedWrongly(hasFewer: Bool) -> Self {
        Self(reason: "the history has \(hasFewer ? "fewer" : "more") commits than HEAD counts")
    }
}
