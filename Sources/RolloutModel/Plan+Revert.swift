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
            guard let id = try? PackID.parse(text) else { throw RevertRefusal.notATarget(text, locale: locale) }
            guard id.locale == locale else {
                throw RevertRefusal.targetOfAnotherLocale(text, id, locale: locale)
            }
            digits = String(id.contentVersion)
        }
        guard let version = Int(digits), version >= 1, digits.allSatisfy(\.isNumber) else {
            throw RevertRefusal.notATarget(text, locale: locale)
        }
        return .version(version)
    }

    public var label: String {
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

    public init(
        locale: String, segment: (region: String, versions: VersionRange)?, target: RevertTarget, reason: String?,
        block: Bool
    ) {
        self.locale = locale
        self.segment = segment
        self.target = target
        self.reason = reason
        self.block = block
    }
}

extension Plan {
    /// The plan a revert leads to and the versions it blocks, or a refusal with the way out
    /// (docs/targeting.md). `minAppVersion(v)` gives the minAppVersion of the locale's pack v, or nil
    /// when there is no such pack.
    public func reverted(by request: RevertRequest, minAppVersion: (Int) throws -> AppVersion?) throws -> (Plan, [Int])
    {
        if let segment = request.segment {
            guard request.target == .lastKnownGood else {
                throw RevertRefusal.segmentWithTarget
            }
            return try withdrawing(segment)
        }
        switch request.target {
        case .lastKnownGood: return try revertedToLastKnownGood(blocking: request.block)
        case .version(let version):
            guard let minApp = try minAppVersion(version) else {
                throw RolloutError.missing("no pack \(locale)@\(version) to go back to")
            }
            return try reverted(
                toVersion: PackRef(contentVersion: version, minAppVersion: minApp), blocking: request.block)
        case .bundled:
            if bundledOnly { return (self, []) }
            var next = withoutStagedRules()
            next.bundledOnly = true
            return next.finishingRevert(
                of: self, blocking: staged + [baseline?.contentVersion].compactMap { $0 }, request.block)
        }
    }

    /// A scoped revert: the candidate is taken back from one segment, if it reaches any device there.
    func withdrawing(_ segment: (region: String, versions: VersionRange)) throws -> (Plan, [Int]) {
        guard !staged.isEmpty else {
            throw RevertRefusal.nothingStagedToWithdraw(
                locale: locale, segment: "\(segment.region)/\(segment.versions)")
        }
        let exposed = SegmentShares.of(self, region: segment.region, versions: segment.versions).pieces.contains {
            piece in
            piece.shares.contains { share in staged.contains { share.outcome == .pack($0) } }
        }
        guard exposed else { return (self, []) }
        var next = self
        next.withdrawals.append(Withdrawal(region: segment.region, versions: segment.versions))
        return (next, [])
    }

    /// Withdraws what is staged, or with nothing staged goes back to the newest earlier baseline
    /// that is not blocked.
    func revertedToLastKnownGood(blocking: Bool) throws -> (Plan, [Int]) {
        if !staged.isEmpty {
            return withoutStagedRules().finishingRevert(of: self, blocking: staged, blocking)
        }
        if bundledOnly { return (self, []) }
        guard let baseline else {
            throw RevertRefusal.nothingPromoted(locale: locale)
        }
        guard let index = previousBaselines.firstIndex(where: { !isBlocked($0.contentVersion) }) else {
            throw RevertRefusal.noEarlierBaseline(locale: locale, baseline: baseline.contentVersion)
        }
        var next = self
        next.baseline = previousBaselines[index]
        next.previousBaselines = Array(previousBaselines[(index + 1)...])
        return next.finishingRevert(of: self, blocking: [baseline.contentVersion], blocking)
    }

    /// `--to VERSION`: an earlier version becomes the baseline (or, under the kill switch, any
    /// version that is not blocked), blocking what devices received after it.
    func reverted(toVersion target: PackRef, blocking: Bool) throws -> (Plan, [Int]) {
        let version = target.contentVersion
        if isBlocked(version) { throw RevertRefusal.targetBlocked(locale: locale, version: version) }
        let served = staged + [bundledOnly ? nil : baseline?.contentVersion].compactMap { $0 }
        var next = withoutStagedRules()
        next.bundledOnly = false
        next.baseline = target
        next.previousBaselines = previousBaselines.filter { $0.contentVersion < version }
        // Out of the kill switch, back to a version that is not blocked.
        if bundledOnly { return (next, []) }
        guard let newest = served.max(), version < newest || (version == baseline?.contentVersion && !staged.isEmpty)
        else {
            if baseline?.contentVersion == version && staged.isEmpty && !bundledOnly { return (self, []) }
            throw RevertRefusal.targetNotEarlier(locale: locale, version: version)
        }
        return next.finishingRevert(of: self, blocking: served.filter { $0 > version }, blocking)
    }

    /// What a revert takes back: the candidate, or a running experiment's variants other than the
    /// baseline (docs/experiments.md, "What the guarantee covers": rollback always works).
    public var staged: [Int] {
        if let candidate { return [candidate.contentVersion] }
        return (experiment?.variants.map(\.pack.contentVersion) ?? []).filter { $0 != baseline?.contentVersion }
    }

    /// This plan with no staged rules, no testers, no withdrawals and no experiment.
    func withoutStagedRules() -> Plan {
        var next = self
        next.setRules([])
        next.testers = []
        next.withdrawals = []
        next.experiment = nil
        return next
    }

    /// The end of every revert that moves devices: no ramp without rules, and `versions` added to
    /// the blocked list of `before` unless `--no-block` was given.
    func finishingRevert(of before: Plan, blocking versions: [Int], _ block: Bool) -> (Plan, [Int]) {
        var next = self
        if next.rules.isEmpty { next.ramp = nil }
        guard block else { return (next, []) }
        next.blocked = Array(Set(before.blocked + versions)).sorted()
        return (next, versions)
    }
}
