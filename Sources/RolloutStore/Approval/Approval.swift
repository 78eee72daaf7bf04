import RolloutModel

/// What `rollout approve` applied: the proposal and what it does.
public struct ApprovedProposal: Sendable {
    public let id: String
    public let proposal: ObjectID
    public let summary: String
    /// The proposer's verified principal.
    public let proposer: String
}

extension PackRepository {
    /// Applies the open proposal `id` on main's tip as `approver` (`rollout approve`): refused when
    /// its signature is not acceptable, when main changed a file it changes since it was proposed
    /// (stale: propose again), or when a promote's health gate refuses it now (`health` judges the
    /// proposed plan on the state at approval, as promote's gate does). The applied commit is a
    /// merge of main's tip and the proposal, with its message and trailers plus `Rollout-Proposal`
    /// and `Rollout-Approver`; the admission check then holds the approver's signature, role and
    /// difference from the proposer. The proposal's ref goes (here and on the remote).
    public func approve(
        _ id: String, approver: Actor, reason: String? = nil, time: @escaping () -> Timestamp,
        health: @escaping (Snapshot, Plan) throws -> Health.Report?
    ) throws -> Applied<ApprovedProposal> {
        // Caught up first: the gate judges the state the approval lands on, metrics included.
        _ = try snapshotForChange()
        let ref = PackRepository.proposalsPrefix + id
        guard let target = try git.referenceTarget(ref) else {
            let open = try git.references(prefix: PackRepository.proposalsPrefix).map {
                String($0.name.dropFirst(PackRepository.proposalsPrefix.count))
            }
            throw ProposalRefusal.noSuchProposal(id, open: open)
        }
        let proposal = try git.commit(target)
        var auditor = signatureAuditor()
        let audit = try auditor.audit(proposal, requireSigned: true)
        auditor.close()
        let problems = audit.problems.filter { if case .needsApproval = $0 { false } else { true } }
        guard problems.isEmpty, case .verified(let proposer, _) = audit.signature else {
            throw ProposalRefusal.badProposal(id: id, problems.isEmpty ? [.unsigned] : problems)
        }
        let approved = ApprovedProposal(id: id, proposal: target, summary: proposal.summaryLine, proposer: proposer)
        let applied = try apply(actor: approver, time: time) { snapshot in
            (
                try approvalChange(proposal, id: id, approver: approver, reason: reason, on: snapshot, health: health),
                approved
            )
        }
        if applied.commit != nil && !dryRun { try withdrawProposal(id) }
        return applied
    }

    /// The change that applies `proposal` on `snapshot` (main's tip): its changed paths taken from
    /// it, after the stale check and, for a promote, the health gate on this state.
    func approvalChange(
        _ proposal: GitCommit, id: String, approver: Actor, reason: String?, on snapshot: Snapshot,
        health: (Snapshot, Plan) throws -> Health.Report?
    ) throws -> Change {
        guard let tip = snapshot.commit, let base = proposal.parents.first else {
            throw ProposalRefusal.badProposal(id: id, [.unsigned])
        }
        let stale = try stalePaths(proposal, tip: tip)
        if !stale.isEmpty { throw ProposalRefusal.stale(id: id, paths: stale) }
        let trailers = Change.trailers(of: proposal.message)
        if let locale = trailers.value(.locale), let action = trailers.value(.action),
            let pack = trailers.value(.pack).flatMap({ try? PackID.parse($0) }),
            let kind = PromoteEffect(rawValue: action),
            action == ChangeAction.promote.rawValue
                || action == ChangeAction.complete.rawValue,
            let after = try Snapshot(repository: git, commit: proposal.id).plan(locale)
        {
            let before = try snapshot.plan(locale) ?? Plan(locale: locale)
            let override = try PromoteGate.override(
                force: trailers.value(.forced) != nil, reason: trailers.value(.reason))
            let accepting = trailers.values(.acceptedInsufficient).compactMap(SegmentPattern.init)
            // The promote's own gate and refusal (`GateRefusal`), on the state at approval.
            _ = try PromoteGate.decide(
                before: before, after: after, kind: kind, override: override, accepting: accepting
            ) { try health(snapshot, $0) }.trailers(pack: pack)
        }
        let changes = try Verifier.diff(git, git.commit(base).tree, proposal.tree)
        var change = Change(
            summary: proposal.summaryLine,
            blobs: changes.compactMap { change in change.new.map { (path: change.path, blob: $0) } },
            removals: changes.filter { $0.new == nil }.map(\.path))
        var approval = [
            "Rollout-\(Trailer.proposal.rawValue): \(proposal.id.hex)",
            "Rollout-\(Trailer.approver.rawValue): \(Change.oneLine(approver.description))",
        ]
        if let reason { approval.append("Rollout-\(Trailer.approverReason.rawValue): \(Change.oneLine(reason))") }
        // Before `Rollout-Actor`, which stays the proposer's and, as in every message, last.
        var lines = proposal.message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last == "" { lines.removeLast() }
        let actorLine = lines.lastIndex { $0.hasPrefix("Rollout-\(Trailer.actor.rawValue):") } ?? lines.count
        lines.insert(contentsOf: approval, at: actorLine)
        change.approving = (proposal.id, lines.joined(separator: "\n") + "\n")
        return change
    }

    /// Deletes the proposal `id` here and on the remote (a remote that already lost it is fine).
    func withdrawProposal(_ id: String) throws {
        let ref = PackRepository.proposalsPrefix + id
        try git.deleteReference(ref)
        guard !offline, let remote = try syncRemote() else { return }
        _ = try? transport.git(["push", "--porcelain", "--no-verify", remote, ":\(ref)"])
    }
}
