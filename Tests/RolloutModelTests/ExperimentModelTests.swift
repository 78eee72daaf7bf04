import XCTest

@testable import RolloutModel

/// Experiments on plans and counts alone (docs/experiments.md): the published part and resolution,
/// the confidence sequence, and the verdict, each from values.
final class ExperimentModelTests: XCTestCase {
    let v48 = AppVersion("4.8.0")!
    func ref(_ version: Int, _ minApp: String = "4.8.0") -> Plan.PackRef {
        Plan.PackRef(contentVersion: version, minAppVersion: AppVersion(minApp)!)
    }

    func record(
        split: [Int] = [5_000, 5_000], exploratory: [String] = [], days: Int = 14, variants: [Int] = [17, 18],
        regions: [String] = ["TR"]
    ) -> ExperimentRecord {
        ExperimentRecord(
            name: "checkout-copy", locale: "tr-TR", variants: variants.map { ref($0) },
            split: split.map { Percent(basisPoints: $0) }, regions: regions, versions: try! VersionRange.parse(">=4.8"),
            primary: "checkout", exploratory: exploratory, guardrails: [.crash], days: days, salt: "5a1t",
            keys: ["checkout.title"], started: Timestamp(iso8601: "2026-12-01T00:00:00Z")!, startedBy: "Ayşe",
            reason: "copy test")
    }

    func plan(_ record: ExperimentRecord) -> Plan {
        var plan = Plan(locale: "tr-TR", baseline: ref(17))
        plan.experiment = record.published
        return plan
    }

    // MARK: the plan and resolution

    func testDevicesSplitByTheSaltInTheirRangesAndOnlyInTheTargeting() throws {
        let plan = plan(record(split: [2_000, 3_000]))
        var counts: [Resolution.Outcome: Int] = [:]
        for i in 0..<20_000 {
            counts[
                Resolution.outcome(plan, region: "TR", appVersion: AppVersion("4.9.0"), installID: "id-\(i)"),
                default: 0] += 1
        }
        // 30% the variant (buckets 0 to 2999: the treatments first), 20% the control (the baseline too),
        // the other 50% outside every range: the baseline.
        XCTAssertEqual(Double(counts[.pack(18)] ?? 0) / 20_000, 0.30, accuracy: 0.015)
        XCTAssertEqual(Double(counts[.pack(17)] ?? 0) / 20_000, 0.70, accuracy: 0.015)
        for i in 0..<2_000 {
            let id = "id-\(i)"
            let bucket = Bucketing.bucket(installID: id, salt: "5a1t")
            let expected: Resolution.Outcome = (0..<3_000).contains(bucket) ? .pack(18) : .pack(17)
            XCTAssertEqual(
                Resolution.outcome(plan, region: "TR", appVersion: AppVersion("4.9.0"), installID: id), expected)
            // Another region, or an app below the range: not in the experiment.
            XCTAssertEqual(
                Resolution.outcome(plan, region: "DE", appVersion: AppVersion("4.9.0"), installID: id), .pack(17))
            XCTAssertNil(plan.experiment!.assignment(region: "DE", appVersion: AppVersion("4.9.0"), installID: id))
        }
        let trace = Resolution.resolve(plan, region: "TR", appVersion: AppVersion("4.9.0"), installID: "id-1").trace
        XCTAssertTrue(trace.contains { $0.hasPrefix("experiment checkout-copy: bucket") }, "\(trace)")
    }

    func testABlockedVariantGoesToTheBaselineAndTheSharesSayWhatDevicesGet() throws {
        var plan = plan(record())
        let shares = SegmentShares.of(plan, region: "TR", versions: try VersionRange.parse(">=4.8")).pieces
        XCTAssertEqual(shares.map { $0.describe(locale: "tr-TR") }, ["tr-TR@17 50%, tr-TR@18 50%"])
        XCTAssertEqual(
            SegmentShares.of(plan, region: "DE", versions: try VersionRange.parse(">=4.8")).pieces.map {
                $0.describe(locale: "tr-TR")
            }, ["tr-TR@17 100%"])
        plan.blocked = [18]
        for i in 0..<500 {
            XCTAssertEqual(
                Resolution.outcome(plan, region: "TR", appVersion: AppVersion("4.9.0"), installID: "id-\(i)"), .pack(17)
            )
        }
        XCTAssertEqual(
            SegmentShares.of(plan, region: "TR", versions: try VersionRange.parse(">=4.8")).pieces.map {
                $0.describe(locale: "tr-TR")
            }, ["tr-TR@17 100%"])
    }

