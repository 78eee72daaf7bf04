import RolloutModel
import RolloutStore

enum HelpCommand {
    static let spec = CommandSpec(
        path: ["help"], summary: "show help for rollout or one command",
        discussion: "", options: NoOptions.self, arguments: .init(names: ["COMMAND"], minimum: 0, maximum: nil),
        effects: [],
        run: { _, _ in preconditionFailure("handled by the parser") })

    static let version = CommandSpec(
        path: ["version"], summary: "print the version (also --version)",
        discussion: "", options: NoOptions.self, arguments: .none, effects: [],
        run: { _, _ in preconditionFailure("handled by the parser") })

    static func versionOutput() -> CommandOutput {
        let git = PackRepository.libgit2Version
        return CommandOutput(
            json: ["rollout": .string(RolloutCLI.version), "libgit2": .string(git)],
            text: "rollout \(RolloutCLI.version) (libgit2 \(git))\n")
    }

    static func render(_ path: [String], style: Style) throws -> CommandOutput {
        if path.isEmpty { return overview(style) }
        if let command = allCommands.first(where: { $0.path == path }) { return detail(command, style) }
        let group = allCommands.filter { $0.path.starts(with: path) }
        if !group.isEmpty { return overview(style, only: group, title: path.joined(separator: " ")) }
        let names = Set(allCommands.map(\.name))
        throw RolloutError.usage(
            "no help for \"\(path.joined(separator: " "))\"" + suggestion(path.joined(separator: " "), among: names)
                + "; see rollout help")
    }

    static func overview(_ style: Style, only: [CommandSpec] = allCommands, title: String? = nil) -> CommandOutput {
        var text =
            title == nil
            ? "rollout: stage translation packs to mobile apps over the air, and go back.\n\n"
            : "rollout \(title!): commands\n\n"
        text += "\(style.bold("Usage:")) rollout COMMAND [OPTIONS]\n\n\(style.bold("Commands:"))\n"
        let width = only.map { $0.name.count }.max() ?? 0
        for command in only {
            text +=
                "  \(command.name)\(String(repeating: " ", count: width - command.name.count))  \(command.summary)\n"
        }
        text += "\n\(style.bold("Options for every command:"))\n" + optionLines(globalOptions)
        text += "\n\(style.bold("Exit codes:"))\n" + exitCodeLines(ExitCode.allCases)
        text += "Run rollout help COMMAND for details, for example rollout help pack add.\n"
        let json: JSONValue = [
            "commands": .array(
                only.map { ["name": .string($0.name), "usage": .string($0.usage), "summary": .string($0.summary)] }),
            "exitCodes": exitCodesJSON(ExitCode.allCases, notes: [:]),
        ]
        return CommandOutput(json: json, text: text)
    }

    static func detail(_ command: CommandSpec, _ style: Style) -> CommandOutput {
        var text = "\(style.bold("Usage:")) rollout \(command.usage)\n\n\(command.summary)\n"
        if !command.discussion.isEmpty { text += "\n\(command.discussion)\n" }
        if !command.options.isEmpty { text += "\n\(style.bold("Options:"))\n" + optionLines(command.options) }
        text += "\n\(style.bold("Options for every command:"))\n" + optionLines(globalOptions)
        text += "\n\(style.bold("Exit codes:"))\n" + exitCodeLines(command.exitCodes, notes: command.exitNotes)
        let json: JSONValue = [
            "name": .string(command.name), "usage": .string(command.usage), "summary": .string(command.summary),
            "options": .array(
                (command.options + globalOptions).map { ["name": .string("--" + $0.name), "help": .string($0.help)] }),
            "exitCodes": exitCodesJSON(command.exitCodes, notes: command.exitNotes),
        ]
        return CommandOutput(json: json, text: text)
    }

    static func optionLines(_ options: [OptionSpec]) -> String {
        let width = options.map(\.label.count).max() ?? 0
        return options.map { option in
            "  \(option.label)\(String(repeating: " ", count: width - option.label.count))  \(option.help)\(option.helpSuffix)\n"
        }.joined()
    }

    /// The exit codes, one a line, from the one table (`ExitCode`): code, `--json` name, meaning, and
    /// what the code means for this command in particular.
    static func exitCodeLines(_ codes: [ExitCode], notes: [ExitCode: String] = [:]) -> String {
        let width = codes.map(\.name.count).max() ?? 0
        return codes.map { code in
            let number = String(code.rawValue)
            let meaning = code.meaning + (notes[code].map { "; \($0)" } ?? "")
            return "  \(number)\(String(repeating: " ", count: 4 - number.count))\(code.name)"
                + "\(String(repeating: " ", count: width - code.name.count))  \(meaning)\n"
        }.joined()
    }

    static func exitCodesJSON(_ codes: [ExitCode], notes: [ExitCode: String]) -> JSONValue {
        .array(
            codes.map { code in
                var entry: [String: JSONValue] = [
                    "code": .integer(Int(code.rawValue)), "name": .string(code.name), "meaning": .string(code.meaning),
                ]
                if let note = notes[code] { entry["note"] = .string(note) }
                return .object(entry)
            })
    }
}
