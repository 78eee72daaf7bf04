import Foundation
import XCTest

@testable import RolloutModel

/// The sample-ratio test against a known truth: a candidate that gets twice its planned share in one
/// small segment is held within hours, while hourly looks for two weeks at the planned share, at the
/// edge of the band, or along a ramp hold a rollout no more often than the level allows.
/// scripts/srm-simulations.sh runs the simulations with many more runs (SRM_SIM_* variables).
final class SampleRatioTests: XCTestCase {
    /// Sessions an hour in each of five segments: 40, 30, 15, 10 and 5% of 200,000.
    static let sessionsPerHour = [80_000, 60_000, 30_000, 20_000, 10_000]
    static let minSamples = 5_000
    static let hours = 14 * 24
    static let labels = sessionsPerHour.indices.map { "S\($0)" }

    // MARK: Simulations

    func testTwiceThePlannedShareInTheSmallestSegmentIsHeldWithinSixHours() {
        let runs = knob("SRM_SIM_BUG_RUNS", 50)
        let bugged = Self.sessionsPerHour.count - 1
        let holds = inParallel(runs) { run in
            firstHold(seed: 50_000 + UInt64(run), planned: { _ in 0.10 }) { segment, planned, _ in
                segment == bugged ? 2 * planned : planned
            }
        }
        var delays: [Int] = []
        for (run, hold) in holds.enumerated() {
            guard let hold else { continue }
            XCTAssertEqual(hold.check.segment, "S\(bugged)", "run \(run) held the wrong segment")
            XCTAssertEqual(hold.check.side, .candidateHigh, "run \(run)")
            delays.append(hold.hour)
        }
        XCTAssertEqual(delays.count, runs, "held in \(delays.count) of \(runs) runs")
        XCTAssertLessThanOrEqual(delays.max() ?? .max, 6, "the slowest run was held after \(delays.max() ?? 0) h")
        let median = delays.sorted()[delays.count / 2]
        print(
            "srm: 20% instead of 10% in the 5% segment held in \(delays.count) of \(runs) runs;"
                + " median \(median) h, slowest \(delays.max() ?? 0) h")
    }

    /// A bug that appears late (a new client release, a CDN that starts serving an old manifest) must
    /// not have to first undo the evidence a week of correct traffic piled up against it.
    func testTwiceThePlannedShareFromTheEighthDayIsHeldWithinTwelveHours() {
        let runs = knob("SRM_SIM_BUG_RUNS", 50)
        let bugged = Self.sessionsPerHour.count - 1
        let start = 7 * 24 + 6
        let holds = inParallel(runs) { run in
            firstHold(seed: 60_000 + UInt64(run), planned: { _ in 0.10 }) { segment, planned, hour in
                segment == bugged && hour >= start ? 2 * planned : planned
            }
        }
        var delays: [Int] = []
        for (run, hold) in holds.enumerated() {
            guard let hold else { continue }
            XCTAssertEqual(hold.check.segment, "S\(bugged)", "run \(run) held the wrong segment")
            delays.append(hold.hour - start)
        }
        XCTAssertEqual(delays.count, runs, "held in \(delays.count) of \(runs) runs")
        XCTAssertGreaterThan(delays.min() ?? 0, 0, "held before the bug began")
        XCTAssertLessThanOrEqual(delays.max() ?? .max, 12, "the slowest run was held \(delays.max() ?? 0) h after")
        let median = delays.sorted()[delays.count / 2]
        print(
            "srm: 20% instead of 10% in the 5% segment from hour \(start) held in \(delays.count) of \(runs) runs;"
                + " median \(median) h after it began, slowest \(delays.max() ?? 0) h")
    }

    /// 1,000 runs here (at most one may be held); scripts/srm-simulations.sh runs 10,000.
    func testHourlyLooksForTwoWeeksAtThePlannedShareHoldNoMoreOftenThanTheLevel() {
        let runs = knob("SRM_SIM_RUNS", 1000)
        let holds = inParallel(runs) { run in
            firstHold(seed: 1 + UInt64(run), planned: { _ in 0.10 }) { _, planned, _ in planned } != nil
        }.filter { $0 }.count
        XCTAssertLessThanOrEqual(holds, allowed(runs), "\(holds) of \(runs) rollouts at the planned share were held")
        print("srm: \(holds) of \(runs) rollouts at the planned share were held over \(Self.hours) hourly looks")
    }

