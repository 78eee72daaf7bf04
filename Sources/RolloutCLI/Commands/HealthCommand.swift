import RolloutIngest
import RolloutModel
import RolloutStore

enum HealthCommand {
    static let spec = CommandSpec(
        path: ["health"],
        summary:
            "healthy, unhealthy or insufficient-data: the staged pack against its baseline, per segment and metric",
        discussion: """
            Compares the staged pack's crash and fallback rates with the baseline's, in each segment
            (region and app-version family) over the dates where both have data, with an anytime-valid
            confidence sequence (safe to check every hour) and the confidence of policy gates split over
            every segment and metric. Unhealthy when a rate is credibly worse than the gate's tolerance
            (exit 1); insufficient-data when no segment has the gate's minimum samples in both arms.
            See docs/health.md.
            """,
        options: NoOptions.self, arguments: .exactly("LOCALE"),
        effects: [.readsRepository, .checks],
        run: { invocation, context in
            let locale = try LocaleTag.canonical(invocation.positionals[0])
            let repository = try context.repository(invocation)
            let snapshot = try repository.snapshot()
            // As promote and guard judge it: segments a scoped revert took the pack back from are left out.
            let plan = try snapshot.plan(locale)
            if let staged = plan?.candidate, plan?.baseline == nil {
                throw RolloutError.missing(
                    "\(locale)@\(staged.contentVersion) is staged with no baseline to compare it with: health compares a staged pack with the baseline of its locale. Make one with rollout promote \(locale)@N --to 100%, or see rollout status \(locale)"
                )
            }
            guard let plan, let candidate = plan.candidate, let baseline = plan.baseline,
                let report = try HealthCheck.evaluate(plan, snapshot: snapshot, repository: repository)
            else {
                throw RolloutError.missing(
                    "\(locale) has nothing staged against a baseline: health compares a staged pack with its baseline. Stage one with rollout promote \(locale)@N --to 5%, or see rollout status \(locale)"
                )
            }
            let style = context.style(invocation)
            var text =
                "\(locale)@\(candidate.contentVersion) against \(locale)@\(baseline.contentVersion): \(report.verdict.rawValue)\n"
            if report.checks.isEmpty {
                text += try noChecks(
                    locale: locale, candidate: candidate.contentVersion, baseline: baseline.contentVersion,
                    snapshot: snapshot)
            } else {
                text += checksTable(report).render(style) + "\n" + segmentsTable(report).render(style)
            }
            for held in report.mismatches { text += style.red("held: ") + HealthText.mismatch(held) + "\n" }
            let json = report.jsonValue(
                locale: locale, candidate: PackID(locale: locale, contentVersion: candidate.contentVersion),
                baseline: PackID(locale: locale, contentVersion: baseline.contentVersion))
            let alarm = report.verdict == .unhealthy || !report.mismatches.isEmpty
            return CommandOutput(json: json, text: text, exitCode: alarm ? 1 : 0)
        })

    /// Why there is no check: the staged pack has no metrics, or it has some but the baseline was not
    /// measured on any of its dates in any of its segments (checks compare only those).
    static func noChecks(locale: String, candidate: Int, baseline: Int, snapshot: Snapshot) throws -> String {
        let staged = PackID(locale: locale, contentVersion: candidate)
        guard let newest = try HealthCheck.newestDay(of: staged, snapshot: snapshot) else {
            return "No metrics for the staged pack yet; ingest some with rollout metrics ingest.\n"
        }
        let date = Timestamp(seconds: Int64(newest) * 86_400).description.prefix(10)
        return "\(staged) has metrics (the newest dated \(date)), but \(locale)@\(baseline), the baseline, has none "
            + "on the same dates in the same segments, and health compares only those; ingest the baseline's counts "
            + "for those dates (rollout metrics show \(locale) lists what is stored).\n"
    }

    /// One row per check: the counts, the difference, its bound and the verdict.
    static func checksTable(_ report: Health.Report) -> Table {
        var table = Table(
            "SEGMENT", "METRIC", "CANDIDATE", "BASELINE", "DIFFERENCE", "BOUND", "TOLERANCE", "VERDICT")
        for check in report.checks {
            table.add(
                check.segment, check.kind.rawValue,
                "\(check.candidate.events)/\(check.candidate.total) \(HealthText.percent(check.candidate.rate))",
                "\(check.baseline.events)/\(check.baseline.total) \(HealthText.percent(check.baseline.rate))",
                HealthText.percent(check.difference), check.lower.map { ">= " + HealthText.percent($0) } ?? "-",
                HealthText.percent(check.tolerance), check.verdict.rawValue)
        }
        return table
    }

    /// One row per segment: its verdict, the sessions and lookups it rests on, its share of sessions
    /// against the plan's, and when a decision is expected at the current traffic.
    static func segmentsTable(_ report: Health.Report) -> Table {
        var table = Table("SEGMENT", "VERDICT", "SESSIONS", "LOOKUPS", "SAMPLE RATIO", "DECIDED")
        for standing in report.standings { table.add(HealthText.cells(standing)) }
        return table
    }
}
