import RolloutModel
import RolloutStore

extension GuardLoop {
    /// Applies every pending change that is due at `now` (`promote --at`; docs/targeting.md,
    /// "Scheduled changes"), oldest first, each through the same promote and health gate as
    /// `rollout promote`, in one commit that also removes it. A refused change stays pending and its
    /// row carries the refusal (the run then fails, so cron notices); a locale's later changes wait
    /// behind it, as they may build on it.
    static func applySchedules(
        _ repository: PackRepository, actor: () throws -> Actor, now: Timestamp, describe: (any Error) -> String
    ) throws -> [Row] {
        let snapshot = try repository.snapshot()
        var rows: [Row] = []
        for locale in try snapshot.scheduledLocales() {
            let due: [Schedule.Pending]
            do {
                due = try snapshot.schedule(locale).due(at: now)
            } catch {
                rows.append(Row(locale: locale, verdict: "error", action: .notGuarded, error: describe(error)))
                continue
            }
            for change in due {
                do {
                    let applied = try ScheduleOperations.apply(
                        change.id, locale: locale, in: repository, actor: try actor(), time: { now }
                    ) { snapshot, plan in
                        try HealthCheck.evaluate(plan, snapshot: snapshot, repository: repository)
                    }
                    var row = Row(
                        locale: locale, candidate: change.pack, verdict: "-",
                        action: .scheduleApplied(
                            id: change.id, change: change.summary, effect: applied.result?.promote.kind))
                    row.commit = applied.commit
                    row.planAfter = applied.result?.promote.after
                    rows.append(row)
                } catch RolloutError.usage(let message) {
                    throw RolloutError.usage(message)
                } catch {
                    rows.append(
                        Row(
                            locale: locale, candidate: change.pack, verdict: "-",
                            action: .scheduleRefused(id: change.id, change: change.summary, due: change.at),
                            error: describe(error)))
                    break
                }
            }
        }
        return rows
    }
}
