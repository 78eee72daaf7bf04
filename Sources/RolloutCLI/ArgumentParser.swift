import RolloutModel

/// One option a command accepts: `--name`, `--name VALUE` or `--name=VALUE`.
public struct OptionSpec: Sendable {
    public let name: String
    /// nil for a flag; the placeholder shown in help for an option that takes a value.
    public let valueName: String?
    public let repeatable: Bool
    /// A comma list (`--region TR,DE`): the parser splits it, and refuses empty items.
    public let isList: Bool
    public let help: String
    /// How the usage line shows it; the parser does not read it (a command checks what it needs).
    public internal(set) var presence: Presence = .optional
    /// What shell completion offers for its value: from the value type of the declaration.
    package internal(set) var completion: ValueCompletion = .none
    /// A check the parser makes on each value as it reads it, before the command runs: the bounds
    /// of a value that goes into the shared history whatever the command does next (`Reason`).
    var checkedWhenRead: (@Sendable (String) throws -> Void)?
    /// The declaration's reader of one value (or list item), its result dropped: what tests hold the
    /// completions against.
    var reads: (@Sendable (String) throws -> Void)?

    public enum Presence: Hashable, Sendable {
        /// `[--name VALUE]`
        case optional
        /// `--name VALUE`
        case required
        /// One of the options of the group is required: `(--public-key KEY | --root-key KEY...)`.
        case oneOf(String)
    }

    /// This option, shown as required in the usage line.
    func required() -> OptionSpec {
        var option = self
        option.presence = .required
        return option
    }

    /// This option, shown in the usage line as one of the group `name`, one of which is required.
    func oneOf(_ group: String) -> OptionSpec {
        var option = self
        option.presence = .oneOf(group)
        return option
    }

    /// `--name` or `--name VALUE`: how help and the usage line name it.
    public var label: String { "--\(name)" + (valueName.map { " \($0)" } ?? "") }

    /// What help adds after an option's own text: the one place "(repeatable)" is written.
    var helpSuffix: String { repeatable ? " (repeatable)" : "" }

    /// The options part of a usage line: the required ones first (`--to PERCENT`, a group such as
    /// `(--public-key KEY | --root-key KEY...)` at the place of its first option), then the others
    /// (`[--region R]...`), each in table order.
    static func usage(_ options: [OptionSpec]) -> [String] {
        var required: [String] = []
        var optional: [String] = []
        var groups: Set<String> = []
        for option in options {
            let repeats = option.repeatable ? "..." : ""
            switch option.presence {
            case .optional: optional.append("[\(option.label)]\(repeats)")
            case .required: required.append(option.label + repeats)
            case .oneOf(let group):
                guard groups.insert(group).inserted else { continue }
                let members = options.filter { $0.presence == .oneOf(group) }
                required.append(
                    "(" + members.map { $0.label + ($0.repeatable ? "..." : "") }.joined(separator: " | ") + ")")
            }
        }
        return required + optional
    }

    public static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, repeatable: false, isList: false, help: help)
    }

    public static func value(_ name: String, _ valueName: String, _ help: String, repeatable: Bool = false)
        -> OptionSpec
    {
        OptionSpec(name: name, valueName: valueName, repeatable: repeatable, isList: false, help: help)
    }

    public static func list(_ name: String, _ valueName: String, _ help: String, repeatable: Bool = false) -> OptionSpec
    {
        OptionSpec(name: name, valueName: valueName, repeatable: repeatable, isList: true, help: help)
    }
}

/// Options every command takes: the table the parser reads with each command's own, reflected from
/// `GlobalOptions` once (the parser reads it for every leading word).
let globalOptions: [OptionSpec] = GlobalOptions.table

/// The table-driven parser: finds the command from the leading words, then reads options from the
/// command's table plus the global table in one loop. `--` ends options.
struct ArgumentParser {
    let commands: [CommandSpec]

    enum Outcome {
        case run(Invocation)
        case help([String])
        case version(json: Bool)
    }

    /// The words before the command's own: the command's path, where its own words start, and the
    /// global options given before it (`rollout --repo DIR pack add ...`), re-read with the others.
    struct LeadingWords {
        var path: [String] = []
        var index = 0
        var leading: [String] = []
    }

    func parse(_ arguments: [String]) throws -> Outcome {
        let words: LeadingWords
        switch leadingWords(arguments) {
        case .command(let found): words = found
        case .answered(let outcome): return outcome
        }
        if words.path == ["help"] { return .help(Array(arguments[words.index...]).filter { !$0.hasPrefix("-") }) }
        if words.path == ["version"] { return .version(json: arguments.contains("--json")) }
        guard let command = commands.first(where: { $0.path == words.path }) else {
            return try noCommand(words, in: arguments)
        }
        var invocation = Invocation(command: command, arguments: arguments)
        if let help = try readOptions(words.leading + arguments[words.index...], into: &invocation) { return help }
        try Self.checkArgumentCount(invocation)
        return .run(invocation)
    }

