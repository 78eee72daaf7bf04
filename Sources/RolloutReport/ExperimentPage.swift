import Foundation
import RolloutModel
import RolloutStore

/// `rollout report --experiment NAME`: one experiment on one self-contained page, in the style of a
/// locale's (docs/report.md, "An experiment's page"): the verdict as `experiment show` words it,
/// the question declared at the start, each treatment's cumulative lift over the control with its
/// anytime-valid bound, the exposures per day, the comparison of every metric, the sample ratio
/// and the guardrails. Built with `Markup` and `ReportCharts`, like the locale's page: no scripts,
/// nothing fetched, well-formed XHTML.
public enum ExperimentPage {
    public struct Summary: Sendable {
        public let html: String
        public let charts: Int
        /// The verdict's label (`winner`, `keep running`, ...).
        public let verdict: String
        public let locale: String
    }

    /// The file an experiment's page is written to beside the overview (`report --all`):
    /// `experiment-title-test.html`, which no locale's page is named.
    public static func fileName(of name: String) -> String { "experiment-\(name).html" }

    /// The page of the experiment `name` at `snapshot`; `wording` words its verdict as the command
    /// line does. `localePage` and `overview` are the pages written beside it, linked from its header.
    public static func render(
        name: String, snapshot: Snapshot, repositoryPath: String, localePage: String? = nil, overview: String? = nil,
        wording: (ExperimentRecord, ExperimentAnalysis.Verdict) -> String, now: Timestamp
    ) throws -> Summary {
        var content = try ExperimentContent.gather(
            name: name, snapshot: snapshot, repositoryPath: repositoryPath, wording: wording, now: now)
        content.localePage = localePage
        content.overview = overview
        return render(content)
    }

