import Foundation
import RolloutModel

/// Answering `rollout log`: from the index when it can be used and trusted, each change it returns
/// confirmed against its commit, otherwise by walking the history (docs/audit.md, "The index").
extension AuditLog {
    public struct Query {
        public var segment: (region: String, versions: VersionRange)?
        public var locale: String?
        public var pack: PackID?
        public var since: Timestamp?
        public var until: Timestamp?
        /// nil: every matching change.
        public var limit: Int?
        /// False: the entries come without their plans (`planChanges` empty; under `--segment`,
        /// `segmentChanges` says what was shown). A whole-history answer then holds tens of thousands
        /// of changes in little memory.
        public var keepsPlans = true

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
    /// Objects are read without re-hashing while the query runs, as the index build reads them
    /// (docs/audit.md, "A fresh clone"): the index file is what is checked against the history here, and
    /// git checked the objects when they arrived.
    public func query(_ query: Query) throws -> Result {
        distrusted = []
        var result = try withoutRehashing { try checkedQuery(query) }
        result.warnings = distrusted
        return result
    }

    private func checkedQuery(_ query: Query) throws -> Result {
        do {
            // Each change the index returns is confirmed against its commit as it is collected
            // (`collect`): one that disagrees is damage, and the index is rebuilt.
            return try indexedAnswer(query) ?? walkingQuery(query)
        } catch is IndexUnavailable {
            // A read-only repository (an auditor's mount) or a full disk: the index is only a cache, so
            // walk the history itself, slower but the same answer. A read never fails for want of space.
            return try walkingQuery(query)
        }
    }

    /// The index's answer, rebuilding a damaged index and asking again, at most three times; nil
    /// when no try gave one.
    private func indexedAnswer(_ query: Query) throws -> Result? {
        for _ in 0..<3 {
            do {
                return try indexedQuery(query)
            } catch let damage as IndexDamaged {
                try rebuild(because: damage)
            } catch is IndexStartedOver {
                // Another process threw the index away while this query read it: ask again.
            }
        }
        return nil
    }

    /// The same query without the index: every first-parent commit, newest first.
    func walkingQuery(_ query: Query) throws -> Result {
        let ids = try repository.git.firstParentChain(from: repository.stateTip(), until: nil).ids
        var results = Collector(query: query)
        for (offset, id) in ids.enumerated() {
            var entry: AuditEntry?
            try repository.git.forEachChange([id], in: StateLayout.plansDirectory) { commit, changed in
                entry = try makeEntry(commit, changedPlans: changed(), sequence: ids.count - offset)
            }
            guard var entry, query.matches(&entry) else { continue }
            guard results.add(entry) else { return Result(entries: results.entries, truncated: true) }
        }
        return Result(entries: results.entries, truncated: false)
    }

    /// The entry as its commit says it, or nil when the index disagrees with the commit: the message
    /// fields are re-read from the commit, and each plan change's blobs are checked against the trees
    /// of the commit and its parent (blob ids are content addresses, so the plans follow).
    private func confirmed(_ entry: AuditEntry) throws -> AuditEntry? {
        guard let id = ObjectID(hex: entry.commit) else { return nil }
        let commit = try repository.git.commit(id)
        let record = AuditEntry.CommitRecord(commit)
        guard record.describes(entry) else { return nil }
        if let plans = record.plans {
            // The index was built from this trailer: no tree is read (docs/audit.md, "The Rollout-Plans trailer").
            let said = plans.items.map { [$0.locale, $0.before ?? "", $0.after] }
            return said == entry.planChanges.map { [$0.locale, $0.beforeBlob ?? "", $0.afterBlob] } ? entry : nil
        }
        let parentTree = try commit.parents.first.map { try repository.git.commit($0).tree }
        for change in entry.planChanges {
            let path = StateLayout.plan(change.locale)
            guard try repository.git.treeEntry(commit.tree, path: path)?.id.hex == change.afterBlob,
                try parentTree.flatMap({ try repository.git.treeEntry($0, path: path) })?.id.hex == change.beforeBlob
            else { return nil }
        }
        return entry
    }

    private func indexedQuery(_ query: Query) throws -> Result {
        var coverage = try refreshCoverage()
        // Changes after the tip this query brought the index to are another process's: not this answer's.
        var lastSequence = coverage.tipSeq + 1
        let pointerFiles = query.pointerFiles
        // Every file must be at least as long as the index says it wrote: a deleted or cut file is
        // damage, and the index is rebuilt from the history rather than trusted.
        let checked = (pointerFiles + ["changes.jsonl"]).flatMap { [$0, IndexFamily.later.prefix + $0] }
        try checkLengths(checked, against: coverage.sizes)
        let families = IndexFamily.Files(directory: directory)
        let cursors =
            pointerFiles.isEmpty
            ? [FamilyCursor(families, pointers: nil, sizes: coverage.sizes)]
            : pointerFiles.map { FamilyCursor(families, pointers: $0, sizes: coverage.sizes) }
        var results = Collector(query: query)
        while true {
            guard try collect(from: cursors, below: &lastSequence, floor: coverage.floorSeq, into: &results) else {
                return Result(entries: results.entries, truncated: true)
            }
            // Every indexed change down to the floor is read: older ones are indexed only now, as needed.
            if coverage.complete {
                // HEAD says the floor is the first commit: one read checks it before "no more" is answered.
                let floor = ObjectID(hex: coverage.floor).flatMap { try? repository.git.commit($0) }
                guard floor?.parents.isEmpty == true else { throw IndexDamaged.floorNotFirstCommit(coverage.floor) }
                return Result(entries: results.entries, truncated: false)
            }
            coverage = try growBack(from: coverage, all: query.limit == nil)
            try checkLengths(checked, against: coverage.sizes)
            cursors.forEach { $0.read(upTo: coverage.sizes) }
        }
    }

