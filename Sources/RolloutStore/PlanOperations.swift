import RolloutModel

/// What `promote` asked for.
public struct PromoteRequest {
    public let pack: PackID
    public let share: Percent
    /// nil: no --region given; [] would never be passed (`*` means every region and is given as ["*"]).
    public let regions: [String]?
    public let versions: VersionRange?
    public let reason: String?
    /// `--ramp`: the shares to move through, and how long each lasts at least (seconds).
    public let ramp: (steps: [Percent], every: Int64)?

    public init(pack: PackID, share: Percent, regions: [String]?, versions: VersionRange?, reason: String?, ramp: (steps: [Percent], every: Int64)? = nil) {
        self.pack = pack
        self.share = share
        self.regions = regions
        self.versions = versions
        self.reason = reason
        self.ramp = ramp
    }

    var hasTargeting: Bool { regions != nil || versions != nil }
    /// Regions as stored in a rule: empty for every region.
    var ruleRegions: [String] { (regions ?? []).contains(Region.any) ? [] : (regions ?? []).sorted() }
}

/// The outcome of a promote, applied or (with --dry-run) only computed.
public struct PromoteOutcome {
    public enum Kind: String { case staged = "promote", completed = "complete", unchanged }
    public let kind: Kind
    public let before: Plan
    public let after: Plan
}

public enum PlanOperations {
    /// Computes the plan `request` leads to from `plan`, or refuses it with the reason and the way out.
    public static func promoted(_ plan: Plan, pack: Pack, request: PromoteRequest, parentCommit: String) throws -> (Plan, PromoteOutcome.Kind) {
        let id = request.pack
        let ref = Plan.PackRef(contentVersion: id.contentVersion, minAppVersion: pack.minAppVersion)
        if plan.isBlocked(id.contentVersion) {
            throw RolloutError.checkFailed("\(id) is blocked: it was reverted and no device may get it again. Publish the fix as a new version (\(id.locale)@\((plan.blocked.max() ?? id.contentVersion) + 1) or later)")
        }
        if let baseline = plan.baseline, id.contentVersion < baseline.contentVersion, !plan.bundledOnly {
            throw RolloutError.checkFailed("\(id) is older than the baseline \(id.locale)@\(baseline.contentVersion); to go back, use rollout revert \(id.locale) --to \(id.contentVersion)")
        }
        if plan.baseline?.contentVersion == id.contentVersion && !plan.bundledOnly {
            if request.share == .full && plan.rules.isEmpty { return (plan, .unchanged) }
            throw RolloutError.checkFailed("\(id) is already the baseline: every device that can run it has it")
        }

        if let candidate = plan.candidate, candidate.contentVersion != id.contentVersion {
            let staged = plan.rules.map(\.summary).joined(separator: "; ")
            throw RolloutError.checkFailed(
                "\(id.locale)@\(candidate.contentVersion) is still staged (\(staged)). Finish it first with rollout promote \(id.locale)@\(candidate.contentVersion) --to 100%, or take it back with rollout revert \(id.locale)")
        }
        var next = plan
        let everyone = request.share == .full && request.ruleRegions.isEmpty && (request.versions?.isAll ?? true)
        if plan.bundledOnly && !everyone {
            throw RolloutError.checkFailed(
                "the kill switch of \(id.locale) is on: every device uses its bundled strings, so a staged share would reach nobody. Turn it off by completing a pack: rollout promote \(id) --to 100%")
        }
        if everyone {
            next.setRules([])
            next.withdrawals = []
            next.bundledOnly = false
            next.ramp = nil
            // Last known good means older: after the kill switch a completion may go back to an earlier version.
            var previous: [Plan.PackRef] = []
            for candidate in (plan.baseline.map { [$0] } ?? []) + plan.previousBaselines
            where candidate.contentVersion < ref.contentVersion && !plan.isBlocked(candidate.contentVersion) && !previous.contains(candidate) {
                previous.append(candidate)
            }
            next.previousBaselines = previous
            next.baseline = ref
            return (next, .completed)
        }

        let salt = plan.rules.first?.salt ?? Bucketing.salt(locale: id.locale, contentVersion: id.contentVersion, parent: parentCommit)
        var rules = plan.rules
        if !request.hasTargeting && !rules.isEmpty {
            // No targeting given: the whole candidate moves to the new share, keeping each rule's targeting.
            for index in rules.indices { rules[index].share = request.share }
        } else {
            // One rule per region, so TR and DE can later move independently.
            for regions in request.ruleRegions.isEmpty ? [[]] : request.ruleRegions.map({ [$0] }) {
                let wanted = Plan.Rule(pack: ref, regions: regions, versions: request.versions ?? .all, share: request.share, salt: salt)
                if let index = rules.firstIndex(where: { $0.targetsSame(as: wanted) }) {
                    rules[index].share = request.share
                } else {
                    rules.append(wanted)
                }
            }
        }
        let lowered = plan.rules.contains { old in rules.contains { $0.targetsSame(as: old) && $0.share < old.share } }
        if lowered && (request.reason ?? "").trimmingSpaces.isEmpty {
            throw RolloutError.usage("lowering the share of \(id) takes devices back off it; say why with --reason TEXT")
        }
        next.setRules(rules)
        // A ramp given here starts now; a promote by hand takes the rollout off any schedule it had.
        next.ramp = request.ramp.map { Plan.Ramp(steps: $0.steps, every: $0.every, step: 0, since: Timestamp(seconds: 0)) }
        if request.hasTargeting {
            // Targeting a segment again takes it back from a scoped revert.
            let regions = request.ruleRegions
            let versions = request.versions ?? .all
            next.withdrawals.removeAll { w in
                (regions.isEmpty || w.region == Region.any || regions.contains(w.region))
                    && w.versions.overlaps(versions)
            }
        }
        if next.targeting == plan.targeting { return (plan, .unchanged) }
        if let (dead, winner, tooOld) = next.unreachableRule() {
            let minApp = "below \(id)'s minAppVersion \(pack.minAppVersion)"
            var why = winner.map { "the rule for \($0.target) (\($0.share)) already decides those devices" } ?? "every device it would reach is \(minApp)"
            if winner != nil && tooOld { why += ", and the rest are \(minApp)" }
            throw RolloutError.checkFailed(
                "a rule for \(dead.target) would never apply: \(why). Use targeting that does not overlap it, or change the share of the rule that decides")
        }
        // Nothing any device would notice (same shares everywhere) and no schedule to start: nothing to record.
        if request.ramp == nil && SegmentShares.changes(from: plan.targeting, to: next.targeting).isEmpty { return (plan, .unchanged) }
        return (next, .staged)
    }

