import XCTest

@testable import RolloutModel
@testable import RolloutStore

/// The promote health gate on plans and health reports directly, with no repository and no metrics
/// files (docs/health.md, "The promote gate"): which promotes are judged, what each verdict lets
/// through, and what `--force` needs and records. The end-to-end PromoteGateTests
/// (MetricsIngestTests.swift) drive the same through the binary.
final class PromoteGateDecisionTests: XCTestCase {
    let pack18 = Pack(locale: "tr-TR", contentVersion: 18, minAppVersion: AppVersion("4.8.0")!, strings: ["a": "b"])
    let id18 = PackID(locale: "tr-TR", contentVersion: 18)
    let v17 = Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!)
    let forced = PromoteGate.Override(reason: "crash is in the analytics SDK, fixed server-side")

    /// The spike of docs/health.md's examples: TR/4.8 crashes 214/36000 on tr-TR@18 against 607/324000
    /// on tr-TR@17, judged by the default gates.
    var spike: Health.Report {
        Health.evaluate(
            [
                (
                    label: "TR/4.8", candidate: [.crash: MetricCounts(total: 36_000, events: 214)],
                    baseline: [.crash: MetricCounts(total: 324_000, events: 607)]
                )
            ],
            gates: .default)
    }
    /// The same segment with the candidate crashing as rarely as the baseline.
    var calm: Health.Report {
        Health.evaluate(
            [
                (
                    label: "TR/4.8", candidate: [.crash: MetricCounts(total: 36_000, events: 67)],
                    baseline: [.crash: MetricCounts(total: 324_000, events: 607)]
                )
            ],
            gates: .default)
    }
    /// Before any metrics: no check at all.
    let unmeasured = Health.Report(verdict: .insufficientData, checks: [], alphaPerCheck: 0.05)

    func request(_ share: String, regions: [String]? = nil, versions: String? = nil, reason: String? = nil) throws
        -> PromoteRequest
    {
        PromoteRequest(
            pack: id18, share: try Percent.parse(share), regions: regions,
            versions: try versions.map(VersionRange.parse), reason: reason)
    }

    /// tr-TR@18 staged at 10% in TR on >=4.8 against tr-TR@17, as in docs/health.md.
    func staged() throws -> Plan {
        try PlanOperations.promoted(
            Plan(locale: "tr-TR", baseline: v17), pack: pack18,
            request: try request("10%", regions: ["TR"], versions: ">=4.8"),
            parentCommit: "p"
        ).0
    }

    /// The gate's decision for promoting `before` as `request` asks, with `health` as the report, and
    /// whether the report was asked for (reading it reads every rollup of the locale).
    func decide(
        _ before: Plan, _ request: PromoteRequest, health: Health.Report?, override: PromoteGate.Override? = nil
    ) throws -> (decision: PromoteGate.Decision, asked: Bool, judged: Plan?) {
        let (after, kind) = try PlanOperations.promoted(before, pack: pack18, request: request, parentCommit: "p")
        var judged: Plan?
        let decision = PromoteGate.decide(before: before, after: after, kind: kind, override: override) { plan in
            judged = plan
            return health
        }
        return (decision, judged != nil, judged)
    }

    /// What promote does with a decision: the Rollout-Forced value it records, or the refusal.
    func outcome(_ decision: PromoteGate.Decision) -> String {
        do {
            return "go ahead, Rollout-Forced: \(try decision.forcedTrailer(pack: id18) ?? "none")"
        } catch RolloutError.checkFailed(let message) {
            return "refused: \(message)"
        } catch {
            return "unexpected \(error)"
        }
    }

    func testTheFirstStageOfAPackIsNeverGatedNorMeasured() throws {
        let result = try decide(
            Plan(locale: "tr-TR", baseline: v17), try request("10%", regions: ["TR"], versions: ">=4.8"), health: spike)
        guard case .notGated = result.decision else { return XCTFail("\(result.decision)") }
        XCTAssertFalse(result.asked, "nothing is staged yet: there is nothing to measure")
        XCTAssertEqual(outcome(result.decision), "go ahead, Rollout-Forced: none")
    }

    func testCompletingAFirstStageIsNotGatedEither() throws {
        let result = try decide(Plan(locale: "tr-TR", baseline: v17), try request("100%"), health: spike)
        guard case .notGated = result.decision else { return XCTFail("\(result.decision)") }
        XCTAssertFalse(result.asked)
    }

    func testLoweringIsNeverGated() throws {
        let result = try decide(try staged(), try request("5%", reason: "halve exposure while we look"), health: spike)
        guard case .notGated = result.decision else { return XCTFail("\(result.decision)") }
        XCTAssertFalse(result.asked, "taking devices off a pack is always allowed")
    }

    func testTheSameShareAgainWidensNothing() throws {
        let before = try staged()
        XCTAssertFalse(PlanOperations.widens(before, before, kind: .staged))
        guard
            case .notGated = PromoteGate.decide(
                before: before, after: before, kind: .staged, override: nil, health: { _ in self.spike })
        else { return XCTFail("a promote that changes no share is not judged") }
    }

    func testRaisingAShareOfAnUnhealthyRolloutIsRefusedWithTheDecidingCheck() throws {
        let result = try decide(try staged(), try request("50%"), health: spike)
        XCTAssertTrue(result.asked)
        XCTAssertEqual(
            outcome(result.decision),
            "refused: tr-TR@18 is unhealthy (TR/4.8 crash: 214/36000 against 607/324000): a rollout widens only when healthy. See rollout health tr-TR; override with --force --reason TEXT"
        )
    }

    func testInsufficientDataIsRefusedLikeUnhealthy() throws {
        let result = try decide(try staged(), try request("50%"), health: unmeasured)
        XCTAssertEqual(
            outcome(result.decision),
            "refused: tr-TR@18 is insufficient-data: a rollout widens only when healthy. See rollout health tr-TR; override with --force --reason TEXT"
        )
    }

    func testAHealthyRolloutWidensAndForceChangesNothing() throws {
        XCTAssertEqual(calm.verdict, .healthy)
        for override in [nil, forced] {
            let result = try decide(try staged(), try request("50%"), health: calm, override: override)
            guard case .healthy = result.decision else { return XCTFail("\(result.decision)") }
            XCTAssertEqual(
                outcome(result.decision), "go ahead, Rollout-Forced: none", "no Rollout-Forced trailer when healthy")
        }
    }

    func testForceOverridesEachVerdictThatIsNotHealthyAndRecordsIt() throws {
        XCTAssertEqual(
            outcome(try decide(try staged(), try request("50%"), health: spike, override: forced).decision),
            "go ahead, Rollout-Forced: health was unhealthy")
        XCTAssertEqual(
            outcome(try decide(try staged(), try request("50%"), health: unmeasured, override: forced).decision),
            "go ahead, Rollout-Forced: health was insufficient-data")
    }

    func testAddingARuleAndCompletingAreWideningToo() throws {
        for widening in [try request("10%", regions: ["DE"]), try request("100%")] {
            let result = try decide(try staged(), widening, health: spike)
            XCTAssertTrue(result.asked)
            guard case .refused(.unhealthy, _) = result.decision else { return XCTFail("\(result.decision)") }
        }
    }

    func testWithoutABaselineToCompareWithThereIsNothingToJudge() throws {
        // The first pack of a locale, staged over the bundled strings: health has no report for it.
        let first = try PlanOperations.promoted(
            Plan(locale: "tr-TR"), pack: pack18, request: try request("10%"), parentCommit: "p"
        ).0
        let result = try decide(first, try request("50%"), health: nil)
        XCTAssertTrue(result.asked)
        guard case .notGated = result.decision else { return XCTFail("\(result.decision)") }
    }

    func testRetargetingAWithdrawnSegmentIsJudgedWithThatSegmentBackIn() throws {
        var before = try staged()
        before.withdrawals = [Plan.Withdrawal(region: "TR", versions: try VersionRange.parse(">=4.8"))]
        let result = try decide(before, try request("10%", regions: ["TR"], versions: ">=4.8"), health: spike)
        XCTAssertTrue(result.asked, "a segment taken back by a scoped revert gets the pack again")
        XCTAssertEqual(result.judged?.withdrawals, [], "judged on every segment the change reaches")
        XCTAssertEqual(result.judged?.rules, before.rules, "judged on the rollout as it stands before the change")
    }

    func testTheDecidingCheckIsTheFirstWithTheReportsVerdict() throws {
        let counts = MetricCounts(total: 9000, events: 9)
        func check(_ segment: String, _ verdict: Health.Verdict) -> Health.Check {
            Health.Check(
                segment: segment, kind: .crash, candidate: counts, baseline: counts, tolerance: 0.001, lower: nil,
                upper: nil,
                verdict: verdict)
        }
        let report = Health.Report(
            verdict: .unhealthy,
            checks: [check("DE/4.8", .healthy), check("TR/4.8", .unhealthy), check("TR/4.9", .unhealthy)],
            alphaPerCheck: 0.05)
        guard case .refused(_, let deciding) = try decide(try staged(), try request("50%"), health: report).decision
        else {
            return XCTFail("an unhealthy rollout widens only with --force")
        }
        XCTAssertEqual(deciding?.segment, "TR/4.8")
    }

    func testForceNeedsAReason() throws {
        for reason in [nil, "", "   "] {
            XCTAssertThrowsError(try PromoteGate.override(force: true, reason: reason)) { error in
                guard case RolloutError.usage(let message) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(message, "--force overrides the health gate; say why with --reason TEXT")
            }
        }
        XCTAssertEqual(
            try PromoteGate.override(force: true, reason: "SDK bug"), PromoteGate.Override(reason: "SDK bug"))
        XCTAssertNil(
            try PromoteGate.override(force: false, reason: nil), "no --force: nothing to override, no reason needed")
    }
}
