import RolloutIngest
import RolloutModel
import RolloutStore

/// `rollout guard`: the control loop for cron or CI (docs/health.md).
enum GuardCommand {
    static let spec = CommandSpec(
        path: ["guard"], usage: "guard [--auto-revert]",
        summary: "check every staged rollout's health; with --auto-revert, revert the unhealthy ones",
        discussion: """
            For each locale with a pack staged against a baseline: healthy and insufficient-data are left
            alone (guard never acts on insufficient data); unhealthy is reported, and with --auto-revert
            reverted to the last known good pack with the health figures and metrics sources attached to
            the rollback manifest as evidence. Exit 1 when an unhealthy rollout is left in place.
            """,
        options: [.flag("auto-revert", "revert each unhealthy rollout")],
        arguments: .none,
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let snapshot = try repository.snapshot()
            let autoRevert = invocation.flag("auto-revert")
            var table = Table("LOCALE", "STAGED", "VERDICT", "ACTION")
            var results: [JSONValue] = []
            var unhealthyLeft = false
            for locale in try snapshot.plannedLocales() {
                guard let plan = try snapshot.plan(locale), let candidate = plan.candidate, let report = try HealthCheck.evaluate(plan, snapshot: snapshot)
                else { continue }
                var action = report.verdict == .insufficientData ? "hold: not enough data yet" : "none"
                var rollback: JSONValue = .null
                if report.verdict == .unhealthy {
                    if autoRevert {
                        let worst = report.checks.first { $0.verdict == .unhealthy }.map { "\($0.segment) \($0.kind.rawValue)" } ?? "health"
                        let request = RevertRequest(
                            locale: locale, segment: nil, target: .lastKnownGood, reason: "guard: \(locale)@\(candidate.contentVersion) unhealthy (\(worst))", block: true)
                        let now = try context.now()
                        let applied = try RevertOperations.revert(
                            request, in: repository, evidence: try HealthCheck.evidence(report, locale: locale, snapshot: snapshot),
                            actor: try context.actor(invocation, repository: repository), time: { now })
                        action = applied.result.manifest.map { "reverted: rollback \($0.id)" } ?? "already reverted"
                        rollback = applied.result.manifest.map { .string($0.id) } ?? .null
                    } else {
                        action = "unhealthy: run rollout revert \(locale), or guard --auto-revert"
                        unhealthyLeft = true
                    }
                }
                table.add(locale, "\(locale)@\(candidate.contentVersion)", report.verdict.rawValue, action)
                results.append([
                    "locale": .string(locale), "candidate": .string("\(locale)@\(candidate.contentVersion)"),
                    "verdict": .string(report.verdict.rawValue), "action": .string(action), "rollback": rollback,
                ])
            }
            let text = results.isEmpty ? "Nothing is staged against a baseline: nothing to guard.\n" : table.render(context.style(invocation))
            return CommandOutput(json: ["locales": .array(results), "unhealthyLeft": .bool(unhealthyLeft)], text: text, exitCode: unhealthyLeft ? 1 : 0)
        })
}