    /// The hardest null: the true odds exactly at the band's edge, above it in even runs and below it
    /// in odd ones, in every segment at once.
    func testHourlyLooksAtTheEdgeOfTheBandHoldNoMoreOftenThanTheLevel() {
        let runs = knob("SRM_SIM_EDGE_RUNS", 100)
        let holds = inParallel(runs) { run in
            let ratio = run % 2 == 0 ? SampleRatio.maxOddsRatio : 1 / SampleRatio.maxOddsRatio
            return firstHold(seed: 20_000 + UInt64(run), planned: { _ in 0.10 }) { _, planned, _ in
                share(atOddsRatio: ratio, of: planned)
            } != nil
        }.filter { $0 }.count
        XCTAssertLessThanOrEqual(holds, allowed(runs), "\(holds) of \(runs) rollouts at the band's edge were held")
        print("srm: \(holds) of \(runs) rollouts at the band's edge (odds x1.25 or /1.25) were held")
    }

    /// A ramp of 1, 2, 5, 10, 20 and 50%, two days a step, one cell per day: the true share is the
    /// planned one in even runs and at the band's upper edge in odd ones.
    func testARampThroughSixSharesHoldsNoMoreOftenThanTheLevel() {
        let runs = knob("SRM_SIM_RAMP_RUNS", 100)
        let steps = [0.01, 0.02, 0.05, 0.10, 0.20, 0.50]
        let holds = inParallel(runs) { run in
            let ratio = run % 2 == 0 ? 1 : SampleRatio.maxOddsRatio
            return firstHold(seed: 30_000 + UInt64(run), hours: 12 * 24, planned: { steps[$0 / 2] }) { _, planned, _ in
                share(atOddsRatio: ratio, of: planned)
            } != nil
        }.filter { $0 }.count
        XCTAssertLessThanOrEqual(holds, allowed(runs), "\(holds) of \(runs) ramps were held")
        print("srm: \(holds) of \(runs) ramps 1-50% (half at the planned share, half at the band's edge) were held")
    }

    /// Sessions cluster by device. Devices are bucketed (each the candidate's with the planned
    /// probability) and differ in activity (lognormal with log-spread SRM_SIM_SPREAD), so the
    /// candidate's true share of the sessions is the planned share only on average; and a device's
    /// hour comes in bursts (Poisson with a gamma rate of shape SRM_SIM_BURST), so hourly counts vary
    /// more than binomially. SRM_SIM_DEVICES devices in the smallest segment (the others in proportion)
    /// with SRM_SIM_DEVICE_SESSIONS sessions a day each: at 20,000 the band absorbs both;
    /// scripts/srm-simulations.sh sweeps the device count to find where it gives way.
    func testSessionsClusteredByDeviceHoldNoMoreOftenThanTheLevel() {
        let environment = ProcessInfo.processInfo.environment
        let smallest = Double(knob("SRM_SIM_DEVICES", 20_000))
        let perDeviceDay = Double(environment["SRM_SIM_DEVICE_SESSIONS"] ?? "") ?? 10
        let spread = Double(environment["SRM_SIM_SPREAD"] ?? "") ?? 1
        let burst = Double(environment["SRM_SIM_BURST"] ?? "") ?? 1
        let runs = knob("SRM_SIM_CLUSTER_RUNS", 50)
        let planned = 0.10
        let devices = Self.sessionsPerHour.map { smallest * Double($0) / Double(Self.sessionsPerHour.last ?? 1) }
        let sessions = devices.map { Int($0 * perDeviceDay / 24) }
        let dispersion = 1 + perDeviceDay / 24 * exp(spread * spread) / burst
        let results = inParallel(runs) { run in
            var draw = Gaussian(seed: 90_000 + UInt64(run))
            let shares = devices.map { draw.deviceShare(devices: $0, planned: planned, spread: spread) }
            let held =
                firstHold(
                    seed: 40_000 + UInt64(run), sessionsPerHour: sessions, planned: { _ in planned },
                    dispersion: dispersion
                ) { segment, _, _ in shares[segment] } != nil
            return (held: held, offsets: shares.map { abs(log($0 / (1 - $0)) - log(planned / (1 - planned))) })
        }
        let holds = results.filter(\.held).count
        let offsets = results.flatMap(\.offsets)
        XCTAssertLessThanOrEqual(holds, allowed(runs), "\(holds) of \(runs) clustered rollouts were held")
        let outside = offsets.filter { $0 > log(SampleRatio.maxOddsRatio) }.count
        let largest = Int(((exp(offsets.max() ?? 0) - 1) * 100).rounded())
        print(
            "srm: clustered, \(Int(smallest)) devices and \(sessions.last ?? 0) sessions an hour in the 5% segment"
                + String(
                    format: " (%.0f sessions a device a day, spread %.2f, burst %.2f,", perDeviceDay, spread, burst)
                + String(format: " hourly variance x%.2f): ", dispersion) + "\(holds) of \(runs) held;"
                + " true odds off the plan by up to \(largest)%, beyond the band in \(outside) of \(offsets.count) segments"
        )
    }

