import Foundation
import RolloutModel

/// A shared repository on an ordinary git server (docs/teams.md). The server is the distributed
/// engine: every change is applied on the remote's tip and pushed; a push the remote refuses
/// because another writer was faster is re-fetched, re-applied (and so re-validated) and pushed
/// again. The remote's ref moves only by compare-and-swap: the system git pushes with
/// --force-with-lease, and receive-pack checks the old value under its lock, for every kind of
/// URL, a local path included (`GitTransport`).
extension PackRepository {
    /// The git config key naming the remote changes are pushed to.
    public static let remoteConfigKey = "rollout.remote"

    public func syncRemote() throws -> String? {
        guard let name = try git.localConfig(PackRepository.remoteConfigKey), !name.isEmpty else { return nil }
        return name
    }

    /// `rollout remote list`: every remote with its URL as configured (credentials included, so
    /// whoever shows it redacts it), in name order.
    public func remotes() throws -> [(name: String, url: String)] {
        try git.remoteNames().map { ($0, try git.remoteURL($0) ?? "") }
    }

    static func trackingRef(_ remote: String) -> String { "refs/remotes/\(remote)/\(StateLayout.stateBranch)" }

    /// `rollout remote add`: the first remote added becomes the one changes are pushed to.
    public func addRemote(_ name: String, url: String) throws -> Bool {
        guard name.range(of: "^[A-Za-z0-9][A-Za-z0-9._-]*$", options: .regularExpression) != nil else {
            throw RolloutError.usage("\"\(name)\" is not a remote name: letters, digits, '.', '_' and '-'")
        }
        if let existing = try git.remoteURL(name) {
            throw RolloutError.usage("remote \(name) already exists (\(RemoteURL.redacted(existing)))")
        }
        do {
            try git.addRemote(name, url: url)
        } catch let error as GitError {
            throw RolloutError.usage(
                "cannot add remote \(name) \(RemoteURL.redacted(url)): \(RemoteURL.redactingURLs(in: error.message, secrets: RemoteURL.credentials(in: url)))"
            )
        }
        if try syncRemote() == nil {
            try git.setConfig(PackRepository.remoteConfigKey, name)
            return true
        }
        return false
    }

    /// How rollout reaches a remote: the system git (docs/teams.md, "How rollout talks to the server").
    var transport: GitTransport {
        let configured = ["http.lowSpeedLimit", "http.lowSpeedTime"].contains { ((try? git.config($0)) ?? nil) != nil }
        return GitTransport(
            gitDirectory: path, environment: gitEnvironment, stdinIsTerminal: stdinIsTerminal,
            userLimitsSpeed: configured)
    }

    /// How many times a fetch or push that failed in a way that may pass (a dropped connection, a
    /// 5xx) is tried before exit 75.
    static let transientAttempts = 3

    /// The pause before trying a transient failure again: a quarter of a second, then a second.
    static func pauseBeforeRetry(_ attempt: Int) { usleep(UInt32(250_000 * attempt * attempt)) }

    /// The credentials in a remote's configured URLs, so no message repeats them.
    func secrets(of remote: String) throws -> [String] {
        let urls = [
            try git.remoteURL(remote), try git.remoteURL(remote, rewritten: true),
            try git.config("remote.\(remote).pushurl"),
        ]
        .compactMap { $0 }
        return urls.flatMap(RemoteURL.credentials(in:))
    }

    /// The remote's URL as messages show it.
    func shownURL(_ remote: String) -> String {
        ((try? git.remoteURL(remote)) ?? nil).map(RemoteURL.redacted) ?? "?"
    }

    /// Fetches the remote's state branch; its tip, or nil when the remote has none yet. A transient
    /// failure is tried again; every other failure is reported at once (`remoteFailure`).
    func fetchTip(_ remote: String) throws -> ObjectID? {
        try recordShardedFormat()
        if let url = try git.remoteURL(remote, rewritten: true), PackRepository.isLocalPath(url) {
            let path = url.hasPrefix("file://") ? String(url.dropFirst(7)) : url
            guard FileManager.default.fileExists(atPath: path) else {
                throw .missingLocalRemote(remote, path: path)
            }
        }
        // A ref of its own per fetch: processes of one clone fetching at once never contend for a lock.
        let incoming = "refs/rollout/incoming/\(UUID().uuidString)"
        defer { try? git.deleteReference(incoming) }
        let secrets = try secrets(of: remote)
        for attempt in 1...PackRepository.transientAttempts {
            do {
                guard
                    try transport.fetch(remote: remote, source: StateLayout.stateRef, into: incoming, secrets: secrets)
                else { return nil }
                break
            } catch let failure as GitTransport.Failure {
                guard failure.kind == .transient, attempt < PackRepository.transientAttempts else {
                    throw remoteFailure(failure, "fetch from", remote, attempts: attempt)
                }
                PackRepository.pauseBeforeRetry(attempt)
            }
        }
        guard let tip = try git.referenceTarget(incoming) else { return nil }
        // For people reading the clone with git; another process of this clone may be setting it too.
        try? git.setReference(PackRepository.trackingRef(remote), to: tip, message: "rollout: fetch")
        return tip
    }

