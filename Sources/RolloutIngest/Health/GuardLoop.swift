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
            /// A running experiment and its verdict (`keep running`, `winner`, ...): guard changes nothing.
            case experiment(name: String, verdict: String)
            /// A running experiment whose variant harms a guardrail, stopped with `--auto-revert`: the
            /// variant blocked, the rollback manifest `rollback` recorded.
            case experimentStopped(name: String, rollback: String?)
        }
    }

    public struct Outcome: Sendable {
        public var rows: [Row] = []
        /// The soonest change still scheduled after this run (`promote --at`), of any locale: what
        /// the next runs will apply, so a run that did nothing says what it waits for.
        public var nextScheduled: (locale: String, change: Schedule.Pending)?
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
        outcome.nextScheduled = try snapshot.scheduledLocales()
            .flatMap { locale in try snapshot.schedule(locale).pending.map { (locale: locale, change: $0) } }
            .min { ($0.change.at, $0.locale, $0.change.id) < ($1.change.at, $1.locale, $1.change.id) }
        return outcome
    }

    static func guardLocale(
        _ locale: String, snapshot: Snapshot, repository: PackRepository, autoRevert: Bool, actor: () throws -> Actor,
        now: Timestamp
    ) throws -> Row? {
        guard let plan = try snapshot.plan(locale) else { return nil }
        if let experiment = plan.experiment {
            return try guardExperiment(
                experiment.name, snapshot: snapshot, repository: repository, autoRevert: autoRevert, actor: actor,
                now: now)
        }
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

    /// A running experiment (docs/experiments.md, "When a variant harms: guard stops it"): what
    /// `experiment show` decides, and its guardrails judged as health judges a staged pack. A harm
    /// verdict (a variant harms a guardrail, or its primary metric is shown worse) is reported,
    /// exiting 1, and with `autoRevert` stops the experiment: the harmful variants blocked, with a
    /// rollback manifest whose evidence is the guardrail's health or the primary comparison.
    static func guardExperiment(
        _ name: String, snapshot: Snapshot, repository: PackRepository, autoRevert: Bool, actor: () throws -> Actor,
        now: Timestamp
    ) throws -> Row? {
        guard let record = try snapshot.experiment(name) else { return nil }
        let result = try ExperimentReading.analyze(record, in: snapshot, now: now)
        let harm = ExperimentHarm(record, result)
        let first = harm.variants.first ?? record.treatments.first?.contentVersion ?? record.control.contentVersion
        // The guardrails' worst verdict, as health says it: insufficient data is not "healthy".
        let guardrails = record.treatments.map { result.guardrails[$0.contentVersion]?.verdict ?? .insufficientData }
        var row = Row(
            locale: record.locale, candidate: PackID(locale: record.locale, contentVersion: first),
            verdict: harm.variants.isEmpty ? (guardrails.max() ?? .insufficientData).rawValue : "unhealthy",
            action: .experiment(name: name, verdict: harm.label ?? result.verdict.label))
        // A mismatch voids every comparison: someone has to find why, as for a rollout held by one.
        if case .void = result.verdict { row.heldLeft = true }
        guard let why = harm.reason else { return row }
        guard autoRevert else {
            row.unhealthyLeft = true
            return row
        }
        let applied = try ExperimentOperations.stop(
            name, ending: .harm(reason: why, blocking: harm.variants, evidence: harm.evidence),
            reason: "guard: \(why)", in: repository, actor: try actor(), time: { now }, health: { _, _ in nil })
        row.action = .experimentStopped(name: name, rollback: applied.result.rollback?.id)
        row.rollback = applied.result.rollback?.id
        row.commit = applied.commit
        row.planAfter = applied.result.after
        return row
    }
}

/// What harms in an experiment's analysis, for guard, when its verdict is harm (a void verdict
/// comes first: no comparison of those arms, a guardrail's included, can be trusted; docs/
/// experiments.md, "The verdict"): every variant that harms a guardrail or whose primary metric is
/// shown worse; why, named by the first (a guardrail before the primary metric), and the evidence a
/// stop records: the first guardrail's health, with the primary comparisons shown worse beside it.
struct ExperimentHarm {
    let variants: [Int]
    let label: String?
    let reason: String?
    let evidence: JSONValue

    init(_ record: ExperimentRecord, _ result: ExperimentAnalysis.Result) {
        guard case .harm = result.verdict else {
            (variants, label, reason, evidence) = ([], nil, nil, .null)
            return
        }
        let locale = record.locale
        let control = PackID(locale: locale, contentVersion: record.control.contentVersion)
        let guardrail = record.treatments.map(\.contentVersion).filter { result.guardrails[$0]?.verdict == .unhealthy }
        let worse = result.comparisons.filter { !$0.exploratory && $0.decision == .worse }
        // The guardrail's first, as the reason names it (and guard's row shows it), then the others.
        variants = guardrail + worse.map(\.treatment).filter { !guardrail.contains($0) }
        let comparisons: JSONValue = .array(worse.map { $0.jsonValue(locale: locale) })
        if let first = guardrail.first, let report = result.guardrails[first] {
            let worst = report.checks.first { $0.verdict == .unhealthy }
            label = "harm on a guardrail"
            reason = "\(locale)@\(first) unhealthy" + (worst.map { " (\($0.segment) \($0.kind.rawValue))" } ?? "")
            var health =
                report.jsonValue(
                    locale: locale, candidate: PackID(locale: locale, contentVersion: first), baseline: control
                )
                .objectValue ?? [:]
            if !worse.isEmpty { health["comparisons"] = comparisons }
            evidence = .object(health)
        } else if let first = worse.first {
            label = "harm on \(first.metric)"
            reason = "\(locale)@\(first.treatment) converts worse on \(first.metric)"
            evidence = ["comparisons": comparisons]
        } else {
            (label, reason, evidence) = (nil, nil, .null)
        }
    }
}
