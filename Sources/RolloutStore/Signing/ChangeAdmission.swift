import RolloutModel

/// The admission check (issue 35, the two-person rule): whether a change may join main, asked by
/// `rollout verify`, the server hook (through `signatureAudits`) and by `apply` before a ref moves.
/// Besides the signature rules, a change the policy in force before it (`signing.approval`, read
/// by `ApprovalRules`) says needs a second signer must be an approved proposal: a merge of main's
/// tip and the proposal, carrying `Rollout-Proposal` and `Rollout-Approver`, signed by an approver
/// who is not the proposer, whose second parent is the proposal signed by the claimed actor.
extension SignatureAuditor {
    /// `needsApproval` when the policy before `commit` asks for an approver for what it does.
    /// Only where signers exist: without them nobody could approve.
    mutating func approvalProblems(_ commit: GitCommit, _ trailers: [(name: String, value: String)], signers: SignerSet)
        throws -> [SignatureProblem]
    {
        guard !signers.isEmpty, let action = trailers.action, let parent = commit.parents.first else { return [] }
        let policy = try policy(at: parent)
        let approval = policy.signing.approval
        guard !approval.isOff else { return [] }
        var facts = ApprovalFacts(
            highestShare: Self.highestShare(trailers),
            appliesSchedule: trailers.value(.schedule) != nil && (action == .promote || action == .complete))
        let git = repository.git
        facts.protectedKeys = {
            try Self.protectedKeys(git, from: parent, to: commit.id, policy: policy)
        }
        guard let rule = try ApprovalRules.rule(for: action, facts, approval: approval) else { return [] }
        return [.needsApproval(action: action.rawValue, rule)]
    }

    /// The audit of an approved proposal `merge` (parents: main's tip, the proposal P): P's own
    /// signature rules, signing required (P's signer is the claimed actor and may make the change);
    /// the merge signed by the `Rollout-Approver` it names, an approver, not P's signer.
    mutating func approvalAudit(
        _ merge: GitCommit, _ trailers: [(name: String, value: String)], actor: String, signers: SignerSet
    ) throws -> ChangeAudit {
        let proposal = try repository.git.commit(merge.parents[1])
        let proposalTrailers = Change.trailers(of: proposal.message)
        let proposalSigners = try signersInForce(proposal, proposalTrailers)
        let (proposalCheck, proposalProblems) = try signatureProblems(
            proposal, proposalTrailers, actor: actor, signers: proposalSigners, requireSigned: true)
        var problems = proposalProblems.map { SignatureProblem.badProposal(commit: proposal.id.short, $0) }
        let approverClaim = trailers.value(.approver) ?? ""
        let check = try signatureCheck(merge, signers: signers, preferring: Self.email(of: approverClaim))
        var audit = ChangeAudit(
            commit: merge.id, action: trailers.value(.action) ?? "unknown", actor: actor, signature: check,
            problems: [])
        if case .verified(let proposer, _) = proposalCheck { audit.proposer = proposer }
        switch check {
        case .unsigned: problems.append(.unsigned)
        case .unknownKey(let key): problems.append(.unknownKey(key))
        case .bad(let why): problems.append(.bad(why))
        case .verified(let principal, _):
            audit.approver = principal
            let roles = signers.roster.roles(of: principal)
            if !roles.contains(.approver) { problems.append(.approverNotAllowed(principal: principal, roles: roles)) }
            if Self.email(of: approverClaim)?.lowercased() != principal.lowercased() {
                problems.append(.actorMismatch(claimed: approverClaim, principal: principal))
            }
            if audit.proposer?.lowercased() == principal.lowercased() {
                problems.append(.selfApproval(principal: principal))
            }
        }
        return ChangeAudit(
            commit: audit.commit, action: audit.action, actor: actor, signature: check, problems: problems,
            approver: audit.approver, proposer: audit.proposer)
    }

