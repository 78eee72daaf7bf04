/// Every failure a user can see. Each case carries the sentence a person reads, and maps to one
/// documented exit code (see DESIGN.md, "Exit codes"); the mapping lives here and nowhere else.
public enum RolloutError: Error, Equatable, Sendable {
    /// A check said no: unhealthy, lint failed, verify found damage.
    case checkFailed(String)
    /// Unknown flag, bad argument, bad percent or version.
    case usage(String)
    /// Bad input data: pack, CSV, manifest, key.
    case badInput(String)
    /// Missing: file, repository, pack, locale.
    case missing(String)
    /// A conflict that survived the retries, or a remote that refused.
    case conflict(String)
    /// A bug.
    case `internal`(String)

    public var exitCode: Int32 {
        switch self {
        case .checkFailed: return 1
        case .usage: return 64
        case .badInput: return 65
        case .missing: return 66
        case .conflict: return 75
        case .internal: return 70
        }
    }

    /// The stable name used in `--json` error documents.
    public var code: String {
        switch self {
        case .checkFailed: return "check-failed"
        case .usage: return "usage"
        case .badInput: return "bad-input"
        case .missing: return "missing"
        case .conflict: return "conflict"
        case .internal: return "internal"
        }
    }

    public var message: String {
        switch self {
        case .checkFailed(let m), .usage(let m), .badInput(let m), .missing(let m), .conflict(let m), .internal(let m):
            return m
        }
    }
}

extension RolloutError: CustomStringConvertible {
    public var description: String { message }
}
