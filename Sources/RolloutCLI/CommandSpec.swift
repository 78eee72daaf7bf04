import RolloutModel

/// One subcommand: its words, help, option table, arguments and what it does.
public struct CommandSpec {
    public struct Arguments {
        public let names: [String]
        public let minimum: Int
        /// nil: any number.
        public let maximum: Int?

        public static let none = Arguments(names: [], minimum: 0, maximum: 0)
        public static func exactly(_ names: String...) -> Arguments {
            Arguments(names: names, minimum: names.count, maximum: names.count)
        }
        public static func optional(_ name: String) -> Arguments { Arguments(names: [name], minimum: 0, maximum: 1) }
        public static func oneOrMore(_ name: String) -> Arguments { Arguments(names: [name], minimum: 1, maximum: nil) }
    }

    public let path: [String]
    public let usage: String
    public let summary: String
    public let discussion: String
    public let options: [OptionSpec]
    public let arguments: Arguments
    public let run: (Invocation, CommandContext) throws -> CommandOutput

    public var name: String { path.joined(separator: " ") }

    /// The same command (words, help, options) doing other work: how rollout-device gives
    /// `rollout device` its body.
    package func running(_ run: @escaping (Invocation, CommandContext) throws -> CommandOutput) -> CommandSpec {
        CommandSpec(
            path: path, usage: usage, summary: summary, discussion: discussion, options: options, arguments: arguments,
            run: run)
    }
}

/// What a command produced: the JSON document for `--json`, the text for people, and the exit code
/// (0, or 1 when a check said no).
public struct CommandOutput {
    public var json: JSONValue
    public var text: String
    public var exitCode: Int32

    public init(json: JSONValue, text: String, exitCode: Int32 = 0) {
        self.json = json
        self.text = text
        self.exitCode = exitCode
    }
}

/// Every command, in the order `rollout help` lists them.
public let allCommands: [CommandSpec] = [
    InitCommand.spec, RemoteCommands.clone, RemoteCommands.add, RemoteCommands.list, RemoteCommands.sync,
    PackCommands.lint, PackCommands.add, ImportCommand.spec, PackCommands.list, PackCommands.show, PackCommands.diff,
    PackCommands.checksum,
    PlanCommands.promote, PlanCommands.status, PlanCommands.resolve, SimulateCommand.spec, LogCommand.spec,
    RevertCommands.revert, RevertCommands.rollbacks,
    KeysCommands.initialize, KeysCommands.rotate, KeysCommands.revoke, KeysCommands.rotateRoot, KeysCommands.list,
    KeysCommands.generate,
    PublishCommands.publish, PublishCommands.verifySite, VerifyCommand.spec, GCCommand.spec,
    ConformanceCommand.write,
    MetricsCommands.ingest, MetricsCommands.retract, MetricsCommands.show, HealthCommand.spec, GuardCommand.spec,
    ReportCommand.spec,
    PauseCommands.spec(true), PauseCommands.spec(false),
    PolicyCommands.show, PolicyCommands.set,
    DeviceCommand.spec,
    CompletionCommand.spec, HelpCommand.spec, HelpCommand.version,
]
