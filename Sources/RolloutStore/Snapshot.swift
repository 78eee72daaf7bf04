import RolloutModel

/// A read-only view of the state at one commit. Every read in an operation goes through one
/// snapshot, so an operation never sees half of one change and half of another.
public final class Snapshot: PackCatalog {
    let repository: GitRepository
    /// nil only for a repository whose state ref does not exist yet.
    public let commit: ObjectID?
    public let tree: ObjectID?
    private var packCache: [PackID: Pack] = [:]
    /// Per locale, each stored version and where it is.
    private var versionCache: [String: [Int: StateLayout.PackPlacement]] = [:]
    private var planCache: [String: Plan?] = [:]
    /// A dry run's snapshot: `blobPack` hashes blobs without writing them.
    var writesNothing = false
    /// What each rollup blob names and sums (MetricsLayout), read from the repository's caches once
    /// per snapshot however many locales and kinds a command reads: `guard` reads every staged locale's.
    lazy var rollupPacks = RollupPacksCache(repositoryPath: repositoryPath)
    lazy var rollupTotals = RollupPacksCache(repositoryPath: repositoryPath, file: "rollup-totals")

    init(repository: GitRepository, commit: ObjectID?) throws {
        self.repository = repository
        self.commit = commit
        self.tree = try commit.map { try repository.commit($0).tree }
    }

    /// The bytes of the file at `path`, or nil.
    public func file(_ path: String) throws -> [UInt8]? {
        guard let tree, let entry = try repository.treeEntry(tree, path: path), !entry.isTree else { return nil }
        return try repository.readBlob(entry.id)
    }

    /// Names in the directory at `path` with whether each is a directory; empty if there is none.
    public func directory(_ path: String) throws -> [GitTreeEntry] {
        guard let tree else { return [] }
        guard let entry = try repository.treeEntry(tree, path: path), entry.isTree else { return [] }
        return try repository.treeEntries(entry.id)
    }

    /// The bytes of a file that `directory(_:)` listed.
    public func read(_ entry: GitTreeEntry) throws -> [UInt8] {
        try repository.readBlob(entry.id)
    }

    /// The bytes of the blob `id` (a stored pack's, from `storedPackBlob`).
    public func blob(_ id: ObjectID) throws -> [UInt8] {
        try repository.readBlob(id)
    }

    /// Writes `bytes` as a blob for a `Change` to name (`Change.blobs`), so that a large file is held
    /// in memory once; a blob no commit names changes nothing.
    public func writeBlob(_ bytes: [UInt8]) throws -> ObjectID {
        try repository.writeBlob(bytes)
    }

    /// A writer of blobs into one new pack, for a change whose blobs are large and many (metrics
    /// rollups): no loose copies and no delta search after the write. Call `finish` before the
    /// change names them.
    public func blobPack() -> BlobPackWriter {
        BlobPackWriter(repository: repository, hashOnly: writesNothing)
    }

    /// The commit `id` of this repository's history (its message, author and parents).
    public func readCommit(_ id: ObjectID) throws -> GitCommit {
        try repository.commit(id)
    }

    /// Whether `commit` has `ancestor` in its history.
    public func isDescendant(_ commit: ObjectID, of ancestor: ObjectID) throws -> Bool {
        try repository.isDescendant(commit, of: ancestor)
    }

    /// The repository directory (the bare repository itself, ending in `/`), where caches that live
    /// outside the history are kept.
    public var repositoryPath: String { repository.path }

    public func policy() throws -> Policy {
        guard let bytes = try file(StateLayout.policy) else {
            throw RolloutError.internal("the repository has no \(StateLayout.policy); it was not made by rollout init")
        }
        return try Policy.parse(bytes, source: StateLayout.policy)
    }

    /// Locales with at least one pack, sorted.
    public func locales() throws -> [String] {
        try directory(StateLayout.packsDirectory).filter(\.isTree).map(\.name).sorted()
    }

    public func contentVersions(of locale: String) throws -> [Int] {
        if let cached = versionCache[locale] { return cached.keys.sorted() }
        var placements: [Int: StateLayout.PackPlacement] = [:]
        // Sharded first: a version at both places (verify reports it) reads from its shard.
        for file in try storedPackFiles(of: locale).reversed() where !file.isRecord && file.inShard {
            placements[file.id.contentVersion] = placements[file.id.contentVersion] ?? file.placement
        }
        versionCache[locale] = placements
        return placements.keys.sorted()
    }

