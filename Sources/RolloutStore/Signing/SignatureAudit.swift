import RolloutModel

/// Why a change's signature is not acceptable (docs/audit.md, "Who made each change: verified signers").
public enum SignatureProblem: Equatable, Sendable {
    /// Unsigned, where signing is required (`--require-signed`, or policy `signing.requireSigned`).
    case unsigned
    /// A good signature by a key no allowed signer held at that change (its fingerprint).
    case unknownKey(String)
    /// A signature that does not verify: the commit was changed after it was signed.
    case bad(String)
    /// The signer's roles at that change do not allow the action (`SignerRoles`).
    case roleNotAllowed(principal: String, roles: [SignerRole], action: String)
    /// The commit claims another actor (`Rollout-Actor`) than the principal who signed it: a forged actor.
    case actorMismatch(claimed: String, principal: String)
    /// The signers in force at the change cannot be read (a damaged allowed_signers line or roles.json):
    /// the change cannot be checked.
    case damagedSigners(SignerRefusal)
    /// The policy in force before the change says it needs a second signer (`ApprovalRules`), and
    /// it is not an approved proposal.
    case needsApproval(action: String, ApprovalRule)
    /// An approval signed by the principal who proposed the change.
    case selfApproval(principal: String)
    /// An approval signed by a principal whose roles at that change do not include approver.
    case approverNotAllowed(principal: String, roles: [SignerRole])
    /// The approved proposal's own signature is not acceptable (`commit`: the proposal's short id).
    indirect case badProposal(commit: String, SignatureProblem)
}

/// One change's signature against the signers in force at it, and what is wrong with it.
public struct ChangeAudit: Sendable {
    public let commit: ObjectID
    /// The `Rollout-Action` value as written ("unknown" when there is none).
    public let action: String
    /// The claimed actor: `Rollout-Actor`, else the commit's author.
    public let actor: String
    public let signature: SignatureCheck
    /// Empty when the change is acceptable.
    public let problems: [SignatureProblem]
    /// For an approved proposal (a merge with `Rollout-Proposal`): the verified approver, who signed
    /// the merge; the proposer is the verified signer of the proposal, `signature` is the merge's.
    public var approver: String? = nil
    /// For an approved proposal: the verified signer of the proposal.
    public var proposer: String? = nil
}

extension ChangeAudit {
    /// The signer as the log's SIGNER column and the report show it beside the claimed actor: the
    /// verified principal, `unsigned`, `not allowed (KEY)`, `bad signature`, `actor mismatch`, or
    /// the principal with `(role not allowed)`, or `signers damaged` when they could not be read.
    public var signerLabel: String {
        for problem in problems {
            if case .actorMismatch = problem { return "actor mismatch" }
            if case .damagedSigners = problem { return "signers damaged" }
            if case .needsApproval = problem { return "not approved" }
            if case .selfApproval = problem { return "self-approved" }
            if case .badProposal = problem { return "bad proposal" }
        }
        switch signature {
        case .unsigned: return "unsigned"
        case .verified(let principal, _):
            if let approver, problems.isEmpty { return "\(proposer ?? principal), approved by \(approver)" }
            return problems.isEmpty ? principal : "\(principal) (role not allowed)"
        case .unknownKey(let key): return "not allowed (\(key))"
        case .bad: return "bad signature"
        }
    }
}

extension PackRepository {
    /// The audit of change `commit`: its signature checked against the signers in force at it
    /// (those of its first parent; a change that first adds signers, against its own), then the
    /// rules: the signer's role allows the action (`SignerRoles`), and the signer is the actor the
    /// commit claims. An unsigned change is a problem only when `requireSigned`. Runs `ssh-keygen`
    /// and `gpgv` as `git verify-commit` does, so the verdict is git's.
    public func signatureAudit(of commit: ObjectID, requireSigned: Bool = false) throws -> ChangeAudit {
        var auditor = SignatureAuditor(repository: self)
        defer { auditor.verifier.close() }
        return try auditor.audit(try git.commit(commit), requireSigned: requireSigned)
    }