    /// Whether `after` gives the staged pack to more devices than `before` did, in a rollout that was
    /// already staged (the first stage of a pack has nothing to be measured against yet).
    public static func widens(_ before: Plan, _ after: Plan, kind: PromoteOutcome.Kind) -> Bool {
        guard !before.rules.isEmpty else { return false }
        if kind == .completed { return true }
        // Taking a segment back from a scoped revert gives it the staged pack again.
        if after.withdrawals.count < before.withdrawals.count { return true }
        return after.rules.contains { rule in
            guard let old = before.rules.first(where: { $0.targetsSame(as: rule) }) else { return true }
            return rule.share > old.share
        }
    }

    /// Runs a promote on the repository (or, with `dryRun`, only computes it), through the health gate
    /// (`PromoteGate`): `health` judges a plan on the snapshot the change will apply to (nil: nothing
    /// staged against a baseline). It is passed in because the metrics are read outside this target.
    public static func promote(
        _ request: PromoteRequest, in repository: PackRepository, dryRun: Bool, override: PromoteGate.Override?, actor: Actor,
        time: @escaping () -> Timestamp, health: (Snapshot, Plan) throws -> Health.Report?
    ) throws -> PackRepository.Applied<PromoteOutcome> {
        try repository.apply(actor: actor, time: time) { snapshot in
            let pack = try snapshot.requirePack(request.pack)
            let locale = request.pack.locale
            let before = try snapshot.plan(locale) ?? Plan(locale: locale)
            var (after, kind) = try promoted(before, pack: pack, request: request, parentCommit: snapshot.commit?.hex ?? "")
            if kind == .unchanged {
                return (nil, PromoteOutcome(kind: .unchanged, before: before, after: after))
            }
            let forced = try PromoteGate.decide(before: before, after: after, kind: kind, override: override) {
                try health(snapshot, $0)
            }.forcedTrailer(pack: request.pack)
            if dryRun { return (nil, PromoteOutcome(kind: kind, before: before, after: after)) }
            after.lastChange = Plan.LastChange(action: kind.rawValue, actor: actor.description, time: time(), reason: request.reason)
            after.sequence = before.sequence + 1
            if after.ramp != nil { after.ramp!.since = time() }
            var trailers: [(name: Trailer, value: String)] = [
                (.action, kind.rawValue), (.locale, locale), (.pack, request.pack.description), (.percent, request.share.description),
            ]
            if kind == .staged {
                // What the change targeted: the flags given, every region/version when a new rule was
                // made without them, or every staged rule when only the share moved.
                let movedAll = !request.hasTargeting && !before.rules.isEmpty
                trailers.append((.regions, movedAll ? "all staged rules" : (request.regions?.joined(separator: ",") ?? "*")))
                trailers.append((.versions, movedAll ? "all staged rules" : (request.versions?.description ?? "*")))
            }
            if let forced { trailers.append((.forced, forced)) }
            if let ramp = request.ramp {
                trailers.append((.ramp, ramp.steps.map(\.description).joined(separator: ",") + " every \(ramp.every)s"))
            }
            if let reason = request.reason { trailers.append((.reason, reason)) }
            let summary = kind == .completed
                ? "complete \(request.pack): the baseline of \(locale)"
                : "promote \(request.pack) to \(request.share)" + (request.regions.map { " in \($0.joined(separator: ","))" } ?? "") + (request.versions.map { " on \($0)" } ?? "")
            let change = Change(summary: summary, trailers: trailers, writes: [(StateLayout.plan(locale), JSONWriter.pretty(after.jsonValue))])
            return (change, PromoteOutcome(kind: kind, before: before, after: after))
        }
    }

