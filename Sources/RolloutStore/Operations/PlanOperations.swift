import RolloutModel

/// The outcome of a promote, applied or (in a dry run, `PackRepository.dryRun`) only computed.
public struct PromoteOutcome {
    public let kind: PromoteEffect
    public let before: Plan
    public let after: Plan
}

public enum PlanOperations {
    /// Runs a promote on the repository (or, in a dry run, only computes it), through the health gate
    /// (`PromoteGate`): `health` judges a plan on the snapshot the change will apply to (nil: nothing
    /// staged against a baseline). It is passed in because the metrics are read outside this target.
    public static func promote(
        _ request: PromoteRequest, in repository: PackRepository, override: PromoteGate.Override?,
        accepting: [SegmentPattern] = [], actor: Actor,
        time: @escaping () -> Timestamp, health: (Snapshot, Plan) throws -> Health.Report?
    ) throws -> PackRepository.Applied<PromoteOutcome> {
        try repository.apply(actor: actor, time: time) { snapshot in
            try promoteChange(
                request, on: snapshot, override: override, accepting: accepting, actor: actor, time: time,
                health: health)
        }
    }

    /// What a promote writes on `snapshot` (nil: nothing, for an unchanged plan) and
    /// its outcome: the plan transform, the health gate and the trailers, shared by `promote` and
    /// by guard applying a scheduled one (`ScheduleOperations.apply`).
    static func promoteChange(
        _ request: PromoteRequest, on snapshot: Snapshot, before given: Plan? = nil, gatedFrom: Plan? = nil,
        override: PromoteGate.Override?,
        accepting: [SegmentPattern], actor: Actor, time: () -> Timestamp,
        health: (Snapshot, Plan) throws -> Health.Report?
    ) throws -> (Change?, PromoteOutcome) {
        let pack = try snapshot.requirePack(request.pack)
        let locale = request.pack.locale
        let request = try withTesters(request, on: snapshot)
        let before = try planBefore(promoting: locale, given: given, on: snapshot)
        var (after, kind) = try before.promoted(
            by: request, minAppVersion: pack.minAppVersion, parentCommit: snapshot.commit?.hex ?? "")
        if kind == .unchanged {
            return (nil, PromoteOutcome(kind: .unchanged, before: before, after: after))
        }
        // `gatedFrom`: what devices had before, when that is not `before` (an experiment's share).
        let gateTrailers = try PromoteGate.decide(
            before: gatedFrom ?? before, after: after, kind: kind, override: override, accepting: accepting
        ) {
            try health(snapshot, $0)
        }.trailers(pack: request.pack)
        after.lastChange = Plan.LastChange(
            action: kind.rawValue, actor: actor.description, time: time(), reason: request.reason)
        after.sequence = before.sequence + 1
        if after.ramp != nil { after.ramp!.since = time() }
        var trailers: [(name: Trailer, value: String)] = [
            (.action, kind.rawValue), (.locale, locale), (.pack, request.pack.description),
            (.percent, request.target),
        ]
        if let group = request.testerGroup {
            trailers.append((.testers, group))
        } else if kind == .staged {
            // What the change targeted: the flags given, every region/version when a new rule was
            // made without them, or every staged rule when only the share moved.
            let movedAll = !request.hasTargeting && !before.rules.isEmpty
            trailers.append(
                (.regions, movedAll ? "all staged rules" : (request.regions?.joined(separator: ",") ?? "*")))
            trailers.append((.versions, movedAll ? "all staged rules" : (request.versions?.description ?? "*")))
        }
        trailers += gateTrailers
        if let ramp = request.ramp {
            trailers.append((.ramp, ramp.steps.map(\.description).joined(separator: ",") + " every \(ramp.every)s"))
        }
        if let reason = request.reason { trailers.append((.reason, reason)) }
        let summary =
            kind == .completed
            ? "complete \(request.pack): the baseline of \(locale)"
            : "promote \(request.pack) to \(request.target)"
                + (request.regions.map { " in \($0.joined(separator: ","))" } ?? "")
                + (request.versions.map { " on \($0)" } ?? "")
        let change = Change(
            summary: summary, trailers: trailers,
            writes: [(StateLayout.plan(locale), JSONWriter.pretty(after.jsonValue))])
        return (change, PromoteOutcome(kind: kind, before: before, after: after))
    }

