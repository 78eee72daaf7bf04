import RolloutModel
import RolloutStore

/// Health of a locale's staged pack from the metrics the repository holds (docs/health.md).
public enum HealthCheck {
    /// What the metrics hold for one segment: the sums per metric over the dates both packs were
    /// measured, the exposures of those dates (newest last, for the traffic), and the crash
    /// sessions per date and exact app version (the sample ratio's cells).
    struct SegmentData {
        var candidate: [MetricKind: MetricCounts] = [:]
        var baseline: [MetricKind: MetricCounts] = [:]
        var days: [MetricKind: [(day: Int, candidate: Int, baseline: Int)]] = [:]
        var sessions: [(day: Int, region: String, version: AppVersion, candidate: Int, baseline: Int)] = []
    }

    /// Sums both packs per segment (region and app-version family) over the dates both have data for.
    /// With `timeline` (the locale's plans from a day on, asked for with the oldest date of the
    /// candidate's crash metrics) it also checks each segment's sample ratio.
    public static func evaluate(
        locale: String, candidate: Int, baseline: Int, snapshot: Snapshot,
        timeline: ((_ sinceDay: Int) throws -> PlanTimeline)? = nil, skip: (String) -> Bool = { _ in false }
    ) throws -> Health.Report {
        let (data, observed) = try gather(locale: locale, candidate: candidate, baseline: baseline, snapshot: snapshot)
        let labels = data.keys.sorted().filter { !skip($0) }
        let ordered = labels.map { (label: $0, candidate: data[$0]!.candidate, baseline: data[$0]!.baseline) }
        let gates = try snapshot.policy().gates
        var report = Health.evaluate(
            ordered, gates: gates, traffic: data.mapValues { traffic($0) })
        report.observed = observed
        // The origin of the sample ratio's days: the oldest date of any segment, withdrawn ones too, so
        // that a scoped revert does not move it.
        let oldest = data.values.flatMap { $0.sessions.map(\.day) }.min()
        if let timeline, let oldest {
            let timeline = try timeline(oldest)
            let cells = labels.map { label in
                (
                    label: label,
                    cells: sampleRatioCells(
                        data[label]!, candidate: candidate, baseline: baseline, timeline, origin: oldest)
                )
            }
            report.sampleRatios = SampleRatio.evaluate(cells, minSamples: gates.crash.minSamples)
        }
        return report
    }

    /// What `gather` needs of the locale's rollups is in those that hold the candidate (a rollup
    /// without it adds nothing to a segment) and those of the newest week (the regions and app
    /// versions observed): only those are parsed, unless the newest rollup names no app version
    /// health reads, when the newest week is not the one the file names say and every rollup is read.
    static func gather(locale: String, candidate: Int, baseline: Int, snapshot: Snapshot) throws -> (
        [String: SegmentData], [Health.Observed]
    ) {
        var newestNamed: Int?
        for kind in MetricKind.allCases {
            for entry in try snapshot.directory(MetricsLayout.rollupDirectory(kind, locale: locale)) where !entry.isTree
            {
                guard let day = MetricsLayout.day(ofRollupNamed: entry.name) else { continue }
                newestNamed = max(newestNamed ?? day, day)
            }
        }
        if let newestNamed {
            let (segments, observed, newest) = try gather(
                locale: locale, candidate: candidate, baseline: baseline, observedAfter: newestNamed - 7
            ) {
                try MetricsLayout.rollups(
                    $0, locale: locale, holding: [candidate], orAfter: newestNamed - 7, in: snapshot)
            }
            if newest == newestNamed { return (segments, observed) }
        }
        let (segments, observed, _) = try gather(locale: locale, candidate: candidate, baseline: baseline) {
            try MetricsLayout.rollups($0, locale: locale, in: snapshot)
        }
        return (segments, observed)
    }

    /// One date of one segment in one rollup: each arm's sums, and the sessions of each exact app
    /// version and region (the sample ratio's cells).
    struct SegmentDay {
        var candidate: MetricCounts?
        var baseline: MetricCounts?
        var cells: [Health.Observed: (c: Int, b: Int)] = [:]
    }

    /// The app versions and segment labels of the entries, each parsed or formatted once: a year
    /// of rollups names the same few thousand of them millions of times.
    struct Cells {
        var versions: [String: AppVersion?] = [:]
        var labels: [Health.Observed: String] = [:]

        mutating func cell(_ key: MetricRollup.Key) -> Health.Observed? {
            let version: AppVersion?
            if let known = versions[key.appVersion] {
                version = known
            } else {
                version = AppVersion(key.appVersion)
                versions[key.appVersion] = version
            }
            return version.map { Health.Observed(region: key.region, appVersion: $0) }
        }

        mutating func label(_ cell: Health.Observed) -> String {
            if let known = labels[cell] { return known }
            labels[cell] = cell.segment
            return cell.segment
        }
    }