    public static func isLocalPath(_ url: String) -> Bool {
        if url.hasPrefix("file://") { return true }
        if url.contains("://") { return false }
        // scp-like ssh syntax: host:path
        if let colon = url.firstIndex(of: ":"), !url[..<colon].contains("/") { return false }
        return true
    }

    /// Pushes `commit` as the remote's state branch if, and only if, the branch is still
    /// `expected`. Returns nil when it landed, or why the remote refused it because another writer
    /// was faster.
    ///
    /// The one rule (docs/reliability.md, "A push whose connection is cut"): whenever git cannot
    /// say that this push landed, the remote's branch decides (`settle`). A push may land although
    /// git reports a failure or a refusal: the connection can drop while the server goes on
    /// (the pre-receive hook still running), and git's HTTP client then sends the same push again
    /// on a new connection, whose receive-pack loses to the first and reports a moved branch. So
    /// a branch that holds `commit` is this command's change landing, never another writer's;
    /// only a branch that moved elsewhere is a lost race; and a branch still at `expected` after a
    /// push that reached the server may yet move (`pushMayStillLand`).
    func push(_ commit: ObjectID, to remote: String, expected: ObjectID?) throws -> String? {
        let secrets = try secrets(of: remote)
        let moved = "another writer moved \(StateLayout.stateBranch)"
        for attempt in 1...PackRepository.transientAttempts {
            let failure: GitTransport.Failure
            do {
                switch try transport.push(
                    commit.hex, to: remote, ref: StateLayout.stateRef, expected: expected?.hex, secrets: secrets)
                {
                case .landed: return nil
                case .refMoved(let why):
                    // A moved branch may be this very push, sent twice: only a branch without it is a race.
                    return try settle(commit, on: remote, expected: expected) == .landed ? nil : "\(moved) (\(why))"
                case .rejected(let refusal):
                    switch try settle(commit, on: remote, expected: expected) {
                    case .landed: return nil
                    case .moved: return moved
                    case .unchanged: throw remoteFailure(refusal, "push to", remote, attempts: attempt)
                    }
                }
            } catch let caught as GitTransport.Failure where caught.kind == .transient {
                failure = caught
            } catch let caught as GitTransport.Failure {
                throw remoteFailure(caught, "push to", remote, attempts: attempt)
            }
            PackRepository.pauseBeforeRetry(attempt)
            switch try settle(commit, on: remote, expected: expected, after: failure) {
            case .landed: return nil
            case .moved: return moved
            case .unchanged where attempt == PackRepository.transientAttempts:
                guard GitTransport.neverReachedServer(failure) else {
                    throw .pushMayStillLand(remote, shownURL: shownURL(remote), commit: commit, failure)
                }
                throw remoteFailure(failure, "push to", remote, attempts: attempt)
            case .unchanged: continue
            }
        }
        throw RolloutError.internal("the push to \(remote) ended without an outcome")
    }

    /// What the remote's branch says of a push git could not confirm (`branch(of:holds:expected:)`).
    /// When it cannot be read, whether the push landed cannot be told: that is said, never guessed.
    func settle(
        _ commit: ObjectID, on remote: String, expected: ObjectID?, after failure: GitTransport.Failure? = nil
    ) throws -> BranchOutcome {
        do {
            return try branch(of: remote, holds: commit, expected: expected)
        } catch {
            let failure = failure ?? GitTransport.Failure(kind: .transient, lines: ["\(error)"])
            throw .pushOutcomeUnknown(remote, shownURL: shownURL(remote), failure)
        }
    }

    enum BranchOutcome { case landed, moved, unchanged }

