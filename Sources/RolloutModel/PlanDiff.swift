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

    public init(locale: String, before: Plan?, after: Plan?) {
        let old = before ?? Plan(locale: locale)
        let new = after ?? Plan(locale: locale)
        self.locale = locale
        segments = SegmentShares.changes(from: old, to: new)
        blocked = (old.blocked.sorted(), new.blocked.sorted())
        killSwitch = (old.bundledOnly, new.bundledOnly)
    }

    /// Nothing a device of this locale resolves or may receive changed.
    public var isEmpty: Bool {
        segments.isEmpty && blocked.before == blocked.after && killSwitch.before == killSwitch.after
    }
}
