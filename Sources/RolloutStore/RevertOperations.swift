import RolloutModel

/// Where a revert takes devices.
public enum RevertTarget: Equatable {
    /// Withdraw what is staged, or, with nothing staged, the previous known good baseline.
    case lastKnownGood
    /// An explicit earlier content version becomes the baseline.
    case version(Int)
    /// The kill switch: every device uses the strings bundled in the app.
    case bundled

    public static func parse(_ text: String, locale: String) throws -> RevertTarget {
        if text == "bundled" { return .bundled }
        var digits = text
        if text.contains("@") {
            guard let id = try? PackID.parse(text) else {
                throw RolloutError.usage("--to \"\(text)\" is not a content version (16, or \(locale)@16) or bundled")
            }
            guard id.locale == locale else { throw RolloutError.usage("--to \(text) is a \(id.locale) pack; reverting \(locale) needs a \(locale) version") }
            digits = String(id.contentVersion)
        }
        guard let version = Int(digits), version >= 1, digits.allSatisfy(\.isNumber) else {
            throw RolloutError.usage("--to \"\(text)\" is not a content version (16, or \(locale)@16) or bundled")
        }
        return .version(version)
    }

    var label: String {
        switch self {
        case .lastKnownGood: return "last-known-good"
        case .version(let v): return "version \(v)"
        case .bundled: return "bundled"
        }
    }
}

public struct RevertRequest {
    public let locale: String
    public let segment: (region: String, versions: VersionRange)?
    public let target: RevertTarget
    public let reason: String?
    /// False with `--no-block`: the reverted version may be promoted again.
    public let block: Bool

