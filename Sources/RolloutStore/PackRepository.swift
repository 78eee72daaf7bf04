import Foundation
import RolloutModel

/// The pack repository: a bare git repository with one state ref. Every change is one commit,
/// written objects first and then published by compare-and-swap of the ref; a lost race re-reads
/// the new tip and runs the operation again (docs/architecture.md, "The commit protocol").
public final class PackRepository {
    /// The git layer under it, RolloutStore's alone: other targets ask this class's operations and
    /// read through `Snapshot` (docs/architecture.md, "Layers and targets").
    let git: GitRepository
    /// The repository directory (the bare repository itself).
    public let path: String

    /// How many times an operation is re-applied after losing the race for the ref.
    public static let maximumAttempts = 60
    /// How long an operation keeps re-applying itself while other writers push to the remote
    /// first (and at most how many times): a busy remote delays a change, it does not refuse it.
    public static let remoteRetryBudget: Double = 120
    public static let maximumRemoteAttempts = 1000

    /// When set, changes stay in this repository even if it has a remote; `rollout sync` pushes
    /// them later (`--offline`).
    public var offline = false

    /// When set (`--dry-run`), `apply` runs the operation once on this repository's tip and returns
    /// the change it would commit, and writes nothing: no object, no ref, no packing, and no fetch
    /// (a dry run reads the repository as it is; `rollout sync` first shows the remote's state).
    /// The one place every dry run stops, so what it shows is what the real run records.
    public var dryRun = false

    /// Whether change commits are signed, and how the signer is run (`CommitSigner`); the command
    /// line sets it from `--sign`, `--no-sign` and git config.
    public var signing = SigningRequest()

    /// When set (`--propose`), `apply` stores the change as a proposal for an approver instead of
    /// moving main (`propose`), and ends by throwing `ProposalMade`.
    public var proposing = false

    /// More loose objects than this and a write packs them (`ROLLOUT_PACK_THRESHOLD`).
    public var packThreshold = Packing.automaticThreshold

    /// Where a write reports what went wrong after it landed (a failed automatic pack): a warning
    /// for people, never the write's failure.
    public var warn: (String) -> Void = { _ in }

    /// What fetch and push start git with (`GitTransport`): the command's environment, and whether
    /// its standard input is a terminal a person can answer git's prompts on. `CommandContext` sets
    /// both, so a caller running commands inside its own process is not given the process's.
    public var gitEnvironment = ProcessInfo.processInfo.environment
    public var stdinIsTerminal = isatty(STDIN_FILENO) == 1

    /// The remote tip `snapshotForChange` just caught up to: the first attempt of the change it
    /// prepares starts from it instead of fetching again (the push's compare-and-swap still refuses
    /// it if the remote moved since).
    var preparedRemoteTip: (remote: String, tip: ObjectID?)?

    private init(git: GitRepository) {
        self.git = git
        var path = git.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.path = path
    }

    // MARK: opening

