import RolloutIngest
import RolloutModel
import RolloutStore

/// The two-person rule (docs/teams.md, "Two-person rule"): `--propose` on a change command stores
/// the change as a signed proposal; `rollout proposals` lists the open ones and `rollout approve ID`
/// applies one, signed by a second person (`PackRepository.approve`).
enum ApprovalCommands {
    /// `--propose`, declared once for every change command that can need an approver.
    struct ProposeOptions: OptionGroup {
        let propose = Flag(
            "propose", "store the change as a signed proposal for an approver (rollout approve ID); main does not move")

        static let declared = ProposeOptions()
    }

    struct ApproveOptions: OptionGroup {
        let reason = Option.reason("why you approve (recorded in the commit as Rollout-Approver-Reason)")
        let dryRun = Flag("dry-run", "check the proposal as approve would and write nothing")

        static let declared = ApproveOptions()
    }

    /// What a command run with `--propose` prints in place of its own output.
    static func proposed(_ made: ProposalMade, style: Style) -> CommandOutput {
        let pushed = made.remote.map { " and pushed to \($0)" } ?? ""
        let text =
            "Proposed \(made.summary) as \(style.bold(made.id)) (commit \(made.commit.short))\(pushed); main is unchanged. "
            + "Another person with the approver role applies it with rollout approve \(made.id).\n"
        return CommandOutput(
            json: [
                "proposal": .string(made.id), "commit": .string(made.commit.hex), "summary": .string(made.summary),
                "remote": made.remote.map { .string($0) } ?? .null,
            ], text: text)
    }

    static let proposals = CommandSpec(
        path: ["proposals"],
        summary: "list the open proposals: who proposed what, on which base, and whether main moved under them",
        discussion: """
            Fetches the remote's proposals first. Each shows its id (for rollout approve), the verified \
            signer who proposed it, what it does, the main commit it was made on, its age, and stale when \
            main changed a file it changes since: approve refuses a stale proposal, which is proposed again.
            """,
        options: NoOptions.self, arguments: .none,
        effects: [.readsRepository, .touchesRemote],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            try repository.catchUp()
            try repository.fetchProposals()
            let now = try context.now()
            var table = Table("ID", "PROPOSER", "CHANGE", "BASE", "AGE", "STATE")
            var items: [JSONValue] = []
            for open in try repository.openProposals() {
                let proposer = open.proposer ?? "unverified (\(open.actor))"
                let age = TimeSpan.describe(max(0, now.seconds - open.time.seconds))
                let state = open.stalePaths.isEmpty ? (open.problems.isEmpty ? "open" : "bad signature") : "stale"
                table.add(open.id, proposer, open.summary, open.base.short, age, state)
                items.append([
                    "id": .string(open.id), "commit": .string(open.commit.hex), "action": .string(open.action),
                    "summary": .string(open.summary), "actor": .string(open.actor),
                    "proposer": open.proposer.map { .string($0) } ?? .null, "base": .string(open.base.hex),
                    "ageSeconds": .integer(Int(max(0, now.seconds - open.time.seconds))),
                    "stale": .bool(!open.stalePaths.isEmpty),
                    "stalePaths": .array(open.stalePaths.map { .string($0) }),
                    "problems": .array(open.problems.map { .string(SignatureWords.problem($0)) }),
                ])
            }
            let text = items.isEmpty ? "No open proposals.\n" : table.render(context.style(invocation))
            return CommandOutput(json: ["proposals": .array(items)], text: text)
        })

    static let approve = CommandSpec(
        path: ["approve"],
        summary: "apply another person's proposal on main, signed by you as its approver",
        discussion: """
            Fetches first. The proposal must be signed by an allowed signer whose role may make the \
            change; you must hold the approver role and not be its proposer, and your change is signed \
            (commit.gpgSign or --sign). Refused (exit 1) when main changed a file the proposal changes \
            since it was made (stale: propose it again) or when a promote's health gate refuses it now. \
            The applied change is a merge of main's tip and the proposal, with its message, plus \
            Rollout-Proposal and Rollout-Approver; Rollout-Actor stays the proposer.
            """,
        options: ApproveOptions.self, arguments: .exactly("ID"),
        effects: [.recordsChange, .checks],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let dryRun = invocation.flag(ApproveOptions.declared.dryRun)
            try repository.fetchProposals()
            repository.dryRun = dryRun
            let now = try context.now()
            let actor = try context.actor(invocation, repository: repository)
            let applied = try repository.approve(
                invocation.positionals[0], approver: actor, reason: invocation.value(ApproveOptions.declared.reason),
                time: { now },
                health: { snapshot, plan in try HealthCheck.evaluate(plan, snapshot: snapshot, repository: repository) }
            )
            let approved = applied.result
            let style = context.style(invocation)
            var text =
                (dryRun ? "Dry run: would have approved" : style.green("approved"))
                + " \(approved.id), \(approved.summary), proposed by \(approved.proposer)"
                + (applied.commit.map { " (commit \($0.short))" } ?? "") + ".\n"
            if dryRun { text += DryRun.text(applied.change, actor: actor) + DryRun.nothingWritten }
            return CommandOutput(
                json: [
                    "proposal": .string(approved.id), "proposalCommit": .string(approved.proposal.hex),
                    "proposer": .string(approved.proposer), "summary": .string(approved.summary),
                    "dryRun": .bool(dryRun), "commit": applied.commit.map { .string($0.hex) } ?? .null,
                ], text: text)
        })
}
