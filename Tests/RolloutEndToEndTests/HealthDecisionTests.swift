import Foundation
import XCTest

/// Decisions a release manager has to defend (docs/health.md): a widening is judged in every segment
/// it widens, a segment short of data is named and accepted only by name, and the evidence a rollback
/// keeps is the verdict `rollout health --json` prints.
final class HealthDecisionTests: XCTestCase {
    /// tr-TR@18 at 10% in TR on >=4.8 against tr-TR@17, with the healthy example crashes ingested:
    /// TR/4.8 and TR/4.9 carry both packs; DE/4.8 and CY/4.9 only the baseline.
    static func stagedInTR(_ file: String = "crashes-healthy.csv") throws -> Workspace {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8").status, 0)
        let ingested = try w.rollout("metrics", "ingest", "--kind", "crash", MetricsIngestTests.examples + "/" + file)
        XCTAssertEqual(ingested.status, 0, ingested.output)
        return w
    }

    func trailer(_ w: Workspace, _ name: String) throws -> String {
        try w.git("log", "-1", "--format=%(trailers:key=\(name),valueonly,separator=%x2C)").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testWideningIntoARegionWithoutCandidateDataNamesItAndNeedsItAcceptedByName() throws {
        let w = try Self.stagedInTR()
        XCTAssertEqual(try w.json(try w.rollout("health", "tr-TR", "--json"))["verdict"] as? String, "healthy")
        let tip = try w.stateTip()
        let refused = try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "DE")
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(
            refused.stderr.contains(
                "tr-TR@18 has too little data in a segment it would widen into: DE/4.8 (no data for tr-TR@18)"),
            refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--accept-insufficient DE/4.8"), refused.stderr)
        XCTAssertEqual(try w.stateTip(), tip, "a refused promote writes nothing")

        let stray = try w.rollout(
            "promote", "tr-TR@18", "--to", "10%", "--region", "DE", "--accept-insufficient", "CY/4.9")
        XCTAssertEqual(stray.status, 64, stray.output)
        XCTAssertTrue(
            stray.stderr.contains(
                "--accept-insufficient CY/4.9 names no segment this promote widens (it widens: DE/4.8)"),
            stray.stderr)
        let malformed = try w.rollout(
            "promote", "tr-TR@18", "--to", "10%", "--region", "DE", "--accept-insufficient", "DE")
        XCTAssertEqual(malformed.status, 64, malformed.output)
        XCTAssertTrue(malformed.stderr.contains("--accept-insufficient \"DE\" must be a segment REGION/FAMILY"))
        XCTAssertEqual(try w.stateTip(), tip)

        let accepted = try w.rollout(
            "promote", "tr-TR@18", "--to", "10%", "--region", "DE", "--accept-insufficient", "DE/4.8")
        XCTAssertEqual(accepted.status, 0, accepted.output)
        XCTAssertEqual(try trailer(w, "Rollout-Accepted-Insufficient"), "DE/4.8")
        XCTAssertEqual(try trailer(w, "Rollout-Forced"), "", "accepting a segment is not forcing the gate")
        XCTAssertEqual(try w.rollout("verify").status, 0, "the trailer is one verify knows")
    }

    func testASegmentBelowTheMinimumIsNamedWithWhatItHasAndWhenItIsExpectedToBeJudged() throws {
        let w = try Self.stagedInTR()
        let policy = try w.scratch.write(
            "gates.json",
            #"{"gates": {"crash": {"maxRelativeIncrease": 0.1, "maxAbsoluteIncrease": 0.001, "minSamples": 20000}}}"#)
        XCTAssertEqual(try w.rollout("policy", "set", policy, "--reason", "stricter").status, 0)
        // TR/4.9 has 10,000 candidate sessions over four days (2,500 a day): four more days to 20,000.
        let health = try w.rollout("health", "tr-TR")
        XCTAssertEqual(health.status, 0, health.output)
        let rows = health.stdout.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true)
        }
        let segment49 = try XCTUnwrap(
            rows.first { $0.first == "TR/4.9" && $0.count > 2 && $0[1] == "insufficient-data" })
        XCTAssertEqual(segment49.suffix(2).joined(separator: " "), "~4 days", health.stdout)
        let segment48 = try XCTUnwrap(rows.first { $0.first == "TR/4.8" && $0.count > 2 && $0[1] == "healthy" })
        XCTAssertEqual(segment48.last, "now")
        XCTAssertTrue(segment48.joined(separator: " ").contains("36000 / 324000"), "the sessions it rests on")

        let tip = try w.stateTip()
        let refused = try w.rollout("promote", "tr-TR@18", "--to", "50%")
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("TR/4.9 (10000 sessions against 90000; judged: ~4 days)"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("TR/4.8"), "TR/4.8 is healthy: " + refused.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
        // Widening only 4.8 does not reach TR/4.9: nothing to accept.
        let narrow = try w.rollout("promote", "tr-TR@18", "--to", "50%", "--region", "TR", "--app-version", "4.8.x")
        XCTAssertEqual(narrow.status, 0, narrow.output)
        let forced = try w.rollout("promote", "tr-TR@18", "--to", "50%", "--force", "--reason", "release train")
        XCTAssertEqual(forced.status, 0, forced.output)
        XCTAssertEqual(try trailer(w, "Rollout-Forced"), "health was insufficient-data in TR/4.9")
    }

    func testARollbackKeepsAsEvidenceTheVerdictHealthPrints() throws {
        let w = try Self.stagedInTR("crashes-spike-TR-4.8.csv")
        let health = try w.rollout("health", "tr-TR", "--json")
        XCTAssertEqual(health.status, 1)
        let printed = try w.json(health)
        XCTAssertEqual(printed["format"] as? Int, 2)
        let reverted = try w.rollout("revert", "tr-TR", "--reason", "crash spike in TR/4.8")
        XCTAssertEqual(reverted.status, 0, reverted.output)
        let manifest = try w.json(try w.rollout("rollbacks", "tr-TR/1", "--json"))
        let evidence = try XCTUnwrap(manifest["evidence"] as? [String: Any])
        for key in ["format", "verdict", "held", "alphaPerCheck", "candidate", "baseline", "locale"] {
            XCTAssertEqual(
                evidence[key] as? NSObject, printed[key] as? NSObject, "\(key): the evidence is what health printed")
        }
        for key in ["checks", "segments", "sampleRatios"] {
            XCTAssertEqual(evidence[key] as? NSArray, printed[key] as? NSArray, "\(key) in the same form")
        }
        let check = try XCTUnwrap((evidence["checks"] as? [[String: Any]])?.first)
        XCTAssertEqual(
            Set(check.keys),
            [
                "segment", "metric", "candidate", "baseline", "difference", "lowerBound", "upperBound", "tolerance",
                "verdict", "daysToDecision",
            ])
        XCTAssertNotNil(check["difference"] as? Double, "format 1 left the difference out")
        XCTAssertNotNil(check["upperBound"] as? Double, "and the upper bound")
        XCTAssertEqual(
            (evidence["sources"] as? [[String: Any]])?.first?["file"] as? String,
            MetricsIngestTests.examples + "/crashes-spike-TR-4.8.csv")

        let report = try w.rollout("report", "tr-TR", "--out", "report.html")
        XCTAssertEqual(report.status, 0, report.output)
        let page = try String(contentsOfFile: w.work + "/report.html", encoding: .utf8)
        XCTAssertTrue(page.contains("Evidence: unhealthy (evidence format 2)"), "the report reads it back")
    }
}

/// Sample ratio mismatch end to end (docs/health.md, "Sample ratio mismatch"): a staged pack that
/// carries another share of a segment's sessions than the plan gives it holds the rollout.
final class SampleRatioHoldTests: XCTestCase {
    static let inTR: [(region: String, version: String)] = [("TR", "4.8.1"), ("TR", "4.9.0")]

