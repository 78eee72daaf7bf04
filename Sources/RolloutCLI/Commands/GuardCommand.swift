import RolloutIngest
import RolloutModel

/// `rollout guard`: the control loop for cron or CI (docs/health.md). The loop and its decisions are
/// `GuardLoop` (RolloutIngest) and `Guard` (RolloutModel); this is the command line around them,
/// and the one place their decisions are worded.
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
            First it applies each scheduled change that is due (promote --at), as promote would, health
            gate included; one that is refused stays pending and makes the run exit 1. Then, for each
            locale with a pack staged against a baseline: healthy and insufficient-data are left
            alone (guard never acts on insufficient data); unhealthy is reported, and with --auto-revert
            reverted to the last known good pack with the health figures and metrics sources attached to
            the rollback manifest as evidence. A locale that cannot be evaluated (damaged or out-of-range
            metrics, for example) is reported with verdict error and its message; the others are still
            guarded. Exit 1 when an unhealthy rollout is left in place, a locale could not be guarded or a due
            scheduled change was refused.
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
            Notifier.announce(
                outcome, repository: repository,
                actor: (try? context.actor(invocation, repository: repository))?.description ?? "rollout guard",
                now: try context.now(), context: context)
            return render(outcome, style: context.style(invocation))
        })

    static func render(_ outcome: GuardLoop.Outcome, style: Style) -> CommandOutput {
        var table = Table("LOCALE", "STAGED", "VERDICT", "ACTION")
        for row in outcome.rows {
            table.add(
                row.locale, row.candidate?.description ?? "-", row.verdict, column(row.action, locale: row.locale))
        }
        var text =
            outcome.rows.isEmpty ? "Nothing is staged against a baseline: nothing to guard.\n" : table.render(style)
        for row in outcome.rows {
            guard let error = row.error else { continue }
            if case .scheduleRefused(let id, let change, let due) = row.action {
                text +=
                    "\(row.locale)'s scheduled change \(id) (\(change), due \(due)) was refused and stays pending: \(error). Guard tries it again at its next run; take it back with rollout cancel \(row.locale) \(id) --reason TEXT\n"
            } else {
                text += "\(row.locale) was not guarded: \(error)\n"
            }
        }
        if let (locale, change) = outcome.nextScheduled {
            text += "Next scheduled change: \(locale) \(change.id) at \(change.at), \(change.summary).\n"
        }
        return CommandOutput(json: json(outcome), text: text, exitCode: outcome.exitCode)
    }

    /// `rollout guard --json` (docs/health.md).
    static func json(_ outcome: GuardLoop.Outcome) -> JSONValue {
        let rows = outcome.rows.map { row -> JSONValue in
            [
                "locale": .string(row.locale), "candidate": row.candidate.map { .string($0.description) } ?? .null,
                "verdict": .string(row.verdict), "action": .string(column(row.action, locale: row.locale)),
                "rollback": row.rollback.map { .string($0) } ?? .null,
                "error": row.error.map { .string($0) } ?? .null, "held": .bool(row.heldLeft),
            ]
        }
        return [
            "locales": .array(rows), "unhealthyLeft": .bool(outcome.unhealthyLeft), "heldLeft": .bool(outcome.heldLeft),
            "failed": .array(outcome.failed.map { .string($0) }),
            "nextScheduled": outcome.nextScheduled.map { next in
                var object = next.change.jsonValue.objectValue ?? [:]
                object["locale"] = .string(next.locale)
                return .object(object)
            } ?? .null,
        ]
    }

    /// The ACTION column (docs/health.md): what guard did for `locale`, with the next step in the
    /// command line's words where a person has one to take.
    static func column(_ action: GuardLoop.Row.Action, locale: String) -> String {
        switch action {
        case .decided(let decision): return column(decision, locale: locale)
        case .reverted(let rollback): return rollback.map { "reverted: rollback \($0)" } ?? "already reverted"
        case .rampAdvanced(let share): return share.map { "ramp advanced to \($0)" } ?? "ramp not advanced"
        case .notGuarded: return "not guarded"
        case .scheduleApplied(let id, let change, let effect):
            switch effect {
            case .staged: return "applied scheduled change \(id): \(change)"
            case .completed: return "applied scheduled change \(id): \(change), now the baseline"
            case .unchanged: return "dropped scheduled change \(id): it would change nothing"
            case nil: return "scheduled change \(id) was cancelled meanwhile"
            }
        case .scheduleRefused(let id, _, _): return "scheduled change \(id) refused: still pending"
        case .experiment(let name, let verdict):
            return "experiment \(name): \(verdict)"
                + (verdict.hasPrefix("harm on ") ? "; --auto-revert stops it" : "")
                + (verdict == "void" ? "; its exposures do not match the split (rollout experiment show \(name))" : "")
        case .experimentStopped(let name, let rollback):
            return "stopped experiment \(name)" + (rollback.map { ": rollback \($0)" } ?? "")
        }
    }

    /// A decision that changes nothing, worded; empty for `revert` and `advanceRamp`, which
    /// `apply` turns into what the change did, and for `nothingStaged`, which has no row.
    static func column(_ decision: Guard.Action, locale: String) -> String {
        func waiting(_ step: Guard.RampStep?) -> String { step.map { "; ramp to \($0.share) after \($0.after)" } ?? "" }
        switch decision {
        case .nothingStaged, .revert, .advanceRamp: return ""
        case .leave(let next): return "none" + waiting(next)
        case .holdForData(let next): return "hold: not enough data yet" + waiting(next)
        case .reportUnhealthy: return "unhealthy: run rollout revert \(locale), or guard --auto-revert"
        case .rampPaused: return "ramp paused"
        case .holdForMismatch(let segments):
            return "held: sample ratio mismatch in \(segments.joined(separator: ", ")); see rollout health \(locale)"
        case .holdRampForData(let segments):
            return "ramp held: not enough data yet"
                + (segments.isEmpty ? "" : " in " + segments.joined(separator: ", "))
        case .holdRampForFreshMetrics: return "ramp held: no metrics since this step began"
        }
    }
}
