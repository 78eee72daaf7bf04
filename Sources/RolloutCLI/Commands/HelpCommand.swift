import RolloutModel
import RolloutStore

enum HelpCommand {
    static let spec = CommandSpec(
        path: ["help"], usage: "help [COMMAND...]", summary: "show help for rollout or one command",
        discussion: "", options: [], arguments: .none, run: { _, _ in preconditionFailure("handled by the parser") })

    static let version = CommandSpec(
        path: ["version"], usage: "version", summary: "print the version (also --version)",
        discussion: "", options: [], arguments: .none, run: { _, _ in preconditionFailure("handled by the parser") })

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
        text +=
            "\nExit codes: 0 done, 1 a check said no, 64 usage, 65 bad input, 66 missing, 74 I/O error (disk full or failing), 75 conflict or remote unreachable (try again), 76 diverged from the remote (a person decides: rollout sync), 69 remote unusable as configured, 77 refused by the remote, 70 bug.\n"
        text += "Run rollout help COMMAND for details, for example rollout help pack add.\n"
        let json: JSONValue = [
            "commands": .array(
                only.map { ["name": .string($0.name), "usage": .string($0.usage), "summary": .string($0.summary)] })
        ]
        return CommandOutput(json: json, text: text)
    }

    static func detail(_ command: CommandSpec, _ style: Style) -> CommandOutput {
        var text = "\(style.bold("Usage:")) rollout \(command.usage)\n\n\(command.summary)\n"
        if !command.discussion.isEmpty { text += "\n\(command.discussion)\n" }
        if !command.options.isEmpty { text += "\n\(style.bold("Options:"))\n" + optionLines(command.options) }
        text += "\n\(style.bold("Options for every command:"))\n" + optionLines(globalOptions)
        let json: JSONValue = [
            "name": .string(command.name), "usage": .string(command.usage), "summary": .string(command.summary),
            "options": .array(
                (command.options + globalOptions).map { ["name": .string("--" + $0.name), "help": .string($0.help)] }),
        ]
        return CommandOutput(json: json, text: text)
    }

    static func optionLines(_ options: [OptionSpec]) -> String {
        let labels = options.map { "--\($0.name)" + ($0.valueName.map { " \($0)" } ?? "") }
        let width = labels.map(\.count).max() ?? 0
        return zip(labels, options).map { label, option in
            "  \(label)\(String(repeating: " ", count: width - label.count))  \(option.help)\(option.repeatable ? " (repeatable)" : "")\n"
        }.joined()
    }
}
