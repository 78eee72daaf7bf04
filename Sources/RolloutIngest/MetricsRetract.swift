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
        public let reason: String

        public init(digest: String, source: String, kind: MetricKind?, reason: String) {
            self.digest = digest
            self.source = source
            self.kind = kind
            self.reason = reason
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

    /// The one ingested (digest, kind) that `request` names.
    static func resolve(_ request: Request, in snapshot: Snapshot) throws -> (digest: String, kind: MetricKind) {
        let hex = request.digest.hasPrefix("sha256:") ? String(request.digest.dropFirst(7)) : request.digest
        guard hex.count >= minimumPrefix, hex.count <= 64, MetricsLayout.isHex(hex) else {
            throw IngestRefusal.notADigest(source: request.source, minimumPrefix: MetricsRetract.minimumPrefix)
        }
        let found = try MetricsLayout.ingestedDigests(startingWith: hex, in: snapshot).filter {
            request.kind == nil || $0.kind == request.kind
        }
        let digests = Set(found.map(\.digest))
        guard !digests.isEmpty else {
            throw IngestRefusal.noSuchIngest(source: request.source, kind: request.kind)
        }
        guard digests.count == 1 else {
            throw RolloutError.ambiguousDigest(request.source, digests)
        }
        if found.count > 1 {
            // One file ingested as several kinds (crash and fallback, or several outcome metrics):
            // the one still counted, or ask.
            let active = try found.filter { try MetricsLayout.history($0.digest, kind: $0.kind, in: snapshot).isActive }
            guard active.count == 1 else {
                throw IngestRefusal.ingestedAsSeveralKinds(
                    source: request.source, kinds: (active.isEmpty ? found : active).map(\.kind).sorted())
            }
            return active[0]
        }
        return found[0]
    }

    public static func retract(
        _ request: Request, from repository: PackRepository, actor: Actor, time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<Outcome> {
        try repository.apply(actor: actor, time: time) { snapshot in
            let (digest, kind) = try resolve(request, in: snapshot)
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
            let file = record["file"]?.stringValue ?? "?"
            let short = String(digest.dropFirst(7).prefix(12))

            let (blobs, removals, removed) = try removeEntries(
                of: short, kind: kind, locales: locales, dates: dates, in: snapshot)
            let outcome = Outcome(digest: digest, kind: kind, file: file, locales: locales, rollups: removed)
            let retraction: JSONValue = [
                "digest": .string(digest), "kind": .string(kind.rawValue), "file": .string(file),
                "ingest": .string(ingestPath),
                "reason": .string(request.reason), "locales": .array(locales.map { .string($0) }),
                "rollups": .object(removed.mapValues { .integer($0) }), "entries": .integer(outcome.entries),
                "actor": .string(actor.description), "time": .string(time().description),
            ]
            var trailers: [(name: Trailer, value: String)] = [(.action, ChangeAction.metricsRetract.rawValue)]
            for locale in locales { trailers.append((.locale, locale)) }
            trailers += [
                (.metricsKind, kind.rawValue), (.metricsFile, file), (.metricsDigest, digest),
                (.reason, request.reason),
            ]
            let change = Change(
                summary:
                    "metrics retract \(kind.rawValue) \(file) (\(outcome.entries) entries from \(removed.count) rollup(s))",
                trailers: trailers,
                writes: [
                    (
                        MetricsLayout.retraction(digest, kind: kind, generation: history.ingests),
                        JSONWriter.pretty(retraction)
                    )
                ],
                blobs: blobs, removals: removals)
            return (change, outcome)
        }
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
