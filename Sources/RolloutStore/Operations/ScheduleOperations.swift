import RolloutModel

/// A scheduled promote, recorded: the pending change, and the promote as it would run at the moment
/// it was scheduled (what it would change then).
public struct ScheduleOutcome {
    public let change: Schedule.Pending
    public let preview: PromoteOutcome
}

/// A due change guard applied: the change, and what its promote did (`unchanged`: it would change
/// nothing any more, so it was dropped with a `cancel` record instead).
public struct ScheduleApplied {
    public let change: Schedule.Pending
    public let promote: PromoteOutcome
}

/// What scheduling or cancelling refuses.
public enum ScheduleRefusal: Refusal {
    /// The promote would change nothing if it ran now: the pack is at that share there already.
    case wouldChangeNothing(PackID, share: Percent)
    /// The locale has no pending change to cancel.
    case nothingPending(locale: String)
    /// No pending change of the locale has that number; `pending` are the ones it has.
    case noSuchPending(locale: String, id: Int, pending: [Int])
    /// The health gate refused a scheduled change, when it was scheduled (checked as if it ran
    /// then) or when guard applied it (it stays pending). Apart from `GateRefusal` because a
    /// scheduled change takes no override: whether to force is decided when it runs, by hand.
    case gateRefused(GateRefusal, whenDue: Bool)

    public var kind: RolloutError.Kind {
        switch self {
        case .gateRefused(let refusal, _): return refusal.kind
        default: return .checkFailed
        }
    }
}

/// Pending changes (`promote --at`, `rollout cancel`, and guard applying them; docs/targeting.md,
/// "Scheduled changes"). Each is one recorded commit that writes `schedules/<locale>.json`; the
/// commit that applies a change is the promote itself, which removes it from that file.
public enum ScheduleOperations {
    /// Records `request` as a change due at `at`, after checking it as if it ran now: the same plan
    /// transform and health gate as `promote` (no override: `--force` is a decision taken when it
    /// runs), so whatever promote would refuse now is refused now.
    public static func schedule(
        _ request: PromoteRequest, at: Timestamp, accepting: [SegmentPattern], in repository: PackRepository,
        actor: Actor, time: @escaping () -> Timestamp, health: (Snapshot, Plan) throws -> Health.Report?
    ) throws -> PackRepository.Applied<ScheduleOutcome> {
        try repository.apply(actor: actor, time: time) { snapshot in
            let (_, preview) = try gated(whenDue: false) {
                try PlanOperations.promoteChange(
                    request, on: snapshot, override: nil, accepting: accepting, actor: actor, time: time,
                    health: health)
            }
            guard preview.kind != .unchanged else {
                throw ScheduleRefusal.wouldChangeNothing(request.pack, share: request.share)
            }
            let locale = request.pack.locale
            var schedule = try snapshot.schedule(locale)
            let change = schedule.add(
                request, at: at, accepting: accepting.map(\.description), by: actor.description, now: time())
            let outcome = ScheduleOutcome(change: change, preview: preview)
            var trailers: [(name: Trailer, value: String)] = [
                (.action, ChangeAction.schedule.rawValue), (.locale, locale), (.pack, request.pack.description),
                (.percent, request.share.description),
            ]
            if let regions = request.regions { trailers.append((.regions, regions.joined(separator: ","))) }
            if let versions = request.versions { trailers.append((.versions, versions.description)) }
            trailers += accepting.map { (.acceptedInsufficient, $0.description) }
            if let ramp = request.ramp {
                trailers.append((.ramp, ramp.steps.map(\.description).joined(separator: ",") + " every \(ramp.every)s"))
            }
            trailers += [(.schedule, "\(change.id)"), (.at, at.description)]
            if let reason = request.reason { trailers.append((.reason, reason)) }
            let write = (StateLayout.schedule(locale), JSONWriter.pretty(schedule.jsonValue))
            return (
                Change(summary: "schedule \(change.summary) at \(at)", trailers: trailers, writes: [write]), outcome
            )
        }
    }

