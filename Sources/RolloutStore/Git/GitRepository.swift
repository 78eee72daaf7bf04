import CGit2

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A git object id (SHA-1), as a value.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    init(_ oid: git_oid) {
        var copy = oid
        bytes = withUnsafeBytes(of: &copy.id) { Array($0) }
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public init?(hex: String) {
        var oid = git_oid()
        guard hex.utf8.count == 40, git_oid_fromstr(&oid, hex) == 0 else { return nil }
        self.init(oid)
    }

    var raw: git_oid {
        var oid = git_oid()
        withUnsafeMutableBytes(of: &oid.id) { $0.copyBytes(from: bytes) }
        return oid
    }

    public var hex: String {
        // Built byte by byte: the audit log makes one for every commit and blob it indexes.
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[2 * index] = digits[Int(byte >> 4)]
                buffer[2 * index + 1] = digits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }
    public var description: String { hex }
    public var short: String { String(hex.prefix(12)) }
}

public struct GitSignature: Sendable {
    public let name: String
    public let email: String
    /// Seconds since the epoch, UTC.
    public let time: Int64
}

public struct GitCommit: Sendable {
    public let id: ObjectID
    public let tree: ObjectID
    public let parents: [ObjectID]
    public let message: String
    public let author: GitSignature
}

public struct GitTreeEntry: Sendable {
    public let name: String
    public let id: ObjectID
    public let isTree: Bool
}

/// The one owner of libgit2 handles. Every handle is freed before the call that made it returns;
/// only the repository handle lives as long as this object.
final class GitRepository {
    let handle: OpaquePointer
    let path: String

    private init(handle: OpaquePointer) {
        self.handle = handle
        self.path = String(cString: git_repository_path(handle))
    }

    deinit { git_repository_free(handle) }

    /// `Git.check` naming this repository, so a failure of its disk says where it happened.
    @discardableResult
    func check(_ result: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
        try Git.check(result, operation(), repository: path)
    }

    static func openBare(_ path: String) throws -> GitRepository {
        Git.initialized
        var repo: OpaquePointer?
        try Git.check(git_repository_open_bare(&repo, path), "opening git repository \(path)", repository: path)
        return GitRepository(handle: repo!)
    }

