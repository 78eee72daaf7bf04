import RolloutModel
import RolloutStore

/// One thing to tell the hooks (docs/notifications.md, "Events"): what happened, in the command
/// line's words, with the change's commit and what devices get per segment after it. Its
/// `document` is the event as every body carries it and as the queue keeps it.
struct Notice {
    var event: NotifyPolicy.Event
    /// One line: "guard reverted tr-TR: tr-TR@18 taken back, devices on tr-TR@17".
    var title: String
    var locale: String?
    var pack: String?
    var commit: ObjectID?
    var actor: String
    var time: Timestamp
    var reason: String?
    /// What devices get, per segment, after the change (`SegmentShares` of the plan).
    var segments: [(segment: String, devices: String)] = []
    /// What else the event knows: the rollback manifest, the segments held, a key's expiry.
    var details: [String: JSONValue] = [:]

    /// The event as the json body carries it, without `deliveryId` and `sentAt` (added per send).
    func document(report: String?) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "event": .string(event.rawValue), "title": .string(title), "actor": .string(actor),
            "time": .string(time.description),
            "segments": .array(segments.map { ["segment": .string($0.segment), "devices": .string($0.devices)] }),
            "details": .object(details),
        ]
        object["locale"] = locale.map { .string($0) }
        object["pack"] = pack.map { .string($0) }
        object["commit"] = commit.map { .string($0.hex) }
        object["reason"] = reason.map { .string($0) }
        object["report"] = report.map { .string($0) }
        return object
    }

    /// What every segment's devices get under `plan`: one row per piece, as `rollout status` and
    /// `promote` name them.
    static func segments(of plan: Plan) -> [(segment: String, devices: String)] {
        SegmentShares.of(plan, region: Region.any, versions: .all).pieces.map {
            ("\($0.regions) \($0.versions)", $0.describe(locale: plan.locale))
        }
    }
}

/// The notices of each command, worded here (the command line's side), from what the command did.
extension Notice {
    static func promoted(
        _ outcome: PromoteOutcome, pack: PackID, commit: ObjectID, actor: Actor, time: Timestamp,
        reason: String?
    ) -> Notice {
        let completed = outcome.kind == .completed
        let share = outcome.after.rules.first { $0.pack.contentVersion == pack.contentVersion }?.share
        // A promote --to testers:GROUP moves no share: it is named by the group it staged to.
        let groups = outcome.after.testers.filter { !outcome.before.testers.contains($0) }.map { "testers:\($0.group)" }
        let target =
            outcome.before.rules == outcome.after.rules && !groups.isEmpty
            ? groups.joined(separator: ", ") : share?.description
        let title =
            completed
            ? "\(pack) completed: now the baseline of \(pack.locale)"
            : "\(pack) promoted" + (target.map { " to \($0)" } ?? "") + (outcome.after.ramp != nil ? " (ramp)" : "")
        return Notice(
            event: completed ? .complete : .promote, title: title, locale: pack.locale, pack: pack.description,
            commit: commit, actor: actor.description, time: time, reason: reason, segments: segments(of: outcome.after))
    }

    /// `experiment start` or `stop` landed (docs/notifications.md, `experiment`).
    static func experiment(_ change: ExperimentChange, commit: ObjectID, actor: Actor, time: Timestamp) -> Notice {
        let record = change.record
        let title =
            record.ending.map { "experiment \(record.name) on \(record.locale) stopped: \($0.outcome)" }
            ?? "experiment \(record.name) started on \(record.locale): "
            + record.variantsLabel()
        var notice = Notice(
            event: .experiment, title: title, locale: record.locale, pack: nil, commit: commit,
            actor: actor.description, time: time, reason: record.ending.map(\.reason) ?? record.reason,
            segments: segments(of: change.after))
        notice.details = ["experiment": .string(record.name), "primary": .string(record.primary)]
        if let ending = record.ending { notice.details["outcome"] = .string(ending.outcome) }
        return notice
    }

    static func reverted(
        _ outcome: RevertOutcome, commit: ObjectID, actor: Actor, time: Timestamp, reason: String?, byGuard: Bool
    ) -> Notice {
        let locale = outcome.after.locale
        let taken = outcome.newlyBlocked.map { "\(locale)@\($0)" }
        let rollback = outcome.manifest?.id
        var title = (byGuard ? "guard reverted " : "reverted ") + locale
        if !taken.isEmpty { title += ": \(taken.joined(separator: ", ")) blocked" }
        var details: [String: JSONValue] = ["byGuard": .bool(byGuard)]
        details["rollback"] = rollback.map { .string($0) }
        details["blocked"] = .array(taken.map { .string($0) })
        return Notice(
            event: .revert, title: title, locale: locale, pack: nil, commit: commit, actor: actor.description,
            time: time, reason: reason, segments: segments(of: outcome.after), details: details)
    }
}
