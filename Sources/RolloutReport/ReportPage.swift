import Foundation
import RolloutModel
import RolloutStore

/// `rollout report LOCALE`: one self-contained page (no network, no scripts) that reads at a glance
/// and prints: the timeline, each segment's share over time, the candidate's and baseline's crash
/// and fallback rates with the gate and the confidence band, the plan, blocked versions and the
/// rollback manifests (docs/report.md). The markup is well-formed XHTML, so tools (and the tests)
/// can parse it; it is built with `Markup`, so everything read from the repository is escaped.
public enum ReportPage {
    public struct Summary: Sendable {
        public let html: String
        public let timelineEntries: Int
        public let charts: Int
    }

    public static func render(locale: String, repository: PackRepository, now: Timestamp) throws -> Summary {
        render(try ReportContent.gather(locale: locale, repository: repository, now: now))
    }

    /// The page for `content`, top to bottom as docs/report.md lists it.
    static func render(_ content: ReportContent) -> Summary {
        let timeline = timelineSection(content)
        let metrics = metricsSection(content)
        let head = Markup.element(
            "head", .empty("meta", ["charset": "utf-8"]), .element("title", "rollout report: \(content.locale)"),
            .element("style", .trusted(stylesheet)))
        let sections = [
            header(content), planSection(content), timeline.markup, metrics.markup, rollbacksSection(content),
            footer(content),
        ]
        let html = Markup.element(
            "html", ["xmlns": "http://www.w3.org/1999/xhtml", "lang": "en"], .newline, .lines([head]),
            .element("body", .newline, .lines(sections)))
        return Summary(
            html: Markup.document(html).xml, timelineEntries: content.changes.count,
            charts: timeline.charts + metrics.charts)
    }

    /// A section of the page and the number of charts in it.
    struct Section {
        let markup: Markup
        let charts: Int
    }

    // MARK: sections

    static func header(_ content: ReportContent) -> Markup {
        let locale = content.locale
        let verdict =
            content.health?.verdict.rawValue ?? (content.plan.candidate == nil ? "nothing staged" : "no metrics")
        let candidate = content.staged.map { " · candidate \(locale)@\($0)" } ?? ""
        let baseline = content.baseline.map { " · baseline \(locale)@\($0)" } ?? ""
        let mismatches = content.health?.mismatches.map(\.segment) ?? []
        let held = mismatches.isEmpty ? "" : " · held: sample ratio mismatch in \(mismatches.joined(separator: ", "))"
        return .element(
            "header", .element("h1", Markup(locale)),
            .element(
                "p", ["class": "meta"],
                "Generated \(content.generated) from \(content.repositoryPath), state \(content.state ?? "-")."),
            .newline,
            .element(
                "p", ["class": "verdict verdict-\(verdict.replacingOccurrences(of: " ", with: "-"))"],
                "Health: \(Markup.element("strong", Markup(verdict)))\(candidate)\(baseline)\(held)"))
    }

    /// The plan as it is.
    static func planSection(_ content: ReportContent) -> Markup {
        let plan = content.plan
        let locale = content.locale
        func row(_ heading: String, _ value: String, _ attributes: Markup.Attributes = [:]) -> Markup {
            .element("tr", .element("th", Markup(heading)), .element("td", attributes, Markup(value)))
        }
        var rows = [
            row(
                "Baseline",
                plan.baseline.map { "\(locale)@\($0.contentVersion) (app \($0.minAppVersion)+)" }
                    ?? "none: bundled strings")
        ]
        if !plan.previousBaselines.isEmpty {
            rows.append(
                row(
                    "Earlier baselines",
                    plan.previousBaselines.map { "\(locale)@\($0.contentVersion)" }.joined(separator: ", ")))
        }
        let rules = plan.rules.map { "\(locale)@\($0.pack.contentVersion): \($0.summary)" }
        rows.append(row("Staged", rules.isEmpty ? "nothing" : rules.joined(separator: "; ")))
        let blocked = plan.blocked.map { "\(locale)@\($0)" }.joined(separator: ", ")
        rows.append(row("Blocked", blocked.isEmpty ? "none" : blocked, ["class": "blocked"]))
        if plan.bundledOnly {
            rows.append(row("Kill switch", "on: every device uses its bundled strings", ["class": "blocked"]))
        }
        if let ramp = plan.ramp {
            rows.append(
                row("Ramp", ramp.steps.map(\.description).joined(separator: " → ") + (ramp.paused ? " (paused)" : "")))
        }
        return .element(
            "section", ["id": "plan"], .element("h2", "Current plan"),
            .element("table", .element("tbody", .newline, .lines(rows))))
    }

