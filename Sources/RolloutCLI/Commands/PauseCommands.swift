import RolloutModel
import RolloutStore

/// `rollout pause` and `rollout resume`: hold a scheduled ramp by hand, or let it go on
/// (docs/health.md, "Scheduled ramps"). The change is `PlanOperations.setPaused`.
enum PauseCommands {
    struct Options: OptionGroup {
        let reason = Option.reason("why (recorded)")

        static let declared = Options()
    }

    static func spec(_ paused: Bool) -> CommandSpec {
        CommandSpec(
            path: [paused ? "pause" : "resume"],
            summary: paused
                ? "hold a scheduled ramp where it is"
                : "let a held ramp go on (its current step lasts its full time again)",
            discussion: "", options: Options.self, arguments: .exactly("LOCALE"),
            effects: [.recordsChange, .checks],
            run: { invocation, context in
                let locale = try LocaleTag.canonical(invocation.positionals[0])
                let repository = try context.repository(invocation)
                let now = try context.now()
                let applied = try PlanOperations.setPaused(
                    paused, locale: locale, reason: invocation.value(Options.declared.reason), in: repository,
                    actor: try context.actor(invocation, repository: repository), time: { now })
                return render(applied, paused: paused, locale: locale)
            })
    }

    static func render(_ applied: PackRepository.Applied<Plan>, paused: Bool, locale: String) -> CommandOutput {
        let changed = applied.commit != nil
        let text =
            changed
            ? "The ramp of \(locale) is \(paused ? "paused" : "running again").\n"
            : "The ramp of \(locale) is already \(paused ? "paused" : "running").\n"
        return CommandOutput(
            json: ["locale": .string(locale), "changed": .bool(changed), "plan": applied.result.jsonValue], text: text)
    }
}