    /// Opens the rollout repository at `path`, or says precisely why it is not one.
    public static func open(_ path: String) throws -> PackRepository {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .noRepository(at: path, "the directory does not exist; create one with rollout init \(path)")
        }
        guard isDirectory.boolValue else {
            throw .repositoryIsAFile(path)
        }
        let git: GitRepository
        do {
            git = try GitRepository.openBare(path)
        } catch let error as GitError {
            throw .noRepository(at: path, error.message)
        }
        // Only the repository's own config counts: a marker in ~/.gitconfig must not make every repository ours.
        let key = StateLayout.formatConfigKey
        switch try git.localConfig(key) {
        case let format? where StateLayout.readableFormats.contains(format):
            break
        case nil:
            throw .notARolloutRepository(path, key: key)
        case let other?:
            let newer = Int(other).map { $0 > Int(StateLayout.formatVersion)! } ?? false
            if newer { throw .newerFormat(path, key: key, other) }
            throw .unknownFormat(path, key: key, other)
        }
        return PackRepository(git: git)
    }

    /// Opens the bare repository a git server runs its pre-receive hook in (`PushCheck`), reading
    /// the pushed objects from `objectDirectories` too (git's quarantine). No `rollout.format` is
    /// asked for: a server's repository is a plain `git init --bare` that rollout pushed to.
    public static func openPushed(_ path: String, objectDirectories: [String]) throws -> PackRepository {
        let git: GitRepository
        do {
            git = try GitRepository.openBare(path)
        } catch let error as GitError {
            throw .noRepository(at: path, error.message)
        }
        let own = URL(fileURLWithPath: path).appendingPathComponent("objects").standardizedFileURL.path
        for directory in objectDirectories where URL(fileURLWithPath: directory).standardizedFileURL.path != own {
            try git.addObjectDirectory(directory)
        }
        return PackRepository(git: git)
    }

    /// Finds the repository the way git finds `.git`: `explicit` (from `--repo`), else `environment`
    /// (`ROLLOUT_REPO`), else the working directory and each parent, where either the directory is a
    /// rollout repository itself or holds one named `.rollout`.
    public static func discover(explicit: String?, environment: String?, workingDirectory: String) throws
        -> PackRepository
    {
        if let explicit, !explicit.isEmpty { return try open(absolute(explicit, from: workingDirectory)) }
        if let environment, !environment.isEmpty { return try open(absolute(environment, from: workingDirectory)) }
        var directory = URL(fileURLWithPath: workingDirectory).standardizedFileURL
        while true {
            for candidate in [directory.appendingPathComponent(".rollout"), directory]
            where looksLikeRepository(candidate.path) {
                if let repository = try? open(candidate.path) { return repository }
            }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { break }
            directory = parent
        }
        throw StoreRefusal.noRepositoryFound(from: workingDirectory)
    }

    static func absolute(_ path: String, from workingDirectory: String) -> String {
        path.hasPrefix("/")
            ? path : URL(fileURLWithPath: workingDirectory).appendingPathComponent(path).standardizedFileURL.path
    }

    private static func looksLikeRepository(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/HEAD")
            && FileManager.default.fileExists(atPath: path + "/objects")
    }

    // MARK: creating

    /// Creates a new bare repository at `path` holding `files` in its first commit; `configure`
    /// sets the new repository up (how it signs) before that commit is written.
    public static func create(
        at path: String, files: [(path: String, bytes: [UInt8])], actor: Actor, time: Timestamp,
        configure: (PackRepository) -> Void = { _ in }
    ) throws -> (PackRepository, ObjectID) {
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: path), !contents.isEmpty {
            throw .initIntoNonEmpty(path)
        }
        if FileManager.default.fileExists(atPath: path),
            (try? FileManager.default.contentsOfDirectory(atPath: path)) == nil
        {
            throw RolloutError.usage("\(path) exists and is not a directory")
        }
        let undo = PackRepository.undoer(path)
        let git: GitRepository
        do {
            git = try PackRepository.createBare(path)
        } catch {
            undo()
            throw error
        }
        let repository = PackRepository(git: git)
        configure(repository)
        let change = Change(
            summary: "init: new pack repository", trailers: [(.action, ChangeAction.initialize.rawValue)], writes: files
        )
        do {
            let commit = try repository.apply(actor: actor, time: { time }, firstCommit: true) { _ in (change, ()) }
                .commit!
            return (repository, commit)
        } catch {
            undo()
            throw error
        }
    }

    /// What takes a failed init or clone back: nothing left behind, not a half-made repository,
    /// not a new directory.
    static func undoer(_ path: String) -> () -> Void {
        let existed = FileManager.default.fileExists(atPath: path)
        return {
            if existed {
                for item in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                    try? FileManager.default.removeItem(atPath: path + "/" + item)
                }
            } else {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
    }

    /// An empty bare repository marked as rollout's, keeping a reflog of every position of the
    /// state ref (evidence if the history is ever rewritten).
    static func createBare(_ path: String) throws -> GitRepository {
        do {
            let git = try GitRepository.createBare(path, initialBranch: StateLayout.stateBranch)
            try git.setConfig("core.logAllRefUpdates", "always")
            try git.setConfig(StateLayout.formatConfigKey, StateLayout.formatVersion)
            return git
        } catch let error as GitError where !error.isIOFailure {
            throw RolloutError.badInput("cannot create a repository at \(path): \(error.message)")
        }
    }

    // MARK: reading and changing

    public func snapshot() throws -> Snapshot {
        try Snapshot(repository: git, commit: stateTip())
    }

    /// The commit the state ref points at. Only `init` starts without one: for every other command a
    /// missing state ref means the history was deleted, and reading it as "nothing yet" would hide that.
    public func stateTip() throws -> ObjectID {
        guard let tip = try git.referenceTarget(StateLayout.stateRef) else {
            throw .stateRefDeleted(path, ref: StateLayout.stateRef, lastPosition: lastStatePosition())
        }
        return tip
    }

    /// The commit the state ref last pointed at, from HEAD's reflog (kept when the ref is deleted).
    private func lastStatePosition() -> String? {
        guard let log = FileManager.default.contents(atPath: path + "/logs/HEAD") else { return nil }
        let zero = String(repeating: "0", count: 40)
        for line in String(decoding: log, as: UTF8.self).split(separator: "\n").reversed() {
            let ids = line.split(separator: " ").prefix(2).map(String.init)
            guard ids.count == 2 else { continue }
            if let id = [ids[1], ids[0]].first(where: { $0 != zero && $0.count == 40 && $0.allSatisfy(\.isHexDigit) }) {
                return id
            }
        }
        return nil
    }

    public struct Applied<Result> {
        /// The new commit, or nil when the operation decided nothing needed to change.
        public let commit: ObjectID?
        public let result: Result
        /// 1 when the first try landed; more when other writers were faster.
        public let attempts: Int
        /// The change committed, or with `dryRun` the one that would be; nil when nothing changes.
        public var change: Change? = nil
        /// True when `dryRun` stopped the change before anything was written.
        public var dryRun = false
    }

    /// Runs `operation` on the current tip and publishes the change it returns as one commit.
    /// `operation` may run several times (once per lost race) and must derive everything from the
    /// snapshot it is given, so each run re-validates against the state it will be applied to.
    /// After a change lands, the loose objects are packed when they passed a threshold (`Packing.packIfNeeded`).
    public func apply<Result>(
        actor: Actor, time: () -> Timestamp, firstCommit: Bool = false,
        _ operation: (Snapshot) throws -> (Change?, Result)
    ) throws -> Applied<Result> {
        if dryRun {
            let tip = firstCommit ? try git.referenceTarget(StateLayout.stateRef) : try stateTip()
            let snapshot = try Snapshot(repository: git, commit: tip)
            snapshot.writesNothing = true
            var (change, result) = try operation(snapshot)
            // The message the real run would record, its Rollout-Plans trailer included.
            if let written = change {
                change?.record(
                    try plansTrailer(
                        for: written, writtenAs: written.writes.map { ObjectID(blob: $0.bytes) }, on: snapshot))
            }
            return Applied(commit: nil, result: result, attempts: 1, change: change, dryRun: true)
        }
        let applied = try applyUnpacked(actor: actor, time: time, firstCommit: firstCommit, operation)
        // The change is committed whatever packing does; a failed pack leaves only an extra pack file.
        if applied.commit != nil {
            do {
                try Packing.packIfNeeded(self, threshold: packThreshold)
            } catch {
                warn(PackRepository.packingFailed(error))
            }
        }
        return applied
    }

    private func applyUnpacked<Result>(
        actor: Actor, time: () -> Timestamp, firstCommit: Bool, _ operation: (Snapshot) throws -> (Change?, Result)
    ) throws -> Applied<Result> {
        // Read before the operation runs: a signing set-up that cannot work stops the change before any work.
        let signer = try commitSigner()
        if proposing { try propose(actor: actor, time: time, signer: signer, operation) }
        if !offline, let remote = try syncRemote() {
            return try applyThroughRemote(remote, actor: actor, time: time, signer: signer, operation)
        }
        var lockedAttempts = 0
        for attempt in 1...PackRepository.maximumAttempts {
            // Only init writes a first commit; any other change on a repository without one would
            // start a new history that silently drops the old one.
            let tip = firstCommit ? try git.referenceTarget(StateLayout.stateRef) : try stateTip()
            let snapshot = try Snapshot(repository: git, commit: tip)
            let (change, result) = try operation(snapshot)
            guard let change else { return Applied(commit: nil, result: result, attempts: attempt) }
            let commit = try write(change, on: snapshot, actor: actor, time: time(), signer: signer)
            try admit(commit)
            try git.setReflogIdentity(GitSignature(name: actor.name, email: actor.email, time: 0))
            do {
                let message = "rollout: \(change.summary)"
                if try git.compareAndSwap(StateLayout.stateRef, to: commit, expected: tip, message: message) {
                    return Applied(commit: commit, result: result, attempts: attempt, change: change)
                }
            } catch let error as GitError where error.isLocked {
                lockedAttempts += 1
            }
            // Another writer moved the ref (or holds its lock): back off a little, with jitter, and re-apply.
            usleep(UInt32.random(in: 200...(1000 * UInt32(min(attempt, 20)))))
        }
        let lock = "\(path)/\(StateLayout.stateRef).lock"
        if lockedAttempts == PackRepository.maximumAttempts {
            throw .stateRefStayedLocked(lock, attempts: lockedAttempts)
        }
        throw .outpacedByWriters
    }

    /// Marks the repository format 2 (sharded) before the first write that can put a version in a
    /// shard, a change of ours or a fetch of one made elsewhere, so a rollout from before sharding
    /// refuses it from then on instead of missing versions (`StateLayout.formatVersion`).
    func recordShardedFormat() throws {
        if try git.localConfig(StateLayout.formatConfigKey) != StateLayout.formatVersion {
            try git.setConfig(StateLayout.formatConfigKey, StateLayout.formatVersion)
        }
    }

    /// Writes the change's blobs, tree and commit, the commit signed by `signer` when there is one.
    /// Nothing is visible until the ref moves, and a signature that cannot be made stops the change
    /// before the repository's config is touched.
    func write(_ change: Change, on snapshot: Snapshot, actor: Actor, time: Timestamp, signer: CommitSigner?) throws
        -> ObjectID
    {
        let ids = try change.writes.map { try git.writeBlob($0.bytes) }
        var change = change
        change.record(try plansTrailer(for: change, writtenAs: ids, on: snapshot))
        let upserts = zip(change.writes, ids).map { (path: $0.path, blob: $1) } + change.blobs
        let tree = try git.updatedTree(base: snapshot.tree, upserts: upserts, removals: change.removals)
        let signature = GitSignature(name: actor.name, email: actor.email, time: time.seconds)
        let commit = try commitObject(
            tree: tree, parents: (snapshot.commit.map { [$0] } ?? []) + (change.approving.map { [$0.proposal] } ?? []),
            message: change.message(actor: actor.description),
            author: signature, signer: signer)
        try recordShardedFormat()
        return commit
    }
}

