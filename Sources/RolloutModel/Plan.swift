/// What one locale's devices receive (docs/targeting.md, "Plans"): a baseline, the
/// baselines before it (last known good), staged rules, and blocked content versions. Self-contained:
/// each pack reference carries its `minAppVersion`, so resolution needs nothing but the plan.
public struct Plan: Equatable, Sendable {
    public struct PackRef: Equatable, Hashable, Sendable {
        public let contentVersion: Int
        public let minAppVersion: AppVersion

        public init(contentVersion: Int, minAppVersion: AppVersion) {
            self.contentVersion = contentVersion
            self.minAppVersion = minAppVersion
        }
    }

    /// A staged share of one pack for some regions and app versions.
    public struct Rule: Equatable, Sendable {
        public var pack: PackRef
        /// Sorted region codes; empty means every region.
        public var regions: [String]
        public var versions: VersionRange
        public var share: Percent
        /// Per rollout: every rule of one candidate shares it, so its devices stay in as shares grow.
        public var salt: String

        public init(pack: PackRef, regions: [String], versions: VersionRange, share: Percent, salt: String) {
            self.pack = pack
            self.regions = regions.sorted()
            self.versions = versions
            self.share = share
            self.salt = salt
        }

        public func matches(region: String, version: AppVersion) -> Bool {
            (regions.isEmpty || regions.contains(region)) && versions.contains(version)
        }

        /// Same targeting (regions and versions), whatever the share.
        public func targetsSame(as other: Rule) -> Bool {
            regions == other.regions && versions.sameVersions(as: other.versions)
        }

        /// Whether this rule gives its pack to more devices than `before` did: `before` had no rule
        /// with this targeting, or a smaller share in it.
        public func widens(from before: Plan) -> Bool {
            guard let old = before.rules.first(where: { $0.targetsSame(as: self) }) else { return true }
            return share > old.share
        }

        public var regionsLabel: String { regions.isEmpty ? "*" : regions.joined(separator: ",") }

        /// "10% in TR on >=4.8", "5% in every region on every app version".
        public var summary: String { "\(share) in \(target)" }

        /// "TR on >=4.8", "every region on every app version".
        public var target: String { Plan.target(regions: regions, versions: versions) }
    }

    /// "TR on >=4.8", "every region on every app version": what a rule or an experiment targets.
    public static func target(regions: [String], versions: VersionRange) -> String {
        "\(regions.isEmpty ? "every region" : regions.joined(separator: ",")) on \(versions.isAll ? "every app version" : versions.description)"
    }

    /// A segment the candidate was taken back from by a scoped revert: its devices skip the rules.
    public struct Withdrawal: Equatable, Sendable {
        /// A region code, or `*` for every region.
        public let region: String
        public let versions: VersionRange

        public init(region: String, versions: VersionRange) {
            self.region = region
            self.versions = versions
        }

        public func matches(region device: String, version: AppVersion) -> Bool {
            (region == Region.any || region == device) && versions.contains(version)
        }

        public var label: String { "\(region)/\(versions)" }
    }

    /// A scheduled ramp (`promote --ramp`): `guard` moves the staged pack to the next share once the
    /// current step has lasted `every` seconds and health is healthy.
    public struct Ramp: Equatable, Sendable {
        public var steps: [Percent]
        public var every: Int64
        /// Index into `steps` of the share in force.
        public var step: Int
        public var since: Timestamp
        public var paused: Bool

        public init(steps: [Percent], every: Int64, step: Int, since: Timestamp, paused: Bool = false) {
            self.steps = steps
            self.every = every
            self.step = step
            self.since = since
            self.paused = paused
        }

        /// The named presets: `7day` is the 1/2/5/10/20/50/100 schedule app stores use, a day a step.
        public static let presets: [String: (steps: [Int], every: Int64)] = [
            "7day": ([100, 200, 500, 1000, 2000, 5000, 10_000], 86_400)
        ]

