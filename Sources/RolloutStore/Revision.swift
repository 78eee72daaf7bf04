import RolloutModel

extension PackRepository {
    /// The state at `revision` (`rollout diff`): a time in one of `ROLLOUT_NOW`'s forms
    /// (`2026-11-30`, `2026-11-30T09:00:00Z`, `2026-11-30T12:00:00+03:00`), read as the last state
    /// at or before it on the state branch (a date alone is its midnight, UTC); otherwise what git
    /// reads as a revision: a commit id or a unique start of one, `HEAD~3` (HEAD is the state
    /// branch), `main@{2}`, a tag. Refuses (`StoreRefusal.unknownRevision`) a revision that names
    /// no commit, and a time before the first change.
    public func snapshot(at revision: String) throws -> Snapshot {
        if let time = Timestamp(iso8601: revision) {
            var commit: ObjectID? = try stateTip()
            while let id = commit {
                let read = try git.commit(id)
                if read.author.time <= time.seconds { return try Snapshot(repository: git, commit: id) }
                commit = read.parents.first
            }
            throw StoreRefusal.beforeHistory(revision)
        }
        guard !revision.hasPrefix("-"), let commit = try git.revparse(revision) else {
            throw StoreRefusal.unknownRevision(revision)
        }
        return try Snapshot(repository: git, commit: commit)
    }
}
