import CGit2
import Foundation
import RolloutModel

/// A libgit2 failure: the negative return code, libgit2's error class and message, and what we were doing.
public struct GitError: Error, CustomStringConvertible {
    public let code: Int32
    public let errorClass: Int32
    public let message: String
    public let operation: String
    /// The repository the operation was on, when it was on one.
    public var repository: String? = nil
    /// `errno` as it was when libgit2 returned: the cause when libgit2 gives none (it sometimes
    /// reports a failed write as class 0, "unknown error").
    public var systemErrno: Int32 = 0

    public var description: String { "\(operation) failed: \(message) (libgit2 error \(code), class \(errorClass))" }

    public var isNotFound: Bool { code == GIT_ENOTFOUND.rawValue }
    /// The ref was locked by another writer, or moved since it was read: try again on the new tip.
    public var isLostRace: Bool {
        code == GIT_ELOCKED.rawValue || code == GIT_EMODIFIED.rawValue || code == GIT_EEXISTS.rawValue
    }
    public var isLocked: Bool { code == GIT_ELOCKED.rawValue }

    /// The disk failed rather than rollout or the repository's contents: libgit2's class
    /// GIT_ERROR_OS, or a cause such as ENOSPC, EIO, EROFS or EDQUOT in its message or in errno.
    public var isIOFailure: Bool { ioErrno != nil || errorClass == GIT_ERROR_OS.rawValue }

    /// The errno of an I/O failure, when it can be told: libgit2 ends an OS error's message with
    /// strerror; when it says nothing (class 0), errno as the failed call left it.
    public var ioErrno: Int32? {
        if let named = RolloutError.ioErrnos.sorted().first(where: { message.hasSuffix(String(cString: strerror($0))) })
        {
            return named
        }
        let unexplained = errorClass == GIT_ERROR_OS.rawValue || errorClass == 0
        return unexplained && RolloutError.ioErrnos.contains(systemErrno) ? systemErrno : nil
    }

    /// What a person reads: a failure of the disk is an I/O error (74) naming the repository and the
    /// cause; an object the repository cannot give is damage (65, `isRepositoryDamage`); anything
    /// else libgit2 reports is a bug (70). The one mapping for every command.
    public var rolloutError: RolloutError {
        guard isIOFailure else { return isRepositoryDamage ? repositoryDamage : .internal("git: \(description)") }
        var place = "a repository"
        if var directory = repository {
            while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
            place = "the repository \(directory)"
        }
        guard let errno = ioErrno else { return .io("I/O error in \(place) while \(operation): \(message)") }
        return .io(
            "I/O error in \(place) while \(operation): \(RolloutError.cause(errno: errno))\(RolloutError.nextStep(errno: errno))"
        )
    }
}

enum Git {
    /// One-time libgit2 setup. Durability: fsync every object, ref and packfile libgit2 writes.
    /// Integrity: verify each object's hash when it is read.
    static let initialized: Void = {
        git_libgit2_init()
        _ = rollout_git_enable_fsync(1)
        _ = rollout_git_enable_strict_hash_verification(1)
    }()

    /// Converts a libgit2 return code into a thrown `GitError`, reading `git_error_last()` only right
    /// after the failure it describes.
    @discardableResult
    static func check(_ result: Int32, _ operation: @autoclosure () -> String, repository: String? = nil) throws
        -> Int32
    {
        guard result < 0 else { return result }
        let systemErrno = errno
        var message = "unknown error"
        var errorClass: Int32 = 0
        if let last = git_error_last() {
            message = String(cString: last.pointee.message)
            errorClass = last.pointee.klass
        }
        throw GitError(
            code: result, errorClass: errorClass, message: message, operation: operation(), repository: repository,
            systemErrno: systemErrno)
    }
}

/// What a person does about a server rollout cannot trust: the advice that fits what git and ssh
/// said, for `remoteFailure` (Remote.swift). An unknown host key and a changed one are different
/// events (the second may be a man in the middle), as are a certificate from an unknown CA, one
/// for another name, and an expired one.
extension GitTransport.Failure {
    /// ssh's words for a host key that differs from the one known_hosts holds.
    static let changedHostKeyWords = [
        "REMOTE HOST IDENTIFICATION HAS CHANGED", "POSSIBLE DNS SPOOFING DETECTED", "Offending ",
        "has changed and you have requested strict checking",
    ]

    /// The host key ssh refused is not the one it knew for that server.
    var hostKeyChanged: Bool {
        lines.contains { line in Self.changedHostKeyWords.contains { line.localizedCaseInsensitiveContains($0) } }
    }

    /// The sentence and next step for a host key ssh refused.
    var hostKeyAdvice: String {
        guard hostKeyChanged else {
            return
                "ssh does not know the server's host key.\(said)Nothing was changed. Check the key, add it to known_hosts (ssh-keyscan), or let ssh accept a new server's key on first use with GIT_SSH_COMMAND='ssh -o StrictHostKeyChecking=accept-new' (docs/teams.md, \"A deploy key over ssh\")"
        }
        return
            "the server's ssh host key CHANGED since known_hosts recorded it: someone may be intercepting the connection (a man in the middle), or the server was reinstalled.\(said)Nothing was changed. Do not accept the new key, and do not scan it again, until whoever runs the server confirms its fingerprint; then replace the old one (ssh-keygen -R HOST) with the confirmed key (docs/teams.md, \"A deploy key over ssh\")"
    }

    /// The sentence and next step for a TLS certificate git refused.
    var certificateAdvice: String {
        let text = lines.joined(separator: "\n")
        func has(_ words: String...) -> Bool { words.contains { text.localizedCaseInsensitiveContains($0) } }
        if has("does not match target host name", "no alternative certificate subject name", "doesn't match") {
            return
                "the server's TLS certificate is for another name than the URL's host.\(said)Nothing was changed. Use the host name the certificate was issued for in the URL, or have the server's certificate name this host (subjectAltName); trusting another CA does not change this, and turning verification off would let anyone answer for the server (docs/teams.md, \"An internal CA\")"
        }
        if has("expired", "not yet valid", "not activated") {
            return
                "the server's TLS certificate has expired or is not valid yet.\(said)Nothing was changed. Check this machine's clock, and have whoever runs the server renew the certificate (docs/teams.md, \"An internal CA\")"
        }
        return
            "the server's TLS certificate did not verify.\(said)Nothing was changed. For a server with an internal CA, give git the CA's certificate: git config --global http.sslCAInfo /path/to/ca.pem, or GIT_SSL_CAINFO (docs/teams.md, \"An internal CA\")"
    }

    /// What git said, quoted as every remote failure quotes it.
    private var said: String {
        lines.isEmpty ? " git said nothing." : " git said:\n" + lines.map { "  \($0)" }.joined(separator: "\n") + "\n"
    }
}
