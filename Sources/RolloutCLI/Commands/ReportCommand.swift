import Foundation
import RolloutIngest
import RolloutModel
import RolloutReport
import RolloutStore

/// `rollout report LOCALE --out FILE`: the rollout on one self-contained page; `rollout report --all
/// --out DIR`: every locale's page and an overview that links to them (docs/report.md).
enum ReportCommand {
    struct Options: OptionGroup {
        let out = Option<Path>(
            "out", "FILE", "where to write the page (for example report.html); with --all, a directory (reports/)"
        ).required()
        let all = Flag(
            "all",
            "write every locale's and experiment's page into the --out directory, with index.html, one page that links to them"
        )
        let experiment = Option<String>(
            "experiment", "NAME", "write the page of one experiment: its lift over time, exposures and verdict")

        static let declared = Options()
    }

    static let spec = CommandSpec(
        path: ["report"],
        summary:
            "write one self-contained HTML page: timeline, shares, rates with gates and confidence bands, plan, rollbacks",
        discussion: """
            The page has no scripts and loads nothing: open it anywhere, attach it to a ticket, print it.
            Charts are inline SVG: the changes over time, each targeted segment's share of the staged
            pack, the candidate's and the baseline's crash and fallback rates per day, and their
            difference with the confidence band health uses and the gate it is judged against.
            With --all instead of LOCALE, --out names a directory: it gets LOCALE.html for every
            locale with a plan, experiment-NAME.html for every experiment and index.html, every
            locale at a glance as rollout status lists them, each linking to its page.
            With --experiment NAME instead of LOCALE, the page of one experiment: the verdict as
            rollout experiment show words it, the question declared at its start, each treatment's
            cumulative lift over the control with its anytime-valid bound, the exposures per day,
            every metric's comparison, the sample ratio and the guardrails.
            """,
        options: Options.self,
        arguments: .optional("LOCALE"),
        effects: [.readsRepository, .writesFiles, .checks, .checksSignatures],
        run: { invocation, context in
            let all = invocation.flag(Options.declared.all)
            if all && !invocation.positionals.isEmpty {
                throw RolloutError.usage("rollout report takes LOCALE or --all, not both")
            }
            let experiment = try invocation.value(Options.declared.experiment)
            if experiment != nil && (all || !invocation.positionals.isEmpty) {
                throw RolloutError.usage("rollout report takes LOCALE, --all or --experiment NAME, one of them")
            }
            let locale = try invocation.positionals.first.map { try LocaleTag.canonical($0) }
            guard let out = try invocation.value(Options.declared.out)?.text else {
                throw RolloutError.usage("rollout report needs --out FILE, for example --out report.html")
            }
            if let experiment {
                return try writeExperiment(
                    experiment, to: out, repository: context.repository(invocation), context: context)
            }
            guard let locale else {
                guard all else { throw RolloutError.usage("rollout report needs LOCALE, or --all for every locale") }
                return try writeAll(into: out, repository: context.repository(invocation), context: context)
            }
            let repository = try context.repository(invocation)
            let summary = try ReportPage.render(locale: locale, repository: repository, now: try context.now())
            let path = context.absolutePath(out)
            try context.writeFile(out, Array(summary.html.utf8))
            return CommandOutput(
                json: [
                    "path": .string(path), "bytes": .integer(summary.html.utf8.count),
                    "timelineEntries": .integer(summary.timelineEntries), "charts": .integer(summary.charts),
                ],
                text:
                    "Wrote the \(locale) report to \(path) (\(ByteCount.describe(summary.html.utf8.count)), \(summary.charts) chart(s), \(summary.timelineEntries) change(s)).\n"
            )
        })

    /// `report --experiment NAME`: the page of one experiment, written to `out`.
    static func writeExperiment(_ name: String, to out: String, repository: PackRepository, context: CommandContext)
        throws -> CommandOutput
    {
        let now = try context.now()
        let summary = try ExperimentPage.render(
            name: name, snapshot: try repository.snapshot(), repositoryPath: repository.path,
            wording: { ExperimentText.verdict($0, $1, now: now) }, now: now)
        let path = context.absolutePath(out)
        try context.writeFile(out, Array(summary.html.utf8))
        return CommandOutput(
            json: [
                "path": .string(path), "bytes": .integer(summary.html.utf8.count), "experiment": .string(name),
                "locale": .string(summary.locale), "charts": .integer(summary.charts),
                "verdict": .string(summary.verdict),
            ],
            text:
                "Wrote the report of experiment \(name) on \(summary.locale) to \(path) (\(ByteCount.describe(summary.html.utf8.count)), \(summary.charts) chart(s); verdict: \(summary.verdict)).\n"
        )
    }

