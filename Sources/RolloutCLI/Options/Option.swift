import RolloutModel

/// A type an option's value is read as: one grammar, in the one file of its type under Options/Values/.
/// The parser has already refused an empty value (and split a list), so `text` is never empty.
/// `SendableMetatype`: declarations, which the command table shares, call its reader.
package protocol ArgumentValue: SendableMetatype {
    /// `text` as this type, or a usage error (64) that names `flag` (`--to`) where the grammar's own
    /// message does not say which option it read.
    static func argument(_ text: String, flag: String) throws -> Self
    /// What shell completion offers for a value of this type.
    static var completion: ValueCompletion { get }
}

extension ArgumentValue {
    package static var completion: ValueCompletion { .none }
}

/// What `rollout __complete` offers after an option (CompletionCommand): made from the option's
/// value type, never from its name.
package enum ValueCompletion: Equatable, Sendable {
    case none
    /// The shell completes file names.
    case files
    /// These words.
    case words([String])
    /// The ids of the repository's newest key list.
    case keyIDs
    /// `bundled` and the content versions of the locale named earlier on the line (`revert --to`).
    case contentVersions
    /// `crash`, `fallback` and the outcome kinds the repository holds; `outcome` too when
    /// `orEveryOutcome` (`metrics ingest --kind`).
    case metricKinds(orEveryOutcome: Bool)
}

/// One option of a command, declared once: its table row (name, help, how usage shows it) and how
/// its value is read. A command reads it through this declaration (`try invocation.value(options.to)`),
/// so a misspelt option cannot compile and an option nobody declared cannot be read.
package protocol DeclaredOption: Sendable {
    var spec: OptionSpec { get }
}

extension DeclaredOption {
    /// `--name`, for messages.
    package var flag: String { "--" + spec.name }
}

/// `--name`: on or off.
package struct Flag: DeclaredOption {
    package let spec: OptionSpec

    package init(_ name: String, _ help: String) { spec = .flag(name, help) }
}

/// `--name VALUE` (given once, or `repeatable`), read as `Value`.
package struct Option<Value>: DeclaredOption {
    package internal(set) var spec: OptionSpec
    let read: @Sendable (String, String) throws -> Value

    /// An option read with its own reader: for a value whose grammar takes the declaration's bounds
    /// (`Count`, `Duration`), made by the factory in that value type's file.
    package init(
        _ name: String, _ valueName: String, _ help: String, repeatable: Bool = false,
        completion: ValueCompletion = .none,
        read: @escaping @Sendable (_ text: String, _ flag: String) throws -> Value
    ) {
        spec = .value(name, valueName, help, repeatable: repeatable)
        spec.completion = completion
        spec.reads = { _ = try read($0, "--" + name) }
        self.read = read
    }

    /// This option, shown as required in the usage line (the command still says what is missing).
    package func required() -> Option {
        var option = self
        option.spec = spec.required()
        return option
    }

    /// This option, one of the group `name` of which one is required (`(--to P | --ramp STEPS)`).
    package func oneOf(_ group: String) -> Option {
        var option = self
        option.spec = spec.oneOf(group)
        return option
    }
}

extension Option where Value: ArgumentValue {
    package init(_ name: String, _ valueName: String, _ help: String, repeatable: Bool = false) {
        self.init(
            name, valueName, help, repeatable: repeatable, completion: Value.completion
        ) { text, flag in try Value.argument(text, flag: flag) }
    }
}

/// `--name A,B` (and, when repeatable, `--name A --name B`): the items of every occurrence, each read
/// as `Item`.
package struct ListOption<Item: ArgumentValue>: DeclaredOption {
    package private(set) var spec: OptionSpec

    package init(
        _ name: String, _ valueName: String, _ help: String, repeatable: Bool = false,
        completion: ValueCompletion = Item.completion
    ) {
        spec = .list(name, valueName, help, repeatable: repeatable)
        spec.completion = completion
        spec.reads = { _ = try Item.argument($0, flag: "--" + name) }
    }

    package func oneOf(_ group: String) -> ListOption {
        var option = self
        option.spec = spec.oneOf(group)
        return option
    }

    /// This option, shown as required in the usage line (the command still says what is missing).
    package func required() -> ListOption {
        var option = self
        option.spec = spec.required()
        return option
    }
}

/// A command's options: a struct whose stored properties are its declarations, in the order help
/// and the usage line list them. Adding an option is adding a property; a property that is itself a
/// group (`let lint = LintOptions()`) adds that group's options at its place.
package protocol OptionGroup {
    init()
}

extension OptionGroup {
    /// The declarations, in the order they are written.
    static var table: [OptionSpec] { specs(of: Self()) }

    private static func specs(of group: Any) -> [OptionSpec] {
        Mirror(reflecting: group).children.flatMap { child -> [OptionSpec] in
            if let option = child.value as? any DeclaredOption { return [option.spec] }
            if let nested = child.value as? any OptionGroup { return specs(of: nested) }
            return []
        }
    }
}

/// A command without options of its own.
package struct NoOptions: OptionGroup {
    package init() {}
}

/// Options every command takes, read by CommandContext and the runner.
package struct GlobalOptions: OptionGroup {
    let repo = Option<Path>(
        "repo", "DIR", "the pack repository (default: ROLLOUT_REPO, else found from the working directory like git)")
    let json = Flag("json", "print one JSON document on stdout; errors go to stderr as JSON")
    let actor = Option<String>(
        "actor", "NAME", "who is making the change (default: ROLLOUT_ACTOR, else git config user.name and user.email)")
    let offline = Flag(
        "offline",
        "keep the change in this repository even if it has a remote; rollout sync pushes it later (also ROLLOUT_OFFLINE=1)"
    )
    let sign = Flag(
        "sign", "sign the change commit with git's signing key, whatever git config commit.gpgSign says (docs/audit.md)"
    )
    let noSign = Flag("no-sign", "do not sign the change commit, whatever git config commit.gpgSign says")
    let noColor = Flag("no-color", "never colour the output (NO_COLOR in the environment does the same)")
    let help = Flag("help", "show help for the command")

    package init() {}

    static let all = GlobalOptions()
}
