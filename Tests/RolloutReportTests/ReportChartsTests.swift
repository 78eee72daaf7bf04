import Foundation
import RolloutModel
import XCTest

@testable import RolloutReport

/// The charts' axes and labels (docs/report.md): round ticks, thinned time labels, stacked dots,
/// series named by pack, grouped digits.
final class ReportChartsTests: XCTestCase {
    func labels(_ low: Double, _ high: Double, signed: Bool = false) -> [String] {
        ReportCharts.percentTicks(low, high, signed: signed).0.map(\.label)
    }

    func testTicksAreRoundNumbersOneTwoOrFiveTimesAPowerOfTen() {
        XCTAssertEqual(labels(0, 0.0058), ["0%", "0.2%", "0.4%", "0.6%"])
        XCTAssertEqual(labels(0, 0.0021), ["0%", "0.05%", "0.1%", "0.15%", "0.2%", "0.25%"])
        XCTAssertEqual(labels(-0.00063, 0.0055, signed: true), ["-0.2%", "0%", "+0.2%", "+0.4%", "+0.6%"])
        XCTAssertEqual(labels(0, 0.47), ["0%", "10%", "20%", "30%", "40%", "50%"])
        XCTAssertEqual(labels(0, 0.0000084), ["0%", "0.0002%", "0.0004%", "0.0006%", "0.0008%", "0.001%"])
        XCTAssertEqual(
            labels(0, 0), ["0%", "0.002%", "0.004%", "0.006%", "0.008%", "0.01%"], "a flat series still gets an axis")
        for (low, high) in [(0.0, 0.0058), (-0.00088, 0.0055), (0.0, 1.0), (0.0012, 0.0013), (-3.0, -1.0)] {
            let (ticks, step) = ReportCharts.niceTicks(low, high)
            XCTAssertLessThanOrEqual(ticks.first!, low + step * 1e-9)
            XCTAssertGreaterThanOrEqual(ticks.last!, high - step * 1e-9)
            XCTAssertTrue(ticks.count >= 2 && ticks.count <= 8, "\(ticks)")
            let mantissa = step / pow(10, log10(step).rounded(.down))
            XCTAssertTrue([1, 2, 5].contains { abs(mantissa - $0) < 1e-9 }, "\(step)")
        }
    }

    func testTimeTicksAreRoundAndEveryOtherOneIsLeftOutOnAPhone() {
        let start = Timestamp(iso8601: "2026-11-27T10:00:00Z")!.seconds
        let end = Timestamp(iso8601: "2026-11-29T04:00:00Z")!.seconds
        let (ticks, range) = ReportCharts.timeTicks(start, end)
        XCTAssertEqual(ticks.map(\.label), ["Nov 27", "12:00", "Nov 28", "12:00", "Nov 29", "12:00"])
        XCTAssertEqual(ticks.map(\.minor), [false, true, false, true, false, true])
        XCTAssertTrue(range.contains(Double(start)) && range.contains(Double(end)))
        let sixHours = ReportCharts.timeTicks(start - 4 * 3600, start + 29 * 3600).0
        XCTAssertEqual(sixHours.map(\.label), ["Nov 27 06:00", "12:00", "18:00", "Nov 28", "06:00", "12:00", "18:00"])
        XCTAssertEqual(
            sixHours.filter { !$0.minor }.map(\.label), ["Nov 27 06:00", "Nov 28", "12:00"],
            "a phone keeps the first label, which names its day, and midnight")
        let hours = ReportCharts.timeTicks(start, start + 5 * 3600).0
        XCTAssertEqual(hours.map(\.label), ["Nov 27 10:00", "11:00", "12:00", "13:00", "14:00", "15:00"])
        let days = ReportCharts.dayTicks(
            (20_784...20_787).map {
                ReportContent.Day(
                    day: $0, candidate: MetricCounts(total: 1, events: 0), baseline: MetricCounts(total: 1, events: 0))
            })
        XCTAssertEqual(days.0.map(\.label), ["Nov 27", "Nov 28", "Nov 29", "Nov 30"])
    }

