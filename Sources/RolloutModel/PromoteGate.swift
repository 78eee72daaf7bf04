/// The promote health gate (docs/health.md, "The promote gate"): a promote that widens a staged
/// rollout goes through only when its health is healthy, or with `--force --reason`.
///
/// A decision on values, with no I/O of its own: the health report is handed in, and asked for only
/// when the change widens. It lives beside `Plan.promoted` (Plan+Promote.swift), whose `PromoteEffect`
/// it decides on; what a promote records for a decision (`trailers(pack:)`) is RolloutStore's, which
/// owns the commit vocabulary.
public enum PromoteGate {
    /// `--force`, which can only be made with a reason: the reason goes into the commit with it.
    public struct Override: Equatable, Sendable {
        public let reason: String
    }

    public enum Decision {
        /// Not judged: the first stage of a pack (nothing to measure yet), a change that gives the
        /// pack to no more devices (lowering), or nothing staged against a baseline to compare with.
        case notGated
        /// Widening a rollout healthy in every segment it targets; `--force`, if given, changes
        /// nothing and is not recorded.
        case healthy
        /// Widening a rollout healthy where it has data, into these segments without enough data,
        /// each accepted by `--accept-insufficient`: recorded as `Rollout-Accepted-Insufficient`.
        case accepted([String])
        /// Widening a rollout the gate refuses, overridden: recorded as `Rollout-Forced`.
        case forced(Refusal)
        /// Widening a rollout the gate refuses.
        case refused(Refusal)
    }

    /// Why a widening is refused, the first that applies.
    public enum Refusal: Sendable {
        /// A check is unhealthy; `deciding` is the first such check.
        case unhealthy(deciding: Health.Check?)
        /// A sample ratio mismatch holds the rollout (docs/health.md, "Sample ratio mismatch").
        case held([SampleRatio.Check])
        /// Segments the widened plan targets that lack the data to be judged, and were not accepted.
        case unproven([Health.Standing])
        /// No metrics of the staged pack at all.
        case noMetrics
    }

    /// Whether `after` gives the staged pack to more devices than `before` did, in a rollout that was
    /// already staged (the first stage of a pack has nothing to be measured against yet).
    public static func widens(_ before: Plan, _ after: Plan, kind: PromoteEffect) -> Bool {
        guard !before.rules.isEmpty else { return false }
        if kind == .completed { return true }
        // Taking a segment back from a scoped revert gives it the staged pack again.
        if after.withdrawals.count < before.withdrawals.count { return true }
        return after.rules.contains { $0.widens(from: before) }
    }

    /// The override `--force` and `--reason` ask for: nil without `--force`; a usage error when
    /// `--force` comes without a reason, blank included.
    public static func override(force: Bool, reason: String?) throws -> Override? {
        guard force else { return nil }
        guard let reason, !reason.trimmingSpaces.isEmpty else {
            throw GateRefusal.forceWithoutReason
        }
        return Override(reason: reason)
    }

    /// Whether the promote from `before` to `after` may go ahead. `health` is asked only when it
    /// widens, for `before` as it will be judged: every segment the change reaches, so a segment a
    /// scoped revert took back counts again once re-targeted (nil: nothing staged against a baseline).
    /// Every segment the change widens must be healthy, or short of data and named by one of
    /// `accepting` (docs/health.md, "Widening, segment by segment"); a pattern that names no
    /// targeted segment is a usage error.
    public static func decide(
        before: Plan, after: Plan, kind: PromoteEffect, override: Override?, accepting: [SegmentPattern] = [],
        health: (Plan) throws -> Health.Report?
    ) throws -> Decision {
        guard widens(before, after, kind: kind) else {
            if !accepting.isEmpty { throw GateRefusal.acceptanceNotJudged }
            return .notGated
        }
        var judged = before
        judged.withdrawals = after.withdrawals
        guard let report = try health(judged) else {
            if !accepting.isEmpty { throw GateRefusal.acceptanceNotJudged }
            return .notGated
        }
        let targeted = report.targetedSegments(by: after, widenedFrom: before)
        if let stray = accepting.first(where: { pattern in !targeted.contains { pattern.matches($0) } }) {
            throw GateRefusal.strayAcceptance(stray, targeted: targeted)
        }
        let refusal: Refusal?
        let unproven = report.unproven(among: targeted)
        let unaccepted = unproven.filter { standing in !accepting.contains { $0.matches(standing.segment) } }
        if report.verdict == .unhealthy {
            refusal = .unhealthy(deciding: report.checks.first { $0.verdict == .unhealthy })
        } else if !report.mismatches.isEmpty {
            refusal = .held(report.mismatches)
        } else if !unaccepted.isEmpty {
            refusal = .unproven(unaccepted)
        } else if report.verdict != .healthy && unproven.isEmpty {
            refusal = .noMetrics
        } else {
            refusal = nil
        }
        if let refusal { return override == nil ? .refused(refusal) : .forced(refusal) }
        return unproven.isEmpty ? .healthy : .accepted(unproven.map(\.segment))
    }
}

extension PromoteGate.Refusal {
    /// The `Rollout-Forced` value: what the gate would have refused.
    public var recorded: String {
        switch self {
        case .unhealthy: return "health was unhealthy"
        case .held(let checks): return "held: sample ratio mismatch in " + checks.map(\.segment).joined(separator: ", ")
        case .unproven(let standings):
            return "health was insufficient-data in " + standings.map(\.segment).joined(separator: ", ")
        case .noMetrics: return "health was insufficient-data"
        }
    }
}

/// What the promote gate refuses (`PromoteGate.override`, `PromoteGate.decide`, and a promote the gate
/// said no to).
public enum GateRefusal: Refusal {
    /// An override of the gate without a reason to record.
    case forceWithoutReason
    /// Segments accepted short of data on a promote the gate does not judge.
    case acceptanceNotJudged
    /// An accepted segment pattern that names none of the segments the promote widens into.
    case strayAcceptance(SegmentPattern, targeted: [String])
    /// The gate refused widening `pack`.
    case refused(PackID, PromoteGate.Refusal)

    public var kind: RolloutError.Kind {
        if case .refused = self { return .checkFailed }
        return .usage
    }

    /// Two refusals of the gate are the same when they refuse the same pack for what it records.
    public static func == (a: GateRefusal, b: GateRefusal) -> Bool {
        switch (a, b) {
        case (.forceWithoutReason, .forceWithoutReason), (.acceptanceNotJudged, .acceptanceNotJudged): return true
        case (.strayAcceptance(let p, let t), .strayAcceptance(let q, let u)): return p == q && t == u
        case (.refused(let p, let r), .refused(let q, let s)): return p == q && r.recorded == s.recorded
        default: return false
        }
    }
}
