import RolloutIngest
import RolloutModel

/// `rollout guard`: the control loop for cron or CI (docs/health.md). The loop and its decisions are
/// `GuardLoop` and `Guard` in RolloutIngest; this is the command line around them.
enum GuardCommand {
    struct Options: OptionGroup {
        let autoRevert = Flag("auto-revert", "revert each unhealthy rollout")

        static let declared = Options()
    }

    static let spec = CommandSpec(
        path: ["guard"],
        summary:
            "check every staged rollout's health, advance scheduled ramps that are due and healthy, revert the unhealthy with --auto-revert",
        discussion: """
            For each locale with a pack staged against a baseline: healthy and insufficient-data are left
            alone (guard never acts on insufficient data); unhealthy is reported, and with --auto-revert
            reverted to the last known good pack with the health figures and metrics sources attached to
            the rollback manifest as evidence. A locale that cannot be evaluated (damaged or out-of-range
            metrics, for example) is reported with verdict error and its message; the others are still
            guarded. Exit 1 when an unhealthy rollout is left in place or a locale could not be guarded.
            """,
        options: Options.self,
        arguments: .none,
        effects: [.recordsChange, .checks],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let outcome = try GuardLoop.run(
                repository, autoRevert: invocation.flag(Options.declared.autoRevert),
                actor: { try context.actor(invocation, repository: repository) },
                now: try context.now(), describe: Refusals.message(of:))
            return render(outcome, style: context.style(invocation))
        })

    static func render(_ outcome: GuardLoop.Outcome, style: Style) -> CommandOutput {
        var table = Table("LOCALE", "STAGED", "VERDICT", "ACTION")
        for row in outcome.rows { table.add(row.locale, row.candidate?.description ?? "-", row.verdict, row.action) }
        var text =
            outcome.rows.isEmpty ? "Nothing is staged against a baseline: nothing to guard.\n" : table.render(style)
        for row in outcome.rows { if let error = row.error { text += "\(row.locale) was not guarded: \(error)\n" } }
        return CommandOutput(json: outcome.jsonValue, text: text, exitCode: outcome.exitCode)
    }
}