    func testThePlanCarriesTheExperimentAndRefusesRangesThatDoNotFollowEachOther() throws {
        let plan = plan(record(split: [3_000, 3_000]))
        let bytes = JSONWriter.pretty(plan.jsonValue)
        XCTAssertEqual(try Plan.parse(bytes, source: "plan"), plan)
        XCTAssertEqual(plan.publishedVersions, [17, 18])
        var value = plan.jsonValue.objectValue!
        var experiment = value["experiment"]!.objectValue!
        var variants = experiment["variants"]!.arrayValue!
        var second = variants[1].objectValue!
        second["from"] = .integer(3_500)
        variants[1] = .object(second)
        experiment["variants"] = .array(variants)
        value["experiment"] = .object(experiment)
        XCTAssertThrowsError(try Plan.parse(JSONWriter.pretty(.object(value)), source: "plan")) {
            XCTAssertTrue("\($0)".contains("follow each other"), "\($0)")
        }
        let stored = record()
        XCTAssertEqual(try ExperimentRecord.parse(JSONWriter.pretty(stored.jsonValue), source: "r"), stored)
    }

    /// A region or a guardrail named twice is named once, as promote takes regions: the plan, the
    /// record and the trailer never repeat one.
    func testARequestNamesEachRegionAndGuardrailOnce() throws {
        let request = ExperimentRequest(
            name: "t", variants: [try PackID.parse("tr-TR@17"), try PackID.parse("tr-TR@18")], split: nil,
            regions: ["TR", "TR", "DE"], versions: .all, primary: "checkout", exploratory: [],
            guardrails: [.fallback, .crash, .fallback], days: 14, reason: nil)
        XCTAssertEqual(request.regions, ["DE", "TR"])
        XCTAssertEqual(request.guardrails, [.crash, .fallback])
    }

    func testARequestIsCheckedBeforeTheRepositoryIsRead() {
        func request(_ edit: (inout ExperimentRequest) -> Void) -> ExperimentRequest {
            var r = ExperimentRequest(
                name: "checkout-copy",
                variants: [PackID(locale: "tr-TR", contentVersion: 17), PackID(locale: "tr-TR", contentVersion: 18)],
                split: nil, regions: [], versions: .all, primary: "checkout", exploratory: [], guardrails: [.crash],
                days: 14, reason: nil)
            edit(&r)
            return r
        }
        XCTAssertNoThrow(try request { _ in }.check())
        XCTAssertEqual(try request { _ in }.shares().map(\.basisPoints), [5_000, 5_000])
        XCTAssertEqual(
            try request { $0.variants.append(PackID(locale: "tr-TR", contentVersion: 19)) }.shares().map(\.basisPoints),
            [3_334, 3_333, 3_333])
        let refused: [(ExperimentRequest, ExperimentRefusal)] = [
            (request { $0.name = "Checkout" }, .badName("Checkout")),
            (request { $0.primary = "check-out" }, .badMetric("check-out")),
            (request { $0.exploratory = ["checkout"] }, .metricTwice(primary: "checkout", exploratory: ["checkout"])),
            (request { $0.days = 0 }, .days(0)),
            (
                request { $0.split = [Percent(basisPoints: 6_000), Percent(basisPoints: 5_000)] },
                .splitTotal([Percent(basisPoints: 6_000), Percent(basisPoints: 5_000)])
            ),
            (
                request { $0.variants = [PackID(locale: "tr-TR", contentVersion: 17)] },
                .variants([PackID(locale: "tr-TR", contentVersion: 17)])
            ),
        ]
        for (request, refusal) in refused {
            XCTAssertThrowsError(try request.check()) { XCTAssertEqual($0 as? ExperimentRefusal, refusal) }
        }
    }

