/// One experiment as the repository keeps it, at `experiments/<name>.json` (docs/experiments.md,
/// "What is stored"): the question declared before it started (variants, split, targeting, the
/// primary metric, the exploratory ones, the guardrails and the horizon), who started it and why,
/// and, once it ended, who ended it, why and with what outcome. Never published: devices read
/// the part they need from the plan (`Plan.Experiment`), which exists only while it runs.
public struct ExperimentRecord: Equatable, Sendable {
    public struct Ending: Equatable, Sendable {
        public let actor: String
        public let time: Timestamp
        public let reason: String?
        /// "shipped tr-TR@19 to 10%", "stopped", "guard: tr-TR@19 unhealthy (TR/4.8 crash)".
        public let outcome: String

        public init(actor: String, time: Timestamp, reason: String?, outcome: String) {
            self.actor = actor
            self.time = time
            self.reason = reason
            self.outcome = outcome
        }
    }

    public var name: String
    public var locale: String
    /// The control first.
    public var variants: [Plan.PackRef]
    /// Each variant's share of the targeted devices, in the order of `variants`.
    public var split: [Percent]
    public var regions: [String]
    public var versions: VersionRange
    public var primary: String
    /// Reported with a multiple-testing correction and labelled exploratory; never decide.
    public var exploratory: [String]
    public var guardrails: [MetricKind]
    /// The horizon: after this many days without a decision the verdict is `no difference shown`.
    public var days: Int
    public var salt: String
    public var keys: [String]
    public var started: Timestamp
    public var startedBy: String
    public var reason: String?
    public var ending: Ending?

    public init(
        name: String, locale: String, variants: [Plan.PackRef], split: [Percent], regions: [String],
        versions: VersionRange, primary: String, exploratory: [String], guardrails: [MetricKind], days: Int,
        salt: String, keys: [String], started: Timestamp, startedBy: String, reason: String?, ending: Ending? = nil
    ) {
        self.name = name
        self.locale = locale
        self.variants = variants
        self.split = split
        self.regions = regions.sorted()
        self.versions = versions
        self.primary = primary
        self.exploratory = exploratory
        self.guardrails = guardrails
        self.days = days
        self.salt = salt
        self.keys = keys.sorted()
        self.started = started
        self.startedBy = startedBy
        self.reason = reason
        self.ending = ending
    }

    public var isRunning: Bool { ending == nil }
    public var control: Plan.PackRef { variants[0] }
    public var treatments: ArraySlice<Plan.PackRef> { variants.dropFirst() }
    public var metrics: [String] { [primary] + exploratory }

    public func id(_ ref: Plan.PackRef) -> PackID { PackID(locale: locale, contentVersion: ref.contentVersion) }

    /// Each variant with its share, the control first: `tr-TR@17 50%, tr-TR@18 50%`, what the
    /// `Rollout-Variants` trailer, the notice and `experiment show` say (the last marking the control).
    public func variantsLabel(markingControl: Bool = false) -> String {
        zip(variants, split).enumerated().map { index, pair in
            "\(id(pair.0)) \(pair.1)" + (markingControl && index == 0 ? " (control)" : "")
        }.joined(separator: ", ")
    }

    /// What the plan publishes while the experiment runs.
    public var published: Plan.Experiment {
        let ranges = Plan.Experiment.ranges(split)
        return Plan.Experiment(
            name: name, salt: salt, regions: regions, versions: versions,
            variants: zip(variants, ranges).map {
                Plan.Experiment.Variant(pack: $0, from: $1.lowerBound, to: $1.upperBound)
            },
            keys: keys, metrics: metrics)
    }

    /// The day the experiment started on and the last day it counts (its end, or today), as days
    /// since 1970-01-01.
    public func days(until now: Timestamp) -> ClosedRange<Int> {
        let first = Int(started.seconds / 86_400)
        let last = Int((ending?.time ?? now).seconds / 86_400)
        return first...max(first, last)
    }

    /// Days run by `now` (or by its end), counted from the start: 0 before it, a fraction within a
    /// day.
    public func elapsed(at now: Timestamp) -> Double {
        max(0, Double((ending?.time ?? now).seconds - started.seconds) / 86_400)
    }

    /// Which day of its `days` it is on at `now` (1 on the first; `days` past the horizon).
    public func day(at now: Timestamp) -> Int { min(days, Int(elapsed(at: now)) + 1) }

    /// Days left to the horizon at `now`: `days` before the start, 0 once it passed.
    public func daysLeft(at now: Timestamp) -> Double { max(0, Double(days) - elapsed(at: now)) }