    enum Leading {
        case command(LeadingWords)
        /// `--version` or `--help` among the leading words: the answer, whatever follows.
        case answered(Outcome)
    }

    /// Leading words select the command; global options may come before them.
    func leadingWords(_ arguments: [String]) -> Leading {
        var words = LeadingWords()
        while words.index < arguments.count {
            let word = arguments[words.index]
            if word == "--version" || word == "-V" { return .answered(.version(json: arguments.contains("--json"))) }
            if word == "--help" || word == "-h" { return .answered(.help(words.path)) }
            let name = String(word.drop { $0 == "-" }.prefix { $0 != "=" })
            if word.hasPrefix("--"), let spec = globalOptions.first(where: { $0.name == name }) {
                words.leading.append(word)
                words.index += 1
                if spec.valueName != nil, !word.contains("="), words.index < arguments.count {
                    words.leading.append(arguments[words.index])
                    words.index += 1
                }
                continue
            }
            if word.hasPrefix("-") { break }
            let candidate = words.path + [word]
            guard commands.contains(where: { $0.path.starts(with: candidate) }) else { break }
            words.path = candidate
            words.index += 1
            if isLeaf(words.path) { break }
        }
        return .command(words)
    }

    /// A command that has no subcommands: the words after it are its own.
    func isLeaf(_ path: [String]) -> Bool {
        commands.contains { $0.path == path }
            && !commands.contains { $0.path.count > path.count && $0.path.starts(with: path) }
    }

    /// The leading words name no command: help for a bare `rollout`, else a usage error that names
    /// what was typed, the closest command, and where help is.
    func noCommand(_ words: LeadingWords, in arguments: [String]) throws -> Outcome {
        let next = words.index < arguments.count ? arguments[words.index] : nil
        guard !words.path.isEmpty else {
            guard let word = next else { return .help([]) }
            if word.hasPrefix("-") { throw RolloutError.optionBeforeCommand(word) }
            throw RolloutError.unknownCommand(word, among: Set(commands.map { $0.path[0] }))
        }
        let group = words.path.joined(separator: " ")
        let subcommands = commands.filter { $0.path.starts(with: words.path) }.map { $0.path[words.path.count] }
        if let word = next, !word.hasPrefix("-") {
            throw RolloutError.unknownSubcommand(word, of: group, among: Set(subcommands))
        }
        throw RolloutError.needsSubcommand(group, subcommands: subcommands)
    }

