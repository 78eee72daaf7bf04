import Foundation
import RolloutModel
import XCTest

@testable import RolloutReport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The page drawn from a `ReportContent` value: no repository, no process (docs/report.md).
final class ReportPageTests: XCTestCase {
    static let hostile = #"<script>alert("x&y")</script> 'q' 🚀 עברית "# + "\u{202E}>RTL<"

    static func rule(_ version: Int, percent: Int, regions: [String] = ["TR"]) throws -> Plan.Rule {
        Plan.Rule(
            pack: Plan.PackRef(contentVersion: version, minAppVersion: AppVersion("4.8.0")!), regions: regions,
            versions: try VersionRange.parse(">=4.8"), share: Percent(basisPoints: percent * 100), salt: "s")
    }

    static func content(
        plan: Plan, changes: [ReportContent.Change] = [], staged: Int? = nil, health: Health.Report? = nil,
        days: [MetricKind: [ReportContent.Day]] = [:], rollbacks: [[String: JSONValue]] = [],
        unreadableRollbacks: Int = 0,
        path: String = "/work/.rollout"
    ) -> ReportContent {
        ReportContent(
            locale: plan.locale, generated: Timestamp(iso8601: "2026-12-01T12:00:00Z")!, repositoryPath: path,
            state: "a08bce578217",
            plan: plan, changes: changes, staged: staged ?? plan.candidate?.contentVersion, gates: .default,
            health: health, days: days,
            rollbacks: rollbacks, unreadableRollbacks: unreadableRollbacks)
    }

    static func change(
        _ hour: Int64, _ action: String, summary: String, reason: String? = nil,
        actor: String = "Ann <ann@example.com>",
        shares: [ReportContent.Share]? = nil
    ) -> ReportContent.Change {
        ReportContent.Change(
            time: Timestamp(seconds: 1_795_766_400 + hour * 3600), action: action, summary: summary, actor: actor,
            reason: reason,
            commit: String(repeating: "c", count: 40), shares: shares)
    }