    /// What the remote's branch says of a push git could not report on: it holds `commit` (also
    /// under a later writer's commit, so the change is never applied twice), another writer moved
    /// it, or it is still `expected`.
    func branch(of remote: String, holds commit: ObjectID, expected: ObjectID?) throws -> BranchOutcome {
        let tip = try fetchTip(remote)
        if let tip, try tip == commit || git.isDescendant(tip, of: commit) { return .landed }
        return tip == expected ? .unchanged : .moved
    }

    /// The one mapping from a failed fetch or push to what a person reads, with its exit code
    /// (docs/teams.md, "When the remote fails"): only a failure that may pass is 75.
    func remoteFailure(_ failure: GitTransport.Failure, _ doing: String, _ remote: String, attempts: Int)
        -> any Error
    {
        let url = shownURL(remote)
        let said =
            failure.lines.isEmpty
            ? " git said nothing." : " git said:\n" + failure.lines.map { "  \($0)" }.joined(separator: "\n") + "\n"
        let what = "cannot \(doing) \(remote) (\(url)):"
        switch failure.kind {
        case .authentication:
            return RolloutError.permission(
                "\(what) the server did not accept the credentials git gave it, or git found none.\(said)Nothing was changed. rollout authenticates exactly as git does: set up what git ls-remote \(url) needs (a credential helper, GIT_ASKPASS, http.extraheader, an ssh key) and run the command again (docs/teams.md, \"Credentials\")"
            )
        case .refusedByServer:
            return RolloutError.permission(
                "\(what) the server refused the change.\(said)Nothing was changed on \(remote). When \(StateLayout.stateBranch) is protected, push as a user it allows (docs/teams.md, \"A protected main\")"
            )
        case .hostKey:
            return RolloutError.unavailable("\(what) \(failure.hostKeyAdvice)")
        case .certificate:
            return RolloutError.unavailable("\(what) \(failure.certificateAdvice)")
        case .notFound:
            return RolloutError.missing(
                "\(what) there is no repository there, or none this identity may see (GitHub and GitLab answer so for a private repository).\(said)Nothing was changed. Check the URL with rollout remote list, and the credentials git uses (docs/teams.md, \"Credentials\")"
            )
        case .transient:
            return RemoteRefusal.unreachable(
                doing: doing, remote: remote, url: url, attempts: attempts, gitSaid: failure.lines)
        case .other:
            return RolloutError.unavailable(
                "\(what) git refused.\(said)Nothing was changed. git ls-remote \(url) shows the same failure")
        case .noGit:
            return RolloutError.unavailable(
                "\(what) \(failure.lines.joined(separator: "; ")). rollout runs the system git for every fetch and push: install git 2.29 or later (apt-get install git). Nothing was changed (docs/teams.md, \"How rollout talks to the server\")"
            )
        }
    }

    /// The commits after `base` up to `tip`, oldest first, along first parents.
    func commits(from base: ObjectID?, to tip: ObjectID) throws -> [GitCommit] {
        var chain: [GitCommit] = []
        var next: ObjectID? = tip
        while let id = next, id != base {
            let commit = try git.commit(id)
            chain.append(commit)
            next = commit.parents.first
        }
        return chain.reversed()
    }

