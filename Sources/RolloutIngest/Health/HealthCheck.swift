import RolloutModel
import RolloutStore

/// Health of a locale's staged pack from the metrics the repository holds (docs/health.md).
public enum HealthCheck {
    /// What the metrics hold for one segment: the sums per metric over the dates both packs were
    /// measured, the exposures of those dates (newest last, for the traffic), and the crash
    /// sessions per date and exact app version (the sample ratio's cells; `cell` indexes
    /// `Gathered.cells`).
    struct SegmentData {
        var candidate: [MetricKind: MetricCounts] = [:]
        var baseline: [MetricKind: MetricCounts] = [:]
        var days: [MetricKind: [(day: Int, candidate: Int, baseline: Int)]] = [:]
        var sessions: [(day: Int, cell: Int, candidate: Int, baseline: Int)] = []
    }

    /// What `gather` read: each segment's data, the cells observed in the newest week (sorted), and
    /// every cell the sessions name.
    struct Gathered {
        var segments: [String: SegmentData]
        var observed: [Health.Observed]
        var cells: [Health.Observed]
        var newest: Int?
    }

    /// Sums both packs per segment (region and app-version family) over the dates both have data for.
    /// With `timeline` (the locale's plans from a day on, asked for with the oldest date of the
    /// candidate's crash metrics) it also checks each segment's sample ratio.
    public static func evaluate(
        locale: String, candidate: Int, baseline: Int, snapshot: Snapshot,
        timeline: ((_ sinceDay: Int) throws -> PlanTimeline)? = nil, skip: (String) -> Bool = { _ in false }
    ) throws -> Health.Report {
        let gathered = try gather(locale: locale, candidate: candidate, baseline: baseline, snapshot: snapshot)
        let data = gathered.segments
        let labels = data.keys.sorted().filter { !skip($0) }
        let ordered = labels.map { (label: $0, candidate: data[$0]!.candidate, baseline: data[$0]!.baseline) }
        let gates = try snapshot.policy().gates
        var report = Health.evaluate(
            ordered, gates: gates, traffic: data.mapValues { traffic($0) })
        report.observed = gathered.observed
        // The origin of the sample ratio's days: the oldest date of any segment, withdrawn ones too, so
        // that a scoped revert does not move it.
        let oldest = data.values.flatMap { $0.sessions.map(\.day) }.min()
        if let timeline, let oldest {
            var planned = PlannedShares(
                timeline: try timeline(oldest), cells: gathered.cells, candidate: candidate, baseline: baseline)
            let cells = labels.map { label in
                (label: label, cells: sampleRatioCells(data[label]!, planned: &planned, origin: oldest))
            }
            report.sampleRatios = SampleRatio.evaluate(cells, minSamples: gates.crash.minSamples)
        }
        return report
    }

    /// What `gather` needs of the locale's rollups is in those that hold the candidate (a rollup
    /// without it adds nothing to a segment) and those of the newest week (the regions and app
    /// versions observed): only those are parsed, unless the newest rollup names no app version
    /// health reads, when the newest week is not the one the file names say and every rollup is read.
    static func gather(locale: String, candidate: Int, baseline: Int, snapshot: Snapshot) throws -> Gathered {
        var newestNamed: Int?
        for kind in MetricKind.health {
            for entry in try snapshot.directory(MetricsLayout.rollupDirectory(kind, locale: locale)) where !entry.isTree
            {
                guard let day = MetricsLayout.day(ofRollupNamed: entry.name) else { continue }
                newestNamed = max(newestNamed ?? day, day)
            }
        }
        var cells = RollupCells()
        if let newestNamed {
            let gathered = try gather(
                candidate: candidate, baseline: baseline, observedAfter: newestNamed - 7, cells: &cells
            ) {
                try MetricsLayout.entries(
                    $0, locale: locale, holding: [candidate], orAfter: newestNamed - 7, cells: &$1, in: snapshot)
            }
            if gathered.newest == newestNamed { return gathered }
        }
        return try gather(candidate: candidate, baseline: baseline, cells: &cells) {
            try MetricsLayout.entries($0, locale: locale, holding: [], orAfter: Int.min, cells: &$1, in: snapshot)
        }
    }

    /// What `gather` makes of each cell (a distinct region and exact app version of the keys), once
    /// per run however many rollups name it: the cell health observes (none for an app version it
    /// does not read), and the segment that cell counts towards. Two spellings of one app version
    /// ("4.8" and "4.8.0") are one observed cell.
    struct Cells {
        /// Per cell id of the `RollupCells`: its index in `observed`, or -1.
        var observedIndex: [Int] = []
        var observed: [Health.Observed] = []
        private var observedIDs: [Health.Observed: Int] = [:]
        /// Per observed cell: its index in `labels`.
        var segment: [Int] = []
        var labels: [String] = []
        private var labelIDs: [String: Int] = [:]

