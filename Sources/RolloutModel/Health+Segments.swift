/// Health per segment (docs/health.md, "Widening, segment by segment"): what each segment's verdict
/// rests on, which segments a plan gives the staged pack in, and which of those are not yet proven.
extension Health {
    /// One segment's standing: the worst of its checks, its sample ratio, and what it rests on.
    public struct Standing: Sendable {
        public let segment: String
        /// Unhealthy if a check is, insufficient-data if a check is or there is none, else healthy.
        public let verdict: Verdict
        public let checks: [Check]
        public let sampleRatio: SampleRatio.Check?

        /// A sample ratio mismatch holds the rollout, whatever the verdict.
        public var mismatch: Bool { sampleRatio?.verdict == .mismatch }

        /// Exposures of each arm for `kind` (sessions, lookups) the verdict rests on; nil unmeasured.
        public func exposures(_ kind: MetricKind) -> (candidate: Int, baseline: Int)? {
            checks.first { $0.kind == kind }.map { ($0.candidate.total, $0.baseline.total) }
        }

        /// The longest wait of its checks (0: judged now); nil when a check's traffic is unknown or
        /// the segment has no check yet.
        public var daysToDecision: Double? {
            guard !checks.isEmpty else { return nil }
            var longest = 0.0
            for check in checks {
                guard let days = check.daysToDecision else { return nil }
                longest = max(longest, days)
            }
            return longest
        }
    }
}

extension Health.Report {
    /// One standing per segment with a check or a sample ratio, or targeted, in segment order.
    public var standings: [Health.Standing] {
        let labels = Set(checks.map(\.segment)).union(sampleRatios.map(\.segment)).union(targeted).sorted()
        return standings(of: labels)
    }

    /// The standing of `segment`; insufficient-data when nothing measured it.
    public func standing(of segment: String) -> Health.Standing {
        standing(
            of: segment, checks: checks.filter { $0.segment == segment },
            sampleRatio: sampleRatios.first { $0.segment == segment })
    }

    /// The standings of `segments`, with the checks grouped once: a year of metrics has thousands
    /// of segments, and looking each one's checks up among all of them took seconds (issue 36).
    func standings(of segments: [String]) -> [Health.Standing] {
        let bySegment = Dictionary(grouping: checks, by: \.segment)
        var ratios: [String: SampleRatio.Check] = [:]
        for ratio in sampleRatios where ratios[ratio.segment] == nil { ratios[ratio.segment] = ratio }
        return segments.map { standing(of: $0, checks: bySegment[$0] ?? [], sampleRatio: ratios[$0]) }
    }

    func standing(of segment: String, checks own: [Health.Check], sampleRatio: SampleRatio.Check?) -> Health.Standing {
        Health.Standing(
            segment: segment, verdict: own.map(\.verdict).max() ?? .insufficientData, checks: own,
            sampleRatio: sampleRatio)
    }

    /// The segments whose sample ratio holds the rollout.
    public var mismatches: [SampleRatio.Check] { sampleRatios.filter { $0.verdict == .mismatch } }

    /// The segments `plan` gives its staged pack in, as far as the metrics know them: every segment
    /// with an observed region and app version the plan stages the pack for, and `REGION/*` for a
    /// region a rule names that no metrics row has come from yet. With `before`, only those where
    /// `plan` gives it to more devices than `before` did: the segments a widening widens.
    public func targetedSegments(by plan: Plan, widenedFrom before: Plan? = nil) -> [String] {
        // Completing a rollout leaves no staged rule: the pack is then judged as the new baseline.
        guard let candidate = (before?.candidate ?? plan.candidate)?.contentVersion else { return [] }
        var segments = Set<String>()
        // A check's segment was measured there even if `observed` was not filled in (a report built by hand).
        var regionsSeen = Set(checks.compactMap { $0.segment.split(separator: "/").first.map(String.init) })
        for key in observed {
            regionsSeen.insert(key.region)
            let after = plan.stagedBasisPoints(of: candidate, region: key.region, version: key.appVersion)
            let was = before?.stagedBasisPoints(of: candidate, region: key.region, version: key.appVersion) ?? 0
            if after > was { segments.insert(key.segment) }
        }
        for rule in plan.rules where before.map(rule.widens(from:)) ?? true {
            for region in rule.regions where !regionsSeen.contains(region) {
                let withdrawn = plan.withdrawals.contains {
                    ($0.region == region || $0.region == Region.any) && $0.versions.isAll
                }
                if !withdrawn { segments.insert("\(region)/*") }
            }
        }
        return segments.sorted()
    }

    /// The segments `plan` targets (those it widens from `before`, when given) that are not shown
    /// healthy: insufficient data there, or no candidate data at all. A widening needs each accepted.
    public func unproven(in plan: Plan, widenedFrom before: Plan? = nil) -> [Health.Standing] {
        unproven(among: targetedSegments(by: plan, widenedFrom: before))
    }

    /// Those of `segments` that are not shown healthy.
    public func unproven(among segments: [String]) -> [Health.Standing] {
        standings(of: segments).filter { $0.verdict == .insufficientData }
    }
}

extension Plan {
    /// Basis points of the devices in `region` on `version` that get `contentVersion` from the staged
    /// rules (0 where no rule gives it, it is withdrawn, blocked or too new for the app).
    public func stagedBasisPoints(of contentVersion: Int, region: String, version: AppVersion) -> Int {
        SegmentShares.sharesAt(self, regionCode: region, version: version)
            .first { $0.outcome == .pack(contentVersion) }?.basisPoints ?? 0
    }

    /// The share of `candidate` among the devices in `region` on `version` that get either
    /// `candidate` or `baseline`: what a sample ratio check expects of the two arms' sessions there.
    /// nil when neither arm is given there.
    public func armShare(candidate: Int, baseline: Int, region: String, version: AppVersion) -> Double? {
        let shares = SegmentShares.sharesAt(self, regionCode: region, version: version)
        let c = shares.first { $0.outcome == .pack(candidate) }?.basisPoints ?? 0
        let b = shares.first { $0.outcome == .pack(baseline) }?.basisPoints ?? 0
        return c + b > 0 ? Double(c) / Double(c + b) : nil
    }
}

/// A segment named on the command line (`--accept-insufficient TR/4.9`): a region code or `*`, and
/// an app-version family or `*`. `*` alone is every segment.
public struct SegmentPattern: Equatable, Sendable, CustomStringConvertible {
    public let region: String?
    public let family: String?

    /// `text` as a pattern, or nil when it is not REGION/FAMILY as health names segments.
    public init?(_ text: String) {
        let trimmed = text.trimmingSpaces
        if trimmed == "*" {
            (region, family) = (nil, nil)
            return
        }
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let regionOK = parts.first.map { $0 == "*" || Region.assigned.contains($0.uppercased()) } ?? false
        let familyOK =
            parts.count == 2
            && (parts[1] == "*"
                || (AppVersion(parts[1]).map { $0.components.count <= 2 && $0.family == parts[1] } ?? false))
        guard parts.count == 2, regionOK, familyOK else { return nil }
        region = parts[0] == "*" ? nil : parts[0].uppercased()
        family = parts[1] == "*" ? nil : parts[1]
    }

    /// Whether the segment label (`TR/4.9`, or `DE/*` for a region without metrics) is one it names.
    public func matches(_ segment: String) -> Bool {
        let parts = segment.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return false }
        return (region == nil || region == parts[0]) && (family == nil || family == parts[1])
    }

    public var description: String { "\(region ?? "*")/\(family ?? "*")" }
}
