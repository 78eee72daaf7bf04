import CGit2
import RolloutModel

/// `rollout hook pre-receive` (docs/teams.md, "Enforcing on the server"): what a git server checks
/// before it moves a ref, so that a push `rollout verify` would find wrong never lands, whoever
/// made it and with whatever tool. The state ref is never deleted and never rewritten, and every
/// commit a push adds to it passes `verify`'s per-commit checks (`Verifier.HistoryWalk`), its
/// checks of a stored pack and of a plan, for the packs the commit adds and the plans it changes,
/// and the signature audit (`signatureAudits`) against the signers in force at it. A proposal
/// (`refs/rollout/proposals/*`) is a signed change on main's history, by a signer who may make it.
public enum PushCheck {
    /// One line git writes to a pre-receive hook: `OLD NEW REF`. An all-zero id is a ref the push
    /// creates (old) or deletes (new): nil here.
    public struct RefUpdate: Equatable, Sendable {
        public let old: ObjectID?
        public let new: ObjectID?
        public let ref: String

        /// The update a line names, or nil for a line that is not `OLD NEW REF`.
        public init?(line: Substring) {
            let words = line.split(separator: " ", maxSplits: 2)
            guard words.count == 3, let old = Self.id(words[0]), let new = Self.id(words[1]) else { return nil }
            self.old = old
            self.new = new
            ref = String(words[2])
        }

        /// A 40-digit id (the inner nil: the all-zero id, no commit), or nil for another word.
        private static func id(_ word: Substring) -> ObjectID?? {
            if word.count == 40 && word.allSatisfy({ $0 == "0" }) { return .some(nil) }
            return ObjectID(hex: String(word)).map { .some($0) }
        }
    }

    /// Why an update is refused: data the command words.
    public enum Problem: Equatable, Sendable {
        /// Deleting the state ref, which holds every change and the audit log.
        case deletesStateRef
        /// A new tip that does not continue the old one along first parents: a force push, or a
        /// merge onto the state ref. Every clone and the audit log hold the old history.
        case rewritesHistory(old: ObjectID, new: ObjectID)
        /// A new tip that is not a commit (a tag or a tree), or that the push did not bring.
        case notACommit(ObjectID)
        /// A commit the push adds that fails `rollout verify`'s checks of one commit.
        case commit(Verifier.Problem)
        /// A commit whose signature the audit refuses (`ChangeAudit.problems`), as `rollout verify`
        /// with `--require-signed` would when signing is required.
        case signature(commit: ObjectID, SignatureProblem)
        /// A proposal whose commit does not start from a change of the state ref: approving it
        /// could not apply it to the history.
        case proposalOffHistory(commit: ObjectID)
    }

    /// A refused update: the ref and every problem found in it, in the order of its commits.
    public struct RefusedUpdate: Equatable, Sendable {
        public let ref: String
        public let problems: [Problem]
    }

    /// What the hook found: the refused updates (none: the push may land) and how many new commits
    /// of the state ref it checked.
    public struct Outcome: Equatable, Sendable {
        public var refused: [RefusedUpdate] = []
        public var checkedCommits = 0
    }

    /// What a pushed ref is held to, by its name: the one place that says it.
    enum RefRule {
        /// `refs/heads/main`: rollout's history.
        case state
        /// `refs/rollout/proposals/*`: a change proposed for a second signer's approval.
        case proposal
        /// Other `refs/rollout/*`: rollout's own refs beside the history, passed through.
        case rollout
        /// Anything else (other branches, tags): not rollout's, passed through.
        case other

        init(_ ref: String) {
            if ref == StateLayout.stateRef {
                self = .state
            } else if ref.hasPrefix(proposalPrefix) {
                self = .proposal
            } else if ref.hasPrefix("refs/rollout/") {
                self = .rollout
            } else {
                self = .other
            }
        }
    }

    /// Where proposals are pushed, one ref each.
    static let proposalPrefix = "refs/rollout/proposals/"

