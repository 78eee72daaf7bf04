/// What changed for one locale's devices between two of its plans (`rollout diff`): every piece of a
/// segment (region x app version range) whose shares differ, as `promote --dry-run` shows them
/// (`SegmentShares.changes`), and the blocked versions and the kill switch before and after. A
/// locale without a plan on one side is read as a plan that serves nothing: its devices use their
/// bundled strings.
public struct PlanDiff: Sendable {
    public let locale: String
    public let segments: [(before: SegmentShares.Piece, after: SegmentShares.Piece)]
    public let blocked: (before: [Int], after: [Int])
    public let killSwitch: (before: Bool, after: Bool)
    /// The tester groups the candidate is staged to, before and after: `tr-TR@18 to testers:qa
    /// (3 install ids)`, one a group ([] for none). A change of members shows as a change here.
    public let testers: (before: [String], after: [String])

    public init(locale: String, before: Plan?, after: Plan?) {
        let old = before ?? Plan(locale: locale)
        let new = after ?? Plan(locale: locale)
        self.locale = locale
        segments = SegmentShares.changes(from: old, to: new)
        blocked = (old.blocked.sorted(), new.blocked.sorted())
        killSwitch = (old.bundledOnly, new.bundledOnly)
        func labels(_ plan: Plan) -> [String] {
            plan.testers.map {
                "\(locale)@\($0.pack.contentVersion) to testers:\($0.group) (\($0.members.count) install ids)"
            }
        }
        // Members compare by their hashes: the same count with other members is a change too.
        var changed = labels(new)
        if old.testers != new.testers && changed == labels(old) { changed = changed.map { $0 + ", other members" } }
        testers = (labels(old), changed)
    }

    /// Nothing a device of this locale resolves or may receive changed.
    public var isEmpty: Bool {
        segments.isEmpty && blocked.before == blocked.after && killSwitch.before == killSwitch.after
            && testers.before == testers.after
    }
}
