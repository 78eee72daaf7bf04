import XCTest

@testable import RolloutIngest
@testable import RolloutModel

/// The traffic a segment's time to a decision is estimated at (docs/health.md, "rollout health",
/// DECIDED): whole days before the newest, which may still be being counted.
final class HealthTrafficTests: XCTestCase {
    func traffic(_ days: [(Int, Int)]) -> Double? {
        var data = HealthCheck.SegmentData()
        data.days[.crash] = days.map { (day: $0.0, candidate: $0.1, baseline: $0.1 * 9) }
        return HealthCheck.traffic(data)[.crash]?.candidate
    }

    func testTheNewestDayIsLeftOutAndMissingDaysCountAsNone() {
        XCTAssertEqual(traffic([(10, 2_500)]), 2_500, "one day is all there is")
        XCTAssertEqual(traffic([(10, 2_500), (11, 300)]), 2_500, "the newest, partial day is left out")
        XCTAssertEqual(traffic([(8, 2_000), (9, 3_000), (10, 4_000), (11, 10)]), 3_000)
        XCTAssertEqual(traffic([(1, 9_000), (8, 2_000), (10, 4_000), (11, 10)]), 2_000, "day 9 had no traffic")
    }

    func testAnEstimateFollowsFromTheTrafficAndTheMinimum() {
        let counts = MetricCounts(total: 10_000, events: 20)
        let days = Health.daysToDecision(
            candidate: counts, baseline: MetricCounts(total: 90_000, events: 180), minSamples: 20_000,
            traffic: Health.Traffic(candidate: 2_500, baseline: 22_500))
        XCTAssertEqual(days, 4)
        XCTAssertEqual(
            Health.daysToDecision(
                candidate: counts, baseline: counts, minSamples: 20_000,
                traffic: Health.Traffic(candidate: 0, baseline: 2_500)), .infinity, "no traffic, no decision")
        XCTAssertEqual(
            Health.daysToDecision(candidate: counts, baseline: counts, minSamples: 5_000, traffic: nil), 0,
            "judged already")
        XCTAssertEqual(HealthText.days(4, measured: true), "~4 days")
        XCTAssertEqual(HealthText.days(0.3, measured: true), "~1 day")
        XCTAssertEqual(HealthText.days(.infinity, measured: true), "no traffic")
    }
}
