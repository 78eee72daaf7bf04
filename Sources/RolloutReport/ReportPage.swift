import Foundation
import RolloutModel
import RolloutStore

/// `rollout report LOCALE`: one self-contained page (no network, no scripts) that reads at a glance
/// and prints: the timeline, each staged pack's share over time, the candidate's and baseline's
/// crash and fallback rates with the gate and the confidence band, the checks and segments, the
/// plan, blocked versions and the rollback manifests (docs/report.md). It sets a viewport and reads
/// on a phone as on a desktop (ReportInBrowserTests measures it in Chromium). The markup is
/// well-formed XHTML, so tools (and the tests) can parse it; it is built with `Markup`, so
/// everything read from the repository is escaped.
public enum ReportPage {
    public struct Summary: Sendable {
        public let html: String
        public let timelineEntries: Int
        public let charts: Int
    }

    /// The page of `locale` at `snapshot` (default: the repository's tip): `report --all` draws every
    /// page from the one snapshot its overview reads, and links each back to the `overview` file.
    public static func render(
        locale: String, repository: PackRepository, snapshot: Snapshot? = nil, health: Health.Report?? = nil,
        overview: String? = nil, experimentPages: Set<String> = [], signers: SignerLabels? = nil, now: Timestamp
    ) throws -> Summary {
        var content = try ReportContent.gather(
            locale: locale, repository: repository, snapshot: snapshot, health: health, signers: signers, now: now)
        content.overview = overview
        content.experimentPages = experimentPages
        return render(content)
    }