    /// The page for `content`, top to bottom as docs/report.md lists it.
    static func render(_ content: ExperimentContent) -> Summary {
        let record = content.record
        let head = Markup.element(
            "head", .empty("meta", ["charset": "utf-8"]),
            .empty("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"]),
            .element("title", "rollout report: experiment \(record.name) on \(record.locale)"),
            .element("style", .trusted(ReportPage.stylesheet), .newline, .trusted(stylesheet)))
        let lift = liftSection(content)
        let exposures = exposuresSection(content)
        let sections = [
            header(content), questionSection(record), lift.markup, exposures.markup, comparisonSection(content),
            sampleRatioSection(content), guardrailsSection(content), footer(record),
        ]
        let html = Markup.element(
            "html", ["xmlns": "http://www.w3.org/1999/xhtml", "lang": "en"], .newline, .lines([head]),
            .element("body", .newline, .lines(sections)))
        return Summary(
            html: Markup.document(html).xml, charts: lift.charts + exposures.charts,
            verdict: content.result.verdict.label, locale: record.locale)
    }

    /// A section and the number of charts in it.
    struct Section {
        let markup: Markup
        let charts: Int
    }

    // MARK: sections

    static func header(_ content: ExperimentContent) -> Markup {
        let record = content.record
        let status =
            record.ending.map { "Ended \($0.time) by \($0.actor): \($0.outcome)" }
            ?? "Running since \(record.started) (day \(record.day(at: content.generated)) of \(record.days))"
        var back: [Markup] = []
        if let overview = content.overview { back.append(.element("a", ["href": overview], "Every locale")) }
        if let page = content.localePage {
            if !back.isEmpty { back.append(" · ") }
            back.append(.element("a", ["href": page], "\(record.locale) report"))
        }
        let label = content.result.verdict.label.replacingOccurrences(of: " ", with: "-")
        return .element(
            "header", back.isEmpty ? "" : Markup([.element("p", ["class": "meta"], Markup(back)), .newline]),
            .element("h1", "Experiment \(ReportPage.unbroken(record.name))"),
            .element(
                "p", ["class": "meta"],
                "On \(record.locale). Generated \(content.generated) from \(content.repositoryPath), state \(content.state ?? "-")."
            ), .newline,
            .element("p", ["class": "status status-\(record.isRunning ? "running" : "ended")"], Markup(status)),
            .newline,
            .element(
                "p", ["class": "verdict verdict-\(label)"],
                "Verdict: \(Markup.element("strong", Markup(content.verdict)))"))
    }

    /// What was declared before the first device was split: the question the verdict answers.
    static func questionSection(_ record: ExperimentRecord) -> Markup {
        func row(_ heading: String, _ value: Markup) -> Markup {
            .element("tr", .element("th", Markup(heading)), .element("td", value))
        }
        let split = zip(record.variants, record.split).enumerated().map { index, pair -> Markup in
            let control = index == 0 ? " (control)" : ""
            return "\(index == 0 ? "" : ", ")\(ReportPage.unbroken("\(record.id(pair.0)) \(pair.1)"))\(control)"
        }
        let horizon = Timestamp(seconds: record.started.seconds + Int64(record.days) * 86_400)
        let keys = record.keys.prefix(12).joined(separator: ", ") + (record.keys.count > 12 ? ", ..." : "")
        var rows = [
            row("Variants", Markup(split)),
            row("Targeting", Markup(record.published.target)),
            row(
                "Primary metric",
                "\(Markup.element("strong", Markup(record.primary))), declared at the start; it alone decides"),
            row(
                "Exploratory",
                Markup(
                    record.exploratory.isEmpty ? "none" : record.exploratory.joined(separator: ", ") + " (never decide)"
                )),
            row(
                "Guardrails",
                Markup(record.guardrails.isEmpty ? "none" : record.guardrails.map(\.rawValue).joined(separator: ", "))),
            row("Horizon", "\(record.days) day(s), until \(horizon): then, undecided, no difference shown"),
            row("Keys compared", "\(record.keys.count): \(keys)"),
            row("Started", startedBy(record.started, record.startedBy, record.reason)),
        ]
        if let ending = record.ending {
            rows.append(row("Ended", "\(startedBy(ending.time, ending.actor, ending.reason)): \(ending.outcome)"))
        }
        return .element(
            "section", ["id": "question"], .element("h2", "The question"),
            ReportPage.scrolling(.element("table", ["class": "question"], .element("tbody", .newline, .lines(rows)))))
    }

    /// "2026-11-24T09:00:00Z by Ana <ana@example.com>" and the reason quoted.
    static func startedBy(_ time: Timestamp, _ actor: String, _ reason: String?) -> Markup {
        "\(time) by \(actor)\(reason.map { Markup.element("q", Markup($0)) } ?? "")"
    }

    /// Each treatment's cumulative lift over the control, day by day, with its bound.
    static func liftSection(_ content: ExperimentContent) -> Section {
        let record = content.record
        var parts: [Markup] = []
        let alpha = content.result.comparisons.first { !$0.exploratory }?.alpha ?? ExperimentAnalysis.alpha
        parts.append(
            .element(
                "p", ["class": "note"],
                Markup(
                    "The relative lift of \(record.primary) over \(record.id(record.control)) (the control), cumulative "
                        + "to each day, inside its \(ReportCharts.level(alpha)) bound, valid at every look: a treatment "
                        + "wins once the whole band is above zero, and is harm once it is below.")))
        var charts = 0
        for treatment in record.treatments.map(\.contentVersion) {
            let points = content.result.timeline[treatment] ?? []
            parts.append(.element("h3", "\(content.pack(treatment)) over \(record.id(record.control))"))
            if points.allSatisfy({ $0.lift == nil }) {
                parts.append(.element("p", ["class": "empty"], "No conversions of \(record.primary) in both arms yet."))
                continue
            }
            parts.append(
                ReportCharts.lift(
                    points, days: content.chartDays, treatment: content.pack(treatment),
                    control: content.pack(record.control.contentVersion), metric: record.primary, alpha: alpha))
            charts += 1
        }
        return Section(markup: ReportPage.section("lift", "Lift over time", parts), charts: charts)
    }

    /// Each variant's exposures per day: a chart, then the numbers, folded.
    static func exposuresSection(_ content: ExperimentContent) -> Section {
        let days = content.dailyExposures
        let versions = content.record.variants.map(\.contentVersion)
        guard !days.isEmpty else {
            let empty = Markup.element(
                "p", ["class": "empty"], "No exposures of \(content.record.primary) recorded for the variants yet.")
            return Section(markup: ReportPage.section("exposures", "Exposures per day", [empty]), charts: 0)
        }
        let names = versions.enumerated().map { content.pack($0.element) + ($0.offset == 0 ? " (control)" : "") }
        let chart = ReportCharts.exposures(days, versions: versions, names: names, span: content.chartDays)
        let headings = ["Day"] + names
        let rows = days.map { day in
            let cells =
                [String(Timestamp(seconds: Int64(day.day) * 86_400).description.prefix(10))]
                + versions.map { ReportCharts.grouped(day.exposures[$0] ?? 0) }
            return Markup.element("tr", ReportPage.labelled(cells, headings))
        }
        let table = Markup.element(
            "details", .element("summary", "Exposures of each day (\(days.count) day(s))"),
            ReportPage.scrolling(
                .element(
                    "table", ["class": "exposures cards"],
                    .element("thead", .element("tr", Markup(headings.map { .element("th", Markup($0)) }))),
                    .element("tbody", .newline, .lines(rows)))))
        let note = Markup.element(
            "p", ["class": "note"],
            "The sessions that saw a key the experiment varies, per variant and day, as the rows of \(content.record.primary) count them."
        )
        return Section(
            markup: ReportPage.section("exposures", "Exposures per day", [note, chart, table]), charts: 1)
    }

    /// The comparison of every metric: the primary, then each exploratory one with its corrected level.
    static func comparisonSection(_ content: ExperimentContent) -> Markup {
        let record = content.record
        var parts: [Markup] = []
        for metric in record.metrics {
            let rows = content.result.comparisons.filter { $0.metric == metric }
            let alpha = rows.first?.alpha ?? ExperimentAnalysis.alpha
            let caption: Markup =
                metric == record.primary
                ? "Primary: \(metric), declared at the start; bounds at \(ReportCharts.level(alpha)), anytime-valid"
                : "Exploratory: \(metric); bounds at \(ReportCharts.level(alpha, digits: 2)), corrected for the number of metrics; never decides"
            parts.append(
                ReportPage.scrolling(
                    comparisonTable(content, rows, caption: caption, exploratory: metric != record.primary)))
        }
        return ReportPage.section("comparison", "Comparison", parts)
    }

    /// One metric: the control's row, then each treatment's with its lift, bound and decision.
    static func comparisonTable(
        _ content: ExperimentContent, _ rows: [ExperimentAnalysis.Comparison], caption: Markup, exploratory: Bool
    ) -> Markup {
        let headings = ["Variant", "Exposures", "Conversions", "Rate", "Lift", "Bound", "Decision"]
        let grouped = ReportCharts.grouped
        func rate(_ counts: MetricCounts) -> String { counts.rate.map { ReportCharts.percent($0) } ?? "-" }
        var lines: [Markup] = []
        if let control = rows.first?.control {
            let cells = [
                "\(content.record.id(content.record.control)) (control)", grouped(control.total),
                grouped(control.events), rate(control), "", "", "",
            ]
            lines.append(.element("tr", ["class": "variant control"], ReportPage.labelled(cells, headings)))
        }
        for row in rows {
            let bound =
                row.control.total == 0 && row.variant.total == 0
                ? "-" : "[\(ReportCharts.liftText(row.lower)), \(ReportCharts.liftText(row.upper))]"
            let cells = [
                content.pack(row.treatment), grouped(row.variant.total), grouped(row.variant.events), rate(row.variant),
                ReportCharts.liftText(row.lift), bound, row.decision.rawValue,
            ]
            lines.append(
                .element(
                    "tr", ["class": "variant decision-\(row.decision.rawValue)"], ReportPage.labelled(cells, headings)))
        }
        return .element(
            "table", ["class": "comparison\(exploratory ? " exploratory" : " primary") cards"],
            .element("caption", caption),
            .element("thead", .element("tr", Markup(headings.map { .element("th", Markup($0)) }))),
            .element("tbody", .newline, .lines(lines)))
    }

    /// Each treatment's exposures against the control's, by the split: a mismatch voids the result.
    static func sampleRatioSection(_ content: ExperimentContent) -> Markup {
        let headings = ["Treatment", "Its exposures", "Control's", "Its share", "Split gives", "Verdict"]
        let rows = content.result.sampleRatios.map { check in
            let cells = [
                check.segment, ReportCharts.grouped(check.candidate), ReportCharts.grouped(check.baseline),
                check.observed.map { ReportCharts.percent($0) } ?? "-", ReportCharts.percent(check.planned),
                check.verdict.rawValue,
            ]
            return Markup.element(
                "tr", ["class": "ratio verdict-\(check.verdict.rawValue)"], ReportPage.labelled(cells, headings))
        }
        let note = Markup.element(
            "p", ["class": "note"],
            Markup(
                "A treatment's share of its and the control's exposures, against the share the split gives it. "
                    + "A mismatch voids every comparison: the arms no longer differ by the wording alone."))
        let table = ReportPage.scrolling(
            .element(
                "table", ["class": "ratios cards"],
                .element("thead", .element("tr", Markup(headings.map { .element("th", Markup($0)) }))),
                .element("tbody", .newline, .lines(rows))))
        return ReportPage.section("sample-ratio", "Sample ratio", [note, table])
    }

    /// Each treatment's crash and fallback health against the control, as health judges a staged pack.
    static func guardrailsSection(_ content: ExperimentContent) -> Markup {
        let record = content.record
        var parts: [Markup] = []
        if record.guardrails.isEmpty { parts.append(.element("p", ["class": "empty"], "No guardrails were declared.")) }
        for (treatment, report) in content.result.guardrails.sorted(by: { $0.key < $1.key })
        where !record.guardrails.isEmpty {
            let kinds = record.guardrails.map { kind in
                let worst = report.checks.filter { $0.kind == kind }.map(\.verdict).max() ?? .insufficientData
                return "\(kind.rawValue) \(worst.rawValue)"
            }
            parts.append(.element("h3", "\(content.pack(treatment)) against \(record.id(record.control)) (control)"))
            parts.append(
                .element(
                    "p", ["class": "verdict verdict-\(report.verdict.rawValue)"],
                    "Guardrails: \(Markup.element("strong", Markup(report.verdict.rawValue))) · \(kinds.joined(separator: ", "))"
                ))
            if report.checks.isEmpty {
                parts.append(.element("p", ["class": "empty"], "No crash or fallback metrics of both arms yet."))
            } else {
                parts.append(
                    ReportPage.scrolling(
                        ReportPage.checkTable(
                            report.checks.map(HealthEvidence.Check.init), class: "checks guardrails",
                            rowClass: "check", caption: nil, arms: ("Treatment", "Control"))))
            }
        }
        return ReportPage.section("guardrails", "Guardrails", parts)
    }

    static func footer(_ record: ExperimentRecord) -> Markup {
        .element(
            "footer",
            "rollout experiment \(record.name) report · no scripts, no network: this file is the whole report.")
    }

    // MARK: style

    /// What this page draws beyond the locale's page: the lift band, the variants' colours.
    static let stylesheet: StaticString = """
        .status{font-size:15px;margin:4px 0}.status-ended{color:#5f6b7a}
        .verdict-winner strong{color:#1b7f3b}.verdict-harm strong,.verdict-void strong{color:#c0262d}.verdict-keep-running strong,.verdict-no-difference-shown strong{color:#8a6d00}
        polygon.lift-band{fill:#2d6cdf;fill-opacity:.18;stroke:none}ul.legend li.lift-band::before{height:10px;border:0;background:#2d6cdf;opacity:.3}.legend .lift-band{color:#2d6cdf}
        polyline.lift{stroke:#1d2330}.legend .lift{color:#1d2330}line.dot.lift{stroke:#1d2330}
        polyline.variant-0,line.variant-0{stroke:#2d6cdf}polyline.variant-1,line.variant-1{stroke:#c0262d}polyline.variant-2,line.variant-2{stroke:#1b7f3b}polyline.variant-3,line.variant-3{stroke:#8a6d00}
        .legend .variant-0{color:#2d6cdf}.legend .variant-1{color:#c0262d}.legend .variant-2{color:#1b7f3b}.legend .variant-3{color:#8a6d00}
        .comparison td,.ratios td,.exposures td{font-variant-numeric:tabular-nums}tr.decision-better td{background:#eaf6ee}tr.decision-worse td,tr.verdict-mismatch td{background:#fdecec}
        table.exploratory caption{font-weight:400;font-style:italic}
        @media (max-width:600px){.comparison td::before,.ratios td::before{width:104px}}
        """
}
