import Foundation
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// rollout report: one self-contained page whose structure the test reads from the HTML itself.
final class ReportTests: XCTestCase {
    /// Counts elements by name and by class while parsing the page as XML (it is well-formed XHTML).
    final class Structure: NSObject, XMLParserDelegate {
        var elements: [String: Int] = [:]
        var classes: [String: Int] = [:]
        var ids: Set<String> = []
        var externalReferences: [String] = []
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements[name, default: 0] += 1
            for word in (attributes["class"] ?? "").split(separator: " ") { classes[String(word), default: 0] += 1 }
            if let id = attributes["id"] { ids.insert(id) }
            for key in ["src", "href"] where attributes[key] != nil {
                externalReferences.append("\(name) \(key)=\(attributes[key]!)")
            }
        }
    }

    func testTheReportShowsTheRolloutItsMetricsAndItsRevert() throws {
        let w = try Workspace()
        try w.initWithExamples()
        for id in ["en-US@1", "tr@1", "tr-TR@17"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
        XCTAssertEqual(
            try w.rollout(
                "promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8", "--reason", "typo fix"
            ).status, 0)
        XCTAssertEqual(
            try w.rollout(
                "metrics", "ingest", "--kind", "crash", MetricsIngestTests.examples + "/crashes-spike-TR-4.8.csv"
            ).status, 0)
        XCTAssertEqual(
            try w.rollout(
                "metrics", "ingest", "--kind", "fallback", MetricsIngestTests.examples + "/fallbacks-healthy.csv"
            ).status, 0)
        let guarded = try w.rollout("guard", "--auto-revert")
        XCTAssertTrue(
            guarded.stdout.contains("reverted: rollback tr-TR/1"),
            "guard reverts the unhealthy rollout: \(guarded.output)")

        let result = try w.rollout("report", "tr-TR", "--out", "report.html", "--json")
        XCTAssertEqual(result.status, 0, result.output)
        let summary = try w.json(result)
        let page = try Data(contentsOf: URL(fileURLWithPath: w.work + "/report.html"))
        let structure = Structure()
        let parser = XMLParser(data: page)
        parser.delegate = structure
        XCTAssertTrue(parser.parse(), "well-formed: \(String(describing: parser.parserError))")

        // The timeline: one entry per change of tr-TR (three promotes, two ingests, the revert), and its chart.
        XCTAssertEqual(structure.classes["timeline-entry"], 6)
        XCTAssertEqual(summary["timelineEntries"] as? Int, 6)
        XCTAssertEqual(structure.classes["action-revert"], 2, "the revert, in the list and on the chart")
        XCTAssertTrue(
            structure.ids.isSuperset(of: [
                "timeline-chart", "shares", "rates-crash", "difference-crash", "rates-fallback", "difference-fallback",
            ]), "\(structure.ids)")
        XCTAssertEqual(structure.elements["svg"], 6)
        XCTAssertEqual(structure.classes["band"], 4, "a confidence band and its legend per metric")
        XCTAssertEqual(structure.classes["gate"], 4, "the gate line and its legend, per metric")
        // The plan, the blocked version and the rollback manifest.
        let text = String(decoding: page, as: UTF8.self)
        XCTAssertTrue(text.contains("<td class=\"blocked\">tr-TR@18</td>"), "the reverted version is blocked")
        XCTAssertTrue(text.contains("<h3>tr-TR/1</h3>"), "the rollback manifest")
        XCTAssertTrue(
            text.contains("<tr class=\"check verdict-unhealthy\">") == false,
            "no staged pack is judged after the revert")
        // Self-contained: no script, nothing fetched.
        XCTAssertNil(structure.elements["script"])
        XCTAssertEqual(structure.externalReferences, [])
        XCTAssertTrue(text.contains("@media print"))
    }

    func testAReportNeedsARollout() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let none = try w.rollout("report", "tr-TR", "--out", "r.html")
        XCTAssertEqual(none.status, 1, none.output)
        XCTAssertTrue(none.stderr.contains("rollout promote tr-TR@N --to 10% starts one"), none.stderr)
        XCTAssertEqual(try w.rollout("report", "xx-XX", "--out", "r.html").status, 66)
        XCTAssertEqual(try w.rollout("report", "tr-TR").status, 64)
        XCTAssertFalse(FileManager.default.fileExists(atPath: w.work + "/r.html"))
    }
}
