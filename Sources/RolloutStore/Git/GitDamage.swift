import CGit2
import RolloutModel

/// Which libgit2 failures mean the repository itself is damaged, and what a person reads for one
/// (`RolloutError.repositoryDamaged`, exit 65). `GitError.rolloutError` asks here before it calls
/// a failure a bug, so no read of a damaged repository ever reaches exit 70.
extension GitError {
    /// The object database could not give an object the repository names: missing (`object not
    /// found`), in a pack that is cut short, changed or has no index, not inflating (zlib), or not
    /// hashing to its id (`GIT_EMISMATCH`). A failure of the disk is an I/O error instead, and a
    /// pack received from a remote (the indexer's class) is the remote's fault, not this repository's.
    public var isRepositoryDamage: Bool {
        guard !isIOFailure else { return false }
        return code == GIT_EMISMATCH.rawValue || errorClass == GIT_ERROR_ODB.rawValue
            || errorClass == GIT_ERROR_ZLIB.rawValue
    }

    /// The failure as the damage it is: what was being read, libgit2's words, and `rollout verify`.
    public var repositoryDamage: RolloutError {
        .repositoryDamaged("\(operation) failed: \(message)", repository: repository)
    }
}

extension GitRepository {
    /// `check` for a read of an object the repository's history or refs name: any failure that is
    /// not the disk's is damage (a missing or unreadable object, or one of another kind than the
    /// tree that names it says), never a bug.
    func checkRead(_ result: Int32, _ operation: @autoclosure () -> String) throws {
        do {
            try check(result, operation())
        } catch let error as GitError where !error.isIOFailure {
            throw error.repositoryDamage
        }
    }
}
