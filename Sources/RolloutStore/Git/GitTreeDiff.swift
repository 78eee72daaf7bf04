import CGit2

/// A blob whose id differs between two trees: what the audit log reads of a commit's plans.
struct GitChangedBlob: Sendable {
    let name: String
    /// nil: not a blob in the old tree (absent, or a directory).
    let old: ObjectID?
    /// nil: not a blob in the new tree.
    let new: ObjectID?
}

extension GitRepository {
    /// Runs `body` with libgit2's check that each object read hashes to its id turned off, then turns
    /// it back on (rollout keeps it on everywhere else, see `Git.initialized`). Only for a read of
    /// the whole history that `git log` itself makes without re-hashing: the index build of the audit
    /// log (docs/audit.md, "A fresh clone", says what is and is not checked); and for the rollups
    /// `MetricsLayout.readRollup` reads, which it hashes itself with OpenSSL. The option is
    /// process-wide in libgit2; rollout reads a repository on one thread, so nothing else runs meanwhile.
    func withoutRehashingObjects<T>(_ body: () throws -> T) rethrows -> T {
        _ = rollout_git_enable_strict_hash_verification(0)
        defer { _ = rollout_git_enable_strict_hash_verification(1) }
        return try body()
    }

    /// The first-parent chain from `tip` back to `stop` (excluded), newest first, reading only ids, at
    /// most `limit` of them. `reachedStop` is false when the chain ended (or the limit cut it) without
    /// meeting `stop`, and always when `stop` is nil.
    func firstParentChain(from tip: ObjectID, until stop: ObjectID?, limit: Int = .max) throws -> (
        ids: [ObjectID], reachedStop: Bool
    ) {
        var ids: [ObjectID] = []
        var oid = tip.raw
        var stopOid = stop?.raw ?? git_oid()
        while stop == nil || git_oid_equal(&oid, &stopOid) == 0 {
            guard ids.count < limit else { return (ids, false) }
            ids.append(ObjectID(oid))
            var commit: OpaquePointer?
            try check(git_commit_lookup(&commit, handle, &oid), "reading commit \(ObjectID(oid).short)")
            defer { git_commit_free(commit) }
            guard git_commit_parentcount(commit) > 0, let parent = git_commit_parent_id(commit, 0) else {
                return (ids, false)
            }
            oid = parent.pointee
        }
        return (ids, true)
    }

    /// Calls `body` with each of `commits` in the order given and a function giving the blobs directly
    /// in `directory` (a top-level tree such as `plans`) that differ from its first parent's; no tree
    /// is read for a commit whose `body` does not call it. When the commits are a first-parent chain,
    /// oldest first or newest first, each directory version is read once: the directories of the
    /// last commit and of its parent are kept for the next one.
    func forEachChange(
        _ commits: [ObjectID], in directory: String, _ body: (GitCommit, () throws -> [GitChangedBlob]) throws -> Void
    ) throws {
        var kept: [(commit: ObjectID, tree: OpaquePointer?)] = []
        defer { for item in kept { git_tree_free(item.tree) } }
        func tree(of commit: ObjectID, root: () throws -> ObjectID) throws -> OpaquePointer? {
            if let item = kept.first(where: { $0.commit == commit }) { return item.tree }
            let tree = try directoryTree(of: root(), directory)
            kept.append((commit, tree))
            return tree
        }
        for id in commits {
            let commit = try self.commit(id)
            let parent = commit.parents.first
            try body(commit) {
                let newTree = try tree(of: id) { commit.tree }
                let parentTree =
                    try parent.map { parent in try tree(of: parent) { try self.commit(parent).tree } } ?? nil
                return GitRepository.changedBlobs(parentTree, newTree)
            }
            // The next commit of a chain is this one's parent or its child: both need only these two.
            kept.removeAll { item in
                guard item.commit != id && item.commit != parent else { return false }
                git_tree_free(item.tree)
                return true
            }
        }
    }

    /// The tree at `directory` in `root`, owned by the caller; nil when there is none.
    private func directoryTree(of root: ObjectID, _ directory: String) throws -> OpaquePointer? {
        guard let entry = try treeEntry(root, path: directory), entry.isTree else { return nil }
        var oid = entry.id.raw
        var tree: OpaquePointer?
        try check(git_tree_lookup(&tree, handle, &oid), "reading tree \(entry.id.short)")
        return tree
    }

    /// The blobs in `new` or `old` whose ids differ (nil: an empty tree). Both trees are walked once
    /// in their stored order comparing raw ids; names are made only for the entries that differ, so
    /// two 200-entry trees that differ in one file cost one string.
    private static func changedBlobs(_ oldHandle: OpaquePointer?, _ newHandle: OpaquePointer?) -> [GitChangedBlob] {
        if oldHandle == nil && newHandle == nil { return [] }
        if let oldHandle, let newHandle, git_oid_equal(git_tree_id(oldHandle), git_tree_id(newHandle)) != 0 {
            return []
        }
        let oldCount = oldHandle.map { git_tree_entrycount($0) } ?? 0
        let newCount = newHandle.map { git_tree_entrycount($0) } ?? 0
        func blobID(_ entry: OpaquePointer?) -> ObjectID? {
            guard let entry, git_tree_entry_type(entry) == GIT_OBJECT_BLOB else { return nil }
            return ObjectID(git_tree_entry_id(entry)!.pointee)
        }
        var changed: [GitChangedBlob] = []
        /// Records the entry `named` when it is a blob on either side.
        func record(_ named: OpaquePointer?, old: OpaquePointer?, new: OpaquePointer?) {
            let before = blobID(old)
            let after = blobID(new)
            guard before != nil || after != nil else { return }
            changed.append(GitChangedBlob(name: String(cString: git_tree_entry_name(named)), old: before, new: after))
        }
        var i = 0
        var j = 0
        while i < oldCount || j < newCount {
            let a = i < oldCount ? git_tree_entry_byindex(oldHandle, i) : nil
            let b = j < newCount ? git_tree_entry_byindex(newHandle, j) : nil
            let order: Int32 = a == nil ? 1 : b == nil ? -1 : git_tree_entry_cmp(a, b)
            if order == 0 {
                i += 1
                j += 1
                if git_oid_equal(git_tree_entry_id(a), git_tree_entry_id(b)) == 0 { record(b, old: a, new: b) }
            } else if order < 0 {
                i += 1
                record(a, old: a, new: nil)
            } else {
                j += 1
                record(b, old: nil, new: b)
            }
        }
        return changed
    }
}
