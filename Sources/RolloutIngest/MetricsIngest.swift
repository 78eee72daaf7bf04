import Foundation
import RolloutCrypto
import RolloutModel
import RolloutStore

/// `rollout metrics ingest`: one CSV file, streamed once, validated row by row, summed into rollups,
/// and committed with its provenance, all or nothing (docs/metrics.md).
public enum MetricsIngest {
    public struct Request {
        public let path: String
        /// The name recorded in provenance and messages (as given on the command line).
        public let name: String
        public let kind: MetricKind
        /// Canonical column name -> the file's column name (`--map lookups=string_reads`).
        public let mapping: [String: String]
        public let skipInvalid: Bool
        /// Called with the bytes read so far, after each chunk (for a progress line).
        public let progress: (Int) -> Void
        /// Bytes for summing groups in memory before sorted runs spill to `temporaryDirectory`.
        public internal(set) var memory: Int
        public let temporaryDirectory: String
        /// Called with one line per phase (time, groups, spilled runs), when set.
        public let profile: ((String) -> Void)?
        /// The clock the date window is checked against (docs/metrics.md, "The date window").
        public let now: Timestamp
        /// How far gzip data may expand (docs/metrics.md, "Gzip input").
        public let gzipLimits: GzipLimits
        /// Whether this reading reports the rows that belong to no metric (a short row, a metric
        /// field that is no metric name). A file read as several outcome kinds reports them once,
        /// in its first kind; the others leave them out as rows not theirs.
        var reportsRowsOfNoMetric = true

        public init(
            path: String, name: String, kind: MetricKind, mapping: [String: String], skipInvalid: Bool,
            progress: @escaping (Int) -> Void = { _ in },
            memory: Int? = nil, temporaryDirectory: String = "/tmp", profile: ((String) -> Void)? = nil,
            now: Timestamp? = nil, gzipLimits: GzipLimits = .default
        ) {
            self.now = now ?? Timestamp(seconds: Int64(Date().timeIntervalSince1970))
            self.gzipLimits = gzipLimits
            self.path = path
            self.name = name
            self.kind = kind
            self.mapping = mapping
            self.skipInvalid = skipInvalid
            self.progress = progress
            self.memory = memory ?? GroupSums.defaultMemory
            self.temporaryDirectory = temporaryDirectory
            self.profile = profile
        }
    }

    /// What one file holds, after reading and validating it (nothing written yet).
    public struct Reading {
        public let kind: MetricKind
        public let digest: String
        public let bytes: Int
        public let rows: Int
        public let badRows: [(line: Int, message: String)]
        public let badRowCount: Int
        /// Rows from tester devices, left out (the `tester` column).
        public let testerRows: Int
        /// Rows of other metrics, left out (an outcome kind reads the rows of its own metric).
        public let otherMetricRows: Int
        /// The metrics of those rows.
        public let otherMetrics: [String]
        /// The rows of the kind's metric, for an outcome kind.
        let metricRows: Int
        let sums: GroupedSums
        /// Each pack's total in this file.
        let packTotals: [PackID: Int]
        /// The commit whose stored totals the counts were checked against.
        let checkedAgainst: ObjectID?

        public var locales: [String] { sums.locales }
        public var days: [Int] { sums.days }
    }

    public struct Outcome {
        /// The kind the file was read as.
        public var kind: MetricKind { reading.kind }
        public let reading: Reading
        /// Set when the same file (same digest) was ingested before: nothing was written.
        public let alreadyIngested: Provenance?
        public let rollupsWritten: Int
    }

    public struct Provenance {
        public let digest: String
        public let file: String
        public let kind: String
        public let rows: Int
        public let actor: String
        public let time: String
    }

    static let shownBadRows = 20