    /// Every change, newest first, under a strip of them over time; then each segment's share.
    static func timelineSection(_ content: ReportContent) -> Section {
        var parts: [Markup] = []
        var charts = 0
        if let chart = ReportCharts.timeline(content.changes) {
            parts.append(chart)
            charts += 1
        }
        parts.append(
            .element("ol", ["class": "timeline"], .newline, .lines(content.changes.reversed().map(timelineEntry))))
        if let chart = ReportCharts.shares(content.changes) {
            parts.append(.element("h3", "Share of devices on the staged pack, per targeted segment"))
            parts.append(chart)
            charts += 1
        }
        return Section(
            markup: .element("section", ["id": "timeline"], .element("h2", "Timeline"), .newline, .lines(parts)),
            charts: charts)
    }

    static func timelineEntry(_ change: ReportContent.Change) -> Markup {
        let time = Markup.element("time", "\(change.time)")
        let action = Markup.element("span", ["class": "action"], Markup(change.action))
        let who = Markup.element("span", ["class": "who"], " — \(change.actor)")
        let reason = change.reason.map { Markup.element("q", Markup($0)) } ?? ""
        let commit = Markup.element("code", Markup(String(change.commit.prefix(12))))
        return .element(
            "li", ["class": "timeline-entry action-\(change.action)"],
            "\(time) \(action) \(change.summary)\(who)\(reason) \(commit)")
    }

    /// The candidate's and the baseline's rates per metric, then the health checks.
    static func metricsSection(_ content: ReportContent) -> Section {
        var parts: [Markup] = []
        var charts = 0
        if let staged = content.staged, let baseline = content.baseline {
            let candidate = "\(content.locale)@\(staged)"
            let baseline = "\(content.locale)@\(baseline)"
            for kind in MetricKind.allCases {
                let series = content.days[kind] ?? []
                guard !series.isEmpty else {
                    parts.append(
                        .element(
                            "p", ["class": "empty"],
                            "No \(kind.rawValue) metrics for \(candidate) and \(baseline) on the same days yet."))
                    continue
                }
                let gate = kind == .crash ? content.gates.crash : content.gates.fallback
                let alpha = content.health?.alphaPerCheck ?? (1 - content.gates.confidence)
                parts.append(
                    .element(
                        "h3",
                        kind == .crash ? "Crash rate (crashes per session)" : "Fallback rate (fallbacks per lookup)"))
                parts.append(ReportCharts.rates(kind, series: series, candidate: candidate, baseline: baseline))
                parts.append(
                    ReportCharts.difference(kind, series: series, gate: gate, alpha: alpha, planned: gate.minSamples))
                charts += 2
            }
        } else {
            parts.append(
                .element(
                    "p", ["class": "empty"], "No candidate has been staged against a baseline: nothing to compare."))
        }
        if let health = content.health {
            parts.append(checks(health))
            parts.append(segments(health))
            for held in health.mismatches {
                parts.append(.element("p", ["class": "held"], "Held: \(HealthText.mismatch(held))."))
            }
        }
        return Section(
            markup: .element(
                "section", ["id": "metrics"], .element("h2", "Crash and fallback rates"), .newline, .lines(parts)),
            charts: charts)
    }

    /// The health table: per segment and metric, rates and samples, the difference, its bound, the gate and the verdict.
    static func checks(_ health: Health.Report) -> Markup {
        checkTable(health.checks.map(HealthEvidence.Check.init), class: "checks", rowClass: "check", caption: nil)
    }