        public var next: Percent? { step + 1 < steps.count ? steps[step + 1] : nil }
        public func due(at now: Timestamp) -> Bool { !paused && next != nil && now.seconds - since.seconds >= every }

        var jsonValue: JSONValue {
            [
                "steps": .array(steps.map { .integer($0.basisPoints) }), "every": .integer(Int(every)),
                "step": .integer(step),
                "since": .string(since.description), "paused": .bool(paused),
            ]
        }
    }

    /// Who last changed the plan and why: shown by `status` without walking history.
    public struct LastChange: Equatable, Sendable {
        public let action: String
        public let actor: String
        public let time: Timestamp
        public let reason: String?

        public init(action: String, actor: String, time: Timestamp, reason: String?) {
            self.action = action
            self.actor = actor
            self.time = time
            self.reason = reason
        }
    }

    public var locale: String
    public var baseline: PackRef?
    /// Earlier baselines, newest first: where a revert goes, and what a device too old for the
    /// current baseline still runs.
    public var previousBaselines: [PackRef]
    public var rules: [Rule]
    public var blocked: [Int]
    /// Segments a scoped revert took the candidate back from.
    public var withdrawals: [Withdrawal]
    /// The kill switch (`revert --to bundled`): every device uses the strings bundled in the app.
    public var bundledOnly: Bool
    /// Bumped by every change to the plan: the sequence of the published manifest that carries it.
    public var sequence: Int
    /// The staged pack's schedule, if it has one.
    public var ramp: Ramp?
    /// Groups of testers the candidate is given to before (and beside) any share, by group name.
    public var testers: [TesterTarget] = [] {
        didSet { testers.sort { $0.group < $1.group } }
    }
    /// The experiment running on this locale, if any (docs/experiments.md): at most one, and never
    /// beside a staged candidate.
    public var experiment: Experiment?
    public var lastChange: LastChange?

    public init(
        locale: String, baseline: PackRef? = nil, previousBaselines: [PackRef] = [], rules: [Rule] = [],
        blocked: [Int] = [],
        withdrawals: [Withdrawal] = [], bundledOnly: Bool = false, sequence: Int = 0, lastChange: LastChange? = nil
    ) {
        self.locale = locale
        self.baseline = baseline
        self.previousBaselines = previousBaselines
        self.rules = []
        self.blocked = blocked.sorted()
        self.withdrawals = withdrawals
        self.bundledOnly = bundledOnly
        self.sequence = sequence
        self.lastChange = lastChange
        self.ramp = nil
        setRules(rules)
    }

    /// Whether a scoped revert took the candidate back from this device's segment.
    public func isWithdrawn(region: String, version: AppVersion) -> Bool {
        withdrawals.contains { $0.matches(region: region, version: version) }
    }

    /// Keeps rules in resolution order: region-specific before every-region, narrower version ranges
    /// before wider ones, then by regions and range text so the order never depends on history.
    public mutating func setRules(_ rules: [Rule]) {
        self.rules = rules.sorted { a, b in
            let ka = (
                a.regions.isEmpty ? 1 : 0, a.versions.breadth, a.regionsLabel, a.versions.description,
                a.pack.contentVersion
            )
            let kb = (
                b.regions.isEmpty ? 1 : 0, b.versions.breadth, b.regionsLabel, b.versions.description,
                b.pack.contentVersion
            )
            return ka < kb
        }
    }

    /// The pack now being staged, if any (at most one at a time): to a share, to testers or both.
    public var candidate: PackRef? { rules.first?.pack ?? testers.first?.pack }

    public func isBlocked(_ contentVersion: Int) -> Bool { blocked.contains(contentVersion) }

    /// Baselines newest first, current one included.
    public var baselines: [PackRef] { (baseline.map { [$0] } ?? []) + previousBaselines }

