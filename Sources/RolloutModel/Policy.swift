/// The repository's rules, kept in `policy.json` at the root of the state tree (see
/// repo-template/policy.json and docs/policy.md). Every field has a documented default; unknown
/// fields are refused so that a typo cannot silently switch a rule off.
public struct Policy: Equatable, Sendable {
    public var defaultLocale: String
    public var requiredKeys: [String]
    public var protectedKeys: [KeyPattern]
    /// Keys that stay in the app: no pack may carry them, imports leave them out, and a device
    /// never shows them from a pack (docs/policy.md).
    public var bundleOnlyKeys: KeyPatterns
    public var limits: PolicyLimits
    public var gates: GatePolicy
    /// The webhooks told of changes (docs/notifications.md); none unless the policy has `notify`.
    public var notify: NotifyPolicy = .none
    /// Who must sign which changes (docs/policy.md, "Signing"); every rule off unless the policy has `signing`.
    public var signing = SigningPolicy()

    public static let currentVersion = 1
    /// Protection is on unless a policy says otherwise: a missing `protectedKeys` means these.
    public static let defaultProtectedKeys = [KeyPattern("legal.*")!, KeyPattern("checkout.*")!]

    public init(
        defaultLocale: String = "en-US", requiredKeys: [String] = [],
        protectedKeys: [KeyPattern] = Policy.defaultProtectedKeys,
        bundleOnlyKeys: KeyPatterns = .none, limits: PolicyLimits = .default, gates: GatePolicy = .default
    ) {
        self.bundleOnlyKeys = bundleOnlyKeys
        self.defaultLocale = defaultLocale
        self.requiredKeys = requiredKeys
        self.protectedKeys = protectedKeys
        self.limits = limits
        self.gates = gates
    }

    public func isProtected(_ key: String) -> KeyPattern? { protectedKeys.first { $0.matches(key) } }

    public static func parse(_ bytes: [UInt8], source: String) throws -> Policy {
        let document: JSONValue
        do {
            document = try StrictJSONParser.parse(bytes)
        } catch let error as JSONParseError {
            throw RolloutError.badInput("\(source):\(error.line):\(error.column): \(error.message)")
        }
        var reader = try ObjectReader(document, path: source)
        let version = try reader.integer("policyVersion", default: currentVersion)
        guard version == currentVersion else {
            throw RolloutError.badInput(
                "\(source): policyVersion \(version) is not supported (this rollout reads \(currentVersion))")
        }
        var policy = Policy()
        policy.defaultLocale = try reader.string("defaultLocale", default: policy.defaultLocale)
        do {
            _ = try LocaleTag.parse(policy.defaultLocale)
        } catch let error as LocaleTag.ParseError {
            throw RolloutError.badInput("\(source): defaultLocale: \(error.message)")
        }
        policy.requiredKeys = try reader.stringArray("requiredKeys", default: [])
        policy.protectedKeys = try reader.stringArray(
            "protectedKeys", default: Policy.defaultProtectedKeys.map(\.pattern)
        ).map { pattern in
            guard let parsed = KeyPattern(pattern) else {
                throw RolloutError.badInput(
                    "\(source): protectedKeys: \"\(pattern)\" is not a key pattern (use * and ?, for example legal.*)")
            }
            return parsed
        }
        let bundleOnly = try reader.stringArray("bundleOnlyKeys", default: [])
        guard let bundleOnlyKeys = KeyPatterns(spellings: bundleOnly) else {
            let bad = bundleOnly.first { KeyPattern($0) == nil }!
            throw RolloutError.badInput(
                "\(source): bundleOnlyKeys: \"\(bad)\" is not a key pattern (use * and ?, for example legal.*)")
        }
        policy.bundleOnlyKeys = bundleOnlyKeys
        if let limits = try reader.object("limits") {
            var r = try ObjectReader(limits, path: "\(source): limits")
            let d = PolicyLimits.default
            policy.limits = PolicyLimits(
                maxPackBytes: try r.integer("maxPackBytes", default: d.maxPackBytes, range: 1024...(256 << 20)),
                maxKeys: try r.integer("maxKeys", default: d.maxKeys, range: 1...1_000_000),
                maxValueBytes: try r.integer("maxValueBytes", default: d.maxValueBytes, range: 1...(16 << 20)))
            try r.finish()
        }
        if let gates = try reader.object("gates") {
            policy.gates = try GatePolicy.parse(gates, source: "\(source): gates")
        }
        if let notify = try reader.object("notify") {
            policy.notify = try NotifyPolicy.parse(notify, source: "\(source): notify")
        }
        if let signing = try reader.object("signing") {
            policy.signing = try SigningPolicy.parse(signing, source: "\(source): signing")
        }
        try reader.finish()
        return policy
    }

