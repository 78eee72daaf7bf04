/// The kinds of metrics CSV (docs/metrics.md): crash (sessions, crashes) and fallback (lookups,
/// fallbacks), the two health judges, and one outcome kind per experiment metric (exposures,
/// conversions; docs/experiments.md), each per date, locale, pack, region and app version.
/// An outcome kind is spelled `outcome-<metric>`: the rollups of each metric are a kind of their own,
/// so ingest, retract and verify treat them as they treat crash and fallback.
public struct MetricKind: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    private init(checked rawValue: String) { self.rawValue = rawValue }

    public static let crash = MetricKind(checked: "crash")
    public static let fallback = MetricKind(checked: "fallback")
    /// The prefix of every outcome kind.
    public static let outcomePrefix = "outcome-"

    /// The kinds `health`, the promote gate and guard judge a pack by, in their order.
    public static let health: [MetricKind] = [.crash, .fallback]

    /// `crash`, `fallback` or `outcome-<metric>` with a valid metric name; nil otherwise.
    public init?(rawValue: String) {
        if rawValue == "crash" || rawValue == "fallback" {
            self.rawValue = rawValue
        } else if rawValue.hasPrefix(Self.outcomePrefix),
            Plan.Experiment.isValidMetric(String(rawValue.dropFirst(Self.outcomePrefix.count)))
        {
            self.rawValue = rawValue
        } else {
            return nil
        }
    }

    /// The outcome kind of one metric; nil when the name is not a metric name.
    public static func outcome(_ metric: String) -> MetricKind? { MetricKind(rawValue: outcomePrefix + metric) }

    /// The metric an outcome kind counts; nil for crash and fallback.
    public var metric: String? {
        rawValue.hasPrefix(Self.outcomePrefix) ? String(rawValue.dropFirst(Self.outcomePrefix.count)) : nil
    }

    public var isOutcome: Bool { metric != nil }

    /// The exposure column and the event column.
    public var columns: (total: String, events: String) {
        if self == .crash { return ("sessions", "crashes") }
        if self == .fallback { return ("lookups", "fallbacks") }
        return ("exposures", "conversions")
    }

    public var description: String { rawValue }

    public static func < (a: MetricKind, b: MetricKind) -> Bool { a.rawValue < b.rawValue }

    public static let keyColumns = ["date", "locale", "pack", "region", "app_version"]
    /// The column an outcome CSV names each row's metric in.
    public static let metricColumn = "metric"
}

/// Counts for one (date, pack, region, app version): exposures and events.
public struct MetricCounts: Equatable, Sendable {
    public var total: Int
    public var events: Int

    /// The one range of a count (docs/metrics.md, "One range for every count"): 2^53 - 1, the largest
    /// integer the strict JSON parser reads back exactly (I-JSON, docs/reliability.md F3 and F5).
    /// Ingest keeps every stored count, and every pack's sum over all its dates, regions and app
    /// versions, within it; every sum a reader computes is part of such a sum.
    public static let maximum = 9_007_199_254_740_991
    public static let zero = MetricCounts(total: 0, events: 0)

    public init(total: Int, events: Int) {
        self.total = total
        self.events = events
    }

    public var isInRange: Bool {
        (0...MetricCounts.maximum).contains(total) && (0...MetricCounts.maximum).contains(events)
    }

    /// The sum, or nil if it would leave the range.
    public func adding(_ other: MetricCounts) -> MetricCounts? {
        let (total, o1) = self.total.addingReportingOverflow(other.total)
        let (events, o2) = self.events.addingReportingOverflow(other.events)
        let sum = MetricCounts(total: total, events: events)
        return o1 || o2 || !sum.isInRange ? nil : sum
    }

    /// The sum, for a reader: MetricsLayout checked every pack's sum, so this throws only on counts
    /// read without that check.
    public func adding(_ other: MetricCounts, kind: MetricKind, pack: String) throws -> MetricCounts {
        guard let sum = adding(other) else {
            throw RolloutError.metricsSumOutOfRange(kind: kind, pack: pack, origins: [])
        }
        return sum
    }

    public var rate: Double? { total > 0 ? Double(events) / Double(total) : nil }
}

/// One locale's counts of one kind on one date, keyed by `version|region|appVersion`: the rollup
/// the repository stores at metrics/<kind>/<locale>/<date>.json.
public struct MetricRollup: Equatable, Sendable {
    public struct Key: Hashable, Comparable, Sendable {
        public let contentVersion: Int
        public let region: String
        public let appVersion: String

        public init(contentVersion: Int, region: String, appVersion: String) {
            self.contentVersion = contentVersion
            self.region = region
            self.appVersion = appVersion
        }

        public var text: String { "\(contentVersion)|\(region)|\(appVersion)" }

        public static func < (a: Key, b: Key) -> Bool {
            (a.contentVersion, a.region, a.appVersion) < (b.contentVersion, b.region, b.appVersion)
        }
    }

    public let kind: MetricKind
    public let locale: String
    /// Days since 1970-01-01.
    public let day: Int
    public var counts: [Key: MetricCounts]
    /// Which ingested file (its digest) each entry came from: overlaps are reported by name.
    public var sources: [Key: String]

    public init(
        kind: MetricKind, locale: String, day: Int, counts: [Key: MetricCounts] = [:], sources: [Key: String] = [:]
    ) {
        self.kind = kind
        self.locale = locale
        self.day = day
        self.counts = counts
        self.sources = sources
    }

    public var date: String { String(Timestamp(seconds: Int64(day) * 86_400).description.prefix(10)) }