    // Long: one pass over the rollups of both metrics, keeping what the checks, the traffic, the
    // sample ratio and the targeted segments each need from them. Regions and app versions are
    // observed only in rollups dated after `observedAfter` (older ones are not in the newest week).
    static func gather(
        locale: String, candidate: Int, baseline: Int, observedAfter: Int = Int.min,
        rollups: (MetricKind) throws -> [MetricRollup]
    ) throws -> ([String: SegmentData], [Health.Observed], newest: Int?) {
        var segments: [String: SegmentData] = [:]
        // Each region and exact app version with the newest date a row named it.
        var observed: [Health.Observed: Int] = [:]
        var cells = Cells()
        for kind in MetricKind.allCases {
            for rollup in try rollups(kind) {
                var bySegment: [String: SegmentDay] = [:]
                var candidateMeasured = false
                for (key, counts) in rollup.counts {
                    guard let cell = cells.cell(key) else { continue }
                    if rollup.day > observedAfter { observed[cell] = max(observed[cell] ?? rollup.day, rollup.day) }
                    candidateMeasured = candidateMeasured || key.contentVersion == candidate
                    guard key.contentVersion == candidate || key.contentVersion == baseline else { continue }
                    let isCandidate = key.contentVersion == candidate
                    let label = cells.label(cell)
                    let sum = (isCandidate ? bySegment[label]?.candidate : bySegment[label]?.baseline) ?? .zero
                    guard let added = sum.adding(counts) else {
                        throw RolloutError.metricsSumOutOfRange(
                            kind: kind, pack: "\(locale)@\(key.contentVersion)", origins: [])
                    }
                    bySegment[label, default: SegmentDay()].add(
                        added, isCandidate: isCandidate, cell: cell, sessions: counts.total)
                }
                try add(
                    bySegment, day: rollup.day, kind: kind, candidateMeasured: candidateMeasured, to: &segments,
                    packs: ("\(locale)@\(candidate)", "\(locale)@\(baseline)"))
            }
        }
        // Only what the metrics named in their newest week: a segment whose traffic ended (an app
        // version nobody runs any more) is not one a rollout can wait for.
        let newest = observed.values.max()
        let recent = observed.filter { $0.value > (newest ?? 0) - 7 }.keys
        return (segments, recent.sorted { ($0.region, $0.appVersion) < ($1.region, $1.appVersion) }, newest)
    }

    /// Adds one rollup's segments to `segments`: only segments where both arms were measured that
    /// day, the same days, the same conditions.
    static func add(
        _ bySegment: [String: SegmentDay], day: Int, kind: MetricKind, candidateMeasured: Bool,
        to segments: inout [String: SegmentData], packs: (candidate: String, baseline: String)
    ) throws {
        for (label, entry) in bySegment {
            guard let c = entry.candidate, let b = entry.baseline else {
                // The candidate measured that day, but not here: for the sample ratio, it had no
                // sessions here (the largest mismatch there is, if the plan gives it some).
                if kind == .crash, candidateMeasured, entry.candidate == nil, entry.baseline != nil {
                    var segment = segments[label] ?? SegmentData()
                    for (cell, sessions) in entry.cells {
                        segment.sessions.append((day, cell.region, cell.appVersion, 0, sessions.b))
                    }
                    segments[label] = segment
                }
                continue
            }
            var segment = segments[label] ?? SegmentData()
            segment.candidate[kind] = try (segment.candidate[kind] ?? .zero).adding(
                c, kind: kind, pack: packs.candidate)
            segment.baseline[kind] = try (segment.baseline[kind] ?? .zero).adding(b, kind: kind, pack: packs.baseline)
            segment.days[kind, default: []].append((day, c.total, b.total))
            if kind == .crash {
                for (cell, sessions) in entry.cells {
                    segment.sessions.append((day, cell.region, cell.appVersion, sessions.c, sessions.b))
                }
            }
            segments[label] = segment
        }
    }

    /// Exposures a day of each arm over the (up to) three calendar days before the newest date both
    /// were measured, from the oldest such date on (the newest may be a day still being counted; a day
    /// without data in between counts as none), or on the newest date when it is the only one: the
    /// traffic a time to a decision is estimated at.
    static func traffic(_ data: SegmentData) -> [MetricKind: Health.Traffic] {
        data.days.mapValues { days in
            guard let newest = days.map(\.day).max(), let oldest = days.map(\.day).min() else {
                return Health.Traffic(candidate: 0, baseline: 0)
            }
            let complete = days.filter { $0.day < newest && $0.day >= newest - 3 }
            let used = oldest == newest ? days : complete
            let span = Double(max(1, min(3, newest - oldest)))
            return Health.Traffic(
                candidate: Double(used.reduce(0) { $0 + $1.candidate }) / span,
                baseline: Double(used.reduce(0) { $0 + $1.baseline }) / span)
        }
    }