    /// The audits of the changes after `base` up to `tip` along first parents (`base..tip`; every
    /// change when `base` is nil), oldest first. Each signers tree's keyrings are built once.
    /// For the server hook (the pushed range) and `rollout verify` (`--since REF`: REF..main).
    public func signatureAudits(from base: ObjectID?, to tip: ObjectID, requireSigned: Bool) throws -> [ChangeAudit] {
        let stop = try base.flatMap { try git.mergeBase($0, tip) }
        var auditor = SignatureAuditor(repository: self)
        defer { auditor.verifier.close() }
        return try commits(from: stop, to: tip).map { try auditor.audit($0, requireSigned: requireSigned) }
    }

    /// An auditor for the rows a command shows one at a time (`rollout log`), sharing keyrings.
    public func signatureAuditor() -> SignatureAuditor { SignatureAuditor(repository: self) }

    /// Whether the state at `tip` has signers (`signers/` in its tree): then `rollout log` shows
    /// each change's signer without being asked.
    public func hasSigners(at tip: ObjectID) throws -> Bool {
        try git.treeEntry(git.commit(tip).tree, path: StateLayout.signersDirectory) != nil
    }

    /// Whether any change up to `tip` (first parents) had signers: then `rollout verify` checks
    /// signatures without being asked. Not the tip alone: `signers remove` never removes the last
    /// admin, but a change written with plain git could delete `signers/`, and verify must still
    /// find that change (unsigned, or not by an admin) rather than stop checking.
    public func hadSigners(through tip: ObjectID) throws -> Bool {
        var next: ObjectID? = tip
        while let id = next {
            let commit = try git.commit(id)
            if try git.treeEntry(commit.tree, path: StateLayout.signersDirectory) != nil { return true }
            next = commit.parents.first
        }
        return false
    }
}

/// Audits changes one by one, keeping the signers it read and the files it wrote for each set.
public struct SignatureAuditor {
    let repository: PackRepository
    let verifier: SignatureVerifier
    /// `signers` tree id -> the set.
    private var sets: [ObjectID: SignerSet] = [:]
    /// `policy.json` blob id -> the policy (the approval rules in force), read once each.
    var policies: [ObjectID: Policy] = [:]

    init(repository: PackRepository) {
        self.repository = repository
        self.verifier = SignatureVerifier(environment: repository.gitEnvironment)
    }

    /// Removes the temporary keyrings.
    public func close() { verifier.close() }

    /// The audit of the commit whose full or short id is `hex`.
    public mutating func audit(hex: String, requireSigned: Bool) throws -> ChangeAudit? {
        guard let id = try repository.git.revparse(hex) else { return nil }
        return try audit(try repository.git.commit(id), requireSigned: requireSigned)
    }

    mutating func audit(_ commit: GitCommit, requireSigned: Bool) throws -> ChangeAudit {
        let trailers = Change.trailers(of: commit.message)
        let actor = trailers.value(.actor) ?? "\(commit.author.name) <\(commit.author.email)>"
        let actionName = trailers.value(.action) ?? "unknown"
        let signers: SignerSet
        do {
            signers = try signersInForce(commit, trailers)
        } catch let refusal as SignerRefusal {
            return ChangeAudit(
                commit: commit.id, action: actionName, actor: actor, signature: .bad("its signers cannot be read"),
                problems: [.damagedSigners(refusal)])
        }
        if commit.parents.count == 2, trailers.value(.proposal) != nil {
            return try approvalAudit(commit, trailers, actor: actor, signers: signers)
        }
        let (check, problems) = try signatureProblems(
            commit, trailers, actor: actor, signers: signers, requireSigned: requireSigned)
        let approval = try approvalProblems(commit, trailers, signers: signers)
        return ChangeAudit(
            commit: commit.id, action: actionName, actor: actor, signature: check, problems: problems + approval)
    }

    /// The signers a change is checked against: its first parent's; the first signers change's own.
    mutating func signersInForce(_ commit: GitCommit, _ trailers: [(name: String, value: String)]) throws
        -> SignerSet
    {
        var signers = try commit.parents.first.map { try self.signers(at: $0) } ?? SignerSet()
        if signers.isEmpty && trailers.action == .signers { signers = try self.signers(at: commit.id) }
        return signers
    }