    public var jsonValue: JSONValue {
        var document: [String: JSONValue] = [
            "policyVersion": .integer(Policy.currentVersion),
            "defaultLocale": .string(defaultLocale),
            "requiredKeys": .array(requiredKeys.map { .string($0) }),
            "protectedKeys": .array(protectedKeys.map { .string($0.pattern) }),
            "bundleOnlyKeys": .array(bundleOnlyKeys.spellings.map { .string($0) }),
            "limits": [
                "maxPackBytes": .integer(limits.maxPackBytes),
                "maxKeys": .integer(limits.maxKeys),
                "maxValueBytes": .integer(limits.maxValueBytes),
            ],
            "gates": gates.jsonValue,
        ]
        // Only when set: a policy without hooks reads and prints as it did before notify existed.
        if !notify.hooks.isEmpty { document["notify"] = notify.jsonValue }
        if !signing.isOff { document["signing"] = signing.jsonValue }
        return .object(document)
    }
}

public struct PolicyLimits: Equatable, Sendable {
    public var maxPackBytes: Int
    public var maxKeys: Int
    public var maxValueBytes: Int

    public static let `default` = PolicyLimits(maxPackBytes: 8 << 20, maxKeys: 50_000, maxValueBytes: 64 << 10)
}

/// Health gate thresholds. Stored now so that repositories created today already carry them; the
/// metrics and health commands read them.
public struct GatePolicy: Equatable, Sendable {
    public struct RateGate: Equatable, Sendable {
        /// Largest accepted increase relative to the baseline's rate (0.10 = 10% worse).
        public var maxRelativeIncrease: Double
        /// Largest accepted increase in absolute rate (0.001 = 0.1 percentage points).
        public var maxAbsoluteIncrease: Double
        /// Fewer exposures (sessions, or lookups) than this in either arm means insufficient data.
        public var minSamples: Int
    }

    public var crash: RateGate
    public var fallback: RateGate
    /// Overall confidence of a verdict across all segments and all looks.
    public var confidence: Double
    /// The dates a metrics row may carry (`MetricDateWindow`).
    public var dates: MetricDateWindow = .default

    public static let `default` = GatePolicy(
        crash: RateGate(maxRelativeIncrease: 0.10, maxAbsoluteIncrease: 0.001, minSamples: 5_000),
        fallback: RateGate(maxRelativeIncrease: 0.20, maxAbsoluteIncrease: 0.005, minSamples: 50_000),
        confidence: 0.95)

    static func parse(_ value: JSONValue, source: String) throws -> GatePolicy {
        var reader = try ObjectReader(value, path: source)
        var gates = GatePolicy.default
        func rate(_ name: String, _ base: RateGate) throws -> RateGate {
            guard let object = try reader.object(name) else { return base }
            var r = try ObjectReader(object, path: "\(source).\(name)")
            let gate = RateGate(
                maxRelativeIncrease: try r.fraction("maxRelativeIncrease", default: base.maxRelativeIncrease),
                maxAbsoluteIncrease: try r.fraction("maxAbsoluteIncrease", default: base.maxAbsoluteIncrease),
                minSamples: try r.integer("minSamples", default: base.minSamples, range: 1...Int(Int32.max)))
            try r.finish()
            return gate
        }
        gates.crash = try rate("crash", gates.crash)
        gates.fallback = try rate("fallback", gates.fallback)
        gates.confidence = try reader.fraction("confidence", default: gates.confidence)
        if let dates = try reader.object("dates") {
            gates.dates = try MetricDateWindow.parse(dates, source: "\(source).dates")
        }
        guard gates.confidence >= 0.5 && gates.confidence < 1 else {
            throw RolloutError.badInput(
                "\(source): confidence must be at least 0.5 and below 1, found \(gates.confidence)")
        }
        try reader.finish()
        return gates
    }

    var jsonValue: JSONValue {
        func rate(_ g: RateGate) -> JSONValue {
            [
                "maxRelativeIncrease": .number(JSONNumber(g.maxRelativeIncrease)),
                "maxAbsoluteIncrease": .number(JSONNumber(g.maxAbsoluteIncrease)),
                "minSamples": .integer(g.minSamples),
            ]
        }
        return [
            "crash": rate(crash),
            "fallback": rate(fallback),
            "confidence": .number(JSONNumber(confidence)),
            "dates": ["daysBefore": .integer(dates.daysBefore), "daysAhead": .integer(dates.daysAhead)],
        ]
    }
}

