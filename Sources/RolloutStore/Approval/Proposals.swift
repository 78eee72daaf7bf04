import Foundation
import RolloutModel

/// A change proposed instead of applied (`--propose`, docs/teams.md, "Two-person rule"): its signed
/// commit P, whose parent is main's tip, is on `refs/rollout/proposals/<id>` (pushed when there is
/// a remote) and main does not move. Thrown by `apply` once the proposal is stored: nothing the
/// command does after a change lands (its output, its notices) is about a change that happened.
public struct ProposalMade: Error {
    /// The first 8 hex digits of P: what `rollout approve` takes.
    public let id: String
    public let commit: ObjectID
    public let summary: String
    /// The remote it was pushed to; nil when it stays in this repository.
    public let remote: String?
}

/// An open proposal, as `rollout proposals` lists it.
public struct OpenProposal: Sendable {
    public let id: String
    public let commit: ObjectID
    public let summary: String
    public let action: String
    /// The claimed actor (`Rollout-Actor`).
    public let actor: String
    /// The verified signer of P; nil when its signature is not acceptable (`problems`).
    public let proposer: String?
    public let problems: [SignatureProblem]
    /// Main's tip when it was proposed (P's parent).
    public let base: ObjectID
    public let time: Timestamp
    /// The files main changed since `base` that the proposal changes too: not empty, it is stale.
    public let stalePaths: [String]
}

/// What the two-person rule refuses outside the admission check, as data.
public enum ProposalRefusal: Refusal {
    /// `--propose` on a change the operator's git config does not sign.
    case unsigned
    /// `--propose` on a change that would change nothing.
    case nothingToPropose
    /// No open proposal has this id (`open`: the ids there are).
    case noSuchProposal(String, open: [String])
    /// Main changed files the proposal changes since it was made.
    case stale(id: String, paths: [String])
    /// The proposal's own signature is not acceptable.
    case badProposal(id: String, [SignatureProblem])

    public var kind: RolloutError.Kind {
        switch self {
        case .unsigned: return .unavailable
        case .nothingToPropose: return .usage
        case .stale, .badProposal: return .checkFailed
        case .noSuchProposal: return .missing
        }
    }
}

extension PackRepository {
    static let proposalsPrefix = "refs/rollout/proposals/"

    /// The proposal path of `apply`: the change computed by `operation` on main's tip (every gate
    /// it has), signed, admitted as a proposal (every check but the approval it waits for), stored
    /// and pushed. Always throws: `ProposalMade` when it is stored.
    func propose<Result>(
        actor: Actor, time: () -> Timestamp, signer: CommitSigner?, _ operation: (Snapshot) throws -> (Change?, Result)
    ) throws -> Never {
        guard let signer else { throw ProposalRefusal.unsigned }
        let remote = offline ? nil : try syncRemote()
        if let remote { _ = try catchUpForChange(remote) }
        let snapshot = try Snapshot(repository: git, commit: try stateTip())
        guard let change = try operation(snapshot).0 else { throw ProposalRefusal.nothingToPropose }
        let commit = try write(change, on: snapshot, actor: actor, time: time(), signer: signer)
        try admit(commit, proposing: true)
        let id = String(commit.hex.prefix(8))
        let ref = PackRepository.proposalsPrefix + id
        try git.setReference(ref, to: commit, message: "rollout: propose \(change.summary)")
        if let remote {
            do {
                let secrets = try secrets(of: remote)
                if case .rejected(let failure) = try transport.push(
                    commit.hex, to: remote, ref: ref, expected: nil, secrets: secrets)
                {
                    throw remoteFailure(failure, "push to", remote, attempts: 1)
                }
            } catch {
                // Not on the remote: not a proposal anybody can approve, so not one here either.
                try? git.deleteReference(ref)
                if let failure = error as? GitTransport.Failure {
                    throw remoteFailure(failure, "push to", remote, attempts: 1)
                }
                throw error
            }
        }
        throw ProposalMade(id: id, commit: commit, summary: change.summary, remote: remote)
    }

    /// Brings the remote's proposals here: those approved or withdrawn there are dropped here.
    /// Offline, or without a remote, the local ones are the list.
    public func fetchProposals() throws {
        guard !offline, !dryRun, let remote = try syncRemote() else { return }
        let secrets = try secrets(of: remote)
        let run = try transport.git([
            "fetch", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--prune", "--refmap=", remote,
            "+\(PackRepository.proposalsPrefix)*:\(PackRepository.proposalsPrefix)*",
        ])
        if run.status != 0 {
            throw remoteFailure(
                GitTransport.Failure(GitTransport.messageLines(run.stderr), secrets: secrets), "fetch from", remote,
                attempts: 1)
        }
    }

    /// The open proposals, oldest first, each checked against the signers in force at its base and
    /// against main's tip (stale when main changed a file it changes). One main already holds (an
    /// approval made offline and synced later leaves the remote's ref behind) is not open.
    public func openProposals() throws -> [OpenProposal] {
        let tip = try stateTip()
        var auditor = signatureAuditor()
        defer { auditor.close() }
        let refs = try git.references(prefix: PackRepository.proposalsPrefix).filter {
            try !git.isDescendant(tip, of: $0.target)
        }
        return try refs.map { ref in
            let commit = try git.commit(ref.target)
            let audit = try auditor.audit(commit, requireSigned: true)
            var proposer: String? = nil
            if case .verified(let who, _) = audit.signature { proposer = who }
            let problems = audit.problems.filter { if case .needsApproval = $0 { false } else { true } }
            let base = commit.parents.first ?? commit.id
            return OpenProposal(
                id: String(ref.name.dropFirst(PackRepository.proposalsPrefix.count)), commit: commit.id,
                summary: commit.summaryLine, action: audit.action, actor: audit.actor,
                proposer: problems.isEmpty ? proposer : nil, problems: problems, base: base,
                time: Timestamp(seconds: commit.author.time), stalePaths: try stalePaths(commit, tip: tip))
        }.sorted { $0.time < $1.time }
    }

    /// The files `proposal` changes (base..P) that main also changed since its base (base..tip).
    func stalePaths(_ proposal: GitCommit, tip: ObjectID) throws -> [String] {
        guard let base = proposal.parents.first, base != tip else { return [] }
        let baseTree = try git.commit(base).tree
        let mine = Set(try Verifier.diff(git, baseTree, proposal.tree).map(\.path))
        return try Verifier.diff(git, baseTree, git.commit(tip).tree).map(\.path).filter { mine.contains($0) }.sorted()
    }
}
