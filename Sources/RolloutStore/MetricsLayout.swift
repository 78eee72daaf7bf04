import Foundation
import RolloutModel

/// Where metrics live in the state tree (docs/metrics.md, "What is committed").
public enum MetricsLayout {
    public static let directory = "metrics"
    public static let ingestsDirectory = "\(directory)/ingests"
    public static let retractionsDirectory = "\(directory)/retractions"

    public static func rollupDirectory(_ kind: MetricKind, locale: String) -> String {
        "\(directory)/\(kind.rawValue)/\(locale)"
    }

    /// Whether `path` is a rollup: metrics/<kind>/<locale>/<date>.json, of any kind (crash, fallback
    /// or an outcome kind, `outcome-<metric>`).
    public static func isRollup(_ path: String) -> Bool { kind(ofRollup: path) != nil }

    /// The kind whose directory `path` lies under (metrics/<kind>/...), if it is one.
    public static func kind(ofRollup path: String) -> MetricKind? {
        guard path.hasPrefix(directory + "/") else { return nil }
        let rest = path.dropFirst(directory.count + 1)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return MetricKind(rawValue: String(rest[..<slash]))
    }

    /// Every kind with a directory under metrics/, in order (crash, fallback, then the outcome kinds
    /// by metric): what verify, show and the listings go through, where the health commands keep to
    /// `MetricKind.health`. A directory whose name is no kind (ingests, retractions) is not one.
    public static func storedKinds(in snapshot: Snapshot) throws -> [MetricKind] {
        try snapshot.directory(directory).filter(\.isTree).compactMap { MetricKind(rawValue: $0.name) }.sorted()
    }

    /// The outcome kinds stored for `locale` (those with a rollup directory of it), by metric.
    public static func outcomeKinds(of locale: String, in snapshot: Snapshot) throws -> [MetricKind] {
        var kinds: [MetricKind] = []
        for kind in try storedKinds(in: snapshot) where kind.isOutcome {
            if try !snapshot.directory(rollupDirectory(kind, locale: locale)).isEmpty { kinds.append(kind) }
        }
        return kinds
    }

    public static func rollup(_ kind: MetricKind, locale: String, day: Int) -> String {
        "\(rollupDirectory(kind, locale: locale))/\(Timestamp(seconds: Int64(day) * 86_400).description.prefix(10)).json"
    }

    /// The record of the `generation`-th ingest (from 1) of a file read as `kind`. One file may hold
    /// both kinds of columns: what was ingested is the file read as one kind. The first ingest keeps
    /// the name records always had; an ingest after a retraction adds its number, because a record,
    /// once written, never changes or disappears.
    public static func provenance(_ digest: String, kind: MetricKind, generation: Int = 1) -> String {
        "\(ingestsDirectory)/\(recordName(digest, kind: kind, generation: generation))"
    }

    /// The record of the `generation`-th retraction: it undoes the ingest of the same generation.
    public static func retraction(_ digest: String, kind: MetricKind, generation: Int = 1) -> String {
        "\(retractionsDirectory)/\(recordName(digest, kind: kind, generation: generation))"
    }

    static func recordName(_ digest: String, kind: MetricKind, generation: Int) -> String {
        let hex = digest.hasPrefix("sha256:") ? String(digest.dropFirst(7)) : digest
        return generation == 1 ? "\(hex).\(kind.rawValue).json" : "\(hex).\(kind.rawValue).\(generation).json"
    }

