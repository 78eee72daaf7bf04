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

    public static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, repeatable: false, isList: false, help: help)
    }

    public static func value(_ name: String, _ valueName: String, _ help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, repeatable: repeatable, isList: false, help: help)
    }

    public static func list(_ name: String, _ valueName: String, _ help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, repeatable: repeatable, isList: true, help: help)
    }
}

/// Options every command takes.
let globalOptions: [OptionSpec] = [
    .value("repo", "DIR", "the pack repository (default: ROLLOUT_REPO, else found from the working directory like git)"),
    .flag("json", "print one JSON document on stdout; errors go to stderr as JSON"),
    .value("actor", "NAME", "who is making the change (default: ROLLOUT_ACTOR, else git config user.name and user.email)"),
    .flag("offline", "keep the change in this repository even if it has a remote; rollout sync pushes it later (also ROLLOUT_OFFLINE=1)"),
    .flag("no-color", "never colour the output (NO_COLOR in the environment does the same)"),
    .flag("help", "show help for the command"),
]

/// What the parser found on the command line for one command.
public struct Invocation {
    public let command: CommandSpec
    /// The words after the program name, as given: what `rollout device` hands to rollout-device.
    package var arguments: [String] = []
    public var positionals: [String] = []
    var values: [String: [String]] = [:]
    var lists: [String: [String]] = [:]
    var flags: Set<String> = []

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func values(_ name: String) -> [String] { values[name] ?? [] }
    /// The items of a list option over all its occurrences, trimmed, none empty.
    public func list(_ name: String) -> [String] { lists[name] ?? [] }

    public var json: Bool { flag("json") }
}

/// The table-driven parser: finds the command from the leading words, then reads options from the
/// command's table plus the global table in one loop. `--` ends options.
struct ArgumentParser {
    let commands: [CommandSpec]

    enum Outcome {
        case run(Invocation)
        case help([String])
        case version(json: Bool)
    }

    func parse(_ arguments: [String]) throws -> Outcome {
        var path: [String] = []
        var index = 0
        // Global options given before the command (`rollout --repo DIR pack add ...`), re-read below.
        var leading: [String] = []
        // Leading words select the command; global options may come before them.
        while index < arguments.count {
            let word = arguments[index]
            if word == "--version" || word == "-V" { return .version(json: arguments.contains("--json")) }
            if word == "--help" || word == "-h" { return .help(path) }
            let name = String(word.drop { $0 == "-" }.prefix { $0 != "=" })
            if word.hasPrefix("--"), let spec = globalOptions.first(where: { $0.name == name }) {
                leading.append(word)
                index += 1
                if spec.valueName != nil, !word.contains("="), index < arguments.count {
                    leading.append(arguments[index])
                    index += 1
                }
                continue
            }
            if word.hasPrefix("-") { break }
            let candidate = path + [word]
            if commands.contains(where: { $0.path.starts(with: candidate) }) {
                path = candidate
                index += 1
                if commands.contains(where: { $0.path == path }) && !commands.contains(where: { $0.path.count > path.count && $0.path.starts(with: path) }) {
                    break
                }
                continue
            }
            break
        }
        if path == ["help"] { return .help(Array(arguments[index...]).filter { !$0.hasPrefix("-") }) }
        if path == ["version"] { return .version(json: arguments.contains("--json")) }
        guard let command = commands.first(where: { $0.path == path }) else {
            if path.isEmpty {
                guard index < arguments.count else { return .help([]) }
                let word = arguments[index]
                if word.hasPrefix("-") { throw RolloutError.usage("unknown option \(word) before a command; run rollout help") }
                let names = Set(commands.map { $0.path[0] })
                throw RolloutError.usage("unknown command \"\(word)\"" + suggestion(word, among: names) + "; see rollout help")
            }
            let group = path.joined(separator: " ")
            let subcommands = commands.filter { $0.path.starts(with: path) }.map { $0.path[path.count] }
            if index < arguments.count, !arguments[index].hasPrefix("-") {
                let word = arguments[index]
                throw RolloutError.usage("unknown command \"\(group) \(word)\"" + suggestion(word, among: Set(subcommands)) + "; see rollout help \(group)")
            }
            throw RolloutError.usage("\(group) needs a subcommand: \(subcommands.joined(separator: ", ")); run rollout help \(group)")
        }
        var invocation = Invocation(command: command, arguments: arguments)
        let table = command.options + globalOptions
        var optionsEnded = false
        let rest = leading + arguments[index...]
        index = 0
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
                throw RolloutError.usage("unknown option \(argument) for rollout \(command.name); options are spelled --name")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = table.first(where: { $0.name == name }) else {
                let known = Set(table.map(\.name))
                throw RolloutError.usage("unknown option --\(name) for rollout \(command.name)" + suggestion(name, among: known, prefix: "--") + "; see rollout help \(command.name)")
            }
            if spec.name == "help" { return .help(command.path) }
            if let valueName = spec.valueName {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < rest.count else {
                        throw RolloutError.usage("option --\(name) needs a value (\(valueName))")
                    }
                    value = rest[index]
                    index += 1
                }
                if !spec.repeatable, invocation.values[name] != nil {
                    throw RolloutError.usage("option --\(name) is given twice")
                }
                try Self.requireValue(value, of: spec)
                invocation.values[name, default: []].append(value)
                if spec.isList { invocation.lists[name, default: []] += try Self.listItems(value, of: spec) }
            } else {
                if inlineValue != nil { throw RolloutError.usage("option --\(name) takes no value") }
                invocation.flags.insert(name)
            }
        }
        let count = invocation.positionals.count
        if count < command.arguments.minimum {
            let missing = command.arguments.names.dropFirst(count).first ?? "ARGUMENT"
            throw RolloutError.usage("rollout \(command.name) needs \(missing); usage: rollout \(command.usage)")
        }
        if let maximum = command.arguments.maximum, count > maximum {
            throw RolloutError.usage("rollout \(command.name) takes at most \(maximum) argument\(maximum == 1 ? "" : "s"), got \(count): \(invocation.positionals.joined(separator: " ")); usage: rollout \(command.usage)")
        }
        return .run(invocation)
    }
}

extension ArgumentParser {
    /// An unset shell variable (`--region "$REGION"`) must never widen a change, so an empty value is
    /// a usage error for every option that takes one, never "the default" or "everything".
    static func requireValue(_ value: String, of spec: OptionSpec) throws {
        guard value.trimmingSpaces.isEmpty else { return }
        let shown = value.isEmpty ? "" : " (\"\(value)\" is only spaces)"
        throw RolloutError.usage("option --\(spec.name) is empty\(shown); give \(spec.valueName ?? "a value") or leave the option out")
    }

    /// The one place a comma list is split: items are trimmed, and an empty item (`TR,,DE`, `,TR`,
    /// `TR, `) is a usage error naming its position, for the same reason as an empty value.
    static func listItems(_ value: String, of spec: OptionSpec) throws -> [String] {
        let items = value.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        if let empty = items.firstIndex(where: \.isEmpty) {
            throw RolloutError.usage("option --\(spec.name) \"\(value)\": item \(empty + 1) of \(items.count) is empty; separate the items with single commas")
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
    let a = Array(a), b = Array(b)
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