        /// Learns the cells `names` holds that it has not seen.
        mutating func learn(_ names: RollupCells) {
            for id in observedIndex.count..<names.count {
                guard let version = AppVersion(names.appVersions[id]) else {
                    observedIndex.append(-1)
                    continue
                }
                let cell = Health.Observed(region: names.regions[id], appVersion: version)
                if let known = observedIDs[cell] {
                    observedIndex.append(known)
                    continue
                }
                observedIDs[cell] = observed.count
                observedIndex.append(observed.count)
                observed.append(cell)
                let label = cell.segment
                if let known = labelIDs[label] {
                    segment.append(known)
                } else {
                    labelIDs[label] = labels.count
                    segment.append(labels.count)
                    labels.append(label)
                }
            }
        }
    }

    /// One rollup's sums, per segment and per observed cell, in arrays indexed as `Cells` numbers
    /// them; `touched` lists what this rollup set, in the order it first did, so that clearing them
    /// for the next rollup costs what the rollup held.
    struct RollupSums {
        var candidate: [MetricCounts?] = []
        var baseline: [MetricCounts?] = []
        var touchedSegments: [Int] = []
        var sessions: [(c: Int, b: Int)?] = []
        var touchedCells: [Int] = []

        mutating func fit(_ cells: Cells) {
            if candidate.count < cells.labels.count {
                candidate += Array(repeating: nil, count: cells.labels.count - candidate.count)
                baseline += Array(repeating: nil, count: cells.labels.count - baseline.count)
            }
            if sessions.count < cells.observed.count {
                sessions += Array(repeating: nil, count: cells.observed.count - sessions.count)
            }
        }

        /// Adds one entry of an arm: the segment's sum (nil when it would leave the range) and the cell's sessions.
        mutating func add(_ counts: MetricCounts, isCandidate: Bool, segment: Int, cell: Int) -> Bool {
            if candidate[segment] == nil && baseline[segment] == nil { touchedSegments.append(segment) }
            let sum = (isCandidate ? candidate[segment] : baseline[segment]) ?? .zero
            guard let added = sum.adding(counts) else { return false }
            if isCandidate { candidate[segment] = added } else { baseline[segment] = added }
            var counted = sessions[cell] ?? (0, 0)
            if sessions[cell] == nil { touchedCells.append(cell) }
            if isCandidate { counted.c += counts.total } else { counted.b += counts.total }
            sessions[cell] = counted
            return true
        }

        mutating func clear() {
            for segment in touchedSegments { (candidate[segment], baseline[segment]) = (nil, nil) }
            for cell in touchedCells { sessions[cell] = nil }
            touchedSegments.removeAll(keepingCapacity: true)
            touchedCells.removeAll(keepingCapacity: true)
        }
    }

    // Long: one pass over the rollups of both metrics, keeping what the checks, the traffic, the
    // sample ratio and the targeted segments each need from them. Regions and app versions are
    // observed only in rollups dated after `observedAfter` (older ones are not in the newest week).
    static func gather(
        candidate: Int, baseline: Int, observedAfter: Int = Int.min, cells names: inout RollupCells,
        rollups: (MetricKind, inout RollupCells) throws -> [RollupEntries]
    ) throws -> Gathered {
        var segments: [String: SegmentData] = [:]
        var cells = Cells()
        // Per observed cell, the newest date a row named it.
        var observedDay: [Int?] = []
        var sums = RollupSums()
        for kind in MetricKind.health {
            for rollup in try rollups(kind, &names) {
                cells.learn(names)
                sums.fit(cells)
                if observedDay.count < cells.observed.count {
                    observedDay += Array(repeating: nil, count: cells.observed.count - observedDay.count)
                }
                var candidateMeasured = false
                for index in 0..<rollup.count {
                    let cell = cells.observedIndex[Int(rollup.cells[index])]
                    guard cell >= 0 else { continue }
                    if rollup.day > observedAfter {
                        observedDay[cell] = max(observedDay[cell] ?? rollup.day, rollup.day)
                    }
                    let version = rollup.versions[index]
                    candidateMeasured = candidateMeasured || version == candidate
                    guard version == candidate || version == baseline else { continue }
                    guard
                        sums.add(
                            rollup.counts[index], isCandidate: version == candidate, segment: cells.segment[cell],
                            cell: cell)
                    else {
                        throw RolloutError.metricsSumOutOfRange(
                            kind: kind, pack: "\(rollup.locale)@\(version)", origins: [])
                    }
                }
                try add(
                    sums, cells: cells, day: rollup.day, kind: kind, candidateMeasured: candidateMeasured,
                    to: &segments, packs: ("\(rollup.locale)@\(candidate)", "\(rollup.locale)@\(baseline)"))
                sums.clear()
            }
        }
        // Only what the metrics named in their newest week: a segment whose traffic ended (an app
        // version nobody runs any more) is not one a rollout can wait for.
        let newest = observedDay.compactMap { $0 }.max()
        let recent = cells.observed.indices.filter { observedDay[$0].map { $0 > (newest ?? 0) - 7 } ?? false }
            .map { cells.observed[$0] }
        return Gathered(
            segments: segments, observed: recent.sorted { ($0.region, $0.appVersion) < ($1.region, $1.appVersion) },
            cells: cells.observed, newest: newest)
    }