    /// tr-TR@18 staged at 10% in TR on >=4.8 from 2026-11-25, its sessions carrying `share` of each
    /// TR segment for three days.
    static func staged(carrying share: Double) throws -> Workspace {
        let w = try staging(["--to", "10%", "--region", "TR", "--app-version", ">=4.8"], at: "2026-11-25T08:00:00Z")
        for day in ["2026-11-25", "2026-11-26", "2026-11-27"] {
            try w.ingestCrashDay(day, share: share, segments: inTR, sessions: 200_000)
        }
        return w
    }

    /// tr-TR@17 the baseline from 2026-11-24, then tr-TR@18 promoted with `arguments` at `time`.
    static func staging(_ arguments: [String], at time: String) throws -> Workspace {
        let w = try Workspace()
        try w.initWithExamples()
        let baseline = try w.rollout(
            ["promote", "tr-TR@17", "--to", "100%"], env: ["ROLLOUT_NOW": "2026-11-24T00:00:00Z"])
        XCTAssertEqual(baseline.status, 0, baseline.output)
        let staged = try w.rollout(["promote", "tr-TR@18"] + arguments, env: ["ROLLOUT_NOW": time])
        XCTAssertEqual(staged.status, 0, staged.output)
        return w
    }

    func testTwiceThePlannedShareHoldsTheRolloutInHealthPromoteGuardAndTheReport() throws {
        let w = try Self.staged(carrying: 0.20)
        let now = ["ROLLOUT_NOW": "2026-11-28T09:00:00Z"]
        let health = try w.rollout(["health", "tr-TR"], env: now)
        XCTAssertEqual(health.status, 1, "a mismatch needs a person: " + health.output)
        XCTAssertTrue(health.stdout.contains("tr-TR@18 against tr-TR@17: healthy"), "the rates are alike")
        XCTAssertTrue(
            health.stdout.contains(
                "held: sample ratio mismatch in TR/4.8: over its newest 3 days, the staged pack had 20.0% of the sessions (120000 of 600000) where the plan gave it 10.0%"
            ), health.stdout)
        XCTAssertTrue(health.stdout.contains("20.0% of 10.0% MISMATCH"), health.stdout)
        let json = try w.json(try w.rollout(["health", "tr-TR", "--json"], env: now))
        XCTAssertEqual(json["held"] as? Bool, true)
        let ratios = try XCTUnwrap(json["sampleRatios"] as? [[String: Any]])
        XCTAssertEqual(ratios.map { $0["verdict"] as? String }, ["mismatch", "mismatch"])
        XCTAssertEqual(ratios.first?["side"] as? String, "candidate-high")

        let tip = try w.stateTip()
        let refused = try w.rollout(["promote", "tr-TR@18", "--to", "50%"], env: now)
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(refused.stderr.contains("tr-TR@18 is held: sample ratio mismatch in TR/4.8"), refused.stderr)
        XCTAssertEqual(try w.stateTip(), tip)

        let guarded = try w.rollout(["guard", "--auto-revert"], env: now)
        XCTAssertEqual(guarded.status, 1, guarded.output)
        XCTAssertTrue(
            guarded.stdout.contains("held: sample ratio mismatch in TR/4.8, TR/4.9; see rollout health tr-TR"),
            guarded.stdout)
        XCTAssertEqual(try w.stateTip(), tip, "a mismatch is not a reason to revert")

        let report = try w.rollout(["report", "tr-TR", "--out", "report.html"], env: now)
        XCTAssertEqual(report.status, 0, report.output)
        let page = try String(contentsOfFile: w.work + "/report.html", encoding: .utf8)
        XCTAssertTrue(page.contains("held: sample ratio mismatch in TR/4.8, TR/4.9"), "the report's header")
        XCTAssertTrue(page.contains("<tr class=\"segment verdict-held\">"), "the segment rows")

        let forced = try w.rollout(
            ["promote", "tr-TR@18", "--to", "50%", "--force", "--reason", "bucketing fixed in 4.8.3"], env: now)
        XCTAssertEqual(forced.status, 0, forced.output)
        XCTAssertEqual(
            try w.git("log", "-1", "--format=%(trailers:key=Rollout-Forced,valueonly,separator=)").stdout
                .trimmingCharacters(in: .whitespacesAndNewlines),
            "held: sample ratio mismatch in TR/4.8, TR/4.9")
    }