    /// The sample ratio's cells of one segment: per date and exact app version, the sessions of each
    /// arm and the candidate's planned share of them. On a date the plan changed, and the day after
    /// (devices pick up a new manifest over hours), any share in force in those two days is planned:
    /// the cell's planned share is the range of them. Cells are dated in days since `origin`, the
    /// oldest date both packs were measured on (the evidence may start afresh on any of them).
    static func sampleRatioCells(
        _ data: SegmentData, candidate: Int, baseline: Int, _ timeline: PlanTimeline, origin: Int
    ) -> [SampleRatio.Cell] {
        data.sessions.compactMap { entry in
            let start = Int64(entry.day - 1) * 86_400
            let shares = timeline.plans(from: start, to: start + 2 * 86_400).map { plan in
                plan.armShare(candidate: candidate, baseline: baseline, region: entry.region, version: entry.version)
                    ?? 0
            }
            guard let low = shares.min(), let high = shares.max(), let atEnd = shares.last else { return nil }
            return SampleRatio.Cell(
                day: entry.day - origin, candidate: entry.candidate, baseline: entry.baseline, planned: atEnd,
                between: low, and: high)
        }
    }

    /// The health of `plan`'s staged pack, or nil when nothing is staged against a baseline. Segments
    /// a scoped revert already took the pack back from are not judged again. With `repository`, the
    /// plan's history from the audit log gives each segment's sample ratio check.
    public static func evaluate(_ plan: Plan, snapshot: Snapshot, repository: PackRepository? = nil) throws
        -> Health.Report?
    {
        guard let candidate = plan.candidate, let baseline = plan.baseline else { return nil }
        let timeline = repository.map { repository in
            { (day: Int) in
                try PlanTimeline.read(plan, since: Timestamp(seconds: Int64(day - 1) * 86_400), repository: repository)
            }
        }
        var report = try evaluate(
            locale: plan.locale, candidate: candidate.contentVersion, baseline: baseline.contentVersion,
            snapshot: snapshot, timeline: timeline
        ) { label in
            let parts = label.split(separator: "/")
            guard parts.count == 2, let family = AppVersion(String(parts[1])) else { return false }
            return plan.isWithdrawn(region: String(parts[0]), version: family)
        }
        report.targeted = report.targetedSegments(by: plan)
        return report
    }

    /// The newest date (days since the epoch) with metrics for `pack`, or nil.
    public static func newestDay(of pack: PackID, snapshot: Snapshot) throws -> Int? {
        var newest: Int?
        for kind in MetricKind.allCases {
            // Only rollups whose bytes may name the pack are parsed (MetricsLayout.mayHold).
            for rollup in try MetricsLayout.rollups(
                kind, locale: pack.locale, holding: [pack.contentVersion], orAfter: Int.max, in: snapshot)
            where rollup.counts.keys.contains(where: { $0.contentVersion == pack.contentVersion }) {
                newest = max(newest ?? rollup.day, rollup.day)
            }
        }
        return newest
    }

    /// What a rollback manifest records as evidence: the verdict in the one form `rollout health
    /// --json` prints (docs/health.md, "One form of a check"), and the ingests it rests on.
    public static func evidence(_ report: Health.Report, plan: Plan, snapshot: Snapshot) throws -> JSONValue {
        let locale = plan.locale
        var sources: [JSONValue] = []
        for entry in try snapshot.directory(MetricsLayout.ingestsDirectory) where !entry.isTree {
            // A retracted ingest is no longer evidence.
            if let record = MetricsLayout.parseRecordName(entry.name),
                try snapshot.file(
                    MetricsLayout.retraction(record.digest, kind: record.kind, generation: record.generation)) != nil
            {
                continue
            }
            guard let o = (try? StrictJSONParser.parse(try snapshot.read(entry)))?.objectValue,
                (o["locales"]?.arrayValue ?? []).contains(.string(locale))
            else { continue }
            sources.append([
                "file": o["file"] ?? .null, "digest": o["digest"] ?? .null, "kind": o["kind"] ?? .null,
                "rows": o["rows"] ?? .null,
            ])
        }
        guard let candidate = plan.candidate, let baseline = plan.baseline,
            case .object(var document) = report.jsonValue(
                locale: locale, candidate: PackID(locale: locale, contentVersion: candidate.contentVersion),
                baseline: PackID(locale: locale, contentVersion: baseline.contentVersion))
        else { return .string("none") }
        document["sources"] = .array(sources)
        return .object(document)
    }
}

extension HealthCheck.SegmentDay {
    /// Sets the arm's sum to `sum` (this entry added) and counts the entry's sessions in its cell.
    mutating func add(_ sum: MetricCounts, isCandidate: Bool, cell: Health.Observed, sessions: Int) {
        var counted = cells[cell] ?? (0, 0)
        if isCandidate {
            candidate = sum
            counted.c += sessions
        } else {
            baseline = sum
            counted.b += sessions
        }
        cells[cell] = counted
    }
}