    func testChangesAtTheSameTimeStackInsteadOfHidingEachOther() throws {
        let changes = [
            ReportPageTests.change(0, "promote", summary: "a"), ReportPageTests.change(0, "promote", summary: "b"),
            ReportPageTests.change(0, "revert", summary: "c"), ReportPageTests.change(40, "promote", summary: "d"),
        ]
        let chart = try XCTUnwrap(ReportCharts.timeline(changes)).xml
        let dots = chart.components(separatedBy: "<line class=\"event").dropFirst().map { String($0.prefix(80)) }
        XCTAssertEqual(dots.count, 4)
        let heights = dots.map { $0.components(separatedBy: "y1=\"")[1].prefix { $0 != "\"" } }
        XCTAssertEqual(Set(heights.prefix(3)).count, 3, "one above the other: \(dots)")
        XCTAssertTrue(chart.contains("viewBox=\"0 0 100 54\""), "room for three: \(chart.prefix(400))")
    }

    func testShareSeriesAreNamedByPackAndBySegmentOnlyWhenAPackHasSeveral() throws {
        let one = [
            ReportPageTests.change(
                0, "promote", summary: "",
                shares: [ReportContent.Share(pack: "tr-TR@18", segment: "TR on >=4.8", percent: 10)])
        ]
        XCTAssertTrue(try XCTUnwrap(ReportCharts.shares(one)).xml.contains("<li class=\"share-0\">tr-TR@18</li>"))
        let two = [
            ReportPageTests.change(
                0, "promote", summary: "",
                shares: [
                    ReportContent.Share(pack: "tr-TR@18", segment: "TR on >=4.8", percent: 10),
                    ReportContent.Share(pack: "tr-TR@18", segment: "DE on >=4.8", percent: 5),
                ])
        ]
        let chart = try XCTUnwrap(ReportCharts.shares(two)).xml
        XCTAssertTrue(chart.contains("<li class=\"share-0\">tr-TR@18 in DE on &gt;=4.8</li>"), chart)
        XCTAssertTrue(chart.contains("<li class=\"share-1\">tr-TR@18 in TR on &gt;=4.8</li>"), chart)
    }

    func testLargeCountsAreGroupedInThrees() {
        XCTAssertEqual(ReportCharts.grouped(0), "0")
        XCTAssertEqual(ReportCharts.grouped(999), "999")
        XCTAssertEqual(ReportCharts.grouped(1000), "1,000")
        XCTAssertEqual(ReportCharts.grouped(1_234_567), "1,234,567")
        XCTAssertEqual(ReportCharts.grouped(-12_960_000), "-12,960,000")
    }

    func testTheManifestReadsAsASummaryWithTheDocumentFoldedAway() throws {
        let page = ReportPage.render(ReportInBrowserTests.demo()).html
        XCTAssertTrue(
            page.contains(
                "<p class=\"rollback-summary\">Takes back tr-TR@18 in every segment, to last-known-good (tr-TR@17). Blocks tr-TR@18. Devices follow once they accept manifest sequence 3 or later.</p>"
            ), page)
        XCTAssertTrue(
            page.contains(
                "<tr><td>TR</td><td>&gt;=4.8</td><td><span class=\"nowrap\">tr-TR@17 90%</span>, <span class=\"nowrap\">tr-TR@18 10%</span></td><td><span class=\"nowrap\">tr-TR@17 100%</span></td></tr>"
            ), page)
        XCTAssertTrue(page.contains("<details><summary>The whole manifest (JSON, "))
        XCTAssertTrue(page.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>"))
        XCTAssertTrue(page.contains("<div class=\"scroll\"><table class=\"checks cards\">"))
        XCTAssertEqual(page, ReportPage.render(ReportInBrowserTests.demo()).html, "same input, same bytes")
        let bundled: [String: JSONValue] = [
            "id": .string("tr-TR/2"), "scope": .string("TR/4.8.x"), "target": .string("bundled"),
            "blocked": .array([]), "manifestSequence": .integer(7),
            "segments": .array([
                .object([
                    "regions": .string("TR"), "appVersions": .string("4.8.x"),
                    "before": .array([.object(["pack": .string("tr-TR@17"), "basisPoints": .integer(10_000)])]),
                    "after": .array([.object(["pack": .string("bundled"), "basisPoints": .integer(10_000)])]),
                ])
            ]),
        ]
        XCTAssertEqual(
            ReportPage.rollbackSummary(bundled).xml.components(separatedBy: "</p>").first,
            "<p class=\"rollback-summary\">Takes back tr-TR@17 in TR/4.8.x, to bundled. Blocks nothing. Devices follow once they accept manifest sequence 7 or later."
        )
    }
}