    /// Parses the page as XML and returns every element name it holds.
    func elements(_ html: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        final class Names: NSObject, XMLParserDelegate {
            var names: [String] = []
            func parser(
                _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]
            ) {
                names.append(name)
            }
        }
        let names = Names()
        let parser = XMLParser(data: Data(html.utf8))
        parser.delegate = names
        XCTAssertTrue(parser.parse(), "well-formed: \(String(describing: parser.parserError))", file: file, line: line)
        return names.names
    }

    func testAHeldRampShowsAsPausedWithWhatIsStaged() throws {
        var plan = Plan(
            locale: "tr-TR", baseline: Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!),
            rules: [try Self.rule(18, percent: 5)])
        plan.ramp = Plan.Ramp(
            steps: [1, 5, 10].map { Percent(basisPoints: $0 * 100) }, every: 86_400, step: 1,
            since: Timestamp(seconds: 0), paused: true)
        let page = ReportPage.render(Self.content(plan: plan)).html
        XCTAssertTrue(page.contains("<tr><th>Ramp</th><td>1% → 5% → 10% (paused)</td></tr>"), page)
        XCTAssertTrue(page.contains("<tr><th>Baseline</th><td>tr-TR@17 (app 4.8.0+)</td></tr>"), page)
        XCTAssertTrue(page.contains("<tr><th>Staged</th><td>tr-TR@18: 5% in "), page)
        XCTAssertTrue(page.contains("<tr><th>Blocked</th><td class=\"blocked\">none</td></tr>"), page)
        XCTAssertTrue(
            page.contains(
                "Health: <strong>no metrics</strong> · candidate <span class=\"nowrap\">tr-TR@18</span> · baseline <span class=\"nowrap\">tr-TR@17</span>"
            ), page)
        XCTAssertFalse(page.contains("Kill switch"))
    }

    func testTheKillSwitchAndBlockedVersionsShowInThePlan() {
        let plan = Plan(
            locale: "tr-TR", previousBaselines: [Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!)],
            blocked: [19, 18],
            bundledOnly: true)
        let page = ReportPage.render(Self.content(plan: plan)).html
        XCTAssertTrue(page.contains("<tr><th>Baseline</th><td>none: bundled strings</td></tr>"), page)
        XCTAssertTrue(page.contains("<tr><th>Earlier baselines</th><td>tr-TR@17</td></tr>"), page)
        XCTAssertTrue(page.contains("<td class=\"blocked\">tr-TR@18, tr-TR@19</td>"), page)
        XCTAssertTrue(
            page.contains(
                "<tr><th>Kill switch</th><td class=\"blocked\">on: every device uses its bundled strings</td></tr>"),
            page)
        XCTAssertTrue(page.contains("Health: <strong>nothing staged</strong></p>"), page)
    }

    /// The evidence of a rollback manifest written before format 2 (docs/health.md, "One form of a
    /// check"): no `format`, checks without `difference` and `upperBound`.
    static let formatOneEvidence = #"""
        {"checks": [{"baseline": [607, 324000], "candidate": [214, 36000], "lowerBound": 0.0025551831310819447,
          "metric": "crash", "segment": "TR/4.8", "tolerance": 0.001, "verdict": "unhealthy"},
         {"baseline": [156, 90000], "candidate": [15, 10000], "lowerBound": null, "metric": "crash",
          "segment": "TR/4.9", "tolerance": 0.001, "verdict": "insufficient-data"}],
         "sources": [], "verdict": "unhealthy"}
        """#

    func testEvidenceOfEitherFormatIsShownAsATable() throws {
        let old = try StrictJSONParser.parse(Array(Self.formatOneEvidence.utf8))
        let read = try XCTUnwrap(HealthEvidence.read(old))
        XCTAssertEqual(read.format, 1)
        XCTAssertEqual(read.checks.map(\.segment), ["TR/4.8", "TR/4.9"])
        XCTAssertEqual(try XCTUnwrap(read.checks[0].difference), 214.0 / 36000 - 607.0 / 324000, accuracy: 1e-15)
        XCTAssertNil(read.checks[0].upperBound, "format 1 did not keep it")
        XCTAssertNil(read.checks[1].lowerBound)
        XCTAssertNil(HealthEvidence.read(.string("none")), "a revert without metrics has no evidence")
        var newer = try XCTUnwrap(old.objectValue)
        newer["format"] = .integer(Health.jsonFormat + 1)
        XCTAssertNil(HealthEvidence.read(.object(newer)), "a format this build does not know is not guessed at")

        let plan = Plan(
            locale: "tr-TR", baseline: Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!),
            blocked: [18])
        let manifest: [String: JSONValue] = [
            "id": .string("tr-TR/1"), "time": .string("t"), "actor": .string("a"), "evidence": old,
        ]
        let page = ReportPage.render(Self.content(plan: plan, rollbacks: [manifest])).html
        XCTAssertTrue(page.contains("<caption>Evidence: unhealthy (evidence format 1)</caption>"), page)
        XCTAssertTrue(page.contains("<td data-label=\"Segment\">TR/4.8</td><td data-label=\"Metric\">crash</td>"))
        XCTAssertTrue(page.contains("<td data-label=\"Bound\">&gt;= "), "a format-1 bound has only its lower end")
    }

    func testHostileStringsComeOutAsTextAndThePageStaysWellFormed() throws {
        let hostile = Self.hostile
        let plan = Plan(
            locale: "tr-TR", baseline: Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!),
            blocked: [18])
        let changes = [
            Self.change(
                1, "promote", summary: "promote tr-TR@18 " + hostile, reason: hostile, actor: "Bob & \"dq\" 'q' 🚀 עברית"
            ),
            Self.change(2, "revert" + hostile, summary: "revert", reason: "\u{1B}[2J\u{0}"),
        ]
        let manifest: [String: JSONValue] = [
            "id": .string("tr-TR/1" + hostile), "time": .string("t"), "actor": .string(hostile),
            "reason": .string(hostile),
        ]
        let page = ReportPage.render(
            Self.content(plan: plan, changes: changes, rollbacks: [manifest], path: "/tmp/" + hostile)
        ).html
        let names = elements(page)
        XCTAssertFalse(names.contains("script"), "no element a string brought in")
        XCTAssertEqual(
            Set(names).subtracting([
                "html", "head", "meta", "title", "style", "body", "header", "h1", "p", "strong", "section", "h2",
                "div", "table", "tbody", "tr", "th", "td", "figure", "svg", "line", "ul", "ol", "li", "time", "span",
                "q", "code", "article", "h3", "details", "summary", "pre", "footer",
            ]), [])
        let escaped =
            #"&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt; &#39;q&#39; 🚀 עברית \u{202E}&gt;RTL&lt;"#
        XCTAssertTrue(page.contains("from /tmp/\(escaped), state"), "the repository path")
        XCTAssertTrue(page.contains("<q>\(escaped)</q>"), "a change's reason")
        XCTAssertTrue(
            page.contains("<span class=\"who\"> — Bob &amp; &quot;dq&quot; &#39;q&#39; 🚀 עברית</span>"), "the actor")
        XCTAssertTrue(
            page.contains("class=\"timeline-entry action-revert\(escaped)\""), "an action, inside an attribute value")
        XCTAssertTrue(page.contains(#"<q>\u{1B}[2J\0</q>"#), "controls show visibly")
        XCTAssertTrue(
            page.contains("<h3>tr-TR/1\(escaped)</h3><p>t by \(escaped): <q>\(escaped)</q></p>"),
            "the rollback manifest")
        XCTAssertFalse(page.contains("<script"))
        XCTAssertFalse(page.contains("\u{202E}"), "no raw bidi override")
    }

    func testWithoutChangesOrMetricsThePageSaysSoAndDrawsNothing() {
        let plan = Plan(locale: "tr", baseline: Plan.PackRef(contentVersion: 1, minAppVersion: AppVersion("1.0.0")!))
        let summary = ReportPage.render(Self.content(plan: plan))
        XCTAssertEqual(summary.charts, 0)
        XCTAssertEqual(summary.timelineEntries, 0)
        XCTAssertFalse(summary.html.contains("<svg"))
        XCTAssertTrue(
            summary.html.contains(
                "<p class=\"empty\">No candidate has been staged against a baseline: nothing to compare.</p>"))
        XCTAssertTrue(summary.html.contains("<p class=\"empty\">No revert so far.</p>"))
        XCTAssertTrue(summary.html.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n<html "))
        XCTAssertTrue(summary.html.hasSuffix("</footer>\n</body></html>\n"))
    }

    func testAStoredManifestThatDoesNotReadStillMeansARevertHappened() {
        let plan = Plan(locale: "tr", baseline: Plan.PackRef(contentVersion: 1, minAppVersion: AppVersion("1.0.0")!))
        let page = ReportPage.render(Self.content(plan: plan, unreadableRollbacks: 1)).html
        XCTAssertFalse(page.contains("No revert so far."))
        XCTAssertFalse(page.contains("<article"))
    }

    func testAStagedPackWithMetricsGetsRateAndDifferenceChartsAndTheChecks() throws {
        let plan = Plan(
            locale: "tr-TR", baseline: Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!),
            rules: [try Self.rule(18, percent: 10)])
        let days = (0..<3).map {
            ReportContent.Day(
                day: 20_417 + $0, candidate: MetricCounts(total: 6_000, events: 32),
                baseline: MetricCounts(total: 54_000, events: 100))
        }
        let health = Health.evaluate(
            [
                (
                    label: "TR/4.8", candidate: [.crash: MetricCounts(total: 18_000, events: 96)],
                    baseline: [.crash: MetricCounts(total: 162_000, events: 300)]
                )
            ],
            gates: .default)
        let changes = [
            Self.change(
                1, "promote", summary: "promote tr-TR@18 to 10%",
                shares: [ReportContent.Share(pack: "tr-TR@18", segment: "TR on >=4.8", percent: 10)]),
            Self.change(30, "ingest", summary: "metrics"),
        ]
        let summary = ReportPage.render(
            Self.content(plan: plan, changes: changes, health: health, days: [.crash: days]))
        XCTAssertEqual(summary.charts, 4, "the timeline, the shares, and the crash rates with their difference")
        XCTAssertEqual(summary.timelineEntries, 2)
        let page = summary.html
        for id in ["timeline-chart", "shares", "rates-crash", "difference-crash"] {
            XCTAssertTrue(page.contains("id=\"\(id)\""), id)
        }
        XCTAssertTrue(
            page.contains("<p class=\"empty\">No fallback metrics for tr-TR@18 and tr-TR@17 on the same days yet.</p>"),
            page)
        XCTAssertTrue(page.contains("Health: <strong>unhealthy</strong>"), page)
        XCTAssertTrue(
            page.contains(
                "<tr class=\"check verdict-unhealthy\"><td data-label=\"Segment\">TR/4.8</td><td data-label=\"Metric\">crash</td><td data-label=\"Candidate\">0.53% of 18,000</td>"
            ), page)
        XCTAssertTrue(
            page.contains("<ul class=\"legend\"><li class=\"share-0\">tr-TR@18</li></ul>"), "named by its pack")
        for heading in ["Timeline", "Share per pack", "Crash and fallback rates", "Difference", "Checks", "Segments"] {
            XCTAssertTrue(page.contains("<h2>\(heading)</h2>"), heading)
        }
        XCTAssertEqual(page.components(separatedBy: "<li class=\"timeline-entry").count - 1, 2)
        XCTAssertEqual(elements(page).filter { $0 == "svg" }.count, 4)
    }
}
