import Foundation
import RolloutModel
import XCTest

@testable import RolloutReport

/// The report as a browser lays it out (docs/report.md): headless Chromium renders pages at 1280,
/// 700 and 375 px wide (a desktop, a small tablet, a phone), and a script measures them. A page
/// must not be wider than the window (a wide table scrolls inside its own box, long words break),
/// no visible text may be smaller than 10 px (SVG text counts at its size after the viewBox scales
/// it), the labels of an axis must not overlap each other, and a legend must not sit on a drawing.
///
/// Chromium's window is at least 500 px wide, so each page at each width is an iframe of that
/// width inside one page, as a phone's viewport would be; all are measured in one run of the
/// browser, in about a second.
final class ReportInBrowserTests: XCTestCase {
    static let widths = [1280, 700, 375]

    func testTheReportFitsAPhoneAndADesktopWithReadableText() throws {
        let pages = [("demo", ReportPage.render(Self.demo()).html), ("long", ReportPage.render(Self.long()).html)]
        let lines = try Self.measure(pages)
        // What was measured: a page that did not load would have nothing wrong with it.
        let counts = lines.filter { $0.hasPrefix("count ") }.map { $0.split(separator: " ").dropFirst() }
        XCTAssertEqual(
            counts.map { "\($0.first ?? "") \($0.dropFirst().first ?? "")" },
            pages.flatMap { page in Self.widths.map { "\(page.0) \($0)" } }, "one frame per page and width: \(lines)")
        for count in counts where count.count == 4 {
            let (texts, labels) = (Int(count[count.startIndex + 2]) ?? 0, Int(count[count.startIndex + 3]) ?? 0)
            XCTAssertGreaterThan(texts, 50, "visible texts: \(count)")
            if count.first == "demo" { XCTAssertGreaterThan(labels, 30, "visible axis labels: \(count)") }
        }
        let findings = lines.filter { !$0.hasPrefix("count ") }
        XCTAssertTrue(findings.isEmpty, "\n" + findings.joined(separator: "\n"))
    }

