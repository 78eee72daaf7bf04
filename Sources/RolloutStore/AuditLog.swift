import Foundation
import RolloutModel

/// One recorded change, as the audit log shows it.
public struct AuditEntry: Sendable {
    public struct PlanChange: Sendable {
        public let locale: String
        public let before: Plan
        public let after: Plan
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
    public let planChange: PlanChange?

    /// Whether this change altered what devices in `region` (or "*") on `versions` receive.
    public func affects(region: String, versions: VersionRange) -> Bool {
        guard let change = planChange else { return false }
        return SegmentShares.of(change.before, region: region, versions: versions) != SegmentShares.of(change.after, region: region, versions: versions)
    }

    var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "seq": .integer(sequence), "commit": .string(commit), "time": .integer(Int(time.seconds)), "actor": .string(actor),
            "action": .string(action), "summary": .string(summary), "locales": .array(locales.map { .string($0) }),
            "packs": .array(packs.map { .string($0) }),
        ]
        if let reason { object["reason"] = .string(reason) }
        if let change = planChange {
            object["plan"] = ["locale": .string(change.locale), "before": change.before.targeting.jsonValue, "after": change.after.targeting.jsonValue]
        }
        return .object(object)
    }

    static func parse(_ line: Substring) -> AuditEntry? {
        guard let value = try? StrictJSONParser.parse(Array(line.utf8)), let o = value.objectValue,
            let seq = o["seq"]?.integerValue, let commit = o["commit"]?.stringValue, let time = o["time"]?.integerValue,
            let actor = o["actor"]?.stringValue, let action = o["action"]?.stringValue, let summary = o["summary"]?.stringValue
        else { return nil }
        var change: PlanChange?
        if let plan = o["plan"]?.objectValue, let locale = plan["locale"]?.stringValue, let before = plan["before"], let after = plan["after"] {
            guard let b = try? Plan.parse(before, source: "index"), let a = try? Plan.parse(after, source: "index") else { return nil }
            change = PlanChange(locale: locale, before: b, after: a)
        }
        return AuditEntry(
            sequence: seq, commit: commit, time: Timestamp(seconds: Int64(time)), actor: actor, action: action, summary: summary,
            reason: o["reason"]?.stringValue, locales: o["locales"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            packs: o["packs"]?.arrayValue?.compactMap(\.stringValue) ?? [], planChange: change)
    }
}

