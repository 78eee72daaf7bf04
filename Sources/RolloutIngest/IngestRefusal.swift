import RolloutModel

/// What a metrics ingest or retract refuses, as data (`Refusal`): the command line words each case
/// with the flag that gets past it (`--max-gzip-text`, `--map`, `--skip-invalid`, `--kind`) or the command
/// that shows what it needs (`rollout log`).
public enum IngestRefusal: Refusal {
    /// One line of a file that is not a valid row, and why.
    public struct Row: Equatable, Sendable {
        public let line: Int
        public let message: String

        public init(line: Int, message: String) {
            self.line = line
            self.message = message
        }
    }

    /// The gzip data of `file` expands to more than `limit` bytes of text: refused after `text`.
    case gzipTextOverLimit(file: String, text: Int, limit: Int)
    /// The gzip data of `file` expands more than `limit` times: `text` bytes from its first `consumed`.
    case gzipRatioOverLimit(file: String, text: Int, consumed: Int, limit: Int)
    /// The header at `place` (FILE:LINE) lacks columns a `kind` CSV needs; `found` is what it has.
    /// `kind` is nil for an outcome CSV read for every metric it names (`--kind outcome`).
    case headerLacks(place: String, missing: [String], found: [String], kind: MetricKind?)
    /// `count` of the `rows` rows of `file` are invalid (the first of them `shown`), so none was ingested.
    case invalidRows(file: String, shown: [Row], count: Int, rows: Int)
    /// An outcome CSV read as `outcome-<metric>` has no row of `metric`; `others` are the metrics it
    /// names instead (each a kind of its own), if any.
    case noRowsOfMetric(file: String, metric: String, others: [String])
    /// An outcome CSV read for every metric it names has no row that names one.
    case namesNoMetric(file: String)
    /// A retract names a file that was ingested as several kinds (crash and fallback, or outcome
    /// kinds), each still counted.
    case ingestedAsSeveralKinds(source: String, kinds: [MetricKind])
    /// A retract names neither a file nor a digest (`minimumPrefix` hex digits at least).
    case notADigest(source: String, minimumPrefix: Int)
    /// No file with the digest `source` names was ingested (as `kind`, when one was given: a kind's
    /// name, or "an outcome kind" for `--kind outcome`).
    case noSuchIngest(source: String, kind: String?)
    /// The provenance record at `path` does not read as one.
    case damagedProvenance(path: String)

    public var kind: RolloutError.Kind {
        switch self {
        case .gzipTextOverLimit, .gzipRatioOverLimit, .headerLacks, .invalidRows, .noRowsOfMetric, .namesNoMetric:
            return .badInput
        case .ingestedAsSeveralKinds, .notADigest: return .usage
        case .noSuchIngest: return .missing
        case .damagedProvenance: return .internal
        }
    }
}
