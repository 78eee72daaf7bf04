import RolloutModel
import RolloutStore

enum InitCommand {
    struct Options: OptionGroup {
        let policy = Option<Path>("policy", "FILE", "start with this policy.json instead of the template's")

        static let declared = Options()
    }

    static let spec = CommandSpec(
        path: ["init"], summary: "create a pack repository (a bare git repository) seeded from repo-template/",
        discussion: """
            DIR defaults to .rollout in the working directory, where discovery finds it from any
            subdirectory, the way git finds .git. The first commit holds policy.json (the template's,
            or --policy FILE after validation) and a README for whoever finds the repository.
            """,
        options: Options.self,
        arguments: .optional("DIR"),
        // Its first commit is a change like any other: signed as git config asks, which can fail (69).
        effects: [.readsFiles, .writesFiles, .recordsChange],
        run: run)

    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> CommandOutput {
        let directory = context.absolutePath(invocation.positionals.first ?? ".rollout")
        var files = RepositoryTemplate.files
        if let policyPath = try invocation.value(Options.declared.policy)?.text {
            let bytes = try context.readFile(policyPath, describedAs: "policy file")
            _ = try Policy.parse(bytes, source: policyPath)
            files.removeAll { $0.path == StateLayout.policy }
            files.append((StateLayout.policy, bytes))
        }
        _ = try RepositoryTemplate.policy()
        let actor = try context.actor(invocation, repository: nil)
        let signing = try context.signing(invocation)
        let (repository, commit) = try PackRepository.create(
            at: directory, files: files, actor: actor, time: try context.now()
        ) {
            $0.gitEnvironment = context.environment
            $0.signing = signing
        }
        let style = context.style(invocation)
        let text = """
            Created the pack repository \(style.bold(repository.path)) (commit \(commit.short)).
            Next: rollout pack add FILE.json...   (git log works there too)

            """
        return CommandOutput(json: ["path": .string(repository.path), "commit": .string(commit.hex)], text: text)
    }
}
