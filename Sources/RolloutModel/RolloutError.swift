import Foundation

/// Every failure a user can see. Each case carries the sentence a person reads, and maps to one
/// documented exit code (docs/architecture.md, "Exit codes"); the mapping lives here and nowhere else.
public enum RolloutError: Error, Equatable, Sendable {
    /// A check said no: unhealthy, lint failed, verify found damage.
    case checkFailed(String)
    /// Unknown flag, bad argument, bad percent or version.
    case usage(String)
    /// Bad input data: pack, CSV, manifest, key.
    case badInput(String)
    /// Missing: file, repository, pack, locale.
    case missing(String)
    /// A conflict that survived the retries, or a remote that could not be reached for a while:
    /// trying again may work (docs/teams.md, "When the remote fails").
    case conflict(String)
    /// The remote could not be reached (connection refused or reset, DNS, a timeout, a 5xx) through
    /// the retries: trying again later may work, as for a conflict (exit 75), named apart in `--json`.
    case unreachable(String)
    /// This repository and its remote disagree in a way only a person can settle: offline changes
    /// that clash with the remote's, changes the remote lacks, another history. Retrying as is
    /// gives the same answer (docs/teams.md, "Working offline, and sync").
    case diverged(String)
    /// The remote refused who you are or what you did: no or wrong credentials, no access, a server
    /// hook refusing the push. Trying again as is cannot work.
    case permission(String)
    /// The remote cannot be used as configured: a host key or certificate that does not verify, a
    /// URL git cannot speak, git itself missing. Trying again as is cannot work.
    case unavailable(String)
    /// The operating system could not read or write a file: a full disk, an I/O error, a read-only
    /// file system. Not a bug; the message names the path and the cause.
    case io(String)
    /// A bug.
    case `internal`(String)

    /// What kind of failure this is: its `--json` code and its exit code.
    public var kind: Kind {
        switch self {
        case .checkFailed: return .checkFailed
        case .usage: return .usage
        case .badInput: return .badInput
        case .missing: return .missing
        case .conflict: return .conflict
        case .unreachable: return .unreachable
        case .diverged: return .diverged
        case .permission: return .permission
        case .unavailable: return .unavailable
        case .io: return .io
        case .internal: return .internal
        }
    }

    public var exitCode: Int32 { kind.exitCode.rawValue }

    /// The stable name used in `--json` error documents.
    public var code: String { kind.rawValue }

    /// The kinds of failure, by their stable `--json` name, each with its one exit code.
    public enum Kind: String, CaseIterable, Sendable {
        case checkFailed = "check-failed"
        case usage
        case badInput = "bad-input"
        case missing, conflict, unreachable, diverged, permission, unavailable
        case io = "io-error"
        case `internal`

        public var exitCode: ExitCode {
            switch self {
            case .checkFailed: return .checkFailed
            case .usage: return .usage
            case .badInput: return .badInput
            case .missing: return .missing
            case .conflict, .unreachable: return .tryAgain
            case .diverged: return .diverged
            case .permission: return .permission
            case .unavailable: return .unavailable
            case .io: return .io
            case .internal: return .internal
            }
        }
    }

    public var message: String {
        switch self {
        case .checkFailed(let m), .usage(let m), .badInput(let m), .missing(let m), .conflict(let m),
            .unreachable(let m), .diverged(let m),
            .permission(let m),
            .unavailable(let m), .io(let m), .internal(let m):
            return m
        }
    }

    /// An error of `kind` reading `message`: how the command line words a `Refusal`.
    public init(_ kind: Kind, _ message: String) {
        switch kind {
        case .checkFailed: self = .checkFailed(message)
        case .usage: self = .usage(message)
        case .badInput: self = .badInput(message)
        case .missing: self = .missing(message)
        case .conflict: self = .conflict(message)
        case .unreachable: self = .unreachable(message)
        case .diverged: self = .diverged(message)
        case .permission: self = .permission(message)
        case .unavailable: self = .unavailable(message)
        case .io: self = .io(message)
        case .internal: self = .internal(message)
        }
    }