    public var jsonValue: JSONValue {
        func ref(_ r: Plan.PackRef) -> JSONValue {
            ["contentVersion": .integer(r.contentVersion), "minAppVersion": .string(r.minAppVersion.description)]
        }
        var object: [String: JSONValue] = [
            "name": .string(name), "locale": .string(locale), "variants": .array(variants.map(ref)),
            "split": .array(split.map { .integer($0.basisPoints) }), "regions": .array(regions.map { .string($0) }),
            "appVersions": .string(versions.description), "primary": .string(primary),
            "exploratory": .array(exploratory.map { .string($0) }),
            "guardrails": .array(guardrails.map { .string($0.rawValue) }), "days": .integer(days),
            "salt": .string(salt), "keys": .array(keys.map { .string($0) }), "started": .string(started.description),
            "startedBy": .string(startedBy),
        ]
        if let reason { object["reason"] = .string(reason) }
        if let ending {
            var e: [String: JSONValue] = [
                "actor": .string(ending.actor), "time": .string(ending.time.description),
                "outcome": .string(ending.outcome),
            ]
            if let reason = ending.reason { e["reason"] = .string(reason) }
            object["ended"] = .object(e)
        }
        return .object(object)
    }

    public static func parse(_ bytes: [UInt8], source: String) throws -> ExperimentRecord {
        let value: JSONValue
        do {
            value = try StrictJSONParser.parse(bytes)
        } catch let error as JSONParseError {
            throw RolloutError.badInput("\(source):\(error.line):\(error.column): \(error.message)")
        }
        func fail() -> RolloutError {
            .badInput(
                "\(source): an experiment needs name, locale, variants, split, regions, appVersions, primary, "
                    + "exploratory, guardrails, days, salt, keys, started and startedBy")
        }
        guard let o = value.objectValue, let name = o["name"]?.stringValue, let locale = o["locale"]?.stringValue,
            let variantValues = o["variants"]?.arrayValue, let splitValues = o["split"]?.arrayValue,
            variantValues.count >= 2, splitValues.count == variantValues.count,
            let regions = o["regions"]?.arrayValue?.compactMap(\.stringValue),
            let rangeText = o["appVersions"]?.stringValue, let versions = try? VersionRange.parse(rangeText),
            let primary = o["primary"]?.stringValue,
            let exploratory = o["exploratory"]?.arrayValue?.compactMap(\.stringValue),
            let guardrails = o["guardrails"]?.arrayValue?.compactMap({ $0.stringValue.flatMap(MetricKind.init) }),
            let days = o["days"]?.integerValue, let salt = o["salt"]?.stringValue,
            let keys = o["keys"]?.arrayValue?.compactMap(\.stringValue),
            let startedText = o["started"]?.stringValue, let started = Timestamp(iso8601: startedText),
            let startedBy = o["startedBy"]?.stringValue
        else { throw fail() }
        let variants = try variantValues.map { item -> Plan.PackRef in
            guard let r = item.objectValue, let cv = r["contentVersion"]?.integerValue,
                let text = r["minAppVersion"]?.stringValue, let minApp = AppVersion(text)
            else { throw fail() }
            return Plan.PackRef(contentVersion: cv, minAppVersion: minApp)
        }
        let split = try splitValues.map { item -> Percent in
            guard let bp = item.integerValue, (1...10_000).contains(bp) else { throw fail() }
            return Percent(basisPoints: bp)
        }
        var ending: Ending?
        if let e = o["ended"]?.objectValue {
            guard let actor = e["actor"]?.stringValue, let timeText = e["time"]?.stringValue,
                let time = Timestamp(iso8601: timeText), let outcome = e["outcome"]?.stringValue
            else { throw fail() }
            ending = Ending(actor: actor, time: time, reason: e["reason"]?.stringValue, outcome: outcome)
        }
        return ExperimentRecord(
            name: name, locale: locale, variants: variants, split: split, regions: regions, versions: versions,
            primary: primary, exploratory: exploratory, guardrails: guardrails, days: days, salt: salt, keys: keys,
            started: started, startedBy: startedBy, reason: o["reason"]?.stringValue, ending: ending)
    }
}

/// What `rollout experiment start` asks for (docs/experiments.md, "Starting one").
public struct ExperimentRequest: Sendable {
    public var name: String
    public var variants: [PackID]
    /// nil: equal shares of 100%.
    public var split: [Percent]?
    /// Each region once, sorted, however often it was named (`--region TR,TR,de`), as promote's.
    public var regions: [String]
    public var versions: VersionRange
    public var primary: String
    public var exploratory: [String]
    public var guardrails: [MetricKind]
    public var days: Int
    public var reason: String?