    /// Moves a scheduled ramp to its next step if it is due (guard's job): completes the rollout when
    /// the next step is 100% with no region or version limit. `gate` decides whether health allows it.
    public static func advanceRamp(
        locale: String, in repository: PackRepository, actor: Actor, time: @escaping () -> Timestamp, gate: (Snapshot, Plan) throws -> Bool
    ) throws -> PackRepository.Applied<PromoteOutcome?> {
        try repository.apply(actor: actor, time: time) { snapshot in
            guard let before = try snapshot.plan(locale), let ramp = before.ramp, ramp.due(at: time()), let candidate = before.candidate,
                let share = ramp.next, try gate(snapshot, before)
            else { return (nil, nil) }
            let id = PackID(locale: locale, contentVersion: candidate.contentVersion)
            let pack = try snapshot.requirePack(id)
            let unrestricted = before.rules.allSatisfy { $0.regions.isEmpty && $0.versions.isAll }
            var moved = before
            var kind = PromoteOutcome.Kind.staged
            if share == .full && unrestricted {
                (moved, kind) = try promoted(before, pack: pack, request: PromoteRequest(pack: id, share: .full, regions: nil, versions: nil, reason: nil), parentCommit: "")
            } else {
                var rules = before.rules
                for index in rules.indices { rules[index].share = share }
                moved.setRules(rules)
                moved.ramp = ramp
                moved.ramp!.step += 1
                moved.ramp!.since = time()
            }
            moved.sequence = before.sequence + 1
            moved.lastChange = Plan.LastChange(action: ChangeAction.ramp.rawValue, actor: actor.description, time: time(), reason: "scheduled step \(ramp.step + 2) of \(ramp.steps.count)")
            let trailers: [(name: Trailer, value: String)] = [
                (.action, ChangeAction.ramp.rawValue), (.locale, locale), (.pack, id.description), (.percent, share.description),
                (.reason, "scheduled ramp step \(ramp.step + 2) of \(ramp.steps.count), healthy"),
            ]
            let summary = kind == .completed ? "ramp \(id) to 100%: the baseline of \(locale)" : "ramp \(id) to \(share)"
            let change = Change(summary: summary, trailers: trailers, writes: [(StateLayout.plan(locale), JSONWriter.pretty(moved.jsonValue))])
            return (change, PromoteOutcome(kind: kind, before: before, after: moved))
        }
    }

    /// Holds (or releases) a scheduled ramp by hand.
    public static func setPaused(
        _ paused: Bool, locale: String, reason: String?, in repository: PackRepository, actor: Actor, time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<Plan> {
        try repository.apply(actor: actor, time: time) { snapshot in
            guard let before = try snapshot.plan(locale), let ramp = before.ramp else {
                throw RolloutError.checkFailed("\(locale) has no scheduled ramp to \(paused ? "pause" : "resume"); start one with promote --ramp")
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
            let change = Change(summary: "\(action) the ramp of \(locale)", trailers: trailers, writes: [(StateLayout.plan(locale), JSONWriter.pretty(after.jsonValue))])
            return (change, after)
        }
    }
}