    // MARK: The statistic

    /// Ville's inequality needs each side's e-value to have expectation at most 1 wherever the truth
    /// lies within the band; at the band's edge it is exactly 1. Summed exactly over the binomial
    /// counts of two cells on different days, so that the weights of the start days count too.
    func testEachSidesEvidenceHasExpectationOneAtTheEdgeAndLessInside() {
        for planned in [0.01, 0.1, 0.5, 0.9] {
            for side in SampleRatio.Side.allCases {
                let edge = side == .candidateHigh ? SampleRatio.maxOddsRatio : 1 / SampleRatio.maxOddsRatio
                let atEdge = expectedEvidence(side, planned: planned, truth: share(atOddsRatio: edge, of: planned))
                let atPlan = expectedEvidence(side, planned: planned, truth: planned)
                XCTAssertEqual(atEdge, 1, accuracy: 1e-9, "\(side) at the edge, planned \(planned)")
                XCTAssertLessThan(atPlan, 1, "\(side) at the planned share \(planned)")
            }
        }
    }

    /// The band in practice, at the level five segments give each: 13% of 50,000 sessions where 10%
    /// is planned (odds x1.35) is held as soon as the minimum is met; 12% (odds x1.23) is inside the
    /// band and never held, even over ten million sessions.
    func testAShareJustBeyondTheBandIsHeldAndOneJustInsideIsNot() {
        let level = SampleRatio.alpha / 5
        let beyond = [SampleRatio.Cell(day: 0, candidate: 6_500, baseline: 43_500, planned: 0.1)]
        let inside = [SampleRatio.Cell(day: 0, candidate: 1_200_000, baseline: 8_800_000, planned: 0.1)]
        let held = SampleRatio.evaluate([("TR/4.8", beyond)], minSamples: Self.minSamples, alpha: level).first
        let kept = SampleRatio.evaluate([("TR/4.8", inside)], minSamples: Self.minSamples, alpha: level).first
        XCTAssertEqual(held?.verdict, .mismatch)
        XCTAssertEqual(held?.side, .candidateHigh)
        XCTAssertEqual(kept?.verdict, .ok)
        XCTAssertLessThanOrEqual(kept?.logEvidence ?? .infinity, 0)
    }

    func testCellsPlannedAtZeroOrOneAreIgnored() {
        let tested = [SampleRatio.Cell(day: 0, candidate: 10_000, baseline: 90_000, planned: 0.1)]
        let untestable = [
            SampleRatio.Cell(day: 0, candidate: 50_000, baseline: 0, planned: 0),
            SampleRatio.Cell(day: 0, candidate: 0, baseline: 50_000, planned: 1),
            SampleRatio.Cell(day: 0, candidate: 5_000, baseline: 5_000, planned: .nan),
        ]
        let plain = SampleRatio.evaluate([("TR/4.8", tested)], minSamples: Self.minSamples)
        let mixed = SampleRatio.evaluate([("TR/4.8", tested + untestable)], minSamples: Self.minSamples)
        XCTAssertEqual(mixed, plain)
        XCTAssertEqual(plain.first?.verdict, .ok)
        let onlyUntestable = SampleRatio.evaluate(
            [("TR/4.8", tested), ("TR/4.9", untestable)], minSamples: Self.minSamples)
        XCTAssertEqual(onlyUntestable, plain, "a segment with nothing to test is not listed and takes no budget")
    }

