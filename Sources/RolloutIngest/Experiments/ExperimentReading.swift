import RolloutModel
import RolloutStore

/// What `rollout experiment show`, guard and the report read of an experiment (docs/experiments.md):
/// its outcome counts per metric, day and variant, and each treatment's crash and fallback health
/// against the control, both over the experiment's days and targeting only; then
/// `ExperimentAnalysis.analyze` decides.
public enum ExperimentReading {
    public static func analyze(_ record: ExperimentRecord, in snapshot: Snapshot, now: Timestamp) throws
        -> ExperimentAnalysis.Result
    {
        ExperimentAnalysis.analyze(
            record, outcomes: try outcomes(record, in: snapshot, now: now),
            guardrails: try guardrails(record, in: snapshot, now: now), now: now)
    }

    /// Whether a rollup entry is of a variant, a day and a device the experiment targets.
    static func counts(
        _ record: ExperimentRecord, _ key: MetricRollup.Key, day: Int, days: ClosedRange<Int>, variants: Set<Int>
    ) -> Bool {
        guard days.contains(day), variants.contains(key.contentVersion),
            record.regions.isEmpty || record.regions.contains(key.region),
            let version = AppVersion(key.appVersion)
        else { return false }
        return record.versions.contains(version)
    }

    /// Per metric, per day, per pack: exposures and conversions, over the experiment's days and
    /// targeting (`OutcomeTotals`); the analysis reads the variants' packs only.
    public static func outcomes(_ record: ExperimentRecord, in snapshot: Snapshot, now: Timestamp) throws -> [String:
        ExperimentAnalysis.Daily]
    {
        try OutcomeTotals.read(
            locale: record.locale, metrics: record.metrics, days: record.days(until: now), regions: record.regions,
            versions: record.versions, in: snapshot
        ).counts
    }

    /// The metrics of outcome counts stored for the experiment's locale on its days that are not its
    /// metrics, by name (from the rollups' paths, nothing parsed): the analysis never reads them, and
    /// `experiment show` says so, since one is most often the declared metric misspelled in an export.
    public static func otherMetrics(_ record: ExperimentRecord, in snapshot: Snapshot, now: Timestamp) throws
        -> [String]
    {
        let days = record.days(until: now)
        let declared = Set(record.metrics)
        return try MetricsLayout.outcomeKinds(of: record.locale, in: snapshot).compactMap { kind in
            guard let metric = kind.metric, !declared.contains(metric) else { return nil }
            let rollups = try snapshot.directory(MetricsLayout.rollupDirectory(kind, locale: record.locale))
            let onItsDays = rollups.contains { entry in
                MetricsLayout.day(ofRollupNamed: entry.name).map(days.contains) ?? false
            }
            return onItsDays ? metric : nil
        }
    }

    /// Per treatment: its guardrail kinds judged as `health` judges a staged pack against its
    /// baseline, here against the control, per region and app-version family.
    public static func guardrails(_ record: ExperimentRecord, in snapshot: Snapshot, now: Timestamp) throws -> [Int:
        Health.Report]
    {
        let days = record.days(until: now)
        let variants = Set(record.variants.map(\.contentVersion))
        // segment -> kind -> content version -> counts
        var sums: [String: [MetricKind: [Int: MetricCounts]]] = [:]
        for kind in record.guardrails {
            try MetricsLayout.forEachRollup(kind, locale: record.locale, on: days, in: snapshot) { rollup in
                for (key, value) in rollup.counts
                where counts(record, key, day: rollup.day, days: days, variants: variants) {
                    let segment = "\(key.region)/\(AppVersion(key.appVersion)?.family ?? key.appVersion)"
                    let sum = sums[segment]?[kind]?[key.contentVersion] ?? .zero
                    sums[segment, default: [:]][kind, default: [:]][key.contentVersion] = try sum.adding(
                        value, kind: kind, pack: "\(record.locale)@\(key.contentVersion)")
                }
            }
        }
        let gates = try snapshot.policy().gates
        var reports: [Int: Health.Report] = [:]
        for treatment in record.treatments.map(\.contentVersion) {
            let segments = sums.keys.sorted().compactMap {
                label -> (label: String, candidate: [MetricKind: MetricCounts], baseline: [MetricKind: MetricCounts])?
                in
                let byKind = sums[label] ?? [:]
                let candidate = byKind.compactMapValues { $0[treatment] }
                guard !candidate.isEmpty else { return nil }
                return (label, candidate, byKind.compactMapValues { $0[record.control.contentVersion] })
            }
            reports[treatment] = Health.evaluate(segments, gates: gates)
        }
        return reports
    }
}
