import RolloutModel
import RolloutStore

enum PolicyCommands {
    struct SetOptions: OptionGroup {
        let reason = Option.reason("why the policy changes (recorded in the commit)")
        let dryRun = Flag(
            "dry-run", "print which fields would change and which served packs the new policy refuses; write nothing")

        let proposal = ApprovalCommands.ProposeOptions()

        static let declared = SetOptions()
    }

    static let show = CommandSpec(
        path: ["policy", "show"], summary: "print the repository's policy.json",
        discussion: "Fields and defaults are documented in docs/policy.md and in the repository's README.md.",
        options: NoOptions.self, arguments: .none,
        effects: .readsRepository,
        run: { invocation, context in
            let policy = try context.repository(invocation).snapshot().policy()
            return CommandOutput(json: policy.jsonValue, text: JSONWriter.prettyString(policy.jsonValue))
        })

    static let set = CommandSpec(
        path: ["policy", "set"], summary: "replace the repository's policy with FILE, after validating it",
        discussion: """
            An identical policy is a no-op. The change is one commit like any other. --dry-run prints the
            fields that would change (before -> after), every pack a plan serves that the new policy's
            rules would refuse (stored packs are never checked again, docs/policy.md), and the commit it
            would record; it writes nothing.
            """,
        options: SetOptions.self,
        arguments: .exactly("FILE"),
        effects: [.readsFiles, .recordsChange],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            repository.dryRun = invocation.flag(SetOptions.declared.dryRun)
            let path = invocation.positionals[0]
            let bytes = try context.readFile(path, describedAs: "policy file")
            let now = try context.now()
            let actor = try context.actor(invocation, repository: repository)
            let applied = try PackOperations.setPolicy(
                bytes, source: path, in: repository, reason: invocation.value(SetOptions.declared.reason),
                actor: actor, time: { now })
            if repository.dryRun { return wouldSet(applied, actor: actor, style: context.style(invocation)) }
            let text =
                applied.commit.map { "Policy updated (commit \($0.short)).\n" }
                ?? "The policy is already identical: nothing to do.\n"
            return CommandOutput(
                json: [
                    "changed": .bool(applied.commit != nil), "commit": applied.commit.map { .string($0.hex) } ?? .null,
                    "policy": applied.result.after.jsonValue,
                ],
                text: text)
        })

    /// What `policy set --dry-run` prints: each field that changes, the served packs the new policy
    /// refuses, the commit it would record.
    static func wouldSet(
        _ applied: PackRepository.Applied<PackOperations.PolicyChange>, actor: Actor, style: Style
    ) -> CommandOutput {
        let change = applied.result
        let fields = fieldChanges(change.before.jsonValue, change.after.jsonValue)
        var text = "Dry run: policy set would change \(fields.count) field(s)"
        if fields.isEmpty {
            text = "Dry run: the policy is already identical: nothing to do.\n"
        } else {
            var table = Table("FIELD", "BEFORE", "AFTER")
            for field in fields { table.add(field.name, cell(field.before), cell(field.after)) }
            text += ":\n" + table.render(style)
            text +=
                change.refusedServed.isEmpty
                ? "The new policy refuses none of the packs the plans serve.\n"
                : "The new policy's rules refuse packs the plans serve (they stay served; a new version must pass):\n"
                    + change.refusedServed.map {
                        "  \($0.pack) \($0.rule)\($0.key.map { " \($0)" } ?? ""): \($0.message)\n"
                    }.joined()
        }
        text += DryRun.text(applied.change, actor: actor) + DryRun.nothingWritten
        return CommandOutput(
            json: [
                "changed": .bool(applied.change != nil), "dryRun": true, "commit": .null,
                "policy": change.after.jsonValue,
                "fields": .array(
                    fields.map {
                        ["field": .string($0.name), "before": .string($0.before), "after": .string($0.after)]
                    }),
                "refusedServed": .array(
                    change.refusedServed.map {
                        [
                            "pack": .string($0.pack.description), "rule": .string($0.rule),
                            "key": $0.key.map { .string($0) } ?? .null, "message": .string($0.message),
                        ]
                    }),
                "wouldRecord": DryRun.json(applied.change, actor: actor),
            ],
            text: text)
    }

    /// The fields of two policies (as `policy show` prints them) that differ, by dotted name
    /// (`limits.maxKeys`), each side as compact JSON; `-` for a field one side lacks.
    static func fieldChanges(_ before: JSONValue, _ after: JSONValue, prefix: String = "") -> [(
        name: String, before: String, after: String
    )] {
        if let old = before.objectValue, let new = after.objectValue {
            return Set(old.keys).union(new.keys).sorted().flatMap { key in
                fieldChanges(old[key] ?? .null, new[key] ?? .null, prefix: prefix + key + ".")
            }
        }
        guard before != after else { return [] }
        func shown(_ value: JSONValue) -> String { value == .null ? "-" : JSONWriter.canonicalString(value) }
        return [(String(prefix.dropLast()), shown(before), shown(after))]
    }
}