    /// On the day a plan changes from 10% to 50% devices move over hours: any share in between is
    /// within the plan, and each side is tested against its own end of the range.
    func testADayWithAPlannedRangeIsHeldOnlyOutsideIt() {
        func verdict(_ share: Double, _ cell: (Int, Int) -> SampleRatio.Cell) -> SampleRatio.Verdict? {
            let candidate = Int(200_000 * share)
            return SampleRatio.evaluate([("TR/4.8", [cell(candidate, 200_000 - candidate)])], minSamples: 5_000)
                .first?.verdict
        }
        let range = { (c: Int, b: Int) in SampleRatio.Cell(day: 0, candidate: c, baseline: b, between: 0.5, and: 0.1) }
        let point = { (c: Int, b: Int) in SampleRatio.Cell(day: 0, candidate: c, baseline: b, planned: 0.1) }
        XCTAssertEqual(verdict(0.30, range), .ok)
        XCTAssertEqual(verdict(0.30, point), .mismatch)
        XCTAssertEqual(verdict(0.70, range), .mismatch, "above the range's high end")
        XCTAssertEqual(verdict(0.04, range), .mismatch, "below its low end")
        let fromNothing = { (c: Int, b: Int) in
            SampleRatio.Cell(day: 0, candidate: c, baseline: b, between: 0, and: 0.1)
        }
        XCTAssertEqual(verdict(0.01, fromNothing), .ok, "the first day of a stage: only the high side is tested")
        XCTAssertEqual(verdict(0.30, fromNothing), .mismatch)
    }

    func testTheAppVersionsOfADayGiveTheSameEvidenceAsTheirSumInAnyOrder() {
        let versions = [
            SampleRatio.Cell(day: 1, candidate: 4_200, baseline: 16_000, planned: 0.2),
            SampleRatio.Cell(day: 0, candidate: 3_100, baseline: 26_000, planned: 0.1),
            SampleRatio.Cell(day: 1, candidate: 900, baseline: 8_000, planned: 0.2),
            SampleRatio.Cell(day: 0, candidate: 1_300, baseline: 9_000, planned: 0.1),
        ]
        let summed = [
            SampleRatio.Cell(day: 0, candidate: 4_400, baseline: 35_000, planned: 0.1),
            SampleRatio.Cell(day: 1, candidate: 5_100, baseline: 24_000, planned: 0.2),
        ]
        let byVersion = SampleRatio.evaluate([("TR/4.8", versions)], minSamples: 100).first
        let bySum = SampleRatio.evaluate([("TR/4.8", summed)], minSamples: 100).first
        XCTAssertEqual(byVersion?.logEvidence ?? .nan, bySum?.logEvidence ?? 0, accuracy: 1e-9)
        XCTAssertEqual(byVersion?.planned ?? 0, (0.1 * 39_400 + 0.2 * 29_100) / 68_500, accuracy: 1e-12)
        XCTAssertEqual(byVersion?.observed ?? 0, 9_500 / 68_500, accuracy: 1e-12)
    }

    func testBelowTheMinimumIsInsufficientDataNotAHold() {
        // Four times the planned share, but the plan expects only 4,000 candidate sessions.
        let cells = [SampleRatio.Cell(day: 0, candidate: 16_000, baseline: 24_000, planned: 0.1)]
        let check = SampleRatio.evaluate([("TR/4.8", cells)], minSamples: Self.minSamples).first
        XCTAssertEqual(check?.verdict, .insufficientData)
        XCTAssertNil(check?.side)
        XCTAssertNil(check?.logEvidence)
        XCTAssertEqual(check?.observed ?? 0, 0.4, accuracy: 1e-12)
    }

    func testACandidateWithHalfItsShareIsAMismatchOnTheLowSide() {
        let cells = [SampleRatio.Cell(day: 0, candidate: 2_500, baseline: 47_500, planned: 0.1)]
        let check = SampleRatio.evaluate([("TR/4.8", cells)], minSamples: Self.minSamples).first
        XCTAssertEqual(check?.verdict, .mismatch)
        XCTAssertEqual(check?.side, .candidateLow)
        XCTAssertGreaterThan(check?.logEvidence ?? 0, check?.logThreshold ?? .infinity)
    }