    func applyThroughRemote<Result>(
        _ remote: String, actor: Actor, time: () -> Timestamp, signer: CommitSigner?,
        _ operation: (Snapshot) throws -> (Change?, Result)
    ) throws -> Applied<Result> {
        var refusals: [String] = []
        // Every commit this command pushed, with what its run returned: a tip that holds one of them
        // is this command's change landing late, reported as such, never re-applied on top of itself.
        var pushed: [(commit: ObjectID, result: Result)] = []
        let started = Date()
        for attempt in 1...PackRepository.maximumRemoteAttempts {
            if attempt > 1 && Date().timeIntervalSince(started) > PackRepository.remoteRetryBudget { break }
            let prepared = preparedRemoteTip
            preparedRemoteTip = nil
            let remoteTip =
                try prepared.flatMap { $0.remote == remote && attempt == 1 ? $0.tip : nil } ?? catchUpForChange(remote)
            if let remoteTip,
                let mine = try pushed.first(where: {
                    try $0.commit == remoteTip || git.isDescendant(remoteTip, of: $0.commit)
                })
            {
                return Applied(commit: mine.commit, result: mine.result, attempts: attempt - 1)
            }
            let snapshot = try Snapshot(repository: git, commit: remoteTip)
            let (change, result) = try operation(snapshot)
            guard let change else { return Applied(commit: nil, result: result, attempts: attempt) }
            let commit = try write(change, on: snapshot, actor: actor, time: time(), signer: signer)
            try admit(commit)
            pushed.append((commit, result))
            if let refused = try push(commit, to: remote, expected: remoteTip) {
                refusals.append(refused)
                // Exponential back-off with full jitter, capped low: writers that keep colliding
                // spread out, and one that lost often does not sit out while fresh ones win.
                usleep(UInt32.random(in: 0...(5_000 << UInt32(min(attempt, 4)))))
                continue
            }
            // It is on the remote: the local branch and the tracking ref follow. If another process
            // of this clone moved the branch meanwhile, the next fetch brings it up to date.
            try git.setReflogIdentity(GitSignature(name: actor.name, email: actor.email, time: 0))
            _ = try? git.compareAndSwap(
                StateLayout.stateRef, to: commit, expected: remoteTip, message: "rollout: \(change.summary)")
            try? git.setReference(PackRepository.trackingRef(remote), to: commit, message: "rollout: pushed")
            return Applied(commit: commit, result: result, attempts: attempt, change: change)
        }
        throw .pushRefusedTooOften(remote, refusals: refusals, since: started)
    }

    /// The state a change is prepared against, before `apply` re-validates it on the remote's tip:
    /// caught up first, so a clone that is behind never refuses (or judges) its input by a state the
    /// remote has moved past (a metrics row for a pack another clone added, a newer policy); and a
    /// clone holding changes the remote does not have is told to sync before anything is read.
    /// A dry run fetches nothing: it reads this repository as it is.
    public func snapshotForChange() throws -> Snapshot {
        if !offline, !dryRun, let remote = try syncRemote() {
            preparedRemoteTip = (remote, try catchUpForChange(remote))
        }
        return try snapshot()
    }

    /// Fetches the remote's tip and fast-forwards to it; refuses when this repository holds changes
    /// the remote does not have, since a change made now would be applied to a state this clone has
    /// not seen. Returns the remote's tip.
    func catchUpForChange(_ remote: String) throws -> ObjectID? {
        let remoteTip = try fetchTip(remote)
        let localTip = try git.referenceTarget(StateLayout.stateRef)
        guard localTip != remoteTip else { return remoteTip }
        if let localTip, try remoteTip.map({ try !git.isDescendant($0, of: localTip) }) ?? true {
            let unpushed = try commits(from: remoteTip.flatMap { try? git.mergeBase(localTip, $0) }, to: localTip).count
            throw RemoteRefusal.unpushed(count: unpushed, remote: remote)
        }
        // Behind the remote: catch up first (another process of this clone may do the same).
        _ = try git.compareAndSwap(
            StateLayout.stateRef, to: remoteTip!, expected: localTip, message: "rollout: fast-forward to \(remote)")
        return remoteTip
    }

    /// Before acting on the shared state without changing it (guard's checks, publish): fetch,
    /// and fast-forward when this repository is only behind. Offline, or without a remote, nothing.
    public func catchUp() throws {
        guard !offline, !dryRun, let remote = try syncRemote(), let remoteTip = try fetchTip(remote) else { return }
        let localTip = try git.referenceTarget(StateLayout.stateRef)
        if let localTip, try localTip == remoteTip || !git.isDescendant(remoteTip, of: localTip) { return }
        _ = try git.compareAndSwap(
            StateLayout.stateRef, to: remoteTip, expected: localTip, message: "rollout: fast-forward to \(remote)")
    }

    public struct SyncOutcome: Sendable {
        public let remote: String
        /// Changes the remote had that this repository did not.
        public let pulled: Int
        /// Changes this repository had that the remote did not, now pushed.
        public let pushed: Int
        /// Of those, how many were replayed on top of the remote's newer changes.
        public let replayed: Int
    }

    /// `rollout sync`: brings this repository up to date with its remote and pushes what was done
    /// offline. Offline changes made while the remote moved on are replayed on its tip, commit by
    /// commit, when no file they touch was changed on the remote too; otherwise nothing is done
    /// and the conflict is named.
    public func sync() throws -> SyncOutcome {
        guard let remote = try syncRemote() else {
            throw .noRemoteToSync
        }
        let started = Date()
        for attempt in 1...PackRepository.maximumRemoteAttempts {
            if attempt > 1 {
                if Date().timeIntervalSince(started) > PackRepository.remoteRetryBudget { break }
                usleep(UInt32.random(in: 0...80_000))
            }
            if let outcome = try syncOnce(with: remote) { return outcome }
        }
        throw .outpacedBy(remote)
    }

