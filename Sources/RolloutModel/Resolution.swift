/// What a device gets from one locale's plan, and why (docs/targeting.md, "Resolution"). This one
/// function serves `rollout resolve`, `simulate`, the manifest checks and the client library.
public struct Resolution: Equatable, Sendable {
    public enum Outcome: Hashable, Sendable, Comparable {
        /// A pack of the plan's locale, by content version.
        case pack(Int)
        /// Nothing from this locale: the device uses the next locale of its chain, then its bundled strings.
        case bundled

        public func label(locale: String) -> String {
            switch self {
            case .pack(let version): return "\(locale)@\(version)"
            case .bundled: return "bundled"
            }
        }
    }

    public let outcome: Outcome
    /// One line per rule or baseline considered, in order.
    public let trace: [String]

    /// Resolves one device. `appVersion` nil means the app reported something that is not a numeric
    /// version: such a device matches nothing and keeps its bundled strings.
    public static func resolve(_ plan: Plan, region: String, appVersion: AppVersion?, installID: String) -> Resolution {
        var trace: [String] = []
        let outcome = evaluate(plan, region: region, appVersion: appVersion, installID: installID) {
            trace.append($0())
        } inExperiment: { _ in
        }
        return Resolution(outcome: outcome, trace: trace)
    }

    /// The outcome alone, without building the explanation: for simulations and devices.
    public static func outcome(_ plan: Plan, region: String, appVersion: AppVersion?, installID: String) -> Outcome {
        evaluate(plan, region: region, appVersion: appVersion, installID: installID) { _ in
        } inExperiment: { _ in
        }
    }

    /// The variant a device is **in**: the one step 4 of resolution gives it (docs/experiments.md).
    /// Nil when resolution ends before that step (an app version that is not numeric, the kill
    /// switch, a withdrawn segment, a tester) or goes past it (outside the targeting or every range,
    /// a blocked variant, an app below the variant's minAppVersion). The clients count exposures and
    /// conversions for this variant whichever pack is active (intention to treat).
    public static func experimentVariant(
        _ plan: Plan, region: String, appVersion: AppVersion?, installID: String
    ) -> Plan.Experiment.Variant? {
        var found: Plan.Experiment.Variant?
        _ = evaluate(plan, region: region, appVersion: appVersion, installID: installID) { _ in
        } inExperiment: {
            found = $0
        }
        return found
    }

    /// The resolution algorithm of docs/targeting.md, step by step. `note` receives each step's
    /// explanation lazily, so callers that do not want one pay nothing for it; `inExperiment` the
    /// experiment's variant when step 4 decides.
    private static func evaluate(
        _ plan: Plan, region: String, appVersion: AppVersion?, installID: String, note: (() -> String) -> Void,
        inExperiment: (Plan.Experiment.Variant) -> Void
    ) -> Outcome {
        guard let version = appVersion else {
            note { "app version is not numeric: nothing matches, bundled strings" }
            return .bundled
        }
        if plan.bundledOnly {
            note { "the kill switch is on: every device uses its bundled strings" }
            return .bundled
        }
        if let withdrawal = plan.withdrawals.first(where: { $0.matches(region: region, version: version) }) {
            note { "the staged pack was taken back from \(withdrawal.label) by a revert" }
        } else if let tester = tester(plan, version: version, installID: installID, note: note) {
            return tester
        } else if let variant = experiment(plan, region: region, version: version, installID: installID, note: note) {
            inExperiment(variant)
            return .pack(variant.pack.contentVersion)
        } else if let rule = plan.rules.first(where: { $0.matches(region: region, version: version) }) {
            let id = "\(plan.locale)@\(rule.pack.contentVersion)"
            let label = { "rule \(id) [regions \(rule.regionsLabel), versions \(rule.versions), \(rule.share)]" }
            if plan.isBlocked(rule.pack.contentVersion) {
                note { "\(label()): \(id) is blocked" }
            } else if version < rule.pack.minAppVersion {
                note { "\(label()): app \(version) is below its minAppVersion \(rule.pack.minAppVersion)" }
            } else {
                let bucket = Bucketing.bucket(installID: installID, salt: rule.salt)
                if bucket < rule.share.basisPoints {
                    note { "\(label()): bucket \(bucket) < \(rule.share.basisPoints), in the share" }
                    return .pack(rule.pack.contentVersion)
                }
                note { "\(label()): bucket \(bucket) is not below \(rule.share.basisPoints), not in the share" }
            }
        } else if !plan.rules.isEmpty {
            note { "no staged rule targets region \(region) on app \(version)" }
        }
        return baseline(plan, version: version, note: note)
    }

