import Foundation
import RolloutModel
import RolloutStore

/// `rollout completion bash|zsh|fish`, and the hidden `rollout __complete WORDS...` the scripts call:
/// one implementation of what to offer, in Swift, for all three shells.
enum CompletionCommand {
    /// What the scripts print instead of candidates when the shell should complete file names.
    static let filesMarker = "__files__"

    static let spec = CommandSpec(
        path: ["completion"],
        summary: "print a shell completion script: commands, flags, locales and pack ids of the current repository",
        discussion: """
            bash:  source <(rollout completion bash)            (or save it to /etc/bash_completion.d/rollout)
            zsh:   source <(rollout completion zsh)             (after compinit)
            fish:  rollout completion fish > ~/.config/fish/completions/rollout.fish
            The scripts ask rollout itself for candidates, so locales and pack ids come from the
            repository found from the working directory (or --repo / ROLLOUT_REPO).
            """,
        options: NoOptions.self,
        arguments: .exactly("SHELL"),
        effects: [],
        run: { invocation, _ in
            let shell = invocation.positionals[0]
            guard let script = scripts[shell] else {
                throw RolloutError.usage("no completion for \"\(shell)\": choose bash, zsh or fish")
            }
            return CommandOutput(json: ["shell": .string(shell), "script": .string(script)], text: script)
        })

    static let scripts: [String: String] = [
        "bash": """
        # rollout completion for bash: source <(rollout completion bash)
        _rollout() {
            local cur="${COMP_WORDS[COMP_CWORD]}" IFS=$'\\n' candidates
            candidates=$(command rollout __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
            if [[ "$candidates" == "\(filesMarker)" ]]; then
                COMPREPLY=($(compgen -f -- "$cur"))
            else
                COMPREPLY=($(compgen -W "$candidates" -- "$cur"))
            fi
        }
        complete -o default -F _rollout rollout

        """,
        "zsh": """
        #compdef rollout
        # rollout completion for zsh: source <(rollout completion zsh)
        _rollout() {
            local -a candidates
            candidates=("${(@f)$(command rollout __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
            if [[ "${candidates[1]}" == "\(filesMarker)" ]]; then
                _files
            else
                compadd -- "${candidates[@]}"
            fi
        }
        compdef _rollout rollout

        """,
        "fish": """
        # rollout completion for fish: rollout completion fish > ~/.config/fish/completions/rollout.fish
        function __rollout_complete
            set -l words (commandline -opc) (commandline -ct)
            set -l candidates (command rollout __complete $words[2..-1] 2>/dev/null)
            if test "$candidates" = "\(filesMarker)"
                __fish_complete_path (commandline -ct)
            else
                printf '%s\\n' $candidates
            end
        end
        complete -c rollout -f -a '(__rollout_complete)'

        """,
    ]

    /// The candidates for the last of `words` (the words after `rollout`, the last one being the
    /// word under the cursor, possibly empty), one per line, already filtered by its prefix.
    static func candidates(_ words: [String], context: CommandContext) -> [String] {
        let current = words.last ?? ""
        let before = Array(words.dropLast())
        let commands = allCommands
        let (plain, command) = commandPath(before, commands: commands)
        let options = (command?.options ?? []) + globalOptions

        // The value of an option that takes one.
        if let previous = before.last, previous.hasPrefix("--"),
            let option = options.first(where: { "--" + $0.name == previous }), option.valueName != nil
        {
            return filter(values(for: option, command: command, words: before, context: context), current)
        }
        if current.hasPrefix("-") {
            return filter(options.map { "--" + $0.name }, current)
        }
        guard let command else {
            // The next word of a command path: "pack" offers add, diff, lint, ...
            let next = commands.compactMap { spec -> String? in
                guard spec.path.count > plain.count, spec.path.starts(with: plain) else { return nil }
                return spec.path[plain.count]
            }
            return filter(Array(Set(next + (plain.isEmpty ? ["help", "version"] : []))).sorted(), current)
        }
        // A positional argument: the words after the command's path that are not options.
        let index = plain.count - command.path.count
        let names = command.arguments.names
        let name = names.isEmpty ? "" : names[min(index, names.count - 1)]
        if command.arguments.maximum.map({ index >= $0 }) ?? false { return [] }
        switch name {
        case "LOCALE": return filter(locales(before, context: context), current)
        case "PACK", "FROM", "TO": return filter(packs(before, context: context), current)
        case "SHELL": return filter(["bash", "fish", "zsh"], current)
        case "COMMAND":
            // rollout help pack <TAB>: the next word of a command path, as for the command itself.
            let typed = Array(plain.dropFirst(command.path.count))
            let next = commands.compactMap { spec in
                spec.path.count > typed.count && spec.path.starts(with: typed) ? spec.path[typed.count] : nil
            }
            return filter(Array(Set(next)).sorted(), current)
        case "ACTION": return filter(DeviceAction.names, current)
        case "KEYID": return filter(keyIDs(before, context: context), current)
        case "ARGUMENT" where command.path == ["device"]:
            return plain.last == "metrics" ? filter(MetricKind.health.map(\.rawValue), current) : []
        case "": return []
        default: return [filesMarker]
        }
    }