/// The dates a metrics row may carry, around the clock of the ingest: from `daysBefore` days before
/// today to `daysAhead` days after it (UTC days). Rows outside are refused by `metrics ingest` with
/// their line, so that a typo or a wrong clock in an export (2031 for 2026, 0001, 1999) is never
/// judged by health or acted on by guard (docs/metrics.md, "The date window").
public struct MetricDateWindow: Equatable, Sendable {
    public var daysBefore: Int
    public var daysAhead: Int

    /// Three years back (1,096 days: a baseline's counts from months ago may be backfilled, 1999 may
    /// not); one day ahead (an export's day in a time zone east of UTC).
    public static let `default` = MetricDateWindow(daysBefore: 1096, daysAhead: 1)

    /// The first and the last day accepted on `today` (days since the epoch).
    public func days(today: Int) -> ClosedRange<Int> { (today - daysBefore)...(today + daysAhead) }

    static func parse(_ value: JSONValue, source: String) throws -> MetricDateWindow {
        var r = try ObjectReader(value, path: source)
        let d = MetricDateWindow.default
        let window = MetricDateWindow(
            daysBefore: try r.integer("daysBefore", default: d.daysBefore, range: 0...36_525),
            daysAhead: try r.integer("daysAhead", default: d.daysAhead, range: 0...366))
        try r.finish()
        return window
    }
}

/// Reads an object's members by name, reporting wrong types with the member's path, and refusing
/// members nobody read (`finish`).
struct ObjectReader {
    let object: [String: JSONValue]
    let path: String
    private var seen: Set<String> = []

    init(_ value: JSONValue, path: String) throws {
        guard case .object(let o) = value else {
            throw RolloutError.badInput("\(path): expected an object, found \(value.kindName)")
        }
        self.object = o
        self.path = path
    }

    private func fail(_ name: String, _ expected: String) -> RolloutError {
        .badInput("\(path): \"\(name)\" must be \(expected), found \(object[name]!.kindName)")
    }

    mutating func integer(_ name: String, default value: Int, range: ClosedRange<Int>? = nil) throws -> Int {
        seen.insert(name)
        guard let raw = object[name] else { return value }
        guard let n = raw.integerValue else { throw fail(name, "an integer") }
        if let range, !range.contains(n) {
            throw RolloutError.badInput(
                "\(path): \"\(name)\" must be between \(range.lowerBound) and \(range.upperBound), found \(n)")
        }
        return n
    }

    mutating func fraction(_ name: String, default value: Double) throws -> Double {
        seen.insert(name)
        guard let raw = object[name] else { return value }
        guard case .number(let n) = raw else { throw fail(name, "a number") }
        guard n.value >= 0 && n.value <= 1 else {
            throw RolloutError.badInput(
                "\(path): \"\(name)\" must be between 0 and 1, found \(JSONWriter.formatNumber(n.value))")
        }
        return n.value
    }

    mutating func string(_ name: String, default value: String) throws -> String {
        seen.insert(name)
        guard let raw = object[name] else { return value }
        guard let s = raw.stringValue else { throw fail(name, "a string") }
        return s
    }

    mutating func optionalString(_ name: String) throws -> String? {
        seen.insert(name)
        guard let raw = object[name] else { return nil }
        guard let s = raw.stringValue else { throw fail(name, "a string") }
        return s
    }

    mutating func array(_ name: String) throws -> [JSONValue]? {
        seen.insert(name)
        guard let raw = object[name] else { return nil }
        guard let items = raw.arrayValue else { throw fail(name, "an array") }
        return items
    }

    mutating func stringArray(_ name: String, default value: [String]) throws -> [String] {
        seen.insert(name)
        guard let raw = object[name] else { return value }
        guard let items = raw.arrayValue else { throw fail(name, "an array of strings") }
        return try items.map { item in
            guard let s = item.stringValue else { throw fail(name, "an array of strings") }
            return s
        }
    }

    mutating func object(_ name: String) throws -> JSONValue? {
        seen.insert(name)
        guard let raw = object[name] else { return nil }
        guard raw.objectValue != nil else { throw fail(name, "an object") }
        return raw
    }

    /// Marks `name` read, for a reader of another type written in an extension.
    mutating func markSeen(_ name: String) { seen.insert(name) }

    func finish() throws {
        if let extra = object.keys.filter({ !seen.contains($0) }).sorted().first {
            throw RolloutError.badInput(
                "\(path): unknown field \"\(extra)\" (known: \(seen.sorted().joined(separator: ", ")))")
        }
    }
}