    /// The most keys (pack x region x app version) one rollup file may hold, stored and new
    /// together. A rollup is read whole by ingest, health, report and guard; at about 0.8 KB per
    /// key while built, 65,536 keys peak at about 82 MiB, under the 100 MB every reader keeps to
    /// (docs/metrics.md, "Streaming and memory").
    public static let rollupKeyLimit = 65_536

    /// Streams and validates the file against the packs `snapshot` holds.
    public static func read(_ request: Request, snapshot: Snapshot) throws -> Reading {
        let timer = PhaseTimer(request.profile)
        let hasher = SHA256Hasher()
        var rows = try RowReader(request: request, snapshot: snapshot)
        var seen = 0
        let byteCount = try reading(request.name) {
            try CSVReader.read(path: request.path, gzipLimits: request.gzipLimits, sink: &rows) { chunk in
                hasher.update(chunk)
                seen += chunk.count
                request.progress(seen)
            }
        }
        guard rows.columns != nil else { throw RolloutError.emptyMetricsFile(request.name) }
        timer.lap("read \(byteCount) bytes, \(rows.rows) rows, \(rows.sums.statistics.runs) runs spilled")
        let sums = try rows.sums.finish(values: rows.values)
        let work = rows.sums.statistics
        timer.lap(
            "sorted \(sums.count) groups in \(sums.groups.count) rollups; \(work.runs) runs spilled (\(work.spilledEntries) entries), "
                + "\(work.mergePasses) merge passes")
        var packTotals: [PackID: Int] = [:]
        for (pack, total) in zip(rows.values.packs, rows.packAdded) where total > 0 { packTotals[pack] = total }
        return Reading(
            kind: request.kind, digest: "sha256:" + Hex.encode(hasher.finalize()), bytes: byteCount, rows: rows.rows,
            badRows: rows.bad,
            badRowCount: rows.badCount, testerRows: rows.testerRows, otherMetricRows: rows.otherMetricRows,
            otherMetrics: rows.otherMetrics.sorted(), metricRows: rows.metricRows,
            sums: sums, packTotals: packTotals, checkedAgainst: snapshot.commit)
    }

    /// The refusals of what one file's readings hold, as one: its invalid rows, every kind's together
    /// in the order of their lines, each once (unless `--skip-invalid`); then a kind whose metric has
    /// no row. A user who fixes the rows named runs the command once more, not once per kind.
    static func refuseInvalidRows(_ readings: [Reading], of requests: [Request]) throws {
        let request = requests[0]
        let count = readings.reduce(0) { $0 + $1.badRowCount }
        if count > 0 && !request.skipInvalid {
            let shown = readings.flatMap(\.badRows).sorted { $0.line < $1.line }.prefix(shownBadRows)
            throw IngestRefusal.invalidRows(
                file: request.name, shown: shown.map { .init(line: $0.line, message: $0.message) }, count: count,
                rows: readings[0].rows)
        }
        for reading in readings {
            if let metric = reading.kind.metric, reading.metricRows == 0 {
                throw KindRefused(
                    kind: reading.kind,
                    error: IngestRefusal.noRowsOfMetric(
                        file: request.name, metric: metric, others: reading.otherMetrics))
            }
        }
    }

    /// `body`, which streams the file `name`, with the reader's failures worded.
    static func reading<T>(_ name: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as CSVReader.Failure {
            throw RolloutError.badInput("\(name):\(failure.line): \(failure.message)")
        } catch let failure as GzipReader.Failure {
            throw RolloutError.badInput("\(name): \(failure.message); nothing was ingested")
        } catch GzipReader.Overflow.text(let text, let limit) {
            throw IngestRefusal.gzipTextOverLimit(file: name, text: text, limit: limit)
        } catch GzipReader.Overflow.ratio(let text, let consumed, let limit) {
            throw IngestRefusal.gzipRatioOverLimit(file: name, text: text, consumed: consumed, limit: limit)
        }
    }

    struct PackProblem: Error {
        let message: String
    }