    /// The same kind of error (and so the same exit code) with its message rewritten: a command
    /// that adds what it had already done when a later step failed.
    public func withMessage(_ rewrite: (String) -> String) -> RolloutError {
        switch self {
        case .checkFailed(let m): return .checkFailed(rewrite(m))
        case .usage(let m): return .usage(rewrite(m))
        case .badInput(let m): return .badInput(rewrite(m))
        case .missing(let m): return .missing(rewrite(m))
        case .conflict(let m): return .conflict(rewrite(m))
        case .unreachable(let m): return .unreachable(rewrite(m))
        case .diverged(let m): return .diverged(rewrite(m))
        case .permission(let m): return .permission(rewrite(m))
        case .unavailable(let m): return .unavailable(rewrite(m))
        case .io(let m): return .io(rewrite(m))
        case .internal(let m): return .internal(rewrite(m))
        }
    }
}

/// The exit codes of rollout: the one table `rollout help`, each command's help and
/// docs/architecture.md ("Exit codes") are written from. A code no case names cannot be returned,
/// and a case cannot lack its name or meaning.
public enum ExitCode: Int32, CaseIterable, Comparable, Sendable {
    case done = 0
    case checkFailed = 1
    case usage = 64
    case badInput = 65
    case missing = 66
    case unavailable = 69
    case `internal` = 70
    case io = 74
    case tryAgain = 75
    case diverged = 76
    case permission = 77

    /// What a person reads in help, one line, after the code and its name.
    public var meaning: String {
        switch self {
        case .done: return "done"
        case .checkFailed: return "a check said no"
        case .usage: return "unknown command or option, bad argument"
        case .badInput:
            return "bad input data (a pack, CSV, policy, key; an input past its limit) or a damaged repository"
        case .missing: return "a file, the repository, a pack or a locale is missing"
        case .unavailable:
            return
                "the remote or the commit signer cannot be used as configured (host key, certificate, URL, git missing; signing key, agent, program)"
        case .internal: return "a bug; please report it"
        case .io: return "I/O error: the disk is full, failing or read-only"
        case .tryAgain: return "a conflict, or the remote could not be reached: try again"
        case .diverged: return "this repository and its remote diverged: a person decides (rollout sync)"
        case .permission: return "the remote refused the credentials or the change (access, a server hook)"
        }
    }

    /// The `--json` error codes that exit with this code ("conflict, unreachable"), or "ok" for 0.
    public var name: String {
        let kinds = RolloutError.Kind.allCases.filter { $0.exitCode == self }.map(\.rawValue)
        return kinds.isEmpty ? "ok" : kinds.joined(separator: ", ")
    }

    public static func < (a: ExitCode, b: ExitCode) -> Bool { a.rawValue < b.rawValue }
}

extension RolloutError: CustomStringConvertible {
    public var description: String { message }
}

// MARK: file failures

/// The one mapping from an operating-system failure to what a person reads. Every read or write of a
/// file (the operator's files, the site, the repository through libgit2) that fails in the kernel
/// goes through here, so the same errno always gives the same code, cause and next step.
extension RolloutError {
    /// A failed file operation: `operation` is the verb ("read", "write", "create"), `path` the name
    /// the person gave. No such file, or an input that may not be read, is `missing` (66, as
    /// sysexits' EX_NOINPUT); every other cause is `io` (74, EX_IOERR).
    public static func fileFailure(_ operation: String, _ path: String, errno code: Int32) -> RolloutError {
        switch code {
        case ENOENT, ENOTDIR: return .missing("cannot \(operation) \(path): \(cause(errno: code))")
        case EACCES where operation == "read", EPERM where operation == "read":
            return .missing("cannot \(operation) \(path): \(cause(errno: code))\(nextStep(errno: code))")
        default: return .io("cannot \(operation) \(path): \(cause(errno: code))\(nextStep(errno: code))")
        }
    }

