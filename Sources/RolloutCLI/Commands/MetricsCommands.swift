import Foundation
import RolloutIngest
import RolloutModel
import RolloutStore

enum MetricsCommands {
    /// ROLLOUT_INGEST_MEMORY: bytes for summing groups before ingest spills sorted runs to $TMPDIR
    /// (docs/metrics.md); tests set it small to make a small file spill.
    static func ingestMemory(_ context: CommandContext) throws -> Int? {
        guard let text = context.environment["ROLLOUT_INGEST_MEMORY"], !text.isEmpty else { return nil }
        guard let bytes = Int(text), bytes >= 512 else {
            throw RolloutError.usage("ROLLOUT_INGEST_MEMORY=\(text) must be a number of bytes, 512 or more")
        }
        return bytes
    }

    static let ingest = CommandSpec(
        path: ["metrics", "ingest"],
        summary: "stream metrics CSVs into the repository's rollups, each file all or nothing, with its provenance",
        discussion: """
            A crash CSV has date, locale, pack, region, app_version, sessions, crashes; a fallback CSV has
            lookups and fallbacks instead. Header required, any column order, extra columns ignored,
            RFC 4180 quoting, CRLF and a UTF-8 BOM accepted; pack is tr-TR@18, or a content version with
            the locale column. An outcome CSV (--kind outcome-METRIC) has metric, exposures and conversions
            and is read for the rows of METRIC; --kind outcome reads it as each metric it names, all in one
            commit. --map lookups=string_reads reads another column name. Every bad row is
            reported with its line number and the file is refused (exit 65), unless --skip-invalid keeps
            the good rows. The same file twice changes nothing; rows that overlap data already ingested
            (same date, pack, region and app version) refuse the file rather than count twice.
            Dates must lie in the policy's window (gates.dates: three years back, one day ahead).
            A .csv.gz may expand at most 200 times its size and to 64 GiB of text (--max-gzip-ratio,
            --max-gzip-text). See docs/metrics.md.
            """,
        options: IngestOptions.self,
        arguments: .oneOrMore("FILE"),
        effects: [.readsFiles, .recordsChange],
        run: { invocation, context in
            let options = IngestOptions.declared
            guard let kind = try invocation.value(options.kind) else {
                throw RolloutError.usage(
                    "rollout metrics ingest needs --kind crash, fallback, outcome or outcome-METRIC")
            }
            let mapping = try columnMapping(invocation.values(options.map), kind: kind)
            let gzipLimits = try gzipLimits(invocation)
            let repository = try context.repository(invocation)
            let actor = try context.actor(invocation, repository: repository)
            let now = try context.now()
            var text = ""
            var results: [JSONValue] = []
            let paths = try invocation.positionals.map { try context.requireFile($0, describedAs: "metrics file") }
            var done: [String] = []
            for (file, path) in zip(invocation.positionals, paths) {
                // A progress line on a terminal for files big enough to wait for.
                let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
                var shown = -1
                let progress: (Int) -> Void = { read in
                    guard context.stderrIsTerminal, size >= 64 << 20 else { return }
                    let percent = read * 100 / size
                    guard percent != shown else { return }
                    shown = percent
                    context.progress("\(file): \(percent)% of \(ByteCount.describe(size))", finished: read >= size)
                }
                let outcomes: [MetricsIngest.Outcome]
                do {
                    let kinds = try readAs(kind, path: path, file: file, mapping: mapping, gzipLimits: gzipLimits)
                    let requests = try kinds.map { kind in
                        MetricsIngest.Request(
                            path: path, name: file, kind: kind, mapping: mapping,
                            skipInvalid: invocation.flag(options.skipInvalid),
                            progress: progress,
                            memory: try ingestMemory(context),
                            temporaryDirectory: context.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 }
                                ?? "/tmp",
                            profile: (context.environment["ROLLOUT_INGEST_PROFILE"] ?? "").isEmpty
                                ? nil : { context.diagnostics($0 + "\n") }, now: now, gzipLimits: gzipLimits)
                    }
                    outcomes = try ingested(requests, into: repository, actor: actor, time: { now })
                } catch  where !done.isEmpty {
                    // Each file is all or nothing on its own: say which ones before it did land.
                    guard let worded = Refusals.worded(error) else { throw error }
                    throw worded.withMessage {
                        $0 + "\n(already ingested by this command, and kept: \(done.joined(separator: ", ")))"
                    }
                }
                done.append(file)
                for outcome in outcomes {
                    let (line, json) = ingested(file, outcome, otherMetricsIngested: kind == .everyOutcome)
                    text += line
                    results.append(json)
                }
            }
            return CommandOutput(json: ["files": .array(results)], text: text)
        })

    /// The kinds one file is read as: `--kind outcome`, each outcome kind its metric column names
    /// (all in one commit).
    private static func readAs(
        _ kind: IngestKind, path: String, file: String, mapping: [String: String], gzipLimits: GzipLimits
    ) throws -> [MetricKind] {
        switch kind {
        case .one(let kind): return [kind]
        case .everyOutcome:
            return try MetricsIngest.outcomeMetrics(path: path, name: file, mapping: mapping, gzipLimits: gzipLimits)
                .compactMap(MetricKind.outcome)
        }
    }

    /// Ingests one file as each of `requests`' kinds (one, or every outcome kind of the file); a
    /// refusal of one of several kinds says which, and that none landed.
    private static func ingested(
        _ requests: [MetricsIngest.Request], into repository: PackRepository, actor: Actor,
        time: @escaping () -> Timestamp
    ) throws -> [MetricsIngest.Outcome] {
        do {
            return try MetricsIngest.ingest(requests, into: repository, actor: actor, time: time)
        } catch let refused as MetricsIngest.KindRefused {
            guard requests.count > 1 else { throw refused.error }
            guard let worded = Refusals.worded(refused.error) else { throw refused.error }
            let kinds = requests.map(\.kind.rawValue).joined(separator: ", ")
            throw worded.withMessage {
                $0
                    + "\n(refused as \(refused.kind.rawValue); the file was read as \(kinds), and none of them was ingested)"
            }
        }
    }

    /// `--map NAME=COLUMN`, each NAME one of the columns the kind reads.
    private static func columnMapping(_ items: [String], kind: IngestKind) throws -> [String: String] {
        var mapping: [String: String] = [:]
        let columns =
            switch kind {
            case .one(let kind) where !kind.isOutcome: [kind.columns.total, kind.columns.events]
            default: [MetricKind.metricColumn, "exposures", "conversions"]
            }
        let known = Set(MetricKind.keyColumns + columns)
        for item in items {
            let parts = item.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces }
            guard parts.count == 2, !parts[1].isEmpty, known.contains(parts[0]) else {
                throw RolloutError.usage(
                    "--map \"\(item)\" must be NAME=COLUMN with NAME one of \(known.sorted().joined(separator: ", "))"
                )
            }
            mapping[parts[0]] = parts[1]
        }
        return mapping
    }

    /// What one file's ingest printed: its lines and its `--json` entry.
    /// What one file's ingest as one kind printed: its lines and its `--json` entry. An outcome kind
    /// names itself (`FILE (outcome-checkout): ...`) and the rows of other metrics it left out, unless
    /// `otherMetricsIngested` (`--kind outcome` read them as their own kinds).
    private static func ingested(_ file: String, _ outcome: MetricsIngest.Outcome, otherMetricsIngested: Bool)
        -> (String, JSONValue)
    {
        let reading = outcome.reading
        let kind = outcome.kind
        let name = file.oneLine + (kind.isOutcome ? " (\(kind.rawValue))" : "")
        var text = ""
        if outcome.alreadyIngested == nil && outcome.rollupsWritten == 0 {
            text +=
                reading.badRowCount == 0
                ? "\(name): no data rows; nothing to do\n"
                : "\(name): no valid data rows (\(reading.badRowCount) skipped); nothing to do\n"
        } else if let earlier = outcome.alreadyIngested {
            text +=
                "\(name): already ingested (\(reading.digest.prefix(19))…, by \(earlier.actor) at \(earlier.time)); nothing to do\n"
        } else {
            let rows = reading.rows - reading.badRowCount - reading.testerRows - reading.otherMetricRows
            text +=
                "\(name): \(rows) rows ingested into \(outcome.rollupsWritten) rollup(s) for \(reading.locales.joined(separator: ", "))\n"
            if reading.testerRows > 0 {
                text +=
                    "  left out \(reading.testerRows) row(s) of tester devices (column tester): they never count toward health\n"
            }
            if reading.otherMetricRows > 0 && !otherMetricsIngested {
                text +=
                    "  left out \(reading.otherMetricRows) row(s) of other metrics (\(reading.otherMetrics.joined(separator: ", "))): "
                    + "each is a kind of its own (--kind outcome-\(reading.otherMetrics[0]), or --kind outcome for all)\n"
            }
        }
        // Whatever landed, the rows skipped are named (an ingest before skipped its own, and said so).
        if outcome.alreadyIngested == nil {
            for bad in reading.badRows { text += "  skipped \(file.oneLine):\(bad.line): \(bad.message)\n" }
            if reading.badRowCount > reading.badRows.count {
                text += "  ... \(reading.badRowCount - reading.badRows.count) more skipped\n"
            }
        }
        var json: [String: JSONValue] = [
            "file": .string(file), "digest": .string(reading.digest), "rows": .integer(reading.rows),
            "skipped": .array(reading.badRows.map { ["line": .integer($0.line), "message": .string($0.message)] }),
            "skippedCount": .integer(reading.badRowCount),
            "alreadyIngested": .bool(outcome.alreadyIngested != nil),
            "locales": .array(reading.locales.map { .string($0) }),
        ]
        // Only when there are some: the document of a file without a tester column stays as it was.
        if reading.testerRows > 0 { json["testerRows"] = .integer(reading.testerRows) }
        if kind.isOutcome {
            json["kind"] = .string(kind.rawValue)
            json["otherMetricRows"] = .integer(reading.otherMetricRows)
        }
        return (text, .object(json))
    }

    struct IngestOptions: OptionGroup {
        let kind = Option<IngestKind>(
            "kind", "crash|fallback|outcome|outcome-METRIC",
            "what the files count (outcome: each metric of an outcome CSV, one kind each)"
        ).required()
        let map = Option<String>("map", "NAME=COLUMN", "read column COLUMN as NAME", repeatable: true)
        let skipInvalid = Flag("skip-invalid", "ingest the valid rows and list the others")
        let maxGzipRatio = Option.count(
            "max-gzip-ratio", "N", "refuse gzip data that expands more than N times (default 200)", minimum: 1,
            maximum: 1_000_000)
        let maxGzipText = Option<ByteSize>(
            "max-gzip-text", "BYTES",
            "refuse gzip data that expands past BYTES of text (default 64G; K, M, G, T are powers of 1024)")

        static let declared = IngestOptions()
    }

    /// --max-gzip-ratio and --max-gzip-text over the defaults (docs/metrics.md, "Gzip input").
    static func gzipLimits(_ invocation: Invocation) throws -> GzipLimits {
        let options = IngestOptions.declared
        var limits = GzipLimits.default
        if let ratio = try invocation.value(options.maxGzipRatio) { limits.maximumRatio = ratio }
        if let size = try invocation.value(options.maxGzipText) { limits.maximumText = size.bytes }
        return limits
    }

    struct RetractOptions: OptionGroup {
        let reason = Option.reason("why (recorded in the commit and the retraction record)").required()
        let kind = Option<IngestKind>(
            "kind", "crash|fallback|outcome|outcome-METRIC",
            "which of the file's counts, for a file ingested as several kinds (outcome: every outcome kind of it)")

        static let declared = RetractOptions()
    }

    struct ShowOptions: OptionGroup {
        let pack = Option<PackID>("pack", "P", "only this pack, for example tr-TR@18")
        let segment = Option<Segment>("segment", "REGION/VERSION", "only this segment, for example TR/4.8")

        static let declared = ShowOptions()
    }

    static let retract = CommandSpec(
        path: ["metrics", "retract"],
        summary: "take one ingested file's counts out of the rollups, in one recorded commit",
        discussion: """
            SOURCE is the ingested file (found by its SHA-256, as ingest recorded it) or its digest,
            sha256:HEX, where a unique prefix of 12 or more hex digits will do: the file need not exist
            any more. --kind is needed only for a file ingested as several kinds; --kind outcome retracts
            every outcome kind of the file still counted, in one commit. The retraction is recorded
            under metrics/retractions/ and in the log; the same file may be ingested again afterwards.
            Exit 1 when it was already retracted, 66 when no such file was ingested. See docs/metrics.md.
            """,
        options: RetractOptions.self,
        arguments: .exactly("SOURCE"),
        effects: [.recordsChange, .checks],
        run: { invocation, context in
            let options = RetractOptions.declared
            guard let reason = invocation.value(options.reason), !reason.trimmingSpaces.isEmpty else {
                throw RolloutError.usage("rollout metrics retract needs --reason TEXT: say why the data is taken out")
            }
            let kind = try invocation.value(options.kind)
            let source = invocation.positionals[0]
            guard !source.trimmingSpaces.isEmpty else {
                throw RolloutError.usage(
                    "rollout metrics retract needs a SOURCE: the ingested file, or its digest sha256:HEX (rollout log shows it); the argument is empty"
                )
            }
            let path = context.absolutePath(source)
            var isDirectory: ObjCBool = false
            let digest: String
            if !source.hasPrefix("sha256:") && FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                guard !isDirectory.boolValue else {
                    throw RolloutError.usage("\(source) is a directory, not a metrics file")
                }
                digest = try MetricsRetract.digest(ofFile: path, named: source)
            } else if source.hasPrefix("sha256:") {
                digest = source
            } else {
                throw RolloutError.missing(
                    "\(source): no such metrics file; once the file is gone, give its digest as sha256:HEX (rollout log shows it)"
                )
            }
            let repository = try context.repository(invocation)
            let now = try context.now()
            let one: MetricKind? =
                switch kind {
                case .one(let kind): kind
                case .everyOutcome, nil: nil
                }
            let applied = try MetricsRetract.retract(
                MetricsRetract.Request(
                    digest: digest, source: source, kind: one, everyOutcome: kind == .everyOutcome, reason: reason),
                from: repository, actor: try context.actor(invocation, repository: repository), time: { now })
            let commit: JSONValue = applied.commit.map { .string($0.description) } ?? .null
            let retracted = applied.result.map(retractedOutput)
            // One kind: its entry is the whole answer, as it always was; --kind outcome: one per kind.
            let json: JSONValue =
                kind == .everyOutcome
                ? ["retractions": .array(retracted.map { .object($0.json) }), "commit": commit]
                : .object(retracted[0].json.merging(["commit": commit]) { $1 })
            return CommandOutput(json: json, text: retracted.map(\.text).joined())
        })

    /// What retracting one kind of a file printed: its line and its `--json` entry.
    private static func retractedOutput(_ outcome: MetricsRetract.Outcome) -> (
        text: String, json: [String: JSONValue]
    ) {
        let text =
            "\(outcome.file) (\(outcome.digest.prefix(19))…, \(outcome.kind.rawValue)): retracted \(outcome.entries) entries from \(outcome.rollups.count) rollup(s)"
            + (outcome.locales.isEmpty ? "" : " of \(outcome.locales.joined(separator: ", "))") + "\n"
        let json: [String: JSONValue] = [
            "digest": .string(outcome.digest), "kind": .string(outcome.kind.rawValue), "file": .string(outcome.file),
            "locales": .array(outcome.locales.map { .string($0) }),
            "rollups": .object(outcome.rollups.mapValues { .integer($0) }), "entries": .integer(outcome.entries),
        ]
        return (text, json)
    }

    /// `metrics show`'s crash and fallback part: per pack and segment (region, app-version family),
    /// both kinds' counts and rates.
    private static func healthRows(_ locale: String, pack: PackID?, segment: Segment?, in snapshot: Snapshot) throws
        -> (table: Table, json: [JSONValue], dates: Set<String>)
    {
        struct Row: Hashable {
            let version: Int
            let region: String
            let family: String
        }
        var sums: [Row: [MetricKind: MetricCounts]] = [:]
        var dates: Set<String> = []
        for kind in MetricKind.health {
            for rollup in try MetricsLayout.rollups(kind, locale: locale, in: snapshot) {
                for (key, counts) in rollup.counts {
                    guard let version = shown(key, of: locale, pack: pack, segment: segment) else { continue }
                    let family = version.family
                    let row = Row(version: key.contentVersion, region: key.region, family: family)
                    sums[row, default: [:]][kind] = try (sums[row]?[kind] ?? .zero).adding(
                        counts, kind: kind, pack: "\(locale)@\(row.version)")
                    dates.insert(rollup.date)
                }
            }
        }
        func rate(_ c: MetricCounts?) -> String { c?.rate.map { String(format: "%.3f%%", $0 * 100) } ?? "-" }
        var table = Table(
            "PACK", "SEGMENT", "SESSIONS", "CRASHES", "CRASH RATE", "LOOKUPS", "FALLBACKS", "FALLBACK RATE")
        var json: [JSONValue] = []
        for row in sums.keys.sorted(by: { ($0.version, $0.region, $0.family) < ($1.version, $1.region, $1.family) }) {
            let crash = sums[row]?[.crash]
            let fallback = sums[row]?[.fallback]
            table.add(
                "\(locale)@\(row.version)", "\(row.region)/\(row.family)", crash.map { "\($0.total)" } ?? "-",
                crash.map { "\($0.events)" } ?? "-",
                rate(crash), fallback.map { "\($0.total)" } ?? "-", fallback.map { "\($0.events)" } ?? "-",
                rate(fallback))
            json.append([
                "pack": .string("\(locale)@\(row.version)"), "region": .string(row.region),
                "appVersions": .string("\(row.family).x"),
                "sessions": .integer(crash?.total ?? 0), "crashes": .integer(crash?.events ?? 0),
                "lookups": .integer(fallback?.total ?? 0), "fallbacks": .integer(fallback?.events ?? 0),
            ])
        }
        return (table, json, dates)
    }

    /// The app version of a stored key `metrics show` shows (of `pack` and in `segment`, when given).
    private static func shown(_ key: MetricRollup.Key, of locale: String, pack: PackID?, segment: Segment?)
        -> AppVersion?
    {
        guard let version = AppVersion(key.appVersion) else { return nil }
        if let pack, pack.contentVersion != key.contentVersion || pack.locale != locale { return nil }
        if let segment,
            segment.region != Region.any && segment.region != key.region || !segment.versions.contains(version)
        {
            return nil
        }
        return version
    }

    /// `metrics show`'s outcome part: per pack, segment (region, app-version family) and metric,
    /// exposures, conversions and the rate, from every outcome kind stored for `locale`.
    private static func outcomeRows(_ locale: String, pack: PackID?, segment: Segment?, in snapshot: Snapshot) throws
        -> (table: Table, json: [JSONValue], dates: Set<String>)
    {
        struct Row: Hashable, Comparable {
            let version: Int
            let region: String
            let family: String
            let metric: String

            static func < (a: Row, b: Row) -> Bool {
                (a.version, a.region, a.family, a.metric) < (b.version, b.region, b.family, b.metric)
            }
        }
        var sums: [Row: MetricCounts] = [:]
        var dates: Set<String> = []
        for kind in try MetricsLayout.outcomeKinds(of: locale, in: snapshot) {
            for rollup in try MetricsLayout.rollups(kind, locale: locale, in: snapshot) {
                for (key, counts) in rollup.counts {
                    guard let version = shown(key, of: locale, pack: pack, segment: segment) else { continue }
                    let row = Row(
                        version: key.contentVersion, region: key.region, family: version.family, metric: kind.metric!)
                    sums[row] = try (sums[row] ?? .zero).adding(counts, kind: kind, pack: "\(locale)@\(row.version)")
                    dates.insert(rollup.date)
                }
            }
        }
        var table = Table("PACK", "SEGMENT", "METRIC", "EXPOSURES", "CONVERSIONS", "CONVERSION RATE")
        var json: [JSONValue] = []
        for row in sums.keys.sorted() {
            let counts = sums[row]!
            table.add(
                "\(locale)@\(row.version)", "\(row.region)/\(row.family)", row.metric, "\(counts.total)",
                "\(counts.events)", counts.rate.map { String(format: "%.3f%%", $0 * 100) } ?? "-")
            json.append([
                "pack": .string("\(locale)@\(row.version)"), "region": .string(row.region),
                "appVersions": .string("\(row.family).x"), "metric": .string(row.metric),
                "exposures": .integer(counts.total), "conversions": .integer(counts.events),
            ])
        }
        return (table, json, dates)
    }

    static let show = CommandSpec(
        path: ["metrics", "show"],
        summary: "crash and fallback counts and rates per pack and segment (region, app-version family)",
        discussion: """
            Then, when the locale has outcome counts (an experiment's, ingested with --kind outcome),
            exposures, conversions and the conversion rate per pack, segment and metric.
            """,
        options: ShowOptions.self,
        arguments: .exactly("LOCALE"),
        effects: .readsRepository,
        run: { invocation, context in
            let locale = try LocaleTag.canonical(invocation.positionals[0])
            let pack = try invocation.value(ShowOptions.declared.pack)
            let segment = try invocation.value(ShowOptions.declared.segment)
            let snapshot = try context.repository(invocation).snapshot()
            let health = try healthRows(locale, pack: pack, segment: segment, in: snapshot)
            let outcomes = try outcomeRows(locale, pack: pack, segment: segment, in: snapshot)
            let dates = health.dates.union(outcomes.dates)
            let span = dates.sorted()
            var text =
                dates.isEmpty
                ? "No metrics for \(locale) yet; ingest some with rollout metrics ingest --kind crash FILE.\n"
                : "\(locale), \(span.first!) to \(span.last!):\n"
            if !health.json.isEmpty { text += health.table.render(context.style(invocation)) }
            if !outcomes.json.isEmpty {
                text += (health.json.isEmpty ? "" : "\n") + outcomes.table.render(context.style(invocation))
            }
            var document: [String: JSONValue] = [
                "locale": .string(locale), "rows": .array(health.json), "dates": .array(span.map { .string($0) }),
            ]
            // Only when there are some: a locale without an experiment's counts shows what it always did.
            if !outcomes.json.isEmpty { document["outcomes"] = .array(outcomes.json) }
            return CommandOutput(json: .object(document), text: text)
        })
}