    /// Lost attribution can leave the candidate with no sessions at all; the minimum counts the sessions
    /// the plan expects, so that is judged, not insufficient data forever.
    func testACandidateWithNoSessionsIsJudgedOnceThePlanExpectsEnough() {
        let early = [SampleRatio.Cell(day: 0, candidate: 0, baseline: 40_000, planned: 0.1)]
        let later = [SampleRatio.Cell(day: 0, candidate: 0, baseline: 60_000, planned: 0.1)]
        XCTAssertEqual(
            SampleRatio.evaluate([("TR/4.8", early)], minSamples: Self.minSamples).first?.verdict, .insufficientData)
        let check = SampleRatio.evaluate([("TR/4.8", later)], minSamples: Self.minSamples).first
        XCTAssertEqual(check?.verdict, .mismatch)
        XCTAssertEqual(check?.side, .candidateLow)
    }

    func testTheLevelIsSplitOverTheSegmentsTested() throws {
        func segment(_ label: String, candidate: Int) -> (label: String, cells: [SampleRatio.Cell]) {
            (label, [SampleRatio.Cell(day: 0, candidate: candidate, baseline: 100_000 - candidate, planned: 0.1)])
        }
        // The smallest candidate count that is a mismatch when its segment is the only one tested.
        let alone = try XCTUnwrap(
            stride(from: 12_000, to: 20_000, by: 10).first { candidate in
                SampleRatio.evaluate([segment("TR/4.8", candidate: candidate)], minSamples: Self.minSamples)
                    .first?.verdict == .mismatch
            })
        let quiet = ["DE/4.8", "CY/4.8", "TR/4.9"].map { segment($0, candidate: 10_000) }
        let four = SampleRatio.evaluate([segment("TR/4.8", candidate: alone)] + quiet, minSamples: Self.minSamples)
        XCTAssertEqual(four.map(\.verdict), [.ok, .ok, .ok, .ok], "\(alone) of 100,000 against four segments")
        XCTAssertEqual(four.first?.logThreshold ?? 0, log(2 * 4 / SampleRatio.alpha), accuracy: 1e-12)
        let strict = SampleRatio.evaluate(
            [segment("TR/4.8", candidate: alone)], minSamples: Self.minSamples, alpha: SampleRatio.alpha / 4)
        XCTAssertEqual(strict.first?.verdict, .ok, "one segment at a quarter of the level is four at the level")
    }

    // MARK: Helpers

    /// Runs one rollout hour by hour: each segment's sessions an hour are fixed, the candidate's are drawn
    /// with the true share `truth(segment, planned)` and `dispersion` times the binomial variance,
    /// one cell per segment and day (today's grows hour by hour), and every segment is judged after
    /// every hour. Returns the first hold.
    private func firstHold(
        seed: UInt64, hours: Int = SampleRatioTests.hours, sessionsPerHour: [Int] = SampleRatioTests.sessionsPerHour,
        planned: (_ day: Int) -> Double, dispersion: Double = 1,
        truth: (_ segment: Int, _ planned: Double, _ hour: Int) -> Double
    ) -> (hour: Int, check: SampleRatio.Check)? {
        var random = Gaussian(seed: seed)
        var cells = Array(repeating: [SampleRatio.Cell](), count: sessionsPerHour.count)
        for hour in 0..<hours {
            let day = hour / 24
            let share = planned(day)
            for (segment, sessions) in sessionsPerHour.enumerated() {
                let candidate = random.binomial(sessions, truth(segment, share, hour), dispersion: dispersion)
                let today =
                    hour % 24 == 0
                    ? SampleRatio.Cell(day: day, candidate: 0, baseline: 0, planned: share)
                    : cells[segment].removeLast()
                cells[segment].append(
                    SampleRatio.Cell(
                        day: day, candidate: today.candidate + candidate,
                        baseline: today.baseline + sessions - candidate,
                        planned: share))
            }
            let segments = cells.indices.map { (label: Self.labels[$0], cells: cells[$0]) }
            let checks = SampleRatio.evaluate(segments, minSamples: Self.minSamples)
            if let held = checks.first(where: { $0.verdict == .mismatch }) { return (hour + 1, held) }
        }
        return nil
    }

    /// The share whose odds are `ratio` times the odds of `share`.
    private func share(atOddsRatio ratio: Double, of share: Double) -> Double {
        ratio * share / (1 - share + ratio * share)
    }