    /// `request` with the members of the tester group it names (`--to testers:GROUP`), as they are now.
    static func withTesters(_ request: PromoteRequest, on snapshot: Snapshot) throws -> PromoteRequest {
        guard let name = request.testerGroup else { return request }
        guard let group = try snapshot.testerGroup(name) else {
            throw TesterRefusal.noSuchGroup(name, groups: try snapshot.testerGroupNames())
        }
        var request = request
        request.testers = group
        return request
    }

    /// The plan a promote starts from: `given`, the plan an experiment's stop leaves (the promote that
    /// ships its winner), or the snapshot's. Refused while an experiment runs on the locale.
    static func planBefore(promoting locale: String, given: Plan?, on snapshot: Snapshot) throws -> Plan {
        let before = try given ?? snapshot.plan(locale) ?? Plan(locale: locale)
        if let experiment = before.experiment {
            throw ExperimentRefusal.running(locale: locale, name: experiment.name, doing: "promote")
        }
        return before
    }

    /// Moves a scheduled ramp to its next step if it is due (guard's job): completes the rollout when
    /// the next step is 100% with no region or version limit. `gate` decides whether health allows it.
    public static func advanceRamp(
        locale: String, in repository: PackRepository, actor: Actor, time: @escaping () -> Timestamp,
        gate: (Snapshot, Plan) throws -> Bool
    ) throws -> PackRepository.Applied<PromoteOutcome?> {
        try repository.apply(actor: actor, time: time) { snapshot in
            guard let before = try snapshot.plan(locale), let ramp = before.ramp, ramp.due(at: time()),
                let candidate = before.candidate,
                let share = ramp.next, try gate(snapshot, before)
            else { return (nil, nil) }
            let id = PackID(locale: locale, contentVersion: candidate.contentVersion)
            let pack = try snapshot.requirePack(id)
            let unrestricted = before.rules.allSatisfy { $0.regions.isEmpty && $0.versions.isAll }
            var moved = before
            var kind = PromoteEffect.staged
            if share == .full && unrestricted {
                (moved, kind) = try before.promoted(
                    by: PromoteRequest(pack: id, share: .full, regions: nil, versions: nil, reason: nil),
                    minAppVersion: pack.minAppVersion, parentCommit: "")
            } else {
                var rules = before.rules
                for index in rules.indices { rules[index].share = share }
                moved.setRules(rules)
                moved.ramp = ramp
                moved.ramp!.step += 1
                moved.ramp!.since = time()
            }
            moved.sequence = before.sequence + 1
            moved.lastChange = Plan.LastChange(
                action: ChangeAction.ramp.rawValue, actor: actor.description, time: time(),
                reason: "scheduled step \(ramp.step + 2) of \(ramp.steps.count)")
            let trailers: [(name: Trailer, value: String)] = [
                (.action, ChangeAction.ramp.rawValue), (.locale, locale), (.pack, id.description),
                (.percent, share.description),
                (.reason, "scheduled ramp step \(ramp.step + 2) of \(ramp.steps.count), healthy"),
            ]
            let summary =
                kind == .completed ? "ramp \(id) to 100%: the baseline of \(locale)" : "ramp \(id) to \(share)"
            let change = Change(
                summary: summary, trailers: trailers,
                writes: [(StateLayout.plan(locale), JSONWriter.pretty(moved.jsonValue))])
            return (change, PromoteOutcome(kind: kind, before: before, after: moved))
        }
    }

    /// Holds (or releases) a scheduled ramp by hand.
    public static func setPaused(
        _ paused: Bool, locale: String, reason: String?, in repository: PackRepository, actor: Actor,
        time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<Plan> {
        try repository.apply(actor: actor, time: time) { snapshot in
            guard let before = try snapshot.plan(locale), let ramp = before.ramp else {
                throw StoreRefusal.noRamp(locale: locale, doing: paused ? "pause" : "resume")
            }
            guard ramp.paused != paused else { return (nil, before) }
            var after = before
            after.ramp!.paused = paused
            // A resumed step lasts its full time again from now.
            if !paused { after.ramp!.since = time() }
            after.sequence = before.sequence + 1
            let action = (paused ? ChangeAction.pause : .resume).rawValue
            after.lastChange = Plan.LastChange(action: action, actor: actor.description, time: time(), reason: reason)
            var trailers: [(name: Trailer, value: String)] = [(.action, action), (.locale, locale)]
            if let reason { trailers.append((.reason, reason)) }
            let change = Change(
                summary: "\(action) the ramp of \(locale)", trailers: trailers,
                writes: [(StateLayout.plan(locale), JSONWriter.pretty(after.jsonValue))])
            return (change, after)
        }
    }
}
