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

    /// The index line: the plan is referenced by its git blob ids, not copied.
    func indexLine(planBlobs: [(before: String?, after: String)]) -> [UInt8] {
        var object: [String: JSONValue] = [
            "seq": .integer(sequence), "commit": .string(commit), "time": .integer(Int(time.seconds)), "actor": .string(actor),
            "action": .string(action), "summary": .string(summary), "locales": .array(locales.map { .string($0) }),
            "packs": .array(packs.map { .string($0) }),
        ]
        if let reason { object["reason"] = .string(reason) }
        if !planChanges.isEmpty {
            object["plans"] = .array(zip(planChanges, planBlobs).map { change, blobs in
                ["locale": .string(change.locale), "before": blobs.before.map { .string($0) } ?? .null, "after": .string(blobs.after)]
            })
        }
        var line = JSONWriter.canonical(.object(object))
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
/// history alone, brought up to date before every query, and rebuilt from scratch when it is missing
/// or the history it indexed is no longer the history of the state ref. Files:
/// - `changes.jsonl`: one line per commit, oldest first (plans referenced by blob id, not copied);
/// - `locale-<L>.idx`: `<seq> <offset>` of each change naming locale L;
/// - `region-<R>.idx`: changes that altered what devices in region R receive;
/// - `region-_other.idx`: changes that altered regions no rule of the plan names;
/// - `HEAD`: `<commit> <count>`, what is indexed.
public final class AuditLog {
    let repository: PackRepository
    public let directory: String
    static let flushEvery = 2_000
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
            let answer: Result
            do {
                answer = try indexedQuery(query)
            } catch let damage as IndexDamaged {
                try rebuild(because: damage.reason)
                answer = try indexedQuery(query)
            }
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
    /// A file of the index is shorter than the index wrote it.
    struct IndexDamaged: Error {
        let reason: String
    }

    /// `sizes`: the length each index file had after the last update.
    private func readSizes() -> [String: Int] {
        guard let text = try? String(contentsOfFile: directory + "/sizes", encoding: .utf8) else { return [:] }
        var sizes: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let size = Int(parts[1]) { sizes[String(parts[0])] = size }
        }
        return sizes
    }

    private func writeSizes(_ sizes: [String: Int]) throws {
        let text = sizes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        try writeIndexFile("sizes", text)
    }

    /// Replaces one small file of the index; any failure makes the index unavailable, not the query.
    private func writeIndexFile(_ name: String, _ text: String) throws {
        do {
            try LocalFile.replace(directory + "/" + name, with: Array(text.utf8), name: directory + "/" + name, mode: 0o644, durable: false)
        } catch {
            throw IndexUnavailable()
        }
    }

    /// The same query without the index: every first-parent commit, newest first.
    private func walkingQuery(_ query: Query) throws -> Result {
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
        let indexed = try refresh()
        let changes = ChangesFile(path: directory + "/changes.jsonl")
        var cursors: [IndexCursor]
        var pointerFiles: [String] = []
        if let segment = query.segment, segment.region != Region.any {
            pointerFiles = ["region-\(segment.region).idx", "region-_other.idx", "publish.idx"]
        } else if let locale = query.locale ?? query.pack?.locale {
            pointerFiles = ["locale-\(locale).idx"]
        }
        if pointerFiles.isEmpty {
            cursors = [IndexCursor(changes: changes)]
        } else {
            // Every file must be at least as long as the index says it wrote: a deleted or cut file is
            // damage, and the index is rebuilt from the history rather than trusted.
            let expected = readSizes()
            for file in pointerFiles + ["changes.jsonl"] {
                let actual = ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + file))?[.size] as? Int) ?? 0
                if actual < expected[file] ?? 0 { throw IndexDamaged(reason: "\(file) is shorter than the index wrote it") }
            }
            cursors = pointerFiles.map { IndexCursor(pointers: directory + "/" + $0, changes: changes) }
        }
        var heads: [(sequence: Int, line: Substring)?] = cursors.map { $0.next(below: indexed + 1) }
        var results = Collector(query: query)
        var lastSequence = Int.max
        while let pick = heads.indices.filter({ heads[$0] != nil }).max(by: { heads[$0]!.sequence < heads[$1]!.sequence }) {
            let (sequence, line) = heads[pick]!
            heads[pick] = cursors[pick].next(below: sequence)
            guard sequence < lastSequence else { continue }
            lastSequence = sequence
            guard let entry = AuditEntry.parse(line, loadPlan: loadPlan), matches(entry, query) else { continue }
            guard results.add(entry) else { return Result(entries: results.entries, truncated: true) }
        }
        return Result(entries: results.entries, truncated: false)
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

    private func loadPlan(_ blob: String) -> Plan? {
        if let cached = planCache[blob] { return cached }
        guard let id = ObjectID(hex: blob), let bytes = try? repository.git.readBlob(id), let plan = try? Plan.parse(bytes, source: blob) else {
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

    /// Brings the index up to the tip of the state ref; returns how many changes it holds.
    @discardableResult
    public func refresh() throws -> Int {
        let tip = try repository.stateTip()
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

        var (indexedCommit, count) = readHead()
        if indexedCommit == tip.hex { return count }
        // A file shorter than recorded (deleted or cut) would otherwise be recreated holding only the
        // new changes: start over instead.
        let damaged = readSizes().contains { file, size in
            (((try? FileManager.default.attributesOfItem(atPath: directory + "/" + file))?[.size] as? Int) ?? 0) < size
        }
        if damaged {
            distrusted.append(AuditLog.notTrusted("a file is shorter than the index wrote it"))
            (indexedCommit, count) = (nil, 0)
        }
        // Walk back from the tip to what is indexed; if it is not there, history was rewritten: start over.
        var clock = profile.map { _ in PhaseClock() }
        let chain = try repository.git.withoutRehashingObjects {
            try repository.git.firstParentChain(from: tip, until: indexedCommit.flatMap { ObjectID(hex: $0) })
        }
        clock?.lap(.walk, into: &profile)
        if !chain.reachedStop {
            // Nothing usable indexed (none yet, another format, a damaged file) or a rewritten history.
            // A commit this repository has never had means an index made for another history: say so.
            // One it has (the branch was reset or replayed by sync) is an ordinary start-over.
            if let indexedCommit, ObjectID(hex: indexedCommit).flatMap({ try? repository.git.commit($0) }) == nil {
                distrusted.append(AuditLog.notTrusted("it indexes commit \(indexedCommit.prefix(12)), which this repository does not have"))
            }
            try reset()
            count = 0
        }
        let pending = Array(chain.ids.reversed())
        var batch = Batch()
        var position = 0
        // Objects are not re-hashed while the history is read: git log does not either (docs/audit.md).
        try repository.git.withoutRehashingObjects {
            try repository.git.forEachChange(pending, in: StateLayout.plansDirectory) { commit, changed in
                clock?.lap(.commitsAndTrees, into: &profile)
                count += 1
                position += 1
                let (entry, blobs) = try makeEntry(commit, changedPlans: changed, sequence: count)
                clock?.lap(.plans, into: &profile)
                let pointers = files(for: entry)
                clock?.lap(.segments, into: &profile)
                batch.add(entry.indexLine(planBlobs: blobs), sequence: count, pointers: pointers)
                if position % AuditLog.flushEvery == 0 || position == pending.count {
                    var sizes = readSizes()
                    for (file, size) in try batch.flush(to: directory) { sizes[file] = size }
                    try writeSizes(sizes)
                    batch = Batch()
                    try writeHead(commit: commit.id.hex, count: count)
                }
                clock?.lap(.writing, into: &profile)
            }
        }
        profile?.commits += pending.count
        return count
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
            guard let afterPlan = loadPlan(afterBlob) else {
                throw RolloutError.internal("\(StateLayout.plan(locale)) at commit \(id.short) is damaged; check the repository with git fsck")
            }
            let beforePlan = beforeBlob.flatMap(loadPlan) ?? Plan(locale: locale)
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
    static let format = "rollout-log-index-2"

    private func readHead() -> (String?, Int) {
        guard let text = try? String(contentsOfFile: directory + "/HEAD", encoding: .utf8),
            FileManager.default.fileExists(atPath: directory + "/changes.jsonl")
        else { return (nil, 0) }
        let parts = text.split(separator: " ")
        guard parts.count == 3, parts[0] == AuditLog.format, parts[1].count == 40,
            let count = Int(parts[2].trimmingCharacters(in: .whitespacesAndNewlines))
        else { return (nil, 0) }
        return (String(parts[1]), count)
    }

    private func writeHead(commit: String, count: Int) throws {
        try writeIndexFile("HEAD", "\(AuditLog.format) \(commit) \(count)\n")
    }

    private func reset() throws {
        do {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name != "lock" {
                try FileManager.default.removeItem(atPath: directory + "/" + name)
            }
        } catch {
            throw AuditLog.IndexUnavailable()
        }
    }
}

/// Index lines waiting to be appended: the change lines, and for each pointer file its `<seq> <n>`
/// lines, where n is the change's position in this batch until `flush` turns it into a byte offset.
private struct Batch {
    var changes: [UInt8] = []
    var lineStarts: [Int] = []
    var pointers: [String: [(sequence: Int, line: Int)]] = [:]

    mutating func add(_ line: [UInt8], sequence: Int, pointers files: [String]) {
        lineStarts.append(changes.count)
        changes.append(contentsOf: line)
        for file in files { pointers[file, default: []].append((sequence, lineStarts.count - 1)) }
    }

    /// Appends everything; returns each file's length afterwards.
    func flush(to directory: String) throws -> [String: Int] {
        guard !changes.isEmpty else { return [:] }
        var sizes: [String: Int] = [:]
        let base = try append(changes, to: directory + "/changes.jsonl")
        sizes["changes.jsonl"] = base + changes.count
        for (file, items) in pointers {
            var text = ""
            for item in items { text += "\(item.sequence) \(base + lineStarts[item.line])\n" }
            let bytes = Array(text.utf8)
            sizes[file] = try append(bytes, to: directory + "/" + file) + bytes.count
        }
        return sizes
    }

    /// Appends, first finishing any line a killed update left half-written; returns where `bytes` start.
    /// A write that fails (a full disk) cuts the file back to where it was and makes the index
    /// unavailable for this query.
    private func append(_ bytes: [UInt8], to path: String) throws -> Int {
        let fd = open(path, O_CREAT | O_RDWR | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AuditLog.IndexUnavailable() }
        defer { close(fd) }
        let original = Int(lseek(fd, 0, SEEK_END))
        var size = original
        var data = bytes
        if size > 0 {
            var last: UInt8 = 0
            _ = pread(fd, &last, 1, off_t(size - 1))
            if last != 0x0A {
                data.insert(0x0A, at: 0)
                size += 1
            }
        }
        var written = 0
        while written < data.count {
            let n = data[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                _ = ftruncate(fd, off_t(original))
                throw AuditLog.IndexUnavailable()
            }
            written += n
        }
        return size
    }
}

/// Random access to `changes.jsonl` by byte offset.
final class ChangesFile {
    let path: String
    private let fd: Int32

    init(path: String) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// The line starting at `offset`, or nil past the end.
    func line(at offset: Int) -> Substring? {
        guard fd >= 0 else { return nil }
        var bytes: [UInt8] = []
        var position = offset
        while true {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 4096, off_t(position)) }
            guard n > 0 else { break }
            if let newline = chunk[..<n].firstIndex(of: 0x0A) {
                bytes += chunk[..<newline]
                break
            }
            bytes += chunk[..<n]
            position += n
        }
        return bytes.isEmpty ? nil : Substring(String(decoding: bytes, as: UTF8.self))
    }
}

