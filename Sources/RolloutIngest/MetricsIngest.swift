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

        public init(path: String, name: String, kind: MetricKind, mapping: [String: String], skipInvalid: Bool, progress: @escaping (Int) -> Void = { _ in }) {
            self.path = path
            self.name = name
            self.kind = kind
            self.mapping = mapping
            self.skipInvalid = skipInvalid
            self.progress = progress
        }
    }

    struct AggregateKey: Hashable {
        let locale: String
        let day: Int
        let key: MetricRollup.Key
    }

    /// What one file holds, after reading and validating it (nothing written yet).
    public struct Reading {
        public let digest: String
        public let bytes: Int
        public let rows: Int
        public let badRows: [(line: Int, message: String)]
        public let badRowCount: Int
        let totals: [AggregateKey: MetricCounts]

        public var locales: [String] { Array(Set(totals.keys.map(\.locale))).sorted() }
        public var days: [Int] { Array(Set(totals.keys.map(\.day))).sorted() }
    }

    public struct Outcome {
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

    /// Streams and validates the file against the packs `snapshot` holds.
    public static func read(_ request: Request, snapshot: Snapshot) throws -> Reading {
        let hasher = SHA256Hasher()
        var header: [String: Int]? = nil
        var columns: (date: Int, locale: Int?, pack: Int, region: Int, app: Int, total: Int, events: Int) = (0, nil, 0, 0, 0, 0, 0)
        var fieldCount = 0
        var totals: [AggregateKey: MetricCounts] = [:]
        var rows = 0
        var bad: [(Int, String)] = []
        var badCount = 0
        var knownPacks: [String: Set<Int>] = [:]
        var dayCache: [[UInt8]: Int?] = [:]
        var packCache: [[UInt8]: Result<(locale: String, version: Int), PackProblem>] = [:]
        var regionCache: [[UInt8]: String?] = [:]
        var appCache: [[UInt8]: String?] = [:]
        func cached<V>(_ cache: inout [[UInt8]: V?], _ bytes: ArraySlice<UInt8>, _ make: () -> V?) -> V? {
            let key = Array(bytes)
            if let hit = cache[key] { return hit }
            let value = make()
            cache[key] = .some(value)
            return value
        }
        let (totalName, eventsName) = request.kind.columns

        func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
        func reject(_ line: Int, _ message: String) {
            badCount += 1
            if bad.count < shownBadRows { bad.append((line, message)) }
        }

        let byteCount: Int
        do {
            var seen = 0
            byteCount = try CSVReader.read(path: request.path, chunk: { chunk in
                chunk.withUnsafeBytes { hasher.update($0) }
                seen += chunk.count
                request.progress(seen)
            }) { fields, line in
                guard let names = header else {
                    let found = fields.map { text($0).trimmingSpaces.lowercased() }
                    var index: [String: Int] = [:]
                    for (i, name) in found.enumerated() where index[name] == nil { index[name] = i }
                    func column(_ canonical: String) throws -> Int? {
                        let name = (request.mapping[canonical] ?? canonical).lowercased()
                        return index[name]
                    }
                    let required = ["date", "pack", "region", "app_version", totalName, eventsName]
                    let missing = try required.filter { try column($0) == nil }
                    if !missing.isEmpty {
                        let described = missing.map { name in request.mapping[name].map { "\(name) (mapped to \($0))" } ?? name }
                        throw RolloutError.badInput(
                            "\(request.name):\(line): the header lacks \(described.joined(separator: ", ")) (found: \(found.joined(separator: ", "))); a \(request.kind.rawValue) CSV needs date, locale, pack, region, app_version, \(totalName), \(eventsName); --map NAME=COLUMN renames")
                    }
                    columns = (try column("date")!, try column("locale"), try column("pack")!, try column("region")!, try column("app_version")!,
                               try column(totalName)!, try column(eventsName)!)
                    fieldCount = found.count
                    header = index
                    return
                }
                _ = names
                rows += 1
                guard fields.count == fieldCount else {
                    return reject(line, "\(fields.count) fields, the header has \(fieldCount)")
                }
                // Dates, packs, regions and versions repeat on nearly every row: each distinct spelling is
                // parsed and validated once, then looked up by its bytes.
                guard let day = cached(&dayCache, fields[columns.date], { parseDay(fields[columns.date]) }) else {
                    return reject(line, "date \"\(text(fields[columns.date]))\" is not YYYY-MM-DD")
                }
                var packKey = Array(fields[columns.pack])
                if let l = columns.locale { packKey.append(0); packKey.append(contentsOf: fields[l]) }
                let resolvedPack: Result<(locale: String, version: Int), PackProblem>
                if let known = packCache[packKey] {
                    resolvedPack = known
                } else {
                    resolvedPack = resolvePack(text(fields[columns.pack]).trimmingSpaces, localeText: columns.locale.map { text(fields[$0]).trimmingSpaces })
                    packCache[packKey] = resolvedPack
                }
                let locale: String
                let version: Int
                switch resolvedPack {
                case .failure(let problem): return reject(line, problem.message)
                case .success(let found): (locale, version) = found
                }
                if knownPacks[locale] == nil { knownPacks[locale] = Set((try? snapshot.contentVersions(of: locale)) ?? []) }
                guard knownPacks[locale]!.contains(version) else {
                    return reject(line, "unknown pack \(locale)@\(version): the repository does not hold it")
                }
                guard let region = cached(&regionCache, fields[columns.region], {
                    (try? Region.parse(text(fields[columns.region]).trimmingSpaces)).flatMap { $0 == Region.any ? nil : $0 }
                }) else {
                    return reject(line, "region \"\(text(fields[columns.region]).trimmingSpaces)\" is not an ISO 3166-1 alpha-2 code")
                }
                guard let app = cached(&appCache, fields[columns.app], { AppVersion(text(fields[columns.app]).trimmingSpaces)?.normalized }) else {
                    return reject(line, "app_version \"\(text(fields[columns.app]).trimmingSpaces)\" is not a numeric version")
                }
                guard let total = parseCount(fields[columns.total]) else {
                    return reject(line, "\(totalName) \"\(text(fields[columns.total]))\" is not a whole number of 0 or more")
                }
                guard let events = parseCount(fields[columns.events]) else {
                    return reject(line, "\(eventsName) \"\(text(fields[columns.events]))\" is not a whole number of 0 or more")
                }
                guard events <= total else { return reject(line, "\(eventsName) \(events) > \(totalName) \(total)") }
                let key = AggregateKey(locale: locale, day: day, key: MetricRollup.Key(contentVersion: version, region: region, appVersion: app))
                guard let sum = (totals[key] ?? MetricCounts(total: 0, events: 0)).adding(MetricCounts(total: total, events: events)) else {
                    return reject(line, "the counts for \(locale)@\(version) \(region) \(app) on this date add up past what can be counted")
                }
                totals[key] = sum
            }
        } catch let failure as CSVReader.Failure {
            throw RolloutError.badInput("\(request.name):\(failure.line): \(failure.message)")
        }
        guard header != nil else { throw RolloutError.badInput("\(request.name): empty file; the first line must be a header") }
        let reading = Reading(digest: "sha256:" + Hex.encode(hasher.finalize()), bytes: byteCount, rows: rows, badRows: bad, badRowCount: badCount, totals: totals)
        if badCount > 0 && !request.skipInvalid {
            let listed = bad.map { "  \(request.name):\($0.0): \($0.1)" }.joined(separator: "\n")
            let more = badCount > bad.count ? "\n  ... and \(badCount - bad.count) more" : ""
            throw RolloutError.badInput(
                "\(request.name): \(badCount) of \(rows) rows are invalid; nothing was ingested (--skip-invalid keeps the good rows):\n\(listed)\(more)")
        }
        return reading
    }

    struct PackProblem: Error {
        let message: String
    }

    /// The pack column (and the locale column, if any) of a row, checked.
    static func resolvePack(_ packText: String, localeText: String?) -> Result<(locale: String, version: Int), PackProblem> {
        if packText.contains("@") {
            guard let id = try? PackID.parse(packText) else { return .failure(PackProblem(message: "pack \"\(packText)\" is not LOCALE@VERSION")) }
            if let localeText, !localeText.isEmpty, localeText != id.locale {
                return .failure(PackProblem(message: "pack \(packText) is not a \(localeText) pack"))
            }
            return .success((id.locale, id.contentVersion))
        }
        guard let localeText, !localeText.isEmpty else {
            return .failure(PackProblem(message: "pack \"\(packText)\" is a bare content version; it needs the locale column (or write it as tr-TR@18)"))
        }
        guard let v = Int(packText), v >= 1 else { return .failure(PackProblem(message: "pack \"\(packText)\" is neither LOCALE@VERSION nor a content version")) }
        guard (try? LocaleTag.parse(localeText)) != nil else {
            return .failure(PackProblem(message: "locale \"\(localeText)\" is not a BCP 47 locale such as tr-TR"))
        }
        return .success((localeText, v))
    }

    /// "2026-11-28" as days since the epoch, without allocating.
    static func parseDay(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count == 10 else { return nil }
        let b = Array(bytes)
        guard b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return nil }
        return Timestamp(iso8601: String(decoding: b, as: UTF8.self)).map { Int($0.seconds / 86_400) }
    }

    static func parseCount(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        var digits = 0
        // Spaces around the number are tolerated; inside it they are not ("1 0 0" is not 100).
        let trimmed = bytes.drop { $0 == 0x20 }.reversed().drop { $0 == 0x20 }.reversed()
        for byte in trimmed {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
            guard digits <= 12 else { return nil }
        }
        return digits > 0 ? value : nil
    }

    /// Reads `request`'s file and commits its rollups and provenance; the same file twice is a no-op.
    public static func ingest(_ request: Request, into repository: PackRepository, actor: Actor, time: @escaping () -> Timestamp) throws -> Outcome {
        let reading = try read(request, snapshot: try repository.snapshot())
        let provenancePath = MetricsLayout.provenance(reading.digest, kind: request.kind)
        let applied = try repository.apply(actor: actor, time: time) { snapshot in
            if let bytes = try snapshot.file(provenancePath), let o = (try? StrictJSONParser.parse(bytes))?.objectValue {
                let earlier = Provenance(
                    digest: reading.digest, file: o["file"]?.stringValue ?? "?", kind: o["kind"]?.stringValue ?? "?",
                    rows: o["rows"]?.integerValue ?? 0, actor: o["actor"]?.stringValue ?? "?", time: o["time"]?.stringValue ?? "?")
                return (nil, Outcome(reading: reading, alreadyIngested: earlier, rollupsWritten: 0))
            }
            if reading.totals.isEmpty {
                return (nil, Outcome(reading: reading, alreadyIngested: nil, rollupsWritten: 0))
            }
            var rollups: [String: MetricRollup] = [:]
            var overlaps: [String] = []
            var overlapCount = 0
            let short = String(reading.digest.dropFirst(7).prefix(12))
            let ordered = reading.totals.sorted { ($0.key.locale, $0.key.day, $0.key.key) < ($1.key.locale, $1.key.day, $1.key.key) }
            for (aggregate, counts) in ordered {
                let path = MetricsLayout.rollup(request.kind, locale: aggregate.locale, day: aggregate.day)
                if rollups[path] == nil {
                    rollups[path] = try snapshot.file(path).map { try MetricRollup.parse($0, source: path) }
                        ?? MetricRollup(kind: request.kind, locale: aggregate.locale, day: aggregate.day)
                }
                if rollups[path]!.counts[aggregate.key] != nil {
                    overlapCount += 1
                    if overlaps.count < 10 {
                        let source = rollups[path]!.sources[aggregate.key] ?? "?"
                        overlaps.append("  \(rollups[path]!.date) \(aggregate.locale)@\(aggregate.key.contentVersion) \(aggregate.key.region) \(aggregate.key.appVersion): already ingested from sha256:\(source)…")
                    }
                    continue
                }
                rollups[path]!.counts[aggregate.key] = counts
                rollups[path]!.sources[aggregate.key] = short
            }
            if !overlaps.isEmpty {
                throw RolloutError.badInput(
                    "\(request.name): \(overlapCount) row group(s) overlap data already ingested for the same date, pack, region and app version; nothing was ingested (counts are never added twice):\n"
                        + overlaps.joined(separator: "\n") + (overlapCount > overlaps.count ? "\n  ... and \(overlapCount - overlaps.count) more" : ""))
            }
            let now = time()
            let provenance: JSONValue = [
                "digest": .string(reading.digest), "file": .string(request.name), "kind": .string(request.kind.rawValue),
                "rows": .integer(reading.rows), "skippedRows": .integer(reading.badRowCount), "bytes": .integer(reading.bytes),
                "locales": .array(reading.locales.map { .string($0) }),
                "dates": .array(reading.days.map { .string(String(Timestamp(seconds: Int64($0) * 86_400).description.prefix(10))) }),
                "actor": .string(actor.description), "time": .string(now.description),
            ]
            var writes: [(path: String, bytes: [UInt8])] = rollups.sorted { $0.key < $1.key }.map { ($0.key, JSONWriter.pretty($0.value.jsonValue)) }
            writes.append((provenancePath, JSONWriter.pretty(provenance)))
            var trailers: [(name: String, value: String)] = [("Action", "metrics-ingest")]
            for locale in reading.locales { trailers.append(("Locale", locale)) }
            trailers += [("Metrics-Kind", request.kind.rawValue), ("Metrics-File", request.name), ("Metrics-Digest", reading.digest), ("Metrics-Rows", "\(reading.rows)")]
            let change = Change(summary: "metrics ingest \(request.kind.rawValue) \(request.name) (\(reading.rows) rows)", trailers: trailers, writes: writes)
            return (change, Outcome(reading: reading, alreadyIngested: nil, rollupsWritten: rollups.count))
        }
        return applied.result
    }
}

/// Where metrics live in the state tree.
public enum MetricsLayout {
    public static let directory = "metrics"

    public static func rollupDirectory(_ kind: MetricKind, locale: String) -> String { "\(directory)/\(kind.rawValue)/\(locale)" }

    public static func rollup(_ kind: MetricKind, locale: String, day: Int) -> String {
        "\(rollupDirectory(kind, locale: locale))/\(Timestamp(seconds: Int64(day) * 86_400).description.prefix(10)).json"
    }

    /// One file may hold both kinds of columns: what was ingested is the file read as one kind.
    public static func provenance(_ digest: String, kind: MetricKind) -> String { "\(directory)/ingests/\(digest.dropFirst(7)).\(kind.rawValue).json" }

    /// Every rollup of `kind` for `locale` in `snapshot`.
    public static func rollups(_ kind: MetricKind, locale: String, in snapshot: Snapshot) throws -> [MetricRollup] {
        try snapshot.directory(rollupDirectory(kind, locale: locale)).filter { !$0.isTree }.map { entry in
            try MetricRollup.parse(try snapshot.repository.readBlob(entry.id), source: rollupDirectory(kind, locale: locale) + "/" + entry.name)
        }
    }
}
