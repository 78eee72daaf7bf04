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
    /// `--to testers:GROUP`: the group's name; `share` is then unused. The operation reads the group
    /// from the repository into `testers` before the plan is computed.
    public let testerGroup: String?
    /// The group `testerGroup` names, as the repository holds it.
    public var testers: TesterGroup?

    public init(
        pack: PackID, share: Percent, regions: [String]?, versions: VersionRange?, reason: String?,
        ramp: (steps: [Percent], every: Int64)? = nil, testerGroup: String? = nil
    ) {
        self.testerGroup = testerGroup
        self.pack = pack
        self.share = share
        self.regions = regions
        self.versions = versions
        self.reason = reason
        self.ramp = ramp
    }

    public var hasTargeting: Bool { regions != nil || versions != nil }
    /// Regions as stored in a rule: empty for every region.
    public var ruleRegions: [String] { (regions ?? []).contains(Region.any) ? [] : (regions ?? []).sorted() }
    /// 100% with no region or version limit: the pack becomes the baseline.
    var reachesEveryone: Bool {
        testerGroup == nil && share == .full && ruleRegions.isEmpty && (versions?.isAll ?? true)
    }

    /// What the promote targets, as its summary and `Rollout-Percent` say: `testers:qa` or the share.
    public var target: String { testerGroup.map { "testers:\($0)" } ?? share.description }
}

/// What a promote does to a plan. The raw value is the action recorded for it (a plan's
/// `lastChange.action` and the commit's `Rollout-Action`) and the `action` of `promote --json`.
public enum PromoteEffect: String, Equatable, Sendable {
    /// Nothing any device would notice and no schedule to start: nothing to record.
    case unchanged
    /// Staged rules were added or moved.
    case staged = "promote"
    /// The pack became the baseline of every device that can run it.
    case completed = "complete"
}

extension Plan {
    /// The plan `request` leads to from this one, or a refusal with the reason and the way out
    /// (docs/targeting.md). `minAppVersion` is the promoted pack's; `parentCommit` seeds the salt
    /// of a rollout that starts here.
    public func promoted(
        by request: PromoteRequest, minAppVersion: AppVersion, parentCommit: String
    ) throws -> (Plan, PromoteEffect) {
        let ref = PackRef(contentVersion: request.pack.contentVersion, minAppVersion: minAppVersion)
        guard try admits(request) else { return (self, .unchanged) }
        if let group = request.testers {
            var next = self
            next.testers.removeAll { $0.group == group.name }
            next.testers.append(TesterTarget(group, pack: ref))
            return next.targeting == targeting ? (self, .unchanged) : (next, .staged)
        }
        if request.reachesEveryone { return (completing(with: ref), .completed) }
        let next = try staging(request, ref: ref, parentCommit: parentCommit)
        if next.targeting == targeting { return (self, .unchanged) }
        if let (dead, winner, tooOld) = next.unreachableRule() {
            throw PromoteRefusal.ruleNeverApplies(
                dead, winner: winner, tooOld: tooOld, pack: request.pack, minAppVersion: minAppVersion)
        }
        if request.ramp == nil && SegmentShares.changes(from: targeting, to: next.targeting).isEmpty {
            return (self, .unchanged)
        }
        return (next, .staged)
    }

    /// The refusals that come before any rule is computed; false when the promote changes nothing
    /// (completing the baseline again).
    func admits(_ request: PromoteRequest) throws -> Bool {
        let id = request.pack
        if isBlocked(id.contentVersion) {
            throw PromoteRefusal.blocked(id, nextFree: (blocked.max() ?? id.contentVersion) + 1)
        }
        if let baseline, id.contentVersion < baseline.contentVersion, !bundledOnly {
            throw PromoteRefusal.olderThanBaseline(id, baseline: baseline.contentVersion)
        }
        if baseline?.contentVersion == id.contentVersion && !bundledOnly {
            if request.share == .full && rules.isEmpty { return false }
            throw PromoteRefusal.alreadyBaseline(id)
        }
        if let candidate, candidate.contentVersion != id.contentVersion {
            throw PromoteRefusal.otherCandidateStaged(
                locale: id.locale, candidate: candidate.contentVersion,
                staged: rules.map(\.summary).joined(separator: "; "))
        }
        if bundledOnly && !request.reachesEveryone { throw PromoteRefusal.underKillSwitch(id) }
        return true
    }

    /// `ref` as the baseline of every device, with the baselines before it kept as last known good.
    func completing(with ref: PackRef) -> Plan {
        var next = self
        next.setRules([])
        // Every device that can run it has it now, testers included.
        next.testers = []
        next.withdrawals = []
        next.bundledOnly = false
        next.ramp = nil
        // Last known good means older: after the kill switch a completion may go back to an earlier version.
        var previous: [PackRef] = []
        for candidate in (baseline.map { [$0] } ?? []) + previousBaselines
        where candidate.contentVersion < ref.contentVersion && !isBlocked(candidate.contentVersion)
            && !previous.contains(candidate)
        {
            previous.append(candidate)
        }
        next.previousBaselines = previous
        next.baseline = ref
        return next
    }

    /// The staged rules `request` sets, with its ramp, and the withdrawals its targeting takes back.
    func staging(_ request: PromoteRequest, ref: PackRef, parentCommit: String) throws -> Plan {
        let salt =
            rules.first?.salt
            ?? Bucketing.salt(locale: request.pack.locale, contentVersion: ref.contentVersion, parent: parentCommit)
        let moved = stagedRules(request, ref: ref, salt: salt)
        let lowered = rules.contains { old in moved.contains { $0.targetsSame(as: old) && $0.share < old.share } }
        if lowered && (request.reason ?? "").trimmingSpaces.isEmpty {
            throw PromoteRefusal.loweringWithoutReason(request.pack)
        }
        var next = self
        next.setRules(moved)
        // A ramp given here starts now; a promote by hand takes the rollout off any schedule it had.
        next.ramp = request.ramp.map { Ramp(steps: $0.steps, every: $0.every, step: 0, since: Timestamp(seconds: 0)) }
        if request.hasTargeting {
            // Targeting a segment again takes it back from a scoped revert.
            let regions = request.ruleRegions
            let versions = request.versions ?? .all
            next.withdrawals.removeAll { w in
                (regions.isEmpty || w.region == Region.any || regions.contains(w.region))
                    && w.versions.overlaps(versions)
            }
        }
        return next
    }

    /// The rules after `request`: with no targeting, every staged rule moves to the new share;
    /// otherwise one rule per region (so TR and DE can later move independently), new or moved.
    func stagedRules(_ request: PromoteRequest, ref: PackRef, salt: String) -> [Rule] {
        var rules = self.rules
        if !request.hasTargeting && !rules.isEmpty {
            for index in rules.indices { rules[index].share = request.share }
            return rules
        }
        for regions in request.ruleRegions.isEmpty ? [[]] : request.ruleRegions.map({ [$0] }) {
            let wanted = Rule(
                pack: ref, regions: regions, versions: request.versions ?? .all, share: request.share, salt: salt)
            if let index = rules.firstIndex(where: { $0.targetsSame(as: wanted) }) {
                rules[index].share = request.share
            } else {
                rules.append(wanted)
            }
        }
        return rules
    }
}