    /// The pack column (and the locale column, if any) of a row, checked.
    static func resolvePack(_ packText: String, localeText: String?) -> Result<
        (locale: String, version: Int), PackProblem
    > {
        if packText.contains("@") {
            guard let id = try? PackID.parse(packText) else {
                return .failure(PackProblem(message: "pack \"\(packText)\" is not LOCALE@VERSION"))
            }
            if let localeText, !localeText.isEmpty, localeText != id.locale {
                return .failure(PackProblem(message: "pack \(packText) is not a \(localeText) pack"))
            }
            return .success((id.locale, id.contentVersion))
        }
        guard let localeText, !localeText.isEmpty else {
            return .failure(
                PackProblem(
                    message:
                        "pack \"\(packText)\" is a bare content version; it needs the locale column (or write it as tr-TR@18)"
                ))
        }
        guard let v = Int(packText), v >= 1 else {
            return .failure(
                PackProblem(message: "pack \"\(packText)\" is neither LOCALE@VERSION nor a content version"))
        }
        guard (try? LocaleTag.parse(localeText)) != nil else {
            return .failure(PackProblem(message: "locale \"\(localeText)\" is not a BCP 47 locale such as tr-TR"))
        }
        return .success((localeText, v))
    }

    /// "2026-11-28" as days since the epoch.
    static func parseDay(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        // Dates run from 0001-01-01 (docs/metrics.md): there is no year 0.
        guard bytes[0..<4].contains(where: { $0 != UInt8(ascii: "0") }) else { return nil }
        return Timestamp(iso8601: String(decoding: bytes, as: UTF8.self)).map { Int($0.seconds / 86_400) }
    }