    /// The policy of the state at `commit`, read once per `policy.json` blob.
    mutating func policy(at commit: ObjectID) throws -> Policy {
        let git = repository.git
        guard let blob = try git.treeEntry(git.commit(commit).tree, path: StateLayout.policy)?.id else {
            return try Snapshot(repository: git, commit: commit).policy()
        }
        if let policy = policies[blob] { return policy }
        let policy = try Snapshot(repository: git, commit: commit).policy()
        policies[blob] = policy
        return policy
    }

    /// The highest share a change gives: its `Rollout-Percent`, or its ramp's last step.
    static func highestShare(_ trailers: [(name: String, value: String)]) -> Percent? {
        var shares = trailers.value(.percent).flatMap { try? Percent.parse($0) }.map { [$0] } ?? []
        if let ramp = trailers.value(.ramp), let steps = ramp.split(separator: " ").first {
            shares += steps.split(separator: ",").compactMap { try? Percent.parse(String($0)) }
        }
        return shares.max()
    }

    /// The protected keys (`policy.protectedKeys`) each pack `to` adds over `from` adds, changes or
    /// removes against its locale's previous version at `from`.
    static func protectedKeys(_ git: GitRepository, from: ObjectID, to: ObjectID, policy: Policy) throws -> [String] {
        let before = try Snapshot(repository: git, commit: from)
        let after = try Snapshot(repository: git, commit: to)
        let added = try Verifier.diff(git, git.commit(from).tree, git.commit(to).tree).compactMap { change in
            change.old == nil
                ? StateLayout.storedPackFile(atPath: change.path).flatMap { $0.isRecord ? nil : $0.id } : nil
        }
        var keys: Set<String> = []
        for id in added {
            guard let pack = try after.pack(id) else { continue }
            let previous = try before.contentVersions(of: id.locale).filter { $0 < id.contentVersion }.max()
            let old = try previous.flatMap { try before.pack(PackID(locale: id.locale, contentVersion: $0)) }
            let oldStrings = old?.strings ?? [:]
            for key in Set(pack.strings.keys).union(oldStrings.keys) where pack.strings[key] != oldStrings[key] {
                if policy.isProtected(key) != nil { keys.insert(key) }
            }
        }
        return keys.sorted()
    }
}

/// A change the admission check refused before any ref moved, as data (worded by the command line,
/// which names `--propose`).
public enum AdmissionRefusal: Refusal {
    /// The policy needs a second signer for this change (`rule`), and it was not proposed.
    case needsApproval(action: String, ApprovalRule)
    /// The change's signature or approval is not acceptable (`problems`, never empty).
    case refused(action: String, [SignatureProblem])

    /// Who may make which change: refused as the server's hook would refuse the push (77).
    public var kind: RolloutError.Kind { .permission }
}

extension PackRepository {
    /// The admission check on `commit`, written but not yet on any ref: when the state before it has
    /// signers and its policy requires signing or approval (or `commit` is an approval), its
    /// problems refuse it and nothing moves. `proposing`: a change that only needs approval is what
    /// a proposal is, and passes.
    func admit(_ commit: ObjectID, proposing: Bool = false) throws {
        let written = try git.commit(commit)
        guard let parent = written.parents.first, try hasSigners(at: parent) else { return }
        let signing = try Snapshot(repository: git, commit: parent).policy().signing
        guard signing.requireSigned || !signing.approval.isOff || written.parents.count > 1 else { return }
        let audit = try signatureAudit(of: commit, requireSigned: signing.requireSigned)
        var problems = audit.problems
        if proposing { problems.removeAll { if case .needsApproval = $0 { true } else { false } } }
        guard let first = problems.first else { return }
        if problems.count == 1, case .needsApproval(let action, let rule) = first {
            throw AdmissionRefusal.needsApproval(action: action, rule)
        }
        throw AdmissionRefusal.refused(action: audit.action, problems)
    }
}
