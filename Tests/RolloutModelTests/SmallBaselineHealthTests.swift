import Foundation
import XCTest

@testable import RolloutModel

/// Issue 31, item 10: false alarms when the baseline arm is small. With the candidate at 90, 95 or
/// 99% of a segment and rare crashes (baseline 0.05%, candidate 0.15%: exactly the 0.1-point
/// tolerance, so every alarm is false), 1,500 baseline sessions a day and one look a day for 14 days,
/// at most 1 - confidence of the rollouts may be flagged (docs/health.md, "Evidence: the simulation
/// tests"). The variance the old bound used came from the observed baseline rate: one crash fewer both
/// widened the difference and narrowed its variance. `PlugInBound` keeps that formula, so each shape
/// prints its false alarms before and after; scripts/health-simulations.sh runs more rollouts
/// (HEALTH_SIM_RUNS, HEALTH_SIM_SEED).
final class SmallBaselineHealthTests: XCTestCase {
    /// The one look of the issue: candidate 1485/990000, baseline 1/10000. An exact two-sided 95%
    /// interval on the baseline (Clopper-Pearson: one crash in 10,000 sessions, up to 0.056%) allows
    /// a difference of 0.093 points, under the tolerance, so this is no evidence of a regression.
    func testOneBaselineCrashInTenThousandSessionsIsNotUnhealthy() {
        let candidate = MetricCounts(total: 990_000, events: 1485)
        let baseline = MetricCounts(total: 10_000, events: 1)
        let segments = [
            (label: "TR/4.8", candidate: [MetricKind.crash: candidate], baseline: [MetricKind.crash: baseline])
        ]
        let report = Health.evaluate(segments, gates: .default)
        XCTAssertEqual(report.verdict, .healthy, "lower bound \(report.checks[0].lower ?? .nan)")
        XCTAssertLessThanOrEqual(report.checks[0].lower ?? 1, report.checks[0].tolerance)
        // The old formula called it unhealthy.
        XCTAssertTrue(PlugInBound.isUnhealthy(candidate, baseline, gates: .default, checks: 1))
    }

    /// The bounds and the verdict agree, and the sequence contains the observed difference.
    func testTheBoundsAgreeWithTheVerdict() {
        let cases: [(MetricCounts, MetricCounts)] = [
            (MetricCounts(total: 36_000, events: 214), MetricCounts(total: 324_000, events: 607)),
            (MetricCounts(total: 10_000, events: 15), MetricCounts(total: 90_000, events: 156)),
            (MetricCounts(total: 5_000, events: 0), MetricCounts(total: 5_000, events: 0)),
            (MetricCounts(total: 5_000, events: 5_000), MetricCounts(total: 5_000, events: 0)),
            (MetricCounts(total: 990_000, events: 1485), MetricCounts(total: 10_000, events: 0)),
            (MetricCounts(total: 1_440_000, events: 5811), MetricCounts(total: 12_960_000, events: 51975)),
        ]
        for (candidate, baseline) in cases {
            let report = Health.evaluate(
                [(label: "S", candidate: [MetricKind.crash: candidate], baseline: [MetricKind.crash: baseline])],
                gates: .default)
            let check = report.checks[0]
            guard let lower = check.lower, let upper = check.upper, let difference = check.difference else {
                return XCTFail("no bounds for \(candidate) against \(baseline)")
            }
            XCTAssertLessThanOrEqual(lower, difference, "\(candidate) against \(baseline)")
            XCTAssertGreaterThanOrEqual(upper, difference, "\(candidate) against \(baseline)")
            XCTAssertEqual(check.verdict == .unhealthy, lower > check.tolerance, "\(candidate) against \(baseline)")
        }
        // The clear regression of the worked example stays unhealthy.
        let spike = Health.evaluate(
            [
                (
                    label: "TR/4.8", candidate: [MetricKind.crash: MetricCounts(total: 36_000, events: 214)],
                    baseline: [MetricKind.crash: MetricCounts(total: 324_000, events: 607)]
                )
            ], gates: .default)
        XCTAssertEqual(spike.verdict, .unhealthy)
    }

    func testAtTheToleranceANinetyPercentShareWithASmallBaselineKeepsFalseAlarmsUnderFivePercent() throws {
        try assertSmallBaseline(share: 0.90, stream: 1)
    }

    func testAtTheToleranceANinetyFivePercentShareWithASmallBaselineKeepsFalseAlarmsUnderFivePercent() throws {
        try assertSmallBaseline(share: 0.95, stream: 2)
    }

    func testAtTheToleranceANinetyNinePercentShareWithASmallBaselineKeepsFalseAlarmsUnderFivePercent() throws {
        try assertSmallBaseline(share: 0.99, stream: 3)
    }

    /// Power did not collapse: a candidate at 0.30% against 0.05% (2.5 times the tolerance) at a 99%
    /// share is still found, and at 0.25% (twice the tolerance) most of the time.
    func testARealRegressionWithASmallBaselineIsStillFound() throws {
        for (rate, required, stream) in [(0.0030, 0.95, UInt64(4)), (0.0025, 0.60, UInt64(5))] {
            let shape = SmallBaselineShape(share: 0.99, candidateRate: rate)
            let outcome = try shape.simulate(stream: stream, defaultRuns: 300)
            XCTAssertGreaterThanOrEqual(
                outcome.afterRate, required, "\(rate): found in \(outcome.after) of \(outcome.runs) rollouts")
            print(
                "health: a regression to \(rate * 100)% against 0.05% at a 99% share: found in \(outcome.after) of"
                    + " \(outcome.runs) rollouts over 14 daily looks (the plug-in variance: \(outcome.before))")
        }
    }