    /// Every pack and record file of `locale` in either layout, with where each sits: flat files
    /// first, then each shard's (`rollout verify` checks them; readers use `packPlacement`).
    public func storedPackFiles(of locale: String) throws -> [StateLayout.StoredPackFile] {
        let directory = StateLayout.packDirectory(locale)
        var found: [StateLayout.StoredPackFile] = []
        var shards: [GitTreeEntry] = []
        for entry in try self.directory(directory) {
            if entry.isTree {
                if StateLayout.isShardName(entry.name) { shards.append(entry) }
            } else if let file = StateLayout.storedPackFile(atPath: "\(directory)/\(entry.name)") {
                found.append(file)
            }
        }
        for shard in shards {
            for entry in try repository.treeEntries(shard.id) where !entry.isTree {
                if let file = StateLayout.storedPackFile(atPath: "\(directory)/\(shard.name)/\(entry.name)") {
                    found.append(file)
                }
            }
        }
        return found
    }

    /// Where the stored version `id` is, sharded or flat; nil when the repository does not hold it.
    /// Every read of a stored pack or record goes through here, so both layouts read the same.
    public func packPlacement(_ id: PackID) throws -> StateLayout.PackPlacement? {
        if let cached = versionCache[id.locale] { return cached[id.contentVersion] }
        guard let tree else { return nil }
        for placement in [StateLayout.PackPlacement.sharded, .flat] {
            if let entry = try repository.treeEntry(tree, path: StateLayout.pack(id, placement)), !entry.isTree {
                return placement
            }
        }
        return nil
    }

    /// Where the version's pack (or its record) is in this snapshot, in its shard or flat; its
    /// shard's path when the version is not stored.
    public func storedPath(_ id: PackID, record: Bool = false) throws -> String {
        StateLayout.packFile(id, record: record, try packPlacement(id) ?? .sharded)
    }

    public func storedPackBytes(_ id: PackID) throws -> [UInt8]? {
        guard let placement = try packPlacement(id) else { return nil }
        return try file(StateLayout.pack(id, placement))
    }

    /// The git blob id of a stored pack: its bytes are a function of this id, so anything derived
    /// from them can be cached under it.
    public func storedPackBlob(_ id: PackID) throws -> ObjectID? {
        guard let tree, let placement = try packPlacement(id) else { return nil }
        guard let entry = try repository.treeEntry(tree, path: StateLayout.pack(id, placement)), !entry.isTree else {
            return nil
        }
        return entry.id
    }

    public func pack(_ id: PackID) throws -> Pack? {
        if let cached = packCache[id] { return cached }
        guard let bytes = try storedPackBytes(id) else { return nil }
        let parsed: ParsedPack
        do {
            parsed = try PackParser.parse(bytes, source: try storedPath(id), maximumBytes: Int.max)
        } catch let error as RolloutError {
            throw .damaged("stored pack \(id)", error)
        }
        packCache[id] = parsed.pack
        return parsed.pack
    }

    /// The locale's plan, or nil when nothing was ever promoted for it.
    public func plan(_ locale: String) throws -> Plan? {
        if let cached = planCache[locale] { return cached }
        guard let bytes = try file(StateLayout.plan(locale)) else {
            planCache[locale] = .some(nil)
            return nil
        }
        do {
            let plan = try Plan.parse(bytes, source: StateLayout.plan(locale))
            planCache[locale] = plan
            return plan
        } catch let error as RolloutError {
            throw .damaged("the plan of \(locale)", error)
        }
    }

    /// The part of the published index's sequence that no plan accounts for.
    public func siteSequence() throws -> Int {
        guard let bytes = try file(StateLayout.siteSequence) else { return 0 }
        return Int(String(decoding: bytes, as: UTF8.self).trimmingSpaces) ?? 0
    }

    /// The sequence the published index carries: every plan's sequence plus the site's own.
    public func indexSequence() throws -> Int {
        try plannedLocales().reduce(try siteSequence()) { $0 + ((try plan($1))?.sequence ?? 0) }
    }

    /// The locale's pending changes (empty when it never had one).
    public func schedule(_ locale: String) throws -> Schedule {
        guard let bytes = try file(StateLayout.schedule(locale)) else { return Schedule(locale: locale) }
        do {
            return try Schedule.parse(bytes, source: StateLayout.schedule(locale))
        } catch let error as RolloutError {
            throw .damaged("the pending changes of \(locale)", error)
        }
    }