    /// The content versions a published manifest lists: every baseline and staged pack that is
    /// not blocked (docs/manifest.md).
    public var publishedVersions: Set<Int> {
        Set(
            baselines.map(\.contentVersion) + rules.map(\.pack.contentVersion) + testers.map(\.pack.contentVersion)
                + (experiment?.variants.map(\.pack.contentVersion) ?? [])
        )
        .subtracting(blocked)
    }

    /// Only what decides what devices get: the plan without its last-change note and sequence.
    public var targeting: Plan {
        var copy = self
        copy.lastChange = nil
        copy.sequence = 0
        return copy
    }
}

// MARK: JSON

extension Plan {
    public var jsonValue: JSONValue {
        func ref(_ r: PackRef) -> JSONValue {
            ["contentVersion": .integer(r.contentVersion), "minAppVersion": .string(r.minAppVersion.description)]
        }
        var object: [String: JSONValue] = [
            "locale": .string(locale),
            "baseline": baseline.map(ref) ?? .null,
            "previousBaselines": .array(previousBaselines.map(ref)),
            "rules": .array(
                rules.map { rule in
                    [
                        "pack": ref(rule.pack), "regions": .array(rule.regions.map { .string($0) }),
                        "appVersions": .string(rule.versions.description),
                        "basisPoints": .integer(rule.share.basisPoints),
                        "salt": .string(rule.salt),
                    ]
                }),
            "blocked": .array(blocked.map { .integer($0) }),
            "withdrawn": .array(
                withdrawals.map { ["region": .string($0.region), "appVersions": .string($0.versions.description)] }),
            "bundledOnly": .bool(bundledOnly),
            "sequence": .integer(sequence),
        ]
        if let ramp { object["ramp"] = ramp.jsonValue }
        // Absent without testers, as in plans written before they existed.
        if !testers.isEmpty { object["testers"] = .array(testers.map(\.jsonValue)) }
        // Absent without one, as in plans written before experiments existed.
        if let experiment { object["experiment"] = experiment.jsonValue }
        if let lastChange {
            var change: [String: JSONValue] = [
                "action": .string(lastChange.action), "actor": .string(lastChange.actor),
                "time": .string(lastChange.time.description),
            ]
            if let reason = lastChange.reason { change["reason"] = .string(reason) }
            object["lastChange"] = .object(change)
        }
        return .object(object)
    }

    public static func parse(_ bytes: [UInt8], source: String) throws -> Plan {
        let value: JSONValue
        do {
            value = try StrictJSONParser.parse(bytes)
        } catch let error as JSONParseError {
            throw RolloutError.badInput("\(source):\(error.line):\(error.column): \(error.message)")
        }
        return try parse(value, source: source)
    }

