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
        observing(
            tr48,
            in: Health.evaluate(
                [
                    (
                        label: "TR/4.8", candidate: [.crash: MetricCounts(total: 36_000, events: 214)],
                        baseline: [.crash: MetricCounts(total: 324_000, events: 607)]
                    )
                ],
                gates: .default))
    }
    /// The same segment with the candidate crashing as rarely as the baseline.
    var calm: Health.Report {
        observing(
            tr48,
            in: Health.evaluate(
                [
                    (
                        label: "TR/4.8", candidate: [.crash: MetricCounts(total: 36_000, events: 67)],
                        baseline: [.crash: MetricCounts(total: 324_000, events: 607)]
                    )
                ],
                gates: .default))
    }
    let tr48 = Health.Observed(region: "TR", appVersion: AppVersion("4.8.1")!)
    let tr49 = Health.Observed(region: "TR", appVersion: AppVersion("4.9.0")!)

    /// `report` with the metrics naming `cells` (as HealthCheck fills it in from the rollups).
    func observing(_ cells: Health.Observed..., in report: Health.Report) -> Health.Report {
        var report = report
        report.observed = cells
        return report
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
        try Plan(locale: "tr-TR", baseline: v17).promoted(
            by: try request("10%", regions: ["TR"], versions: ">=4.8"), minAppVersion: pack18.minAppVersion,
            parentCommit: "p"
        ).0
    }

    /// The gate's decision for promoting `before` as `request` asks, with `health` as the report, and
    /// whether the report was asked for (reading it reads every rollup of the locale).
    func decide(
        _ before: Plan, _ request: PromoteRequest, health: Health.Report?, override: PromoteGate.Override? = nil,
        accepting: [String] = []
    ) throws -> (decision: PromoteGate.Decision, asked: Bool, judged: Plan?) {
        let (after, kind) = try before.promoted(by: request, minAppVersion: pack18.minAppVersion, parentCommit: "p")
        var judged: Plan?
        let decision = try PromoteGate.decide(
            before: before, after: after, kind: kind, override: override,
            accepting: accepting.map { SegmentPattern($0)! }
        ) { plan in
            judged = plan
            return health
        }
        return (decision, judged != nil, judged)
    }

    /// What promote does with a decision: the gate's trailers it records, or the refusal.
    func outcome(_ decision: PromoteGate.Decision) -> String {
        do {
            let trailers = try decision.trailers(pack: id18).map { "Rollout-\($0.name.rawValue): \($0.value)" }
            return "go ahead, " + (trailers.isEmpty ? "no trailer" : trailers.joined(separator: ", "))
        } catch GateRefusal.refused(let pack, let refusal) {
            // What the gate refused, as data (the command line words it: RefusalWordingTests, docs/health.md).
            switch refusal {
            case .unhealthy(let check?):
                return
                    "refused: \(pack) unhealthy in \(check.segment) \(check.kind.rawValue): \(check.candidate.events)/\(check.candidate.total) against \(check.baseline.events)/\(check.baseline.total)"
            case .unproven(let standings):
                let segments = standings.map { "\($0.segment)\($0.exposures(.crash) == nil ? " (no data)" : "")" }
                return "refused: \(pack) short of data in " + segments.joined(separator: ", ")
            default: return "refused: \(pack) \(refusal.recorded)"
            }
        } catch {
            return "unexpected \(error)"
        }
    }

    func testTheFirstStageOfAPackIsNeverGatedNorMeasured() throws {
        let result = try decide(
            Plan(locale: "tr-TR", baseline: v17), try request("10%", regions: ["TR"], versions: ">=4.8"), health: spike)
        guard case .notGated = result.decision else { return XCTFail("\(result.decision)") }
        XCTAssertFalse(result.asked, "nothing is staged yet: there is nothing to measure")
        XCTAssertEqual(outcome(result.decision), "go ahead, no trailer")
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
        XCTAssertFalse(PromoteGate.widens(before, before, kind: .staged))
        guard
            case .notGated = try PromoteGate.decide(
                before: before, after: before, kind: .staged, override: nil, health: { _ in self.spike })
        else { return XCTFail("a promote that changes no share is not judged") }
    }

    func testRaisingAShareOfAnUnhealthyRolloutIsRefusedWithTheDecidingCheck() throws {
        let result = try decide(try staged(), try request("50%"), health: spike)
        XCTAssertTrue(result.asked)
        XCTAssertEqual(
            outcome(result.decision),
            "refused: tr-TR@18 unhealthy in TR/4.8 crash: 214/36000 against 607/324000")
    }

    func testInsufficientDataIsRefusedLikeUnhealthy() throws {
        let result = try decide(try staged(), try request("50%"), health: unmeasured)
        XCTAssertEqual(
            outcome(result.decision),
            "refused: tr-TR@18 short of data in TR/* (no data)")
    }

    func testAHealthyRolloutWidensAndForceChangesNothing() throws {
        XCTAssertEqual(calm.verdict, .healthy)
        for override in [nil, forced] {
            let result = try decide(try staged(), try request("50%"), health: calm, override: override)
            guard case .healthy = result.decision else { return XCTFail("\(result.decision)") }
            XCTAssertEqual(
                outcome(result.decision), "go ahead, no trailer", "no Rollout-Forced trailer when healthy")
        }
    }

    func testForceOverridesEachVerdictThatIsNotHealthyAndRecordsIt() throws {
        XCTAssertEqual(
            outcome(try decide(try staged(), try request("50%"), health: spike, override: forced).decision),
            "go ahead, Rollout-Forced: health was unhealthy")
        XCTAssertEqual(
            outcome(try decide(try staged(), try request("50%"), health: unmeasured, override: forced).decision),
            "go ahead, Rollout-Forced: health was insufficient-data in TR/*")
    }

    func testAddingARuleAndCompletingAreWideningToo() throws {
        for widening in [try request("10%", regions: ["DE"]), try request("100%")] {
            let result = try decide(try staged(), widening, health: spike)
            XCTAssertTrue(result.asked)
            guard case .refused(.unhealthy) = result.decision else { return XCTFail("\(result.decision)") }
        }
    }

    func testWithoutABaselineToCompareWithThereIsNothingToJudge() throws {
        // The first pack of a locale, staged over the bundled strings: health has no report for it.
        let first = try Plan(locale: "tr-TR").promoted(
            by: try request("10%"), minAppVersion: pack18.minAppVersion, parentCommit: "p"
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
                upper: nil, verdict: verdict, daysToDecision: 0)
        }
        let report = Health.Report(
            verdict: .unhealthy,
            checks: [check("DE/4.8", .healthy), check("TR/4.8", .unhealthy), check("TR/4.9", .unhealthy)],
            alphaPerCheck: 0.05)
        guard
            case .refused(.unhealthy(let deciding)) = try decide(try staged(), try request("50%"), health: report)
                .decision
        else {
            return XCTFail("an unhealthy rollout widens only with --force")
        }
        XCTAssertEqual(deciding?.segment, "TR/4.8")
    }

    // MARK: every targeted segment (docs/health.md, "Widening, segment by segment")

    func testASegmentWithoutCandidateDataKeepsAHealthyRolloutFromWideningThere() throws {
        // TR/4.8 is healthy; TR on 4.9 is in the metrics (the baseline runs there) but has no check yet.
        let report = observing(tr48, tr49, in: calm)
        XCTAssertEqual(report.verdict, .healthy, "the locale is healthy overall")
        XCTAssertEqual(report.targetedSegments(by: try staged()), ["TR/4.8", "TR/4.9"])
        let result = try decide(try staged(), try request("50%"), health: report)
        XCTAssertEqual(
            outcome(result.decision),
            "refused: tr-TR@18 short of data in TR/4.9 (no data)")
    }

    func testAcceptingTheSegmentShortOfDataLetsItWidenAndRecordsWhich() throws {
        let report = observing(tr48, tr49, in: calm)
        for pattern in ["TR/4.9", "tr/4.9", "TR/*", "*/4.9", "*"] {
            let result = try decide(try staged(), try request("50%"), health: report, accepting: [pattern])
            XCTAssertEqual(
                outcome(result.decision), "go ahead, Rollout-Accepted-Insufficient: TR/4.9", "accepting \(pattern)")
        }
    }

    func testAnAcceptanceThatNamesNoTargetedSegmentIsAUsageError() throws {
        let report = observing(tr48, tr49, in: calm)
        XCTAssertThrowsError(try decide(try staged(), try request("50%"), health: report, accepting: ["DE/4.8"])) {
            XCTAssertEqual(
                $0 as? GateRefusal, .strayAcceptance(SegmentPattern("DE/4.8")!, targeted: ["TR/4.8", "TR/4.9"]))
        }
        for bad in ["TR", "TR/4.9.1", "XX/4.9", "TR/x", "/", ""] {
            XCTAssertNil(SegmentPattern(bad), "\(bad)")
        }
    }

    func testWideningIntoARegionNoMetricsNameNeedsItAccepted() throws {
        // Adding DE: no metrics row has come from DE, for either pack.
        let result = try decide(try staged(), try request("10%", regions: ["DE"]), health: calm)
        XCTAssertEqual(
            outcome(result.decision),
            "refused: tr-TR@18 short of data in DE/* (no data)")
        XCTAssertEqual(
            outcome(
                try decide(try staged(), try request("10%", regions: ["DE"]), health: calm, accepting: ["DE/*"])
                    .decision),
            "go ahead, Rollout-Accepted-Insufficient: DE/*")
        XCTAssertEqual(
            outcome(
                try decide(try staged(), try request("10%", regions: ["DE"]), health: calm, override: forced).decision),
            "go ahead, Rollout-Forced: health was insufficient-data in DE/*")
    }

    func testASegmentTheWideningDoesNotReachIsNotAsked() throws {
        // TR/4.9 has no data, but a widening limited to 4.8 does not give the pack there.
        let report = observing(tr48, tr49, in: calm)
        let result = try decide(try staged(), try request("50%", regions: ["TR"], versions: "4.8.x"), health: report)
        guard case .healthy = result.decision else { return XCTFail("\(result.decision)") }
    }

    func testCompletingIsJudgedInEverySegmentTheNewBaselineReaches() throws {
        let report = observing(tr48, tr49, in: calm)
        let result = try decide(try staged(), try request("100%"), health: report)
        XCTAssertTrue(
            outcome(result.decision).hasPrefix(
                "refused: tr-TR@18 short of data in TR/4.9"),
            outcome(result.decision))
        XCTAssertEqual(
            outcome(try decide(try staged(), try request("100%"), health: report, accepting: ["TR/4.9"]).decision),
            "go ahead, Rollout-Accepted-Insufficient: TR/4.9")
    }

    func testAcceptingOnAPromoteTheGateDoesNotJudgeIsAUsageError() throws {
        for (before, request) in [
            (Plan(locale: "tr-TR", baseline: v17), try request("10%", regions: ["TR"])),
            (try staged(), try request("5%", reason: "smaller")),
        ] {
            XCTAssertThrowsError(try decide(before, request, health: calm, accepting: ["TR/4.8"])) {
                XCTAssertEqual($0 as? GateRefusal, .acceptanceNotJudged)
            }
        }
    }

    func testForceNeedsAReason() throws {
        for reason in [nil, "", "   "] {
            XCTAssertThrowsError(try PromoteGate.override(force: true, reason: reason)) { error in
                XCTAssertEqual(error as? GateRefusal, .forceWithoutReason)
                XCTAssertEqual((error as? GateRefusal)?.kind, .usage)
            }
        }
        XCTAssertEqual(
            try PromoteGate.override(force: true, reason: "SDK bug"), PromoteGate.Override(reason: "SDK bug"))
        XCTAssertNil(
            try PromoteGate.override(force: false, reason: nil), "no --force: nothing to override, no reason needed")
    }
}