    /// Reads the options and positionals after the command, and the global options given before it,
    /// into `invocation`: one loop over the command's table and the global one. Returns `.help` when
    /// they ask for it; `--` ends options.
    func readOptions(_ rest: [String], into invocation: inout Invocation) throws -> Outcome? {
        let command = invocation.command
        let table = command.options + globalOptions
        var optionsEnded = false
        var index = 0
        while index < rest.count {
            let argument = rest[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                invocation.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" { return .help(command.path) }
            guard argument.hasPrefix("--") else {
                throw OptionError(option: argument, error: .singleDashOption(argument, of: command))
            }
            let (name, inlineValue) = Self.nameAndValue(argument)
            guard let spec = table.first(where: { $0.name == name }) else {
                throw OptionError(
                    option: "--" + name, error: .unknownOption(name, of: command, among: Set(table.map(\.name))))
            }
            if spec.name == "help" { return .help(command.path) }
            guard let valueName = spec.valueName else {
                if inlineValue != nil {
                    throw OptionError(option: "--" + name, error: .usage("option --\(name) takes no value"))
                }
                invocation.record(flag: name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < rest.count else {
                    throw OptionError(option: "--" + name, error: .missingValue(name, valueName))
                }
                value = rest[index]
                index += 1
            }
            try OptionError.about("--" + name) { try Self.add(value, of: spec, to: &invocation) }
        }
        return nil
    }

    /// `--name=value` as its name and value; `--name` as its name alone.
    static func nameAndValue(_ argument: String) -> (name: String, value: String?) {
        let name = argument.dropFirst(2)
        guard let equals = name.firstIndex(of: "=") else { return (String(name), nil) }
        return (String(name[..<equals]), String(name[name.index(after: equals)...]))
    }

    /// One value of an option that takes one: given once unless repeatable, never empty, a list split.
    static func add(_ value: String, of spec: OptionSpec, to invocation: inout Invocation) throws {
        if !spec.repeatable, invocation.given(spec) {
            throw RolloutError.usage("option --\(spec.name) is given twice")
        }
        try requireValue(value, of: spec)
        try spec.checkedWhenRead?(value)
        invocation.record(value, of: spec, items: spec.isList ? try listItems(value, of: spec) : nil)
    }

    static func checkArgumentCount(_ invocation: Invocation) throws {
        let command = invocation.command
        let count = invocation.positionals.count
        if count < command.arguments.minimum {
            let missing = command.arguments.names.dropFirst(count).first ?? "ARGUMENT"
            throw RolloutError.usage("rollout \(command.name) needs \(missing); usage: rollout \(command.usage)")
        }
        if let maximum = command.arguments.maximum, count > maximum {
            throw RolloutError.tooManyArguments(invocation.positionals, of: command, maximum: maximum)
        }
    }
}

extension ArgumentParser {
    /// An unset shell variable (`--region "$REGION"`) must never widen a change, so an empty value is
    /// a usage error for every option that takes one, never "the default" or "everything".
    static func requireValue(_ value: String, of spec: OptionSpec) throws {
        guard value.trimmingSpaces.isEmpty else { return }
        throw RolloutError.emptyOptionValue(value, of: spec)
    }

    /// The one place a comma list is split: items are trimmed, and an empty item (`TR,,DE`, `,TR`,
    /// `TR, `) is a usage error naming its position, for the same reason as an empty value.
    static func listItems(_ value: String, of spec: OptionSpec) throws -> [String] {
        let items = value.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        if let empty = items.firstIndex(where: \.isEmpty) {
            throw RolloutError.emptyListItem(value, of: spec, item: empty + 1, count: items.count)
        }
        return items
    }
}

/// " (did you mean --json?)" when one known name is close to what was typed.
func suggestion(_ typed: String, among names: Set<String>, prefix: String = "") -> String {
    let scored = names.map { ($0, editDistance(typed, $0)) }.filter { $0.1 <= max(1, typed.count / 3) }
    guard let best = scored.min(by: { ($0.1, $0.0) < ($1.1, $1.0) }) else {
        if let started = names.sorted().first(where: { $0.hasPrefix(typed) && !typed.isEmpty }) {
            return " (did you mean \(prefix)\(started)?)"
        }
        return ""
    }
    return " (did you mean \(prefix)\(best.0)?)"
}

/// Edit distance counting a swap of two neighbours as one edit ("jsno" is one step from "json").
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
            }
        }
    }
    return d[a.count][b.count]
}

/// The parser's usage errors too long for their call sites (exit 64, docs/cli.md).
extension RolloutError {
    fileprivate static func optionBeforeCommand(_ word: String) -> RolloutError {
        .usage("unknown option \(word) before a command; run rollout help")
    }

    fileprivate static func needsSubcommand(_ group: String, subcommands: [String]) -> RolloutError {
        .usage("\(group) needs a subcommand: \(subcommands.joined(separator: ", ")); run rollout help \(group)")
    }

    fileprivate static func singleDashOption(_ argument: String, of command: CommandSpec) -> RolloutError {
        .usage("unknown option \(argument) for rollout \(command.name); options are spelled --name")
    }

    fileprivate static func missingValue(_ name: String, _ valueName: String) -> RolloutError {
        .usage("option --\(name) needs a value (\(valueName))")
    }

    fileprivate static func unknownCommand(_ word: String, among names: Set<String>) -> RolloutError {
        .usage("unknown command \"\(word)\"" + suggestion(word, among: names) + "; see rollout help")
    }

    fileprivate static func unknownSubcommand(_ word: String, of group: String, among names: Set<String>)
        -> RolloutError
    {
        .usage("unknown command \"\(group) \(word)\"" + suggestion(word, among: names) + "; see rollout help \(group)")
    }

    fileprivate static func unknownOption(_ name: String, of command: CommandSpec, among names: Set<String>)
        -> RolloutError
    {
        .usage(
            "unknown option --\(name) for rollout \(command.name)" + suggestion(name, among: names, prefix: "--")
                + "; see rollout help \(command.name)")
    }

    fileprivate static func tooManyArguments(_ given: [String], of command: CommandSpec, maximum: Int) -> RolloutError {
        .usage(
            "rollout \(command.name) takes at most \(maximum) argument\(maximum == 1 ? "" : "s"), got \(given.count): "
                + "\(given.joined(separator: " ")); usage: rollout \(command.usage)")
    }

    fileprivate static func emptyOptionValue(_ value: String, of spec: OptionSpec) -> RolloutError {
        let shown = value.isEmpty ? "" : " (\"\(value)\" is only spaces)"
        return .usage(
            "option --\(spec.name) is empty\(shown); give \(spec.valueName ?? "a value") or leave the option out")
    }

    fileprivate static func emptyListItem(_ value: String, of spec: OptionSpec, item: Int, count: Int) -> RolloutError {
        .usage(
            "option --\(spec.name) \"\(value)\": item \(item) of \(count) is empty; separate the items with single commas"
        )
    }
}
