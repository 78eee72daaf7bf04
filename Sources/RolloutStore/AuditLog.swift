import Foundation
import RolloutModel

/// One recorded change, as the audit log shows it.
public struct AuditEntry: Sendable {
    public struct PlanChange: Sendable {
        public let locale: String
        public let before: Plan
        public let after: Plan
        /// The git blob ids of the plan file before and after (nil before: the plan is new).
        public let beforeBlob: String?
        public let afterBlob: String
    }

    /// The action that records a publish: when the state it names reached devices.
    public static let publishAction = "publish"

    /// Where a publish wrote, as its summary (`publish index sequence N to DEST`) names it.
    var publishDestination: String {
        summary.range(of: " to ").map { String(summary[$0.upperBound...]) } ?? summary
    }

    /// Position in the first-parent history, 1 for the first commit.
    public let sequence: Int
    public let commit: String
    public let time: Timestamp
    public let actor: String
    public let action: String
    public let summary: String
    public let reason: String?
    public let locales: [String]
    public let packs: [String]
    /// Every plan the commit changed (one for anything rollout writes; a commit made by hand may change several).
    public let planChanges: [PlanChange]

    /// The plan changes that altered what devices in `region` (or "*") on `versions` receive.
    public func changes(affecting region: String, versions: VersionRange) -> [PlanChange] {
        planChanges.filter { change in
            SegmentShares.of(change.before, region: region, versions: versions) != SegmentShares.of(change.after, region: region, versions: versions)
        }
    }

    /// The index line: the plan is referenced by its git blob ids, not copied. Canonical JSON
    /// (RFC 8785), written member by member in the sorted order `JSONWriter.canonical` would give,
    /// without building and sorting a dictionary for each of the history's changes.
    func indexLine(planBlobs: [(before: String?, after: String)]) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(256 + summary.utf8.count)
        func key(_ name: StaticString, first: Bool = false) {
            if !first { line.append(UInt8(ascii: ",")) }
            line.append(UInt8(ascii: "\""))
            line.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            line.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        func strings(_ items: [String]) {
            line.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { line.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(item, into: &line)
            }
            line.append(UInt8(ascii: "]"))
        }
        line.append(UInt8(ascii: "{"))
        key("action", first: true)
        JSONWriter.writeString(action, into: &line)
        key("actor")
        JSONWriter.writeString(actor, into: &line)
        key("commit")
        JSONWriter.writeString(commit, into: &line)
        key("locales")
        strings(locales)
        key("packs")
        strings(packs)
        if !planChanges.isEmpty {
            key("plans")
            line.append(UInt8(ascii: "["))
            for (i, (change, blobs)) in zip(planChanges, planBlobs).enumerated() {
                if i > 0 { line.append(UInt8(ascii: ",")) }
                line.append(UInt8(ascii: "{"))
                key("after", first: true)
                JSONWriter.writeString(blobs.after, into: &line)
                key("before")
                if let before = blobs.before { JSONWriter.writeString(before, into: &line) } else { line.append(contentsOf: "null".utf8) }
                key("locale")
                JSONWriter.writeString(change.locale, into: &line)
                line.append(UInt8(ascii: "}"))
            }
            line.append(UInt8(ascii: "]"))
        }
        if let reason {
            key("reason")
            JSONWriter.writeString(reason, into: &line)
        }
        key("seq")
        line.append(contentsOf: JSONWriter.formatNumber(Double(sequence)).utf8)
        key("summary")
        JSONWriter.writeString(summary, into: &line)
        key("time")
        line.append(contentsOf: JSONWriter.formatNumber(Double(time.seconds)).utf8)
        line.append(UInt8(ascii: "}"))
        line.append(0x0A)
        return line
    }

