import RolloutModel
import RolloutStore

/// An experiment's outcome counts in one locale, as stored (docs/metrics.md, "Outcome CSVs"): per
/// metric, per day, per pack (content version), exposures and conversions summed over the regions
/// and app versions the experiment targets. What the experiment report reads.
///
///     let totals = try OutcomeTotals.read(
///         locale: "tr-TR", metrics: experiment.metrics, days: first...last,
///         regions: experiment.regions, versions: experiment.versions, in: snapshot)
///     totals.counts["checkout"]?[day]?[18]      // MetricCounts(total: exposures, events: conversions)
///     totals.total(metric: "checkout", contentVersion: 18)   // over every day read
public struct OutcomeTotals: Equatable, Sendable {
    /// metric -> day (since 1970-01-01) -> content version -> summed counts (`total` the exposures,
    /// `events` the conversions). A metric, day or version without counts has no entry.
    public private(set) var counts: [String: [Int: [Int: MetricCounts]]] = [:]

    public init(counts: [String: [Int: [Int: MetricCounts]]] = [:]) { self.counts = counts }

    /// Sums the stored rollups of `outcome-<metric>` for `locale`, for each of `metrics`:
    /// - `days`: only the rollups of these days (since 1970-01-01); nil for every stored day. The
    ///   other rollups are not read (a file's name is its day).
    /// - `regions`: only these regions (ISO codes as stored, `TR`); empty for every region, as an
    ///   experiment's `regions` means.
    /// - `versions`: only app versions in this range (`VersionRange.all` for every one).
    ///
    /// A metric that is no metric name (`Plan.Experiment.isValidMetric`), or of which nothing is
    /// stored, has no entry. Throws what reading a rollup throws (damage; a sum out of the one range,
    /// which ingest keeps from happening).
    public static func read(
        locale: String, metrics: [String], days: ClosedRange<Int>? = nil, regions: [String] = [],
        versions: VersionRange = .all, in snapshot: Snapshot
    ) throws -> OutcomeTotals {
        var totals = OutcomeTotals()
        let wanted = Set(regions)
        for metric in Set(metrics).sorted() {
            guard let kind = MetricKind.outcome(metric) else { continue }
            var byDay: [Int: [Int: MetricCounts]] = [:]
            try MetricsLayout.forEachRollup(kind, locale: locale, on: days, in: snapshot) { rollup in
                for (key, counts) in rollup.counts {
                    guard wanted.isEmpty || wanted.contains(key.region) else { continue }
                    guard versions.isAll || AppVersion(key.appVersion).map(versions.contains) == true else { continue }
                    let sum = byDay[rollup.day]?[key.contentVersion] ?? .zero
                    byDay[rollup.day, default: [:]][key.contentVersion] = try sum.adding(
                        counts, kind: kind, pack: "\(locale)@\(key.contentVersion)")
                }
            }
            if !byDay.isEmpty { totals.counts[metric] = byDay }
        }
        return totals
    }

    /// The days with counts of any metric, oldest first.
    public var days: [Int] { Set(counts.values.flatMap(\.keys)).sorted() }

    /// One metric's counts of one pack summed over every day read.
    public func total(metric: String, contentVersion: Int) -> MetricCounts {
        var sum = MetricCounts.zero
        for byVersion in (counts[metric] ?? [:]).values {
            // Within range: every stored pack's sum is (MetricCounts.maximum, checked at ingest).
            sum = sum.adding(byVersion[contentVersion] ?? .zero) ?? sum
        }
        return sum
    }
}
