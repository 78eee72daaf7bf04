import RolloutModel

/// One subcommand: its words, help, option table, arguments and what it does. Its usage line and the
/// exit codes its help lists are made from these, never written by hand.
public struct CommandSpec: Sendable {
    public struct Arguments: Sendable {
        public let names: [String]
        public let minimum: Int
        /// nil: any number.
        public let maximum: Int?
        /// Where the arguments go in the usage line: after the path (`pack add FILE...`), or after the
        /// options when they say what to do (`device --state DIR ... ACTION [ARGUMENT]`).
        public var afterOptions = false

        public static let none = Arguments(names: [], minimum: 0, maximum: 0)
        public static func exactly(_ names: String...) -> Arguments {
            Arguments(names: names, minimum: names.count, maximum: names.count)
        }
        public static func optional(_ name: String) -> Arguments { Arguments(names: [name], minimum: 0, maximum: 1) }
        public static func oneOrMore(_ name: String) -> Arguments { Arguments(names: [name], minimum: 1, maximum: nil) }

        /// `FROM TO`, `[DIR]`, `FILE...`, `URL [DIR]`.
        var usage: [String] {
            names.enumerated().map { index, name in
                let word = maximum == nil && index == names.count - 1 ? name + "..." : name
                return index < minimum ? word : "[\(word)]"
            }
        }
    }

    /// What a command does that can fail. Its exit codes follow from these (`exitCodes`), so its
    /// help cannot leave out a code it can return; the end-to-end tests fail on a code a command
    /// returns that its help does not list.
    public struct Effects: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Opens the pack repository: none found (66), a damaged one (65), a failing disk (74).
        public static let readsRepository = Effects(rawValue: 1 << 0)
        /// Commits a change, pushed to the remote when the repository has one: a conflict with another
        /// writer (75), and everything a remote can answer.
        public static let recordsChange = Effects(rawValue: 1 << 1)
        /// Fetches from or pushes to a git remote: 69, 74, 75, 76, 77 (docs/teams.md).
        public static let touchesRemote = Effects(rawValue: 1 << 2)
        /// Reads files named on the command line: missing (66), bad content (65), a failing disk (74).
        public static let readsFiles = Effects(rawValue: 1 << 3)
        /// Writes files outside the repository: a missing directory (66), a failing disk (74).
        public static let writesFiles = Effects(rawValue: 1 << 4)
        /// Answers a question with yes (0) or no (1): lint, verify, health, a refused change.
        public static let checks = Effects(rawValue: 1 << 5)
        /// Rewrites the repository's storage without recording a change (gc): another process holding
        /// its lock (75), a failing disk (74).
        public static let writesRepository = Effects(rawValue: 1 << 6)
        /// Checks change commits' signatures with the system's ssh-keygen, gpgv and gpg: one that is
        /// not installed (69; docs/audit.md, "Who made each change: verified signers").
        public static let checksSignatures = Effects(rawValue: 1 << 7)

        /// The codes every command can return: done, a usage error, a bug.
        static let alwaysPossible: Set<ExitCode> = [.done, .usage, .internal]

        /// The exit codes these effects can end in.
        public var exitCodes: Set<ExitCode> {
            var codes = Self.alwaysPossible
            if contains(.checks) { codes.insert(.checkFailed) }
            if !isDisjoint(with: [.readsRepository, .recordsChange, .readsFiles]) {
                codes.formUnion([.badInput, .missing, .io])
            }
            if contains(.writesFiles) { codes.formUnion([.missing, .io]) }
            if contains(.checksSignatures) { codes.insert(.unavailable) }
            if contains(.writesRepository) { codes.formUnion([.badInput, .missing, .io, .tryAgain]) }
            if !isDisjoint(with: [.recordsChange, .touchesRemote]) {
                codes.formUnion([.unavailable, .io, .tryAgain, .diverged, .permission])
            }
            return codes
        }
    }

    public let path: [String]
    public let summary: String
    public let discussion: String
    /// Its option table, made from its `OptionGroup` (without the global options).
    public let options: [OptionSpec]
    public let arguments: Arguments
    public let effects: Effects
    /// What a code means for this command in particular, printed after the table's meaning.
    public let exitNotes: [ExitCode: String]
    public let run: @Sendable (Invocation, CommandContext) throws -> CommandOutput

    init(
        path: [String], summary: String, discussion: String, options: any OptionGroup.Type, arguments: Arguments,
        effects: Effects, exitNotes: [ExitCode: String] = [:],
        run: @escaping @Sendable (Invocation, CommandContext) throws -> CommandOutput
    ) {
        self.init(
            path: path, summary: summary, discussion: discussion, table: options.table, arguments: arguments,
            effects: effects, exitNotes: exitNotes, run: run)
    }

    private init(
        path: [String], summary: String, discussion: String, table: [OptionSpec], arguments: Arguments,
        effects: Effects, exitNotes: [ExitCode: String],
        run: @escaping @Sendable (Invocation, CommandContext) throws -> CommandOutput
    ) {
        self.path = path
        self.summary = summary
        self.discussion = discussion
        self.options = table
        self.arguments = arguments
        self.effects = effects
        self.exitNotes = exitNotes
        self.run = run
    }

    public var name: String { path.joined(separator: " ") }

    /// The exit codes this command can return, in order: what its help lists.
    public var exitCodes: [ExitCode] { effects.exitCodes.sorted() }

    /// The usage line after `rollout `, made from the path, the arguments and the option table:
    /// `pack import PATH --content-version N [--format FORMAT] [--locale L]...`.
    public var usage: String {
        let options = OptionSpec.usage(options)
        return (path + (arguments.afterOptions ? options + arguments.usage : arguments.usage + options))
            .joined(separator: " ")
    }

    /// The same command (words, help, options) doing other work: how rollout-device gives
    /// `rollout device` its body.
    package func running(_ run: @escaping @Sendable (Invocation, CommandContext) throws -> CommandOutput) -> CommandSpec
    {
        CommandSpec(
            path: path, summary: summary, discussion: discussion, table: options, arguments: arguments,
            effects: effects, exitNotes: exitNotes, run: run)
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
    DiffCommand.spec,
    RevertCommands.revert, RevertCommands.rollbacks,
    KeysCommands.initialize, KeysCommands.rotate, KeysCommands.revoke, KeysCommands.rotateRoot, KeysCommands.list,
    KeysCommands.generate,
    PublishCommands.publish, PublishCommands.verifySite, VerifyCommand.spec, GCCommand.spec,
    HookCommand.preReceive,
    ConformanceCommand.write,
    MetricsCommands.ingest, MetricsCommands.retract, MetricsCommands.show, HealthCommand.spec, GuardCommand.spec,
    ReportCommand.spec,
    PauseCommands.spec(true), PauseCommands.spec(false),
    ScheduleCommands.cancel,
    TestersCommands.change(true), TestersCommands.change(false), TestersCommands.list,
    ExperimentCommands.start, ExperimentCommands.show, ExperimentCommands.stop, ExperimentCommands.list,
    ExperimentCommands.simulate,
    SignersCommands.add, SignersCommands.remove, SignersCommands.list,
    PolicyCommands.show, PolicyCommands.set,
    ApprovalCommands.proposals, ApprovalCommands.approve,
    NotifyCommands.test, NotifyCommands.status, NotifyCommands.retry,
    DeviceCommand.spec,
    CompletionCommand.spec, HelpCommand.spec, HelpCommand.version,
]