    /// The candidate, when the device is one of a tester group the plan names and can run it
    /// (docs/targeting.md, "Testers first"); nil sends it on to the rules. Whatever its bucket: a
    /// tester keeps the candidate as shares grow from 0.
    static func tester(_ plan: Plan, version: AppVersion, installID: String, note: (() -> String) -> Void)
        -> Outcome?
    {
        guard let target = plan.testers.first(where: { $0.includes(installID: installID) }) else {
            if !plan.testers.isEmpty { note { "not a tester of \(plan.testers.map(\.group).joined(separator: ", "))" } }
            return nil
        }
        let id = "\(plan.locale)@\(target.pack.contentVersion)"
        if plan.isBlocked(target.pack.contentVersion) {
            note { "a tester of \(target.group): \(id) is blocked" }
            return nil
        }
        if version < target.pack.minAppVersion {
            note {
                "a tester of \(target.group): app \(version) is below \(id)'s minAppVersion \(target.pack.minAppVersion)"
            }
            return nil
        }
        note { "a tester of \(target.group): \(id), whatever its bucket" }
        return .pack(target.pack.contentVersion)
    }

    static func baseline(_ plan: Plan, version: AppVersion, note: (() -> String) -> Void = { _ in }) -> Outcome {
        for (index, ref) in plan.baselines.enumerated() {
            // Made only when a note is taken: the log index asks this for every change in the history.
            func label() -> String {
                "\(index == 0 ? "baseline" : "earlier baseline") \(plan.locale)@\(ref.contentVersion)"
            }
            if plan.isBlocked(ref.contentVersion) {
                note { "\(label()) is blocked" }
            } else if version < ref.minAppVersion {
                note { "\(label()) needs app \(ref.minAppVersion), device has \(version)" }
            } else {
                note { label() }
                return .pack(ref.contentVersion)
            }
        }
        note {
            plan.baselines.isEmpty ? "no baseline: bundled strings" : "no baseline this app can run: bundled strings"
        }
        return .bundled
    }
}

extension Plan {
    /// A rule no device can reach first (an earlier rule always matches before it), and the rule
    /// that shadows it; nil when every rule decides for some device.
    public func unreachableRule() -> (rule: Rule, shadowedBy: Rule?, tooOld: Bool)? {
        let named = Set(rules.flatMap(\.regions))
        // A region no rule names stands for all of them; when rules name every region there is none.
        let unnamed = Region.assigned.sorted().first { !named.contains($0) }
        for rule in rules {
            let regions = rule.regions.isEmpty ? named.sorted() + (unnamed.map { [$0] } ?? []) : rule.regions
            var reached = false
            var shadow: Rule?
            var tooOld = false
            for region in regions where !reached {
                for version in SegmentShares.samplePoints(self, within: rule.versions)
                where rule.versions.contains(version) {
                    let first = rules.first { $0.matches(region: region, version: version) }
                    if first?.targetsSame(as: rule) == true {
                        if version >= rule.pack.minAppVersion {
                            reached = true
                            break
                        }
                        tooOld = true
                    } else {
                        shadow = shadow ?? first
                    }
                }
            }
            if !reached { return (rule, shadow, tooOld) }
        }
        return nil
    }
}