/// The audit log: the state ref's first-parent history read as changes, with an index so that
/// "what did TR on 4.8 get" does not mean reading every commit ever made.
///
/// The index lives in `<repository>/rollout/log-index/` and is only a cache: it is derived from the
/// history alone, brought up to date before every query, and rebuilt from scratch when it is missing,
/// damaged, or the history it indexed is no longer the history of the state ref.
/// Files: `all.jsonl` (every change), `locale-<L>.jsonl`, `region-<R>.jsonl` (changes that altered
/// what devices in R get), `region-_other.jsonl` (changes that altered regions no rule names),
/// and `HEAD` (`<commit> <count>`: what is indexed).
public final class AuditLog {
    let repository: PackRepository
    public let directory: String
    static let flushEvery = 2_000

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
    }

    public func query(_ query: Query) throws -> Result {
        let indexed = try refresh()
        var files: [String]
        if let segment = query.segment, segment.region != Region.any {
            files = ["region-\(segment.region).jsonl", "region-_other.jsonl"]
        } else if let locale = query.locale ?? query.pack?.locale {
            files = ["locale-\(locale).jsonl"]
        } else {
            files = ["all.jsonl"]
        }
        let readers = files.map { ReverseLineReader(path: directory + "/" + $0) }
        var heads: [AuditEntry?] = readers.map { next($0, below: indexed + 1) }
        var results: [AuditEntry] = []
        var lastSequence = Int.max
        while true {
            guard let pick = heads.indices.filter({ heads[$0] != nil }).max(by: { heads[$0]!.sequence < heads[$1]!.sequence }) else { break }
            let entry = heads[pick]!
            heads[pick] = next(readers[pick], below: entry.sequence)
            guard entry.sequence < lastSequence else { continue }
            lastSequence = entry.sequence
            guard matches(entry, query) else { continue }
            if let limit = query.limit, results.count == limit { return Result(entries: results, truncated: true) }
            results.append(entry)
        }
        return Result(entries: results, truncated: false)
    }

    /// The next entry of a file, newest first, skipping anything at or above `below` (duplicates
    /// and lines appended by an update that had not finished when this query started).
    private func next(_ reader: ReverseLineReader, below: Int) -> AuditEntry? {
        while let line = reader.next() {
            guard let entry = AuditEntry.parse(line) else { continue }
            if entry.sequence < below { return entry }
        }
        return nil
    }

    private func matches(_ entry: AuditEntry, _ query: Query) -> Bool {
        if let since = query.since, entry.time < since { return false }
        if let until = query.until, entry.time > until { return false }
        if let locale = query.locale, !entry.locales.contains(locale) { return false }
        if let pack = query.pack, !entry.packs.contains(pack.description) { return false }
        if let segment = query.segment {
            if let locale = query.locale, entry.planChange?.locale != locale { return false }
            return entry.affects(region: segment.region, versions: segment.versions)
        }
        return true
    }

    // MARK: indexing

    /// Brings the index up to the tip of the state ref; returns how many changes it holds.
    @discardableResult
    public func refresh() throws -> Int {
        guard let tip = try repository.git.referenceTarget(StateLayout.stateRef) else { return 0 }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let lock = open(directory + "/lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard lock >= 0 else { throw RolloutError.internal("cannot open \(directory)/lock") }
        defer { close(lock) }
        // flock is released by the kernel if this process dies: no stale lock to clean up.
        flock(lock, LOCK_EX)
        defer { flock(lock, LOCK_UN) }

        var (indexedCommit, count) = readHead()
        if indexedCommit == tip.hex { return count }
        // Walk back from the tip to what is indexed; if it is not there, history was rewritten: start over.
        var pending: [ObjectID] = []
        var cursor: ObjectID? = tip
        while let id = cursor, id.hex != indexedCommit {
            pending.append(id)
            cursor = try repository.git.commit(id).parents.first
        }
        if cursor == nil && indexedCommit != nil {
            try reset()
            (indexedCommit, count) = (nil, 0)
        }
        var buffers: [String: [UInt8]] = [:]
        var processed = 0
        for id in pending.reversed() {
            count += 1
            let entry = try makeEntry(id, sequence: count)
            var line = JSONWriter.canonical(entry.jsonValue)
            line.append(0x0A)
            for file in files(for: entry) { buffers[file, default: []].append(contentsOf: line) }
            processed += 1
            if processed % AuditLog.flushEvery == 0 || processed == pending.count {
                try flush(buffers)
                buffers = [:]
                try writeHead(commit: id.hex, count: count)
            }
        }
        return count
    }

    private func files(for entry: AuditEntry) -> [String] {
        var files = ["all.jsonl"] + entry.locales.map { "locale-\($0).jsonl" }
        if let change = entry.planChange {
            var regions: Set<String> = []
            for piece in SegmentShares.changes(from: change.before, to: change.after) {
                regions.insert(Region.assigned.contains(piece.after.regions) ? piece.after.regions : "_other")
            }
            files += regions.sorted().map { "region-\($0).jsonl" }
        }
        return files
    }

    private func makeEntry(_ id: ObjectID, sequence: Int) throws -> AuditEntry {
        let commit = try repository.git.commit(id)
        let trailers = Change.trailers(of: commit.message)
        func values(_ name: String) -> [String] { trailers.filter { $0.name == name }.map(\.value) }
        let locales = values("Locale")
        var planChange: AuditEntry.PlanChange?
        for locale in locales {
            let path = StateLayout.plan(locale)
            let after = try repository.git.treeEntry(commit.tree, path: path)
            let parentTree = try commit.parents.first.map { try repository.git.commit($0).tree }
            let before = try parentTree.flatMap { try repository.git.treeEntry($0, path: path) }
            guard let after, after.id != before?.id else { continue }
            let afterPlan = try Plan.parse(repository.git.readBlob(after.id), source: path)
            let beforePlan = try before.map { try Plan.parse(repository.git.readBlob($0.id), source: path) } ?? Plan(locale: locale)
            planChange = AuditEntry.PlanChange(locale: locale, before: beforePlan, after: afterPlan)
        }
        let summary = commit.message.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return AuditEntry(
            sequence: sequence, commit: id.hex, time: Timestamp(seconds: commit.author.time),
            actor: values("Actor").first ?? "\(commit.author.name) <\(commit.author.email)>",
            action: values("Action").first ?? "unknown", summary: summary, reason: values("Reason").first,
            locales: locales, packs: values("Pack"), planChange: planChange)
    }

    private func readHead() -> (String?, Int) {
        guard let text = try? String(contentsOfFile: directory + "/HEAD", encoding: .utf8) else { return (nil, 0) }
        let parts = text.split(separator: " ")
        guard parts.count == 2, parts[0].count == 40, let count = Int(parts[1].trimmingCharacters(in: .whitespacesAndNewlines)) else { return (nil, 0) }
        return (String(parts[0]), count)
    }

    private func writeHead(commit: String, count: Int) throws {
        try Data("\(commit) \(count)\n".utf8).write(to: URL(fileURLWithPath: directory + "/HEAD"), options: .atomic)
    }

    private func reset() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".jsonl") || name == "HEAD" {
            try FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }

    private func flush(_ buffers: [String: [UInt8]]) throws {
        for (file, bytes) in buffers {
            let path = directory + "/" + file
            let fd = open(path, O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw RolloutError.internal("cannot write \(path)") }
            defer { close(fd) }
            // An update killed mid-line leaves a partial line: start on a fresh one (readers skip the fragment).
            let size = lseek(fd, 0, SEEK_END)
            var prefix: [UInt8] = []
            if size > 0 {
                let reader = open(path, O_RDONLY | O_CLOEXEC)
                var last: UInt8 = 0
                if reader >= 0 {
                    _ = pread(reader, &last, 1, size - 1)
                    close(reader)
                }
                if last != 0x0A { prefix = [0x0A] }
            }
            let data = prefix + bytes
            var written = 0
            while written < data.count {
                let n = data[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { throw RolloutError.internal("cannot write \(path)") }
                written += n
            }
        }
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