    /// One attempt of `sync`: nil when another writer moved a ref first and it starts again.
    func syncOnce(with remote: String) throws -> SyncOutcome? {
        let remoteTip = try fetchTip(remote)
        let localTip = try git.referenceTarget(StateLayout.stateRef)
        if localTip == remoteTip { return SyncOutcome(remote: remote, pulled: 0, pushed: 0, replayed: 0) }
        guard let localTip else {
            guard
                try git.compareAndSwap(
                    StateLayout.stateRef, to: remoteTip!, expected: nil, message: "rollout: sync from \(remote)")
            else { return nil }
            return SyncOutcome(
                remote: remote, pulled: try commits(from: nil, to: remoteTip!).count, pushed: 0, replayed: 0)
        }
        if let remoteTip, try git.isDescendant(remoteTip, of: localTip) {
            let message = "rollout: sync from \(remote)"
            guard try git.compareAndSwap(StateLayout.stateRef, to: remoteTip, expected: localTip, message: message)
            else { return nil }
            return SyncOutcome(
                remote: remote, pulled: try commits(from: localTip, to: remoteTip).count, pushed: 0, replayed: 0)
        }
        if try remoteTip == nil || git.isDescendant(localTip, of: remoteTip!) {
            if try push(localTip, to: remote, expected: remoteTip) != nil { return nil }
            try? git.setReference(PackRepository.trackingRef(remote), to: localTip, message: "rollout: pushed")
            return SyncOutcome(
                remote: remote, pulled: 0, pushed: try commits(from: remoteTip, to: localTip).count, replayed: 0)
        }
        return try replaying(localTip, on: remoteTip!, of: remote)
    }

    /// Both moved on: the local commits are replayed on the remote's tip, if they touch nothing the
    /// remote changed, and pushed. Nil when another writer pushed first.
    func replaying(_ localTip: ObjectID, on remoteTip: ObjectID, of remote: String) throws -> SyncOutcome? {
        guard let base = try git.mergeBase(localTip, remoteTip) else { throw .noSharedHistory(remote) }
        let theirs = try commits(from: base, to: remoteTip)
        let (tip, replayed) = try replay(
            try commits(from: base, to: localTip), from: base, on: remoteTip,
            avoiding: try changedPaths(theirs, since: base), of: remote)
        if try push(tip, to: remote, expected: remoteTip) != nil { return nil }
        // The replaced commits stay reachable, so verify can tell a replay from a rewrite.
        try git.setReference(
            "refs/rollout/replayed/\(localTip.hex)", to: localTip, message: "rollout: sync replayed these on \(remote)")
        let message = "rollout: sync replayed \(replayed) change(s) on \(remote)"
        guard try git.compareAndSwap(StateLayout.stateRef, to: tip, expected: localTip, message: message) else {
            throw .changedDuringReplay(remote)
        }
        try? git.setReference(PackRepository.trackingRef(remote), to: tip, message: "rollout: pushed")
        return SyncOutcome(remote: remote, pulled: theirs.count, pushed: replayed, replayed: replayed)
    }

    /// Every path `commits` (from `base` on) changed, with the first of them that changed it.
    func changedPaths(_ commits: [GitCommit], since base: ObjectID) throws -> [String: GitCommit] {
        var changedThere: [String: GitCommit] = [:]
        var tree = try git.commit(base).tree
        for commit in commits {
            for change in try Verifier.diff(git, tree, commit.tree) where changedThere[change.path] == nil {
                changedThere[change.path] = commit
            }
            tree = commit.tree
        }
        return changedThere
    }