    private func assertSmallBaseline(share: Double, stream: UInt64) throws {
        let shape = SmallBaselineShape(share: share, candidateRate: 0.0015)
        let outcome = try shape.simulate(stream: stream, defaultRuns: 1000)
        let level = 1 - shape.gates.confidence
        XCTAssertLessThanOrEqual(
            outcome.afterRate, level, "\(share): \(outcome.after) of \(outcome.runs) flagged at the tolerance")
        print(
            "health: at the tolerance, candidate \(Int(share * 100))% of a segment, 1500 baseline sessions a day:"
                + " \(outcome.after) of \(outcome.runs) rollouts were flagged over 14 daily looks"
                + " (the plug-in variance: \(outcome.before))")
    }
}

/// One segment: 1,500 baseline sessions a day, the candidate `share` of the segment's sessions, the
/// baseline crashing in 0.05% of sessions and the candidate at `candidateRate`, judged once a day for
/// 14 days with the default gates (one check: alpha 0.05).
private struct SmallBaselineShape {
    static let days = 14
    static let baselinePerDay = 1500
    static let baselineRate = 0.0005

    let share: Double
    let candidateRate: Double
    let gates = GatePolicy.default

    struct Outcome {
        let runs: Int
        let after: Int
        let before: Int
        var afterRate: Double { Double(after) / Double(max(1, runs)) }
    }

    func simulate(stream: UInt64, defaultRuns: Int) throws -> Outcome {
        let runs = try Setting.value("HEALTH_SIM_RUNS", default: defaultRuns, range: 1...1_000_000)
        let base = try Setting.value("HEALTH_SIM_SEED", default: 0, range: 0...1_000_000)
        let candidatePerDay = Int((Double(Self.baselinePerDay) * share / (1 - share)).rounded())
        var after = 0
        var before = 0
        for run in 0..<runs {
            var generator = SplitMix64(seed: UInt64(base) << 40 | (0x31 << 8 | stream) << 24 | UInt64(run))
            var candidate = MetricCounts.zero
            var baseline = MetricCounts.zero
            var flagged = (after: false, before: false)
            for _ in 1...Self.days {
                candidate.total += candidatePerDay
                candidate.events += draw(candidatePerDay, candidateRate, &generator)
                baseline.total += Self.baselinePerDay
                baseline.events += draw(Self.baselinePerDay, Self.baselineRate, &generator)
                let segments = [
                    (label: "S", candidate: [MetricKind.crash: candidate], baseline: [MetricKind.crash: baseline])
                ]
                if !flagged.after { flagged.after = Health.evaluate(segments, gates: gates).verdict == .unhealthy }
                if !flagged.before {
                    flagged.before = PlugInBound.isUnhealthy(candidate, baseline, gates: gates, checks: 1)
                }
            }
            after += flagged.after ? 1 : 0
            before += flagged.before ? 1 : 0
        }
        return Outcome(runs: runs, after: after, before: before)
    }
}

/// The bound before issue 31: the normal-mixture boundary with the variance from the observed rates.
private enum PlugInBound {
    static func isUnhealthy(_ candidate: MetricCounts, _ baseline: MetricCounts, gates: GatePolicy, checks: Int) -> Bool
    {
        let gate = gates.crash
        guard candidate.total >= gate.minSamples, baseline.total >= gate.minSamples else { return false }
        let alpha = (1 - gates.confidence) / Double(checks)
        let n1 = Double(candidate.total)
        let n0 = Double(baseline.total)
        let p1 = Double(candidate.events) / n1
        let p0 = Double(baseline.events) / n0
        let s1 = max(p1 * (1 - p1), 1 / n1)
        let s0 = max(p0 * (1 - p0), 1 / n0)
        let variance = s1 / n1 + s0 / n0
        let t = (s1 + s0) / variance
        let logTerm = -2 * log(alpha)
        let rho2 = (logTerm + log(logTerm + 1)) / Double(gate.minSamples)
        let radius = (variance * 2 * (t * rho2 + 1) / (t * rho2) * log((t * rho2 + 1).squareRoot() / alpha))
            .squareRoot()
        let tolerance = max(gate.maxAbsoluteIncrease, gate.maxRelativeIncrease * p0)
        return p1 - p0 - radius > tolerance
    }
}

/// An exact binomial draw by inversion (n x p stays in the hundreds here).
private func draw(_ n: Int, _ p: Double, _ generator: inout SplitMix64) -> Int {
    guard n > 0, p > 0 else { return 0 }
    let u = Double(generator.next() >> 11) / Double(1 << 53)
    let odds = p / (1 - p)
    var probability = pow(1 - p, Double(n))
    var cumulative = probability
    var k = 0
    while cumulative <= u && k < n && probability > 0 {
        probability *= Double(n - k) / Double(k + 1) * odds
        k += 1
        cumulative += probability
    }
    return k
}

private enum Setting {
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    static func value(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = ProcessInfo.processInfo.environment[name], !text.isEmpty else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw Invalid(description: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