/// Why a directory is not a rollout repository, named (an extension of Error, so that `throw .name(...)` finds them).
extension Error where Self == RolloutError {
    fileprivate static func noRepository(at path: String, _ why: String) -> RolloutError {
        .missing("no rollout repository at \(path): \(why)")
    }

    fileprivate static func notARolloutRepository(_ path: String, key: String) -> RolloutError {
        .missing("\(path) is a git repository but not a rollout repository (no \(key) in its config)")
    }

    fileprivate static func initIntoNonEmpty(_ path: String) -> RolloutError {
        .usage("\(path) already exists and is not empty; rollout init needs a new or empty directory")
    }

    fileprivate static func repositoryIsAFile(_ path: String) -> RolloutError {
        .noRepository(
            at: path,
            "it is a file, not a directory; name the repository directory (the one rollout init made, such as .rollout)"
        )
    }

    fileprivate static func newerFormat(_ path: String, key: String, _ other: String) -> RolloutError {
        .missing(
            "\(path) was made by a newer rollout (\(key)=\(other)); this rollout reads formats up to \(StateLayout.formatVersion) only: upgrade rollout to use it"
        )
    }

    fileprivate static func unknownFormat(_ path: String, key: String, _ other: String) -> RolloutError {
        .missing(
            "\(path) has \(key)=\(other), which no rollout writes (this one reads format \(StateLayout.formatVersion)); the config was edited or damaged"
        )
    }