    /// `local` (the commits after `base`) made again on `remoteTip`, each with its message and
    /// author; refused at the first that touches a path in `changedThere`. The new tip, and how many
    /// were replayed.
    func replay(
        _ local: [GitCommit], from base: ObjectID, on remoteTip: ObjectID, avoiding changedThere: [String: GitCommit],
        of remote: String
    ) throws -> (tip: ObjectID, count: Int) {
        let signer = try commitSigner()
        var tip = remoteTip
        var tipTree = try git.commit(remoteTip).tree
        var parentTree = try git.commit(base).tree
        var replayed = 0
        for commit in local {
            let changes = try Verifier.diff(git, parentTree, commit.tree)
            parentTree = commit.tree
            // A publish record names the state it published as its parent: on another parent it
            // would claim a publish that never happened. It stays under refs/rollout/replayed/.
            if Change.trailers(of: commit.message).action == .publish { continue }
            replayed += 1
            if let clash = changes.first(where: { changedThere[$0.path] != nil }), let other = changedThere[clash.path]
            {
                throw RemoteRefusal.replayClash(
                    mine: commit.summaryLine, commit: commit.id.short, path: clash.path, remote: remote,
                    their: other.summaryLine, other: other.id.short)
            }
            tipTree = try git.updatedTree(
                base: tipTree,
                upserts: changes.compactMap { change in change.new.map { (path: change.path, blob: $0) } },
                removals: changes.filter { $0.new == nil }.map(\.path))
            // A new commit: signed again, by whoever replays it, as git rebase -S signs; an approval
            // keeps its proposal as second parent.
            tip = try commitObject(
                tree: tipTree, parents: [tip] + commit.parents.dropFirst(), message: commit.message,
                author: commit.author, signer: signer)
        }
        return (tip, replayed)
    }

    /// `rollout sync --discard-local`: the remote's state wins; the local-only commits are kept
    /// under refs/rollout/discarded/ for the record.
    public func discardLocal() throws -> Int {
        guard let remote = try syncRemote() else {
            throw RolloutError.usage("this repository has no remote to sync with")
        }
        guard let remoteTip = try fetchTip(remote) else { throw .nothingToTake(from: remote) }
        let localTip = try git.referenceTarget(StateLayout.stateRef)
        guard let localTip, localTip != remoteTip else { return 0 }
        let base = try git.mergeBase(localTip, remoteTip)
        let dropped = try commits(from: base, to: localTip).count
        // The reflog records the command that moved the refs, as git's own commands do.
        // Flag: a reflog message names the command that wrote it, not a step to take
        let reflog = "rollout: sync --discard-local"
        try git.setReference("refs/rollout/discarded/\(localTip.hex)", to: localTip, message: reflog)
        guard
            try git.compareAndSwap(
                StateLayout.stateRef, to: remoteTip, expected: localTip,
                message: "\(reflog) from \(remote)")
        else {
            throw RolloutError.conflict("this repository changed while rollout sync ran: run it again")
        }
        return dropped
    }

    /// `rollout clone URL DIR`: a new bare repository holding the remote's state, with the remote
    /// as `origin`.
    public static func clone(url: String, into path: String, configure: (PackRepository) -> Void = { _ in }) throws
        -> PackRepository
    {
        if let contents = try? FileManager.default.contentsOfDirectory(atPath: path), !contents.isEmpty {
            throw .cloneIntoNonEmpty(path)
        }
        // Before anything is made: a clone has no repository yet whose remotes a person could list.
        if PackRepository.isLocalPath(url) {
            let local = url.hasPrefix("file://") ? String(url.dropFirst(7)) : url
            guard FileManager.default.fileExists(atPath: local) else {
                throw RolloutError.missing(
                    "\(local) does not exist: rollout clone takes the URL or the path of a shared rollout repository")
            }
        }
        let undo = PackRepository.undoer(path)
        do {
            let git = try PackRepository.createBare(path)
            let repository = try PackRepository.open(path)
            configure(repository)
            _ = try repository.addRemote("origin", url: url)
            let shown = RemoteURL.redacted(url)
            guard let tip = try repository.fetchTip("origin") else {
                throw .noStateToClone(shown)
            }
            let snapshot = try Snapshot(repository: git, commit: tip)
            guard try snapshot.file(StateLayout.policy) != nil else {
                throw .cloningNotARolloutRepository(shown)
            }
            guard
                try git.compareAndSwap(
                    StateLayout.stateRef, to: tip, expected: nil, message: "rollout: clone from \(shown)")
            else {
                throw RolloutError.conflict("\(path) changed while rollout clone ran")
            }
            return repository
        } catch {
            undo()
            throw error
        }
    }
}

/// The refusals of sync, named (an extension of Error, so that `throw .name(...)` finds them).
extension Error where Self == RolloutError {
    fileprivate static func missingLocalRemote(_ remote: String, path: String) -> RolloutError {
        .missing("remote \(remote) is \(path), which does not exist; check it with rollout remote list")
    }

