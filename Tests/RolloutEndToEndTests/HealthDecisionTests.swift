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
        let path = try scratch.write("crashes-\(date)-\(share).csv", csv)
        let ingested = try rollout("metrics", "ingest", "--kind", "crash", path)
        XCTAssertEqual(ingested.status, 0, ingested.output, file: file, line: line)
    }

    /// The segments of the example metrics: TR on 4.8 and 4.9, DE on 4.8, CY on 4.9.
    static let everySegment = [("TR", "4.8.1"), ("TR", "4.9.0"), ("DE", "4.8.1"), ("CY", "4.9.0")]
}
