import CGit2

/// A libgit2 failure: the negative return code, libgit2's error class and message, and what we were doing.
public struct GitError: Error, CustomStringConvertible {
    public let code: Int32
    public let errorClass: Int32
    public let message: String
    public let operation: String

    public var description: String { "\(operation) failed: \(message) (libgit2 error \(code), class \(errorClass))" }

    public var isNotFound: Bool { code == GIT_ENOTFOUND.rawValue }
    /// The ref was locked by another writer, or moved since it was read: try again on the new tip.
    public var isLostRace: Bool {
        code == GIT_ELOCKED.rawValue || code == GIT_EMODIFIED.rawValue || code == GIT_EEXISTS.rawValue
    }
    public var isLocked: Bool { code == GIT_ELOCKED.rawValue }
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
    static func check(_ result: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
        guard result < 0 else { return result }
        var message = "unknown error"
        var errorClass: Int32 = 0
        if let last = git_error_last() {
            message = String(cString: last.pointee.message)
            errorClass = last.pointee.klass
        }
        throw GitError(code: result, errorClass: errorClass, message: message, operation: operation())
    }
}
