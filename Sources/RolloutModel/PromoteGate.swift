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
    public enum Refusal {
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
            throw RolloutError.usage("--force overrides the health gate; say why with --reason TEXT")
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
            if !accepting.isEmpty { throw .acceptanceNotJudged }
            return .notGated
        }
        var judged = before
        judged.withdrawals = after.withdrawals
        guard let report = try health(judged) else {
            if !accepting.isEmpty { throw .acceptanceNotJudged }
            return .notGated
        }
        let targeted = report.targetedSegments(by: after, widenedFrom: before)
        if let stray = accepting.first(where: { pattern in !targeted.contains { pattern.matches($0) } }) {
            throw RolloutError.strayAcceptance(stray, targeted: targeted)
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
    package var recorded: String {
        switch self {
        case .unhealthy: return "health was unhealthy"
        case .held(let checks): return "held: sample ratio mismatch in " + checks.map(\.segment).joined(separator: ", ")
        case .unproven(let standings):
            return "health was insufficient-data in " + standings.map(\.segment).joined(separator: ", ")
        case .noMetrics: return "health was insufficient-data"
        }
    }

    /// The refusal, with the way out.
    package func error(pack: PackID) -> RolloutError {
        let forceHint = "override with --force --reason TEXT"
        switch self {
        case .unhealthy(let check):
            let detail =
                check.map { check in
                    let counts =
                        "\(check.candidate.events)/\(check.candidate.total) against \(check.baseline.events)/\(check.baseline.total)"
                    return " (\(check.segment) \(check.kind.rawValue): \(counts))"
                } ?? ""
            return .checkFailed(
                "\(pack) is unhealthy\(detail): a rollout widens only when healthy. See rollout health \(pack.locale); \(forceHint)"
            )
        case .held(let checks):
            return .checkFailed(
                "\(pack) is held: " + checks.map(HealthText.mismatch).joined(separator: "; ")
                    + ". See rollout health \(pack.locale); \(forceHint)")
        case .unproven(let standings):
            return .unprovenSegments(pack, standings)
        case .noMetrics:
            // No segment has data yet, so there is none to name or to accept with --accept-insufficient.
            return .checkFailed(
                "\(pack) is insufficient-data: no metrics name a segment it would widen into yet, and a rollout widens only when healthy. Ingest metrics (rollout metrics ingest) and see rollout health \(pack.locale); \(forceHint)"
            )
        }
    }
}

/// The gate's longer messages, named (an extension of Error, so that `throw .name(...)` finds them).
extension Error where Self == RolloutError {
    /// Each segment short of data, with what it has and when it is expected to be judged.
    fileprivate static func unprovenSegments(_ pack: PackID, _ standings: [Health.Standing]) -> RolloutError {
        let segments = standings.map { standing in
            guard let sessions = standing.exposures(.crash) ?? standing.exposures(.fallback) else {
                return "\(standing.segment) (no data for \(pack))"
            }
            let kind = standing.exposures(.crash) != nil ? "sessions" : "lookups"
            return
                "\(standing.segment) (\(sessions.candidate) \(kind) against \(sessions.baseline); judged: \(HealthText.decision(standing)))"
        }
        let accept = standings.map { standing in
            "--accept-insufficient " + (standing.segment.contains("*") ? "'\(standing.segment)'" : standing.segment)
        }.joined(separator: " ")
        return .checkFailed(
            "\(pack) has too little data in \(standings.count == 1 ? "a segment" : "\(standings.count) segments") it would widen into: \(segments.joined(separator: ", ")). A rollout widens where every targeted segment is healthy: wait for data (rollout health \(pack.locale)), or accept them with \(accept)"
        )
    }

    /// `--accept-insufficient` on a promote the gate does not judge.
    fileprivate static var acceptanceNotJudged: RolloutError {
        .usage(
            "--accept-insufficient applies to a promote that widens a rollout staged against a baseline; this one is not judged by health, so there is nothing to accept"
        )
    }

    /// `--accept-insufficient` naming no segment the widened rollout targets.
    fileprivate static func strayAcceptance(_ pattern: SegmentPattern, targeted: [String]) -> RolloutError {
        .usage(
            targeted.isEmpty
                ? "--accept-insufficient \(pattern) names no segment this promote widens: no metrics name one yet, so there is nothing to accept; widen with --force --reason TEXT, or ingest metrics first"
                : "--accept-insufficient \(pattern) names no segment this promote widens (it widens: \(targeted.joined(separator: ", ")))"
        )
    }
}