    /// Takes pending changes of `locale` back: the one numbered `id`, or every one when `id` is nil.
    public static func cancel(
        locale: String, id: Int?, reason: String, in repository: PackRepository, actor: Actor,
        time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<[Schedule.Pending]> {
        try repository.apply(actor: actor, time: time) { snapshot in
            var schedule = try snapshot.schedule(locale)
            guard !schedule.pending.isEmpty else { throw ScheduleRefusal.nothingPending(locale: locale) }
            var cancelled: [Schedule.Pending] = []
            for number in id.map({ [$0] }) ?? schedule.pending.map(\.id) {
                guard let change = schedule.remove(number) else {
                    throw ScheduleRefusal.noSuchPending(locale: locale, id: number, pending: schedule.pending.map(\.id))
                }
                cancelled.append(change)
            }
            return (cancelChange(schedule, cancelled: cancelled, reason: reason), cancelled)
        }
    }

    /// Applies the pending change `id` of `locale` if it is still pending and due (guard's job):
    /// the promote it stands for, health gate included, in one commit that also removes it. A
    /// refusal is thrown and leaves it pending. Nil when it is no longer pending or not due.
    public static func apply(
        _ id: Int, locale: String, in repository: PackRepository, actor: Actor, time: @escaping () -> Timestamp,
        health: (Snapshot, Plan) throws -> Health.Report?
    ) throws -> PackRepository.Applied<ScheduleApplied?> {
        try repository.apply(actor: actor, time: time) { snapshot in
            var schedule = try snapshot.schedule(locale)
            guard let change = schedule.remove(id), change.isDue(at: time()) else { return (nil, nil) }
            let (promote, outcome) = try gated(whenDue: true) {
                try PlanOperations.promoteChange(
                    change.request, on: snapshot, override: nil,
                    accepting: change.accepting.compactMap(SegmentPattern.init), actor: actor, time: time,
                    health: health)
            }
            let applied = ScheduleApplied(change: change, promote: outcome)
            guard var promote else {
                let reason = "due at \(change.at), it would change nothing"
                return (cancelChange(schedule, cancelled: [change], reason: reason), applied)
            }
            promote.trailers += [(.schedule, "\(id)"), (.scheduledBy, change.scheduledBy)]
            promote.writes.append((StateLayout.schedule(locale), JSONWriter.pretty(schedule.jsonValue)))
            return (promote, applied)
        }
    }

    /// `body`, with the health gate's refusal as a scheduled change's (`ScheduleRefusal.gateRefused`).
    static func gated<T>(whenDue: Bool, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let refusal as GateRefusal {
            throw ScheduleRefusal.gateRefused(refusal, whenDue: whenDue)
        }
    }

    /// The commit that takes `cancelled` out, leaving `schedule`.
    static func cancelChange(_ schedule: Schedule, cancelled: [Schedule.Pending], reason: String) -> Change {
        let locale = schedule.locale
        var trailers: [(name: Trailer, value: String)] = [(.action, ChangeAction.cancel.rawValue), (.locale, locale)]
        var packs: [String] = []
        for change in cancelled where !packs.contains(change.pack.description) { packs.append(change.pack.description) }
        trailers += packs.map { (.pack, $0) }
        trailers += cancelled.map { (.schedule, "\($0.id)") }
        trailers.append((.reason, reason))
        let summary =
            cancelled.count == 1
            ? "cancel scheduled change \(cancelled[0].id) of \(locale): \(cancelled[0].summary) at \(cancelled[0].at)"
            : "cancel scheduled changes \(cancelled.map { "\($0.id)" }.joined(separator: ", ")) of \(locale)"
        return Change(
            summary: summary, trailers: trailers,
            writes: [(StateLayout.schedule(locale), JSONWriter.pretty(schedule.jsonValue))])
    }
}