    public init(locale: String, segment: (region: String, versions: VersionRange)?, target: RevertTarget, reason: String?, block: Bool) {
        self.locale = locale
        self.segment = segment
        self.target = target
        self.reason = reason
        self.block = block
    }
}

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
    /// The plan a revert leads to and the versions it blocks, or a refusal with the way out.
    /// `minAppVersion(v)` gives the minAppVersion of the locale's pack v, or nil when there is no such pack.
    public static func reverted(_ plan: Plan, request: RevertRequest, minAppVersion: (Int) throws -> AppVersion?) throws -> (Plan, [Int]) {
        let locale = plan.locale
        var next = plan
        var block: [Int] = []
        if let segment = request.segment {
            guard request.target == .lastKnownGood else {
                throw RolloutError.usage("--segment takes devices back to the baseline; it cannot be combined with --to")
            }
            guard let candidate = plan.candidate else {
                throw RolloutError.checkFailed(
                    "nothing is staged for \(locale), so there is nothing to take back from \(segment.region)/\(segment.versions); to go back everywhere, run rollout revert \(locale)")
            }
            let exposed = SegmentShares.of(plan, region: segment.region, versions: segment.versions).pieces.contains { piece in
                piece.shares.contains { $0.outcome == .pack(candidate.contentVersion) }
            }
            guard exposed else { return (plan, []) }
            next.withdrawals.append(Plan.Withdrawal(region: segment.region, versions: segment.versions))
            return (next, [])
        }
        switch request.target {
        case .lastKnownGood:
            if let candidate = plan.candidate {
                next.setRules([])
                next.withdrawals = []
                block = [candidate.contentVersion]
            } else if plan.bundledOnly {
                return (plan, [])
            } else {
                guard let baseline = plan.baseline else {
                    throw RolloutError.checkFailed("nothing was ever promoted for \(locale): devices already use their bundled strings")
                }
                guard let index = plan.previousBaselines.firstIndex(where: { !plan.isBlocked($0.contentVersion) }) else {
                    throw RolloutError.checkFailed(
                        "\(locale)@\(baseline.contentVersion) is the only good baseline \(locale) has had: there is no earlier one to go back to. Use --to bundled for the kill switch, or promote a fix")
                }
                next.baseline = plan.previousBaselines[index]
                next.previousBaselines = Array(plan.previousBaselines[(index + 1)...])
                block = [baseline.contentVersion]
            }
        case .version(let version):
            guard let minApp = try minAppVersion(version) else {
                throw RolloutError.missing("no pack \(locale)@\(version) to go back to")
            }
            if plan.isBlocked(version) {
                throw RolloutError.checkFailed("\(locale)@\(version) is blocked: a revert cannot go back to a version that was itself reverted")
            }
            let served = [plan.candidate?.contentVersion, plan.bundledOnly ? nil : plan.baseline?.contentVersion].compactMap { $0 }
            if plan.bundledOnly {
                // Out of the kill switch, back to a version that is not blocked.
                next.setRules([])
                next.withdrawals = []
                next.bundledOnly = false
                next.baseline = Plan.PackRef(contentVersion: version, minAppVersion: minApp)
                next.previousBaselines = plan.previousBaselines.filter { $0.contentVersion < version }
                return (next, [])
            }
            guard let newest = served.max(), version < newest || (version == plan.baseline?.contentVersion && plan.candidate != nil) else {
                if plan.baseline?.contentVersion == version && plan.candidate == nil && !plan.bundledOnly { return (plan, []) }
                throw RolloutError.checkFailed("\(locale)@\(version) is not earlier than what devices receive now; to move forward, use rollout promote")
            }
            next.setRules([])
            next.withdrawals = []
            next.bundledOnly = false
            next.baseline = Plan.PackRef(contentVersion: version, minAppVersion: minApp)
            next.previousBaselines = plan.previousBaselines.filter { $0.contentVersion < version }
            block = served.filter { $0 > version }
        case .bundled:
            if plan.bundledOnly { return (plan, []) }
            next.setRules([])
            next.withdrawals = []
            next.bundledOnly = true
            block = [plan.candidate?.contentVersion, plan.baseline?.contentVersion].compactMap { $0 }
        }
        if next.rules.isEmpty { next.ramp = nil }
        if request.block {
            next.blocked = Array(Set(plan.blocked + block)).sorted()
        } else {
            block = []
        }
        return (next, block)
    }

    /// Runs a revert and writes its rollback manifest, in one commit.
    public static func revert(
        _ request: RevertRequest, in repository: PackRepository, evidence: JSONValue = .string("none"), actor: Actor, time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<RevertOutcome> {
        try repository.apply(actor: actor, time: time) { snapshot in
            let locale = request.locale
            guard let before = try snapshot.plan(locale) else {
                if try snapshot.contentVersions(of: locale).isEmpty {
                    throw RolloutError.missing("no locale \(locale): it has no packs and no plan")
                }
                throw RolloutError.checkFailed("nothing was ever promoted for \(locale): devices already use their bundled strings, there is nothing to revert")
            }
            var (after, blocked) = try reverted(before, request: request) { version in
                try snapshot.pack(PackID(locale: locale, contentVersion: version))?.minAppVersion
            }
            if after.targeting == before.targeting {
                return (nil, RevertOutcome(before: before, after: before, newlyBlocked: [], manifest: nil))
            }
            let now = time()
            after.sequence = before.sequence + 1
            after.lastChange = Plan.LastChange(action: ChangeAction.revert.rawValue, actor: actor.description, time: now, reason: request.reason)

            let number = try snapshot.directory(StateLayout.rollbackDirectory(locale)).filter { !$0.isTree }.count + 1
            let id = "\(locale)/\(number)"
            let manifest = RollbackManifest(id: id, document: rollbackDocument(
                id: id, request: request, before: before, after: after, blocked: blocked, evidence: evidence, actor: actor, time: now))
            var trailers: [(name: Trailer, value: String)] = [(.action, ChangeAction.revert.rawValue), (.locale, locale)]
            let reverted = blocked.isEmpty ? [before.candidate?.contentVersion ?? before.baseline?.contentVersion].compactMap { $0 } : blocked
            for version in reverted { trailers.append((.pack, "\(locale)@\(version)")) }
            trailers.append((.target, request.target.label))
            if let segment = request.segment { trailers.append((.segment, "\(segment.region)/\(segment.versions)")) }
            if !blocked.isEmpty { trailers.append((.blocked, blocked.map { "\(locale)@\($0)" }.joined(separator: ","))) }
            trailers.append((.rollback, id))
            if let reason = request.reason { trailers.append((.reason, reason)) }
            let summary = "revert \(locale)" + (request.segment.map { " in \($0.region)/\($0.versions)" } ?? "") + " to \(request.target.label)"
            let change = Change(summary: summary, trailers: trailers, writes: [
                (StateLayout.plan(locale), JSONWriter.pretty(after.jsonValue)), (StateLayout.rollback(id), manifest.bytes),
            ])
            return (change, RevertOutcome(before: before, after: after, newlyBlocked: blocked, manifest: manifest))
        }
    }

    static func rollbackDocument(
        id: String, request: RevertRequest, before: Plan, after: Plan, blocked: [Int], evidence: JSONValue, actor: Actor, time: Timestamp
    ) -> JSONValue {
        let locale = request.locale
        func shares(_ piece: SegmentShares.Piece) -> JSONValue {
            .array(piece.shares.map { ["pack": .string($0.outcome.label(locale: locale)), "basisPoints": .integer($0.basisPoints)] })
        }
        let segments: [JSONValue] = SegmentShares.changes(from: before.targeting, to: after.targeting).map { change in
            ["regions": .string(change.after.regions), "appVersions": .string(change.after.versions), "before": shares(change.before), "after": shares(change.after)]
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