    /// Reads objects from `directory` too, after the repository's own: where git's receive-pack
    /// keeps a push's objects (its quarantine) until the pre-receive hook has accepted them.
    func addObjectDirectory(_ directory: String) throws {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, handle), "opening the object database")
        defer { git_odb_free(odb) }
        try check(git_odb_add_disk_alternate(odb, directory), "reading objects from \(directory)")
    }

    /// Has libgit2 look again for packs: one this process indexed is read from at once.
    func refreshObjects() throws {
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, handle), "opening the object database")
        defer { git_odb_free(odb) }
        try check(git_odb_refresh(odb), "reading the new pack's index")
    }

    /// Creates a bare repository whose HEAD names `refs/heads/<initialBranch>`. Refuses an existing one.
    static func createBare(_ path: String, initialBranch: String) throws -> GitRepository {
        Git.initialized
        var options = rollout_git_repository_init_options()
        options.flags =
            GIT_REPOSITORY_INIT_BARE.rawValue | GIT_REPOSITORY_INIT_MKPATH.rawValue
            | GIT_REPOSITORY_INIT_NO_REINIT.rawValue
        var repo: OpaquePointer?
        try initialBranch.withCString { branch in
            options.initial_head = branch
            try Git.check(
                git_repository_init_ext(&repo, path, &options), "creating bare repository \(path)", repository: path)
        }
        return GitRepository(handle: repo!)
    }

    // MARK: configuration

    func setConfig(_ name: String, _ value: String) throws {
        var config: OpaquePointer?
        try check(git_repository_config(&config, handle), "opening repository config")
        defer { git_config_free(config) }
        try check(git_config_set_string(config, name, value), "setting \(name)")
    }

    /// A value from the repository's config, falling back to the user's global and system config as git does.
    func config(_ name: String) throws -> String? {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, handle), "reading repository config")
        defer { git_config_free(config) }
        return try GitRepository.string(name, in: config)
    }

    /// `name` from an open config, nil when it is not set.
    private static func string(_ name: String, in config: OpaquePointer?) throws -> String? {
        var buffer = git_buf()
        defer { git_buf_dispose(&buffer) }
        let result = git_config_get_string_buf(&buffer, config, name)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try Git.check(result, "reading \(name)")
        return String(cString: buffer.ptr)
    }

    /// A value from this repository's own config file only, ignoring the user's global config.
    func localConfig(_ name: String) throws -> String? {
        var config: OpaquePointer?
        try check(git_repository_config_snapshot(&config, handle), "reading repository config")
        defer { git_config_free(config) }
        var local: OpaquePointer?
        let opened = git_config_open_level(&local, config, GIT_CONFIG_LEVEL_LOCAL)
        if opened == GIT_ENOTFOUND.rawValue { return nil }
        try check(opened, "reading the repository's own config")
        defer { git_config_free(local) }
        return try GitRepository.string(name, in: local)
    }

    /// The identity libgit2 writes into the reflog for ref updates made through this handle.
    func setReflogIdentity(_ signature: GitSignature) throws {
        try check(
            git_repository_set_ident(handle, signature.name, signature.email.isEmpty ? "-" : signature.email),
            "setting the reflog identity")
    }

    /// A value from the user's global and system git config, for when there is no repository yet.
    static func defaultConfig(_ name: String) -> String? {
        Git.initialized
        var config: OpaquePointer?
        guard git_config_open_default(&config) == 0 else { return nil }
        defer { git_config_free(config) }
        return try? string(name, in: config)
    }

    // MARK: references

    func referenceTarget(_ name: String) throws -> ObjectID? {
        var oid = git_oid()
        let result = git_reference_name_to_id(&oid, handle, name)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result, "reading \(name)")
        return ObjectID(oid)
    }

    /// The commit `spec` names as git reads a revision (`HEAD~3`, a tag, a unique start of an id),
    /// peeled to a commit; nil when it names nothing, several objects, or no commit.
    func revparse(_ spec: String) throws -> ObjectID? {
        var object: OpaquePointer?
        let result = git_revparse_single(&object, handle, spec)
        let unknown = [GIT_ENOTFOUND, GIT_EAMBIGUOUS, GIT_EINVALIDSPEC].map(\.rawValue)
        if unknown.contains(result) { return nil }
        try check(result, "reading revision \(spec)")
        defer { git_object_free(object) }
        var commit: OpaquePointer?
        let peeled = git_object_peel(&commit, object, GIT_OBJECT_COMMIT)
        if peeled == GIT_EINVALIDSPEC.rawValue || peeled == GIT_ENOTFOUND.rawValue || peeled == GIT_EPEEL.rawValue {
            return nil
        }
        try check(peeled, "reading revision \(spec)")
        defer { git_object_free(commit) }
        return ObjectID(git_object_id(commit)!.pointee)
    }

    /// Moves `name` to `target` only if it still points at `expected` (nil: only if it does not exist).
    /// Returns false when another writer got there first or holds the lock.
    func compareAndSwap(_ name: String, to target: ObjectID, expected: ObjectID?, message: String) throws
        -> Bool
    {
        var new = target.raw
        var reference: OpaquePointer?
        let result: Int32
        if var old = expected?.raw {
            result = git_reference_create_matching(&reference, handle, name, &new, 1, &old, message)
        } else {
            result = git_reference_create(&reference, handle, name, &new, 0, message)
        }
        defer { git_reference_free(reference) }
        do {
            try check(result, "updating \(name)")
        } catch let error as GitError where error.isLostRace {
            if error.isLocked { throw error }
            return false
        }
        return true
    }

    /// The reflog of `name`, oldest first: each entry's previous and new target and message.
    func reflog(_ name: String) throws -> [(previous: ObjectID?, target: ObjectID, message: String)] {
        var log: OpaquePointer?
        try check(git_reflog_read(&log, handle, name), "reading the reflog of \(name)")
        defer { git_reflog_free(log) }
        let count = git_reflog_entrycount(log)
        // Index 0 is the newest entry.
        return (0..<count).reversed().compactMap { index in
            guard let entry = git_reflog_entry_byindex(log, index), let target = git_reflog_entry_id_new(entry) else {
                return nil
            }
            let previous = git_reflog_entry_id_old(entry).map { ObjectID($0.pointee) }
            return (
                previous?.hex.allSatisfy { $0 == "0" } == true ? nil : previous, ObjectID(target.pointee),
                git_reflog_entry_message(entry).map { String(cString: $0) } ?? ""
            )
        }
    }

    // MARK: remotes

    /// Adds a remote named `name` fetching every branch into refs/remotes/<name>/.
    func addRemote(_ name: String, url: String) throws {
        var remote: OpaquePointer?
        try check(git_remote_create(&remote, handle, name, url), "adding remote \(name)")
        git_remote_free(remote)
    }

    /// The URL of remote `name` as its configuration writes it, or nil if there is no such remote. With
    /// `rewritten`, after git's `url.<base>.insteadOf` rules, as the transport will use it; messages and
    /// `remote list` show the URL as configured, the one a person wrote.
    func remoteURL(_ name: String, rewritten: Bool = false) throws -> String? {
        var remote: OpaquePointer?
        let result = git_remote_lookup(&remote, handle, name)
        if result == GIT_ENOTFOUND.rawValue || result == GIT_EINVALIDSPEC.rawValue { return nil }
        try check(result, "reading remote \(name)")
        defer { git_remote_free(remote) }
        if !rewritten, let configured = try config("remote.\(name).url") { return configured }
        return git_remote_url(remote).map { String(cString: $0) }
    }

    func remoteNames() throws -> [String] {
        var names = git_strarray()
        try check(git_remote_list(&names, handle), "listing remotes")
        defer { git_strarray_dispose(&names) }
        return (0..<names.count).compactMap { names.strings[$0].map { String(cString: $0) } }
    }

    /// Points `name` at `target` unconditionally (for refs only rollout writes).
    func setReference(_ name: String, to target: ObjectID, message: String) throws {
        var new = target.raw
        var reference: OpaquePointer?
        try check(git_reference_create(&reference, handle, name, &new, 1, message), "updating \(name)")
        git_reference_free(reference)
    }

    func deleteReference(_ name: String) throws {
        var reference: OpaquePointer?
        let result = git_reference_lookup(&reference, handle, name)
        if result == GIT_ENOTFOUND.rawValue { return }
        try check(result, "reading \(name)")
        defer { git_reference_free(reference) }
        try check(git_reference_delete(reference), "deleting \(name)")
    }

    /// The names of the references that start with `prefix`, and their targets.
    func references(prefix: String) throws -> [(name: String, target: ObjectID)] {
        var names = git_strarray()
        try check(git_reference_list(&names, handle), "listing references")
        defer { git_strarray_dispose(&names) }
        return try (0..<names.count).compactMap { names.strings[$0].map { String(cString: $0) } }
            .filter { $0.hasPrefix(prefix) }.sorted()
            .compactMap { name in try referenceTarget(name).map { (name, $0) } }
    }

    /// True when `commit` has `ancestor` in its history (a commit is not its own descendant).
    func isDescendant(_ commit: ObjectID, of ancestor: ObjectID) throws -> Bool {
        var c = commit.raw
        var a = ancestor.raw
        let result = git_graph_descendant_of(handle, &c, &a)
        try check(result < 0 ? result : 0, "comparing \(commit.short) with \(ancestor.short)")
        return result == 1
    }

    func mergeBase(_ a: ObjectID, _ b: ObjectID) throws -> ObjectID? {
        var out = git_oid()
        var one = a.raw
        var two = b.raw
        let result = git_merge_base(&out, handle, &one, &two)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result, "finding the common ancestor of \(a.short) and \(b.short)")
        return ObjectID(out)
    }

    // MARK: objects

    func writeBlob(_ bytes: [UInt8]) throws -> ObjectID {
        var oid = git_oid()
        let result = Self.retryingLostFanOut {
            bytes.withUnsafeBytes { git_blob_create_from_buffer(&oid, handle, $0.baseAddress, $0.count) }
        }
        try check(result, "writing a blob")
        return ObjectID(oid)
    }

    func readBlob(_ id: ObjectID) throws -> [UInt8] {
        var oid = id.raw
        var blob: OpaquePointer?
        try checkRead(git_blob_lookup(&blob, handle, &oid), "reading blob \(id.short)")
        defer { git_blob_free(blob) }
        let size = Int(git_blob_rawsize(blob))
        guard size > 0, let content = git_blob_rawcontent(blob) else { return [] }
        return Array(UnsafeRawBufferPointer(start: content, count: size))
    }

    func commit(_ id: ObjectID) throws -> GitCommit {
        var oid = id.raw
        var commit: OpaquePointer?
        try checkRead(git_commit_lookup(&commit, handle, &oid), "reading commit \(id.short)")
        defer { git_commit_free(commit) }
        let parents = (0..<git_commit_parentcount(commit)).compactMap { index in
            git_commit_parent_id(commit, index).map { ObjectID($0.pointee) }
        }
        let author = git_commit_author(commit)!.pointee
        return GitCommit(
            id: id,
            tree: ObjectID(git_commit_tree_id(commit)!.pointee),
            parents: parents,
            message: String(cString: git_commit_message(commit)),
            author: GitSignature(
                name: String(cString: author.name), email: String(cString: author.email), time: author.when.time))
    }

    /// The commit's `gpgsig` signature and the bytes it signs (the commit object without that header),
    /// as `git verify-commit` reads them; nil for an unsigned commit.
    func signature(of id: ObjectID) throws -> (signature: [UInt8], signed: [UInt8])? {
        var oid = id.raw
        var signature = git_buf()
        var signed = git_buf()
        defer {
            git_buf_dispose(&signature)
            git_buf_dispose(&signed)
        }
        let result = git_commit_extract_signature(&signature, &signed, handle, &oid, "gpgsig")
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try checkRead(result, "reading the signature of commit \(id.short)")
        func bytes(_ buffer: git_buf) -> [UInt8] {
            guard let pointer = buffer.ptr, buffer.size > 0 else { return [] }
            return Array(UnsafeRawBufferPointer(start: pointer, count: buffer.size))
        }
        return (bytes(signature), bytes(signed))
    }

    /// The entry at `path` (slash-separated) below `tree`, or nil.
    func treeEntry(_ tree: ObjectID, path: String) throws -> GitTreeEntry? {
        var treeOid = tree.raw
        var treeHandle: OpaquePointer?
        try checkRead(git_tree_lookup(&treeHandle, handle, &treeOid), "reading tree \(tree.short)")
        defer { git_tree_free(treeHandle) }
        var entry: OpaquePointer?
        let result = git_tree_entry_bypath(&entry, treeHandle, path)
        // Not found is a path the tree does not hold; a subtree on the way that cannot be read is damage.
        if result == GIT_ENOTFOUND.rawValue,
            git_error_last().map({ $0.pointee.klass != GIT_ERROR_ODB.rawValue }) ?? true
        {
            return nil
        }
        try checkRead(result, "looking up \(path) in tree \(tree.short)")
        defer { git_tree_entry_free(entry) }
        return GitTreeEntry(
            name: String(cString: git_tree_entry_name(entry)), id: ObjectID(git_tree_entry_id(entry)!.pointee),
            isTree: git_tree_entry_type(entry) == GIT_OBJECT_TREE)
    }

    /// The entries of the tree `tree` itself.
    func treeEntries(_ tree: ObjectID) throws -> [GitTreeEntry] {
        var treeOid = tree.raw
        var treeHandle: OpaquePointer?
        try checkRead(git_tree_lookup(&treeHandle, handle, &treeOid), "reading tree \(tree.short)")
        defer { git_tree_free(treeHandle) }
        return (0..<git_tree_entrycount(treeHandle)).map { index in
            let entry = git_tree_entry_byindex(treeHandle, index)
            return GitTreeEntry(
                name: String(cString: git_tree_entry_name(entry)), id: ObjectID(git_tree_entry_id(entry)!.pointee),
                isTree: git_tree_entry_type(entry) == GIT_OBJECT_TREE)
        }
    }

    /// A new tree: `base` (or the empty tree) with blobs written at `upserts` and `removals` deleted.
    /// Only the trees on the changed paths are rewritten; everything else is shared.
    func updatedTree(base: ObjectID?, upserts: [(path: String, blob: ObjectID)], removals: [String]) throws
        -> ObjectID
    {
        var baseHandle: OpaquePointer?
        if var baseOid = base?.raw {
            try checkRead(git_tree_lookup(&baseHandle, handle, &baseOid), "reading tree \(base?.short ?? "")")
        }
        defer { git_tree_free(baseHandle) }
        let paths = upserts.map(\.path) + removals
        let cPaths = paths.map { strdup($0)! }
        defer { cPaths.forEach { free($0) } }
        var updates: [git_tree_update] = []
        for (index, upsert) in upserts.enumerated() {
            var update = git_tree_update()
            update.action = GIT_TREE_UPDATE_UPSERT
            update.id = upsert.blob.raw
            update.filemode = GIT_FILEMODE_BLOB
            update.path = UnsafePointer(cPaths[index])
            updates.append(update)
        }
        for index in removals.indices {
            var update = git_tree_update()
            update.action = GIT_TREE_UPDATE_REMOVE
            update.path = UnsafePointer(cPaths[upserts.count + index])
            updates.append(update)
        }
        var out = git_oid()
        try check(
            Self.retryingLostFanOut { git_tree_create_updated(&out, handle, baseHandle, updates.count, updates) },
            "writing the new tree")
        return ObjectID(out)
    }

    /// Writes a commit object without moving any ref (the caller publishes it by compare-and-swap).
    func createCommit(tree: ObjectID, parents: [ObjectID], message: String, author: GitSignature) throws
        -> ObjectID
    {
        try withCommitParts(tree: tree, parents: parents, author: author) { signature, treeHandle, parentHandles in
            var out = git_oid()
            try check(
                Self.retryingLostFanOut {
                    git_commit_create(
                        &out, handle, nil, signature, signature, "UTF-8", message, treeHandle, parentHandles.count,
                        &parentHandles)
                }, "writing the commit")
            return ObjectID(out)
        }
    }

    /// Runs `body` with the libgit2 handles a commit is made of: the author (also the committer),
    /// the tree and the parents, each freed when it returns.
    func withCommitParts(
        tree: ObjectID, parents: [ObjectID], author: GitSignature,
        _ body: (UnsafeMutablePointer<git_signature>?, OpaquePointer?, inout [OpaquePointer?]) throws -> ObjectID
    ) throws -> ObjectID {
        var signature: UnsafeMutablePointer<git_signature>?
        // libgit2 refuses an empty email; an actor given as a bare name is recorded with "-".
        let email = author.email.isEmpty ? "-" : author.email
        try check(git_signature_new(&signature, author.name, email, author.time, 0), "making the commit signature")
        defer { git_signature_free(signature) }
        var treeOid = tree.raw
        var treeHandle: OpaquePointer?
        try checkRead(git_tree_lookup(&treeHandle, handle, &treeOid), "reading tree \(tree.short)")
        defer { git_tree_free(treeHandle) }
        var parentHandles: [OpaquePointer?] = []
        defer { parentHandles.forEach { git_commit_free($0) } }
        for parent in parents {
            var oid = parent.raw
            var commit: OpaquePointer?
            try checkRead(git_commit_lookup(&commit, handle, &oid), "reading parent commit \(parent.short)")
            parentHandles.append(commit)
        }
        return try body(signature, treeHandle, &parentHandles)
    }

    /// libgit2 makes a loose object's fan-out directory, then renames the object into it; a pack
    /// removing the emptied directories in between (Packing) makes the rename fail, and the same
    /// write a moment later makes the directory again. One retry of a failed write covers that.
    static func retryingLostFanOut(_ write: () -> Int32) -> Int32 {
        let first = write()
        return first < 0 ? write() : first
    }
}

extension GitRepository {
    /// The libgit2 this binary runs with, as `major.minor.revision`.
    static var libraryVersion: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        git_libgit2_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