    /// Why a date field is not a date: shaped as one, the day it names does not exist (2025-02-29,
    /// 2026-13-01); otherwise (year 0000 too) it is not YYYY-MM-DD.
    static func notADate(_ text: String) -> String {
        let quoted = "date \"\(text)\""
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.isDecimalDigits }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return "\(quoted) is not YYYY-MM-DD" }
        guard year > 0 else { return "\(quoted) is not YYYY-MM-DD" }
        guard (1...12).contains(month) else { return "\(quoted) does not exist: there is no month \(parts[1])" }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let length = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        let names = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ]
        guard day >= 1 && day <= length else {
            return "\(quoted) does not exist: \(names[month - 1]) \(parts[0]) has \(length) days"
        }
        return "\(quoted) is not YYYY-MM-DD"
    }

    /// "2026-11-28" for a day since the epoch.
    static func dateText(_ day: Int) -> String {
        String(Timestamp(seconds: Int64(day) * 86_400).description.prefix(10))
    }

    /// A date outside the policy's window (`MetricDateWindow`), with the window and where it is set.
    static func outsideWindow(_ day: Int, accepted: ClosedRange<Int>, today: Int, window: MetricDateWindow) -> String {
        if day > accepted.upperBound {
            return "date \(dateText(day)) is after \(dateText(accepted.upperBound)), the latest the policy accepts "
                + "(today \(dateText(today)) + gates.dates.daysAhead \(window.daysAhead)): counts cannot be from the future; "
                + "check the export's dates and the clock (ROLLOUT_NOW) of this ingest"
        }
        return "date \(dateText(day)) is before \(dateText(accepted.lowerBound)), the earliest the policy accepts "
            + "(today \(dateText(today)) - gates.dates.daysBefore \(window.daysBefore)); "
            + "check the export's dates, or widen gates.dates.daysBefore with rollout policy set for an old backfill"
    }

    /// A whole number of at most 12 digits; spaces around it are tolerated, inside it they are not
    /// ("1 0 0" is not 100).
    @inline(__always)
    static func parseCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var start = 0
        var end = bytes.count
        while start < end && bytes[start] == 0x20 { start &+= 1 }
        while end > start && bytes[end &- 1] == 0x20 { end &-= 1 }
        guard end > start && end &- start <= 12 else { return nil }
        var value = 0
        for i in start..<end {
            let digit = bytes[i] &- 0x30
            guard digit <= 9 else { return nil }
            value = value &* 10 &+ Int(digit)
        }
        return value
    }

    /// Reads `request`'s file and commits its rollups and provenance; the same file twice is a no-op.
    public static func ingest(
        _ request: Request, into repository: PackRepository, actor: Actor, time: @escaping () -> Timestamp
    ) throws -> Outcome {
        do {
            return try ingest([request], into: repository, actor: actor, time: time)[0]
        } catch let refused as KindRefused {
            throw refused.error
        }
    }

    /// One kind of a file read as several refused it (an overlap, a bad row): nothing was ingested
    /// for any of them.
    public struct KindRefused: Error {
        public let kind: MetricKind
        public let error: any Error
    }

    /// Reads one file as each of several kinds (`--kind outcome`: one outcome kind per metric it
    /// names), and commits what each adds in ONE commit, with one provenance record per kind: all
    /// kinds or none. Each kind is read and checked (overlaps, ranges) before anything is written;
    /// a refusal is a `KindRefused` naming the kind. A kind whose counts the repository already
    /// holds (the same file, ingested before as that kind) is left as it is, as a single ingest does.
    public static func ingest(
        _ requests: [Request], into repository: PackRepository, actor: Actor, time: @escaping () -> Timestamp
    ) throws -> [Outcome] {
        precondition(!requests.isEmpty && Set(requests.map(\.path)).count == 1, "one file, read as several kinds")
        // Every kind's sums are held until the commit: they share the one budget, each kind's table a
        // part of it (past its part, a kind spills to disk as a single kind does past the whole), so
        // the memory of `--kind outcome` does not grow with the number of metrics.
        let requests = requests.enumerated().map { index, request in
            var request = request
            request.memory = request.memory / requests.count
            request.reportsRowsOfNoMetric = index == 0
            return request
        }
        let first = try repository.snapshotForChange()
        let readings = try requests.map { request in try refusedAs(request.kind) { try read(request, snapshot: first) }
        }
        try refuseInvalidRows(readings, of: requests)
        let applied = try repository.apply(actor: actor, time: time) { snapshot in
            var outcomes: [Outcome?] = Array(repeating: nil, count: requests.count)
            var landing: [(index: Int, generation: Int)] = []
            for (index, (request, reading)) in zip(requests, readings).enumerated() {
                switch try refusedAs(request.kind, { try check(request, reading, snapshot: snapshot) }) {
                case .done(let outcome): outcomes[index] = outcome
                case .lands(let generation): landing.append((index, generation))
                }
            }
            guard !landing.isEmpty else { return (nil, outcomes.map { $0! }) }
            // Then one rollup file at a time, its blob written at once, so that memory holds one
            // rollup, not all of them; every kind's into one new pack.
            let pack = snapshot.blobPack()
            var blobs: [(path: String, blob: ObjectID)] = []
            var writes: [(path: String, bytes: [UInt8])] = []
            for (index, generation) in landing {
                let (request, reading) = (requests[index], readings[index])
                let timer = PhaseTimer(request.profile)
                let written = try writeRollups(reading, kind: request.kind, snapshot: snapshot, into: pack)
                timer.lap("built and wrote \(written.count) rollups")
                blobs += written
                writes.append(
                    (
                        MetricsLayout.provenance(reading.digest, kind: request.kind, generation: generation),
                        JSONWriter.pretty(provenanceRecord(reading, request: request, actor: actor, time: time()))
                    ))
                outcomes[index] = Outcome(reading: reading, alreadyIngested: nil, rollupsWritten: written.count)
            }
            try pack.finish()
            let landed = landing.map {
                (request: requests[$0.index], reading: readings[$0.index], generation: $0.generation)
            }
            let change = Change(
                summary: summary(landed.map(\.request), rows: landed[0].reading.rows),
                trailers: trailers(landed), writes: writes, blobs: blobs)
            return (change, outcomes.map { $0! })
        }
        return applied.result
    }

    /// What one kind of a file does, checked against `snapshot`: nothing (`done`: ingested before,
    /// or no data rows), or it lands as the `generation`-th ingest of the file as its kind.
    enum Check {
        case done(Outcome)
        case lands(generation: Int)
    }

    /// One kind's checks before anything is written: ingested before, short digests, the range,
    /// and every overlap with what is stored, so that a refused file writes nothing at all.
    static func check(_ request: Request, _ reading: Reading, snapshot: Snapshot) throws -> Check {
        let history = try MetricsLayout.history(reading.digest, kind: request.kind, in: snapshot)
        if let earlier = try earlierIngest(reading, kind: request.kind, history: history, snapshot: snapshot) {
            return .done(Outcome(reading: reading, alreadyIngested: earlier, rollupsWritten: 0))
        }
        try checkShortDigest(reading, kind: request.kind, name: request.name, snapshot: snapshot)
        if snapshot.commit != reading.checkedAgainst {
            try checkRange(reading, kind: request.kind, name: request.name, snapshot: snapshot)
        }
        if reading.sums.count == 0 { return .done(Outcome(reading: reading, alreadyIngested: nil, rollupsWritten: 0)) }
        let timer = PhaseTimer(request.profile)
        try checkOverlaps(reading, request: request, snapshot: snapshot)
        timer.lap("checked \(reading.sums.groups.count) rollups for overlaps")
        return .lands(generation: history.ingests + 1)
    }

    /// `body`, whose refusal, when it reads a file as one of several kinds, names that kind.
    private static func refusedAs<T>(_ kind: MetricKind, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error where !(error is KindRefused) {
            throw KindRefused(kind: kind, error: error)
        }
    }

    /// The commit's summary: `metrics ingest KIND FILE (N rows)`, the kinds listed when several.
    static func summary(_ requests: [Request], rows: Int) -> String {
        "metrics ingest \(requests.map(\.kind.rawValue).joined(separator: ", ")) \(requests[0].name) (\(rows) rows)"
    }

    /// The stored provenance of the ingest of this same file, when it is still counted: the new
    /// ingest is then a no-op.
    static func earlierIngest(_ reading: Reading, kind: MetricKind, history: MetricsLayout.History, snapshot: Snapshot)
        throws -> Provenance?
    {
        guard history.isActive,
            let bytes = try snapshot.file(
                MetricsLayout.provenance(reading.digest, kind: kind, generation: history.ingests)),
            let o = (try? StrictJSONParser.parse(bytes))?.objectValue
        else { return nil }
        return Provenance(
            digest: reading.digest, file: o["file"]?.stringValue ?? "?", kind: o["kind"]?.stringValue ?? "?",
            rows: o["rows"]?.integerValue ?? 0, actor: o["actor"]?.stringValue ?? "?",
            time: o["time"]?.stringValue ?? "?")
    }

    /// Refuses the file, before anything is written, when a rollup would grow past its limit or when
    /// any of its counts is already stored (counts are never added twice).
    static func checkOverlaps(_ reading: Reading, request: Request, snapshot: Snapshot) throws {
        let groups = reading.sums.groups
        var overlaps: [String] = []
        var overlapCount = 0
        for group in groups {
            try checkRollupSize(stored: 0, group: group, kind: request.kind, name: request.name)
        }
        for group in groups {
            let path = MetricsLayout.rollup(request.kind, locale: group.locale, day: group.day)
            guard let bytes = try snapshot.file(path) else { continue }
            let stored = try MetricRollup.parse(bytes, source: path)
            try checkRollupSize(stored: stored.counts.count, group: group, kind: request.kind, name: request.name)
            try reading.sums.forEach(in: group) { key, _ in
                guard stored.counts[key] != nil else { return }
                overlapCount += 1
                if overlaps.count < 10 {
                    overlaps.append(
                        "  \(stored.date) \(group.locale)@\(key.contentVersion) \(key.region) \(key.appVersion): "
                            + "already ingested from sha256:\(stored.sources[key] ?? "?")…")
                }
            }
        }
        if !overlaps.isEmpty { throw RolloutError.overlappingRows(request.name, count: overlapCount, shown: overlaps) }
    }

    /// Adds the file's counts to each rollup, writing each rollup's blob as soon as it is built, all
    /// into one new pack (`BlobPackWriter`; the caller finishes it). A date with nothing stored yet, the usual case, is
    /// written straight from the sorted sums (`RollupKeyTexts`); one with stored counts is read,
    /// merged and written through `MetricRollup.storedBytes`, the same bytes for the same counts.
    static func writeRollups(_ reading: Reading, kind: MetricKind, snapshot: Snapshot, into pack: BlobPackWriter)
        throws -> [(path: String, blob: ObjectID)]
    {
        let short = String(reading.digest.dropFirst(7).prefix(12))
        let texts = RollupKeyTexts(reading.sums.values)
        var blobs: [(path: String, blob: ObjectID)] = []
        for group in reading.sums.groups {
            let path = MetricsLayout.rollup(kind, locale: group.locale, day: group.day)
            let bytes: [UInt8]
            if let stored = try snapshot.file(path) {
                var rollup = try MetricRollup.parse(stored, source: path)
                try reading.sums.forEach(in: group) { key, counts in
                    rollup.counts[key] = counts
                    rollup.sources[key] = short
                }
                bytes = rollup.storedBytes
            } else {
                bytes = try texts.rollup(group, of: reading.sums, kind: kind, source: short)
            }
            blobs.append((path, try pack.add(bytes)))
        }
        return blobs
    }

    /// The provenance record: what was ingested, from which file, by whom and when.
    static func provenanceRecord(_ reading: Reading, request: Request, actor: Actor, time now: Timestamp) -> JSONValue {
        [
            "digest": .string(reading.digest), "file": .string(request.name), "kind": .string(request.kind.rawValue),
            "rows": .integer(reading.rows), "skippedRows": .integer(reading.badRowCount),
            "bytes": .integer(reading.bytes),
            "locales": .array(reading.locales.map { .string($0) }),
            "dates": .array(
                reading.days.map { .string(String(Timestamp(seconds: Int64($0) * 86_400).description.prefix(10))) }),
            "actor": .string(actor.description), "time": .string(now.description),
        ]
    }

    /// The commit's trailers (docs/metrics.md, "The commit and its trailers"): the locales of every
    /// kind, each kind, the file; `generation` is recorded from the second ingest of a file on, after
    /// a retraction (when several kinds land together, the one they share, if they do: each record's
    /// name says its own).
    static func trailers(_ landed: [(request: Request, reading: Reading, generation: Int)]) -> [(
        name: Trailer, value: String
    )] {
        let (request, reading) = (landed[0].request, landed[0].reading)
        var trailers: [(name: Trailer, value: String)] = [(.action, ChangeAction.metricsIngest.rawValue)]
        for locale in Set(landed.flatMap(\.reading.locales)).sorted() { trailers.append((.locale, locale)) }
        for kind in landed.map(\.request.kind) { trailers.append((.metricsKind, kind.rawValue)) }
        trailers += [(.metricsFile, request.name), (.metricsDigest, reading.digest), (.metricsRows, "\(reading.rows)")]
        let generations = Set(landed.map(\.generation))
        if generations.count == 1, let generation = generations.first, generation > 1 {
            trailers.append((.metricsGeneration, "\(generation)"))
        }
        return trailers
    }

    /// Refuses a file that would make one rollup hold more than `rollupKeyLimit` keys. The keys
    /// are counted as stored + new: a key in both is an overlap, refused anyway.
    static func checkRollupSize(stored: Int, group: GroupedSums.Group, kind: MetricKind, name: String) throws {
        guard stored + group.count > rollupKeyLimit else { return }
        let date = Timestamp(seconds: Int64(group.day) * 86_400).description.prefix(10)
        throw RolloutError.rollupTooLarge(name, kind: kind, group: group, date: date, stored: stored)
    }

    /// A rollup entry names its file by the first 12 hex digits of its digest, and a retraction
    /// removes the entries that name it: so no two ingested files of one kind may share those digits
    /// (a chance of one in 2^48 per pair, refused rather than assumed away).
    static func checkShortDigest(_ reading: Reading, kind: MetricKind, name: String, snapshot: Snapshot) throws {
        let short = String(reading.digest.dropFirst(7).prefix(12))
        if let other = try MetricsLayout.ingestedDigests(startingWith: short, in: snapshot).first(where: {
            $0.kind == kind && $0.digest != reading.digest
        }) {
            throw RolloutError.shortDigestClash(name, reading.digest, other.digest)
        }
    }

    /// The file was checked against an older commit: check its packs' sums again against what is
    /// stored now, so that an ingest that landed meanwhile cannot carry a sum out of range.
    static func checkRange(_ reading: Reading, kind: MetricKind, name: String, snapshot: Snapshot) throws {
        var stored: [String: MetricTotals] = [:]
        for (pack, added) in reading.packTotals.sorted(by: { $0.key < $1.key }) {
            if stored[pack.locale] == nil {
                stored[pack.locale] = try MetricsLayout.totals(kind, locale: pack.locale, in: snapshot)
            }
            guard added <= MetricCounts.maximum - stored[pack.locale]!.total(of: pack.contentVersion) else {
                throw RolloutError.noRoomSinceRead(name, kind: kind, pack: pack)
            }
        }
    }
}

