import Foundation
import RolloutIngest
import RolloutModel
import RolloutStore

/// `rollout report LOCALE`: one self-contained page (no network, no scripts) that reads at a glance
/// and prints: the timeline, each segment's share over time, the candidate's and baseline's crash
/// and fallback rates with the gate and the confidence band, the plan, blocked versions and the
/// rollback manifests (docs/report.md). The markup is well-formed XHTML, so tools (and the tests)
/// can parse it.
public enum ReportPage {
    public struct Summary: Sendable {
        public let html: String
        public let timelineEntries: Int
        public let charts: Int
    }

    public static func render(locale: String, repository: PackRepository, now: Timestamp) throws -> Summary {
        let snapshot = try repository.snapshot()
        guard let plan = try snapshot.plan(locale) else {
            if try snapshot.contentVersions(of: locale).isEmpty { throw RolloutError.missing("no locale \(locale): it has no packs and no plan") }
            throw RolloutError.checkFailed("nothing was ever promoted for \(locale): there is no rollout to report on yet (rollout promote \(locale)@N --to 10% starts one)")
        }
        var query = AuditLog.Query()
        query.locale = locale
        let entries = try AuditLog(repository: repository).query(query).entries.sorted { $0.sequence < $1.sequence }
        // The pack the report is about: the staged one, else the last one staged (a reverted rollout).
        let staged = plan.candidate?.contentVersion ?? entries.reversed().lazy.flatMap(\.packs).compactMap { try? PackID.parse($0) }
            .first { $0.locale == locale && $0.contentVersion != plan.baseline?.contentVersion }?.contentVersion
        let baseline = plan.baseline?.contentVersion
        let gates = try snapshot.policy().gates
        let health = try HealthCheck.evaluate(plan, snapshot: snapshot)

        var page = Page()
        page.line("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        page.line("<!DOCTYPE html>")
        page.line("<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">")
        page.line("<head><meta charset=\"utf-8\"/><title>\(escape("rollout report: \(locale)"))</title><style>\(css)</style></head>")
        page.line("<body>")
        page.line("<header><h1>\(escape(locale))</h1><p class=\"meta\">Generated \(escape(now.description)) from \(escape(repository.path)), state \(escape(snapshot.commit?.short ?? "-")).</p>")
        let verdict = health?.verdict.rawValue ?? (plan.candidate == nil ? "nothing staged" : "no metrics")
        page.line("<p class=\"verdict verdict-\(escape(verdict.replacingOccurrences(of: " ", with: "-")))\">Health: <strong>\(escape(verdict))</strong>\(staged.map { " · candidate \(escape("\(locale)@\($0)"))" } ?? "")\(baseline.map { " · baseline \(escape("\(locale)@\($0)"))" } ?? "")</p></header>")

        // The plan as it is.
        page.line("<section id=\"plan\"><h2>Current plan</h2><table><tbody>")
        page.line("<tr><th>Baseline</th><td>\(plan.baseline.map { escape("\(locale)@\($0.contentVersion) (app \($0.minAppVersion)+)") } ?? "none: bundled strings")</td></tr>")
        if !plan.previousBaselines.isEmpty {
            page.line("<tr><th>Earlier baselines</th><td>\(escape(plan.previousBaselines.map { "\(locale)@\($0.contentVersion)" }.joined(separator: ", ")))</td></tr>")
        }
        let rules = plan.rules.map { "\(locale)@\($0.pack.contentVersion): \($0.summary)" }
        page.line("<tr><th>Staged</th><td>\(rules.isEmpty ? "nothing" : escape(rules.joined(separator: "; ")))</td></tr>")
        page.line("<tr><th>Blocked</th><td class=\"blocked\">\(plan.blocked.isEmpty ? "none" : escape(plan.blocked.map { "\(locale)@\($0)" }.joined(separator: ", ")))</td></tr>")
        if plan.bundledOnly { page.line("<tr><th>Kill switch</th><td class=\"blocked\">on: every device uses its bundled strings</td></tr>") }
        if let ramp = plan.ramp { page.line("<tr><th>Ramp</th><td>\(escape(ramp.steps.map(\.description).joined(separator: " → ")))\(ramp.paused ? " (paused)" : "")</td></tr>") }
        page.line("</tbody></table></section>")

        // Timeline and shares.
        var charts = 0
        page.line("<section id=\"timeline\"><h2>Timeline</h2>")
        if let svg = timelineChart(entries) {
            page.line(svg)
            charts += 1
        }
        page.line("<ol class=\"timeline\">")
        for entry in entries.reversed() {
            page.line("<li class=\"timeline-entry action-\(escape(entry.action))\"><time>\(escape(entry.time.description))</time> <span class=\"action\">\(escape(entry.action))</span> \(escape(entry.summary))<span class=\"who\"> — \(escape(entry.actor))</span>\(entry.reason.map { "<q>\(escape($0))</q>" } ?? "") <code>\(escape(String(entry.commit.prefix(12))))</code></li>")
        }
        page.line("</ol>")
        if let svg = shareChart(entries, locale: locale) {
            page.line("<h3>Share of devices on the staged pack, per targeted segment</h3>")
            page.line(svg)
            charts += 1
        }
        page.line("</section>")

        // Metrics.
        page.line("<section id=\"metrics\"><h2>Crash and fallback rates</h2>")
        if let staged, let baseline {
            for kind in MetricKind.allCases {
                let gate = kind == .crash ? gates.crash : gates.fallback
                let series = try dailySeries(kind, locale: locale, candidate: staged, baseline: baseline, snapshot: snapshot)
                guard !series.isEmpty else {
                    page.line("<p class=\"empty\">No \(kind.rawValue) metrics for \(escape("\(locale)@\(staged)")) and \(escape("\(locale)@\(baseline)")) on the same days yet.</p>")
                    continue
                }
                let alpha = health?.alphaPerCheck ?? (1 - gates.confidence)
                page.line("<h3>\(kind == .crash ? "Crash rate (crashes per session)" : "Fallback rate (fallbacks per lookup)")</h3>")
                page.line(rateChart(kind, series: series, candidate: "\(locale)@\(staged)", baseline: "\(locale)@\(baseline)"))
                page.line(differenceChart(kind, series: series, gate: gate, alpha: alpha, planned: gate.minSamples))
                charts += 2
            }
        } else {
            page.line("<p class=\"empty\">No candidate has been staged against a baseline: nothing to compare.</p>")
        }
        if let health {
            page.line("<table class=\"checks\"><thead><tr><th>Segment</th><th>Metric</th><th>Candidate</th><th>Baseline</th><th>Difference</th><th>Bound</th><th>Gate</th><th>Verdict</th></tr></thead><tbody>")
            for check in health.checks {
                let rate = { (c: MetricCounts) in c.rate.map { percent($0) } ?? "-" }
                page.line("<tr class=\"check verdict-\(escape(check.verdict.rawValue))\"><td>\(escape(check.segment))</td><td>\(check.kind.rawValue)</td><td>\(rate(check.candidate)) of \(check.candidate.total)</td><td>\(rate(check.baseline)) of \(check.baseline.total)</td><td>\(check.difference.map { percent($0) } ?? "-")</td><td>\(check.lower.map { "[\(percent($0)), \(percent(check.upper ?? $0))]" } ?? "-")</td><td>+\(percent(check.tolerance))</td><td>\(escape(check.verdict.rawValue))</td></tr>")
            }
            page.line("</tbody></table>")
        }
        page.line("</section>")

        // Rollback manifests.
        page.line("<section id=\"rollbacks\"><h2>Rollback manifests</h2>")
        let rollbacks = try snapshot.directory(StateLayout.rollbackDirectory(locale)).filter { !$0.isTree }
            .sorted { (Int($0.name.dropLast(5)) ?? 0) > (Int($1.name.dropLast(5)) ?? 0) }
        if rollbacks.isEmpty { page.line("<p class=\"empty\">No revert so far.</p>") }
        for entry in rollbacks {
            guard let document = (try? StrictJSONParser.parse(try snapshot.repository.readBlob(entry.id)))?.objectValue else { continue }
            let text = { (key: String) in document[key]?.stringValue ?? "" }
            page.line("<article class=\"rollback\"><h3>\(escape(text("id")))</h3><p>\(escape(text("time"))) by \(escape(text("actor")))\(document["reason"]?.stringValue.map { ": <q>\(escape($0))</q>" } ?? "")</p>")
            page.line("<pre>\(escape(JSONWriter.prettyString(.object(document))))</pre></article>")
        }
        page.line("</section>")
        page.line("<footer>rollout \(escape(locale)) report · no scripts, no network: this file is the whole report.</footer>")
        page.line("</body></html>")
        return Summary(html: page.text, timelineEntries: entries.count, charts: charts)
    }

    // MARK: charts

    struct Day {
        let day: Int
        let candidate: MetricCounts
        let baseline: MetricCounts
    }

    /// Per day, both arms summed over the segments where both were measured that day (the same
    /// rule as health).
    static func dailySeries(_ kind: MetricKind, locale: String, candidate: Int, baseline: Int, snapshot: Snapshot) throws -> [Day] {
        var days: [Day] = []
        for rollup in try MetricsLayout.rollups(kind, locale: locale, in: snapshot).sorted(by: { $0.day < $1.day }) {
            var bySegment: [String: (c: MetricCounts, b: MetricCounts)] = [:]
            for (key, counts) in rollup.counts where key.contentVersion == candidate || key.contentVersion == baseline {
                guard let version = AppVersion(key.appVersion) else { continue }
                let label = "\(key.region)/\(version.family)"
                var entry = bySegment[label] ?? (MetricCounts(total: 0, events: 0), MetricCounts(total: 0, events: 0))
                if key.contentVersion == candidate { entry.c = entry.c.adding(counts) ?? entry.c } else { entry.b = entry.b.adding(counts) ?? entry.b }
                bySegment[label] = entry
            }
            var c = MetricCounts(total: 0, events: 0), b = MetricCounts(total: 0, events: 0)
            for (_, entry) in bySegment where entry.c.total > 0 && entry.b.total > 0 {
                c = c.adding(entry.c) ?? c
                b = b.adding(entry.b) ?? b
            }
            if c.total > 0 && b.total > 0 { days.append(Day(day: rollup.day, candidate: c, baseline: b)) }
        }
        return days
    }

    static let width = 760.0, height = 220.0, left = 64.0, right = 16.0, top = 16.0, bottom = 36.0

    struct Plot {
        let xs: ClosedRange<Double>
        let ys: ClosedRange<Double>
        func x(_ v: Double) -> Double { left + (v - xs.lowerBound) / max(1e-12, xs.upperBound - xs.lowerBound) * (width - left - right) }
        func y(_ v: Double) -> Double { height - bottom - (v - ys.lowerBound) / max(1e-12, ys.upperBound - ys.lowerBound) * (height - top - bottom) }
    }

    static func frame(_ id: String, title: String, _ plot: Plot, yLabel: (Double) -> String, xLabel: (Double) -> String, xTicks: [Double]) -> [String] {
        var parts = ["<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"\(id)\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"\(escape(title))\"><title>\(escape(title))</title>"]
        parts.append("<line class=\"axis\" x1=\"\(left)\" y1=\"\(height - bottom)\" x2=\"\(width - right)\" y2=\"\(height - bottom)\"/>")
        parts.append("<line class=\"axis\" x1=\"\(left)\" y1=\"\(top)\" x2=\"\(left)\" y2=\"\(height - bottom)\"/>")
        for i in 0...4 {
            let v = plot.ys.lowerBound + Double(i) / 4 * (plot.ys.upperBound - plot.ys.lowerBound)
            parts.append("<line class=\"grid\" x1=\"\(left)\" y1=\(q(plot.y(v))) x2=\"\(width - right)\" y2=\(q(plot.y(v)))/><text class=\"tick\" x=\"\(left - 6)\" y=\(q(plot.y(v) + 4)) text-anchor=\"end\">\(escape(yLabel(v)))</text>")
        }
        for (index, v) in xTicks.enumerated() {
            let anchor = index == 0 ? "start" : index == xTicks.count - 1 ? "end" : "middle"
            parts.append("<text class=\"tick\" x=\(q(plot.x(v))) y=\"\(height - bottom + 16)\" text-anchor=\"\(anchor)\">\(escape(xLabel(v)))</text>")
        }
        return parts
    }

    static func q(_ v: Double) -> String { "\"\(String(format: "%.1f", v))\"" }
    static func points(_ values: [(Double, Double)], _ plot: Plot) -> String {
        values.map { String(format: "%.1f,%.1f", plot.x($0.0), plot.y($0.1)) }.joined(separator: " ")
    }
    static func date(_ day: Double) -> String { String(Timestamp(seconds: Int64(day) * 86_400).description.prefix(10)) }
    static func dayTicks(_ days: ClosedRange<Double>) -> [Double] {
        let span = max(1, days.upperBound - days.lowerBound)
        let step = max(1, (span / 5).rounded(.up))
        return stride(from: days.lowerBound, through: days.upperBound, by: step).map { $0 }
    }
    static func percent(_ v: Double) -> String { String(format: abs(v) < 0.001 && v != 0 ? "%.3f%%" : "%.2f%%", v * 100) }

    static func rateChart(_ kind: MetricKind, series: [Day], candidate: String, baseline: String) -> String {
        let days = Double(series.first!.day)...Double(max(series.last!.day, series.first!.day + 1))
        let rates: [Double] = series.flatMap { day -> [Double] in [day.candidate.rate ?? 0, day.baseline.rate ?? 0] }
        let plot = Plot(xs: days, ys: 0...max(1e-6, (rates.max() ?? 0) * 1.15))
        var parts = frame("rates-\(kind.rawValue)", title: "\(kind.rawValue) rate per day: \(candidate) and \(baseline)", plot, yLabel: percent, xLabel: date, xTicks: dayTicks(days))
        parts.append("<polyline class=\"series baseline\" points=\"\(points(series.map { (Double($0.day), $0.baseline.rate ?? 0) }, plot))\"/>")
        parts.append("<polyline class=\"series candidate\" points=\"\(points(series.map { (Double($0.day), $0.candidate.rate ?? 0) }, plot))\"/>")
        for day in series {
            parts.append("<circle class=\"dot candidate\" cx=\(q(plot.x(Double(day.day)))) cy=\(q(plot.y(day.candidate.rate ?? 0))) r=\"3\"/>")
        }
        parts.append("<text class=\"legend candidate\" x=\"\(left + 8)\" y=\"\(top + 12)\">\(escape(candidate)) (candidate)</text>")
        parts.append("<text class=\"legend baseline\" x=\"\(left + 8)\" y=\"\(top + 28)\">\(escape(baseline)) (baseline)</text>")
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    /// The candidate minus the baseline, cumulative to each day, with the time-uniform confidence
    /// band health uses and the gate's tolerance: a band entirely above the gate is unhealthy.
    static func differenceChart(_ kind: MetricKind, series: [Day], gate: GatePolicy.RateGate, alpha: Double, planned: Int) -> String {
        var c = MetricCounts(total: 0, events: 0), b = MetricCounts(total: 0, events: 0)
        var rows: [(day: Double, difference: Double, lower: Double, upper: Double, tolerance: Double)] = []
        for day in series {
            c = c.adding(day.candidate) ?? c
            b = b.adding(day.baseline) ?? b
            guard let (lower, upper) = Health.bounds(candidate: c, baseline: b, alpha: alpha, plannedSamples: planned), let p1 = c.rate, let p0 = b.rate else { continue }
            rows.append((Double(day.day), p1 - p0, lower, upper, max(gate.maxAbsoluteIncrease, gate.maxRelativeIncrease * p0)))
        }
        let days = Double(series.first!.day)...Double(max(series.last!.day, series.first!.day + 1))
        let values: [Double] = rows.flatMap { row -> [Double] in [row.lower, row.upper, row.tolerance] } + [0]
        let span = max(1e-6, (values.max() ?? 0) - (values.min() ?? 0))
        let plot = Plot(xs: days, ys: ((values.min() ?? 0) - span * 0.1)...((values.max() ?? 0) + span * 0.1))
        var parts = frame("difference-\(kind.rawValue)", title: "\(kind.rawValue) rate, candidate minus baseline, cumulative, with its confidence band and the gate", plot,
                          yLabel: { (v: Double) in (v >= 0 ? "+" : "") + percent(v) }, xLabel: date, xTicks: dayTicks(days))
        if !rows.isEmpty {
            let band = rows.map { ($0.day, $0.upper) } + rows.reversed().map { ($0.day, $0.lower) }
            parts.append("<polygon class=\"band\" points=\"\(points(band, plot))\"/>")
            parts.append("<polyline class=\"series difference\" points=\"\(points(rows.map { ($0.day, $0.difference) }, plot))\"/>")
            parts.append("<polyline class=\"gate\" points=\"\(points(rows.map { ($0.day, $0.tolerance) }, plot))\"/>")
        }
        parts.append("<line class=\"zero\" x1=\"\(left)\" y1=\(q(plot.y(0))) x2=\"\(width - right)\" y2=\(q(plot.y(0)))/>")
        parts.append("<text class=\"legend gate\" x=\"\(left + 8)\" y=\"\(top + 12)\">gate: +\(escape(rows.last.map { percent($0.tolerance) } ?? "-")) (unhealthy when the whole band is above it)</text>")
        parts.append("<text class=\"legend band\" x=\"\(left + 8)\" y=\"\(top + 28)\">\(escape(String(format: "%.1f", (1 - alpha) * 100)))% confidence band, valid at every look</text>")
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    static func timelineChart(_ entries: [AuditEntry]) -> String? {
        guard let first = entries.first, let last = entries.last else { return nil }
        let start = Double(first.time.seconds), end = Double(max(last.time.seconds, first.time.seconds + 3600))
        let plot = Plot(xs: start...end, ys: 0...1)
        var parts = ["<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart timeline-chart\" id=\"timeline-chart\" viewBox=\"0 0 \(Int(width)) 70\" role=\"img\" aria-label=\"timeline\"><title>Changes to this locale over time</title>"]
        parts.append("<line class=\"axis\" x1=\"\(left)\" y1=\"35\" x2=\"\(width - right)\" y2=\"35\"/>")
        for entry in entries {
            let x = plot.x(Double(entry.time.seconds))
            parts.append("<circle class=\"event action-\(escape(entry.action))\" cx=\(q(x)) cy=\"35\" r=\"6\"><title>\(escape("\(entry.time) \(entry.summary)"))</title></circle>")
        }
        parts.append("<text class=\"tick\" x=\"\(left)\" y=\"62\">\(escape(first.time.description))</text>")
        parts.append("<text class=\"tick\" x=\"\(width - right)\" y=\"62\" text-anchor=\"end\">\(escape(last.time.description))</text>")
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    /// For each targeted segment (the regions and versions of a rule), the share the staged pack had
    /// after each change, as steps: a revert drops it to zero.
    static func shareChart(_ entries: [AuditEntry], locale: String) -> String? {
        var series: [String: [(Double, Double)]] = [:]
        var times: [Double] = []
        for entry in entries {
            guard let change = entry.planChanges.first(where: { $0.locale == locale }) else { continue }
            let t = Double(entry.time.seconds)
            times.append(t)
            var seen: Set<String> = []
            for rule in change.after.rules {
                let label = "\(rule.regionsLabel) on \(rule.versions.isAll ? "every version" : rule.versions.description)"
                series[label, default: []].append((t, Double(rule.share.basisPoints) / 100))
                seen.insert(label)
            }
            for label in series.keys where !seen.contains(label) { series[label]!.append((t, 0)) }
        }
        guard !series.isEmpty, let first = times.first, let last = times.last else { return nil }
        let plot = Plot(xs: first...max(last, first + 3600), ys: 0...100)
        var parts = frame("shares", title: "share of devices on the staged pack per segment", plot, yLabel: { "\(Int($0))%" },
                          xLabel: { Timestamp(seconds: Int64($0)).description.replacingOccurrences(of: "T", with: " ").prefix(16).description },
                          xTicks: [first, max(last, first + 3600)])
        for (index, label) in series.keys.sorted().enumerated() {
            var steps: [(Double, Double)] = []
            for (i, point) in series[label]!.enumerated() {
                if i > 0 { steps.append((point.0, steps.last!.1)) }
                steps.append(point)
            }
            steps.append((max(last, first + 3600), steps.last!.1))
            parts.append("<polyline class=\"series share share-\(index % 4)\" points=\"\(points(steps, plot))\"/>")
            parts.append("<text class=\"legend share-\(index % 4)\" x=\"\(left + 8)\" y=\"\(top + 12 + Double(index) * 16)\">\(escape(label))</text>")
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    // MARK: markup

    struct Page {
        var text = ""
        mutating func line(_ s: String) { text += s + "\n" }
    }

    /// The one builder for text in the page: the escaping rule for human output first (so the page
    /// is well-formed XML for any input: XML 1.0 forbids most C0 controls and U+FFFE/U+FFFF, and a
    /// reader sees a control as `\u{1B}` rather than not at all), then XML's five entities.
    static func escape(_ s: String) -> String {
        var out = ""
        for c in VisibleText.escape(s, lineBreaks: .kept) {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    static let css = """
        body{font:14px/1.45 -apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1d2330;max-width:800px;margin:24px auto;padding:0 16px}
        h1{margin:0;font-size:28px}h2{border-bottom:1px solid #d8dce3;padding-bottom:4px;margin-top:32px}h3{font-size:15px;margin:20px 0 6px}
        .meta,footer,.who,.empty{color:#5f6b7a}footer{margin-top:40px;font-size:12px}
        .verdict{font-size:16px}.verdict-unhealthy strong{color:#c0262d}.verdict-healthy strong{color:#1b7f3b}.verdict-insufficient-data strong{color:#8a6d00}
        table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eceff3;vertical-align:top}
        .checks td{font-variant-numeric:tabular-nums}tr.verdict-unhealthy td{background:#fdecec}.blocked{color:#c0262d}
        ol.timeline{list-style:none;padding:0}.timeline-entry{padding:3px 0;border-bottom:1px dotted #e3e6eb}.timeline-entry time{color:#5f6b7a;font-variant-numeric:tabular-nums}
        .action{font-weight:600}.action-revert .action,.action-revert{color:#c0262d}q{font-style:italic;margin-left:6px}code{font-size:12px;color:#5f6b7a;margin-left:6px}
        svg.chart{width:100%;height:auto;display:block;margin:6px 0 12px}.axis{stroke:#5f6b7a}.grid{stroke:#eceff3}.tick{font-size:11px;fill:#5f6b7a}
        polyline.series{fill:none;stroke-width:2}text.legend{font-size:12px;stroke:none;font-weight:600}
        polyline.candidate{stroke:#c0262d}circle.candidate,text.candidate{fill:#c0262d}polyline.baseline{stroke:#2d6cdf}text.baseline{fill:#2d6cdf}
        polyline.difference{stroke:#1d2330}polygon.band{fill:#c0262d;fill-opacity:.15;stroke:none}text.band{fill:#8c4a4e}
        polyline.gate{fill:none;stroke:#8a6d00;stroke-dasharray:6 4;stroke-width:2}text.gate{fill:#8a6d00}
        .zero{stroke:#5f6b7a;stroke-dasharray:2 3}.event{fill:#2d6cdf}.event.action-revert{fill:#c0262d}.event.action-ramp,.event.action-pause,.event.action-resume{fill:#8a6d00}
        polyline.share-0{stroke:#2d6cdf}polyline.share-1{stroke:#1b7f3b}polyline.share-2{stroke:#8a6d00}polyline.share-3{stroke:#6b3fa0}
        text.share-0{fill:#2d6cdf}text.share-1{fill:#1b7f3b}text.share-2{fill:#8a6d00}text.share-3{fill:#6b3fa0}
        pre{background:#f6f7f9;padding:8px;font-size:11px;overflow-x:auto;white-space:pre-wrap}
        @media print{body{margin:0;max-width:none}section{break-inside:avoid-page}pre{white-space:pre-wrap}a{color:inherit}}
        """
}