    func testThePlannedShareIsNotHeldAndAChangeOfPlanIsJudgedAgainstTheSharesInForce() throws {
        let w = try Self.staged(carrying: 0.10)
        let now = ["ROLLOUT_NOW": "2026-11-28T09:00:00Z"]
        let health = try w.rollout(["health", "tr-TR"], env: now)
        XCTAssertEqual(health.status, 0, health.output)
        XCTAssertTrue(health.stdout.contains("10.0% of 10.0% ok"), health.stdout)
        // Widened to 50% on 2026-11-28: that day and the next may carry any share from 10% to 50%
        // while devices pick up the new manifest; from 2026-11-30 on, 50%.
        XCTAssertEqual(try w.rollout(["promote", "tr-TR@18", "--to", "50%"], env: now).status, 0)
        try w.ingestCrashDay("2026-11-28", share: 0.15, segments: Self.inTR, sessions: 200_000)
        try w.ingestCrashDay("2026-11-29", share: 0.45, segments: Self.inTR, sessions: 200_000)
        let later = ["ROLLOUT_NOW": "2026-11-30T09:00:00Z"]
        XCTAssertEqual(try w.rollout(["health", "tr-TR"], env: later).status, 0, "adoption takes a day")
        // A day at 50% that still carries 15%: the devices did not pick up the plan.
        try w.ingestCrashDay("2026-11-30", share: 0.15, segments: Self.inTR, sessions: 200_000)
        let stale = try w.rollout(["health", "tr-TR"], env: ["ROLLOUT_NOW": "2026-12-01T09:00:00Z"])
        XCTAssertEqual(stale.status, 1, stale.output)
        XCTAssertTrue(
            stale.stdout.contains(
                "held: sample ratio mismatch in TR/4.8: on its newest day, the staged pack had 15.0% of the sessions (30000 of 200000) where the plan gave it 50.0%"
            ), "the days the mismatch shows in, not the week before it: " + stale.stdout)
    }

