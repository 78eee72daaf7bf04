import RolloutModel

/// What the parser found on the command line for one command. Options are read only through their
/// declarations (`OptionGroup`): the names are private to this file.
public struct Invocation {
    public let command: CommandSpec
    /// The words after the program name, as given: what `rollout device` hands to rollout-device.
    package var arguments: [String] = []
    public var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var lists: [String: [String]] = [:]
    private var flags: Set<String> = []

    init(command: CommandSpec, arguments: [String]) {
        self.command = command
        self.arguments = arguments
    }

    /// Whether `--json` was given.
    public var json: Bool { flag(GlobalOptions.all.json) }

    /// The parser's record of a flag.
    mutating func record(flag name: String) { flags.insert(name) }

    /// The parser's record of one value of `spec`, and of its items when the option is a list.
    mutating func record(_ value: String, of spec: OptionSpec, items: [String]?) {
        values[spec.name, default: []].append(value)
        if let items { lists[spec.name, default: []] += items }
    }

    /// Whether the option of this table row was given: for the parser, which reads rows.
    func given(_ spec: OptionSpec) -> Bool { given(name: spec.name) }

    private func given(name: String) -> Bool { flags.contains(name) || values[name] != nil || lists[name] != nil }

    private func values(named name: String) -> [String] { values[name] ?? [] }
    private func items(named name: String) -> [String] { lists[name] ?? [] }
}

extension Invocation {
    /// Whether the flag was given.
    package func flag(_ flag: Flag) -> Bool { given(flag) }

    /// Whether the option was given at all.
    package func given(_ option: some DeclaredOption) -> Bool { given(name: option.spec.name) }

    /// The option's value as typed (the last, if given more than once): for messages that quote it.
    package func text<Value>(_ option: Option<Value>) -> String? { values(named: option.spec.name).last }

    /// The option's value read as its type, or nil when it was not given.
    package func value<Value>(_ option: Option<Value>) throws -> Value? {
        try text(option).map { text in try OptionError.about(option.flag) { try option.read(text, option.flag) } }
    }

    /// The value of an option the command cannot run without, read as its type; missing, a usage
    /// error that names it and where help is.
    package func required<Value>(_ option: Option<Value>) throws -> Value {
        guard let value = try value(option) else {
            throw OptionError(
                option: option.flag,
                error: .usage("rollout \(command.name) needs \(option.spec.label); see rollout help \(command.name)"))
        }
        return value
    }

    /// A text option's value as typed: text is read as it is, so reading it cannot fail.
    package func value(_ option: Option<String>) -> String? { text(option) }

    /// Every value of a repeatable option, in the order given, each read as its type.
    package func values<Value>(_ option: Option<Value>) throws -> [Value] {
        try values(named: option.spec.name).map { text in
            try OptionError.about(option.flag) { try option.read(text, option.flag) }
        }
    }

    /// Every value of a repeatable option as typed.
    package func texts<Value>(_ option: Option<Value>) -> [String] { values(named: option.spec.name) }

    /// The items of a list option over all its occurrences, each read as its type.
    package func list<Item>(_ option: ListOption<Item>) throws -> [Item] {
        try items(named: option.spec.name).map { item in
            try OptionError.about(option.flag) { try Item.argument(item, flag: option.flag) }
        }
    }

    /// The items of a list option as typed (trimmed, none empty).
    package func texts<Item>(_ option: ListOption<Item>) -> [String] { items(named: option.spec.name) }

    /// The value of a list option as typed, before it was split: `--ramp 7day`.
    package func text<Item>(_ option: ListOption<Item>) -> String? { values(named: option.spec.name).last }
}
