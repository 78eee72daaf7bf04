import Foundation
import RolloutCrypto
import RolloutModel
import RolloutStore

/// `rollout metrics retract`: takes one ingested file's contribution out of the rollups, in one
/// commit with its own record (docs/metrics.md, "Retracting a file").
///
/// The contribution is re-derived from the repository, and exactly: overlaps are refused at ingest,
/// so every rollup entry comes from one file, and names it by the first 12 hex digits of its digest,
/// which ingest keeps unique per kind. The entries that name the file, in the rollups of the locales
/// and dates its provenance lists, are what it added, and nothing else; the file itself is not needed.
public enum MetricsRetract {
    public struct Request {
        /// The file's digest (`sha256:` and 64 hex digits), or a prefix of at least 12 hex digits.
        public let digest: String
        /// As given on the command line, for messages.
        public let source: String
        public let kind: MetricKind?
        /// Every outcome kind the file is still counted as (`--kind outcome`), in one commit.
        public let everyOutcome: Bool
        public let reason: String

        public init(digest: String, source: String, kind: MetricKind?, everyOutcome: Bool = false, reason: String) {
            self.digest = digest
            self.source = source
            self.kind = kind
            self.everyOutcome = everyOutcome
            self.reason = reason
        }

        /// Whether an ingest as `kind` is one this request may name.
        func names(_ kind: MetricKind) -> Bool {
            everyOutcome ? kind.isOutcome : (self.kind == nil || self.kind == kind)
        }
    }

    public struct Outcome {
        public let digest: String
        public let kind: MetricKind
        public let file: String
        public let locales: [String]
        /// Rollup path -> entries removed from it.
        public let rollups: [String: Int]
        public var entries: Int { rollups.values.reduce(0, +) }
    }

    public static let minimumPrefix = 12

    /// The digest of a file's bytes, as ingest computes it.
    public static func digest(ofFile path: String, named name: String) throws -> String {
        let fd = try LocalFile.openForReading(path, name: name, describedAs: "metrics file")
        defer { close(fd) }
        let hasher = SHA256Hasher()
        try LocalFile.readChunks(fd, name: name, chunkBytes: 1 << 20) { hasher.update($0) }
        return "sha256:" + Hex.encode(hasher.finalize())
    }

    /// The one ingested file `request` names, and the kinds of it to retract: one, or with
    /// `everyOutcome` each outcome kind still counted (all of them, when none is: each is refused
    /// as already retracted).
    static func resolve(_ request: Request, in snapshot: Snapshot) throws -> (digest: String, kinds: [MetricKind]) {
        let hex = request.digest.hasPrefix("sha256:") ? String(request.digest.dropFirst(7)) : request.digest
        guard hex.count >= minimumPrefix, hex.count <= 64, MetricsLayout.isHex(hex) else {
            throw IngestRefusal.notADigest(source: request.source, minimumPrefix: MetricsRetract.minimumPrefix)
        }
        let found = try MetricsLayout.ingestedDigests(startingWith: hex, in: snapshot).filter { request.names($0.kind) }
        let digests = Set(found.map(\.digest))
        guard !digests.isEmpty else {
            throw IngestRefusal.noSuchIngest(
                source: request.source, kind: request.everyOutcome ? "an outcome kind" : request.kind?.rawValue)
        }
        guard digests.count == 1 else {
            throw RolloutError.ambiguousDigest(request.source, digests)
        }
        if request.everyOutcome {
            let active = try found.filter { try MetricsLayout.history($0.digest, kind: $0.kind, in: snapshot).isActive }
            return (found[0].digest, (active.isEmpty ? found : active).map(\.kind).sorted())
        }
        if found.count > 1 {
            // One file ingested as several kinds (crash and fallback, or several outcome metrics):
            // the one still counted, or ask.
            let active = try found.filter { try MetricsLayout.history($0.digest, kind: $0.kind, in: snapshot).isActive }
            guard active.count == 1 else {
                throw IngestRefusal.ingestedAsSeveralKinds(
                    source: request.source, kinds: (active.isEmpty ? found : active).map(\.kind).sorted())
            }
            return (active[0].digest, [active[0].kind])
        }
        return (found[0].digest, [found[0].kind])
    }

