import RolloutIngest
import RolloutModel
import RolloutStore

/// Scheduled changes (docs/targeting.md, "Scheduled changes"): `promote --at` records a pending
/// change that `rollout guard` applies when it is due, `rollout cancel` takes one back, and
/// `status LOCALE` lists them. The changes are `ScheduleOperations` (RolloutStore).
enum ScheduleCommands {
    /// `promote PACK ... --at TIME`: checked now as promote would run now, recorded as pending.
    static func promote(
        _ request: PromoteRequest, at: Timestamp, invocation: Invocation, context: CommandContext
    ) throws -> CommandOutput {
        let options = PlanCommands.PromoteOptions.declared
        let given = invocation.text(options.at) ?? at.description
        if invocation.flag(options.force) {
            throw RolloutError.usage(
                "--force cannot be scheduled with --at: whether to widen against health is decided when the change runs. Schedule without it, or run promote --force when it is due"
            )
        }
        let now = try context.now()
        guard at > now else {
            throw RolloutError.usage(
                "--at \(given) is not in the future (\(at), and it is \(now) now): give a time to come")
        }
        let repository = try context.repository(invocation)
        let dryRun = invocation.flag(options.dryRun)
        repository.dryRun = dryRun
        let applied = try ScheduleOperations.schedule(
            request, at: at, accepting: try invocation.list(options.acceptInsufficient), in: repository,
            actor: try context.actor(invocation, repository: repository), time: { now },
            health: { snapshot, plan in try HealthCheck.evaluate(plan, snapshot: snapshot, repository: repository) })
        let outcome = applied.result
        let change = outcome.change
        let style = context.style(invocation)
        var text =
            dryRun
            ? "Dry run: \(change.summary) would be scheduled for \(at) (\(given)). Nothing was written.\n"
            : "\(style.green("scheduled")) change \(change.id) of \(request.pack.locale): \(change.summary) at \(at)"
                + (applied.commit.map { " (commit \($0.short))" } ?? "")
                + ".\nrollout guard applies it at its first run from then on, checked again as promote would.\n"
        let changes = PlanCommands.describeChanges(outcome.preview.before, outcome.preview.after)
        var table = Table("SEGMENT", "BEFORE", "AFTER")
        for change in changes { table.add(change.segment, change.before, change.after) }
        text += "If it ran now it would change:\n" + table.render(style)
        let json: JSONValue = [
            "action": .string(ChangeAction.schedule.rawValue), "dryRun": .bool(dryRun),
            "pack": .string(request.pack.description), "commit": applied.commit.map { .string($0.hex) } ?? .null,
            "pending": change.jsonValue,
            "changes": .array(
                changes.map {
                    ["segment": .string($0.segment), "before": .string($0.before), "after": .string($0.after)]
                }),
        ]
        return CommandOutput(json: json, text: text)
    }

    struct CancelOptions: OptionGroup {
        let reason = Option.reason("why the change is taken back (recorded)").required()
        let dryRun = Flag("dry-run", "print what would be cancelled and write nothing")

        static let declared = CancelOptions()
    }

    static let cancel = CommandSpec(
        path: ["cancel"],
        summary: "take back a scheduled change (promote --at) before guard applies it; without ID, every one of LOCALE",
        discussion: """
            ID is the number promote --at gave the change (rollout status LOCALE lists them). The cancel
            is recorded in one commit with its --reason. Refused (exit 1) when LOCALE has no pending
            change, or none with that number.
            """,
        options: CancelOptions.self,
        arguments: CommandSpec.Arguments(names: ["LOCALE", "ID"], minimum: 1, maximum: 2),
        effects: [.recordsChange, .checks],
        run: { invocation, context in
            let options = CancelOptions.declared
            let locale = try LocaleTag.canonical(invocation.positionals[0])
            let id = try invocation.positionals.dropFirst().first.map { text -> Int in
                guard let number = Int(text), number > 0 else {
                    throw RolloutError.usage(
                        "ID \"\(InputLimits.echo(text))\" is not the number of a scheduled change, such as 1")
                }
                return number
            }
            let repository = try context.repository(invocation)
            let now = try context.now()
            let dryRun = invocation.flag(options.dryRun)
            repository.dryRun = dryRun
            let applied = try ScheduleOperations.cancel(
                locale: locale, id: id, reason: try invocation.required(options.reason), in: repository,
                actor: try context.actor(invocation, repository: repository), time: { now })
            let listed = applied.result.map { "  \($0.id)  \($0.summary) at \($0.at)\n" }.joined()
            let text =
                dryRun
                ? "Dry run: would cancel, of \(locale):\n\(listed)Nothing was written.\n"
                : "\(context.style(invocation).green("cancelled")), of \(locale)"
                    + (applied.commit.map { " (commit \($0.short))" } ?? "") + ":\n\(listed)"
            return CommandOutput(
                json: [
                    "locale": .string(locale), "dryRun": .bool(dryRun),
                    "commit": applied.commit.map { .string($0.hex) } ?? .null,
                    "cancelled": .array(applied.result.map(\.jsonValue)),
                ],
                text: text)
        })

    /// The pending changes `status LOCALE` lists, or "" when there are none.
    static func describe(_ schedule: Schedule, now: Timestamp) -> String {
        guard !schedule.pending.isEmpty else { return "" }
        var text = "  scheduled       \(schedule.pending.count) pending (rollout guard applies each when due)\n"
        for change in schedule.pending {
            text +=
                "    \(line(change, now: now))  by \(change.scheduledBy.oneLine) at \(change.scheduledAt)"
                + (change.reason.map { ": \($0.oneLine)" } ?? "") + "\n"
        }
        return text
    }

    /// One pending change as `status` lists it, for one locale or every one: number, when (and
    /// whether it is past due), what.
    static func line(_ change: Schedule.Pending, now: Timestamp) -> String {
        "\(change.id)  \(change.at)\(change.isDue(at: now) ? " (due)" : "")  \(change.summary)"
    }
}
