import RolloutModel
import RolloutStore

/// `rollout guard`'s control loop (docs/health.md): each staged locale on its own, decided by
/// `Guard.decide` on what this loop reads and carried out by `apply`. A locale that cannot be
/// evaluated or acted on (damaged or out-of-range metrics, a damaged plan, a revert that failed) is
/// reported with its error and makes the run fail, but never keeps the other locales from being
/// reverted or advanced.
public enum GuardLoop {
    public struct Row: Sendable {
        public let locale: String
        /// The staged pack, when the plan could be read.
        public var candidate: PackID?
        /// healthy, insufficient-data, unhealthy, or error.
        public var verdict: String
        /// What guard did for the locale; the command line words it (the ACTION column).
        public var action: Action
        public var rollback: String?
        /// Why the locale could not be guarded (verdict "error").
        public var error: String?
        public var unhealthyLeft = false
        /// The commit of the revert or ramp step guard recorded, and the plan it left: what a
        /// notification names (docs/notifications.md).
        public var commit: ObjectID?
        public var planAfter: Plan?
        /// Held by a sample ratio mismatch: someone has to find why devices do not get the planned share.
        public var heldLeft = false

        /// What guard did for one locale.
        public enum Action: Equatable, Sendable {
            /// A decision that changes nothing (every `Guard.Action` but `revert` and `advanceRamp`).
            case decided(Guard.Action)
            /// Reverted, recording the rollback manifest `rollback`; nil when it was already reverted.
            case reverted(rollback: String?)
            /// The ramp's next step, as the plan's first share after it (nil: health changed on the
            /// tip the commit would land on, and the step was not taken).
            case rampAdvanced(to: String?)
            /// The locale could not be guarded (`error` says why).
            case notGuarded
            /// A pending change that was due (`promote --at`): its number, what it was, and what its
            /// promote did (`unchanged`: it would change nothing and was dropped; nil: someone
            /// cancelled it while guard ran).
            case scheduleApplied(id: Int, change: String, effect: PromoteEffect?)
            /// A due pending change its promote refused (`error` says why): it stays pending.
            case scheduleRefused(id: Int, change: String, due: Timestamp)
        }
    }

    public struct Outcome: Sendable {
        public var rows: [Row] = []
        public var unhealthyLeft: Bool { rows.contains { $0.unhealthyLeft } }
        public var heldLeft: Bool { rows.contains { $0.heldLeft } }
        public var failed: [String] { rows.filter { $0.error != nil }.map(\.locale) }
        /// 1 when an unhealthy rollout is left in place, one is held by a sample ratio mismatch, or a
        /// locale could not be guarded.
        public var exitCode: Int32 { unhealthyLeft || heldLeft || !failed.isEmpty ? 1 : 0 }
    }

    /// Guards every staged locale of `repository`. `actor` is asked for only when guard acts; a
    /// usage error from it (no actor configured) stops the run, as it would stop any change.
    /// `describe` words why a locale could not be guarded (a refusal is worded by the command line).
    public static func run(
        _ repository: PackRepository, autoRevert: Bool, actor: () throws -> Actor, now: Timestamp,
        describe: (any Error) -> String
    ) throws -> Outcome {
        try repository.catchUp()
        var outcome = Outcome()
        // Due changes first, so the locales are then guarded as they now stand.
        outcome.rows = try applySchedules(repository, actor: actor, now: now, describe: describe)
        let snapshot = try repository.snapshot()
        for locale in try snapshot.plannedLocales() {
            do {
                if let row = try guardLocale(
                    locale, snapshot: snapshot, repository: repository, autoRevert: autoRevert, actor: actor, now: now)
                {
                    outcome.rows.append(row)
                }
            } catch RolloutError.usage(let message) {
                throw RolloutError.usage(message)
            } catch {
                let message = describe(error)
                let candidate = (try? snapshot.plan(locale))??.candidate.map {
                    PackID(locale: locale, contentVersion: $0.contentVersion)
                }
                outcome.rows.append(
                    Row(locale: locale, candidate: candidate, verdict: "error", action: .notGuarded, error: message))
            }
        }
        return outcome
    }

    static func guardLocale(
        _ locale: String, snapshot: Snapshot, repository: PackRepository, autoRevert: Bool, actor: () throws -> Actor,
        now: Timestamp
    ) throws -> Row? {
        guard let plan = try snapshot.plan(locale) else { return nil }
        let report = try HealthCheck.evaluate(plan, snapshot: snapshot, repository: repository)
        let action = try Guard.decide(plan, health: report, autoRevert: autoRevert, now: now) {
            try HealthCheck.newestDay(of: $0, snapshot: snapshot)
        }
        guard action != .nothingStaged, let candidate = plan.candidate, let report else { return nil }
        let staged = PackID(locale: locale, contentVersion: candidate.contentVersion)
        return try apply(
            action, to: staged, plan: plan, report: report, snapshot: snapshot, repository: repository, actor: actor,
            now: now)
    }

    /// Carries out `action` (decided on `report` for the staged pack `staged`) and says what happened,
    /// as guard's row for the locale. Only `revert` and `advanceRamp` change the repository, each in
    /// one recorded commit; `actor` is asked for only then.
    public static func apply(
        _ action: Guard.Action, to staged: PackID, plan: Plan, report: Health.Report, snapshot: Snapshot,
        repository: PackRepository,
        actor: () throws -> Actor, now: Timestamp
    ) throws -> Row {
        let locale = staged.locale
        var row = Row(locale: locale, candidate: staged, verdict: report.verdict.rawValue, action: .decided(action))
        switch action {
        case .nothingStaged, .leave, .holdForData, .rampPaused, .holdRampForData, .holdRampForFreshMetrics:
            break
        case .holdForMismatch:
            row.heldLeft = true
        case .reportUnhealthy:
            row.unhealthyLeft = true
        case .revert(let reason):
            let request = RevertRequest(
                locale: locale, segment: nil, target: .lastKnownGood, reason: reason, block: true)
            let evidence = try HealthCheck.evidence(report, plan: plan, snapshot: snapshot)
            let applied = try RevertOperations.revert(
                request, in: repository, evidence: evidence, actor: try actor(), time: { now })
            row.action = .reverted(rollback: applied.result.manifest?.id)
            row.rollback = applied.result.manifest?.id
            row.commit = applied.commit
            row.planAfter = applied.result.after
        case .advanceRamp:
            // The step is taken on the tip the commit lands on, with health evaluated again there.
            let applied = try PlanOperations.advanceRamp(
                locale: locale, in: repository, actor: try actor(), time: { now }
            ) {
                snapshot, plan in
                Guard.mayAdvance(
                    plan, health: try HealthCheck.evaluate(plan, snapshot: snapshot, repository: repository))
            }
            row.action = .rampAdvanced(
                to: applied.result.map { $0.after.rules.first?.share.description ?? "100%, completed" })
            row.commit = applied.commit
            row.planAfter = applied.result?.after
        }
        return row
    }
}