extension RolloutError {
    static func emptyMetricsFile(_ name: String) -> RolloutError {
        .badInput("\(name): empty file; the first line must be a header")
    }

    fileprivate static func rollupTooLarge(
        _ name: String, kind: MetricKind, group: GroupedSums.Group, date: Substring, stored: Int
    ) -> RolloutError {
        .badInput(
            "\(name): the \(kind.rawValue) rollup of \(group.locale) on \(date) would hold \(stored + group.count) keys "
                + "(\(stored) stored + \(group.count) in this file), "
                + "more than \(MetricsIngest.rollupKeyLimit) (pack x region x app version for one locale and date), "
                + "which every reader of metrics holds in memory at once; "
                + "nothing was ingested; fold rare app versions together before ingesting (4.2.17 as 4.2, for example) "
                + "so that the date has fewer keys")
    }

    fileprivate static func shortDigestClash(_ name: String, _ digest: String, _ other: String) -> RolloutError {
        .badInput(
            "\(name): its digest \(digest) starts with the same 12 hex digits as the ingested file \(other), "
                + "and rollups tell files apart by them; change the file (a trailing newline will do) and ingest it again"
        )
    }

    fileprivate static func noRoomSinceRead(_ name: String, kind: MetricKind, pack: PackID) -> RolloutError {
        .conflict(
            "\(name): the \(kind.columns.total) of \(pack) ingested since this file was read leave no room for its counts "
                + "within \(MetricCounts.maximum); nothing was ingested; run the command again to see the rows")
    }

    fileprivate static func overlappingRows(_ name: String, count: Int, shown: [String]) -> RolloutError {
        .badInput(
            "\(name): \(count) row group(s) overlap data already ingested for the same date, pack, region and app version; "
                + "nothing was ingested (counts are never added twice):\n"
                + shown.joined(separator: "\n") + (count > shown.count ? "\n  ... and \(count - shown.count) more" : "")
        )
    }
}
