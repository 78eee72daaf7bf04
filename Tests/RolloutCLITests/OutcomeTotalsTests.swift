import Foundation
import RolloutIngest
import RolloutModel
import RolloutStore
import XCTest

/// `OutcomeTotals.read` (what the experiment report reads) against random outcome rollups stored in
/// a repository, summed again entry by entry; and `MetricsIngest.outcomeMetrics`, the metrics an
/// outcome CSV names. In RolloutCLITests because it needs a repository (RolloutStore), which
/// RolloutIngestTests does not depend on.
final class OutcomeTotalsTests: XCTestCase {
    let actor = try! Actor.parse("Tester <tester@example.com>", from: "test")
    let time = Timestamp(iso8601: "2026-12-01T09:00:00Z")!
    var scratch = ""

    override func setUpWithError() throws {
        scratch = NSTemporaryDirectory() + "outcome-totals-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: scratch) }

    func testTotalsAreTheStoredCountsSummedOverTheTargetedRegionsAndVersions() throws {
        var generator = SystemRandomNumberGenerator()
        let regions = ["TR", "DE", "US"]
        let apps = ["4.7.2", "4.8.0", "4.8.1", "4.10", "5.0.1"]
        let metrics = ["checkout", "signup"]
        let firstDay = 20_500
        var rollups: [MetricRollup] = []
        for metric in metrics {
            for day in firstDay..<(firstDay + 4) {
                var rollup = MetricRollup(kind: .outcome(metric)!, locale: "tr-TR", day: day)
                for version in [17, 18, 19] {
                    for region in regions {
                        for app in apps where Bool.random(using: &generator) {
                            let exposures = Int.random(in: 0...10_000, using: &generator)
                            let key = MetricRollup.Key(contentVersion: version, region: region, appVersion: app)
                            rollup.counts[key] = MetricCounts(
                                total: exposures, events: Int.random(in: 0...exposures, using: &generator))
                            rollup.sources[key] = "0123456789ab"
                        }
                    }
                }
                if !rollup.counts.isEmpty { rollups.append(rollup) }
            }
        }
        // A health kind's rollup of the same locale is no outcome.
        let crash = MetricRollup(
            kind: .crash, locale: "tr-TR", day: firstDay,
            counts: [.init(contentVersion: 18, region: "TR", appVersion: "4.8.1"): .init(total: 5, events: 1)])
        let files = (rollups + [crash]).map { rollup in
            (path: MetricsLayout.rollup(rollup.kind, locale: rollup.locale, day: rollup.day), bytes: rollup.storedBytes)
        }
        let (repository, _) = try PackRepository.create(at: scratch + "/repo", files: files, actor: actor, time: time)
        let snapshot = try repository.snapshot()
        XCTAssertEqual(
            try MetricsLayout.storedKinds(in: snapshot).map(\.rawValue),
            ["crash", "outcome-checkout", "outcome-signup"])
        XCTAssertTrue(MetricsLayout.isRollup("metrics/outcome-checkout/tr-TR/2026-01-01.json"))
        XCTAssertFalse(MetricsLayout.isRollup("metrics/ingests/abc.outcome-checkout.json"))

        let range = try VersionRange.parse(">=4.8 <5")
        for (days, targeted, versions) in [
            (nil, [String](), VersionRange.all), (firstDay + 1...firstDay + 2, ["TR", "DE"], range),
            (firstDay...firstDay, ["US"], VersionRange.all),
        ] as [(ClosedRange<Int>?, [String], VersionRange)] {
            let totals = try OutcomeTotals.read(
                locale: "tr-TR", metrics: metrics + ["Not A Metric", "none"], days: days, regions: targeted,
                versions: versions, in: snapshot)
            var expected: [String: [Int: [Int: MetricCounts]]] = [:]
            for rollup in rollups where days?.contains(rollup.day) ?? true {
                for (key, counts) in rollup.counts
                where (targeted.isEmpty || targeted.contains(key.region))
                    && versions.contains(AppVersion(key.appVersion)!)
                {
                    let metric = rollup.kind.metric!
                    let sum = expected[metric]?[rollup.day]?[key.contentVersion] ?? .zero
                    expected[metric, default: [:]][rollup.day, default: [:]][key.contentVersion] = sum.adding(counts)!
                }
            }
            XCTAssertEqual(totals.counts, expected, "\(String(describing: days)) \(targeted) \(versions)")
            XCTAssertNil(totals.counts["none"])
            let whole = expected["checkout"]?.values.compactMap { $0[18] }.reduce(MetricCounts.zero) { $0.adding($1)! }
            XCTAssertEqual(totals.total(metric: "checkout", contentVersion: 18), whole ?? .zero)
        }
        XCTAssertEqual(
            try OutcomeTotals.read(locale: "de-DE", metrics: metrics, in: snapshot), OutcomeTotals(), "nothing stored")
    }

    func testTheMetricsAnOutcomeCSVNamesAreFoundInOnePass() throws {
        let path = scratch + "/outcomes.csv"
        let text =
            "Date,Event,pack,exposures\n2026-11-25,signup,x,1\n2026-11-25,checkout,x,1\n2026-11-25, signup ,x,1\n"
            + "2026-11-25,Not Valid,x,1\nshort\n2026-11-26,checkout,x,2\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(
            try MetricsIngest.outcomeMetrics(path: path, name: "outcomes.csv", mapping: ["metric": "event"]),
            ["checkout", "signup"])
        XCTAssertThrowsError(try MetricsIngest.outcomeMetrics(path: path, name: "outcomes.csv", mapping: [:])) {
            guard case .headerLacks(let place, let missing, let found, let kind) = $0 as? IngestRefusal else {
                return XCTFail("\($0)")
            }
            XCTAssertEqual(place, "outcomes.csv:1")
            XCTAssertEqual(missing, ["metric"])
            XCTAssertEqual(found, ["date", "event", "pack", "exposures"])
            XCTAssertNil(kind)
        }
        // No row names a metric: each bad row is named by its line, as a kind's reading names it.
        try "date,metric\n2026-11-25,Not Valid\nshort\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try MetricsIngest.outcomeMetrics(path: path, name: "o.csv", mapping: [:])) {
            guard case .invalidRows(let file, let shown, let count, let rows) = $0 as? IngestRefusal else {
                return XCTFail("\($0)")
            }
            XCTAssertEqual(file, "o.csv")
            XCTAssertEqual(shown.map(\.line), [2, 3])
            XCTAssertEqual(shown.last?.message, "1 fields, the header has 2")
            XCTAssertEqual([count, rows], [2, 2])
        }
        // No row at all: nothing to name but the file.
        try "date,metric\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try MetricsIngest.outcomeMetrics(path: path, name: "o.csv", mapping: [:])) {
            guard case .namesNoMetric(let file) = $0 as? IngestRefusal else { return XCTFail("\($0)") }
            XCTAssertEqual(file, "o.csv")
        }
    }
}
