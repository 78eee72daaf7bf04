/// The two kinds of metrics CSV (docs/metrics.md): crash (sessions, crashes) and fallback
/// (lookups, fallbacks), each per date, locale, pack, region and app version.
public enum MetricKind: String, CaseIterable, Sendable {
    case crash
    case fallback

    /// The exposure column and the event column.
    public var columns: (total: String, events: String) {
        switch self {
        case .crash: return ("sessions", "crashes")
        case .fallback: return ("lookups", "fallbacks")
        }
    }

    public static let keyColumns = ["date", "locale", "pack", "region", "app_version"]
}

/// Counts for one (date, pack, region, app version): exposures and events.
public struct MetricCounts: Equatable, Sendable {
    public var total: Int
    public var events: Int

    public init(total: Int, events: Int) {
        self.total = total
        self.events = events
    }

    /// The sum, or nil if it would overflow.
    public func adding(_ other: MetricCounts) -> MetricCounts? {
        let (total, o1) = self.total.addingReportingOverflow(other.total)
        let (events, o2) = self.events.addingReportingOverflow(other.events)
        return o1 || o2 ? nil : MetricCounts(total: total, events: events)
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

        public static func < (a: Key, b: Key) -> Bool { (a.contentVersion, a.region, a.appVersion) < (b.contentVersion, b.region, b.appVersion) }
    }

    public let kind: MetricKind
    public let locale: String
    /// Days since 1970-01-01.
    public let day: Int
    public var counts: [Key: MetricCounts]
    /// Which ingested file (its digest) each entry came from: overlaps are reported by name.
    public var sources: [Key: String]

    public init(kind: MetricKind, locale: String, day: Int, counts: [Key: MetricCounts] = [:], sources: [Key: String] = [:]) {
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
            "counts": .object(Dictionary(uniqueKeysWithValues: counts.map { key, value in
                (key.text, [.integer(value.total), .integer(value.events), .string(sources[key] ?? "")] as JSONValue)
            })),
        ]
    }

    public static func parse(_ bytes: [UInt8], source: String) throws -> MetricRollup {
        func fail(_ why: String) -> RolloutError { .internal("\(source) is damaged: \(why); check the repository with git fsck") }
        guard let o = (try? StrictJSONParser.parse(bytes))?.objectValue, let kindText = o["kind"]?.stringValue, let kind = MetricKind(rawValue: kindText),
            let locale = o["locale"]?.stringValue, let dateText = o["date"]?.stringValue, let date = Timestamp(iso8601: dateText),
            let values = o["counts"]?.objectValue
        else { throw fail("not a metrics rollup") }
        var counts: [Key: MetricCounts] = [:]
        var sources: [Key: String] = [:]
        for (text, value) in values {
            let parts = text.split(separator: "|", omittingEmptySubsequences: false)
            guard parts.count == 3, let version = Int(parts[0]), let triple = value.arrayValue, triple.count == 3,
                let total = triple[0].integerValue, let events = triple[1].integerValue, let source = triple[2].stringValue
            else { throw fail("bad entry \(text)") }
            let key = Key(contentVersion: version, region: String(parts[1]), appVersion: String(parts[2]))
            counts[key] = MetricCounts(total: total, events: events)
            sources[key] = source
        }
        return MetricRollup(kind: kind, locale: locale, day: Int(date.seconds / 86_400), counts: counts, sources: sources)
    }
}