    /// The state ref is gone; `lastPosition` is where HEAD's reflog last saw it, when it did.
    fileprivate static func stateRefDeleted(_ path: String, ref: String, lastPosition: String?) -> RolloutError {
        let restore =
            lastPosition.map {
                "restore it with git --git-dir \(path) update-ref \(ref) \($0) (its last position, from the reflog \(path)/logs/HEAD)"
            }
            ?? "restore it from the reflog (\(path)/logs/HEAD) with git update-ref \(ref) COMMIT"
        return .missing(
            "\(path) has no \(ref), the ref that holds every change: it was deleted (git update-ref -d, or a damaged copy), so nothing can be read or changed; \(restore), or clone the repository again from a remote (rollout clone URL DIR); then run rollout verify"
        )
    }

    fileprivate static func stateRefStayedLocked(_ lock: String, attempts lockedAttempts: Int) -> RolloutError {
        .conflict(
            "\(lock) stayed locked through \(lockedAttempts) attempts. If no rollout or git command is running, a crashed one left it: remove it with rm \(lock)"
        )
    }

    fileprivate static var outpacedByWriters: RolloutError {
        .conflict(
            "other writers kept changing the repository; gave up after \(PackRepository.maximumAttempts) attempts. Nothing was changed: try again"
        )
    }
}

extension PackRepository {
    /// The warning when a change landed but packing the loose objects after it failed.
    fileprivate static func packingFailed(_ error: Error) -> String {
        "the change landed, but packing the repository's loose objects failed: \((error as? RolloutError)?.message ?? "\(error)"); run rollout gc to pack them"
    }
}

/// What the store refuses before any git work, as data (worded by the command line, which knows
/// how a repository is named and a ramp is started).
public enum StoreRefusal: Refusal {
    /// No repository in the working directory or any parent, and none named.
    case noRepositoryFound(from: String)
    /// An output directory that is a file.
    case notADirectory(String)
    /// `pause` or `resume` (`doing`) of a locale with no scheduled ramp.
    case noRamp(locale: String, doing: String)
    /// Packs lint refuses (errors only): nothing of the batch was stored.
    case lintRefused([LintFinding])
    /// A revision that names no commit of the repository (`rollout diff`), as given.
    case unknownRevision(String)
    /// A time before the repository's first change, as given.
    case beforeHistory(String)

    public var kind: RolloutError.Kind {
        switch self {
        case .noRepositoryFound: return .missing
        case .notADirectory: return .usage
        case .noRamp: return .checkFailed
        case .lintRefused: return .badInput
        case .unknownRevision, .beforeHistory: return .missing
        }
    }
}
