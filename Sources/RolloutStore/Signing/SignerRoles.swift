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
        case .revert, .pause, .ramp: return [.admin, .release, .bot]
        case .packAdd, .promote, .complete, .resume, .metricsIngest, .metricsRetract, .publish, .schedule, .cancel,
            .testersAdd, .testersRemove:
            return [.admin, .release]
        }
    }

    /// Whether a signer with `roles` may sign `action`.
    public static func may(_ roles: [SignerRole], sign action: ChangeAction) -> Bool {
        !allowed(action).isDisjoint(with: roles)
    }
}