    /// Checks as a table, the health of now's or a rollback manifest's evidence alike: a bound is
    /// `[lower, upper]`, or `>= lower` where the evidence kept only that (format 1).
    static func checkTable(_ checks: [HealthEvidence.Check], class: String, rowClass: String, caption: Markup?)
        -> Markup
    {
        let percent = ReportCharts.percent
        let headings = ["Segment", "Metric", "Candidate", "Baseline", "Difference", "Bound", "Gate", "Verdict"]
        let rows = checks.map { check in
            let rate = { (c: MetricCounts) in c.rate.map { percent($0) } ?? "-" }
            let bound = check.lowerBound.map { lower in
                check.upperBound.map { "[\(percent(lower)), \(percent($0))]" } ?? ">= \(percent(lower))"
            }
            let cells = [
                check.segment, check.metric, "\(rate(check.candidate)) of \(check.candidate.total)",
                "\(rate(check.baseline)) of \(check.baseline.total)", check.difference.map { percent($0) } ?? "-",
                bound ?? "-", check.tolerance.map { "+\(percent($0))" } ?? "-", check.verdict,
            ]
            return Markup.element(
                "tr", ["class": "\(rowClass) verdict-\(check.verdict)"],
                Markup(cells.map { .element("td", Markup($0)) }))
        }
        return .element(
            "table", ["class": `class`], caption.map { .element("caption", $0) } ?? "",
            .element("thead", .element("tr", Markup(headings.map { .element("th", Markup($0)) }))),
            .element("tbody", .newline, .lines(rows)))
    }

    /// The segments: each one's verdict, the sessions and lookups it rests on, its share of sessions
    /// against the plan's, and when a decision is expected at the current traffic.
    static func segments(_ health: Health.Report) -> Markup {
        let headings = ["Segment", "Verdict", "Sessions", "Lookups", "Sample ratio", "Decided"]
        let rows = health.standings.map { standing in
            let verdict = standing.mismatch ? "held" : standing.verdict.rawValue
            return Markup.element(
                "tr", ["class": "segment verdict-\(verdict)"],
                Markup(HealthText.cells(standing).map { .element("td", Markup($0)) }))
        }
        return .element(
            "table", ["class": "segments"],
            .element("thead", .element("tr", Markup(headings.map { .element("th", Markup($0)) }))),
            .element("tbody", .newline, .lines(rows)))
    }

    /// A rollback manifest's evidence as a table, whichever format wrote it (docs/health.md, "One
    /// form of a check"); nil when it holds none this build can read.
    static func evidence(_ document: [String: JSONValue]) -> Markup? {
        guard let value = document["evidence"], let evidence = HealthEvidence.read(value), !evidence.checks.isEmpty
        else { return nil }
        return checkTable(
            evidence.checks, class: "checks evidence", rowClass: "evidence-check",
            caption: "Evidence: \(evidence.verdict) (evidence format \(evidence.format))")
    }

    /// Each revert's manifest: who, when, why, its evidence, and the whole document.
    static func rollbacksSection(_ content: ReportContent) -> Markup {
        var parts: [Markup] = []
        if content.rollbacks.isEmpty && content.unreadableRollbacks == 0 {
            parts.append(.element("p", ["class": "empty"], "No revert so far."))
        }
        for document in content.rollbacks {
            let text = { (key: String) in document[key]?.stringValue ?? "" }
            let reason = document["reason"]?.stringValue.map { ": \(Markup.element("q", Markup($0)))" as Markup } ?? ""
            parts.append(
                .element(
                    "article", ["class": "rollback"], .element("h3", Markup(text("id"))),
                    .element("p", "\(text("time")) by \(text("actor"))\(reason)"), .newline,
                    evidence(document) ?? "", .element("pre", Markup(JSONWriter.prettyString(.object(document))))))
        }
        return .element("section", ["id": "rollbacks"], .element("h2", "Rollback manifests"), .newline, .lines(parts))
    }

    static func footer(_ content: ReportContent) -> Markup {
        .element("footer", "rollout \(content.locale) report · no scripts, no network: this file is the whole report.")
    }

    // MARK: style

    static let stylesheet: StaticString = """
        body{font:14px/1.45 -apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1d2330;max-width:800px;margin:24px auto;padding:0 16px}
        h1{margin:0;font-size:28px}h2{border-bottom:1px solid #d8dce3;padding-bottom:4px;margin-top:32px}h3{font-size:15px;margin:20px 0 6px}
        .meta,footer,.who,.empty{color:#5f6b7a}footer{margin-top:40px;font-size:12px}
        .verdict{font-size:16px}.verdict-unhealthy strong{color:#c0262d}.verdict-healthy strong{color:#1b7f3b}.verdict-insufficient-data strong{color:#8a6d00}
        table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eceff3;vertical-align:top}
        .checks td{font-variant-numeric:tabular-nums}tr.verdict-unhealthy td,tr.verdict-held td{background:#fdecec}.held{color:#c0262d}.blocked{color:#c0262d}
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