    /// The same for an error thrown by Foundation: its POSIX cause, never a Foundation error domain
    /// or number (an `NSCocoaErrorDomain error 512` tells a person nothing).
    public static func fileFailure(_ operation: String, _ path: String, error: Error) -> RolloutError {
        if let error = error as? RolloutError { return error }
        guard let code = posixCode(of: error) else {
            return .io(
                "cannot \(operation) \(path): the operating system reported a failure but not its cause; "
                    + "check that the path is writable and the disk has space")
        }
        return fileFailure(operation, path, errno: code)
    }

    /// What a person reads for an errno, with its symbolic name to search for:
    /// "No space left on device (ENOSPC)".
    public static func cause(errno code: Int32) -> String {
        let text = String(cString: strerror(code))
        return errnoNames[code].map { "\(text) (\($0))" } ?? text
    }

    /// The errno of a failure Foundation reports: POSIX errors themselves, the POSIX error underneath
    /// a Cocoa file error, or the Cocoa file error codes that stand for one.
    public static func posixCode(of error: Error) -> Int32? {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        guard error.domain == NSCocoaErrorDomain else { return nil }
        switch CocoaError.Code(rawValue: error.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return ENOENT
        case .fileWriteOutOfSpace: return ENOSPC
        case .fileWriteVolumeReadOnly: return EROFS
        case .fileReadNoPermission, .fileWriteNoPermission: return EACCES
        case .fileWriteFileExists: return EEXIST
        case .fileReadTooLarge: return EFBIG
        case .fileWriteInvalidFileName, .fileReadInvalidFileName: return ENAMETOOLONG
        default: return nil
        }
    }

    /// The causes that mean the disk, not rollout, failed: what libgit2 failures are checked against.
    public static let ioErrnos: Set<Int32> = [ENOSPC, EDQUOT, EFBIG, EIO, EROFS, EACCES, EPERM, ENXIO, EMFILE, ENFILE]

    public static func nextStep(errno code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: return "; free space on that disk and run the command again"
        case EFBIG:
            return "; the file would pass a size limit (ulimit -f or the file system's); "
                + "raise it and run the command again"
        case EROFS: return "; the file system is mounted read-only; remount it read-write or use another path"
        case EACCES, EPERM: return "; check the permissions of the file and its directory"
        case EIO: return "; the disk reported an error: check it (dmesg) before trying again"
        case EMFILE, ENFILE: return "; too many open files: raise the limit (ulimit -n) and run the command again"
        default: return ""
        }
    }

    static let errnoNames: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EIO: "EIO", ENXIO: "ENXIO", EBADF: "EBADF", EAGAIN: "EAGAIN",
        ENOMEM: "ENOMEM",
        EACCES: "EACCES", EBUSY: "EBUSY", EEXIST: "EEXIST", EXDEV: "EXDEV", ENODEV: "ENODEV", ENOTDIR: "ENOTDIR",
        EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE", EMFILE: "EMFILE", ETXTBSY: "ETXTBSY", EFBIG: "EFBIG",
        ENOSPC: "ENOSPC", ESPIPE: "ESPIPE", EROFS: "EROFS", EMLINK: "EMLINK", EPIPE: "EPIPE",
        ENAMETOOLONG: "ENAMETOOLONG",
        ELOOP: "ELOOP", EDQUOT: "EDQUOT", ESTALE: "ESTALE", ENOTSUP: "ENOTSUP",
    ]

    /// Nil for a regular file (`mode` from stat); otherwise why it is refused as the `what` named
    /// on the command line. A named pipe, device or socket would block or never end if read, so it is
    /// refused before it is read: `export.csv is a named pipe, not a regular file` (66).
    public static func notARegularFile(_ path: String, mode: mode_t, describedAs what: String) -> RolloutError? {
        let kind: String
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return .usage("\(path) is a directory, not a \(what)")
        case S_IFIFO: kind = "a named pipe"
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a file"
        }
        return .missing("\(path) is \(kind), not a regular file; give the \(what) itself")
    }
}