    func testARevertTakesBackTheVariantsAndEndsTheExperimentOrWithdrawsASegmentFromIt() throws {
        let plan = plan(record(variants: [17, 18]))
        let request = { (segment: (region: String, versions: VersionRange)?, target: RevertTarget) in
            RevertRequest(locale: "tr-TR", segment: segment, target: target, reason: "r", block: true)
        }
        let (back, blocked) = try plan.reverted(by: request(nil, .lastKnownGood)) { _ in self.v48 }
        XCTAssertNil(back.experiment)
        XCTAssertEqual(blocked, [18], "the variant, never the control that is the baseline")
        XCTAssertEqual(back.baseline?.contentVersion, 17)
        let (killed, killedBlocked) = try plan.reverted(by: request(nil, .bundled)) { _ in self.v48 }
        XCTAssertNil(killed.experiment)
        XCTAssertTrue(killed.bundledOnly)
        XCTAssertEqual(killedBlocked, [18, 17])
        let (scoped, _) = try plan.reverted(by: request(("TR", try VersionRange.parse("4.8.x")), .lastKnownGood)) {
            _ in self.v48
        }
        XCTAssertNotNil(scoped.experiment, "the experiment goes on elsewhere")
        for i in 0..<200 {
            XCTAssertEqual(
                Resolution.outcome(scoped, region: "TR", appVersion: AppVersion("4.8.3"), installID: "id-\(i)"),
                .pack(17))
        }
    }

    // MARK: the confidence sequence

    func testTheSequenceHoldsTheObservedLiftAndNarrowsWithConversions() {
        let small = LiftSequence.interval(treatment: 110, conversions: 210, share: 0.5, alpha: 0.05)
        let large = LiftSequence.interval(treatment: 11_000, conversions: 21_000, share: 0.5, alpha: 0.05)
        for interval in [small, large] {
            XCTAssertLessThan(interval.lower, 0.1)
            XCTAssertGreaterThan(interval.upper, 0.1)
        }
        XCTAssertLessThan(small.lower, 0, "210 conversions cannot tell 10% apart")
        XCTAssertGreaterThan(large.lower, 0, "21,000 can")
        XCTAssertLessThan(large.upper - large.lower, small.upper - small.lower)
        XCTAssertEqual(LiftSequence.interval(treatment: 0, conversions: 0, share: 0.5, alpha: 0.05).lower, -1)
        XCTAssertEqual(LiftSequence.interval(treatment: 0, conversions: 40, share: 0.5, alpha: 0.05).lower, -1)
        XCTAssertEqual(LiftSequence.interval(treatment: 40, conversions: 40, share: 0.5, alpha: 0.05).upper, .infinity)
        // An unequal split: half the conversions from a variant with a quarter of the exposures is a
        // threefold rate (lift +200%); the mixture, tuned for lifts near 10%, is wide that far out.
        let quarter = LiftSequence.interval(treatment: 1_000, conversions: 2_000, share: 0.25, alpha: 0.05)
        XCTAssertLessThan(quarter.lower, 2)
        XCTAssertGreaterThan(quarter.upper, 2)
        XCTAssertGreaterThan(quarter.lower, 0.5)
    }

    /// The guarantee itself: with no difference, the sequence looked at after every conversion
    /// excludes no lift in at most alpha of the runs.
    func testLookedAtAfterEveryConversionTheSequenceErrsAtMostAlpha() {
        var random = SplitMix64(seed: 7)
        var misses = 0
        let runs = 400
        for _ in 0..<runs {
            var x = 0
            var bounds = (lower: -1.0, upper: Double.infinity)
            for n in 1...2_000 {
                if random.uniform() < 0.5 { x += 1 }
                // Every conversion early on, then every 10th: the looks of a busy hour.
                guard n < 200 || n % 10 == 0 else { continue }
                let interval = LiftSequence.interval(treatment: x, conversions: n, share: 0.5, alpha: 0.05)
                bounds = (max(bounds.lower, interval.lower), min(bounds.upper, interval.upper))
                if bounds.lower > 0 || bounds.upper < 0 {
                    misses += 1
                    break
                }
            }
        }
        XCTAssertLessThanOrEqual(Double(misses) / Double(runs), 0.05, "\(misses) of \(runs)")
    }

    // MARK: the verdict

    func daily(_ days: [(control: (Int, Int), variant: (Int, Int))]) -> ExperimentAnalysis.Daily {
        let first = Int(Timestamp(iso8601: "2026-12-01T00:00:00Z")!.seconds / 86_400)
        var result: ExperimentAnalysis.Daily = [:]
        for (offset, day) in days.enumerated() {
            result[first + offset] = [
                17: MetricCounts(total: day.control.0, events: day.control.1),
                18: MetricCounts(total: day.variant.0, events: day.variant.1),
            ]
        }
        return result
    }

