import CGit2

/// What signing a commit needs of libgit2: the commit's bytes before they are written, and a commit
/// written with a signature in its `gpgsig` header, as `git commit -S` writes one.
extension GitRepository {
    /// A boolean from the repository's config, then the global and system config, read as git reads
    /// one (true, yes, on, 1 and their opposites); nil when it is not set.
    func configBool(_ name: String) throws -> Bool? {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, handle), "reading repository config")
        defer { git_config_free(config) }
        var value: Int32 = 0
        let result = git_config_get_bool(&value, config, name)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try Git.check(result, "reading \(name)")
        return value != 0
    }

    /// Writes a commit signed by `sign` without moving any ref: its bytes are made first
    /// (`git_commit_create_buffer`), `sign` returns the signature of exactly those bytes (what
    /// `git verify-commit` checks), and the commit is written with it in the `gpgsig` header.
    /// `sign` throws before anything is written when it cannot sign.
    func createSignedCommit(
        tree: ObjectID, parents: [ObjectID], message: String, author: GitSignature,
        sign: (String) throws -> String
    ) throws -> ObjectID {
        try withCommitParts(tree: tree, parents: parents, author: author) { signature, treeHandle, parentHandles in
            var buffer = git_buf()
            defer { git_buf_dispose(&buffer) }
            try check(
                git_commit_create_buffer(
                    &buffer, handle, signature, signature, "UTF-8", message, treeHandle, parentHandles.count,
                    &parentHandles), "making the commit")
            let content = String(cString: buffer.ptr)
            var armored = try sign(content)
            // libgit2 continues every line of the header with a space, the last one too: git's own
            // header ends with the signature's last line.
            while armored.hasSuffix("\n") { armored.removeLast() }
            var out = git_oid()
            try check(
                Self.retryingLostFanOut {
                    git_commit_create_with_signature(&out, handle, content, armored, "gpgsig")
                }, "writing the signed commit")
            return ObjectID(out)
        }
    }
}