    /// The commit's signature against `signers`, and the signature rules: the signer's role allows
    /// the action, and the signer is the claimed actor.
    func signatureProblems(
        _ commit: GitCommit, _ trailers: [(name: String, value: String)], actor: String, signers: SignerSet,
        requireSigned: Bool
    ) throws -> (SignatureCheck, [SignatureProblem]) {
        let actionName = trailers.value(.action) ?? "unknown"
        let check = try signatureCheck(commit, signers: signers, preferring: Self.email(of: actor))
        var problems: [SignatureProblem] = []
        switch check {
        // Once signers exist, who may change trust (signers, policy, keys) is proved or refused,
        // whatever requireSigned says: else an unsigned change could remove the signers themselves.
        case .unsigned:
            let trustChange = trailers.action.map { SignerRoles.allowed($0) == [.admin] } ?? true
            if requireSigned || (trustChange && !signers.isEmpty) { problems.append(.unsigned) }
        case .unknownKey(let key): if requireSigned || !signers.isEmpty { problems.append(.unknownKey(key)) }
        case .bad(let why): problems.append(.bad(why))
        case .verified(let principal, _):
            let roles = signers.roster.roles(of: principal)
            let allowed = SignerRoles.may(roles, sign: trailers)
            if !allowed { problems.append(.roleNotAllowed(principal: principal, roles: roles, action: actionName)) }
            if Self.email(of: actor)?.lowercased() != principal.lowercased() {
                problems.append(.actorMismatch(claimed: actor, principal: principal))
            }
        }
        return (check, problems)
    }

    /// `commit`'s signature checked against `signers` (unsigned when it has none).
    func signatureCheck(_ commit: GitCommit, signers: SignerSet, preferring email: String?) throws -> SignatureCheck {
        guard let signed = try repository.git.signature(of: commit.id) else { return .unsigned }
        return try verifier.check(
            signature: signed.signature, signed: signed.signed, signers: signers, preferring: email)
    }

    /// The signers of the state at `commit`, read once per `signers` tree.
    mutating func signers(at commit: ObjectID) throws -> SignerSet {
        let git = repository.git
        guard let entry = try git.treeEntry(git.commit(commit).tree, path: StateLayout.signersDirectory), entry.isTree
        else { return SignerSet() }
        if let set = sets[entry.id] { return set }
        let set = try Snapshot(repository: git, commit: commit).signers()
        sets[entry.id] = set
        return set
    }

    /// The email of `Name <email>`, or the text when it is a bare address.
    static func email(of actor: String) -> String? {
        if let open = actor.lastIndex(of: "<"), let close = actor.lastIndex(of: ">"), open < close {
            return String(actor[actor.index(after: open)..<close])
        }
        return actor.contains("@") ? actor.trimmingSpaces : nil
    }
}

extension SignatureAuditor {
    /// The fingerprint of each primary key in an armored OpenPGP key file (upper-case hex), as
    /// `gpg --with-colons --import-options show-only --import` reads it: for `signers list`.
    public func openPGPFingerprints(_ armored: [UInt8]) throws -> [String] {
        let file = try verifier.write(armored, name: "list-\(armored.count).asc")
        let result = try verifier.run([
            "gpg", "--homedir", try verifier.scratch(), "--batch", "--with-colons", "--import-options", "show-only",
            "--import", file,
        ])
        var primaries: [String] = []
        var afterPrimary = false
        for line in result.stdout.split(separator: "\n") {
            if line.hasPrefix("pub:") { afterPrimary = true }
            if line.hasPrefix("sub:") { afterPrimary = false }
            if line.hasPrefix("fpr:") && afterPrimary {
                primaries += line.split(separator: ":", omittingEmptySubsequences: false).dropFirst(9).prefix(1).map {
                    $0.uppercased()
                }
                afterPrimary = false
            }
        }
        return primaries
    }
}