    func at(_ day: Int) -> Timestamp {
        Timestamp(seconds: Timestamp(iso8601: "2026-12-01T00:00:00Z")!.seconds + Int64(day) * 86_400)
    }

    func testAClearLiftWinsAClearLossIsHarmAndTooLittleKeepsRunningWithAnEstimate() {
        let record = record()
        let win = daily(Array(repeating: ((20_000, 1_000), (20_000, 1_200)), count: 3))
        XCTAssertEqual(
            ExperimentAnalysis.analyze(record, outcomes: ["checkout": win], guardrails: [:], now: at(3)).verdict,
            .winner(18))
        let loss = daily(Array(repeating: ((20_000, 1_200), (20_000, 1_000)), count: 3))
        guard
            case .harm(let why) = ExperimentAnalysis.analyze(
                record, outcomes: ["checkout": loss], guardrails: [:], now: at(3)
            ).verdict
        else { return XCTFail("a clear loss is harm") }
        XCTAssertTrue(why.contains("converts worse on checkout"), why)
        let little = daily([((2_000, 100), (2_000, 106))])
        guard
            case .keepRunning(let days?) = ExperimentAnalysis.analyze(
                record, outcomes: ["checkout": little], guardrails: [:], now: at(1)
            ).verdict
        else { return XCTFail("too little data keeps running") }
        XCTAssertTrue((1...13).contains(days), "\(days)")
        XCTAssertEqual(
            ExperimentAnalysis.analyze(record, outcomes: ["checkout": little], guardrails: [:], now: at(15)).verdict,
            .noDifference)
    }

    /// One arm's export without the other's says nothing about the lift: every conversion of that
    /// day is the arm's whatever the lift. Alone it decides nothing; before equal days it neither
    /// moves the lift nor leaves a bound behind that the lift lies outside.
    func testADayWithOneArmsExportAloneSaysNothingAboutTheLift() {
        let record = record()
        for alone in [((0, 0), (1_500, 150)), ((1_500, 150), (0, 0))] {
            let result = ExperimentAnalysis.analyze(
                record, outcomes: ["checkout": daily([alone])], guardrails: [:], now: at(2))
            guard case .keepRunning = result.verdict else { return XCTFail("\(alone): \(result.verdict)") }
            XCTAssertEqual(result.comparisons[0].lower, -1)
            XCTAssertEqual(result.comparisons[0].upper, .infinity)
            XCTAssertNil(result.comparisons[0].lift)
        }
        for conversions in [1_000, 750] {
            let equalAfter = daily(
                [((0, 0), (600, 60))] + Array(repeating: ((20_000, 1_000), (20_000, conversions)), count: 2))
            let result = ExperimentAnalysis.analyze(
                record, outcomes: ["checkout": equalAfter], guardrails: [:], now: at(3))
            let comparison = result.comparisons[0]
            let lift = try! XCTUnwrap(comparison.lift)
            XCTAssertEqual(lift, Double(conversions) / 1_000 - 1, accuracy: 1e-9, "the counted days' lift")
            XCTAssertLessThanOrEqual(comparison.lower, lift)
            XCTAssertGreaterThanOrEqual(comparison.upper, lift)
            if conversions == 1_000 {
                guard case .keepRunning = result.verdict else { return XCTFail("equal rates: \(result.verdict)") }
            } else {
                guard case .harm = result.verdict else { return XCTFail("25% worse: \(result.verdict)") }
            }
        }
        // A lift that turns over (a novelty effect): the bounds start again rather than cross.
        let turning = daily(
            Array(repeating: ((50_000, 2_000), (50_000, 3_000)), count: 2)
                + Array(repeating: ((50_000, 3_000), (50_000, 1_000)), count: 4))
        let result = ExperimentAnalysis.analyze(record, outcomes: ["checkout": turning], guardrails: [:], now: at(6))
        let points = try! XCTUnwrap(result.timeline[18])
        XCTAssertGreaterThan(points[1].lower, 0, "better at first")
        XCTAssertTrue(points.allSatisfy { $0.lower <= $0.upper }, "\(points.map { ($0.lower, $0.upper) })")
        XCTAssertTrue(
            points.allSatisfy { point in point.lift.map { point.lower <= $0 && $0 <= point.upper } ?? true },
            "the bound never excludes the lift beside it: \(points.map { ($0.lift, $0.lower, $0.upper) })")
        XCTAssertLessThan(result.comparisons[0].upper, 0, "worse now")
    }