/// The shares a segment's devices receive: what `log --segment` and `promote --dry-run` show.
public struct SegmentShares: Equatable, Sendable {
    public struct Piece: Equatable, Sendable {
        /// Region codes this piece covers: one code, or "*" / "other regions" for the rest.
        public let regions: String
        /// The app versions of the segment this piece covers ("4.8.x", ">=4.8.2").
        public let versions: String
        /// Basis points per outcome, largest first; they add up to 10,000.
        public let shares: [(outcome: Resolution.Outcome, basisPoints: Int)]

        public static func == (lhs: Piece, rhs: Piece) -> Bool {
            lhs.regions == rhs.regions && lhs.versions == rhs.versions
                && lhs.shares.map(\.outcome) == rhs.shares.map(\.outcome)
                && lhs.shares.map(\.basisPoints) == rhs.shares.map(\.basisPoints)
        }

        public func describe(locale: String) -> String {
            shares.map { "\($0.outcome.label(locale: locale)) \(Percent(basisPoints: $0.basisPoints))" }.joined(
                separator: ", ")
        }
    }

    public let pieces: [Piece]

    /// The shares for devices in `region` (or every region, "*") on versions in `versions`.
    /// Where rules or minAppVersions split the segment, each part is its own piece.
    public static func of(_ plan: Plan, region: String, versions: VersionRange) -> SegmentShares {
        SegmentShares(
            pieces: split([plan], region: region, versions: versions).map {
                Piece(regions: $0.regions, versions: $0.versions, shares: $0.shares[0])
            })
    }

    /// Where `before` and `after` differ, piece by piece: what `promote --dry-run` prints.
    public static func changes(
        from before: Plan, to after: Plan, region: String = Region.any, versions: VersionRange = .all
    ) -> [(before: Piece, after: Piece)] {
        split([before, after], region: region, versions: versions).compactMap { part in
            let old = Piece(regions: part.regions, versions: part.versions, shares: part.shares[0])
            let new = Piece(regions: part.regions, versions: part.versions, shares: part.shares[1])
            return old == new ? nil : (old, new)
        }
    }

    /// The regions (labelled as `Piece.regions` labels them) in which some devices get something
    /// else after the change: the regions of `changes(from:to:)`, without making the pieces. The log
    /// index asks this of every change in the history, so it compares shares point by point and
    /// labels nothing (a region has a changed piece exactly when the shares differ at one of its points).
    public static func regionsChanged(from before: Plan, to after: Plan) -> [String] {
        if before.targeting == after.targeting { return [] }
        let (regionGroups, points) = layout([before, after], region: Region.any, versions: .all)
        // The baseline a device falls back to depends on its version only: once per point, not per region group.
        let fallbacks = points.map {
            (Resolution.baseline(before, version: $0), Resolution.baseline(after, version: $0))
        }
        return regionGroups.filter { group in
            points.indices.contains { i in
                !same(
                    sharesAt(before, regionCode: group.code, version: points[i], fallback: fallbacks[i].0),
                    sharesAt(after, regionCode: group.code, version: points[i], fallback: fallbacks[i].1))
            }
        }.map(\.label)
    }

    private typealias Shares = [(outcome: Resolution.Outcome, basisPoints: Int)]

