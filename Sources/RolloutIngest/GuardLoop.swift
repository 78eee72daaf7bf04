import RolloutModel
import RolloutStore

/// `rollout guard`'s control loop (docs/health.md): each staged locale on its own. A locale that
/// cannot be evaluated or acted on (damaged or out-of-range metrics, a damaged plan, a revert that
/// failed) is reported with its error and makes the run fail, but never keeps the other locales
/// from being reverted or advanced.
public enum GuardLoop {
    public struct Row: Sendable {
        public let locale: String
        /// The staged pack, when the plan could be read.
        public var candidate: PackID?
        /// healthy, insufficient-data, unhealthy, or error.
        public var verdict: String
        public var action: String
        public var rollback: String?
        /// Why the locale could not be guarded (verdict "error").
        public var error: String?
        public var unhealthyLeft = false

        public var jsonValue: JSONValue {
            [
                "locale": .string(locale), "candidate": candidate.map { .string($0.description) } ?? .null,
                "verdict": .string(verdict), "action": .string(action), "rollback": rollback.map { .string($0) } ?? .null,
                "error": error.map { .string($0) } ?? .null,
            ]
        }
    }

    public struct Outcome: Sendable {
        public var rows: [Row] = []
        public var unhealthyLeft: Bool { rows.contains { $0.unhealthyLeft } }
        public var failed: [String] { rows.filter { $0.error != nil }.map(\.locale) }
        /// 1 when an unhealthy rollout is left in place or a locale could not be guarded.
        public var exitCode: Int32 { unhealthyLeft || !failed.isEmpty ? 1 : 0 }
    }

    /// Guards every staged locale of `repository`. `actor` is asked for only when guard acts; a
    /// usage error from it (no actor configured) stops the run, as it would stop any change.
    public static func run(_ repository: PackRepository, autoRevert: Bool, actor: () throws -> Actor, now: Timestamp) throws -> Outcome {
        try repository.catchUp()
        let snapshot = try repository.snapshot()
        var outcome = Outcome()
        for locale in try snapshot.plannedLocales() {
            do {
                if let row = try guardLocale(locale, snapshot: snapshot, repository: repository, autoRevert: autoRevert, actor: actor, now: now) {
                    outcome.rows.append(row)
                }
            } catch RolloutError.usage(let message) {
                throw RolloutError.usage(message)
            } catch {
                let message = (error as? RolloutError)?.message ?? "\(error)"
                let candidate = (try? snapshot.plan(locale))??.candidate.map { PackID(locale: locale, contentVersion: $0.contentVersion) }
                outcome.rows.append(Row(locale: locale, candidate: candidate, verdict: "error", action: "not guarded", error: message))
            }
        }
        return outcome
    }

    static func guardLocale(
        _ locale: String, snapshot: Snapshot, repository: PackRepository, autoRevert: Bool, actor: () throws -> Actor, now: Timestamp
    ) throws -> Row? {
        guard let plan = try snapshot.plan(locale), let candidate = plan.candidate, let report = try HealthCheck.evaluate(plan, snapshot: snapshot)
        else { return nil }
        let staged = PackID(locale: locale, contentVersion: candidate.contentVersion)
        var row = Row(locale: locale, candidate: staged, verdict: report.verdict.rawValue, action: report.verdict == .insufficientData ? "hold: not enough data yet" : "none")
        if report.verdict == .unhealthy {
            if autoRevert {
                let worst = report.checks.first { $0.verdict == .unhealthy }.map { "\($0.segment) \($0.kind.rawValue)" } ?? "health"
                let request = RevertRequest(locale: locale, segment: nil, target: .lastKnownGood, reason: "guard: \(staged) unhealthy (\(worst))", block: true)
                let applied = try RevertOperations.revert(
                    request, in: repository, evidence: try HealthCheck.evidence(report, locale: locale, snapshot: snapshot), actor: try actor(), time: { now })
                row.action = applied.result.manifest.map { "reverted: rollback \($0.id)" } ?? "already reverted"
                row.rollback = applied.result.manifest?.id
            } else {
                row.action = "unhealthy: run rollout revert \(locale), or guard --auto-revert"
                row.unhealthyLeft = true
            }
        }
        if report.verdict != .unhealthy, let ramp = plan.ramp {
            if ramp.paused {
                row.action = "ramp paused"
            } else if ramp.due(at: now) {
                // The step must have been measured: metrics dated on or after the day it began.
                let fresh = (try HealthCheck.newestDay(of: staged, snapshot: snapshot)).map { Int64($0) * 86_400 >= ramp.since.seconds - ramp.since.seconds % 86_400 } ?? false
                if report.verdict == .healthy && !fresh {
                    row.action = "ramp held: no metrics since this step began"
                } else if report.verdict == .healthy {
                    let applied = try PlanOperations.advanceRamp(locale: locale, in: repository, actor: try actor(), time: { now }) { snapshot, plan in
                        try HealthCheck.evaluate(plan, snapshot: snapshot)?.verdict == .healthy
                    }
                    row.action = applied.result.map { "ramp advanced to \($0.after.rules.first?.share.description ?? "100%, completed")" } ?? "ramp not advanced"
                } else {
                    row.action = "ramp held: not enough data yet"
                }
            } else if let next = ramp.next {
                row.action += "; ramp to \(next) after \(Timestamp(seconds: ramp.since.seconds + ramp.every))"
            }
        }
        return row
    }
}
