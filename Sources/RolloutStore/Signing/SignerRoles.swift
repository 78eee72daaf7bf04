import RolloutModel

/// The one table from what a change does to the roles that may sign it (docs/policy.md, "Roles"):
/// `rollout verify`, the server hook, approve and the local pre-check all ask it. It lives beside
/// `ChangeAction` because the model cannot name actions; the roles are RolloutModel's `SignerRole`.
public enum SignerRoles {
    /// The roles that may sign `action`. `bot` (guard's key) signs only what guard writes to make
    /// things safer or to carry on what a person started: a revert, a hold (pause), and the next
    /// step of a ramp a release signer started with `promote --ramp`; never a promote, a complete,
    /// a pack, the policy, the keys or the signers.
    public static func allowed(_ action: ChangeAction) -> Set<SignerRole> {
        switch action {
        // The first commit is made before any signer exists; an admin may make it when one does.
        case .initialize, .policySet, .keys, .signers: return [.admin]
        // Guard stops an experiment whose variant harms, as it reverts: never to ship one.
        case .revert, .pause, .ramp, .experimentStop: return [.admin, .release, .bot]
        case .packAdd, .promote, .complete, .resume, .metricsIngest, .metricsRetract, .publish, .schedule, .cancel,
            .testersAdd, .testersRemove, .experimentStart:
            return [.admin, .release]
        }
    }

    /// Whether a signer with `roles` may sign `action`.
    public static func may(_ roles: [SignerRole], sign action: ChangeAction) -> Bool {
        !allowed(action).isDisjoint(with: roles)
    }

    /// Whether a signer with `roles` may sign a commit with these trailers: as `may(_:sign:)`, except
    /// that an `experiment-stop` that ships a pack (it names one, `Rollout-Pack`) is a promote, which
    /// guard's bot never signs.
    public static func may(_ roles: [SignerRole], sign trailers: [(name: String, value: String)]) -> Bool {
        guard let action = trailers.action else { return roles.contains(.admin) }
        if action == .experimentStop, trailers.value(.pack) != nil { return may(roles, sign: .promote) }
        return may(roles, sign: action)
    }
}

/// The one table of which changes need a second signer (docs/policy.md, "signing.approval"): the
/// admission check (`SignatureAuditor`) asks it for `rollout verify`, the server hook, approve and
/// the local check before a ref moves. Rollback never waits: a revert, a hold and the kill switch
/// need nobody; nor does a ramp step or guard applying a scheduled promote, whose decision was
/// approved when the ramp or the schedule was made.
public enum ApprovalRules {
    /// The rule of `approval` that `action` falls under, or nil when it needs no approver.
    public static func rule(
        for action: ChangeAction, _ facts: ApprovalFacts, approval: SigningPolicy.Approval
    ) throws -> ApprovalRule? {
        switch action {
        // An experiment gives a new pack to a share of devices as a promote does (its `Rollout-Percent`:
        // the largest share of a variant other than the control); a stop that ships one is a promote.
        case .promote, .schedule, .experimentStart, .experimentStop:
            guard !facts.appliesSchedule, let above = approval.promoteAbove, let share = facts.highestShare,
                share > above
            else { return nil }
            return .promoteAbove(above)
        case .complete: return approval.complete && !facts.appliesSchedule ? .complete : nil
        case .packAdd:
            guard approval.protectedKeys else { return nil }
            let keys = try facts.protectedKeys()
            return keys.isEmpty ? nil : .protectedKeys(keys)
        case .policySet: return approval.policy ? .policy : nil
        case .keys: return approval.keys ? .keys : nil
        case .signers: return approval.signers ? .signers : nil
        case .initialize, .ramp, .pause, .resume, .revert, .metricsIngest, .metricsRetract, .publish, .cancel,
            .testersAdd, .testersRemove:
            return nil
        }
    }
}

/// Which rule of the policy's `signing.approval` makes a change need an approver.
public enum ApprovalRule: Equatable, Sendable {
    /// A promote (a ramp it starts, or one scheduled) to a share above this.
    case promoteAbove(Percent)
    case complete
    /// A pack that adds, changes or removes these protected keys against the locale's previous version.
    case protectedKeys([String])
    case policy, keys, signers
}

/// What the approval table needs to know of a change beyond its action.
public struct ApprovalFacts {
    /// The highest share the change gives (its `Rollout-Percent`, or the last step of its ramp).
    public var highestShare: Percent?
    /// Guard applying a scheduled promote (`Rollout-Schedule` on a promote or complete).
    public var appliesSchedule = false
    /// The protected keys a pack change touches, read only when the rule asks.
    public var protectedKeys: () throws -> [String] = { [] }

    public init(highestShare: Percent? = nil, appliesSchedule: Bool = false) {
        self.highestShare = highestShare
        self.appliesSchedule = appliesSchedule
    }
}
