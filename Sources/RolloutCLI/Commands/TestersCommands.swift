import RolloutModel
import RolloutStore

/// `rollout testers add`, `remove` and `list`: named groups of install ids that `promote --to
/// testers:GROUP` gives a candidate to before any share (docs/targeting.md, "Testers first"). The
/// changes are `TesterOperations`; the ids stay in the repository, and plans carry salted hashes.
enum TestersCommands {
    struct ChangeOptions: OptionGroup {
        let installID = Option<String>("install-id", "ID", "an install id, as the device keeps it", repeatable: true)
        let file = Option<Path>(
            "file", "FILE", "install ids, one a line (blank lines and lines starting with # are skipped)")
        let reason = Option.reason("why (recorded in the commit)")
        let dryRun = Flag("dry-run", "print what would change and write nothing")

        static let declared = ChangeOptions()
    }

    static func change(_ adding: Bool) -> CommandSpec {
        CommandSpec(
            path: ["testers", adding ? "add" : "remove"],
            summary: adding
                ? "add install ids to a tester group (made if new) that promote --to testers:GROUP targets"
                : "take install ids out of a tester group",
            discussion: """
                Ids come from --install-id (repeatable) and --file FILE, one id a line. An install id is 1 to \
                256 bytes with no space and no control character; a line that is not one refuses the whole \
                file (exit 65), naming the file and the line. The change is one commit, which also gives the \
                new members to every locale whose candidate is staged to the group. The repository keeps the \
                ids; plans and the published site carry only their salted SHA-256 hashes.
                """,
            options: ChangeOptions.self, arguments: .exactly("GROUP"),
            effects: [.readsFiles, .recordsChange],
            run: { invocation, context in
                let group = invocation.positionals[0]
                let ids = try installIDs(invocation, context: context)
                let repository = try context.repository(invocation)
                let now = try context.now()
                let dryRun = invocation.flag(ChangeOptions.declared.dryRun)
                repository.dryRun = dryRun
                let actor = try context.actor(invocation, repository: repository)
                let reason = invocation.value(ChangeOptions.declared.reason)
                let applied =
                    adding
                    ? try TesterOperations.add(
                        ids, to: group, in: repository, reason: reason, actor: actor, time: { now })
                    : try TesterOperations.remove(
                        ids, from: group, in: repository, reason: reason, actor: actor, time: { now })
                return render(applied, adding: adding, dryRun: dryRun, actor: actor, style: context.style(invocation))
            })
    }

    /// The ids of `--install-id` and `--file`, each checked; at least one.
    static func installIDs(_ invocation: Invocation, context: CommandContext) throws -> [String] {
        let options = ChangeOptions.declared
        var ids: [String] = []
        for id in invocation.texts(options.installID) {
            if let problem = TesterGroup.problem(installID: id) {
                throw TesterRefusal.badID(problem, text: id, file: nil, line: nil)
            }
            ids.append(id)
        }
        if let file = try invocation.value(options.file) {
            let bytes = try context.readFile(file.text, describedAs: "install id file")
            ids += try TesterGroup.ids(inFile: String(decoding: bytes, as: UTF8.self), named: file.text)
        }
        guard !ids.isEmpty else {
            throw RolloutError.usage("rollout \(invocation.command.name) needs --install-id ID or --file FILE")
        }
        return ids
    }

    static func render(
        _ applied: PackRepository.Applied<TesterChange>, adding: Bool, dryRun: Bool, actor: Actor, style: Style
    ) -> CommandOutput {
        let change = applied.result
        let name = change.group.name
        let verb = adding ? "added" : "removed"
        var text: String
        if change.changed.isEmpty {
            text =
                adding
                ? "Every id is a member of \(name) already: nothing to do.\n"
                : "No id is a member of \(name): nothing to do.\n"
        } else {
            text =
                (dryRun ? "Dry run: would have \(verb)" : style.green(verb)) + " \(change.changed.count) install id(s)"
                + (adding ? " to" : " from") + " tester group \(name)"
                + (applied.commit.map { " (commit \($0.short))" } ?? "")
                + "; it has \(change.group.installIDs.count).\n"
            if !change.locales.isEmpty {
                text += "  devices follow in: \(change.locales.joined(separator: ", "))\n"
            }
        }
        // A dry run shows the commit it stopped before, as every dry run does.
        if dryRun { text += DryRun.text(applied.change, actor: actor) + DryRun.nothingWritten }
        var json: [String: JSONValue] = [
            "group": .string(name), "dryRun": .bool(dryRun),
            "commit": applied.commit.map { .string($0.hex) } ?? .null,
            "members": .integer(change.group.installIDs.count),
            "locales": .array(change.locales.map { .string($0) }),
        ]
        json[verb] = .array(change.changed.map { .string($0) })
        if dryRun { json["wouldRecord"] = DryRun.json(applied.change, actor: actor) }
        return CommandOutput(json: .object(json), text: text)
    }

    static let list = CommandSpec(
        path: ["testers", "list"],
        summary: "the tester groups and how many ids each has, or one group's install ids",
        discussion: "", options: NoOptions.self, arguments: .optional("GROUP"),
        effects: .readsRepository,
        run: { invocation, context in
            let snapshot = try context.repository(invocation).snapshot()
            if let name = invocation.positionals.first {
                guard let group = try snapshot.testerGroup(name) else {
                    throw TesterRefusal.noSuchGroup(name, groups: try snapshot.testerGroupNames())
                }
                return CommandOutput(
                    json: group.jsonValue,
                    text: group.installIDs.isEmpty
                        ? "\(name) has no install ids.\n" : group.installIDs.map { "\($0)\n" }.joined())
            }
            var table = Table("GROUP", "INSTALL IDS", "STAGED IN")
            var groups: [JSONValue] = []
            let plans = try snapshot.plannedLocales().compactMap { try snapshot.plan($0) }
            for name in try snapshot.testerGroupNames() {
                guard let group = try snapshot.testerGroup(name) else { continue }
                let staged = plans.compactMap { plan in
                    plan.testers.first { $0.group == name }.map { "\(plan.locale)@\($0.pack.contentVersion)" }
                }
                table.add(name, "\(group.installIDs.count)", staged.isEmpty ? "-" : staged.joined(separator: ", "))
                groups.append([
                    "group": .string(name), "members": .integer(group.installIDs.count),
                    "staged": .array(staged.map { .string($0) }),
                ])
            }
            let text =
                groups.isEmpty
                ? "No tester groups. Make one with rollout testers add GROUP --install-id ID.\n"
                : table.render(context.style(invocation))
            return CommandOutput(json: ["groups": .array(groups)], text: text)
        })
}