    /// Retracts the file `request` names, as each kind it resolves to, in one commit: one retraction
    /// record per kind, a `Rollout-Metrics-Kind` trailer each (docs/metrics.md, "Retracting a file").
    public static func retract(
        _ request: Request, from repository: PackRepository, actor: Actor, time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<[Outcome]> {
        try repository.apply(actor: actor, time: time) { snapshot in
            let (digest, kinds) = try resolve(request, in: snapshot)
            let taking = try kinds.map { try takeOut(digest, kind: $0, request: request, in: snapshot) }
            let outcomes = taking.map(\.outcome)
            // The name the commit gives the file, and each record with it (`verify` holds them to each
            // other), should the kinds have been ingested under different names.
            let file = outcomes[0].file
            var writes: [(path: String, bytes: [UInt8])] = []
            var blobs: [(path: String, blob: ObjectID)] = []
            var removals: [String] = []
            for (kind, taken) in zip(kinds, taking) {
                blobs += taken.blobs
                removals += taken.removals
                let retraction: JSONValue = [
                    "digest": .string(digest), "kind": .string(kind.rawValue), "file": .string(file),
                    "ingest": .string(taken.ingest),
                    "reason": .string(request.reason), "locales": .array(taken.outcome.locales.map { .string($0) }),
                    "rollups": .object(taken.outcome.rollups.mapValues { .integer($0) }),
                    "entries": .integer(taken.outcome.entries),
                    "actor": .string(actor.description), "time": .string(time().description),
                ]
                writes.append((taken.record, JSONWriter.pretty(retraction)))
            }
            var trailers: [(name: Trailer, value: String)] = [(.action, ChangeAction.metricsRetract.rawValue)]
            for locale in Set(outcomes.flatMap(\.locales)).sorted() { trailers.append((.locale, locale)) }
            trailers += kinds.map { (.metricsKind, $0.rawValue) }
            trailers += [(.metricsFile, file), (.metricsDigest, digest), (.reason, request.reason)]
            let entries = outcomes.reduce(0) { $0 + $1.entries }
            let rollups = outcomes.reduce(0) { $0 + $1.rollups.count }
            let change = Change(
                summary:
                    "metrics retract \(kinds.map(\.rawValue).joined(separator: ", ")) \(file) (\(entries) entries from \(rollups) rollup(s))",
                trailers: trailers, writes: writes, blobs: blobs, removals: removals)
            return (change, outcomes)
        }
    }

    /// What retracting the file as one kind takes out, against `snapshot`: its rollup entries, and
    /// where its retraction record goes. A kind already retracted is refused.
    static func takeOut(_ digest: String, kind: MetricKind, request: Request, in snapshot: Snapshot) throws -> (
        outcome: Outcome, ingest: String, record: String, blobs: [(path: String, blob: ObjectID)], removals: [String]
    ) {
        let history = try MetricsLayout.history(digest, kind: kind, in: snapshot)
        let ingestPath = MetricsLayout.provenance(digest, kind: kind, generation: max(1, history.ingests))
        guard history.isActive else {
            let earlier = try snapshot.file(
                MetricsLayout.retraction(digest, kind: kind, generation: history.retractions)
            )
            .flatMap { (try? StrictJSONParser.parse($0))?.objectValue }
            throw RolloutError.alreadyRetracted(request.source, kind: kind, digest: digest, by: earlier)
        }
        guard let bytes = try snapshot.file(ingestPath),
            let record = (try? StrictJSONParser.parse(bytes))?.objectValue,
            let locales = record["locales"]?.arrayValue?.compactMap(\.stringValue),
            let dates = record["dates"]?.arrayValue?.compactMap(\.stringValue)
        else { throw IngestRefusal.damagedProvenance(path: ingestPath) }
        let short = String(digest.dropFirst(7).prefix(12))
        let (blobs, removals, removed) = try removeEntries(
            of: short, kind: kind, locales: locales, dates: dates, in: snapshot)
        let outcome = Outcome(
            digest: digest, kind: kind, file: record["file"]?.stringValue ?? "?", locales: locales, rollups: removed)
        return (
            outcome, ingestPath, MetricsLayout.retraction(digest, kind: kind, generation: history.ingests), blobs,
            removals
        )
    }

    /// Takes the entries file `short` contributed out of every rollup of its locales and dates:
    /// the rewritten rollups' blobs, the rollups left empty (removed), and entries removed per path.
    static func removeEntries(
        of short: String, kind: MetricKind, locales: [String], dates: [String], in snapshot: Snapshot
    ) throws -> (blobs: [(path: String, blob: ObjectID)], removals: [String], removed: [String: Int]) {
        var blobs: [(path: String, blob: ObjectID)] = []
        var removals: [String] = []
        var removed: [String: Int] = [:]
        for locale in locales {
            for date in dates {
                let path = "\(MetricsLayout.rollupDirectory(kind, locale: locale))/\(date).json"
                guard let stored = try snapshot.file(path) else { continue }
                // Out-of-range counts are what a retraction is for: read them as they are.
                var rollup = try MetricRollup.parse(stored, source: path, checkingRange: false)
                let keys = rollup.sources.filter { $0.value == short }.map(\.key)
                guard !keys.isEmpty else { continue }
                for key in keys {
                    rollup.counts[key] = nil
                    rollup.sources[key] = nil
                }
                removed[path] = keys.count
                if rollup.counts.isEmpty {
                    removals.append(path)
                } else {
                    blobs.append((path, try snapshot.writeBlob(rollup.storedBytes)))
                }
            }
        }
        return (blobs, removals, removed)
    }
}

extension RolloutError {
    fileprivate static func ambiguousDigest(_ source: String, _ digests: Set<String>) -> RolloutError {
        .usage(
            "\(source) names \(digests.count) ingested files (\(digests.sorted().joined(separator: ", "))); give more of the digest"
        )
    }

    /// `record` is the retraction's provenance record, naming who retracted and when.
    fileprivate static func alreadyRetracted(
        _ source: String, kind: MetricKind, digest: String, by record: [String: JSONValue]?
    ) -> RolloutError {
        let when = record.map { " by \($0["actor"]?.stringValue ?? "?") at \($0["time"]?.stringValue ?? "?")" } ?? ""
        return .checkFailed(
            "\(source): the \(kind.rawValue) data of \(digest) was already retracted\(when); "
                + "nothing to do (ingest the file again to count it again)")
    }
}
