import RolloutIngest
import RolloutModel
import RolloutStore

enum HealthCommand {
    static let spec = CommandSpec(
        path: ["health"], usage: "health LOCALE",
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
        options: [], arguments: .exactly("LOCALE"),
        run: { invocation, context in
            let locale = try PlanCommands.parseLocale(invocation.positionals[0])
            let snapshot = try context.repository(invocation).snapshot()
            guard let plan = try snapshot.plan(locale), let candidate = plan.candidate, let baseline = plan.baseline
            else {
                throw RolloutError.missing(
                    "\(locale) has nothing staged against a baseline: health compares a staged pack with its baseline. Stage one with rollout promote \(locale)@N --to 5%, or see rollout status \(locale)"
                )
            }
            let report = try HealthCheck.evaluate(
                locale: locale, candidate: candidate.contentVersion, baseline: baseline.contentVersion,
                snapshot: snapshot)
            var table = Table(
                "SEGMENT", "METRIC", "CANDIDATE", "BASELINE", "DIFFERENCE", "BOUND", "TOLERANCE", "VERDICT")
            func pct(_ v: Double?) -> String { v.map { String(format: "%.3f%%", $0 * 100) } ?? "-" }
            for check in report.checks {
                table.add(
                    check.segment, check.kind.rawValue,
                    "\(check.candidate.events)/\(check.candidate.total) \(pct(check.candidate.rate))",
                    "\(check.baseline.events)/\(check.baseline.total) \(pct(check.baseline.rate))",
                    pct(check.difference), check.lower.map { ">= " + pct($0) } ?? "-", pct(check.tolerance),
                    check.verdict.rawValue)
            }
            let style = context.style(invocation)
            var text =
                "\(locale)@\(candidate.contentVersion) against \(locale)@\(baseline.contentVersion): \(report.verdict.rawValue)\n"
            text +=
                report.checks.isEmpty
                ? "No metrics for the staged pack yet; ingest some with rollout metrics ingest.\n" : table.render(style)
            let json: JSONValue = [
                "locale": .string(locale), "candidate": .string("\(locale)@\(candidate.contentVersion)"),
                "baseline": .string("\(locale)@\(baseline.contentVersion)"),
                "verdict": .string(report.verdict.rawValue),
                "alphaPerCheck": .number(JSONNumber(report.alphaPerCheck)),
                "checks": .array(
                    report.checks.map { check in
                        [
                            "segment": .string(check.segment), "metric": .string(check.kind.rawValue),
                            "candidate": [.integer(check.candidate.events), .integer(check.candidate.total)],
                            "baseline": [.integer(check.baseline.events), .integer(check.baseline.total)],
                            "difference": check.difference.map { .number(JSONNumber($0)) } ?? .null,
                            "lowerBound": check.lower.map { .number(JSONNumber($0)) } ?? .null,
                            "upperBound": check.upper.map { .number(JSONNumber($0)) } ?? .null,
                            "tolerance": .number(JSONNumber(check.tolerance)),
                            "verdict": .string(check.verdict.rawValue),
                        ]
                    }),
            ]
            return CommandOutput(json: json, text: text, exitCode: report.verdict == .unhealthy ? 1 : 0)
        })
}