    /// The page for `content`, top to bottom as docs/report.md lists it.
    static func render(_ content: ReportContent) -> Summary {
        let timeline = timelineSection(content)
        let metrics = metricsSections(content)
        let head = Markup.element(
            "head", .empty("meta", ["charset": "utf-8"]),
            .empty("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"]),
            .element("title", "rollout report: \(content.locale)"),
            .element("style", .trusted(stylesheet)))
        let sections =
            [header(content), planSection(content)] + experimentsSection(content) + timeline.markup + metrics.markup
            + [rollbacksSection(content), footer(content)]
        let html = Markup.element(
            "html", ["xmlns": "http://www.w3.org/1999/xhtml", "lang": "en"], .newline, .lines([head]),
            .element("body", .newline, .lines(sections)))
        return Summary(
            html: Markup.document(html).xml, timelineEntries: content.changes.count,
            charts: timeline.charts + metrics.charts)
    }

    /// Sections of the page and the number of charts in them.
    struct Sections {
        let markup: [Markup]
        let charts: Int
    }

    /// Text a line does not break inside, such as a pack id (`tr-TR@18`, whose hyphen a browser
    /// would otherwise break after).
    static func unbroken(_ text: String) -> Markup { .element("span", ["class": "nowrap"], Markup(text)) }

    /// A table in a box of its own that scrolls sideways when the table is wider than the page.
    static func scrolling(_ table: Markup) -> Markup { .element("div", ["class": "scroll"], table) }

    // MARK: sections

    static func header(_ content: ReportContent) -> Markup {
        let locale = content.locale
        let verdict =
            content.health?.verdict.rawValue ?? (content.plan.candidate == nil ? "nothing staged" : "no metrics")
        let candidate: Markup = content.staged.map { " · candidate \(unbroken("\(locale)@\($0)"))" } ?? ""
        let baseline: Markup = content.baseline.map { " · baseline \(unbroken("\(locale)@\($0)"))" } ?? ""
        let mismatches = content.health?.mismatches.map(\.segment) ?? []
        let held = mismatches.isEmpty ? "" : " · held: sample ratio mismatch in \(mismatches.joined(separator: ", "))"
        let back: Markup =
            content.overview.map {
                Markup([.element("p", ["class": "meta"], .element("a", ["href": $0], "Every locale")), .newline])
            } ?? ""
        return .element(
            "header", back, .element("h1", Markup(locale)),
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
            scrolling(.element("table", .element("tbody", .newline, .lines(rows)))))
    }

    /// The locale's experiments, each linking to its page when one was written beside this one; no
    /// section without any.
    static func experimentsSection(_ content: ReportContent) -> [Markup] {
        guard !content.experiments.isEmpty else { return [] }
        let items = content.experiments.map { line in
            let name = unbroken(line.name)
            let linked =
                content.experimentPages.contains(line.name)
                ? Markup.element("a", ["href": ExperimentPage.fileName(of: line.name)], name) : name
            return Markup.element("li", ["class": "experiment"], "\(linked): \(line.variants); \(line.status)")
        }
        return [
            .element(
                "section", ["id": "experiments"], .element("h2", "Experiments"),
                .element("ul", ["class": "experiments"], .newline, .lines(items)))
        ]
    }

    /// Every change, newest first, under a strip of them over time; then each staged pack's share.
    static func timelineSection(_ content: ReportContent) -> Sections {
        var parts: [Markup] = []
        var charts = 0
        if let chart = ReportCharts.timeline(content.changes) {
            parts.append(chart)
            charts += 1
        }
        parts.append(
            .element("ol", ["class": "timeline"], .newline, .lines(content.changes.reversed().map(timelineEntry))))
        var sections = [
            Markup.element("section", ["id": "timeline"], .element("h2", "Timeline"), .newline, .lines(parts))
        ]
        if let chart = ReportCharts.shares(content.changes) {
            sections.append(
                .element(
                    "section", ["id": "share"], .element("h2", "Share per pack"),
                    .element(
                        "p", ["class": "note"],
                        "The share of devices on each pack a rule staged, in its segment, after each change."),
                    .newline, chart))
            charts += 1
        }
        return Sections(markup: sections, charts: charts)
    }

    static func timelineEntry(_ change: ReportContent.Change) -> Markup {
        let time = Markup.element("time", "\(change.time)")
        let action = Markup.element("span", ["class": "action"], Markup(change.action))
        let signer = change.signer.map { " (signer: \($0))" } ?? ""
        let who = Markup.element("span", ["class": "who"], Markup(" — \(change.actor)\(signer)"))
        let reason = change.reason.map { Markup.element("q", Markup($0)) } ?? ""
        let commit = Markup.element("code", Markup(String(change.commit.prefix(12))))
        return .element(
            "li", ["class": "timeline-entry action-\(change.action)"],
            "\(time) \(action) \(change.summary)\(who)\(reason) \(commit)")
    }

    /// The candidate's and the baseline's rates per metric, their difference, then the health
    /// checks and the segments: four sections, each under the heading docs/report.md gives it.
    static func metricsSections(_ content: ReportContent) -> Sections {
        var rates: [Markup] = []
        var differences: [Markup] = []
        var charts = 0
        if let staged = content.staged, let baseline = content.baseline {
            let candidate = "\(content.locale)@\(staged)"
            let baseline = "\(content.locale)@\(baseline)"
            for kind in MetricKind.health {
                let heading =
                    kind == .crash ? "Crash rate (crashes per session)" : "Fallback rate (fallbacks per lookup)"
                let series = content.days[kind] ?? []
                guard !series.isEmpty else {
                    rates.append(
                        .element(
                            "p", ["class": "empty"],
                            "No \(kind.rawValue) metrics for \(candidate) and \(baseline) on the same days yet."))
                    continue
                }
                let gate = kind == .crash ? content.gates.crash : content.gates.fallback
                let alpha = content.health?.alphaPerCheck ?? (1 - content.gates.confidence)
                rates.append(.element("h3", Markup(heading)))
                rates.append(ReportCharts.rates(kind, series: series, candidate: candidate, baseline: baseline))
                differences.append(
                    .element("h3", "\(heading.prefix { $0 != " " }) rate: \(candidate) minus \(baseline)"))
                differences.append(
                    ReportCharts.difference(kind, series: series, gate: gate, alpha: alpha, planned: gate.minSamples))
                charts += 2
            }
        } else {
            rates.append(
                .element(
                    "p", ["class": "empty"], "No candidate has been staged against a baseline: nothing to compare."))
        }
        if differences.isEmpty {
            differences.append(.element("p", ["class": "empty"], "No metrics to compare yet."))
        }
        return Sections(
            markup: [
                section("metrics", "Crash and fallback rates", rates), section("difference", "Difference", differences),
            ] + healthSections(content), charts: charts)
    }

    /// A section of the page: its heading, then one line per part.
    static func section(_ id: String, _ heading: String, _ parts: [Markup]) -> Markup {
        .element("section", ["id": id], .element("h2", Markup(heading)), .newline, .lines(parts))
    }

    /// The staged pack's checks and segments, or why there are none.
    static func healthSections(_ content: ReportContent) -> [Markup] {
        var checks: [Markup] = []
        var segments: [Markup] = []
        if let health = content.health {
            checks.append(scrolling(self.checks(health)))
            segments.append(scrolling(self.segments(health)))
            for held in health.mismatches {
                segments.append(.element("p", ["class": "held"], "Held: \(HealthText.mismatch(held))."))
            }
        } else {
            let note: Markup =
                content.rollbacks.isEmpty
                ? "No pack is staged: nothing is checked."
                : "No pack is staged: the checks behind the revert are under Rollback manifests."
            checks.append(.element("p", ["class": "empty"], note))
            segments.append(.element("p", ["class": "empty"], "No pack is staged: no segment is judged."))
        }
        return [section("checks", "Checks", checks), section("segments", "Segments", segments)]
    }

    /// The health table: per segment and metric, rates and samples, the difference, its bound, the gate and the verdict.
    static func checks(_ health: Health.Report) -> Markup {
        checkTable(health.checks.map(HealthEvidence.Check.init), class: "checks", rowClass: "check", caption: nil)
    }

    /// Checks as a table, the health of now's or a rollback manifest's evidence alike: a bound is
    /// `[lower, upper]`, or `>= lower` where the evidence kept only that (format 1).
    /// `arms` heads the two arms' columns (an experiment's guardrails: the treatment and the control).
    static func checkTable(
        _ checks: [HealthEvidence.Check], class: String, rowClass: String, caption: Markup?,
        arms: (String, String) = ("Candidate", "Baseline")
    ) -> Markup {
        let percent = ReportCharts.percent
        let grouped = ReportCharts.grouped
        let headings = ["Segment", "Metric", arms.0, arms.1, "Difference", "Bound", "Gate", "Verdict"]
        let rows = checks.map { check in
            let rate = { (c: MetricCounts) in c.rate.map { percent($0) } ?? "-" }
            let bound = check.lowerBound.map { lower in
                check.upperBound.map { "[\(percent(lower)), \(percent($0))]" } ?? ">= \(percent(lower))"
            }
            let cells = [
                check.segment, check.metric, "\(rate(check.candidate)) of \(grouped(check.candidate.total))",
                "\(rate(check.baseline)) of \(grouped(check.baseline.total))",
                check.difference.map { percent($0) } ?? "-",
                bound ?? "-", check.tolerance.map { "+\(percent($0))" } ?? "-", check.verdict,
            ]
            return Markup.element(
                "tr", ["class": "\(rowClass) verdict-\(check.verdict)"], labelled(cells, headings))
        }
        return .element(
            "table", ["class": "\(`class`) cards"], caption.map { .element("caption", $0) } ?? "",
            .element("thead", .element("tr", Markup(headings.map { .element("th", Markup($0)) }))),
            .element("tbody", .newline, .lines(rows)))
    }

    /// A row's cells, each carrying its column's heading: on a narrow screen a table of class
    /// `cards` shows each row as a card of heading and value pairs (the stylesheet), so every
    /// column stays in view.
    static func labelled(_ cells: [String], _ headings: [String]) -> Markup {
        Markup(zip(cells, headings).map { .element("td", ["data-label": $1], Markup($0)) })
    }

    /// The segments: each one's verdict, the sessions and lookups it rests on, its share of sessions
    /// against the plan's, and when a decision is expected at the current traffic.
    static func segments(_ health: Health.Report) -> Markup {
        let headings = ["Segment", "Verdict", "Sessions", "Lookups", "Sample ratio", "Decided"]
        let rows = health.standings.map { standing in
            let verdict = standing.mismatch ? "held" : standing.verdict.rawValue
            func pair(_ kind: MetricKind) -> String {
                standing.exposures(kind).map {
                    "\(ReportCharts.grouped($0.candidate)) / \(ReportCharts.grouped($0.baseline))"
                } ?? "-"
            }
            let cells = [
                standing.segment, standing.verdict.rawValue, pair(.crash), pair(.fallback),
                standing.sampleRatio.map(HealthText.ratio) ?? "-", HealthText.decision(standing),
            ]
            return Markup.element("tr", ["class": "segment verdict-\(verdict)"], labelled(cells, headings))
        }
        return .element(
            "table", ["class": "segments cards"],
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

    /// Each revert's manifest: who, when, why, what it took back and to what in each segment, its
    /// evidence, and the whole document folded away.
    static func rollbacksSection(_ content: ReportContent) -> Markup {
        var parts: [Markup] = []
        if content.rollbacks.isEmpty && content.unreadableRollbacks == 0 {
            parts.append(.element("p", ["class": "empty"], "No revert so far."))
        }
        for document in content.rollbacks {
            let text = { (key: String) in document[key]?.stringValue ?? "" }
            let reason = document["reason"]?.stringValue.map { ": \(Markup.element("q", Markup($0)))" as Markup } ?? ""
            let json = JSONWriter.prettyString(.object(document))
            let lines = json.split(separator: "\n", omittingEmptySubsequences: false).count
            parts.append(
                .element(
                    "article", ["class": "rollback"], .element("h3", Markup(text("id"))),
                    .element("p", "\(text("time")) by \(text("actor"))\(reason)"), .newline,
                    rollbackSummary(document), evidence(document).map(scrolling) ?? "", .newline,
                    .element(
                        "details", .element("summary", "The whole manifest (JSON, \(lines) lines)"),
                        .element("pre", Markup(json)))))
        }
        return .element("section", ["id": "rollbacks"], .element("h2", "Rollback manifests"), .newline, .lines(parts))
    }

    /// What a rollback manifest took back, to what, and each segment's shares before and after it
    /// (docs/manifest.md, "Rollback manifests").
    static func rollbackSummary(_ document: [String: JSONValue]) -> Markup {
        let segments = (document["segments"]?.arrayValue ?? []).compactMap(\.objectValue)
        func packs(_ segment: [String: JSONValue], _ key: String) -> [(pack: String, basisPoints: Int)] {
            (segment[key]?.arrayValue ?? []).compactMap(\.objectValue).map {
                ($0["pack"]?.stringValue ?? "?", $0["basisPoints"]?.integerValue ?? 0)
            }
        }
        func unique(_ names: [String]) -> [String] {
            var seen = Set<String>()
            return names.filter { seen.insert($0).inserted }
        }
        let before = unique(segments.flatMap { packs($0, "before").map(\.pack) })
        let after = unique(segments.flatMap { packs($0, "after").map(\.pack) })
        let blocked = (document["blocked"]?.arrayValue ?? []).compactMap(\.stringValue)
        let taken = unique(before.filter { !after.contains($0) } + blocked)
        let scope = document["scope"]?.stringValue.map { $0 == "all" ? "in every segment" : "in \($0)" } ?? ""
        let target = document["target"]?.stringValue ?? "?"
        var sentences = [
            "Takes back \(taken.isEmpty ? "nothing" : taken.joined(separator: ", ")) \(scope), to \(target)"
                + (after.isEmpty || after == [target] ? "." : " (\(after.joined(separator: ", ")))."),
            blocked.isEmpty ? "Blocks nothing." : "Blocks \(blocked.joined(separator: ", ")).",
        ]
        if let sequence = document["manifestSequence"]?.integerValue {
            sentences.append("Devices follow once they accept manifest sequence \(sequence) or later.")
        }
        func shares(_ list: [(pack: String, basisPoints: Int)]) -> Markup {
            list.isEmpty
                ? "-"
                : Markup(
                    list.enumerated().map {
                        "\($0.offset == 0 ? "" : ", ")\(unbroken("\($0.element.pack) \(share($0.element.basisPoints))"))"
                    })
        }
        let rows = segments.map { segment in
            let cells = [
                Markup(segment["regions"]?.stringValue ?? "?"), Markup(segment["appVersions"]?.stringValue ?? "?"),
                shares(packs(segment, "before")), shares(packs(segment, "after")),
            ]
            return Markup.element("tr", Markup(cells.map { .element("td", $0) }))
        }
        let headings = ["Regions", "App versions", "Before", "After"]
        let table =
            rows.isEmpty
            ? Markup("")
            : scrolling(
                .element(
                    "table", ["class": "rollback-segments"], .element("caption", "Shares in each segment it changed"),
                    .element("thead", .element("tr", Markup(headings.map { .element("th", Markup($0)) }))),
                    .element("tbody", .newline, .lines(rows))))
        return Markup([.element("p", ["class": "rollback-summary"], Markup(sentences.joined(separator: " "))), table])
    }

    /// Basis points as a percentage without trailing zeros: `90%`, `0.5%`.
    static func share(_ basisPoints: Int) -> String {
        basisPoints % 100 == 0
            ? "\(basisPoints / 100)%" : ReportCharts.tickLabel(Double(basisPoints) / 10_000, step: 0.0001)
    }

    static func footer(_ content: ReportContent) -> Markup {
        .element("footer", "rollout \(content.locale) report · no scripts, no network: this file is the whole report.")
    }

    // MARK: style

    static let stylesheet: StaticString = """
        body{font:14px/1.45 -apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1d2330;max-width:800px;margin:24px auto;padding:0 16px}
        h1{margin:0;font-size:28px}h2{border-bottom:1px solid #d8dce3;padding-bottom:4px;margin-top:32px}h3{font-size:15px;margin:20px 0 6px}
        body{overflow-wrap:anywhere}table{overflow-wrap:normal}
        .meta,footer,.who,.empty,.note{color:#5f6b7a}footer{margin-top:40px;font-size:12px}
        .verdict{font-size:16px}.verdict-unhealthy strong{color:#c0262d}.verdict-healthy strong{color:#1b7f3b}.verdict-insufficient-data strong{color:#8a6d00}
        .scroll{overflow-x:auto;margin:6px 0 12px}table{border-collapse:collapse;width:100%}caption{text-align:left;font-weight:600;padding:4px 0}
        th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eceff3;vertical-align:top}
        .checks td,.segments td{font-variant-numeric:tabular-nums}tr.verdict-unhealthy td,tr.verdict-held td{background:#fdecec}.held{color:#c0262d}.blocked{color:#c0262d}
        ol.timeline{list-style:none;padding:0}.timeline-entry{padding:3px 0;border-bottom:1px dotted #e3e6eb}.timeline-entry time{color:#5f6b7a;font-variant-numeric:tabular-nums}
        .action{font-weight:600}.action-revert .action,.action-revert{color:#c0262d}q{font-style:italic;margin-left:6px}code{font-size:12px;color:#5f6b7a;margin-left:6px}
        figure.chart{margin:8px 0 20px}ul.legend{list-style:none;margin:0 0 8px;padding:0;display:flex;flex-wrap:wrap;gap:2px 18px;font-size:12px;font-weight:600}
        ul.legend li::before{content:"";display:inline-block;width:18px;border-top:3px solid;vertical-align:middle;margin-right:6px}
        ul.legend li.band::before{height:10px;border:0;background:#c0262d;opacity:.2}ul.legend li.gate::before{border-top-style:dashed}
        .frame{display:flex}.y-axis{position:relative;flex:none;width:58px;height:180px}.drawing{position:relative;flex:1;min-width:0}
        svg.plot{display:block;width:100%;height:180px;overflow:visible}svg.plot *{vector-effect:non-scaling-stroke}
        .tick{font-size:12px;color:#5f6b7a;white-space:nowrap;font-variant-numeric:tabular-nums}.y-axis .tick{position:absolute;right:8px;transform:translateY(-50%)}
        .x-axis{position:relative;height:22px}.x-axis .tick{position:absolute;top:4px;transform:translateX(-50%)}.x-axis .start{transform:none}.x-axis .end{transform:translateX(-100%)}
        .axis{stroke:#5f6b7a;stroke-width:1}.grid{stroke:#eceff3;stroke-width:1}polyline.series{fill:none;stroke-width:2}
        polyline.candidate{stroke:#c0262d}line.dot{stroke-width:7;stroke-linecap:round}line.candidate{stroke:#c0262d}polyline.baseline{stroke:#2d6cdf}
        .legend .candidate{color:#c0262d}.legend .baseline{color:#2d6cdf}.legend .difference{color:#1d2330}.legend .band{color:#8c4a4e}.legend .gate{color:#8a6d00}
        polyline.difference{stroke:#1d2330}polygon.band{fill:#c0262d;fill-opacity:.15;stroke:none}
        polyline.gate{fill:none;stroke:#8a6d00;stroke-dasharray:6 4;stroke-width:2}.zero{stroke:#5f6b7a;stroke-dasharray:2 3}
        line.event{stroke:#2d6cdf;stroke-width:11;stroke-linecap:round}line.action-revert{stroke:#c0262d}line.action-ramp,line.action-pause,line.action-resume{stroke:#8a6d00}
        polyline.share-0{stroke:#2d6cdf}polyline.share-1{stroke:#1b7f3b}polyline.share-2{stroke:#8a6d00}polyline.share-3{stroke:#6b3fa0}
        .legend .share-0{color:#2d6cdf}.legend .share-1{color:#1b7f3b}.legend .share-2{color:#8a6d00}.legend .share-3{color:#6b3fa0}
        .nowrap{white-space:nowrap}details{margin:8px 0}summary{cursor:pointer;color:#5f6b7a}
        pre{background:#f6f7f9;padding:8px;font-size:12px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
        @media (max-width:860px){.tick.minor{visibility:hidden}}
        @media (max-width:600px){body{margin:12px auto;padding:0 12px}h1{font-size:24px}svg.plot{height:150px}.y-axis{width:50px;height:150px}
        table.cards,.cards tbody,.cards tr,.cards caption{display:block}.cards thead{display:none}.cards tr{padding:4px 0;border-bottom:1px solid #d8dce3}
        .cards td{display:flex;gap:8px;border:0;padding:1px 8px}.cards td::before{content:attr(data-label);flex:none;width:88px;color:#5f6b7a;font-weight:600}}
        @media print{body{margin:0;max-width:none}.scroll{overflow:visible}section{break-inside:avoid-page}pre{white-space:pre-wrap}a{color:inherit}}
        """
}