    /// Reads an index line back; `loadPlan` turns a blob id into the plan it holds.
    static func parse(_ line: Substring, loadPlan: (String) -> Plan?) -> AuditEntry? {
        guard let value = try? StrictJSONParser.parse(Array(line.utf8)), let o = value.objectValue,
            let seq = o["seq"]?.integerValue, let commit = o["commit"]?.stringValue, let time = o["time"]?.integerValue,
            let actor = o["actor"]?.stringValue, let action = o["action"]?.stringValue, let summary = o["summary"]?.stringValue
        else { return nil }
        var changes: [PlanChange] = []
        for item in o["plans"]?.arrayValue ?? [] {
            guard let plan = item.objectValue, let locale = plan["locale"]?.stringValue, let after = plan["after"]?.stringValue,
                let afterPlan = loadPlan(after)
            else { return nil }
            let beforePlan = plan["before"]?.stringValue.flatMap(loadPlan) ?? Plan(locale: locale)
            changes.append(PlanChange(locale: locale, before: beforePlan, after: afterPlan, beforeBlob: plan["before"]?.stringValue, afterBlob: after))
        }
        return AuditEntry(
            sequence: seq, commit: commit, time: Timestamp(seconds: Int64(time)), actor: actor, action: action, summary: summary,
            reason: o["reason"]?.stringValue, locales: o["locales"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            packs: o["packs"]?.arrayValue?.compactMap(\.stringValue) ?? [], planChanges: changes)
    }
}

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
public final class AuditLog {
    let repository: PackRepository
    public let directory: String
    static let flushEvery = 2_000
    /// How many of the newest changes the first query indexes; a query that needs older ones grows
    /// the index back by at least as many as it already covers (tests make it small).
    var firstReach = 1_000
    /// The rest of the first-parent chain below the floor, when this process walked it: growing the
    /// index back then needs no second walk.
    private var chainBelowFloor: (floorSeq: Int, ids: ArraySlice<ObjectID>)?
    private var planCache: [String: Plan] = [:]
    /// Why the index was rebuilt during this query, for `Result.warnings`.
    private var distrusted: [String] = []
    /// Where indexing spent its time, when asked for (`ROLLOUT_LOG_PROFILE`, bench/log).
    public var profile: BuildProfile?

    public init(repository: PackRepository) {
        self.repository = repository
        self.directory = repository.path + "/rollout/log-index"
    }

    // MARK: querying

    public struct Query {
        public var segment: (region: String, versions: VersionRange)?
        public var locale: String?
        public var pack: PackID?
        public var since: Timestamp?
        public var until: Timestamp?
        /// nil: every matching change.
        public var limit: Int?

        public init() {}
    }

    public struct Result {
        public let entries: [AuditEntry]
        /// True when `limit` stopped the walk and older matches may exist.
        public let truncated: Bool
        /// Why the index was not trusted and was rebuilt from the history, one line each (empty when
        /// it was used as it was, or had only to be brought up to date).
        public var warnings: [String] = []
    }

    /// Answers from the index, then re-reads every change it returns from its commit, so what is
    /// shown is always what the history says. If the index disagrees with the history anywhere (it
    /// was damaged or edited), it is rebuilt from the history and the query runs again.
    public func query(_ query: Query) throws -> Result {
        distrusted = []
        var result = try checkedQuery(query)
        result.warnings = distrusted
        return result
    }

    private func checkedQuery(_ query: Query) throws -> Result {
        do {
            var answer: Result?
            for _ in 0..<3 where answer == nil {
                do {
                    answer = try indexedQuery(query)
                } catch let damage as IndexDamaged {
                    try rebuild(because: damage.reason)
                } catch is IndexStartedOver {
                    // Another process threw the index away while this query read it: ask again.
                }
            }
            guard let answer else { return try walkingQuery(query) }
            var checked: [AuditEntry] = []
            for entry in answer.entries {
                guard let id = ObjectID(hex: entry.commit), let fresh = try? confirmed(entry, id) else {
                    try rebuild(because: "its entry for \(entry.commit.prefix(12)) does not match that commit")
                    return try indexedQuery(query)
                }
                checked.append(fresh)
            }
            return Result(entries: checked, truncated: answer.truncated)
        } catch is IndexUnavailable {
            // A read-only repository (an auditor's mount) or a full disk: the index is only a cache, so
            // walk the history itself, slower but the same answer. A read never fails for want of space.
            return try walkingQuery(query)
        }
    }

    /// The index directory cannot be created or written (a read-only repository, a full disk).
    struct IndexUnavailable: Error {}
    /// A file of the index is shorter than the index wrote it, or the index counts the history wrongly.
    struct IndexDamaged: Error {
        let reason: String
    }
    /// The index this query was reading was thrown away and started over by another process.
    struct IndexStartedOver: Error {}

