import RolloutIngest
import RolloutModel
import RolloutPublish
import RolloutStore

/// What guard and publish announce (docs/notifications.md, "Events"). guard runs from cron every
/// few minutes, so a hold or a key's expiry is announced when it starts or changes, not on every
/// run: what was announced is kept in the queue's `sent.json`, by subject.
enum GuardNotices {
    /// Notices for what one guard run did, and the record of announced holds after it.
    static func notices(
        _ outcome: GuardLoop.Outcome, snapshot: Snapshot, actor: String, now: Timestamp, announced: [String: String],
        keyExpiryDays: Int
    ) -> (notices: [Notice], announced: [String: String]) {
        var record = announced.filter { !$0.key.hasPrefix("hold ") }
        var notices: [Notice] = []
        for row in outcome.rows {
            let base = Notice(
                event: .hold, title: "", locale: row.locale, pack: row.candidate?.description, commit: row.commit,
                actor: actor, time: now, reason: nil, segments: row.planAfter.map(Notice.segments(of:)) ?? [])
            guard let (notice, fingerprint) = notice(for: row, base: base) else { continue }
            if let fingerprint {
                // A locale's refused scheduled change is a subject of its own beside its rollout's hold.
                let subject = "hold \(row.locale)" + (fingerprint.hasPrefix("schedule ") ? " schedule" : "")
                record[subject] = fingerprint
                if announced[subject] == fingerprint { continue }
            }
            notices.append(notice)
        }
        if let (notice, subject, fingerprint) = keyNotice(
            snapshot: snapshot, actor: actor, now: now, days: keyExpiryDays), record[subject] != fingerprint
        {
            record[subject] = fingerprint
            notices.append(notice)
        }
        return (notices, record)
    }

    // Long: one case per action guard announces, a flat table that reads better whole.
    /// The notice of one row, and for a hold the fingerprint that says whether it was announced.
    private static func notice(for row: GuardLoop.Row, base: Notice) -> (Notice, String?)? {
        var notice = base
        let staged = row.candidate?.description ?? row.locale
        switch row.action {
        case .reverted(let rollback?):
            notice.event = .revert
            notice.title = "guard reverted \(row.locale): \(staged) was \(row.verdict)"
            notice.reason = "unhealthy: automatic revert by rollout guard --auto-revert"
            notice.details = ["byGuard": true, "rollback": .string(rollback), "verdict": .string(row.verdict)]
            return (notice, nil)
        case .experimentStopped(let name, let rollback?):
            notice.event = .revert
            notice.title = "guard stopped experiment \(name) on \(row.locale): \(staged) was \(row.verdict)"
            notice.reason = "a guardrail harmed: automatic stop by rollout guard --auto-revert"
            notice.details = [
                "byGuard": true, "rollback": .string(rollback), "verdict": .string(row.verdict),
                "experiment": .string(name),
            ]
            return (notice, nil)
        case .rampAdvanced(let share?):
            let completed = share.hasPrefix("100%")
            notice.event = completed ? .complete : .ramp
            notice.title =
                completed
                ? "guard completed the ramp: \(staged) is now the baseline of \(row.locale)"
                : "guard advanced the ramp of \(staged) to \(share)"
            return (notice, nil)
        case .decided(.holdForMismatch(let segments)):
            notice.event = .sampleRatioMismatch
            notice.title =
                "guard held \(staged): sample ratio mismatch in \(segments.joined(separator: ", ")); devices do not get the planned share"
            notice.details = ["segments": .array(segments.map { .string($0) })]
            return (notice, "srm \(staged) \(segments.joined(separator: ","))")
        case .experiment(let name, "void"):
            notice.event = .sampleRatioMismatch
            notice.title =
                "experiment \(name) on \(row.locale) is void: its exposures do not match the split; find why "
                + "(rollout experiment show \(name))"
            notice.details = ["experiment": .string(name)]
            return (notice, "srm experiment \(name)")
        case .decided(.holdRampForData(let segments)):
            notice.title =
                "guard held the ramp of \(staged): not enough data yet"
                + (segments.isEmpty ? "" : " in " + segments.joined(separator: ", "))
            notice.details = ["segments": .array(segments.map { .string($0) })]
            return (notice, "data \(staged) \(segments.joined(separator: ","))")
        case .scheduleApplied(let id, let change, let effect?) where effect != .unchanged:
            notice.event = effect == .completed ? .complete : .promote
            notice.title =
                "guard applied scheduled change \(id) of \(row.locale): \(change)"
                + (effect == .completed ? ", now the baseline" : "")
            notice.details = ["schedule": .integer(id)]
            return (notice, nil)
        case .scheduleRefused(let id, let change, let due):
            notice.title =
                "guard could not apply scheduled change \(id) of \(row.locale) (\(change), due \(due)): it stays pending"
            notice.reason = row.error
            notice.details = ["schedule": .integer(id)]
            return (notice, "schedule \(id) \(row.error ?? "")")
        case .decided(.holdRampForFreshMetrics):
            notice.title = "guard held the ramp of \(staged): no metrics since this step began"
            return (notice, "fresh \(staged)")
        default:
            return nil
        }
    }

