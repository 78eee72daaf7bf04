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

    /// Every plan in force at some moment from `start` up to (not including) `end`, seconds since
    /// the epoch, as its index: 0 is `initial`, `i` the plan of `changes[i - 1]`. Plans compared by
    /// index cost nothing, and what a plan gives a cell is worked out once per plan (HealthCheck).
    public func plans(from start: Int64, to end: Int64) -> [Int] {
        var inForce = 0
        var result: [Int] = []
        for (index, change) in changes.enumerated() {
            if change.time <= start {
                inForce = index + 1
            } else if change.time < end {
                result.append(inForce)
                inForce = index + 1
            }
        }
        return result + [inForce]
    }

    /// The plan `plans(from:to:)` names `index`.
    public func plan(_ index: Int) -> Plan { index == 0 ? initial : changes[index - 1].plan }
}