    public static func parse(_ value: JSONValue, source: String) throws -> Plan {
        func fail(_ why: String) -> RolloutError { .badInput("\(source): \(why)") }
        guard let o = value.objectValue, let locale = o["locale"]?.stringValue else {
            throw fail("a plan needs a locale")
        }
        func ref(_ v: JSONValue?, _ what: String) throws -> PackRef {
            guard let r = v?.objectValue, let cv = r["contentVersion"]?.integerValue,
                let text = r["minAppVersion"]?.stringValue,
                let minApp = AppVersion(text)
            else { throw fail("\(what) must be {contentVersion, minAppVersion}") }
            return PackRef(contentVersion: cv, minAppVersion: minApp)
        }
        let baseline: PackRef? =
            (o["baseline"] == nil || o["baseline"] == .null) ? nil : try ref(o["baseline"], "baseline")
        let previous = try (o["previousBaselines"]?.arrayValue ?? []).map { try ref($0, "previousBaselines[]") }
        let rules = try (o["rules"]?.arrayValue ?? []).map { item -> Rule in
            guard let r = item.objectValue, let bp = r["basisPoints"]?.integerValue, (0...10_000).contains(bp),
                let salt = r["salt"]?.stringValue, let rangeText = r["appVersions"]?.stringValue,
                let regions = r["regions"]?.arrayValue?.compactMap(\.stringValue)
            else { throw fail("a rule needs pack, regions, appVersions, basisPoints and salt") }
            let range: VersionRange
            do { range = try VersionRange.parse(rangeText) } catch {
                throw fail("rule appVersions \"\(rangeText)\" is not a range")
            }
            return Rule(
                pack: try ref(r["pack"], "rule pack"), regions: regions, versions: range,
                share: Percent(basisPoints: bp), salt: salt)
        }
        let blocked = try (o["blocked"]?.arrayValue ?? []).map { item -> Int in
            guard let v = item.integerValue else { throw fail("blocked holds content versions") }
            return v
        }
        let withdrawals = try (o["withdrawn"]?.arrayValue ?? []).map { item -> Withdrawal in
            guard let w = item.objectValue, let region = w["region"]?.stringValue,
                let text = w["appVersions"]?.stringValue,
                let range = try? VersionRange.parse(text)
            else { throw fail("a withdrawn segment needs region and appVersions") }
            return Withdrawal(region: region, versions: range)
        }
        var plan = Plan(
            locale: locale, baseline: baseline, previousBaselines: previous, rules: rules, blocked: blocked,
            withdrawals: withdrawals,
            bundledOnly: o["bundledOnly"]?.boolValue ?? false, sequence: o["sequence"]?.integerValue ?? 0,
            lastChange: o["lastChange"].flatMap(LastChange.parse))
        if let r = o["ramp"]?.objectValue {
            plan.ramp = try Ramp.parse(r, source: source)
        }
        plan.testers = try (o["testers"]?.arrayValue ?? []).map { try TesterTarget.parse($0, source: source) }
        if let value = o["experiment"], value != .null { plan.experiment = try Experiment.parse(value, source: source) }
        return plan
    }
}

extension Plan.LastChange {
    /// The plan's record of the change that wrote it; nil when it is missing or incomplete (an
    /// older rollout wrote none).
    static func parse(_ value: JSONValue) -> Plan.LastChange? {
        guard let c = value.objectValue, let action = c["action"]?.stringValue,
            let actor = c["actor"]?.stringValue,
            let timeText = c["time"]?.stringValue, let time = Timestamp(iso8601: timeText)
        else { return nil }
        return Plan.LastChange(action: action, actor: actor, time: time, reason: c["reason"]?.stringValue)
    }
}

extension Plan.Ramp {
    static func parse(_ r: [String: JSONValue], source: String) throws -> Plan.Ramp {
        guard let steps = r["steps"]?.arrayValue?.compactMap(\.integerValue), !steps.isEmpty,
            steps.allSatisfy({ (0...10_000).contains($0) }),
            let every = r["every"]?.integerValue, let step = r["step"]?.integerValue, steps.indices.contains(step),
            let sinceText = r["since"]?.stringValue, let since = Timestamp(iso8601: sinceText)
        else { throw RolloutError.badInput("\(source): a ramp needs steps, every, step, since and paused") }
        return Plan.Ramp(
            steps: steps.map { Percent(basisPoints: $0) }, every: Int64(every), step: step, since: since,
            paused: r["paused"]?.boolValue ?? false)
    }
}

extension Plan.TesterTarget {
    static func parse(_ value: JSONValue, source: String) throws -> Plan.TesterTarget {
        guard let t = value.objectValue, let group = t["group"]?.stringValue, let salt = t["salt"]?.stringValue,
            let members = t["members"]?.arrayValue?.compactMap(\.stringValue),
            let pack = t["pack"]?.objectValue, let cv = pack["contentVersion"]?.integerValue,
            let minText = pack["minAppVersion"]?.stringValue, let minApp = AppVersion(minText)
        else { throw RolloutError.badInput("\(source): a testers entry needs group, pack, salt and members") }
        return Plan.TesterTarget(
            group: group, pack: Plan.PackRef(contentVersion: cv, minAppVersion: minApp), salt: salt,
            members: Set(members))
    }
}