    /// The false holds a run count allows at the level: alpha x runs, and at least one, so that a
    /// few hundred runs (whose allowance rounds to zero) can be run at all.
    private func allowed(_ runs: Int) -> Int { max(1, Int(SampleRatio.alpha * Double(runs))) }

    /// E[e-value] of one side for two cells of 30 sessions, on days 0 and 3, summed over every pair
    /// of candidate counts.
    private func expectedEvidence(_ side: SampleRatio.Side, planned: Double, truth: Double) -> Double {
        let n = 30
        func logProbability(_ x: Int) -> Double {
            let logChoose = lgamma(Double(n + 1)) - lgamma(Double(x + 1)) - lgamma(Double(n - x + 1))
            return logChoose + Double(x) * log(truth) + Double(n - x) * log1p(-truth)
        }
        var expectation = 0.0
        for first in 0...n {
            for second in 0...n {
                let pools = [
                    SampleRatio.Pool(
                        day: 0, low: planned, high: planned, planned: planned, candidate: first, sessions: n),
                    SampleRatio.Pool(
                        day: 3, low: planned, high: planned, planned: planned, candidate: second, sessions: n),
                ]
                var ratios = SampleRatio.Ratios(side: side, maxOddsRatio: SampleRatio.maxOddsRatio)
                let logEvidence = SampleRatio.logEvidence(pools, ratios: &ratios)
                expectation += exp(logProbability(first) + logProbability(second) + logEvidence)
            }
        }
        return expectation
    }

    /// `body` for every run, on every core: the runs are independent, each with its own seed, and
    /// come back in order.
    private func inParallel<T>(_ runs: Int, _ body: (Int) -> T) -> [T] {
        withoutActuallyEscaping(body) { body in
            let parallel = ParallelRuns(body)
            DispatchQueue.concurrentPerform(iterations: runs) { parallel.run($0) }
            return (0..<runs).compactMap { parallel.result(of: $0) }
        }
    }

    private func knob(_ name: String, _ fallback: Int) -> Int {
        Int(ProcessInfo.processInfo.environment[name] ?? "") ?? fallback
    }
}

/// `inParallel`'s body and the runs' results. `@unchecked Sendable`: `lock` guards `results`, and the body
/// (which captures the test case, not Sendable) reads only constants; each run draws from its own seed.
private final class ParallelRuns<T>: @unchecked Sendable {
    private let body: (Int) -> T
    private let lock = NSLock()
    private var results: [Int: T] = [:]

    init(_ body: @escaping (Int) -> T) { self.body = body }

    func run(_ run: Int) {
        let result = body(run)
        lock.lock()
        results[run] = result
        lock.unlock()
    }

    func result(of run: Int) -> T? {
        lock.lock()
        defer { lock.unlock() }
        return results[run]
    }
}

/// Binomial counts by the normal approximation, from SplitMix64: exact enough for the thousands of
/// sessions an hour these simulations draw, and fast.
private struct Gaussian {
    var bits: SplitMix64

    init(seed: UInt64) { bits = SplitMix64(seed: seed) }

    mutating func binomial(_ n: Int, _ p: Double, dispersion: Double = 1) -> Int {
        let mean = Double(n) * p
        let drawn = mean + standardNormal() * (dispersion * mean * (1 - p)).squareRoot()
        return min(n, max(0, Int(drawn.rounded())))
    }

    /// The candidate's share of a segment's sessions when each of `devices` devices is the
    /// candidate's with probability `planned` and a device's activity is lognormal with mean 1 and
    /// log-spread `spread`: the devices and their activity summed by the normal approximation.
    mutating func deviceShare(devices: Double, planned: Double, spread: Double) -> Double {
        let variance = exp(spread * spread) - 1
        let drawn = devices * planned + standardNormal() * (devices * planned * (1 - planned)).squareRoot()
        let candidates = min(devices - 1, max(1, drawn))
        let candidate = candidates + standardNormal() * (candidates * variance).squareRoot()
        let baseline = (devices - candidates) + standardNormal() * ((devices - candidates) * variance).squareRoot()
        return max(candidate, 0) / (max(candidate, 0) + max(baseline, 1))
    }

    /// Box-Muller, one of its two values.
    private mutating func standardNormal() -> Double {
        let u = Double(bits.next() >> 11 | 1) / Double(1 << 53)
        let v = Double(bits.next() >> 11) / Double(1 << 53)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
