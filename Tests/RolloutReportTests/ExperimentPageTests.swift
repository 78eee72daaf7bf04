import Foundation
import RolloutModel
import XCTest

@testable import RolloutReport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An experiment's page drawn from an `ExperimentContent` value: a record and the analysis of
/// outcome counts made up here, no repository, no process (docs/report.md, "An experiment's page").
final class ExperimentPageTests: XCTestCase {
    static let started = Timestamp(iso8601: "2026-11-24T09:00:00Z")!
    static var firstDay: Int { Int(started.seconds / 86_400) }

    static func record(reason: String? = "which title converts", exploratory: [String] = ["signup"])
        -> ExperimentRecord
    {
        let ref = { (version: Int) in Plan.PackRef(contentVersion: version, minAppVersion: AppVersion("4.8.0")!) }
        return ExperimentRecord(
            name: "title-test", locale: "tr-TR", variants: [ref(17), ref(18)],
            split: [Percent(basisPoints: 5000), Percent(basisPoints: 5000)], regions: ["TR"],
            versions: try! VersionRange.parse(">=4.8"), primary: "checkout", exploratory: exploratory,
            guardrails: [.crash, .fallback], days: 14, salt: "0123456789abcdef", keys: ["home.title"],
            started: started, startedBy: "Ana Release <ana@example.com>", reason: reason)
    }

    /// `days` days of 5,000 exposures an arm, the control converting 250 of them and the treatment
    /// `treatment`.
    static func outcomes(days: Int, treatment: Int = 300) -> ExperimentAnalysis.Daily {
        var daily: ExperimentAnalysis.Daily = [:]
        for day in firstDay..<(firstDay + days) {
            daily[day] = [
                17: MetricCounts(total: 5_000, events: 250),
                18: MetricCounts(total: 5_000 + day % 3, events: treatment),
            ]
        }
        return daily
    }

    static func content(
        _ record: ExperimentRecord = record(), outcomes: [String: ExperimentAnalysis.Daily]? = nil, day: Int = 6
    ) -> ExperimentContent {
        let now = Timestamp(seconds: started.seconds + Int64(day) * 86_400)
        let data =
            outcomes ?? ["checkout": Self.outcomes(days: day), "signup": Self.outcomes(days: day, treatment: 250)]
        let result = ExperimentAnalysis.analyze(record, outcomes: data, guardrails: [:], now: now)
        return ExperimentContent(
            record: record, result: result, verdict: "worded: \(result.verdict.label)", generated: now,
            repositoryPath: "/work/.rollout", state: "a08bce578217")
    }

