import XCTest

@testable import RolloutModel

/// The one range of a stored count (docs/metrics.md, "One range for every count").
final class MetricCountsTests: XCTestCase {
    func testSumsStayWithinTheLargestExactJSONInteger() {
        let top = MetricCounts(total: MetricCounts.maximum, events: 0)
        XCTAssertEqual(top.adding(.zero), top)
        XCTAssertNil(top.adding(MetricCounts(total: 1, events: 0)), "2^53 is past the range")
        XCTAssertNil(
            MetricCounts(total: Int.max, events: 0).adding(MetricCounts(total: 1, events: 0)), "no overflow trap")
        XCTAssertThrowsError(try top.adding(MetricCounts(total: 1, events: 1), kind: .crash, pack: "tr-TR@18")) {
            error in
            XCTAssertEqual((error as? RolloutError)?.exitCode, 65)
        }
    }

    func testARollupReadsCountsExactlyAndNamesTheFileToRetractWhenOutOfRange() throws {
        func rollup(_ total: String) -> [UInt8] {
            Array(
                """
                {"columns": ["sessions", "crashes"], "counts": {"18|TR|4.8.1": [\(total), 1, "0123456789ab"]}, "date": "2026-11-20", "kind": "crash", "locale": "tr-TR"}
                """.utf8)
        }
        let exact = try MetricRollup.parse(rollup("9007199254740991"), source: "r.json")
        XCTAssertEqual(exact.counts.values.first?.total, MetricCounts.maximum)
        XCTAssertThrowsError(try MetricRollup.parse(rollup("9007199254740993"), source: "r.json")) { error in
            XCTAssertEqual((error as? RolloutError)?.exitCode, 65)
            XCTAssertTrue(
                (error as? RolloutError)?.message.contains("rollout metrics retract sha256:0123456789ab") == true,
                "\(error)")
        }
        let kept = try MetricRollup.parse(rollup("9007199254740993"), source: "r.json", checkingRange: false)
        XCTAssertEqual(
            kept.counts.values.first?.total, 9_007_199_254_740_993, "read from its digits, not through a double")
    }

    func testTotalsPerPackRefuseASumPastTheRange() throws {
        var totals = MetricTotals(kind: .crash, locale: "tr-TR")
        let key = MetricRollup.Key(contentVersion: 18, region: "TR", appVersion: "4.8.1")
        let half = MetricCounts(total: MetricCounts.maximum / 2 + 1, events: 0)
        try totals.add(
            MetricRollup(kind: .crash, locale: "tr-TR", day: 1, counts: [key: half], sources: [key: "aaaaaaaaaaaa"]))
        XCTAssertEqual(totals.total(of: 18), half.total)
        XCTAssertThrowsError(
            try totals.add(
                MetricRollup(kind: .crash, locale: "tr-TR", day: 2, counts: [key: half], sources: [key: "bbbbbbbbbbbb"])
            )
        ) { error in
            XCTAssertTrue(
                (error as? RolloutError)?.message.contains("sha256:aaaaaaaaaaaa, sha256:bbbbbbbbbbbb") == true,
                "\(error)")
        }
    }
}