    private static func same(_ a: Shares, _ b: Shares) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.outcome == $1.outcome && $0.basisPoints == $1.basisPoints }
    }

    /// The region groups of a segment (each region a rule or withdrawal names, then the rest) and the
    /// versions at which any of `plans` can resolve differently.
    private static func layout(_ plans: [Plan], region: String, versions: VersionRange) -> (
        groups: [(label: String, code: String?)], points: [AppVersion]
    ) {
        let regionGroups: [(label: String, code: String?)]
        if region == Region.any {
            let named = Set(
                plans.flatMap {
                    $0.rules.flatMap(\.regions) + $0.withdrawals.map(\.region).filter { $0 != Region.any }
                        + ($0.experiment?.regions ?? [])
                }
            ).sorted()
            regionGroups = named.map { ($0, $0) } + [(named.isEmpty ? "*" : "other regions", nil)]
        } else {
            regionGroups = [(region, region)]
        }
        var points: [AppVersion] = []
        for point in plans.flatMap({ samplePoints($0, within: versions) }).sorted() where !points.contains(point) {
            points.append(point)
        }
        return (regionGroups, points)
    }

    /// Splits the segment into pieces inside which every plan resolves uniformly.
    private static func split(_ plans: [Plan], region: String, versions: VersionRange) -> [(
        regions: String, versions: String, shares: [Shares]
    )] {
        let (regionGroups, points) = layout(plans, region: region, versions: versions)
        func same(_ a: [Shares], _ b: [Shares]) -> Bool {
            a.count == b.count && zip(a, b).allSatisfy(SegmentShares.same)
        }
        var result: [(regions: String, versions: String, shares: [Shares])] = []
        for group in regionGroups {
            var groupPieces: [(start: AppVersion, shares: [Shares])] = []
            for point in points {
                let shares = plans.map { sharesAt($0, regionCode: group.code, version: point) }
                if let last = groupPieces.last, same(last.shares, shares) { continue }
                groupPieces.append((point, shares))
            }
            for (index, piece) in groupPieces.enumerated() {
                let label: String
                if groupPieces.count == 1 {
                    label = versions.description
                } else if index + 1 < groupPieces.count {
                    let from = piece.start == AppVersion(components: [0]) ? "" : startLabel(piece.start) + " "
                    let next = groupPieces[index + 1].start
                    let to = startLabel(next).hasPrefix(">=") ? "<\(next)" : "<=" + startLabel(next).dropFirst()
                    label = from + to
                } else {
                    label =
                        startLabel(piece.start)
                        + (versions.upper.map { $0.inclusive ? " <=\($0.version)" : " <\($0.version)" } ?? "")
                }
                result.append((group.label, label, piece.shares))
            }
        }
        return result
    }

    /// Versions inside `range` at which resolution can change: its start, every rule bound and
    /// minAppVersion inside it, and the first version after each exclusive lower bound.
    static func samplePoints(_ plan: Plan, within range: VersionRange) -> [AppVersion] {
        var points: [AppVersion] = [range.lower?.version ?? AppVersion(components: [0])]
        if let lower = range.lower, !lower.inclusive { points[0] = justAfter(lower.version) }
        var candidates =
            plan.rules.flatMap { edges(of: $0.versions) + [$0.pack.minAppVersion] }
            + plan.baselines.map(\.minAppVersion)
        candidates += plan.withdrawals.flatMap(\.versions.boundaries)
        candidates += plan.withdrawals.compactMap { w in
            w.versions.upper.flatMap { $0.inclusive ? justAfter($0.version) : nil }
        }
        if let experiment = plan.experiment {
            candidates += edges(of: experiment.versions) + experiment.variants.map(\.pack.minAppVersion)
        }
        for candidate in candidates where range.contains(candidate) { points.append(candidate) }
        var unique: [AppVersion] = []
        for point in points.sorted() where !unique.contains(point) { unique.append(point) }
        return unique
    }

    /// Where a targeting range (a rule's, an experiment's) can start or stop matching: its bounds, the
    /// first version after an exclusive lower bound and the first after an inclusive upper one.
    static func edges(of range: VersionRange) -> [AppVersion] {
        range.boundaries
            + [
                range.lower.flatMap { $0.inclusive ? nil : justAfter($0.version) },
                range.upper.flatMap { $0.inclusive ? justAfter($0.version) : nil },
            ].compactMap { $0 }
    }

    /// How a piece's first version reads: `>4.8.1` for the point just after 4.8.1.
    static func startLabel(_ version: AppVersion) -> String {
        let c = version.components
        if c.count == AppVersion.maximumComponents, c.last == 1, c.dropLast().count > 1 {
            var base = Array(c.dropLast())
            while base.count > 1, base.last == 0 { base.removeLast() }
            return ">" + base.map(String.init).joined(separator: ".")
        }
        return ">=\(version)"
    }

    static func justAfter(_ version: AppVersion) -> AppVersion {
        let padded =
            version.components
            + Array(repeating: 0, count: max(0, AppVersion.maximumComponents - 1 - version.components.count))
        return AppVersion(components: Array(padded.prefix(AppVersion.maximumComponents - 1)) + [1])
    }

    static func sharesAt(_ plan: Plan, regionCode: String?, version: AppVersion) -> [(
        outcome: Resolution.Outcome, basisPoints: Int
    )] {
        sharesAt(plan, regionCode: regionCode, version: version, fallback: Resolution.baseline(plan, version: version))
    }

    /// `fallback`: `Resolution.baseline(plan, version: version)`, when the caller has it already.
    static func sharesAt(_ plan: Plan, regionCode: String?, version: AppVersion, fallback: Resolution.Outcome) -> [(
        outcome: Resolution.Outcome, basisPoints: Int
    )] {
        if plan.bundledOnly { return [(.bundled, Bucketing.buckets)] }
        let withdrawn = plan.withdrawals.contains { w in
            (w.region == Region.any || (regionCode.map { $0 == w.region } ?? false)) && w.versions.contains(version)
        }
        if withdrawn { return [(fallback, Bucketing.buckets)] }
        if let experiment = plan.experiment,
            regionCode.map({ experiment.regions.isEmpty || experiment.regions.contains($0) })
                ?? experiment.regions.isEmpty,
            experiment.versions.contains(version)
        {
            return experimentShares(plan, experiment, version: version, fallback: fallback)
        }
        let rule = plan.rules.first { rule in
            (regionCode.map { rule.regions.isEmpty || rule.regions.contains($0) } ?? rule.regions.isEmpty)
                && rule.versions.contains(version)
        }
        guard let rule, !plan.isBlocked(rule.pack.contentVersion), version >= rule.pack.minAppVersion,
            rule.share.basisPoints > 0
        else {
            return [(fallback, Bucketing.buckets)]
        }
        let staged = Resolution.Outcome.pack(rule.pack.contentVersion)
        let rest = Bucketing.buckets - rule.share.basisPoints
        if rest == 0 || staged == fallback { return [(staged, Bucketing.buckets)] }
        // Largest share first; equal shares in outcome order.
        return (rule.share.basisPoints, fallback) > (rest, staged)
            ? [(staged, rule.share.basisPoints), (fallback, rest)]
            : [(fallback, rest), (staged, rule.share.basisPoints)]
    }
}

extension SegmentShares {
    /// The shares of a segment an experiment targets: each variant's range, where the device can run
    /// it, and the fallback for the rest (an experiment never runs beside staged rules). Equal
    /// outcomes merge; largest share first, equal shares in outcome order.
    fileprivate static func experimentShares(
        _ plan: Plan, _ experiment: Plan.Experiment, version: AppVersion, fallback: Resolution.Outcome
    ) -> [(outcome: Resolution.Outcome, basisPoints: Int)] {
        var shares: [Resolution.Outcome: Int] = [:]
        var assigned = 0
        for variant in experiment.variants {
            let runs = !plan.isBlocked(variant.pack.contentVersion) && version >= variant.pack.minAppVersion
            shares[runs ? .pack(variant.pack.contentVersion) : fallback, default: 0] += variant.to - variant.from
            assigned += variant.to - variant.from
        }
        if assigned < Bucketing.buckets { shares[fallback, default: 0] += Bucketing.buckets - assigned }
        return shares.map { (outcome: $0.key, basisPoints: $0.value) }.sorted {
            $0.basisPoints != $1.basisPoints ? $0.basisPoints > $1.basisPoints : $0.outcome < $1.outcome
        }
    }
}
