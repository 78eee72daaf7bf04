/// What `rollout guard` decides for one locale (docs/health.md, "rollout guard" and "Scheduled
/// ramps"), as a value: no repository, no clock, no output. `GuardLoop` gathers the inputs and
/// carries the decision out; a CI bot or a server can do the same with its own figures.
///
/// It lives in RolloutModel with the other decisions on a rollout's health (`Health`, `PromoteGate`),
/// since it needs model types only; `GuardLoop` and `HealthCheck`, which read the repository, stay in
/// RolloutIngest.
public enum Guard {
    /// A ramp step waiting for its time: `share` once `after` has come.
    public struct RampStep: Equatable, Sendable {
        public let share: Percent
        public let after: Timestamp

        public init(share: Percent, after: Timestamp) {
            self.share = share
            self.after = after
        }
    }

    public enum Action: Equatable, Sendable {
        /// Nothing staged against a baseline: the locale is not guarded, nor listed.
        case nothingStaged
        /// Healthy, with no ramp step to take now; `nextStep` when a step waits for its time.
        case leave(nextStep: RampStep?)
        /// Insufficient data: guard never acts on it; `nextStep` when a step waits for its time.
        case holdForData(nextStep: RampStep?)
        /// Unhealthy and left in place (no `--auto-revert`): the run exits 1.
        case reportUnhealthy
        /// Unhealthy with `--auto-revert`: back to the last known good pack, the staged version
        /// blocked, `reason` recorded.
        case revert(reason: String)
        /// A ramp held by `rollout pause`, healthy or not yet measured.
        case rampPaused
        /// A sample ratio mismatch in these segments holds the rollout, ramp or not: the run exits 1.
        case holdForMismatch([String])
        /// A ramp step is due but the data is insufficient: overall, or in these targeted segments.
        case holdRampForData(segments: [String])
        /// A ramp step is due and healthy, but nothing measured the current step yet.
        case holdRampForFreshMetrics
        /// A ramp step is due, healthy and measured: the staged rules move to `share`.
        case advanceRamp(to: Percent)
    }

    /// The decision for `plan` given its `health` (nil when nothing is staged against a baseline, as
    /// `HealthCheck.evaluate` returns) at `now`. `newestMetricsDay` (days since the epoch with metrics
    /// for the staged pack) is asked for only when a healthy ramp step is due: finding it reads every
    /// rollup of the locale again.
    public static func decide(
        _ plan: Plan, health: Health.Report?, autoRevert: Bool, now: Timestamp,
        newestMetricsDay: (PackID) throws -> Int?
    ) rethrows -> Action {
        guard let candidate = plan.candidate, let health else { return .nothingStaged }
        let staged = PackID(locale: plan.locale, contentVersion: candidate.contentVersion)
        switch health.verdict {
        case .unhealthy:
            // Even a paused ramp: pausing holds the schedule, not the health gate.
            guard autoRevert else { return .reportUnhealthy }
            let firstUnhealthy = health.checks.first { $0.verdict == .unhealthy }
            let worst = firstUnhealthy.map { "\($0.segment) \($0.kind.rawValue)" } ?? "health"
            return .revert(reason: "guard: \(staged) unhealthy (\(worst))")
        case .healthy, .insufficientData:
            let healthy = health.verdict == .healthy
            if !health.mismatches.isEmpty { return .holdForMismatch(health.mismatches.map(\.segment)) }
            guard let ramp = plan.ramp else { return healthy ? .leave(nextStep: nil) : .holdForData(nextStep: nil) }
            if ramp.paused { return .rampPaused }
            if let share = ramp.next, ramp.due(at: now) {
                let unproven = health.unproven(in: plan).map(\.segment)
                guard healthy, unproven.isEmpty else { return .holdRampForData(segments: unproven) }
                let measured = stepMeasured(since: ramp.since, newestMetricsDay: try newestMetricsDay(staged))
                return measured ? .advanceRamp(to: share) : .holdRampForFreshMetrics
            }
            let next = ramp.next.map { RampStep(share: $0, after: Timestamp(seconds: ramp.since.seconds + ramp.every)) }
            return healthy ? .leave(nextStep: next) : .holdForData(nextStep: next)
        }
    }

    /// Whether a ramp may take its next step on `health`: healthy, no sample ratio mismatch, and every
    /// segment the plan targets healthy (a ramp has no `--accept-insufficient`; a segment that will
    /// never have the data is accepted by a promote by hand, docs/health.md, "Scheduled ramps").
    public static func mayAdvance(_ plan: Plan, health: Health.Report?) -> Bool {
        guard let health else { return false }
        return health.verdict == .healthy && health.mismatches.isEmpty && health.unproven(in: plan).isEmpty
    }

    /// Whether a step that began at `since` has been measured: metrics are dated by UTC day, so any
    /// dated on or after the day it began count, including those from earlier that same day.
    public static func stepMeasured(since: Timestamp, newestMetricsDay: Int?) -> Bool {
        guard let day = newestMetricsDay else { return false }
        return Int64(day) * 86_400 >= since.seconds - since.seconds % 86_400
    }
}