    /// The script that measures one iframe's page; its findings, one a line, end up in `#findings`.
    static let script = #"""
        function measure(frame) {
          var w = frame.contentWindow, d = frame.contentDocument, out = [], at = frame.id + ' px: ';
          var visible = function (e) { var r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 &&
            w.getComputedStyle(e).visibility === 'visible'; };
          var overlap = function (a, b) { return a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
            a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5; };
          if (d.documentElement.scrollWidth > w.innerWidth) {
            out.push(at + 'the page is ' + d.documentElement.scrollWidth + ' px wide in a ' + w.innerWidth + ' px window');
            var wide = Array.prototype.filter.call(d.body.querySelectorAll('*'), function (e) {
              return e.getBoundingClientRect().right > w.innerWidth + 0.5 && !e.closest('.scroll') &&
                !Array.prototype.some.call(e.children, function (c) { return c.getBoundingClientRect().right > w.innerWidth + 0.5; });
            });
            wide.slice(0, 5).forEach(function (e) {
              out.push(at + 'too wide: <' + e.tagName.toLowerCase() + ' class="' + (e.getAttribute('class') || '') + '">' +
                e.textContent.trim().slice(0, 40));
            });
          }
          var walker = d.createTreeWalker(d.body, NodeFilter.SHOW_TEXT), texts = 0, labels = 0;
          while (walker.nextNode()) {
            var node = walker.currentNode, e = node.parentElement;
            if (!node.textContent.trim() || e.closest('title, style, script')) continue;
            var range = d.createRange(); range.selectNodeContents(node);
            var shown = Array.prototype.some.call(range.getClientRects(), function (r) { return r.width > 0 && r.height > 0; });
            if (!shown || w.getComputedStyle(e).visibility !== 'visible') continue;
            texts++;
            var right = Math.max.apply(null, Array.prototype.map.call(range.getClientRects(), function (r) { return r.right; }));
            if (right > w.innerWidth + 0.5 && !e.closest('.scroll, pre'))
              out.push(at + 'text beyond the right edge (' + Math.round(right) + ' px) in <' + e.tagName.toLowerCase() + '>: ' +
                node.textContent.trim().slice(0, 40));
            var size = parseFloat(w.getComputedStyle(e).fontSize);
            if (e.namespaceURI === 'http://www.w3.org/2000/svg') {
              var m = e.getScreenCTM();
              if (m) size *= Math.min(Math.hypot(m.a, m.b), Math.hypot(m.c, m.d));
            }
            if (size < 9.95) out.push(at + 'text of ' + size.toFixed(1) + ' px: ' + node.textContent.trim().slice(0, 60));
          }
          d.querySelectorAll('.chart').forEach(function (chart) {
            var name = chart.id || chart.getAttribute('class');
            var ticks = Array.prototype.filter.call(chart.querySelectorAll('.tick'), visible);
            labels += ticks.length;
            for (var i = 0; i < ticks.length; i++) for (var j = i + 1; j < ticks.length; j++)
              if (overlap(ticks[i].getBoundingClientRect(), ticks[j].getBoundingClientRect()))
                out.push(at + name + ': labels overlap: ' + ticks[i].textContent + ' and ' + ticks[j].textContent);
            var drawings = chart.tagName.toLowerCase() === 'svg' ? [chart] : Array.prototype.slice.call(chart.querySelectorAll('svg'));
            Array.prototype.filter.call(chart.querySelectorAll('.legend'), visible).forEach(function (legend) {
              var box = legend.getBoundingClientRect();
              drawings.forEach(function (svg) {
                if (!svg.contains(legend) && !overlap(box, svg.getBoundingClientRect())) return;
                var plot = svg.querySelector('.plot-area') || svg;
                if (overlap(box, plot.getBoundingClientRect()))
                  out.push(at + name + ': the legend ' + legend.textContent.trim().slice(0, 40) + ' sits on the drawing');
              });
            });
          });
          return ['count ' + frame.id + ' ' + texts + ' ' + labels].concat(out);
        }
        window.addEventListener('load', function () {
          var out = [];
          document.querySelectorAll('iframe').forEach(function (frame) { out = out.concat(measure(frame)); });
          var pre = document.createElement('pre');
          pre.id = 'findings';
          pre.textContent = 'measured\n' + out.join('\n');
          document.body.appendChild(pre);
        });
        """#

    /// Renders `page` in Chromium at each of `widths` and returns what the script found wrong.
    static func measure(_ pages: [(name: String, html: String)]) throws -> [String] {
        guard let chromium = executable("chromium") else {
            XCTFail("chromium is not installed: `make deps` installs it (Debian's chromium package)")
            return []
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "report-in-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let frames = pages.flatMap { page in
            let source =
                page.html.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            return widths.map {
                "<iframe id=\"\(page.name) \($0)\" style=\"display:block;border:0;width:\($0)px;height:900px\" srcdoc=\"\(source)\"></iframe>"
            }
        }
        let wrapper =
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"/></head><body style=\"margin:0\">"
            + frames.joined() + "<script>\(script)</script></body></html>"
        let file = directory.appendingPathComponent("wrapper.html")
        try Data(wrapper.utf8).write(to: file)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--user-data-dir=\(directory.path)/profile",
            "--window-size=1400,1000", "--virtual-time-budget=5000", "--dump-dom", file.absoluteString,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let timer = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: timer)
        let dom = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        timer.cancel()
        guard let start = dom.range(of: "<pre id=\"findings\">measured\n"),
            let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
        else {
            XCTFail("chromium did not run the measuring script (exit \(process.terminationStatus)): \(dom.prefix(300))")
            return []
        }
        return dom[start.upperBound..<end.lowerBound].split(separator: "\n").map {
            $0.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map { "\($0)/\(name)" } + ["/usr/bin/\(name)"]).first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    // MARK: the page measured

    /// A report like the quickstart's (docs/report.md), with what makes a page wide: long paths,
    /// long names, large counts, changes close together in time and a rollback manifest.
    static func demo() -> ReportContent {
        let baseline = Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!)
        let rule = try! ReportPageTests.rule(18, percent: 10)
        let plan = Plan(locale: "tr-TR", baseline: baseline, rules: [rule])
        let actor = "Demo Release Manager <release@example.com>"
        let share = { (percent: Double) in
            [ReportContent.Share(pack: "tr-TR@18", segment: "TR on >=4.8", percent: percent)]
        }
        let changes = [
            ReportPageTests.change(
                0, "pack-add", summary: "pack add en-US@1, tr@1, tr-TR@17, tr-TR@18, vi-VN@3", reason: "first packs",
                actor: actor),
            ReportPageTests.change(1, "complete", summary: "complete en-US@1: the baseline of en-US", actor: actor),
            ReportPageTests.change(1, "complete", summary: "complete tr-TR@17: the baseline of tr-TR", actor: actor),
            ReportPageTests.change(
                2, "promote", summary: "promote tr-TR@18 to 10% in TR on >=4.8", reason: "typo fix", actor: actor,
                shares: share(10)),
            ReportPageTests.change(
                30, "metrics-ingest",
                summary:
                    "metrics ingest crash /home/someone/work/rollout-checkout/examples/metrics/crashes-spike-TR-4.8.csv (32 rows)",
                actor: actor),
            ReportPageTests.change(
                31, "revert", summary: "revert tr-TR to last-known-good",
                reason: "guard: tr-TR@18 unhealthy (TR/4.8 crash)", actor: actor, shares: []),
        ]
        let days = (0..<4).map { i in
            ReportContent.Day(
                day: 20_781 + i, candidate: MetricCounts(total: 9_000, events: 40 + 12 * i),
                baseline: MetricCounts(total: 1_081_000, events: 2_000 + 10 * i))
        }
        let fallbacks = (0..<4).map { i in
            ReportContent.Day(
                day: 20_781 + i, candidate: MetricCounts(total: 460_000, events: 1_850 + 5 * i),
                baseline: MetricCounts(total: 4_140_000, events: 16_600))
        }
        let health = Health.evaluate(
            [
                (
                    label: "TR/4.8",
                    candidate: [
                        .crash: MetricCounts(total: 36_000, events: 214),
                        .fallback: MetricCounts(total: 1_440_000, events: 5_811),
                    ],
                    baseline: [
                        .crash: MetricCounts(total: 324_000, events: 607),
                        .fallback: MetricCounts(total: 12_960_000, events: 51_975),
                    ]
                ),
                (
                    label: "TR/4.9",
                    candidate: [
                        .crash: MetricCounts(total: 10_000, events: 15),
                        .fallback: MetricCounts(total: 400_000, events: 1_610),
                    ],
                    baseline: [
                        .crash: MetricCounts(total: 90_000, events: 156),
                        .fallback: MetricCounts(total: 3_600_000, events: 14_505),
                    ]
                ),
            ],
            gates: .default)
        let manifest = try! StrictJSONParser.parse(Array(Self.manifest.utf8)).objectValue!
        return ReportContent(
            locale: "tr-TR", generated: Timestamp(iso8601: "2026-11-29T13:00:00Z")!,
            repositoryPath: "/home/someone/work/a-rather-long-directory-name/release-state/.rollout",
            state: "b87aa90ee7d2",
            plan: plan, changes: changes, staged: 18, gates: .default, health: health,
            days: [.crash: days, .fallback: fallbacks], rollbacks: [manifest], unreadableRollbacks: 0)
    }

    /// A page of long and hostile strings: words longer than a phone is wide, markup, right-to-left
    /// text, many rules.
    static func long() -> ReportContent {
        let word = String(repeating: "x", count: 120)
        let hostile = ReportPageTests.hostile
        let rules = (0..<6).map { i in
            try! ReportPageTests.rule(18, percent: 5, regions: ["TR", "DE", "AZ", "CY", "NL", "BE"].shuffledBy(i))
        }
        let plan = Plan(
            locale: "tr-TR", baseline: Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!),
            previousBaselines: (1...16).map { Plan.PackRef(contentVersion: $0, minAppVersion: AppVersion("4.8.0")!) },
            rules: rules, blocked: [19, 20, 21])
        let changes = (0..<12).map { i in
            ReportPageTests.change(
                Int64(i * 3), i == 11 ? "revert" : "promote", summary: "promote tr-TR@18 \(word) \(hostile)",
                reason: word + hostile, actor: "\(word) <\(word)@example.com>",
                shares: [ReportContent.Share(pack: "tr-TR@\(18 + i % 3)", segment: "TR on >=4.8", percent: Double(i))])
        }
        let manifest: [String: JSONValue] = [
            "id": .string("tr-TR/1" + word), "time": .string("t"), "actor": .string(word),
            "reason": .string(hostile + word),
            "scope": .string(word), "target": .string(word), "blocked": .array([.string(word)]),
            "segments": .array([
                .object([
                    "regions": .string(word), "appVersions": .string(word),
                    "before": .array([.object(["pack": .string(word), "basisPoints": .integer(5)])]),
                    "after": .array([]),
                ])
            ]),
        ]
        return ReportContent(
            locale: "tr-TR", generated: Timestamp(iso8601: "2026-11-29T13:00:00Z")!,
            repositoryPath: "/" + word + hostile,
            state: "b87aa90ee7d2", plan: plan, changes: changes, staged: 18, gates: .default, health: nil, days: [:],
            rollbacks: [manifest], unreadableRollbacks: 0)
    }

    /// The quickstart's rollback manifest (docs/manifest.md, "Rollback manifests").
    static let manifest = #"""
        {"actor": "Demo Release Manager <release@example.com>", "blocked": ["tr-TR@18"], "blockedAfter": ["tr-TR@18"],
         "evidence": {"alphaPerCheck": 0.0125, "baseline": "tr-TR@17", "candidate": "tr-TR@18",
          "checks": [
           {"baseline": [607, 324000], "candidate": [214, 36000], "daysToDecision": 0, "difference": 0.004070987654320987,
            "lowerBound": 0.002719195737892109, "metric": "crash", "segment": "TR/4.8", "tolerance": 0.001,
            "upperBound": 0.005774237457162845, "verdict": "unhealthy"},
           {"baseline": [51975, 12960000], "candidate": [5811, 1440000], "daysToDecision": 0, "difference": 0.000025,
            "lowerBound": -0.0001871974335548776, "metric": "fallback", "segment": "TR/4.8", "tolerance": 0.005,
            "upperBound": 0.00024617642578328794, "verdict": "healthy"}],
          "format": 2, "held": false, "locale": "tr-TR", "sampleRatios": [], "segments": [],
          "sources": [{"digest": "sha256:759c754d8def9019fedec868807e312ff85cb48ddd99c6928385d0feb9730325",
            "file": "/home/someone/work/rollout-checkout/examples/metrics/crashes-spike-TR-4.8.csv", "kind": "crash", "rows": 32}],
          "verdict": "unhealthy"},
         "id": "tr-TR/1", "locale": "tr-TR", "manifestSequence": 3, "reason": "guard: tr-TR@18 unhealthy (TR/4.8 crash)",
         "scope": "all",
         "segments": [{"after": [{"basisPoints": 10000, "pack": "tr-TR@17"}], "appVersions": ">=4.8",
           "before": [{"basisPoints": 9000, "pack": "tr-TR@17"}, {"basisPoints": 1000, "pack": "tr-TR@18"}], "regions": "TR"}],
         "target": "last-known-good", "time": "2026-11-28T23:00:00Z"}
        """#
}

extension Array {
    /// The elements rotated left by `n`: a different order for each rule, the same every run.
    fileprivate func shuffledBy(_ n: Int) -> [Element] {
        let k = n % count
        return Array(self[k...]) + Array(self[..<k])
    }
}