    public var jsonValue: JSONValue {
        [
            "kind": .string(kind.rawValue), "locale": .string(locale), "date": .string(date),
            "columns": [.string(kind.columns.total), .string(kind.columns.events)],
            "counts": .object(
                Dictionary(
                    uniqueKeysWithValues: counts.map { key, value in
                        (
                            key.text,
                            [.integer(value.total), .integer(value.events), .string(sources[key] ?? "")] as JSONValue
                        )
                    })),
        ]
    }

    /// Reads a stored rollup. Counts are read exactly from their digits, so that a count an older
    /// version stored out of range is reported as such (with the file to retract) rather than as
    /// damage; `checkingRange: false` keeps it, for retracting it.
    public static func parse(_ bytes: [UInt8], source: String, checkingRange: Bool = true) throws -> MetricRollup {
        if let rollup = RollupScanner.parse(bytes, checkingRange: checkingRange) { return rollup }
        return try parseGenerically(bytes, source: source, checkingRange: checkingRange)
    }

    /// `parse` by the generic JSON parser: any valid JSON of the schema, and every message about
    /// one that is not.
    static func parseGenerically(_ bytes: [UInt8], source: String, checkingRange: Bool) throws -> MetricRollup {
        func fail(_ why: String) -> RolloutError {
            .repositoryDamaged("\(source) is damaged: \(why)")
        }
        func count(_ value: JSONValue) -> Int? {
            guard case .number(let n) = value else { return nil }
            if let exact = n.integerValue { return exact }
            return n.literal.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                ? Int(n.literal) : nil
        }
        guard let o = (try? StrictJSONParser.parse(bytes))?.objectValue, let kindText = o["kind"]?.stringValue,
            let kind = MetricKind(rawValue: kindText),
            let locale = o["locale"]?.stringValue, let dateText = o["date"]?.stringValue,
            let date = Timestamp(iso8601: dateText),
            let values = o["counts"]?.objectValue
        else { throw fail("not a metrics rollup") }
        var counts: [Key: MetricCounts] = [:]
        var sources: [Key: String] = [:]
        for (text, value) in values {
            let parts = text.split(separator: "|", omittingEmptySubsequences: false)
            guard parts.count == 3, let version = Int(parts[0]), let triple = value.arrayValue, triple.count == 3,
                let total = count(triple[0]), let events = count(triple[1]), let origin = triple[2].stringValue
            else { throw fail("bad entry \(text)") }
            let key = Key(contentVersion: version, region: String(parts[1]), appVersion: String(parts[2]))
            let entry = MetricCounts(total: total, events: events)
            if checkingRange && !entry.isInRange {
                throw RolloutError.metricsCountOutOfRange(
                    source, entry: text, counts: entry, kind: kind, origin: origin)
            }
            counts[key] = entry
            sources[key] = origin
        }
        return MetricRollup(
            kind: kind, locale: locale, day: Int(date.seconds / 86_400), counts: counts, sources: sources)
    }
}

/// Per content version, one kind's counts of one locale summed over every stored date, region and
/// app version: the largest sum any reader computes, so the one that must stay in range.
public struct MetricTotals: Sendable {
    public private(set) var byVersion: [Int: MetricCounts] = [:]
    /// The sources (short digests) that contributed to each version, for the message when a sum is out of range.
    private var origins: [Int: Set<String>] = [:]
    public let kind: MetricKind
    public let locale: String

    public init(kind: MetricKind, locale: String) {
        self.kind = kind
        self.locale = locale
    }

    public mutating func add(_ rollup: MetricRollup) throws {
        // Entries of one rollup mostly share their source: the set is touched only when it changes.
        var last: (version: Int, source: String)?
        for (key, counts) in rollup.counts {
            let source = rollup.sources[key] ?? ""
            if last?.version != key.contentVersion || last?.source != source {
                origins[key.contentVersion, default: []].insert(source)
                last = (key.contentVersion, source)
            }
            guard let sum = (byVersion[key.contentVersion] ?? .zero).adding(counts) else {
                throw RolloutError.metricsSumOutOfRange(
                    kind: kind, pack: "\(locale)@\(key.contentVersion)",
                    origins: (origins[key.contentVersion] ?? []).sorted())
            }
            byVersion[key.contentVersion] = sum
        }
    }

    public func total(of version: Int) -> Int { byVersion[version]?.total ?? 0 }

    /// Adds one version's counts summed elsewhere (a rollup's, remembered); false, adding nothing,
    /// when the sum leaves the range: the caller then sums the rollups themselves, for the message.
    public mutating func add(version: Int, counts: MetricCounts) -> Bool {
        guard let sum = (byVersion[version] ?? .zero).adding(counts) else { return false }
        byVersion[version] = sum
        return true
    }
}

extension RolloutError {
    static let retractHint = "an older rollout accepted it; take that data out with rollout metrics retract"

    /// A stored count beyond the one range (written by a version that did not check it).
    public static func metricsCountOutOfRange(
        _ path: String, entry: String, counts: MetricCounts, kind: MetricKind, origin: String
    ) -> RolloutError {
        .badInput(
            "\(path): \(entry) holds \(counts.total) \(kind.columns.total) "
                + "and \(counts.events) \(kind.columns.events), "
                + "outside 0 to \(MetricCounts.maximum), the counts rollout reads exactly (docs/metrics.md); "
                + "\(retractHint) sha256:\(origin)")
    }

    /// Stored counts of one pack whose sum is beyond the one range.
    public static func metricsSumOutOfRange(kind: MetricKind, pack: String, origins: [String]) -> RolloutError {
        let files = origins.map { "sha256:\($0)" }.joined(separator: ", ")
        return .badInput(
            "the stored \(kind.rawValue) counts of \(pack) add up past \(MetricCounts.maximum), "
                + "the most rollout counts exactly (docs/metrics.md); "
                + (files.isEmpty
                    ? "\(retractHint) (rollout log lists the ingests)" : "\(retractHint) and one of: \(files)"))
    }
}