    /// A record's file name read back: `HEX.KIND.json` or `HEX.KIND.N.json` (N >= 2).
    public static func parseRecordName(_ name: String) -> (digest: String, kind: MetricKind, generation: Int)? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 || parts.count == 4, parts.last == "json", parts[0].count == 64,
            isHex(parts[0]), let kind = MetricKind(rawValue: parts[1])
        else { return nil }
        if parts.count == 3 { return ("sha256:" + parts[0], kind, 1) }
        guard let n = Int(parts[2]), n >= 2, String(n) == parts[2] else { return nil }
        return ("sha256:" + parts[0], kind, n)
    }

    /// Lowercase hexadecimal digits only, as digests are written.
    public static func isHex<S: StringProtocol>(_ text: S) -> Bool {
        text.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
        }
    }

    /// How often a file was ingested as `kind`, and how often retracted: it counts while the first
    /// is larger (by one).
    public struct History: Equatable, Sendable {
        public let ingests: Int
        public let retractions: Int
        public var isActive: Bool { ingests > retractions }
    }

    public static func history(_ digest: String, kind: MetricKind, in snapshot: Snapshot) throws -> History {
        var ingests = 0
        while try snapshot.file(provenance(digest, kind: kind, generation: ingests + 1)) != nil { ingests += 1 }
        var retractions = 0
        while try snapshot.file(retraction(digest, kind: kind, generation: retractions + 1)) != nil { retractions += 1 }
        return History(ingests: ingests, retractions: retractions)
    }

    /// The digests (with their kind) of every ingest record, active or retracted, whose name starts with `hexPrefix`.
    public static func ingestedDigests(startingWith hexPrefix: String, in snapshot: Snapshot) throws -> [(
        digest: String, kind: MetricKind
    )] {
        var found: [String: (digest: String, kind: MetricKind)] = [:]
        for entry in try snapshot.directory(ingestsDirectory) where !entry.isTree && entry.name.hasPrefix(hexPrefix) {
            guard let record = parseRecordName(entry.name) else { continue }
            found["\(record.digest).\(record.kind.rawValue)"] = (record.digest, record.kind)
        }
        return found.keys.sorted().map { found[$0]! }
    }

    /// Calls `body` with every rollup of `kind` for `locale`, one at a time, each count checked, and
    /// returns the per-pack totals: a sum out of the one range throws (with the files to retract)
    /// before any reader adds it up.
    @discardableResult
    public static func forEachRollup(
        _ kind: MetricKind, locale: String, in snapshot: Snapshot, _ body: (MetricRollup) throws -> Void
    ) throws -> MetricTotals {
        var totals = MetricTotals(kind: kind, locale: locale)
        for entry in try snapshot.directory(rollupDirectory(kind, locale: locale)) where !entry.isTree {
            let rollup = try MetricRollup.parse(
                try readRollup(entry, in: snapshot),
                source: rollupDirectory(kind, locale: locale) + "/" + entry.name)
            try totals.add(rollup)
            try body(rollup)
        }
        return totals
    }

    /// Calls `body` with each rollup of `kind` for `locale` dated in `days` (every one when nil): the
    /// others are skipped by their file name, unread. What an experiment's days need
    /// (`OutcomeTotals`, its guardrails), not a pack's whole history.
    public static func forEachRollup(
        _ kind: MetricKind, locale: String, on days: ClosedRange<Int>?, in snapshot: Snapshot,
        _ body: (MetricRollup) throws -> Void
    ) throws {
        let directory = rollupDirectory(kind, locale: locale)
        for entry in try snapshot.directory(directory) where !entry.isTree {
            if let days, let day = day(ofRollupNamed: entry.name), !days.contains(day) { continue }
            let rollup = try MetricRollup.parse(
                try readRollup(entry, in: snapshot), source: directory + "/" + entry.name)
            if let days, !days.contains(rollup.day) { continue }
            try body(rollup)
        }
    }

    /// Every rollup of `kind` for `locale` in `snapshot`, checked as `forEachRollup` does.
    public static func rollups(_ kind: MetricKind, locale: String, in snapshot: Snapshot) throws -> [MetricRollup] {
        var all: [MetricRollup] = []
        try forEachRollup(kind, locale: locale, in: snapshot) { all.append($0) }
        return all
    }

    /// The rollups of `kind` for `locale` that hold an entry of one of `versions` or are dated after
    /// day `after` (all of them for `Int.min`), oldest first, as columns, checked as `forEachRollup`
    /// checks what it reads. A year of metrics is hundreds of megabytes of rollups (issue 36) and a
    /// staged pack was measured on a few weeks of them: the others are not parsed, found by the
    /// versions their keys name, remembered per blob (RollupPacksCache) so that they are not even
    /// read again.
    public static func entries(
        _ kind: MetricKind, locale: String, holding versions: [Int], orAfter after: Int, cells: inout RollupCells,
        in snapshot: Snapshot
    ) throws -> [RollupEntries] {
        var found: [RollupEntries] = []
        var read: [GitTreeEntry] = []
        var sums = VersionSums()
        let cache = snapshot.rollupPacks
        defer { cache.save() }
        let directory = rollupDirectory(kind, locale: locale)
        for entry in try snapshot.directory(directory) where !entry.isTree {
            let old = day(ofRollupNamed: entry.name).map { $0 <= after } ?? false
            if old, let named = cache.versions(of: entry.id), !named.contains(where: versions.contains) { continue }
            let bytes = try readRollup(entry, in: snapshot)
            let named = keyVersions(bytes)
            if let named { cache.record(entry.id, named) }
            if old, let named, !named.contains(where: versions.contains) { continue }
            found.append(try RollupEntries.parse(bytes, source: directory + "/" + entry.name, cells: &cells))
            read.append(entry)
            if let version = sums.versionOutOfRange(adding: found.last!) {
                // Out of range: summed again as every other reader sums, for its message (the files to retract).
                var totals = MetricTotals(kind: kind, locale: locale)
                for entry in read {
                    try totals.add(
                        MetricRollup.parse(
                            try readRollup(entry, in: snapshot), source: directory + "/" + entry.name))
                }
                throw RolloutError.metricsSumOutOfRange(kind: kind, pack: "\(locale)@\(version)", origins: [])
            }
        }
        return found
    }

    /// Per content version, the sums of the rollups added so far.
    struct VersionSums {
        var byVersion: [Int: MetricCounts] = [:]

        /// Adds `rollup`'s entries; the version whose sum left the range, if one did.
        mutating func versionOutOfRange(adding rollup: RollupEntries) -> Int? {
            // Keys are in byte order, so a version's entries are mostly together: a run is summed
            // apart and then added.
            var run: (version: Int, sum: MetricCounts)?
            for index in 0..<rollup.count {
                let version = rollup.versions[index]
                if let current = run, current.version != version {
                    guard add(current) else { return current.version }
                    run = nil
                }
                guard let sum = (run?.sum ?? .zero).adding(rollup.counts[index]) else { return version }
                run = (version, sum)
            }
            if let run, !add(run) { return run.version }
            return nil
        }

        private mutating func add(_ run: (version: Int, sum: MetricCounts)) -> Bool {
            guard let sum = (byVersion[run.version] ?? .zero).adding(run.sum) else { return false }
            byVersion[run.version] = sum
            return true
        }
    }

    /// A rollup's bytes, checked against its id with OpenSSL's SHA-1 instead of libgit2's, which
    /// detects collisions and took a third of a first `guard` on a year of rollups: the check is for
    /// bytes changed on disk, and collisions were looked for when the object arrived (git's
    /// index-pack does). Bytes that do not match are read again with libgit2's check, for its message.
    static func readRollup(_ entry: GitTreeEntry, in snapshot: Snapshot) throws -> [UInt8] {
        let bytes = try snapshot.repository.withoutRehashingObjects { try snapshot.repository.readBlob(entry.id) }
        return ObjectID(blob: bytes) == entry.id ? bytes : try snapshot.repository.readBlob(entry.id)
    }

    /// The day (since the epoch) a rollup's file name, `YYYY-MM-DD.json`, says it holds.
    public static func day(ofRollupNamed name: String) -> Int? {
        guard name.hasSuffix(".json"), let date = Timestamp(iso8601: String(name.dropLast(5))) else { return nil }
        return Int(date.seconds / 86_400)
    }

    /// The content versions a rollup's keys name, found without parsing it: a key is `"VERSION|`. Nil
    /// (parse it to know) when a key could name one otherwise: the parser also reads a version with a
    /// leading zero or a plus, and a key with escapes.
    static func keyVersions(_ bytes: [UInt8]) -> [Int]? {
        bytes.withUnsafeBytes { raw -> [Int]? in
            guard let base = raw.baseAddress else { return [] }
            if memchr(base, 0x5C, raw.count) != nil { return nil }
            var versions: [Int] = []
            var offset = 0
            // From quote to quote (memchr is fast at it): a key's version is the digits after one.
            while offset < raw.count, let found = memchr(base + offset, 0x22, raw.count - offset) {
                var at = base.distance(to: UnsafeRawPointer(found)) + 1
                offset = at
                if at < raw.count, raw[at] == UInt8(ascii: "+") { return nil }
                let start = at
                var version = 0
                while at < raw.count, raw[at] >= UInt8(ascii: "0"), raw[at] <= UInt8(ascii: "9"), at - start < 18 {
                    version = version * 10 + Int(raw[at] - UInt8(ascii: "0"))
                    at += 1
                }
                if at - start == 18, at < raw.count, raw[at] >= UInt8(ascii: "0"), raw[at] <= UInt8(ascii: "9") {
                    return nil
                }
                guard at > start, at < raw.count, raw[at] == UInt8(ascii: "|") else { continue }
                if raw[start] == UInt8(ascii: "0") && at - start > 1 { return nil }
                // Keys are sorted, so a version's keys are mostly together.
                if versions.last != version && !versions.contains(version) { versions.append(version) }
                offset = at
            }
            return versions.sorted()
        }
    }

    /// Per pack of `locale`, its stored `kind` counts summed over every date, region and app version:
    /// what ingest checks a file's sums against. Each rollup's per-version sums are remembered per
    /// blob (`RollupPacksCache`, `rollup-totals`), so an ingest into a year of history parses only
    /// the rollups it has not seen, not a year of them for every locale it touches. Anything out of
    /// the ordinary (a damaged rollup, a sum out of range) is summed again from the rollups, so the
    /// answer and every message are `forEachRollup`'s.
    public static func totals(_ kind: MetricKind, locale: String, in snapshot: Snapshot) throws -> MetricTotals {
        let cache = snapshot.rollupTotals
        defer { cache.save() }
        var totals = MetricTotals(kind: kind, locale: locale)
        let directory = rollupDirectory(kind, locale: locale)
        do {
            for entry in try snapshot.directory(directory) where !entry.isTree {
                var sums = cache.versions(of: entry.id) ?? []
                if sums.isEmpty || sums.count % 3 != 0 {
                    var one = MetricTotals(kind: kind, locale: locale)
                    try one.add(
                        try MetricRollup.parse(
                            try readRollup(entry, in: snapshot), source: directory + "/" + entry.name))
                    sums = one.byVersion.sorted { $0.key < $1.key }.flatMap {
                        [$0.key, $0.value.total, $0.value.events]
                    }
                    cache.record(entry.id, sums)
                }
                for at in stride(from: 0, to: sums.count, by: 3)
                where !totals.add(version: sums[at], counts: MetricCounts(total: sums[at + 1], events: sums[at + 2])) {
                    return try forEachRollup(kind, locale: locale, in: snapshot) { _ in }
                }
            }
        } catch {
            return try forEachRollup(kind, locale: locale, in: snapshot) { _ in }
        }
        return totals
    }
}