    /// The day of the experiment and the days left count from its start time, within its horizon;
    /// without counts of both arms there is no estimate, and the verdict does not make one up.
    func testTheDayAndTheDaysLeftKeepToTheHorizon() {
        let record = record()  // started 2026-12-01T00:00:00Z, 14 days
        let before = Timestamp(iso8601: "2026-11-30T12:00:00Z")!
        XCTAssertEqual(record.day(at: before), 1)
        XCTAssertEqual(record.daysLeft(at: before), 14)
        XCTAssertEqual(record.day(at: Timestamp(seconds: at(14).seconds - 3_600)), 14, "the last hour is still day 14")
        XCTAssertEqual(record.day(at: at(20)), 14)
        XCTAssertEqual(record.daysLeft(at: at(20)), 0)
        let empty = ExperimentAnalysis.analyze(record, outcomes: [:], guardrails: [:], now: before)
        XCTAssertEqual(empty.verdict, .keepRunning(days: nil))
        let alone = daily([((0, 0), (1_500, 150))])
        XCTAssertEqual(
            ExperimentAnalysis.analyze(record, outcomes: ["checkout": alone], guardrails: [:], now: at(2)).verdict,
            .keepRunning(days: nil))
    }

    func testAMismatchVoidsEvenAClearWinner() {
        // The variant's exposures are 40% of the two arms' where the split gives it 50%.
        let skewed = daily(Array(repeating: ((30_000, 1_500), (20_000, 1_200)), count: 3))
        let result = ExperimentAnalysis.analyze(record(), outcomes: ["checkout": skewed], guardrails: [:], now: at(3))
        guard case .void(let why) = result.verdict else { return XCTFail("\(result.verdict)") }
        XCTAssertTrue(why.contains("sample ratio mismatch: tr-TR@18 has 40.0%"), why)
        XCTAssertEqual(result.sampleRatios.first?.verdict, .mismatch)
    }

    func testAHarmedGuardrailIsHarmAndExploratoryMetricsNeverDecide() {
        let record = record(exploratory: ["signup", "share"])
        let flat = daily(Array(repeating: ((20_000, 1_000), (20_000, 1_000)), count: 3))
        let huge = daily(Array(repeating: ((20_000, 1_000), (20_000, 2_000)), count: 3))
        let result = ExperimentAnalysis.analyze(
            record, outcomes: ["checkout": flat, "signup": huge], guardrails: [:], now: at(3))
        guard case .keepRunning = result.verdict else { return XCTFail("\(result.verdict)") }
        let signup = result.comparisons.first { $0.metric == "signup" }!
        XCTAssertTrue(signup.exploratory)
        XCTAssertEqual(signup.decision, .better)
        XCTAssertEqual(signup.alpha, 0.025, accuracy: 1e-12, "0.05 over two exploratory metrics")
        let crashes = Health.evaluate(
            [
                (
                    "TR/4.8", [.crash: MetricCounts(total: 50_000, events: 500)],
                    [.crash: MetricCounts(total: 50_000, events: 200)]
                )
            ],
            gates: .default)
        XCTAssertEqual(crashes.verdict, .unhealthy)
        guard
            case .harm(let why) = ExperimentAnalysis.analyze(
                record, outcomes: ["checkout": flat], guardrails: [18: crashes], now: at(3)
            ).verdict
        else { return XCTFail("a harmed guardrail is harm") }
        XCTAssertEqual(why, "tr-TR@18 harms crash in TR/4.8")
    }

    func testTheErrorBudgetIsSplitOverTheTreatments() {
        let record = record(split: [3_334, 3_333, 3_333], variants: [17, 18, 19])
        let result = ExperimentAnalysis.analyze(record, outcomes: [:], guardrails: [:], now: at(1))
        XCTAssertEqual(result.comparisons.count, 2)
        XCTAssertEqual(result.comparisons[0].alpha, 0.025, accuracy: 1e-12)
    }
}