    func testAStagedPackWithNoSessionsInASegmentItIsGivenIsHeld() throws {
        // A CDN serves TR on 4.9 an old manifest: tr-TR@18 is measured in TR/4.8 but has no row in TR/4.9.
        let w = try Self.staging(
            ["--to", "10%", "--region", "TR", "--app-version", ">=4.8"], at: "2026-11-25T08:00:00Z")
        for day in ["2026-11-25", "2026-11-26", "2026-11-27"] {
            try w.ingestCrashDay(
                day, share: 0.10, segments: [("TR", "4.8.1")], baselineOnly: [("TR", "4.9.0")], sessions: 200_000)
        }
        let health = try w.json(
            try w.rollout(["health", "tr-TR", "--json"], env: ["ROLLOUT_NOW": "2026-11-28T09:00:00Z"]))
        let ratios = try XCTUnwrap(health["sampleRatios"] as? [[String: Any]])
        let tr49 = try XCTUnwrap(ratios.first { $0["segment"] as? String == "TR/4.9" })
        XCTAssertEqual(tr49["verdict"] as? String, "mismatch")
        XCTAssertEqual(tr49["side"] as? String, "candidate-low")
        XCTAssertEqual(ratios.first { $0["segment"] as? String == "TR/4.8" }?["verdict"] as? String, "ok")
        let segments = try XCTUnwrap(health["segments"] as? [[String: Any]])
        XCTAssertEqual(segments.first { $0["segment"] as? String == "TR/4.9" }?["held"] as? Bool, true)
        let refused = try w.rollout(
            ["promote", "tr-TR@18", "--to", "50%", "--accept-insufficient", "TR/4.9"],
            env: ["ROLLOUT_NOW": "2026-11-28T09:00:00Z"])
        XCTAssertEqual(refused.status, 1, "accepting too little data does not accept a mismatch: " + refused.output)
        XCTAssertTrue(refused.stderr.contains("is held: sample ratio mismatch in TR/4.9"), refused.stderr)
    }

    func testARampWhoseDevicesDoNotGetTheirShareIsNotAdvanced() throws {
        let w = try Self.staging(
            ["--ramp", "2,5,100", "--every", "1d", "--region", "TR"], at: "2026-11-25T00:00:00Z")
        // A client port buckets twice as many devices in.
        for day in ["2026-11-25", "2026-11-26"] {
            try w.ingestCrashDay(day, share: 0.04, segments: Self.inTR, sessions: 400_000)
        }
        let guarded = try w.rollout(["guard"], env: ["ROLLOUT_NOW": "2026-11-27T00:00:00Z"])
        XCTAssertEqual(guarded.status, 1, guarded.output)
        XCTAssertTrue(guarded.stdout.contains("held: sample ratio mismatch in TR/4.8, TR/4.9"), guarded.stdout)
        let plan = try XCTUnwrap(try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any])
        XCTAssertEqual((plan["rules"] as? [[String: Any]])?.first?["basisPoints"] as? Int, 200, "not advanced")
    }
}

extension Workspace {
    /// One day of crash counts for tr-TR@18 against tr-TR@17, ingested: in each segment `sessions` a day
    /// split between the packs as `share` says (the candidate's fraction), both crashing in 0.2% of
    /// sessions; in `baselineOnly`, the baseline alone. A test drives the clock and ingests each day as
    /// it passes, as a pipeline would.
    func ingestCrashDay(
        _ date: String, share: Double, segments: [(region: String, version: String)] = Workspace.everySegment,
        baselineOnly: [(region: String, version: String)] = [], sessions: Int = 600_000,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        var csv = "date,pack,region,app_version,sessions,crashes\n"
        for segment in segments + baselineOnly {
            let candidate = segments.contains { $0 == segment } ? Int((Double(sessions) * share).rounded()) : 0
            for (pack, n) in [("tr-TR@18", candidate), ("tr-TR@17", sessions - candidate)] where n > 0 {
                csv += "\(date),\(pack),\(segment.region),\(segment.version),\(n),\(n / 500)\n"
            }
        }
        let path = try scratch.write("crashes-\(date)-\(share)-\(segments.count)-\(baselineOnly.count).csv", csv)
        let ingested = try rollout("metrics", "ingest", "--kind", "crash", path)
        XCTAssertEqual(ingested.status, 0, ingested.output, file: file, line: line)
    }

    /// The segments of the example metrics: TR on 4.8 and 4.9, DE on 4.8, CY on 4.9.
    static let everySegment = [("TR", "4.8.1"), ("TR", "4.9.0"), ("DE", "4.8.1"), ("CY", "4.9.0")]
}