    /// Every element of the page, parsed as XML: its name and attributes, in order.
    func elements(_ html: String, file: StaticString = #filePath, line: UInt = #line) -> [(String, [String: String])] {
        final class Elements: NSObject, XMLParserDelegate {
            var all: [(String, [String: String])] = []
            func parser(
                _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]
            ) {
                all.append((name, attributes))
            }
        }
        let elements = Elements()
        let parser = XMLParser(data: Data(html.utf8))
        parser.delegate = elements
        XCTAssertTrue(parser.parse(), "well-formed: \(String(describing: parser.parserError))", file: file, line: line)
        return elements.all
    }

    func testThePageHasEverySectionTheLiftBandAndTheVerdict() throws {
        let summary = ExperimentPage.render(Self.content())
        let page = summary.html
        let elements = elements(page)
        let ids = Set(elements.compactMap { $0.1["id"] })
        XCTAssertTrue(
            ids.isSuperset(of: [
                "question", "lift", "exposures", "comparison", "sample-ratio", "guardrails", "lift-tr-TR@18",
            ]), "\(ids)")
        XCTAssertEqual(summary.charts, 2)
        XCTAssertEqual(summary.verdict, "winner")
        XCTAssertEqual(elements.filter { $0.0 == "script" }.count, 0)
        XCTAssertTrue(page.contains("Verdict: <strong>worded: winner</strong>"), page)
        XCTAssertTrue(page.contains("Running since 2026-11-24T09:00:00Z (day 7 of 14)"), page)
        // The band: one polygon of the lift's bounds, inside the drawing, and the zero line.
        let bands = elements.filter { $0.0 == "polygon" && $0.1["class"] == "lift-band" }
        XCTAssertEqual(bands.count, 1)
        let coordinates = (bands.first?.1["points"] ?? "").split(whereSeparator: { $0 == " " || $0 == "," })
            .compactMap { Double($0) }
        XCTAssertEqual(coordinates.count, 7 * 2 * 2, "each day's upper and lower bound")
        XCTAssertTrue(coordinates.allSatisfy { (0...100).contains($0) }, "\(coordinates)")
        XCTAssertEqual(elements.filter { $0.0 == "line" && $0.1["class"] == "zero" }.count, 1)
        XCTAssertTrue(page.contains("95.0% bound, valid at every look"), page)
        // Exposures per day: one series per variant, and the numbers folded under the chart.
        XCTAssertEqual(
            elements.filter { $0.0 == "polyline" && ($0.1["class"] ?? "").hasPrefix("series variant-") }.count, 2)
        XCTAssertTrue(
            page.contains("<td data-label=\"Day\">2026-11-24</td><td data-label=\"tr-TR@17 (control)\">5,000</td>"),
            page)
        // The question, declared at the start.
        XCTAssertTrue(page.contains("<th>Targeting</th><td>TR on &gt;=4.8</td>"), page)
        XCTAssertTrue(page.contains("<th>Exploratory</th><td>signup (never decide)</td>"), page)
        XCTAssertTrue(page.contains("<q>which title converts</q>"), page)
    }

    func testTheComparisonLabelsTheExploratoryMetricsWithTheirCorrectedLevel() throws {
        // Two exploratory metrics share the primary's 5%: 2.5% each.
        let page = ExperimentPage.render(Self.content(Self.record(exploratory: ["signup", "share"]))).html
        let tables = elements(page).filter { $0.0 == "table" }.compactMap { $0.1["class"] }
        XCTAssertTrue(tables.contains("comparison primary cards"), "\(tables)")
        XCTAssertEqual(tables.filter { $0 == "comparison exploratory cards" }.count, 2, "\(tables)")
        XCTAssertTrue(
            page.contains(
                "<caption>Primary: checkout, declared at the start; bounds at 95.0%, anytime-valid</caption>"),
            page)
        XCTAssertTrue(
            page.contains(
                "<caption>Exploratory: signup; bounds at 97.50%, corrected for the number of metrics; never decides</caption>"
            ), page)
        XCTAssertTrue(page.contains("<tr class=\"variant decision-better\">"), "the primary shows the treatment better")
        XCTAssertTrue(page.contains("<td data-label=\"Lift\">+20.0%</td>"), page)
        XCTAssertTrue(page.contains("<tr class=\"ratio verdict-ok\">"), page)
    }

    func testAHostileReasonIsTextAndNothingElse() throws {
        let hostile = #"<script>alert("x&y")</script> 'q' "# + "\u{202E}>RTL<"
        let page = ExperimentPage.render(Self.content(Self.record(reason: hostile))).html
        let elements = elements(page)
        XCTAssertEqual(elements.filter { $0.0 == "script" }.count, 0)
        XCTAssertTrue(
            page.contains(
                "<q>&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt; &#39;q&#39; \\u{202E}&gt;RTL&lt;</q>"),
            page)
    }

    func testBeforeAnyOutcomeThePageSaysSoAndDrawsNoChart() throws {
        let summary = ExperimentPage.render(Self.content(outcomes: [:], day: 0))
        let page = summary.html
        _ = elements(page)
        XCTAssertEqual(summary.charts, 0)
        XCTAssertEqual(summary.verdict, "keep running")
        XCTAssertTrue(page.contains("No conversions of checkout in both arms yet."), page)
        XCTAssertTrue(page.contains("No exposures of checkout recorded for the variants yet."), page)
        XCTAssertFalse(page.contains("class=\"lift-band\""))
    }

    func testAnEndedExperimentSaysWhoEndedItAndHow() throws {
        var record = Self.record()
        record.ending = ExperimentRecord.Ending(
            actor: "Ana Release <ana@example.com>", time: Timestamp(seconds: Self.started.seconds + 5 * 86_400),
            reason: "clear winner", outcome: "shipped tr-TR@18 to 50%")
        let page = ExperimentPage.render(Self.content(record)).html
        _ = elements(page)
        XCTAssertTrue(
            page.contains("Ended 2026-11-29T09:00:00Z by Ana Release &lt;ana@example.com&gt;: shipped tr-TR@18 to 50%"),
            page)
        XCTAssertTrue(page.contains("<th>Ended</th>"), page)
    }

    func testTheLocalePageListsItsExperimentsAndLinksOnlyToPagesWritten() throws {
        let plan = Plan(
            locale: "tr-TR", baseline: Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!), rules: [])
        var content = ReportPageTests.content(plan: plan)
        XCTAssertFalse(ReportPage.render(content).html.contains("id=\"experiments\""), "no section without one")
        content.experiments = [ExperimentLine(Self.record())]
        let alone = ReportPage.render(content).html
        _ = elements(alone)
        XCTAssertTrue(alone.contains("<section id=\"experiments\">"), alone)
        XCTAssertFalse(alone.contains("href=\"experiment-title-test.html\""), "no page was written beside it")
        content.experimentPages = ["title-test"]
        let beside = ReportPage.render(content).html
        XCTAssertTrue(
            beside.contains(
                "<a href=\"experiment-title-test.html\"><span class=\"nowrap\">title-test</span></a>: tr-TR@17 (control), tr-TR@18; running since 2026-11-24"
            ), beside)
    }

    func testTheOverviewLinksEveryExperimentPage() throws {
        let html = OverviewPage.render(
            [], unpromoted: [],
            experiments: [
                .init(record: Self.record(), unreadable: nil),
                .init(
                    record: {
                        var r = Self.record()
                        r.name = "other"
                        return r
                    }(), unreadable: "a sum out of range"),
            ], now: Self.started, repositoryPath: "/r", state: nil)
        _ = elements(html)
        XCTAssertTrue(html.contains("<a href=\"experiment-title-test.html\">"), html)
        XCTAssertTrue(html.contains("could not be analyzed, so it has no page: a sum out of range"), html)
        XCTAssertFalse(html.contains("experiment-other.html"))
    }

    func testCountLabelsStayShort() {
        XCTAssertEqual(ReportCharts.countTicks(12_345).0.map(\.label), ["0", "5k", "10k", "15k"])
        XCTAssertEqual(ReportCharts.countTicks(3).0.map(\.label), ["0", "1", "2", "3", "4", "5"])
        XCTAssertEqual(ReportCharts.countTicks(2_400_000).0.map(\.label), ["0", "500k", "1M", "1.5M", "2M", "2.5M"])
        XCTAssertEqual(ReportCharts.liftText(nil), "-")
        XCTAssertEqual(ReportCharts.liftText(.infinity), "+inf")
        XCTAssertEqual(ReportCharts.liftText(-0.032), "-3.2%")
    }
}
