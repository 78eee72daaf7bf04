import RolloutModel
import RolloutStore

enum PolicyCommands {
    struct SetOptions: OptionGroup {
        let reason = Option.reason("why the policy changes (recorded in the commit)")

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
        discussion: "An identical policy is a no-op. The change is one commit like any other.",
        options: SetOptions.self,
        arguments: .exactly("FILE"),
        effects: [.readsFiles, .recordsChange],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let path = invocation.positionals[0]
            let bytes = try context.readFile(path, describedAs: "policy file")
            let now = try context.now()
            let applied = try PackOperations.setPolicy(
                bytes, source: path, in: repository, reason: invocation.value(SetOptions.declared.reason),
                actor: try context.actor(invocation, repository: repository), time: { now })
            let text =
                applied.commit.map { "Policy updated (commit \($0.short)).\n" }
                ?? "The policy is already identical: nothing to do.\n"
            return CommandOutput(
                json: [
                    "changed": .bool(applied.commit != nil), "commit": applied.commit.map { .string($0.hex) } ?? .null,
                    "policy": applied.result.jsonValue,
                ],
                text: text)
        })
}
