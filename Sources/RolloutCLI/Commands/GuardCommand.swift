import RolloutIngest
import RolloutModel
import RolloutStore

/// `rollout guard`: the control loop for cron or CI (docs/health.md).
enum GuardCommand {
    static let spec = CommandSpec(
        path: ["guard"], usage: "guard [--auto-revert]",
        summary: "check every staged rollout's health, advance scheduled ramps that are due and healthy, revert the unhealthy with --auto-revert",
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
            try repository.catchUp()
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
                if report.verdict != .unhealthy, let ramp = plan.ramp {
                    let now = try context.now()
                    if ramp.paused {
                        action = "ramp paused"
                    } else if ramp.due(at: now) {
                        // The step must have been measured: metrics dated on or after the day it began.
                        let fresh = (try HealthCheck.newestDay(of: PackID(locale: locale, contentVersion: candidate.contentVersion), snapshot: snapshot))
                            .map { Int64($0) * 86_400 >= ramp.since.seconds - ramp.since.seconds % 86_400 } ?? false
                        if report.verdict == .healthy && !fresh {
                            action = "ramp held: no metrics since this step began"
                        } else if report.verdict == .healthy {
                            let applied = try PlanOperations.advanceRamp(
                                locale: locale, in: repository, actor: try context.actor(invocation, repository: repository), time: { now }
                            ) { snapshot, plan in try HealthCheck.evaluate(plan, snapshot: snapshot)?.verdict == .healthy }
                            action = applied.result.map { "ramp advanced to \($0.after.rules.first?.share.description ?? "100%, completed")" } ?? "ramp not advanced"
                        } else {
                            action = "ramp held: not enough data yet"
                        }
                    } else if let next = ramp.next {
                        action += "; ramp to \(next) after \(Timestamp(seconds: ramp.since.seconds + ramp.every))"
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

enum PauseCommands {
    static func spec(_ paused: Bool) -> CommandSpec {
        CommandSpec(
            path: [paused ? "pause" : "resume"], usage: "\(paused ? "pause" : "resume") LOCALE [--reason TEXT]",
            summary: paused ? "hold a scheduled ramp where it is" : "let a held ramp go on (its current step lasts its full time again)",
            discussion: "", options: [.value("reason", "TEXT", "why (recorded)")], arguments: .exactly("LOCALE"),
            run: { invocation, context in
                let locale = try PlanCommands.parseLocale(invocation.positionals[0])
                let repository = try context.repository(invocation)
                let now = try context.now()
                let applied = try PlanOperations.setPaused(
                    paused, locale: locale, reason: invocation.value("reason"), in: repository,
                    actor: try context.actor(invocation, repository: repository), time: { now })
                let text = applied.commit == nil ? "The ramp of \(locale) is already \(paused ? "paused" : "running").\n"
                    : "The ramp of \(locale) is \(paused ? "paused" : "running again").\n"
                return CommandOutput(json: ["locale": .string(locale), "changed": .bool(applied.commit != nil), "plan": applied.result.jsonValue], text: text)
            })
    }
}
