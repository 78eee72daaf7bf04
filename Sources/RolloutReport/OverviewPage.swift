import RolloutIngest
import RolloutModel
import RolloutStore

/// `rollout report --all`: one self-contained page for every locale (docs/report.md, "Every locale
/// on one page"), each row a `LocaleGlance`, as `rollout status` lists them, and each planned
/// locale linked to its own report, written beside it by the same run. Built with `Markup` and
/// `ReportPage`'s stylesheet, like the per-locale page: no scripts, nothing fetched, well-formed XHTML.
public enum OverviewPage {
    /// The file every locale's page is written to, beside the overview: `tr-TR.html`.
    public static func fileName(of locale: String) -> String { "\(locale).html" }

    /// The overview's own file name in the directory.
    public static let indexName = "index.html"

    /// The page for `locales` (and the `unpromoted` locales, listed without a page), as of `now`, read
    /// from `repositoryPath` at the state commit `state`. A locale in `unreadable` (its metrics could
    /// not be read; the value says why, as the command line words it) has no page to link to.
    public static func render(
        _ locales: [LocaleGlance], unpromoted: [String], unreadable: [String: String] = [:],
        experiments: [Experiment] = [], now: Timestamp, repositoryPath: String, state: String?
    ) -> String {
        let head = Markup.element(
            "head", .empty("meta", ["charset": "utf-8"]),
            .empty("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"]),
            .element("title", "rollout report: every locale"),
            .element("style", .trusted(ReportPage.stylesheet)))
        let staged = locales.filter { $0.staged != nil }.count
        let unhealthy = locales.filter { $0.standing == .unhealthy }.count
        let held = locales.filter { !$0.holds.isEmpty }.count
        let header = Markup.element(
            "header", .element("h1", "Every locale"),
            .element("p", ["class": "meta"], "Generated \(now) from \(repositoryPath), state \(state ?? "-")."),
            .newline,
            .element(
                "p", ["class": "verdict"],
                "\(locales.count) locale(s) with a plan: \(staged) staged, \(unhealthy) unhealthy, \(held) held."))
        var parts = [scrollingTable(locales, linked: { unreadable[$0] == nil }, now: now)]
        for (locale, why) in unreadable.sorted(by: { $0.key < $1.key }) {
            parts.append(
                .element(
                    "p", ["class": "blocked"], "\(locale): health could not be evaluated, so it has no page: \(why)"))
        }
        if !unpromoted.isEmpty {
            parts.append(
                .element(
                    "p", ["class": "note", "id": "unpromoted"],
                    "Packs but nothing promoted: \(unpromoted.joined(separator: ", "))."))
        }
        var sections = [
            Markup.element("section", ["id": "locales"], .element("h2", "Locales"), .newline, .lines(parts))
        ]
        if !experiments.isEmpty { sections.append(experimentsSection(experiments)) }
        let footer = Markup.element(
            "footer", "rollout report of every locale · no scripts, no network: each locale links to its own page.")
        let html = Markup.element(
            "html", ["xmlns": "http://www.w3.org/1999/xhtml", "lang": "en"], .newline, .lines([head]),
            .element("body", .newline, .lines([header] + sections + [footer])))
        return Markup.document(html).xml
    }

    /// An experiment as the overview lists it: its page beside the overview, or why it has none.
    public struct Experiment: Sendable {
        let line: ExperimentLine
        /// Why it has no page (its metrics could not be read); nil when its page was written.
        let unreadable: String?

        public init(record: ExperimentRecord, unreadable: String?) {
            line = ExperimentLine(record)
            self.unreadable = unreadable
        }
    }

    /// Every experiment, each linking to its page.
    static func experimentsSection(_ experiments: [Experiment]) -> Markup {
        let items = experiments.map { experiment in
            let line = experiment.line
            let name = ReportPage.unbroken(line.name)
            guard let why = experiment.unreadable else {
                return Markup.element(
                    "li", ["class": "experiment"],
                    "\(Markup.element("a", ["href": ExperimentPage.fileName(of: line.name)], name)) on \(line.locale): \(line.variants); \(line.status)"
                )
            }
            return Markup.element(
                "li", ["class": "experiment blocked"],
                "\(name) on \(line.locale): could not be analyzed, so it has no page: \(why)")
        }
        return .element(
            "section", ["id": "experiments"], .element("h2", "Experiments"),
            .element("ul", ["class": "experiments"], .newline, .lines(items)))
    }

    /// One row per locale, its name linking to its page; a row is marked unhealthy or held as the
    /// per-locale page's segment rows are.
    static func scrollingTable(_ locales: [LocaleGlance], linked: (String) -> Bool, now: Timestamp) -> Markup {
        let headings = [
            "Locale", "Baseline", "Staged", "Health", "Held", "Blocked", "Newest metrics", "Last change",
        ]
        let rows = locales.map { glance -> Markup in
            let plan = glance.plan
            let holds = glance.holds.map(\.label).joined(separator: "; ")
            let last = plan.lastChange.map { "\($0.time) \($0.action) by \($0.actor)" } ?? "-"
            let cells = [
                glance.baselineLabel, glance.stagedLabel, glance.standingLabel,
                holds.isEmpty ? "-" : holds,
                plan.blocked.isEmpty ? "-" : plan.blocked.map { "@\($0)" }.joined(separator: ", "),
                glance.metricsLabel(now: now), last,
            ]
            let marked = !glance.holds.isEmpty ? "held" : glance.standing.rawValue
            let name = ReportPage.unbroken(glance.locale)
            let link = Markup.element(
                "td", ["data-label": headings[0]],
                linked(glance.locale) ? .element("a", ["href": fileName(of: glance.locale)], name) : name)
            return Markup.element(
                "tr", ["class": "locale verdict-\(marked)"],
                link, ReportPage.labelled(cells, Array(headings.dropFirst())))
        }
        return ReportPage.scrolling(
            .element(
                "table", ["class": "overview cards"],
                .element("thead", .element("tr", Markup(headings.map { .element("th", Markup($0)) }))),
                .element("tbody", .newline, .lines(rows))))
    }
}
