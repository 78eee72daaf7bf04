import RolloutModel

/// A rollback manifest: the immutable record one revert writes (docs/manifest.md, "Rollback manifests").
public struct RollbackManifest {
    public let id: String
    public let document: JSONValue

    public var bytes: [UInt8] { JSONWriter.pretty(document) }
}

public struct RevertOutcome {
    public let before: Plan
    public let after: Plan
    /// Versions this revert added to the blocked list.
    public let newlyBlocked: [Int]
    /// nil when the revert would change nothing.
    public let manifest: RollbackManifest?
}

public enum RevertOperations {
    /// Runs a revert and writes its rollback manifest, in one commit; in a dry run
    /// (`PackRepository.dryRun`), only computes both (the manifest is the one the revert would write
    /// now) and writes nothing.
    public static func revert(
        _ request: RevertRequest, in repository: PackRepository, evidence: JSONValue = .string("none"), actor: Actor,
        time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<RevertOutcome> {
        try repository.apply(actor: actor, time: time) { snapshot in
            let locale = request.locale
            guard let before = try snapshot.plan(locale) else {
                if try snapshot.contentVersions(of: locale).isEmpty {
                    throw RolloutError.missing("no locale \(locale): it has no packs and no plan")
                }
                throw .nothingToRevert(locale)
            }
            var (after, blocked) = try before.reverted(by: request) { version in
                try snapshot.pack(PackID(locale: locale, contentVersion: version))?.minAppVersion
            }
            if after.targeting == before.targeting {
                return (nil, RevertOutcome(before: before, after: before, newlyBlocked: [], manifest: nil))
            }
            let now = time()
            after.sequence = before.sequence + 1
            after.lastChange = Plan.LastChange(
                action: ChangeAction.revert.rawValue, actor: actor.description, time: now, reason: request.reason)

            let id = try nextRollbackID(of: locale, on: snapshot)
            let manifest = RollbackManifest(
                id: id,
                document: rollbackDocument(
                    id: id, request: request, before: before, after: after, blocked: blocked, evidence: evidence,
                    actor: actor, time: now))
            let summary =
                "revert \(locale)" + (request.segment.map { " in \($0.region)/\($0.versions)" } ?? "")
                + " to \(request.target.label)"
            var writes: [(path: String, bytes: [UInt8])] = [
                (StateLayout.plan(locale), JSONWriter.pretty(after.jsonValue)),
                (StateLayout.rollback(id), manifest.bytes),
            ]
            // A revert that ends a running experiment ends its record too: rollback never waits.
            let ended = try endedExperiment(
                before: before, after: after, rollback: id, request: request, on: snapshot, actor: actor, time: now)
            if let ended { writes.append(ended.write) }
            let trailers = revertTrailers(request, before: before, blocked: blocked, rollback: id, ended: ended?.name)
            let change = Change(summary: summary, trailers: trailers, writes: writes)
            let outcome = RevertOutcome(before: before, after: after, newlyBlocked: blocked, manifest: manifest)
            return (change, outcome)
        }
    }

    /// The id of the locale's next rollback manifest (`tr-TR/3`): they are numbered from 1 without a
    /// gap, by every revert and by guard's stop of an experiment.
    static func nextRollbackID(of locale: String, on snapshot: Snapshot) throws -> String {
        "\(locale)/\(try snapshot.directory(StateLayout.rollbackDirectory(locale)).filter { !$0.isTree }.count + 1)"
    }

    /// A revert's trailers (docs/audit.md): what it took back, to where, and the experiment it ended.
    static func revertTrailers(
        _ request: RevertRequest, before: Plan, blocked: [Int], rollback id: String, ended experiment: String?
    ) -> [(name: Trailer, value: String)] {
        let locale = request.locale
        var trailers: [(name: Trailer, value: String)] = [(.action, ChangeAction.revert.rawValue), (.locale, locale)]
        // What was taken back: what it blocked, else what was staged (a candidate, or a running
        // experiment's variants other than the baseline: a scoped revert blocks nothing), else the baseline.
        let staged = before.staged
        let reverted =
            !blocked.isEmpty ? blocked : !staged.isEmpty ? staged : [before.baseline?.contentVersion].compactMap { $0 }
        for version in reverted { trailers.append((.pack, "\(locale)@\(version)")) }
        trailers.append((.target, request.target.label))
        if let segment = request.segment { trailers.append((.segment, "\(segment.region)/\(segment.versions)")) }
        if !blocked.isEmpty {
            trailers.append((.blocked, blocked.map { "\(locale)@\($0)" }.joined(separator: ",")))
        }
        trailers.append((.rollback, id))
        if let experiment { trailers.append((.experiment, experiment)) }
        if let reason = request.reason { trailers.append((.reason, reason)) }
        return trailers
    }

    /// The record of the experiment a revert ends (it ran in `before`, not in `after`), ended.
    static func endedExperiment(
        before: Plan, after: Plan, rollback id: String, request: RevertRequest, on snapshot: Snapshot, actor: Actor,
        time: Timestamp
    ) throws -> (name: String, write: (path: String, bytes: [UInt8]))? {
        guard let running = before.experiment, after.experiment == nil,
            var record = try snapshot.experiment(running.name)
        else { return nil }
        record.ending = ExperimentRecord.Ending(
            actor: actor.description, time: time, reason: request.reason,
            outcome: "reverted to \(request.target.label) (rollback \(id))")
        return (running.name, (StateLayout.experiment(running.name), JSONWriter.pretty(record.jsonValue)))
    }

    static func rollbackDocument(
        id: String, request: RevertRequest, before: Plan, after: Plan, blocked: [Int], evidence: JSONValue,
        actor: Actor, time: Timestamp
    ) -> JSONValue {
        let locale = request.locale
        func shares(_ piece: SegmentShares.Piece) -> JSONValue {
            .array(
                piece.shares.map {
                    ["pack": .string($0.outcome.label(locale: locale)), "basisPoints": .integer($0.basisPoints)]
                })
        }
        let segments: [JSONValue] = SegmentShares.changes(from: before.targeting, to: after.targeting).map { change in
            [
                "regions": .string(change.after.regions), "appVersions": .string(change.after.versions),
                "before": shares(change.before), "after": shares(change.after),
            ]
        }
        return [
            "id": .string(id),
            "locale": .string(locale),
            "time": .string(time.description),
            "actor": .string(actor.description),
            "reason": request.reason.map { .string($0) } ?? .null,
            "scope": .string(request.segment.map { "\($0.region)/\($0.versions)" } ?? "all"),
            "target": .string(request.target.label),
            "segments": .array(segments),
            "blocked": .array(blocked.map { .string("\(locale)@\($0)") }),
            "blockedAfter": .array(after.blocked.map { .string("\(locale)@\($0)") }),
            "evidence": evidence,
            "manifestSequence": .integer(after.sequence),
        ]
    }
}

/// The refusals of revert, named (an extension of Error, so that `throw .name(...)` finds them).
extension Error where Self == RolloutError {
    fileprivate static func nothingToRevert(_ locale: String) -> RolloutError {
        .checkFailed(
            "nothing was ever promoted for \(locale): devices already use their bundled strings, there is nothing to revert"
        )
    }
}
