import Foundation
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `rollout report --experiment NAME` through the command line, on a repository an experiment ran
/// in: started with `experiment start`, its outcomes ingested with `metrics ingest --kind outcome`
/// (docs/report.md, "An experiment's page").
final class ExperimentReportTests: XCTestCase {
    /// tr-TR@17 the baseline, then title-test splitting TR on >=4.8 50/50 between tr-TR@17 and
    /// tr-TR@18, with five days of outcomes: the treatment converts 20% better on checkout.
    func startedExperiment() throws -> Workspace {
        let w = try Workspace()
        w.environment["ROLLOUT_NOW"] = "2026-11-24T08:00:00Z"
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let started = try w.rollout(
            [
                "experiment", "start", "title-test", "--variants", "tr-TR@17,tr-TR@18", "--region", "TR",
                "--app-version", ">=4.8", "--metric", "checkout", "--exploratory", "signup", "--reason",
                "which title <converts> & why",
            ], env: ["ROLLOUT_NOW": "2026-11-24T09:00:00Z"])
        XCTAssertEqual(started.status, 0, started.output)
        var csv = "date,locale,pack,region,app_version,metric,exposures,conversions\n"
        for day in 24...28 {
            for (pack, checkout, signup) in [("tr-TR@17", 200, 100), ("tr-TR@18", 240, 101)] {
                csv += "2026-11-\(day),tr-TR,\(pack),TR,4.8.1,checkout,\(4_000 + day),\(checkout)\n"
                csv += "2026-11-\(day),tr-TR,\(pack),TR,4.8.1,signup,\(4_000 + day),\(signup)\n"
            }
        }
        let file = try w.scratch.write("outcomes.csv", csv)
        w.environment["ROLLOUT_NOW"] = "2026-11-29T09:00:00Z"
        let ingested = try w.rollout("metrics", "ingest", file, "--kind", "outcome")
        XCTAssertEqual(ingested.status, 0, ingested.output)
        return w
    }

    func testTheExperimentPageShowsTheLiftItsBoundTheExposuresAndTheVerdictOfExperimentShow() throws {
        let w = try startedExperiment()
        let show = try w.rollout("experiment", "show", "title-test")
        let verdict = try XCTUnwrap(show.stdout.split(separator: "\n").first { $0.hasPrefix("verdict: ") })
        XCTAssertTrue(verdict.hasPrefix("verdict: winner tr-TR@18"), show.output)

        let result = try w.rollout("report", "--experiment", "title-test", "--out", "title-test.html", "--json")
        XCTAssertEqual(result.status, 0, result.output)
        let summary = try w.json(result)
        XCTAssertEqual(summary["verdict"] as? String, "winner")
        XCTAssertEqual(summary["locale"] as? String, "tr-TR")
        XCTAssertEqual(summary["charts"] as? Int, 2)
        let page = try Data(contentsOf: URL(fileURLWithPath: w.work + "/title-test.html"))
        let structure = ReportTests.Structure()
        let parser = XMLParser(data: page)
        parser.delegate = structure
        XCTAssertTrue(parser.parse(), "well-formed: \(String(describing: parser.parserError))")
        XCTAssertTrue(
            structure.ids.isSuperset(of: [
                "question", "lift", "lift-tr-TR@18", "exposures", "comparison", "sample-ratio", "guardrails",
            ]), "\(structure.ids)")
        XCTAssertEqual(structure.elements["svg"], 2)
        XCTAssertEqual(structure.classes["lift-band"], 2, "the band and its legend")
        XCTAssertEqual(structure.classes["zero"], 1)
        XCTAssertNil(structure.elements["script"])
        XCTAssertEqual(structure.externalReferences, [], "a page written alone links nowhere")
        let text = String(decoding: page, as: UTF8.self)
        // The verdict as experiment show words it, escaped; the reason as text.
        let worded = verdict.dropFirst("verdict: ".count)
        XCTAssertTrue(text.contains("Verdict: <strong>\(worded)</strong>"), text)
        XCTAssertTrue(text.contains("<q>which title &lt;converts&gt; &amp; why</q>"), text)
        XCTAssertTrue(text.contains("Running since 2026-11-24T09:00:00Z (day 6 of 14)"), text)
        // Five days of exposures, the comparison of both metrics and the sample ratio.
        XCTAssertTrue(text.contains("Exposures of each day (5 day(s))"), text)
        XCTAssertTrue(text.contains("<td data-label=\"Exposures\">20,130</td>"), text)
        XCTAssertTrue(text.contains("<td data-label=\"Lift\">+20.0%</td>"), text)
        XCTAssertTrue(text.contains("Exploratory: signup;"), text)
        XCTAssertTrue(text.contains("<tr class=\"ratio verdict-ok\">"), text)
    }

    func testEveryPageLinksToTheExperimentAndItBackAndTheRefusals() throws {
        let w = try startedExperiment()
        let all = try w.rollout("report", "--all", "--out", "reports", "--json")
        XCTAssertEqual(all.status, 0, all.output)
        let experiments = try XCTUnwrap(try w.json(all)["experiments"] as? [[String: Any]])
        XCTAssertEqual(experiments.map { $0["experiment"] as? String }, ["title-test"])
        func read(_ name: String) throws -> String {
            try String(contentsOfFile: w.work + "/reports/" + name, encoding: .utf8)
        }
        XCTAssertTrue(try read("index.html").contains("<a href=\"experiment-title-test.html\">"))
        XCTAssertTrue(try read("tr-TR.html").contains("<a href=\"experiment-title-test.html\">"))
        let page = try read("experiment-title-test.html")
        XCTAssertTrue(page.contains("<a href=\"index.html\">Every locale</a>"), page)
        XCTAssertTrue(page.contains("<a href=\"tr-TR.html\">tr-TR report</a>"), page)
        // The locale's page written alone names the experiment without a link.
        XCTAssertEqual(try w.rollout("report", "tr-TR", "--out", "tr-TR.html").status, 0)
        let alone = try String(contentsOfFile: w.work + "/tr-TR.html", encoding: .utf8)
        XCTAssertTrue(alone.contains("<section id=\"experiments\">"), alone)
        XCTAssertFalse(alone.contains("experiment-title-test.html"))

        let unknown = try w.rollout("report", "--experiment", "nope", "--out", "x.html")
        XCTAssertEqual(unknown.status, 66, unknown.output)
        XCTAssertTrue(unknown.stderr.contains("title-test"), "names the experiments there are: \(unknown.stderr)")
        XCTAssertEqual(try w.rollout("report", "tr-TR", "--experiment", "title-test", "--out", "x.html").status, 64)
        XCTAssertEqual(try w.rollout("report", "--all", "--experiment", "title-test", "--out", "x").status, 64)
        XCTAssertEqual(try w.rollout("report", "--experiment", "title-test").status, 64)
        XCTAssertFalse(FileManager.default.fileExists(atPath: w.work + "/x.html"))
    }
}
