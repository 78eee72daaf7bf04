import Foundation
import RolloutModel
import RolloutReport

/// `rollout report LOCALE --out FILE`: the rollout on one self-contained page (docs/report.md).
enum ReportCommand {
    struct Options: OptionGroup {
        let out = Option<Path>("out", "FILE", "where to write the page (for example report.html)").required()

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
            """,
        options: Options.self,
        arguments: .exactly("LOCALE"),
        effects: [.readsRepository, .writesFiles, .checks],
        run: { invocation, context in
            let locale = try LocaleTag.canonical(invocation.positionals[0])
            guard let out = try invocation.value(Options.declared.out)?.text else {
                throw RolloutError.usage("rollout report needs --out FILE, for example --out report.html")
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
}
