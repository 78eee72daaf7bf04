/// What a commit did: the value of its `Rollout-Action` trailer. docs/architecture.md ("Commit
/// messages") lists each action with its summary line and trailers; a test holds that table and
/// these cases equal, and `Verifier.allowed` gives each the files it may touch.
///
/// A commit written by a newer rollout may carry an action this build does not know: where a
/// message is read, `ChangeAction(rawValue:)` is nil for it and the reader says what it does then.
public enum ChangeAction: String, CaseIterable, Sendable {
    case initialize = "init"
    case packAdd = "pack-add"
    case policySet = "policy-set"
    case promote
    case complete
    case ramp
    case pause
    case resume
    case revert
    case metricsIngest = "metrics-ingest"
    case metricsRetract = "metrics-retract"
    case keys
    case publish
    case schedule
    case cancel
    case testersAdd = "testers-add"
    case testersRemove = "testers-remove"
    /// `rollout signers add` or `remove`: a change to `signers/` (who may sign which changes).
    case signers
    /// `rollout experiment start`: the experiment's record and the plan that splits devices.
    case experimentStart = "experiment-start"
    /// `rollout experiment stop`, or guard stopping one that harms: the record's ending and the plan
    /// without the experiment (with the shipped pack staged, or a rollback manifest).
    case experimentStop = "experiment-stop"
}

/// A trailer name rollout writes, without its `Rollout-` prefix (docs/architecture.md, "Commit
/// messages"; docs/audit.md says what each value means). Messages are parsed into plain strings,
/// as a newer rollout may write a trailer this build does not know.
public enum Trailer: String, CaseIterable, Sendable {
    case action = "Action"
    case actor = "Actor"
    case locale = "Locale"
    case pack = "Pack"
    case percent = "Percent"
    case regions = "Regions"
    case versions = "Versions"
    case forced = "Forced"
    case acceptedInsufficient = "Accepted-Insufficient"
    case ramp = "Ramp"
    case reason = "Reason"
    case target = "Target"
    case segment = "Segment"
    case blocked = "Blocked"
    case rollback = "Rollback"
    case approvedBy = "Approved-By"
    case allowRemovedKeys = "Allow-Removed-Keys"
    case metricsKind = "Metrics-Kind"
    case metricsFile = "Metrics-File"
    case metricsDigest = "Metrics-Digest"
    case metricsRows = "Metrics-Rows"
    case metricsGeneration = "Metrics-Generation"
    case publishedState = "Published-State"
    case siteSequence = "Site-Sequence"
    case destination = "Destination"
    case keysVersion = "Keys-Version"
    case keyEvent = "Key-Event"
    case key = "Key"
    case schedule = "Schedule"
    case at = "At"
    case scheduledBy = "Scheduled-By"
    case testers = "Testers"
    case installIDs = "Install-Ids"
    /// On an approved change (a merge of main's tip and the proposal): the proposal's commit id.
    case proposal = "Proposal"
    /// On an approved change: the approver (`Name <email>`), who signed it.
    case approver = "Approver"
    /// On an approved change: why the approver approved it (`rollout approve --reason`).
    case approverReason = "Approver-Reason"
    /// What the change did to the plans: each plan's blobs before and after and the regions it
    /// altered (`PlansTrailer`), or `none`.
    case plans = "Plans"
    /// On an experiment's start and stop: its name.
    case experiment = "Experiment"
    /// On an experiment's start: its variants, control first, with their shares (`tr-TR@18 50%, tr-TR@19 50%`).
    case variants = "Variants"
    /// On an experiment's start: the primary metric, then the exploratory ones.
    case metrics = "Metrics"
    /// On an experiment's stop: what it came to (`shipped tr-TR@19 to 50%`, `stopped`, `harm: ...`).
    case outcome = "Outcome"
}

/// Reading a parsed message's trailers by name.
extension Array where Element == (name: String, value: String) {
    /// Every value of `trailer`, in the message's order.
    public func values(_ trailer: Trailer) -> [String] { filter { $0.name == trailer.rawValue }.map(\.value) }

    /// The first value of `trailer`, or nil when the message has none.
    public func value(_ trailer: Trailer) -> String? { first { $0.name == trailer.rawValue }?.value }

    /// The commit's action: nil when it has no `Rollout-Action` trailer or one this build does not know.
    public var action: ChangeAction? { value(.action).flatMap(ChangeAction.init(rawValue:)) }
}