    /// Replaces one small file of the index; any failure makes the index unavailable, not the query.
    private func writeIndexFile(_ name: String, _ text: String) throws {
        do {
            try LocalFile.replace(directory + "/" + name, with: Array(text.utf8), name: directory + "/" + name, mode: 0o644, durable: false)
        } catch {
            throw IndexUnavailable()
        }
    }

    /// The same query without the index: every first-parent commit, newest first.
    func walkingQuery(_ query: Query) throws -> Result {
        let ids = try repository.git.firstParentChain(from: repository.stateTip(), until: nil).ids
        var results = Collector(query: query)
        for (offset, id) in ids.enumerated() {
            var entry: AuditEntry?
            try repository.git.forEachChange([id], in: StateLayout.plansDirectory) { commit, changed in
                entry = try makeEntry(commit, changedPlans: changed, sequence: ids.count - offset).0
            }
            guard let entry, matches(entry, query) else { continue }
            guard results.add(entry) else { return Result(entries: results.entries, truncated: true) }
        }
        return Result(entries: results.entries, truncated: false)
    }

    /// The entry as its commit says it, or nil when the index disagrees with the commit: the message
    /// fields are re-read from the commit, and each plan change's blobs are checked against the trees
    /// of the commit and its parent (blob ids are content addresses, so the plans follow).
    private func confirmed(_ entry: AuditEntry, _ id: ObjectID) throws -> AuditEntry? {
        let commit = try repository.git.commit(id)
        let record = CommitRecord(commit)
        guard record.summary == entry.summary, record.actor == entry.actor, record.reason == entry.reason, record.packs == entry.packs,
            record.action == entry.action, record.time == entry.time
        else { return nil }
        let parentTree = try commit.parents.first.map { try repository.git.commit($0).tree }
        for change in entry.planChanges {
            let path = StateLayout.plan(change.locale)
            guard try repository.git.treeEntry(commit.tree, path: path)?.id.hex == change.afterBlob,
                try parentTree.flatMap({ try repository.git.treeEntry($0, path: path) })?.id.hex == change.beforeBlob
            else { return nil }
        }
        return entry
    }

    /// Throws the index away, saying why; the next refresh rebuilds it from the history.
    func rebuild(because reason: String) throws {
        distrusted.append(AuditLog.notTrusted(reason))
        if FileManager.default.fileExists(atPath: directory) { try reset() }
    }

    /// The warning for an index that does not match the history: the one line `log` prints on stderr.
    static func notTrusted(_ reason: String) -> String {
        "the log index does not match the history (\(reason)); rebuilt it from the history"
    }

    private func indexedQuery(_ query: Query) throws -> Result {
        var coverage = try refreshCoverage()
        // Changes after the tip this query brought the index to are another process's: not this answer's.
        let indexed = coverage.tipSeq
        var pointerFile: [String] = []
        if let segment = query.segment, segment.region != Region.any {
            pointerFile = ["region-\(segment.region).idx", "region-_other.idx", "publish.idx"]
        } else if let locale = query.locale ?? query.pack?.locale {
            pointerFile = ["locale-\(locale).idx"]
        }
        // Every file must be at least as long as the index says it wrote: a deleted or cut file is
        // damage, and the index is rebuilt from the history rather than trusted.
        var checked: [String] = []
        for file in pointerFile + ["changes.jsonl"] { checked += [file, IndexFamily.later.prefix + file] }
        try checkLengths(checked, against: coverage.sizes)
        let families = IndexFamily.Files(directory: directory)
        let cursors = pointerFile.isEmpty
            ? [FamilyCursor(families, pointers: nil, sizes: coverage.sizes)]
            : pointerFile.map { FamilyCursor(families, pointers: $0, sizes: coverage.sizes) }
        var results = Collector(query: query)
        var lastSequence = indexed + 1
        while true {
            var heads = cursors.map { $0.next(below: lastSequence, floor: coverage.floorSeq) }
            while let pick = heads.indices.filter({ heads[$0] != nil }).max(by: { heads[$0]!.sequence < heads[$1]!.sequence }) {
                let (sequence, line) = heads[pick]!
                heads[pick] = cursors[pick].next(below: sequence, floor: coverage.floorSeq)
                guard sequence < lastSequence else { continue }
                lastSequence = sequence
                guard let entry = AuditEntry.parse(line, loadPlan: { loadPlan($0) }), matches(entry, query) else { continue }
                guard results.add(entry) else { return Result(entries: results.entries, truncated: true) }
            }
            // Every indexed change down to the floor is read: older ones are indexed only now, as needed.
            if coverage.complete {
                // HEAD says the floor is the first commit: one read checks it before "no more" is answered.
                guard let floor = ObjectID(hex: coverage.floor), (try? repository.git.commit(floor))?.parents.isEmpty == true else {
                    throw IndexDamaged(reason: "HEAD's oldest indexed commit \(coverage.floor.prefix(12)) is not the first commit")
                }
                return Result(entries: results.entries, truncated: false)
            }
            coverage = try growBack(from: coverage, all: query.limit == nil)
            try checkLengths(checked, against: coverage.sizes)
            cursors.forEach { $0.read(upTo: coverage.sizes) }
        }
    }