    /// Checks every update of one push; `repository` reads the pushed objects (`openPushed`).
    /// `requireSigned` (the hook's own flag) makes an unsigned change a problem whatever the
    /// policy says; the policy's `signing.requireSigned` at the server's tip or the pushed one does too.
    public static func check(_ repository: PackRepository, updates: [RefUpdate], requireSigned: Bool = false) throws
        -> Outcome
    {
        var outcome = Outcome()
        let mainUpdate = updates.first { RefRule($0.ref) == .state }
        for update in updates {
            let problems: [Problem]
            switch RefRule(update.ref) {
            case .state:
                let (found, checked) = try stateProblems(repository, update, requireSigned: requireSigned)
                problems = found
                outcome.checkedCommits += checked
            case .proposal: problems = try proposalProblems(repository, update, main: mainUpdate)
            case .rollout, .other: problems = []
            }
            if !problems.isEmpty { outcome.refused.append(RefusedUpdate(ref: update.ref, problems: problems)) }
        }
        return outcome
    }

    /// The state ref: not deleted, only fast-forwarded along first parents, and every new commit,
    /// oldest first, passes the checks `rollout verify` runs on each commit of the history. Returns
    /// the problems and how many new commits were checked.
    static func stateProblems(_ repository: PackRepository, _ update: RefUpdate, requireSigned: Bool) throws -> (
        [Problem], Int
    ) {
        guard let new = update.new else { return ([.deletesStateRef], 0) }
        let git = repository.git
        if try git.unreadableObject(new, GIT_OBJECT_COMMIT) != nil { return ([.notACommit(new)], 0) }
        if let old = update.old, old != new, !(try git.isDescendant(new, of: old)) {
            return ([.rewritesHistory(old: old, new: new)], 0)
        }
        // First parents from the new tip back to the old one (or to the first commit).
        var added: [GitCommit] = []
        var next: ObjectID? = new
        while let id = next, id != update.old {
            let commit = try git.commit(id)
            added.append(commit)
            next = commit.parents.first
        }
        if let old = update.old, next != old {
            // The old tip is in the new history, but off its first-parent line: a merge.
            return ([.rewritesHistory(old: old, new: new)], 0)
        }
        added.reverse()
        let base = try update.old.map { try git.commit($0) }
        var walk = try base.map { try Verifier.HistoryWalk(git: git, after: $0) } ?? Verifier.HistoryWalk(git: git)
        var problems: [Problem] = []
        for (index, commit) in added.enumerated() {
            problems += try walk.check(commit, isFirst: base == nil && index == 0).map(Problem.commit)
        }
        problems += try storedFileProblems(git, added, after: base)
        problems += try signatureProblems(
            repository, old: update.old, new: new, added: added.map(\.id), requireSigned: requireSigned)
        return (problems, added.count)
    }

    /// The files a new commit adds or changes that `rollout verify` checks only at its tip, checked
    /// at that commit: each pack it adds parses, holds the id its path says and matches its record;
    /// each plan it changes parses and names only packs stored then and not blocked. The checks of
    /// one commit accept a pack-add or a promote whatever the file holds, and verify would find it
    /// only after it landed.
    static func storedFileProblems(_ git: GitRepository, _ added: [GitCommit], after base: GitCommit?) throws
        -> [Problem]
    {
        var problems: [Problem] = []
        var previousTree = base?.tree
        for commit in added {
            let changes = try Verifier.diff(git, previousTree, commit.tree).filter { $0.new != nil }
            previousTree = commit.tree
            let packs = changes.compactMap { change -> StateLayout.StoredPackFile? in
                guard change.old == nil, let file = StateLayout.storedPackFile(atPath: change.path), !file.isRecord
                else { return nil }
                return file
            }
            let plans = Set(changes.compactMap { plannedLocale(atPath: $0.path) })
            let experiments = changes.contains { $0.path.hasPrefix(StateLayout.experimentsDirectory + "/") }
            guard !packs.isEmpty || !plans.isEmpty || experiments else { continue }
            let snapshot = try Snapshot(repository: git, commit: commit.id)
            let problem = { (path: String, message: String) in
                problems.append(.commit(Verifier.Problem(commit: commit.id.short, path: path, message: message)))
            }
            for file in packs {
                guard let bytes = try snapshot.file(file.path) else { continue }
                try Verifier.checkPack(
                    bytes, id: file.id, placement: file.placement, snapshot: snapshot, problem: problem)
            }
            var stored: [String: Set<Int>] = [:]
            for locale in plans { stored[locale] = Set(try snapshot.contentVersions(of: locale)) }
            _ = try Verifier.checkPlans(snapshot, stored: stored, only: plans, problem: problem)
            // A plan rewritten by a rollout that does not know experiments drops the running one.
            if experiments || !plans.isEmpty { try Verifier.checkExperiments(snapshot, problem: problem) }
        }
        return problems
    }