    /// `report --all`: each planned locale's page, then the overview linking to them, into `directory`
    /// (made if missing). The overview is written last, so its links name pages that exist.
    static func writeAll(into directory: String, repository: PackRepository, context: CommandContext) throws
        -> CommandOutput
    {
        let now = try context.now()
        let snapshot = try repository.snapshot()
        let (locales, unpromoted) = try LocaleGlance.all(in: repository, at: snapshot)
        try LocalFile.makeDirectories(
            context.absolutePath(directory), mode: 0o755, purpose: "create the report directory")
        let written = Set(locales.filter { $0.failure == nil }.map(\.locale))
        let experiments = try writeExperiments(
            into: directory, snapshot: snapshot, repository: repository, localePages: written, context: context)
        var pages: [JSONValue] = []
        var bytes = experiments.bytes
        var unreadable: [String: String] = [:]
        let signers = try SignerLabels(repository: repository, at: snapshot.commit)
        for glance in locales {
            // Its page would stop at the same metrics: the overview says why instead of linking to it.
            if let failure = glance.failure {
                unreadable[glance.locale] = Refusals.message(of: failure)
                continue
            }
            // The overview row judged its health on this snapshot already: the page shows the same.
            let summary = try ReportPage.render(
                locale: glance.locale, repository: repository, snapshot: snapshot, health: .some(glance.health),
                overview: OverviewPage.indexName, experimentPages: experiments.written, signers: signers, now: now)
            let file = directory + "/" + OverviewPage.fileName(of: glance.locale)
            try context.writeFile(file, Array(summary.html.utf8))
            bytes += summary.html.utf8.count
            pages.append([
                "locale": .string(glance.locale), "path": .string(context.absolutePath(file)),
                "bytes": .integer(summary.html.utf8.count), "charts": .integer(summary.charts),
                "timelineEntries": .integer(summary.timelineEntries),
            ])
        }
        let html = OverviewPage.render(
            locales, unpromoted: unpromoted, unreadable: unreadable, experiments: experiments.overview, now: now,
            repositoryPath: repository.path, state: snapshot.commit?.short)
        let index = directory + "/" + OverviewPage.indexName
        try context.writeFile(index, Array(html.utf8))
        bytes += html.utf8.count
        let path = context.absolutePath(index)
        return CommandOutput(
            json: [
                "path": .string(path), "bytes": .integer(html.utf8.count), "pages": .array(pages),
                "experiments": .array(experiments.pages), "unpromoted": .array(unpromoted.map { .string($0) }),
                "unreadable": .object(unreadable.mapValues { .string($0) }),
            ],
            text:
                "Wrote the overview of \(locales.count) locale(s) to \(path) and their reports beside it (\(ByteCount.describe(bytes)) in all).\n"
                + unreadable.sorted(by: { $0.key < $1.key }).map {
                    "\($0.key) has no page: health could not be evaluated: \($0.value)\n"
                }.joined() + experiments.unreadable.map { "experiment \($0.name) has no page: \($0.why)\n" }.joined()
        )
    }

    /// The experiment pages `report --all` wrote, for the overview, the locale pages and --json.
    struct ExperimentPages {
        var pages: [JSONValue] = []
        var written: Set<String> = []
        var overview: [OverviewPage.Experiment] = []
        var unreadable: [(name: String, why: String)] = []
        var bytes = 0
    }

    /// Every experiment's page into `directory`, each linking to its locale's page when that is in
    /// `localePages`. One whose metrics cannot be read gets no page; the overview says why.
    static func writeExperiments(
        into directory: String, snapshot: Snapshot, repository: PackRepository, localePages: Set<String>,
        context: CommandContext
    ) throws -> ExperimentPages {
        var result = ExperimentPages()
        let now = try context.now()
        for name in try snapshot.experimentNames().sorted() {
            guard let record = try snapshot.experiment(name) else { continue }
            let summary: ExperimentPage.Summary
            do {
                summary = try ExperimentPage.render(
                    name: name, snapshot: snapshot, repositoryPath: repository.path,
                    localePage: localePages.contains(record.locale) ? OverviewPage.fileName(of: record.locale) : nil,
                    overview: OverviewPage.indexName, wording: { ExperimentText.verdict($0, $1, now: now) }, now: now)
            } catch let error as RolloutError where error.kind == .badInput {
                // Outcome metrics that cannot be summed stop this page only, as a locale's stop its own.
                result.unreadable.append((name, Refusals.message(of: error)))
                result.overview.append(OverviewPage.Experiment(record: record, unreadable: Refusals.message(of: error)))
                continue
            }
            let file = directory + "/" + ExperimentPage.fileName(of: name)
            try context.writeFile(file, Array(summary.html.utf8))
            result.bytes += summary.html.utf8.count
            result.written.insert(name)
            result.overview.append(OverviewPage.Experiment(record: record, unreadable: nil))
            result.pages.append([
                "experiment": .string(name), "locale": .string(record.locale),
                "path": .string(context.absolutePath(file)), "bytes": .integer(summary.html.utf8.count),
                "charts": .integer(summary.charts), "verdict": .string(summary.verdict),
            ])
        }
        return result
    }
}