    /// The words typed so far that are not options or option values, and the command the longest
    /// prefix of them names, if any.
    static func commandPath(_ words: [String], commands: [CommandSpec]) -> (plain: [String], command: CommandSpec?) {
        let takesValue = Set(
            (commands.flatMap(\.options) + globalOptions).filter { $0.valueName != nil }.map { "--" + $0.name })
        var plain: [String] = []
        var skip = false
        for word in words {
            if skip {
                skip = false
                continue
            }
            if word.hasPrefix("-") {
                skip = takesValue.contains(word)
                continue
            }
            plain.append(word)
        }
        var command: CommandSpec? = nil
        for spec in commands where plain.starts(with: spec.path) && spec.path.count > (command?.path.count ?? 0) {
            command = spec
        }
        return (plain, command)
    }

    static func filter(_ candidates: [String], _ prefix: String) -> [String] {
        if candidates == [filesMarker] { return candidates }
        return candidates.filter { $0.hasPrefix(prefix) }
    }

    /// What the option's declaration says its value completes to (`ValueCompletion`).
    static func values(for option: OptionSpec, command: CommandSpec?, words: [String], context: CommandContext)
        -> [String]
    {
        switch option.completion {
        case .none: return []
        case .files: return [filesMarker]
        case .words(let words): return words
        case .keyIDs: return keyIDs(words, context: context)
        case .contentVersions:
            let locale = words.dropFirst().first { !$0.hasPrefix("-") } ?? ""
            return ["bundled"]
                + packs(words, context: context).compactMap { id in
                    id.hasPrefix(locale + "@") ? String(id.dropFirst(locale.count + 1)) : nil
                }
        case .metricKinds(let orEveryOutcome):
            let stored = snapshot(words, context: context).flatMap { try? MetricsLayout.storedKinds(in: $0) } ?? []
            let kinds = Set(MetricKind.health + stored).sorted().map(\.rawValue)
            return orEveryOutcome ? kinds + [IngestKind.everyOutcomeName] : kinds
        }
    }

    /// The repository the command would use: --repo among the words, else the usual discovery.
    static func snapshot(_ words: [String], context: CommandContext) -> Snapshot? {
        var explicit: String? = nil
        for (index, word) in words.enumerated() {
            if word == "--repo", index + 1 < words.count { explicit = words[index + 1] }
            if word.hasPrefix("--repo=") { explicit = String(word.dropFirst(7)) }
        }
        let repository = try? PackRepository.discover(
            explicit: explicit, environment: context.environment["ROLLOUT_REPO"],
            workingDirectory: context.workingDirectory)
        return try? repository?.snapshot()
    }

    /// The ids of the repository's newest key list (rollout keys revoke KEYID, --keep KEYID).
    static func keyIDs(_ words: [String], context: CommandContext) -> [String] {
        guard let list = (try? snapshot(words, context: context)?.currentKeyList())??.list else { return [] }
        return list.roots.ids + list.publishing.keys.sorted()
    }

    static func locales(_ words: [String], context: CommandContext) -> [String] {
        (try? snapshot(words, context: context)?.locales()) ?? []
    }

    static func packs(_ words: [String], context: CommandContext) -> [String] {
        guard let snapshot = snapshot(words, context: context), let locales = try? snapshot.locales() else { return [] }
        return locales.flatMap { locale in ((try? snapshot.contentVersions(of: locale)) ?? []).map { "\(locale)@\($0)" }
        }
    }
}
