import XCTest

@testable import RolloutModel

/// Guard's decision on plans and health reports directly, with no repository and no clock: what
/// `rollout guard` does for each verdict and when a scheduled ramp moves (docs/health.md, "rollout
/// guard" and "Scheduled ramps"). The end-to-end GuardTests and RampTests drive the same through
/// the binary.
final class GuardDecisionTests: XCTestCase {
    typealias Schedule = (every: Int64, step: Int, since: Timestamp)
    typealias CheckSpec = (segment: String, kind: MetricKind, verdict: Health.Verdict)

    let v17 = Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!)
    let v18 = Plan.PackRef(contentVersion: 18, minAppVersion: AppVersion("4.8.0")!)
    /// 2026-11-25T00:00:00Z, a UTC midnight, and its day (days since the epoch, as metrics are dated).
    let midnight = Timestamp(iso8601: "2026-11-25T00:00:00Z")!
    var day: Int { Int(midnight.seconds / 86_400) }

    func at(_ text: String) -> Timestamp { Timestamp(iso8601: text)! }
    func share(_ percent: Int) -> Percent { Percent(basisPoints: percent * 100) }

    /// tr-TR@18 staged at 10% against tr-TR@17; on a ramp of 1, 5, 10, 100% with `ramp`'s step time,
    /// current step and start.
    func plan(ramp: Schedule? = nil, paused: Bool = false, staged: Bool = true, baseline: Bool = true) -> Plan {
        let rules = staged ? [Plan.Rule(pack: v18, regions: [], versions: .all, share: share(10), salt: "s")] : []
        var plan = Plan(locale: "tr-TR", baseline: baseline ? v17 : nil, rules: rules)
        if let ramp {
            plan.ramp = Plan.Ramp(
                steps: [1, 5, 10, 100].map(share), every: ramp.every, step: ramp.step, since: ramp.since, paused: paused
            )
        }
        return plan
    }

    func report(_ verdict: Health.Verdict, checks: [CheckSpec] = []) -> Health.Report {
        let counts = MetricCounts(total: 1000, events: 1)
        let checks = checks.map {
            Health.Check(
                segment: $0.segment, kind: $0.kind, candidate: counts, baseline: counts, tolerance: 0.001, lower: nil,
                upper: nil, verdict: $0.verdict, daysToDecision: 0)
        }
        return Health.Report(verdict: verdict, checks: checks, alphaPerCheck: 0.05)
    }

    /// Decides with `newest` as the newest metrics day of tr-TR@18.
    func decide(_ plan: Plan, _ health: Health.Report?, autoRevert: Bool = false, now: Timestamp, newest: Int? = nil)
        -> Guard.Action
    {
        Guard.decide(plan, health: health, autoRevert: autoRevert, now: now) { pack in
            XCTAssertEqual(pack, PackID(locale: "tr-TR", contentVersion: 18))
            return newest
        }
    }

    /// Whether deciding had to look up the newest metrics day (a read of every rollup in the loop).
    func looksUpMetrics(_ plan: Plan, _ health: Health.Report, now: Timestamp) -> Bool {
        var asked = false
        _ = Guard.decide(plan, health: health, autoRevert: false, now: now) { _ in
            asked = true
            return nil
        }
        return asked
    }

    // MARK: each verdict

    func testNothingStagedAgainstABaselineIsNotGuarded() {
        XCTAssertEqual(decide(plan(staged: false), nil, now: midnight), .nothingStaged)
        XCTAssertEqual(decide(plan(baseline: false), nil, now: midnight), .nothingStaged, "no baseline: no report")
    }

    func testHealthyWithoutARampIsLeftAlone() {
        let action = decide(plan(), report(.healthy), autoRevert: true, now: midnight)
        XCTAssertEqual(action, .leave(nextStep: nil))
    }

    func testInsufficientDataIsHeldEvenWithAutoRevert() {
        let action = decide(plan(), report(.insufficientData), autoRevert: true, now: midnight)
        XCTAssertEqual(action, .holdForData(nextStep: nil))
    }

    func testUnhealthyWithoutAutoRevertIsReportedAndLeftInPlace() {
        let action = decide(plan(), report(.unhealthy, checks: [("TR/4.8", .crash, .unhealthy)]), now: midnight)
        XCTAssertEqual(action, .reportUnhealthy)
    }

    func testUnhealthyWithAutoRevertRevertsNamingTheFirstUnhealthyCheck() {
        let checks: [CheckSpec] = [
            ("DE/4.8", .crash, .healthy), ("TR/4.8", .fallback, .unhealthy), ("TR/4.9", .crash, .unhealthy),
        ]
        let action = decide(plan(), report(.unhealthy, checks: checks), autoRevert: true, now: midnight)
        XCTAssertEqual(action, .revert(reason: "guard: tr-TR@18 unhealthy (TR/4.8 fallback)"))
        XCTAssertEqual(
            decide(plan(), report(.unhealthy), autoRevert: true, now: midnight),
            .revert(reason: "guard: tr-TR@18 unhealthy (health)"),
            "a report with no unhealthy check still names something")
    }

    // MARK: ramps

    func testAHealthyMeasuredStepAdvancesExactlyAtItsTimeAndNotASecondBefore() {
        let ramp: Schedule = (43_200, 0, midnight)
        let early = decide(plan(ramp: ramp), report(.healthy), now: at("2026-11-25T11:59:59Z"), newest: day)
        XCTAssertEqual(early, .leave(nextStep: Guard.RampStep(share: share(5), after: at("2026-11-25T12:00:00Z"))))
        XCTAssertFalse(
            looksUpMetrics(plan(ramp: ramp), report(.healthy), now: at("2026-11-25T11:59:59Z")), "not due: no lookup")
        let due = decide(plan(ramp: ramp), report(.healthy), now: at("2026-11-25T12:00:00Z"), newest: day)
        XCTAssertEqual(due, .advanceRamp(to: share(5)))
        XCTAssertTrue(looksUpMetrics(plan(ramp: ramp), report(.healthy), now: at("2026-11-25T12:00:00Z")))
        XCTAssertEqual(
            decide(plan(ramp: ramp), report(.healthy), now: at("2026-12-25T12:00:00Z"), newest: day),
            .advanceRamp(to: share(5)),
            "one step per run however late")
    }

    func testAStepIsMeasuredByMetricsDatedOnOrAfterTheUTCDayItBegan() {
        // Began late on 2026-11-25, due after midnight: metrics dated 2026-11-25 measured it.
        let late: Schedule = (7_200, 1, at("2026-11-25T23:00:00Z"))
        let now = at("2026-11-26T01:00:00Z")
        XCTAssertEqual(decide(plan(ramp: late), report(.healthy), now: now, newest: day), .advanceRamp(to: share(10)))
        XCTAssertEqual(
            decide(plan(ramp: late), report(.healthy), now: now, newest: day + 1), .advanceRamp(to: share(10)))
        let stale = decide(plan(ramp: late), report(.healthy), now: now, newest: day - 1)
        XCTAssertEqual(stale, .holdRampForFreshMetrics)
        XCTAssertEqual(
            decide(plan(ramp: late), report(.healthy), now: now, newest: nil), .holdRampForFreshMetrics, "no metrics")

        // The boundary: a step beginning at midnight is not measured by the day before; one beginning
        // a second earlier is.
        XCTAssertFalse(Guard.stepMeasured(since: at("2026-11-26T00:00:00Z"), newestMetricsDay: day))
        XCTAssertTrue(Guard.stepMeasured(since: at("2026-11-26T00:00:00Z"), newestMetricsDay: day + 1))
        XCTAssertTrue(Guard.stepMeasured(since: at("2026-11-25T23:59:59Z"), newestMetricsDay: day))
        XCTAssertTrue(Guard.stepMeasured(since: midnight, newestMetricsDay: day))
        XCTAssertFalse(Guard.stepMeasured(since: midnight, newestMetricsDay: nil))
    }

    func testADueStepWithInsufficientDataIsHeldWithoutLookingForMetrics() {
        let ramp: Schedule = (86_400, 0, midnight)
        let action = decide(plan(ramp: ramp), report(.insufficientData), now: at("2026-11-27T00:00:00Z"), newest: day)
        XCTAssertEqual(action, .holdRampForData(segments: []))
        XCTAssertFalse(looksUpMetrics(plan(ramp: ramp), report(.insufficientData), now: at("2026-11-27T00:00:00Z")))
        let waiting = decide(plan(ramp: ramp), report(.insufficientData), now: at("2026-11-25T06:00:00Z"))
        XCTAssertEqual(
            waiting, .holdForData(nextStep: Guard.RampStep(share: share(5), after: at("2026-11-26T00:00:00Z"))))
    }

    func testADueStepWaitsForEverySegmentItTargetsNotOnlyTheMeasuredOnes() {
        // Healthy in TR/4.8; the metrics also name TR on 4.9 and DE on 4.8, with no candidate data yet.
        var health = report(.healthy, checks: [("TR/4.8", .crash, .healthy)])
        health.observed = [("TR", "4.8.1"), ("TR", "4.9.0"), ("DE", "4.8.2")].map {
            Health.Observed(region: $0.0, appVersion: AppVersion($0.1)!)
        }
        let due = at("2026-11-27T00:00:00Z")
        let action = decide(plan(ramp: (86_400, 0, midnight)), health, now: due, newest: day + 2)
        XCTAssertEqual(action, .holdRampForData(segments: ["DE/4.8", "TR/4.9"]))
        XCTAssertFalse(Guard.mayAdvance(plan(ramp: (86_400, 0, midnight)), health: health))
        // Limited to TR on 4.8, the ramp targets only the measured segment and takes its step.
        var limited = plan(ramp: (86_400, 0, midnight))
        limited.setRules([
            Plan.Rule(
                pack: v18, regions: ["TR"], versions: try! VersionRange.parse("4.8.x"), share: share(1), salt: "s")
        ])
        XCTAssertEqual(decide(limited, health, now: due, newest: day + 2), .advanceRamp(to: share(5)))
        XCTAssertTrue(Guard.mayAdvance(limited, health: health))
    }

    func testAPausedRampHoldsWhateverItsTimeButNotTheHealthGate() {
        let ramp: Schedule = (3_600, 0, midnight)
        let long = at("2027-01-01T00:00:00Z")
        let paused = decide(plan(ramp: ramp, paused: true), report(.healthy), now: long, newest: day)
        XCTAssertEqual(paused, .rampPaused)
        XCTAssertFalse(looksUpMetrics(plan(ramp: ramp, paused: true), report(.healthy), now: long))
        XCTAssertEqual(decide(plan(ramp: ramp, paused: true), report(.insufficientData), now: long), .rampPaused)
        let unhealthy = report(.unhealthy, checks: [("TR/4.8", .crash, .unhealthy)])
        XCTAssertEqual(decide(plan(ramp: ramp, paused: true), unhealthy, now: long), .reportUnhealthy)
        XCTAssertEqual(
            decide(plan(ramp: ramp, paused: true), unhealthy, autoRevert: true, now: long),
            .revert(reason: "guard: tr-TR@18 unhealthy (TR/4.8 crash)"))
    }

    func testAnUnhealthyRampIsNeverAdvanced() {
        let action = decide(
            plan(ramp: (3_600, 0, midnight)), report(.unhealthy), now: at("2026-11-26T00:00:00Z"), newest: day)
        XCTAssertEqual(action, .reportUnhealthy)
    }

    func testARampAtItsLastStepHasNothingToWaitFor() {
        // A ramp limited to some regions ends at 100% of them with the pack still staged.
        let action = decide(
            plan(ramp: (3_600, 3, midnight)), report(.healthy), now: at("2027-01-01T00:00:00Z"), newest: day)
        XCTAssertEqual(action, .leave(nextStep: nil))
    }
}