    /// Locales that have a schedule file (some may hold no pending change any more), sorted.
    public func scheduledLocales() throws -> [String] {
        try directory(StateLayout.schedulesDirectory).filter { !$0.isTree && $0.name.hasSuffix(".json") }.map {
            String($0.name.dropLast(5))
        }.sorted()
    }

    /// The tester group `name`, or nil when the repository has none of that name.
    public func testerGroup(_ name: String) throws -> TesterGroup? {
        guard let bytes = try file(StateLayout.testers(name)) else { return nil }
        do {
            return try TesterGroup.parse(bytes, source: StateLayout.testers(name))
        } catch let error as RolloutError {
            throw .damaged("the tester group \(name)", error)
        }
    }

    /// The experiment `name`, running or ended, or nil when the repository has none of that name.
    public func experiment(_ name: String) throws -> ExperimentRecord? {
        guard let bytes = try file(StateLayout.experiment(name)) else { return nil }
        do {
            return try ExperimentRecord.parse(bytes, source: StateLayout.experiment(name))
        } catch let error as RolloutError {
            throw .damaged("the experiment \(name)", error)
        }
    }

    /// The names of every experiment the repository holds, sorted.
    public func experimentNames() throws -> [String] {
        try directory(StateLayout.experimentsDirectory).filter { !$0.isTree && $0.name.hasSuffix(".json") }.map {
            String($0.name.dropLast(5))
        }.sorted()
    }

    /// The names of the tester groups, sorted.
    public func testerGroupNames() throws -> [String] {
        try directory(StateLayout.testersDirectory).filter { !$0.isTree && $0.name.hasSuffix(".json") }.map {
            String($0.name.dropLast(5))
        }.sorted()
    }

    /// Locales that have a plan, sorted.
    public func plannedLocales() throws -> [String] {
        try directory(StateLayout.plansDirectory).filter { !$0.isTree && $0.name.hasSuffix(".json") }.map {
            String($0.name.dropLast(5))
        }.sorted()
    }

    public func record(_ id: PackID) throws -> PackRecord? {
        guard let placement = try packPlacement(id), let bytes = try file(StateLayout.packRecord(id, placement)) else {
            return nil
        }
        return try PackRecord.parse(bytes, path: StateLayout.packRecord(id, placement))
    }

    /// The pack `id`, or a `missing` error that says which versions exist.
    public func requirePack(_ id: PackID) throws -> Pack {
        if let pack = try pack(id) { return pack }
        let versions = try contentVersions(of: id.locale)
        if versions.isEmpty {
            throw .noPack(id, locales: try locales())
        }
        throw .noPack(id, versions: versions)
    }
}

/// The packs devices can actually be served: for each locale with a plan, its baseline (or, before
/// its first completion, its staged pack). Fallback chains for devices are built over this, so adding
/// a pack changes nothing until it is promoted.
public struct BaselineCatalog: PackCatalog {
    public let snapshot: Snapshot

    public init(_ snapshot: Snapshot) { self.snapshot = snapshot }

    public func contentVersions(of locale: String) throws -> [Int] {
        guard let plan = try snapshot.plan(locale), let served = plan.baseline ?? plan.candidate else { return [] }
        return [served.contentVersion]
    }

    public func pack(_ id: PackID) throws -> Pack? {
        try contentVersions(of: id.locale).contains(id.contentVersion) ? snapshot.pack(id) : nil
    }
}

/// Damaged or missing state, named (an extension of Error, so that `throw .name(...)` finds them).
extension Error where Self == RolloutError {
    fileprivate static func damaged(_ what: String, _ error: RolloutError) -> RolloutError {
        .repositoryDamaged("\(what) cannot be read: \(error.message)")
    }

    fileprivate static func noPack(_ id: PackID, locales known: [String]) -> RolloutError {
        .missing(
            "no pack \(id): the repository has no \(id.locale) packs"
                + (known.isEmpty ? "" : " (locales: \(known.joined(separator: ", ")))"))
    }

    fileprivate static func noPack(_ id: PackID, versions: [Int]) -> RolloutError {
        .missing("no pack \(id); \(id.locale) has versions \(versions.map(String.init).joined(separator: ", "))")
    }
}
