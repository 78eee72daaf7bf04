import Foundation
import XCTest

@testable import RolloutModel

/// The health method against a known truth: repeated looks must not inflate false alarms, and a
/// regression confined to a small segment must still be found.
final class HealthTests: XCTestCase {
    /// Poisson-ish counts from a normal approximation: fast, and exact enough at these sizes.
    private func events(_ n: Int, _ p: Double, _ g: inout SplitMix64) -> Int {
        let u1 = max(Double(g.next() >> 11) / Double(1 << 53), 1e-12)
        let u2 = Double(g.next() >> 11) / Double(1 << 53)
        let z = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        let mean = Double(n) * p
        return max(0, min(n, Int((mean + z * (mean * (1 - p)).squareRoot()).rounded())))
    }

    /// Runs one rollout hour by hour for 14 days; returns the first hour it is judged unhealthy.
    private func firstAlarm(seed: UInt64, regressionFactor: Double) -> Int? {
        var g = SplitMix64(seed: seed)
        let shares = [0.40, 0.30, 0.15, 0.10, 0.05]
        let candidatePerHour = 20_000.0
        let baselinePerHour = 180_000.0
        let crashRate = 0.002
        var candidate = [MetricCounts](repeating: MetricCounts(total: 0, events: 0), count: shares.count)
        var baseline = candidate
        for hour in 1...(14 * 24) {
            for (i, share) in shares.enumerated() {
                let nc = Int(candidatePerHour * share)
                let nb = Int(baselinePerHour * share)
                // The regression lives only in the last (5%) segment.
                let rate = i == shares.count - 1 ? crashRate * regressionFactor : crashRate
                candidate[i] = candidate[i].adding(MetricCounts(total: nc, events: events(nc, rate, &g)))!
                baseline[i] = baseline[i].adding(MetricCounts(total: nb, events: events(nb, crashRate, &g)))!
            }
            let segments = shares.indices.map { i in
                (label: "S\(i)", candidate: [MetricKind.crash: candidate[i]], baseline: [MetricKind.crash: baseline[i]])
            }
            if Health.evaluate(segments, gates: .default).verdict == .unhealthy { return hour }
        }
        return nil
    }

    func testHourlyLooksForTwoWeeksKeepFalseAlarmsUnderFivePercent() {
        let runs = 1000
        let alarms = (0..<runs).filter { firstAlarm(seed: UInt64($0) &+ 1, regressionFactor: 1) != nil }.count
        XCTAssertLessThanOrEqual(
            Double(alarms) / Double(runs), 0.05, "\(alarms) of \(runs) healthy rollouts were flagged")
        print("health: \(alarms) of \(runs) rollouts without a regression were flagged over 336 hourly looks")
    }

    func testADoublingInOneFivePercentSegmentIsFound() {
        let delays = (0..<50).compactMap { firstAlarm(seed: 10_000 + UInt64($0), regressionFactor: 2) }
        XCTAssertGreaterThanOrEqual(delays.count, 48, "found in \(delays.count) of 50")
        let median = delays.sorted()[delays.count / 2]
        XCTAssertLessThanOrEqual(median, 72, "median detection delay \(median) hours")
        print(
            "health: a doubling in a 5% segment was found in \(delays.count) of 50 rollouts; median delay \(median) h")
    }

    func testTooFewSamplesIsInsufficientDataNotHealthy() {
        let small = [
            (
                label: "TR/4.8", candidate: [MetricKind.crash: MetricCounts(total: 100, events: 0)],
                baseline: [MetricKind.crash: MetricCounts(total: 100, events: 0)]
            )
        ]
        XCTAssertEqual(Health.evaluate(small, gates: .default).verdict, .insufficientData)
    }
}