    public init(
        name: String, variants: [PackID], split: [Percent]?, regions: [String], versions: VersionRange,
        primary: String, exploratory: [String], guardrails: [MetricKind], days: Int, reason: String?
    ) {
        self.name = name
        self.variants = variants
        self.split = split
        self.regions = Array(Set(regions)).sorted()
        self.versions = versions
        self.primary = primary
        self.exploratory = exploratory
        self.guardrails = Array(Set(guardrails)).sorted()
        self.days = days
        self.reason = reason
    }

    /// The most days an experiment may be declared to run.
    public static let maximumDays = 90

    public var locale: String { variants.first?.locale ?? "" }

    /// The shares, each given or equal: 2 variants 50/50, 3 variants 33.34/33.33/33.33.
    public func shares() throws -> [Percent] {
        if let split {
            guard split.count == variants.count else {
                throw ExperimentRefusal.splitCount(given: split.count, variants: variants.count)
            }
            let total = split.reduce(0) { $0 + $1.basisPoints }
            guard split.allSatisfy({ $0.basisPoints > 0 }), total <= Bucketing.buckets else {
                throw ExperimentRefusal.splitTotal(split)
            }
            return split
        }
        let each = Bucketing.buckets / variants.count
        let first = Bucketing.buckets - each * (variants.count - 1)
        return [Percent(basisPoints: first)] + Array(repeating: Percent(basisPoints: each), count: variants.count - 1)
    }

    /// The checks that need nothing of the repository.
    public func check() throws {
        guard Plan.Experiment.isValidName(name) else { throw ExperimentRefusal.badName(name) }
        guard variants.count >= 2, Set(variants).count == variants.count else {
            throw ExperimentRefusal.variants(variants)
        }
        if let other = variants.first(where: { $0.locale != locale }) {
            throw ExperimentRefusal.mixedLocales(locale, other)
        }
        for metric in [primary] + exploratory where !Plan.Experiment.isValidMetric(metric) {
            throw ExperimentRefusal.badMetric(metric)
        }
        guard !exploratory.contains(primary), Set(exploratory).count == exploratory.count else {
            throw ExperimentRefusal.metricTwice(primary: primary, exploratory: exploratory)
        }
        guard (1...Self.maximumDays).contains(days) else { throw ExperimentRefusal.days(days) }
        _ = try shares()
    }
}

/// What the experiment commands refuse (docs/experiments.md).
public enum ExperimentRefusal: Refusal {
    case badName(String)
    /// Fewer than two variants, or one named twice.
    case variants([PackID])
    case mixedLocales(String, PackID)
    case badMetric(String)
    case metricTwice(primary: String, exploratory: [String])
    case days(Int)
    case splitCount(given: Int, variants: Int)
    case splitTotal([Percent])
    /// An experiment of that name exists (running or ended): names are never reused.
    case nameTaken(String, locale: String, running: Bool)
    /// The locale runs another experiment.
    case otherRunning(locale: String, name: String)
    /// A candidate is staged (rules or testers): one question at a time.
    case candidateStaged(locale: String, candidate: PackID)
    case underKillSwitch(String)
    case blocked(PackID)
    /// The targeted app versions reach below a variant's minAppVersion: those devices could not run it
    /// and would sit in the control only, a mismatch by construction.
    case belowMinAppVersion(PackID, minAppVersion: AppVersion, versions: VersionRange)
    /// The variants hold the same text: there is nothing to compare.
    case sameText([PackID])
    case noSuchExperiment(String, known: [String])
    case notRunning(String, outcome: String)
    /// `--ship` names a pack that is not one of the variants.
    case shipNotAVariant(PackID, variants: [PackID])
    /// `--ship PACK --to 0%`: a ship that gives the pack to no device.
    case shipToNothing(PackID, name: String)
    /// `--ship BASELINE --to SHARE`: the baseline is everywhere already; a share means nothing.
    case shipBaselineAtAShare(PackID, share: Percent)
    /// A promote or a revert while an experiment runs on the locale.
    case running(locale: String, name: String, doing: String)

    public var kind: RolloutError.Kind {
        switch self {
        case .badName, .variants, .mixedLocales, .badMetric, .metricTwice, .days, .splitCount, .splitTotal,
            .shipNotAVariant, .shipToNothing, .shipBaselineAtAShare:
            return .usage
        case .noSuchExperiment: return .missing
        case .nameTaken, .otherRunning, .candidateStaged, .underKillSwitch, .blocked, .belowMinAppVersion, .sameText,
            .notRunning, .running:
            return .checkFailed
        }
    }
}