    private func checkLengths(_ files: [String], against sizes: [String: Int]) throws {
        if let file = files.first(where: { length(of: $0) < sizes[$0] ?? 0 }) {
            throw IndexDamaged(reason: "\(file) is shorter than the index wrote it")
        }
    }

    /// The length of an index file now (0 when it is missing).
    private func length(of file: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + file))?[.size] as? Int) ?? 0
    }

    /// Gathers matches newest first, up to the limit. Under --segment a publish is kept only when it
    /// is the first to its destination after a listed change: when that change reached that site.
    private struct Collector {
        let query: Query
        var entries: [AuditEntry] = []
        /// Walking back in time, per destination, the oldest publish seen since the last listed change.
        var publishes: [String: AuditEntry] = [:]

        /// False when the limit is reached and `entry` was not taken.
        mutating func add(_ entry: AuditEntry) -> Bool {
            guard query.segment != nil else { return append(entry) }
            if entry.action == AuditEntry.publishAction {
                publishes[entry.publishDestination] = entry
                return true
            }
            for publish in publishes.values.sorted(by: { $0.sequence > $1.sequence }) {
                guard append(publish) else { return false }
            }
            publishes = [:]
            return append(entry)
        }

        private mutating func append(_ entry: AuditEntry) -> Bool {
            if let limit = query.limit, entries.count >= limit { return false }
            entries.append(entry)
            return true
        }
    }

    /// `building`: the index build reads every plan version ever written, most through the fast
    /// reader; whatever that reader does not take is read by `Plan.parse`, which decides what is valid.
    private func loadPlan(_ blob: String, building: Bool = false) -> Plan? {
        if let cached = planCache[blob] { return cached }
        guard let id = ObjectID(hex: blob), let bytes = try? repository.git.readBlob(id),
            let plan = (building ? AuditPlanReader.read(bytes) : nil) ?? (try? Plan.parse(bytes, source: blob))
        else {
            return nil
        }
        // Bounded: a rebuild reads every plan version ever written; the next change to a locale is
        // usually a few hundred commits later, so recent plans are what is asked for again.
        if planCache.count >= 4_096 { planCache.removeAll(keepingCapacity: true) }
        planCache[blob] = plan
        return plan
    }

    private func matches(_ entry: AuditEntry, _ query: Query) -> Bool {
        if let since = query.since, entry.time < since { return false }
        if let until = query.until, entry.time > until { return false }
        if let locale = query.locale, !entry.locales.contains(locale) { return false }
        if let pack = query.pack, !entry.packs.contains(pack.description) { return false }
        if let segment = query.segment {
            if entry.action == AuditEntry.publishAction { return true }
            return entry.changes(affecting: segment.region, versions: segment.versions).contains { query.locale == nil || $0.locale == query.locale }
        }
        return true
    }

    // MARK: indexing

    /// What the index covers: every change from `floorSeq` (commit `floor`) up to `tipSeq` (commit
    /// `tip`), and the length of each file after the update that recorded this.
    struct Coverage {
        /// Made when the index is started: an index thrown away and started again by another process
        /// while a query reads it has another, and the query starts over.
        var generation: String
        var tip: String
        var tipSeq: Int
        var floor: String
        var floorSeq: Int
        var sizes: [String: Int] = [:]
        /// Down to the first commit: nothing older to index.
        var complete: Bool { floorSeq <= 1 }
    }

    /// Brings the index up to the tip of the state ref, indexing the newest changes first when there
    /// is no index yet; returns what it covers.
    @discardableResult
    public func refresh() throws -> Int {
        try refreshCoverage().tipSeq
    }

    private func refreshCoverage() throws -> Coverage {
        let tip = try repository.stateTip()
        return try locked {
            var coverage = readHead()
            if let coverage, coverage.tip == tip.hex { return coverage }
            // A file shorter than recorded (deleted or cut) would otherwise be recreated holding only the
            // new changes: start over instead.
            if let recorded = coverage?.sizes, !damagedFiles(recorded).isEmpty {
                distrusted.append(AuditLog.notTrusted("a file is shorter than the index wrote it"))
                coverage = nil
            }
            var clock = profile.map { _ in PhaseClock() }
            if var coverage {
                // Walk back from the tip to what is indexed; if it is not there, history was rewritten.
                let chain = try repository.git.withoutRehashingObjects {
                    try repository.git.firstParentChain(from: tip, until: ObjectID(hex: coverage.tip))
                }
                clock?.lap(.walk, into: &profile)
                if chain.reachedStop {
                    try index(chain.ids.reversed(), family: .later, firstSequence: coverage.tipSeq + 1, step: 1, from: &coverage) { coverage, commit, sequence in
                        coverage.tip = commit
                        coverage.tipSeq = sequence
                    }
                    return coverage
                }
                // A commit this repository has never had means an index made for another history: say
                // so. One it has (the branch was reset or replayed by sync) is an ordinary start-over.
                if ObjectID(hex: coverage.tip).flatMap({ try? repository.git.commit($0) }) == nil {
                    distrusted.append(AuditLog.notTrusted("it indexes commit \(coverage.tip.prefix(12)), which this repository does not have"))
                }
            }
            // Nothing usable indexed (none yet, another format, a damaged file) or a rewritten history:
            // count the history, then index its newest changes.
            try reset()
            let chain = try repository.git.withoutRehashingObjects { try repository.git.firstParentChain(from: tip, until: nil) }
            clock?.lap(.walk, into: &profile)
            let generation = String(UInt64.random(in: 1...UInt64.max), radix: 16)
            let empty = Coverage(generation: generation, tip: tip.hex, tipSeq: chain.ids.count, floor: tip.hex, floorSeq: chain.ids.count + 1)
            chainBelowFloor = (empty.floorSeq, chain.ids[...])
            return try indexOlder(empty, count: firstReach)
        }
    }

    /// Indexes changes below the floor: all of them, or at least as many as are covered already (and
    /// at least `firstReach`), so a query that keeps needing older changes grows the index a few times,
    /// not once per change.
    private func growBack(from known: Coverage, all: Bool) throws -> Coverage {
        try locked {
            guard let coverage = readHead(), coverage.generation == known.generation, damagedFiles(coverage.sizes).isEmpty else {
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
        var clock = profile.map { _ in PhaseClock() }
        let ids: [ObjectID]
        if let known = chainBelowFloor, known.floorSeq == coverage.floorSeq {
            ids = Array(known.ids.prefix(count))
        } else {
            // The floor is checked against the history, not taken from HEAD: the walk from the indexed
            // tip must meet it where HEAD counts it, and the commits below it are the walk's.
            let covered = coverage.tipSeq - coverage.floorSeq + 1
            guard let tip = ObjectID(hex: coverage.tip),
                let chain = try? repository.git.withoutRehashingObjects({ try repository.git.firstParentChain(from: tip, until: nil, limit: covered + count).ids }),
                chain.count >= covered, chain[covered - 1].hex == coverage.floor
            else {
                throw IndexDamaged(reason: "HEAD's oldest indexed commit \(coverage.floor.prefix(12)) is not \(covered - 1) commits below its newest")
            }
            ids = Array(chain[covered...])
            clock?.lap(.walk, into: &profile)
        }
        guard !ids.isEmpty || count == 0 else {
            throw IndexDamaged(reason: "HEAD counts \(coverage.floorSeq - 1) commits below \(coverage.floor.prefix(12)), the first commit")
        }
        guard ids.count <= coverage.floorSeq - 1 else {
            throw IndexDamaged(reason: "HEAD counts \(coverage.floorSeq - 1) commits below \(coverage.floor.prefix(12)), the history has more")
        }
        var grown = coverage
        try index(ids, family: .first, firstSequence: coverage.floorSeq - 1, step: -1, from: &grown) { coverage, commit, sequence in
            coverage.floor = commit
            coverage.floorSeq = sequence
        }
        if let known = chainBelowFloor, known.floorSeq == coverage.floorSeq {
            chainBelowFloor = (grown.floorSeq, known.ids.dropFirst(ids.count))
        }
        return grown
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
        try repository.git.withoutRehashingObjects {
            try repository.git.forEachChange(ids, in: StateLayout.plansDirectory) { commit, changed in
                clock?.lap(.commitsAndTrees, into: &profile)
                let sequence = firstSequence + step * position
                position += 1
                if position == ids.count, step < 0, commit.parents.isEmpty != (sequence == 1) {
                    throw IndexDamaged(reason: "the history has \(commit.parents.isEmpty ? "fewer" : "more") commits than HEAD counts")
                }
                let (entry, blobs) = try makeEntry(commit, changedPlans: changed, sequence: sequence)
                clock?.lap(.plans, into: &profile)
                let pointers = files(for: entry)
                clock?.lap(.segments, into: &profile)
                batch.add(entry.indexLine(planBlobs: blobs), sequence: sequence, pointers: pointers)
                if position % AuditLog.flushEvery == 0 || position == ids.count {
                    for (file, size) in try batch.flush(to: directory, family: family) { coverage.sizes[file] = size }
                    batch = Batch()
                    cover(&coverage, commit.id.hex, sequence)
                    try writeHead(coverage)
                }
                clock?.lap(.writing, into: &profile)
            }
        }
        profile?.commits += ids.count
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
            if length(of: file) > recorded && truncate(directory + "/" + file, off_t(recorded)) != 0 { throw IndexUnavailable() }
        }
    }

    /// The files shorter than `sizes` records.
    private func damagedFiles(_ sizes: [String: Int]) -> [String] {
        sizes.compactMap { file, size in length(of: file) < size ? file : nil }
    }

    /// The pointer files a change belongs in.
    private func files(for entry: AuditEntry) -> [String] {
        var files = entry.locales.map { "locale-\($0).idx" }
        if entry.action == AuditEntry.publishAction { files.append("publish.idx") }
        var regions: Set<String> = []
        for change in entry.planChanges {
            for region in SegmentShares.regionsChanged(from: change.before, to: change.after) {
                regions.insert(Region.assigned.contains(region) ? region : "_other")
            }
        }
        return files + regions.sorted().map { "region-\($0).idx" }
    }

    /// The entry for `commit`, given the plan files that differ from its first parent's.
    private func makeEntry(_ commit: GitCommit, changedPlans: [GitChangedBlob], sequence: Int) throws -> (AuditEntry, [(before: String?, after: String)]) {
        let id = commit.id
        let record = CommitRecord(commit)
        var planChanges: [AuditEntry.PlanChange] = []
        var blobs: [(before: String?, after: String)] = []
        // Plan changes come from the trees, not the trailers, so a commit made behind rollout's back shows too.
        let changed = changedPlans.filter { $0.new != nil && $0.name.hasSuffix(".json") }
        for file in changed.sorted(by: { $0.name.dropLast(5) < $1.name.dropLast(5) }) {
            let locale = String(file.name.dropLast(5))
            let afterBlob = file.new!.hex
            let beforeBlob = file.old?.hex
            guard let afterPlan = loadPlan(afterBlob, building: true) else {
                throw RolloutError.internal("\(StateLayout.plan(locale)) at commit \(id.short) is damaged; check the repository with git fsck")
            }
            let beforePlan = beforeBlob.flatMap { loadPlan($0, building: true) } ?? Plan(locale: locale)
            planChanges.append(AuditEntry.PlanChange(locale: locale, before: beforePlan, after: afterPlan, beforeBlob: beforeBlob, afterBlob: afterBlob))
            blobs.append((beforeBlob, afterBlob))
        }
        var locales = record.locales
        for change in planChanges where !locales.contains(change.locale) { locales.append(change.locale) }
        let entry = AuditEntry(
            sequence: sequence, commit: id.hex, time: record.time, actor: record.actor, action: record.action, summary: record.summary,
            reason: record.reason, locales: locales, packs: record.packs, planChanges: planChanges)
        return (entry, blobs)
    }

    /// What a commit's message and author say about the change: read the same way when indexing and
    /// when confirming what the index returned.
    private struct CommitRecord {
        let summary: String
        let actor: String
        let action: String
        let reason: String?
        let locales: [String]
        let packs: [String]
        let time: Timestamp

        init(_ commit: GitCommit) {
            let trailers = Change.trailers(of: commit.message)
            func values(_ name: String) -> [String] { trailers.filter { $0.name == name }.map(\.value) }
            summary = String(commit.message.prefix { $0 != "\n" })
            actor = values("Actor").first ?? "\(commit.author.name) <\(commit.author.email)>"
            action = values("Action").first ?? "unknown"
            reason = values("Reason").first
            locales = values("Locale")
            packs = values("Pack")
            time = Timestamp(seconds: commit.author.time)
        }
    }

    /// The index format: an index in any other format (or missing its changes file) is rebuilt.
    static let format = "rollout-log-index-4"

    /// `HEAD`: `<format> <tip> <tipSeq> <floor> <floorSeq> <generation>`, then `<file> <length>` for
    /// each index file; nil when missing, in another format, or without the changes file it describes.
    private func readHead() -> Coverage? {
        guard let text = try? String(contentsOfFile: directory + "/HEAD", encoding: .utf8),
            FileManager.default.fileExists(atPath: directory + "/changes.jsonl")
        else { return nil }
        let lines = text.split(separator: "\n")
        guard let first = lines.first else { return nil }
        let parts = first.split(separator: " ")
        guard parts.count == 6, parts[0] == AuditLog.format, parts[1].count == 40, parts[3].count == 40,
            let tipSeq = Int(parts[2]), let floorSeq = Int(parts[4]), floorSeq >= 1, floorSeq <= tipSeq
        else { return nil }
        var coverage = Coverage(generation: String(parts[5]), tip: String(parts[1]), tipSeq: tipSeq, floor: String(parts[3]), floorSeq: floorSeq)
        for line in lines.dropFirst() {
            let item = line.split(separator: " ")
            guard item.count == 2, let size = Int(item[1]) else { return nil }
            coverage.sizes[String(item[0])] = size
        }
        return coverage
    }

    /// One atomic write: what the index covers and the length of every file that holds it.
    private func writeHead(_ coverage: Coverage) throws {
        let files = coverage.sizes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        let first = "\(AuditLog.format) \(coverage.tip) \(coverage.tipSeq) \(coverage.floor) \(coverage.floorSeq) \(coverage.generation)\n"
        try writeIndexFile("HEAD", first + files)
    }

    private func reset() throws {
        do {
            chainBelowFloor = nil
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name != "lock" {
                try FileManager.default.removeItem(atPath: directory + "/" + name)
            }
        } catch {
            throw AuditLog.IndexUnavailable()
        }
    }
}