    /// The locale whose plan is at `path` (`plans/<locale>.json`), or nil.
    static func plannedLocale(atPath path: String) -> String? {
        let prefix = StateLayout.plansDirectory + "/"
        guard path.hasPrefix(prefix), path.hasSuffix(".json") else { return nil }
        let locale = path.dropFirst(prefix.count).dropLast(5)
        return locale.isEmpty || locale.contains("/") ? nil : String(locale)
    }

    /// Who signed the commits a push adds to the state ref (`added`, after `old` up to `new`),
    /// checked against the allowed signers and roles in force at each by the audit `rollout verify`
    /// runs (`signatureAudits`): the one place those checks join the hook. Nothing to check when
    /// neither the server's tip nor any added change has signers and signing is not required (by
    /// `requireSigned` or the policy at either tip): a push that deletes `signers/` is still checked.
    static func signatureProblems(
        _ repository: PackRepository, old: ObjectID?, new: ObjectID, added: [ObjectID], requireSigned: Bool
    ) throws -> [Problem] {
        let tips = [old, new].compactMap { $0 }
        let required = try requireSigned || tips.contains { try policyRequiresSigning(repository, at: $0) }
        let states = [old].compactMap { $0 } + added
        guard try required || states.contains(where: { try repository.hasSigners(at: $0) }) else { return [] }
        return try repository.signatureAudits(from: old, to: new, requireSigned: required).flatMap { audit in
            audit.problems.map { Problem.signature(commit: audit.commit, $0) }
        }
    }

    /// Whether the policy at `commit` sets `signing.requireSigned`. A policy that does not read is
    /// no reason to refuse a signature: the checks of the commit that wrote it say what is wrong.
    static func policyRequiresSigning(_ repository: PackRepository, at commit: ObjectID) throws -> Bool {
        let snapshot = try Snapshot(repository: repository.git, commit: commit)
        return (try? snapshot.policy().signing.requireSigned) ?? false
    }

    /// A proposal ref (`refs/rollout/proposals/*`): deleting it passes (approved or withdrawn); a
    /// new tip is one signed change whose first parent is a change of the state ref (the server's,
    /// or the one this push brings), that passes the checks of a change of the state ref, and whose
    /// audit against the signers in force there finds no problem: signed, by a key allowed then,
    /// whose roles may make that change, as the actor it claims.
    static func proposalProblems(_ repository: PackRepository, _ update: RefUpdate, main: RefUpdate?) throws
        -> [Problem]
    {
        guard let new = update.new else { return [] }
        let git = repository.git
        if try git.unreadableObject(new, GIT_OBJECT_COMMIT) != nil { return [.notACommit(new)] }
        let mainTips = [try git.referenceTarget(StateLayout.stateRef), main?.new].compactMap { $0 }
        guard let parent = try git.commit(new).parents.first,
            try mainTips.contains(where: { try $0 == parent || git.isDescendant($0, of: parent) })
        else { return [.proposalOffHistory(commit: new)] }
        // The checks a change of main passes, as approving it applies it there.
        let (base, commit) = (try git.commit(parent), try git.commit(new))
        var walk = try Verifier.HistoryWalk(git: git, after: base)
        var problems = try walk.check(commit, isFirst: false).map(Problem.commit)
        problems += try storedFileProblems(git, [commit], after: base)
        let audit = try repository.signatureAudit(of: new, requireSigned: true)
        return problems + audit.problems.filter(\.refusesAProposal).map { .signature(commit: new, $0) }
    }
}

extension SignatureProblem {
    /// Whether the problem refuses a proposal: every problem of who signed it. A proposal is the
    /// change that waits for its approver, so that it needs one is no reason to refuse it.
    var refusesAProposal: Bool {
        switch self {
        case .unsigned, .unknownKey, .bad, .roleNotAllowed, .actorMismatch, .damagedSigners, .selfApproval,
            .approverNotAllowed, .badProposal:
            return true
        case .needsApproval: return false
        }
    }
}