    /// `key-expiring` when the publishing key that lasts longest expires within `days`: every site
    /// signed after that is refused by devices. Announced again at 7, 3 and 1 day(s) left.
    static func keyNotice(snapshot: Snapshot, actor: String, now: Timestamp, days: Int) -> (
        Notice, subject: String, fingerprint: String
    )? {
        guard let list = (try? snapshot.currentKeyList())?.list else { return nil }
        let live = list.publishing.filter { list.revoked[$0.key] == nil && $0.value.expires > now }
        guard let (id, key) = live.max(by: { $0.value.expires < $1.value.expires }),
            key.expires.seconds - now.seconds < Int64(days) * 86_400
        else { return nil }
        return (expiring(id: id, expires: key.expires, actor: actor, now: now), "key \(id)", bucket(key.expires, now))
    }

    static func expiring(id: String, expires: Timestamp, actor: String, now: Timestamp) -> Notice {
        let left = (expires.seconds - now.seconds) / 86_400
        return Notice(
            event: .keyExpiring,
            title:
                "publishing key \(id) expires at \(expires) (in \(left) day(s)): make its successor with rollout keys rotate",
            locale: nil, pack: nil, commit: nil, actor: actor, time: now, reason: nil,
            details: ["key": .string(id), "expires": .string(expires.description), "daysLeft": .integer(Int(left))])
    }

    /// Which announcement a key's remaining time falls in: the window, then 7, 3 and 1 day(s).
    static func bucket(_ expires: Timestamp, _ now: Timestamp) -> String {
        let left = (expires.seconds - now.seconds) / 86_400
        return "\(expires) " + (left < 1 ? "1" : left < 3 ? "3" : left < 7 ? "7" : "window")
    }

    /// The notices of a publish that recorded a commit: `publish`, and `key-expiring` when its key
    /// expires within the window (once per bucket, as guard's).
    static func published(
        _ outcome: PublishOperation.Outcome, destination: String, actor: String, now: Timestamp, days: Int,
        announced: inout [String: String]
    ) -> [Notice] {
        guard let record = outcome.record else { return [] }
        let report = outcome.report
        var notices = [
            Notice(
                event: .publish,
                title:
                    "published \(report.locales.count) locale(s) to \(destination): index sequence \(report.indexSequence)",
                locale: nil, pack: nil, commit: record, actor: actor, time: now, reason: nil,
                details: [
                    "destination": .string(destination), "indexSequence": .integer(report.indexSequence),
                    "locales": .object(
                        Dictionary(uniqueKeysWithValues: report.locales.map { ($0.locale, .integer($0.sequence)) })),
                    "filesWritten": .integer(report.written.count),
                ])
        ]
        if let signing = outcome.signingKey, signing.expires.seconds - now.seconds < Int64(days) * 86_400,
            announced["key \(signing.id)"] != bucket(signing.expires, now)
        {
            announced["key \(signing.id)"] = bucket(signing.expires, now)
            notices.append(expiring(id: signing.id, expires: signing.expires, actor: actor, now: now))
        }
        return notices
    }
}

extension Notifier {
    /// After guard: its reverts, ramp steps, new holds and a key nearing expiry, announced.
    static func announce(
        _ outcome: GuardLoop.Outcome, repository: PackRepository, actor: String, now: Timestamp,
        context: CommandContext
    ) {
        guard let snapshot = try? repository.snapshot(), let policy = try? snapshot.policy().notify,
            !policy.hooks.isEmpty
        else { return }
        let queue = NotifyQueue(repository: repository)
        let (notices, record) = GuardNotices.notices(
            outcome, snapshot: snapshot, actor: actor, now: now, announced: queue.announced(),
            keyExpiryDays: policy.keyExpiryDays)
        announce(notices, repository: repository, context: context)
        try? queue.saveAnnounced(record)
    }

    /// After publish recorded a commit: `publish`, and its key nearing expiry.
    static func announce(
        _ outcome: PublishOperation.Outcome, destination: String, repository: PackRepository, actor: String,
        now: Timestamp, context: CommandContext
    ) {
        guard outcome.record != nil, let policy = try? repository.snapshot().policy().notify, !policy.hooks.isEmpty
        else { return }
        let queue = NotifyQueue(repository: repository)
        var record = queue.announced()
        let notices = GuardNotices.published(
            outcome, destination: destination, actor: actor, now: now, days: policy.keyExpiryDays,
            announced: &record)
        announce(notices, repository: repository, context: context)
        try? queue.saveAnnounced(record)
    }
}
