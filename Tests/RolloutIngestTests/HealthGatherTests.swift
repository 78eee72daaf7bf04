import XCTest

@testable import RolloutIngest
@testable import RolloutModel

/// What health reads from a locale's rollups (HealthCheck.gather), model-based: random rollups of
/// both kinds, with regions and app versions of every shape ingest stores (two spellings of one
/// version, versions health does not read, segments only one arm measured), gathered from the columns
/// `RollupEntries` reads against the same sums worked out entry by entry from `MetricRollup`s (issue 36).
/// Versions are compared by value: of two spellings of one version, the reference keeps the one its
/// dictionary happened to see first, gather the first one it read.
final class HealthGatherTests: XCTestCase {
    struct Reference {
        var segments: [String: String] = [:]
        var observed: [Health.Observed] = []
    }

    /// The sums of each segment, entry by entry, with a dictionary per rollup: what gather computes.
    // Long: the reference is written out plainly, in the order the docs describe (docs/health.md).
    static func reference(
        _ rollups: [MetricRollup], candidate: Int, baseline: Int, observedAfter: Int
    ) -> Reference {
        var candidateSums: [String: [MetricKind: MetricCounts]] = [:]
        var baselineSums: [String: [MetricKind: MetricCounts]] = [:]
        var days: [String: [MetricKind: [String]]] = [:]
        var sessions: [String: [String]] = [:]
        var observedDay: [Health.Observed: Int] = [:]
        for rollup in rollups {
            var c: [String: MetricCounts] = [:]
            var b: [String: MetricCounts] = [:]
            var cells: [String: [Health.Observed: (c: Int, b: Int)]] = [:]
            var candidateMeasured = false
            for (key, counts) in rollup.counts {
                guard let version = AppVersion(key.appVersion) else { continue }
                let cell = Health.Observed(region: key.region, appVersion: version)
                if rollup.day > observedAfter { observedDay[cell] = max(observedDay[cell] ?? rollup.day, rollup.day) }
                candidateMeasured = candidateMeasured || key.contentVersion == candidate
                guard key.contentVersion == candidate || key.contentVersion == baseline else { continue }
                let isCandidate = key.contentVersion == candidate
                if isCandidate {
                    c[cell.segment] = c[cell.segment, default: .zero].adding(counts)!
                } else {
                    b[cell.segment] = b[cell.segment, default: .zero].adding(counts)!
                }
                var counted = cells[cell.segment, default: [:]][cell] ?? (0, 0)
                if isCandidate { counted.c += counts.total } else { counted.b += counts.total }
                cells[cell.segment, default: [:]][cell] = counted
            }
            for label in Set(c.keys).union(b.keys) {
                let line = { (cell: Health.Observed, s: (c: Int, b: Int)) in
                    "\(rollup.day) \(cell.region) \(cell.appVersion.normalized) \(s.c) \(s.b)"
                }
                guard let cs = c[label], let bs = b[label] else {
                    if rollup.kind == .crash, candidateMeasured, c[label] == nil {
                        sessions[label, default: []] += cells[label, default: [:]].map { line($0.key, (0, $0.value.b)) }
                    }
                    continue
                }
                candidateSums[label, default: [:]][rollup.kind] =
                    candidateSums[label, default: [:]][rollup.kind, default: .zero].adding(cs)!
                baselineSums[label, default: [:]][rollup.kind] =
                    baselineSums[label, default: [:]][rollup.kind, default: .zero].adding(bs)!
                days[label, default: [:]][rollup.kind, default: []].append("\(rollup.day) \(cs.total) \(bs.total)")
                if rollup.kind == .crash {
                    sessions[label, default: []] += cells[label, default: [:]].map { line($0.key, $0.value) }
                }
            }
        }
        var result = Reference()
        for label in Set(candidateSums.keys).union(sessions.keys) {
            result.segments[label] = describe(
                candidate: candidateSums[label] ?? [:], baseline: baselineSums[label] ?? [:], days: days[label] ?? [:],
                sessions: sessions[label] ?? [])
        }
        let newest = observedDay.values.max() ?? 0
        result.observed = observedDay.filter { $0.value > newest - 7 }.keys.sorted {
            ($0.region, $0.appVersion) < ($1.region, $1.appVersion)
        }
        return result
    }

    /// A segment's data as text; sessions sorted, as the reference's dictionaries have no order.
    static func describe(
        candidate: [MetricKind: MetricCounts], baseline: [MetricKind: MetricCounts], days: [MetricKind: [String]],
        sessions: [String]
    ) -> String {
        let kinds = MetricKind.health
        return kinds.map { "\($0): \(candidate[$0].map { "\($0)" } ?? "-") \(baseline[$0].map { "\($0)" } ?? "-")" }
            .joined(separator: "; ") + " days "
            + kinds.map { (days[$0] ?? []).joined(separator: ",") }.joined(separator: "/")
            + " sessions " + sessions.sorted().joined(separator: ",")
    }

    static func rollups(seed: UInt64) -> [MetricRollup] {
        var state = seed &+ 0x9E37_79B9
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let regions = ["TR", "DE", "CY", "US", "FR"]
        // "4.8" and "4.8.0" are one version; "beta" and "4..1" are none health reads.
        let apps = ["4.8", "4.8.0", "4.8.1", "4.10.2", "5", "beta", "4..1", "4.9"]
        var rollups: [MetricRollup] = []
        for kind in MetricKind.health {
            for day in 20_770..<(20_770 + 4 + next(10)) where next(5) != 0 {
                var rollup = MetricRollup(kind: kind, locale: "tr-TR", day: day)
                for _ in 0..<next(60) {
                    let key = MetricRollup.Key(
                        contentVersion: [17, 18, 16][next(3)], region: regions[next(regions.count)],
                        appVersion: apps[next(apps.count)])
                    rollup.counts[key] = MetricCounts(total: next(50_000), events: next(200))
                    rollup.sources[key] = "759c754d8def"
                }
                rollups.append(rollup)
            }
        }
        return rollups
    }

    func testGatherFromColumnsAgreesWithAnEntryByEntryReference() throws {
        for seed in 0..<60 as Range<UInt64> {
            let rollups = Self.rollups(seed: seed)
            let observedAfter = seed % 3 == 0 ? Int.min : 20_772
            var cells = RollupCells()
            let gathered = try HealthCheck.gather(
                candidate: 18, baseline: 17, observedAfter: observedAfter, cells: &cells
            ) { kind, cells in
                rollups.filter { $0.kind == kind }.map { RollupEntries($0, cells: &cells) }
            }
            let expected = Self.reference(rollups, candidate: 18, baseline: 17, observedAfter: observedAfter)
            let segments = gathered.segments.mapValues { data in
                Self.describe(
                    candidate: data.candidate, baseline: data.baseline,
                    days: data.days.mapValues { $0.map { "\($0.day) \($0.candidate) \($0.baseline)" } },
                    sessions: data.sessions.map {
                        let cell = gathered.cells[$0.cell]
                        return "\($0.day) \(cell.region) \(cell.appVersion.normalized) \($0.candidate) \($0.baseline)"
                    })
            }
            for label in Set(segments.keys).union(expected.segments.keys).sorted() {
                XCTAssertEqual(segments[label], expected.segments[label], "seed \(seed), \(label)")
            }
            XCTAssertEqual(
                gathered.observed.map { "\($0.region) \($0.appVersion.normalized)" },
                expected.observed.map { "\($0.region) \($0.appVersion.normalized)" }, "seed \(seed)")
        }
    }
}
