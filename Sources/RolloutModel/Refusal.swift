/// What a library target refuses, as data: the case says what was refused and carries what its
/// sentence needs. The sentence names flags and commands (`--reason TEXT`, `rollout revert tr-TR`),
/// which are the command line's words, so it is written in one place there (RolloutCLI's
/// `Refusals.swift`), never here; tests of the model assert the case, not the English.
public protocol Refusal: Error, Equatable, Sendable {
    /// The kind of failure it is: its exit code and `--json` code (docs/architecture.md, "Exit codes").
    var kind: RolloutError.Kind { get }
}

/// What a promote refuses (`Plan.promoted`, `Plan.admits`).
public enum PromoteRefusal: Refusal {
    /// The version was reverted and blocked; `nextFree` is the first version after every blocked one.
    case blocked(PackID, nextFree: Int)
    /// The version is older than the baseline: going back is a revert to it.
    case olderThanBaseline(PackID, baseline: Int)
    /// The version is the baseline already.
    case alreadyBaseline(PackID)
    /// Lowering a share takes devices off the pack, which needs a reason.
    case loweringWithoutReason(PackID)
    /// Another version is staged: `staged` summarizes its rules.
    case otherCandidateStaged(locale: String, candidate: Int, staged: String)
    /// The kill switch is on, so a staged share would reach nobody.
    case underKillSwitch(PackID)
    /// A rule no device could reach: another rule decides first (`winner`), or every device it
    /// targets is below the pack's minAppVersion (`tooOld`), or both.
    case ruleNeverApplies(Plan.Rule, winner: Plan.Rule?, tooOld: Bool, pack: PackID, minAppVersion: AppVersion)

    public var kind: RolloutError.Kind {
        if case .loweringWithoutReason = self { return .usage }
        return .checkFailed
    }

    /// The pack the refused promote named.
    public var pack: PackID {
        switch self {
        case .blocked(let id, _), .olderThanBaseline(let id, _), .alreadyBaseline(let id),
            .loweringWithoutReason(let id), .underKillSwitch(let id), .ruleNeverApplies(_, _, _, let id, _):
            return id
        case .otherCandidateStaged(let locale, let candidate, _):
            return PackID(locale: locale, contentVersion: candidate)
        }
    }
}

/// What a revert refuses (`RevertTarget.parse`, `Plan.reverted`).
public enum RevertRefusal: Refusal {
    /// The target is not a content version, a pack id of the locale, or `bundled`.
    case notATarget(String, locale: String)
    /// The target is a pack of another locale.
    case targetOfAnotherLocale(String, PackID, locale: String)
    /// A segment goes back to the baseline, so it takes no target.
    case segmentWithTarget
    /// Nothing is staged, so there is nothing to take back from the segment.
    case nothingStagedToWithdraw(locale: String, segment: String)
    /// Nothing was ever promoted: devices already use their bundled strings.
    case nothingPromoted(locale: String)
    /// The baseline is the only good one the locale has had.
    case noEarlierBaseline(locale: String, baseline: Int)
    /// The target version was itself reverted.
    case targetBlocked(locale: String, version: Int)
    /// The target is not earlier than what devices receive now.
    case targetNotEarlier(locale: String, version: Int)

    public var kind: RolloutError.Kind {
        switch self {
        case .notATarget, .targetOfAnotherLocale, .segmentWithTarget: return .usage
        case .nothingStagedToWithdraw, .nothingPromoted, .noEarlierBaseline, .targetBlocked, .targetNotEarlier:
            return .checkFailed
        }
    }
}