    private func checkLengths(_ files: [String], against sizes: [String: Int]) throws {
        if let file = shortenedFile(among: files, sizes: sizes) { throw IndexDamaged.shorter(file) }
    }

    /// Reads `cursors` into `results`, newest first: a merge by sequence of what each gives below
    /// `lastSequence` and not below `floor`, each change once. False when the limit stopped it.
    private func collect(
        from cursors: [FamilyCursor], below lastSequence: inout Int, floor: Int, into results: inout Collector
    ) throws -> Bool {
        var heads = cursors.map { $0.next(below: lastSequence, floor: floor) }
        /// The next line of the merge, newest first, each change once.
        func next() -> (sequence: Int, line: Substring)? {
            while let pick = heads.indices.filter({ heads[$0] != nil }).max(by: {
                heads[$0]!.sequence < heads[$1]!.sequence
            }) {
                let (sequence, line) = heads[pick]!
                heads[pick] = cursors[pick].next(below: sequence, floor: floor)
                guard sequence < lastSequence else { continue }
                lastSequence = sequence
                return (sequence, line)
            }
            return nil
        }
        // A question about every change reads its lines a chunk at a time, the plans of the next chunk
        // read on another thread meanwhile (`PlanPrefetch`); a limited one, a line at a time.
        let prefetch =
            results.query.limit == nil ? PlanPrefetch(path: repository.path, strictOnly: strictPlansOnly) : nil
        let size = prefetch == nil ? 1 : max(1, prefetchChunk)
        /// The next lines, each with its members read once (nil: not a change's line).
        func chunk() -> [(sequence: Int, line: Substring, fields: IndexLineFields?)] {
            var lines: [(sequence: Int, line: Substring, fields: IndexLineFields?)] = []
            while lines.count < size, let (sequence, line) = next() {
                lines.append((sequence, line, IndexLineFields.parse(line)))
            }
            return lines
        }
        var lines = chunk()
        var fetching = prefetch?.start(lines.map(\.fields))
        while !lines.isEmpty {
            let following = chunk()
            let upcoming = following.isEmpty ? nil : prefetch?.start(following.map(\.fields))
            let fetched = fetching?.plans() ?? [:]
            for (sequence, line, fields) in lines {
                guard var entry = fields.flatMap({ AuditEntry($0, loadPlan: { fetched[$0] ?? loadPlan($0) }) }),
                    results.query.matches(&entry)
                else { continue }
                // A line this process wrote from its commit moments ago needs no second read of the commit.
                var text = line
                let wroteIt =
                    writtenLines[sequence].map { written in
                        text.withUTF8 { written == AuditLog.digest(UnsafeRawBufferPointer($0)) }
                    } ?? false
                guard wroteIt || (try? confirmed(entry)) != nil else {
                    _ = upcoming?.plans()
                    throw IndexDamaged.entryDisagrees(entry.commit)
                }
                guard results.add(results.query.keepsPlans ? entry : entry.withoutPlans()) else {
                    _ = upcoming?.plans()
                    return false
                }
            }
            (lines, fetching) = (following, upcoming)
        }
        return true
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
            if entry.changeAction == .publish {
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
}

extension AuditLog.Query {
    /// The pointer files that hold every change this query can match (docs/audit.md, "Which file a
    /// query reads"); none: it reads the changes files themselves.
    var pointerFiles: [String] {
        if let segment, segment.region != Region.any {
            return ["region-\(segment.region).idx", "region-_other.idx", "publish.idx"]
        } else if let locale = locale ?? pack?.locale {
            return ["locale-\(locale).idx"]
        }
        return []
    }

    /// Whether the query returns `entry`; under `--segment`, records in it what the segment's
    /// devices receive after each plan change that altered it (`segmentChanges`).
    func matches(_ entry: inout AuditEntry) -> Bool {
        if let since, entry.time < since { return false }
        if let until, entry.time > until { return false }
        if let locale, !entry.locales.contains(locale) { return false }
        if let pack, !entry.packs.contains(pack.description) { return false }
        if let segment {
            if entry.changeAction == .publish { return true }
            let changed = entry.sharesChanged(in: segment.region, versions: segment.versions).filter {
                locale == nil || $0.change.locale == locale
            }
            entry.segmentChanges = changed.map { ($0.change.locale, $0.after) }
            return !changed.isEmpty
        }
        return true
    }
}

extension AuditLog.IndexDamaged {
    fileprivate static func entryDisagrees(_ commit: String) -> Self {
        Self(reason: "its entry for \(commit.prefix(12)) does not match that commit")
    }

    fileprivate static func floorNotFirstCommit(_ floor: String) -> Self {
        Self(reason: "HEAD's oldest indexed commit \(floor.prefix(12)) is not the first commit")
    }

    fileprivate static func shorter(_ file: String) -> Self {
        Self(reason: "\(file) is shorter than the index wrote it")
    }
}
