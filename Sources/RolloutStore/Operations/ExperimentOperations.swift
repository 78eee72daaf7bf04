import RolloutModel

/// What an experiment change did: its record after it, and the locale's plan before and after.
public struct ExperimentChange {
    public let record: ExperimentRecord
    public let before: Plan
    public let after: Plan
    /// The staged pack's promote, for a stop that ships one that is not the control.
    public let shipped: PromoteOutcome?
    /// The rollback manifest a stop for harm writes.
    public let rollback: RollbackManifest?
}

/// Experiments (docs/experiments.md). Each start and each stop is one commit that writes the
/// experiment's record (`experiments/<name>.json`) and the locale's plan.
public enum ExperimentOperations {
    /// Starts an experiment: checks the question, finds the keys whose text differs between the
    /// variants, draws the salt, and publishes the split in the plan.
    public static func start(
        _ request: ExperimentRequest, in repository: PackRepository, actor: Actor, time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<ExperimentChange> {
        try request.check()
        return try repository.apply(actor: actor, time: time) { snapshot in
            let locale = request.locale
            if let taken = try snapshot.experiment(request.name) {
                throw ExperimentRefusal.nameTaken(request.name, locale: taken.locale, running: taken.isRunning)
            }
            // The packs first: a pack that does not exist is named before what the plan holds.
            let packs = try request.variants.map { try snapshot.requirePack($0) }
            let before = try snapshot.plan(locale) ?? Plan(locale: locale)
            if let running = before.experiment {
                throw ExperimentRefusal.otherRunning(locale: locale, name: running.name)
            }
            if let candidate = before.candidate {
                throw ExperimentRefusal.candidateStaged(
                    locale: locale, candidate: PackID(locale: locale, contentVersion: candidate.contentVersion))
            }
            if before.bundledOnly { throw ExperimentRefusal.underKillSwitch(locale) }
            var refs: [Plan.PackRef] = []
            for (id, pack) in zip(request.variants, packs) {
                if before.isBlocked(id.contentVersion) { throw ExperimentRefusal.blocked(id) }
                refs.append(Plan.PackRef(contentVersion: id.contentVersion, minAppVersion: pack.minAppVersion))
            }
            var request = request
            request.versions = try targetedVersions(request, refs)
            let keys = variedKeys(packs)
            guard !keys.isEmpty else { throw ExperimentRefusal.sameText(request.variants) }
            let now = time()
            let record = ExperimentRecord(
                name: request.name, locale: locale, variants: refs, split: try request.shares(),
                regions: request.regions, versions: request.versions, primary: request.primary,
                exploratory: request.exploratory, guardrails: request.guardrails, days: request.days,
                salt: Plan.Experiment.salt(name: request.name, locale: locale, parent: snapshot.commit?.hex ?? ""),
                keys: keys, started: now, startedBy: actor.description, reason: request.reason)
            var after = before
            after.experiment = record.published
            after.sequence = before.sequence + 1
            after.lastChange = Plan.LastChange(
                action: ChangeAction.experimentStart.rawValue, actor: actor.description, time: now,
                reason: request.reason)
            var trailers: [(name: Trailer, value: String)] = [
                (.action, ChangeAction.experimentStart.rawValue), (.locale, locale), (.experiment, request.name),
                (.variants, record.variantsLabel()),
                (.percent, record.split.dropFirst().max()?.description ?? "0%"),
                (.metrics, record.metrics.joined(separator: ",")),
                (.regions, request.regions.isEmpty ? "*" : request.regions.joined(separator: ",")),
                (.versions, request.versions.description),
            ]
            if let reason = request.reason { trailers.append((.reason, reason)) }
            let change = Change(
                summary: "experiment start \(request.name): \(record.variantsLabel())", trailers: trailers,
                writes: [
                    (StateLayout.experiment(request.name), JSONWriter.pretty(record.jsonValue)),
                    (StateLayout.plan(locale), JSONWriter.pretty(after.jsonValue)),
                ])
            return (change, ExperimentChange(record: record, before: before, after: after, shipped: nil, rollback: nil))
        }
    }

    /// The app versions the experiment targets: every device must be able to run every variant, or
    /// the devices too old for one would sit in the others only. Without `--app-version`, the versions
    /// from the newest minAppVersion on; a range given that reaches below it is refused.
    static func targetedVersions(_ request: ExperimentRequest, _ refs: [Plan.PackRef]) throws -> VersionRange {
        guard let newest = refs.max(by: { $0.minAppVersion < $1.minAppVersion }) else { return request.versions }
        if request.versions.isAll {
            return newest.minAppVersion == AppVersion(components: [0])
                ? .all : try VersionRange.parse(">=\(newest.minAppVersion)")
        }
        guard let floor = request.versions.lower?.version, floor >= newest.minAppVersion else {
            throw ExperimentRefusal.belowMinAppVersion(
                PackID(locale: request.locale, contentVersion: newest.contentVersion),
                minAppVersion: newest.minAppVersion, versions: request.versions)
        }
        return request.versions
    }

    /// The keys whose text differs between any variant and the control, or that one holds and another
    /// does not: the keys whose reads count exposures.
    static func variedKeys(_ packs: [Pack]) -> [String] {
        let control = packs[0].strings
        var keys = Set<String>()
        for pack in packs.dropFirst() {
            for (key, text) in pack.strings where control[key] != text { keys.insert(key) }
            for key in control.keys where pack.strings[key] == nil { keys.insert(key) }
        }
        return keys.sorted()
    }

    /// How a stop ends an experiment.
    public enum Ending {
        /// Devices go back to what the plan gives without it.
        case stop
        /// The pack is staged as an ordinary rollout, at `share` in the experiment's targeting,
        /// through the promote gate (`override`, `health`); the control is kept as it is.
        case ship(PackID, share: Percent?, override: PromoteGate.Override?, accepting: [SegmentPattern])
        /// Guard found harm: the harmful variants are blocked and a rollback manifest records why.
        case harm(reason: String, blocking: [Int], evidence: JSONValue)
    }

    /// Stops a running experiment.
    public static func stop(
        _ name: String, ending: Ending, reason: String?, in repository: PackRepository, actor: Actor,
        time: @escaping () -> Timestamp, health: @escaping (Snapshot, Plan) throws -> Health.Report?
    ) throws -> PackRepository.Applied<ExperimentChange> {
        try repository.apply(actor: actor, time: time) { snapshot in
            guard var record = try snapshot.experiment(name) else {
                throw ExperimentRefusal.noSuchExperiment(name, known: try snapshot.experimentNames())
            }
            guard record.isRunning, let before = try snapshot.plan(record.locale), before.experiment?.name == name
            else { throw ExperimentRefusal.notRunning(name, outcome: record.ending?.outcome ?? "stopped") }
            let now = time()
            var stop = Stopping(record: record, before: before)
            switch ending {
            case .stop: break
            case .ship(let id, let share, let override, let accepting):
                try stop.ship(
                    id, share: share, reason: reason, on: snapshot, override: override, accepting: accepting,
                    actor: actor, time: time, health: health)
            case .harm(let why, let blocking, let evidence):
                try stop.harm(why, blocking: blocking, evidence: evidence, on: snapshot, actor: actor, time: now)
            }
            stop.trailers.append((.outcome, stop.outcome))
            if let reason { stop.trailers.append((.reason, reason)) }
            stop.plan.sequence = before.sequence + 1
            stop.plan.lastChange = Plan.LastChange(
                action: ChangeAction.experimentStop.rawValue, actor: actor.description, time: now, reason: reason)
            record.ending = ExperimentRecord.Ending(
                actor: actor.description, time: now, reason: reason, outcome: stop.outcome)
            let change = Change(
                summary: "experiment stop \(name): \(stop.outcome)", trailers: stop.trailers,
                writes: [
                    (StateLayout.experiment(name), JSONWriter.pretty(record.jsonValue)),
                    (StateLayout.plan(record.locale), JSONWriter.pretty(stop.plan.jsonValue)),
                ] + stop.extra)
            return (
                change,
                ExperimentChange(
                    record: record, before: before, after: stop.plan, shipped: stop.shipped, rollback: stop.rollback)
            )
        }
    }

    /// What a stop writes, built up by how it ends.
    struct Stopping {
        let record: ExperimentRecord
        let before: Plan
        /// The plan without the experiment, then with what the ending did to it.
        var plan: Plan
        var outcome = "stopped"
        var shipped: PromoteOutcome?
        var rollback: RollbackManifest?
        var extra: [(path: String, bytes: [UInt8])] = []
        var trailers: [(name: Trailer, value: String)]

        init(record: ExperimentRecord, before: Plan) {
            self.record = record
            self.before = before
            plan = before
            plan.experiment = nil
            trailers = [
                (.action, ChangeAction.experimentStop.rawValue), (.locale, record.locale), (.experiment, record.name),
            ]
        }

        /// `--ship`: the variant promoted in the experiment's targeting, through the promote's own
        /// transform and gate, on the plan without the experiment; the baseline is kept as it is.
        mutating func ship(
            _ id: PackID, share: Percent?, reason: String?, on snapshot: Snapshot, override: PromoteGate.Override?,
            accepting: [SegmentPattern], actor: Actor, time: () -> Timestamp,
            health: (Snapshot, Plan) throws -> Health.Report?
        ) throws {
            let variants = record.variants.map(record.id)
            guard let index = variants.firstIndex(of: id) else {
                throw ExperimentRefusal.shipNotAVariant(id, variants: variants)
            }
            if id.contentVersion == before.baseline?.contentVersion {
                if let share { throw ExperimentRefusal.shipBaselineAtAShare(id, share: share) }
                outcome = "kept \(id), the baseline"
                return
            }
            let target = share ?? record.split[index]
            guard target.basisPoints > 0 else { throw ExperimentRefusal.shipToNothing(id, name: record.name) }
            let request = PromoteRequest(
                pack: id, share: target, regions: record.regions.isEmpty ? nil : record.regions,
                versions: record.versions.isAll ? nil : record.versions,
                reason: reason ?? "experiment \(record.name) shipped it")
            // What the experiment gave: the variant at its share of the targeting. The gate judges the
            // widening from it (shipping at that share widens nothing; beyond it, health decides). The
            // variant whose range starts at bucket 0 (the first treatment: `Plan.Experiment.ranges`)
            // carries on with the experiment's salt, so exactly the devices that had it keep it and a
            // wider share only adds devices; any other variant is a new rollout with a fresh salt.
            var given = plan
            given.setRules([
                Plan.Rule(
                    pack: record.variants[index], regions: record.regions, versions: record.versions,
                    share: record.split[index], salt: record.salt)
            ])
            let keeps = record.published.variants[index].from == 0
            let (change, promoted) = try PlanOperations.promoteChange(
                request, on: snapshot, before: keeps ? given : plan, gatedFrom: given, override: override,
                accepting: accepting, actor: actor, time: time, health: health)
            shipped = promoted
            plan = promoted.after
            outcome = "shipped \(id) to \(target)"
            trailers.append((.pack, id.description))
            let own: [Trailer] = [.action, .locale, .pack, .reason]
            // Shipping at the share it had changes no rule: the promote records nothing, the stop its share.
            trailers += (change?.trailers ?? [(.percent, target.description)]).filter { !own.contains($0.name) }
        }

        /// Guard's stop: the harmful variants blocked and a rollback manifest, as a revert writes one.
        mutating func harm(
            _ why: String, blocking: [Int], evidence: JSONValue, on snapshot: Snapshot, actor: Actor, time: Timestamp
        ) throws {
            outcome = "harm: \(why)"
            plan.blocked = Array(Set(plan.blocked + blocking)).sorted()
            let id = try RevertOperations.nextRollbackID(of: record.locale, on: snapshot)
            var finished = plan
            finished.sequence = before.sequence + 1
            let document = RevertOperations.rollbackDocument(
                id: id,
                request: RevertRequest(
                    locale: record.locale, segment: nil, target: .lastKnownGood,
                    reason: "guard: experiment \(record.name): \(why)", block: true),
                before: before, after: finished, blocked: blocking, evidence: evidence, actor: actor, time: time)
            rollback = RollbackManifest(id: id, document: document)
            extra.append((StateLayout.rollback(id), JSONWriter.pretty(document)))
            trailers.append((.blocked, blocking.map { "\(record.locale)@\($0)" }.joined(separator: ",")))
            trailers.append((.rollback, id))
        }
    }
}