/// Wall time per phase of bringing the index up to date: how docs/performance.md explains a cold query.
public struct BuildProfile: Sendable {
    public enum Phase: String, CaseIterable, Sendable {
        /// Reading the first-parent chain of commit ids from the tip back to what is indexed.
        case walk
        /// Reading each commit (message, author, tree) and diffing its `plans/` tree with its parent's.
        case commitsAndTrees = "commits and plans/ trees"
        /// Reading trailers, reading and parsing the plan blobs that changed.
        case plans = "trailers and plan blobs"
        /// Working out which regions each plan change altered.
        case segments = "segments altered"
        /// Making the index lines and appending them.
        case writing = "writing the index"
    }

    public var seconds: [Phase: Double] = [:]
    public var commits = 0

    public init() {}

    public var lines: [String] {
        let total = seconds.values.reduce(0, +)
        return ["log index: \(commits) commits indexed in \(String(format: "%.3f", total)) s"]
            + Phase.allCases.map { phase in
                let value = seconds[phase] ?? 0
                return "  \(phase.rawValue): \(String(format: "%.3f", value)) s (\(total > 0 ? Int((100 * value / total).rounded()) : 0)%)"
            }
    }
}

/// A monotonic stopwatch that charges the time since its last lap to a phase.
struct PhaseClock {
    private var last = PhaseClock.now()

    mutating func lap(_ phase: BuildProfile.Phase, into profile: inout BuildProfile?) {
        let now = PhaseClock.now()
        profile?.seconds[phase, default: 0] += now - last
        last = now
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
