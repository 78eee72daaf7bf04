import RolloutModel

/// The promote health gate (docs/health.md, "The promote gate"): a promote that widens a staged
/// rollout goes through only when its health is healthy, or with `--force --reason`.
///
/// A decision on values, with no I/O of its own: the health report is handed in, and asked for only
/// when the change widens. It lives in RolloutStore beside `PlanOperations.promoted` rather than in
/// RolloutModel because it decides on `PlanOperations.widens` and `PromoteOutcome.Kind`, which are
/// defined with promote here; it moves with them once the pure plan transforms move to RolloutModel.
public enum PromoteGate {
    /// `--force`, which can only be made with a reason: the reason goes into the commit with it.
    public struct Override: Equatable, Sendable {
        public let reason: String
    }

    public enum Decision {
        /// Not judged: the first stage of a pack (nothing to measure yet), a change that gives the
        /// pack to no more devices (lowering), or nothing staged against a baseline to compare with.
        case notGated
        /// Widening a healthy rollout; `--force`, if given, changes nothing and is not recorded.
        case healthy
        /// Widening a rollout that is not healthy, overridden: recorded as `Rollout-Forced`.
        case forced(Health.Verdict)
        /// Widening a rollout that is not healthy, refused; `deciding` is the first check with the
        /// report's verdict (none before any metrics).
        case refused(Health.Verdict, deciding: Health.Check?)
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
    public static func decide(
        before: Plan, after: Plan, kind: PromoteOutcome.Kind, override: Override?,
        health: (Plan) throws -> Health.Report?
    ) rethrows -> Decision {
        guard PlanOperations.widens(before, after, kind: kind) else { return .notGated }
        var judged = before
        judged.withdrawals = after.withdrawals
        guard let report = try health(judged) else { return .notGated }
        if report.verdict == .healthy { return .healthy }
        if override != nil { return .forced(report.verdict) }
        return .refused(report.verdict, deciding: report.checks.first { $0.verdict == report.verdict })
    }
}

extension PromoteGate.Decision {
    /// What promote records for this decision (the `Rollout-Forced` trailer's value, or nil), or the
    /// refusal that stops a promote of `pack`, dry run included, with the way out.
    public func forcedTrailer(pack: PackID) throws -> String? {
        switch self {
        case .notGated, .healthy: return nil
        case .forced(let verdict): return "health was \(verdict.rawValue)"
        case .refused(let verdict, let check):
            let detail =
                check.map { check in
                    let counts =
                        "\(check.candidate.events)/\(check.candidate.total) against \(check.baseline.events)/\(check.baseline.total)"
                    return " (\(check.segment) \(check.kind.rawValue): \(counts))"
                } ?? ""
            throw RolloutError.checkFailed(
                "\(pack) is \(verdict.rawValue)\(detail): a rollout widens only when healthy. See rollout health \(pack.locale); override with --force --reason TEXT"
            )
        }
    }
}
