import RolloutModel
import RolloutStore

/// A locale's plans over time, read from the audit log: which shares were in force on a given day,
/// for the sample ratio check (docs/health.md, "Sample ratio mismatch").
public struct PlanTimeline: Sendable {
    /// The plan in force before the first change listed.
    let initial: Plan
    /// Each change since then, oldest first: from `time` on, `plan` is in force.
    let changes: [(time: Int64, plan: Plan)]

    public init(initial: Plan, changes: [(time: Int64, plan: Plan)]) {
        self.initial = initial
        self.changes = changes.sorted { $0.time < $1.time }
    }

    /// The timeline of `plan`'s locale from `since` on: `plan` alone when nothing changed since.
    public static func read(_ plan: Plan, since: Timestamp, repository: PackRepository) throws -> PlanTimeline {
        var query = AuditLog.Query()
        query.locale = plan.locale
        query.since = since
        let entries = try AuditLog(repository: repository).query(query).entries.sorted { $0.sequence < $1.sequence }
        let changes = entries.flatMap { entry in
            entry.planChanges.filter { $0.locale == plan.locale }.map { (time: entry.time.seconds, change: $0) }
        }
        guard let first = changes.first else { return PlanTimeline(initial: plan, changes: []) }
        return PlanTimeline(initial: first.change.before, changes: changes.map { ($0.time, $0.change.after) })
    }

    /// Every plan in force at some moment from `start` up to (not including) `end`, seconds since the epoch.
    public func plans(from start: Int64, to end: Int64) -> [Plan] {
        var inForce = initial
        var result: [Plan] = []
        for change in changes {
            if change.time <= start {
                inForce = change.plan
            } else if change.time < end {
                result.append(inForce)
                inForce = change.plan
            }
        }
        return result + [inForce]
    }
}
