import Foundation
import RolloutModel

/// One recorded change, as the audit log shows it.
public struct AuditEntry: Sendable {
    public struct PlanChange: Sendable {
        public let locale: String
        public let before: Plan
        public let after: Plan
        /// The git blob ids of the plan file before and after (nil before: the plan is new).
        public let beforeBlob: String?
        public let afterBlob: String
    }

    /// The action as this build knows it; nil for one it does not.
    public var changeAction: ChangeAction? { ChangeAction(rawValue: action) }

    /// Where a publish wrote, as its summary (`publish index sequence N to DEST`) names it.
    var publishDestination: String {
        summary.range(of: " to ").map { String(summary[$0.upperBound...]) } ?? summary
    }

    /// Position in the first-parent history, 1 for the first commit.
    public let sequence: Int
    public let commit: String
    public let time: Timestamp
    public let actor: String
    /// The `Rollout-Action` value as written, so the log shows an action a newer rollout wrote;
    /// "unknown" when the commit has none.
    public let action: String
    public let summary: String
    public let reason: String?
    public let locales: [String]
    public let packs: [String]
    /// Every plan the commit changed (one for anything rollout writes; a commit made by hand may change several).
    public let planChanges: [PlanChange]

    /// Under a `--segment` query, each plan change that altered the segment (its locale) with what
    /// the segment's devices receive after it: worked out when the query matched this entry, so that
    /// showing it does not work it out again.
    public internal(set) var segmentChanges: [(locale: String, after: SegmentShares)]? = nil

    /// The entry without its plans (`Query.keepsPlans`): `planChanges` empty, the rest as it was.
    func withoutPlans() -> AuditEntry {
        var entry = AuditEntry(
            sequence: sequence, commit: commit, time: time, actor: actor, action: action, summary: summary,
            reason: reason, locales: locales, packs: packs, planChanges: [])
        entry.segmentChanges = segmentChanges
        return entry
    }

    /// The plan changes that altered what devices in `region` (or "*") on `versions` receive, each
    /// with what those devices receive after it.
    public func sharesChanged(in region: String, versions: VersionRange) -> [(
        change: PlanChange, after: SegmentShares
    )] {
        planChanges.compactMap { change in
            let after = SegmentShares.of(change.after, region: region, versions: versions)
            return SegmentShares.of(change.before, region: region, versions: versions) == after ? nil : (change, after)
        }
    }
}

extension AuditEntry {
    /// The entry for `commit` at `sequence` in the first-parent history. Its plan changes come from
    /// the trees, not the trailers, so a commit made behind rollout's back shows too; its locales are
    /// the ones its trailers name, then any other whose plan it changed.
    init(_ commit: GitCommit, sequence: Int, planChanges: [PlanChange]) {
        let record = CommitRecord(commit)
        let locales = record.locales(with: planChanges.map(\.locale))
        self.init(
            sequence: sequence, commit: commit.id.hex, time: record.time, actor: record.actor, action: record.action,
            summary: record.summary, reason: record.reason, locales: locales, packs: record.packs,
            planChanges: planChanges)
    }

    /// What a commit's message and author say about the change: read the same way when indexing and
    /// when confirming what the index returned.
    struct CommitRecord {
        let summary: String
        let actor: String
        let action: String
        let reason: String?
        let locales: [String]
        let packs: [String]
        let time: Timestamp
        /// The commit's `Rollout-Plans` trailer, when it has one rollout can read.
        let plans: PlansTrailer?

        init(_ commit: GitCommit) {
            let trailers = Change.trailers(of: commit.message)
            plans = PlansTrailer.of(trailers)
            summary = String(commit.message.prefix { $0 != "\n" })
            actor = trailers.value(.actor) ?? "\(commit.author.name) <\(commit.author.email)>"
            action = trailers.value(.action) ?? "unknown"
            reason = trailers.value(.reason)
            locales = trailers.values(.locale)
            packs = trailers.values(.pack)
            time = Timestamp(seconds: commit.author.time)
        }

        /// The locales its trailers name, then any other of `changed` (the plans it changed).
        func locales(with changed: [String]) -> [String] {
            var all = locales
            for locale in changed where !all.contains(locale) { all.append(locale) }
            return all
        }

        /// The index line of this commit at `sequence`, read from its `Rollout-Plans` trailer alone; nil
        /// when it has none (its plan changes are then read from its trees).
        func indexLine(commit: ObjectID, sequence: Int) -> (line: [UInt8], locales: [String], regions: Set<String>)? {
            guard let plans else { return nil }
            let locales = locales(with: plans.items.map(\.locale))
            let line = AuditEntry.indexLine(
                sequence: sequence, commit: commit.hex, record: (summary, actor, action, reason, packs, time),
                locales: locales, plans: plans.items.map { ($0.locale, $0.before, $0.after) })
            return (line, locales, Set(plans.items.flatMap(\.regions)))
        }

        /// Whether `entry`, read from the index, has this commit's summary, actor, reason, packs,
        /// action and time.
        func describes(_ entry: AuditEntry) -> Bool {
            summary == entry.summary && actor == entry.actor && reason == entry.reason && packs == entry.packs
                && action == entry.action && time == entry.time
        }
    }
}

extension AuditEntry.PlanChange {
    /// The change of `locale`'s plan from blob `beforeBlob` to blob `afterBlob`, each read by
    /// `loadPlan`; nil when the plan after cannot be read. A plan before that is absent (or cannot be
    /// read) is an empty one: the locale's plan is new.
    init?(locale: String, beforeBlob: String?, afterBlob: String, loadPlan: (String) -> Plan?) {
        guard let after = loadPlan(afterBlob) else { return nil }
        let before = beforeBlob.flatMap(loadPlan) ?? Plan(locale: locale)
        self.init(locale: locale, before: before, after: after, beforeBlob: beforeBlob, afterBlob: afterBlob)
    }
}