    fileprivate static var noRemoteToSync: RolloutError {
        .usage("this repository has no remote to sync with: add one with rollout remote add origin URL")
    }

    fileprivate static func outpacedBy(_ remote: String) -> RolloutError {
        .conflict("other writers kept pushing to \(remote) first; nothing was changed: try rollout sync again")
    }

    fileprivate static func changedDuringReplay(_ remote: String) -> RolloutError {
        .conflict(
            "this repository changed while rollout sync ran; the replayed changes are on \(remote): run rollout sync again"
        )
    }

    fileprivate static func nothingToTake(from remote: String) -> RolloutError {
        .conflict("\(remote) has no state yet; there is nothing to take from it")
    }

    fileprivate static func cloneIntoNonEmpty(_ path: String) -> RolloutError {
        .usage("\(path) already exists and is not empty; rollout clone needs a new or empty directory")
    }

    fileprivate static func noStateToClone(_ shown: String) -> RolloutError {
        .missing(
            "\(shown) has no \(StateLayout.stateRef): not a rollout repository, or an empty one (start one with rollout init, rollout remote add origin URL, rollout sync)"
        )
    }

    fileprivate static func cloningNotARolloutRepository(_ shown: String) -> RolloutError {
        .badInput(
            "\(shown) is a git repository but not a rollout repository (no \(StateLayout.policy) in \(StateLayout.stateBranch))"
        )
    }

    fileprivate static func noSharedHistory(_ remote: String) -> RolloutError {
        .diverged(
            "this repository and \(remote) share no history: they are different rollout repositories. Nothing was changed"
        )
    }

    /// A push whose connection failed after it reached the server, every time: the branch did not
    /// hold it when last read, but the server may still be applying it (a slow pre-receive hook).
    /// Exit 76, not 75: retried as is, the command would act again on top of a change that landed;
    /// `rollout sync` first says which (docs/teams.md, "When the remote fails").
    fileprivate static func pushMayStillLand(
        _ remote: String, shownURL: String, commit: ObjectID, _ failure: GitTransport.Failure
    ) -> RolloutError {
        .diverged(
            "cannot push to \(remote) (\(shownURL)): the connection failed \(PackRepository.transientAttempts) times after the change (commit \(commit.short)) reached the server, which may still be applying it: it may have landed. git said: \(failure.lines.joined(separator: "; ")). Run rollout sync in a minute: it brings the change here if it landed (then it is done, and rollout log shows it), and changes nothing if it did not (then run the command again)"
        )
    }

    /// A push whose connection failed, to a remote that could not be asked afterwards whether it landed.
    fileprivate static func pushOutcomeUnknown(
        _ remote: String, shownURL: String, _ failure: GitTransport.Failure
    ) -> RolloutError {
        .diverged(
            "cannot push to \(remote) (\(shownURL)): the connection failed, and whether the push landed cannot be told now: \(failure.lines.joined(separator: "; ")). Run rollout sync when \(remote) answers: it brings the change here if it landed (then it is done), and changes nothing if it did not (then run the command again)"
        )
    }

    fileprivate static func pushRefusedTooOften(_ remote: String, refusals: [String], since started: Date)
        -> RolloutError
    {
        .conflict(
            "other writers kept pushing to \(remote) first: \(refusals.count) attempts in \(Int(Date().timeIntervalSince(started))) s were refused (last: \(refusals.last ?? "?")). Nothing was changed: try again"
        )
    }

}

extension GitCommit {
    /// The first line of its message, or its short id when it has none.
    var summaryLine: String { message.split(separator: "\n").first.map(String.init) ?? id.short }
}

/// What fetching, pushing and syncing refuse where the way out is a command of rollout's (worded by
/// the command line): the remote, and what git said.
public enum RemoteRefusal: Refusal {
    /// The connection failed every attempt; `gitSaid` is git's output, credentials redacted.
    case unreachable(doing: String, remote: String, url: String, attempts: Int, gitSaid: [String])
    /// This repository holds changes the remote does not have.
    case unpushed(count: Int, remote: String)
    /// A change made offline (`mine`, commit `commit`) touches `path`, which the remote changed too
    /// (`their`, commit `other`).
    case replayClash(mine: String, commit: String, path: String, remote: String, their: String, other: String)

    public var kind: RolloutError.Kind {
        if case .unreachable = self { return .unreachable }
        return .diverged
    }
}