    /// Adds one rollup's segments to `segments`: only segments where both arms were measured that
    /// day, the same days, the same conditions.
    static func add(
        _ sums: RollupSums, cells: Cells, day: Int, kind: MetricKind, candidateMeasured: Bool,
        to segments: inout [String: SegmentData], packs: (candidate: String, baseline: String)
    ) throws {
        // Each touched segment's cells, in the order the rollup named them.
        var cellsOf: [Int: [Int]] = [:]
        if kind == .crash {
            for cell in sums.touchedCells { cellsOf[cells.segment[cell], default: []].append(cell) }
        }
        for index in sums.touchedSegments {
            let label = cells.labels[index]
            let touched = (cellsOf[index] ?? []).map { (cell: $0, sessions: sums.sessions[$0]!) }
            guard let c = sums.candidate[index], let b = sums.baseline[index] else {
                // The candidate measured that day, but not here: for the sample ratio, it had no
                // sessions here (the largest mismatch there is, if the plan gives it some).
                if kind == .crash, candidateMeasured, sums.candidate[index] == nil {
                    var segment = segments[label] ?? SegmentData()
                    for (cell, sessions) in touched {
                        segment.sessions.append((day, cell, 0, sessions.b))
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
            for (cell, sessions) in touched {
                segment.sessions.append((day, cell, sessions.c, sessions.b))
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

    /// The candidate's planned share of each cell (region and exact app version) under each plan
    /// of a timeline, worked out once: a segment's cells are the same few on every date.
    struct PlannedShares {
        let timeline: PlanTimeline
        let cells: [Health.Observed]
        let candidate: Int
        let baseline: Int
        /// Per plan index, per cell: the share, once worked out.
        var known: [Int: [Double?]] = [:]

        init(timeline: PlanTimeline, cells: [Health.Observed], candidate: Int, baseline: Int) {
            (self.timeline, self.cells, self.candidate, self.baseline) = (timeline, cells, candidate, baseline)
        }

        mutating func share(plan: Int, cell: Int) -> Double {
            if let share = known[plan]?[cell] { return share }
            let share =
                timeline.plan(plan).armShare(
                    candidate: candidate, baseline: baseline, region: cells[cell].region,
                    version: cells[cell].appVersion) ?? 0
            known[plan, default: Array(repeating: nil, count: cells.count)][cell] = share
            return share
        }
    }

    /// The sample ratio's cells of one segment: per date and exact app version, the sessions of each
    /// arm and the candidate's planned share of them. On a date the plan changed, and the day after
    /// (devices pick up a new manifest over hours), any share in force in those two days is planned:
    /// the cell's planned share is the range of them. Cells are dated in days since `origin`, the
    /// oldest date both packs were measured on (the evidence may start afresh on any of them).
    static func sampleRatioCells(_ data: SegmentData, planned: inout PlannedShares, origin: Int) -> [SampleRatio.Cell] {
        var inForce: [Int: [Int]] = [:]
        return data.sessions.compactMap { entry in
            let start = Int64(entry.day - 1) * 86_400
            let plans = inForce[entry.day] ?? planned.timeline.plans(from: start, to: start + 2 * 86_400)
            inForce[entry.day] = plans
            let shares = plans.map { planned.share(plan: $0, cell: entry.cell) }
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
        var cells = RollupCells()
        for kind in MetricKind.health {
            // Only rollups whose bytes may name the pack are parsed (MetricsLayout.keyVersions).
            for rollup in try MetricsLayout.entries(
                kind, locale: pack.locale, holding: [pack.contentVersion], orAfter: Int.max, cells: &cells,
                in: snapshot)
            where rollup.holds(pack.contentVersion) {
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