/// Walks one index newest first: a pointer file (`<seq> <offset>` lines), or changes.jsonl itself.
final class IndexCursor {
    private let reader: ReverseLineReader
    private let changes: ChangesFile
    private let direct: Bool

    init(pointers path: String, changes: ChangesFile) {
        reader = ReverseLineReader(path: path)
        self.changes = changes
        direct = false
    }

    init(changes: ChangesFile) {
        reader = ReverseLineReader(path: changes.path)
        self.changes = changes
        direct = true
    }

    /// The next change below `below` (skipping duplicates and anything newer than the query's start).
    func next(below: Int) -> (sequence: Int, line: Substring)? {
        while let line = reader.next() {
            if direct {
                guard let sequence = IndexCursor.sequence(of: line), sequence < below else { continue }
                return (sequence, line)
            }
            let parts = line.split(separator: " ")
            guard parts.count == 2, let sequence = Int(parts[0]), let offset = Int(parts[1]), sequence < below,
                let change = changes.line(at: offset), IndexCursor.sequence(of: change) == sequence
            else { continue }
            return (sequence, change)
        }
        return nil
    }

    /// The `seq` of a change line, read without parsing the whole line (canonical JSON puts it last
    /// among the short members; a full parse follows for the lines that are used).
    static func sequence(of line: Substring) -> Int? {
        guard let range = line.range(of: "\"seq\":") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }
}

/// Reads a file's lines from the last to the first, a block at a time.
final class ReverseLineReader {
    private var fd: Int32
    private var offset: Int
    private var pending: [UInt8] = []
    private static let block = 64 * 1024

    init(path: String) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        offset = fd >= 0 ? Int(lseek(fd, 0, SEEK_END)) : 0
    }

    deinit { if fd >= 0 { close(fd) } }

    func next() -> Substring? {
        while true {
            if let newline = pending.lastIndex(of: 0x0A) {
                let line = pending[(newline + 1)...]
                defer { pending.removeSubrange(newline...) }
                if line.isEmpty { continue }
                return Substring(String(decoding: line, as: UTF8.self))
            }
            guard offset > 0 else {
                defer { pending = [] }
                return pending.isEmpty ? nil : Substring(String(decoding: pending, as: UTF8.self))
            }
            let size = min(ReverseLineReader.block, offset)
            offset -= size
            var chunk = [UInt8](repeating: 0, count: size)
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, size, off_t(offset)) }
            chunk.removeSubrange(max(0, n)...)
            pending = chunk + pending
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
