import Foundation

/// What rollout runs from a repository it is handed (docs/teams.md, "A repository handed over"):
/// nothing. A repository's own config (its `config`, `config.worktree` and what they include) may
/// name the remote, its URL and rollout's settings; it never chooses a program. Every key git reads
/// as a program or a shell command (hooks, `remote.NAME.uploadpack` and `receivepack`,
/// `core.sshCommand`, credential helpers, `core.askPass`, `core.gitProxy`, gpg programs,
/// `core.fsmonitor`, `core.alternateRefsCommand`) and every key that would let a URL run one (`protocol.*.allow`, for `ext::`)
/// takes, for each git that rollout runs, the value of the user's own config (system, global,
/// `GIT_CONFIG_*` and `-c` in the environment) or git's default. Hooks never run at all: rollout's
/// git only moves objects and refs. A repository another user owns is refused before any of
/// this unless the user's `safe.directory` lists it (`checkOwner`: git's rule, which neither
/// libgit2's bare open nor a git given `--git-dir` applies).
enum HandedOverConfig {
    /// One entry of `git config --list --show-scope`.
    struct Entry: Equatable {
        let scope: String
        let key: String
        let value: String

        /// Written by the repository, not by the user.
        var isRepository: Bool { scope == "local" || scope == "worktree" }
    }

    /// How a key that names a program is taken back to the user's choice.
    enum Rule {
        /// The last value the user's config gives, else this default.
        case single(String)
        /// A list (credential helpers): emptied, then the user's values in their order.
        case list
    }

    /// The keys that name a program, as `git config --list` spells them (section and name in lower
    /// case, a subsection as written), and how each is neutralised. The one table.
    static func rule(for key: String, environment: [String: String]) -> Rule? {
        let lower = key.lowercased()
        let parts = lower.split(separator: ".", omittingEmptySubsequences: false)
        guard let section = parts.first, let name = parts.last, parts.count >= 2 else { return nil }
        switch (section, name) {
        case ("credential", "helper"): return .list
        case ("core", "sshcommand") where parts.count == 2:
            // git's own order after core.sshCommand: GIT_SSH (a program, not a command line), then ssh.
            return .single(environment["GIT_SSH"].flatMap { $0.isEmpty ? nil : shellQuoted($0) } ?? "ssh")
        case ("core", "askpass") where parts.count == 2:
            // Empty: git asks no program (SSH_ASKPASS still counts, as git reads it after this key).
            return .single(environment["SSH_ASKPASS"] ?? "")
        case ("core", "fsmonitor") where parts.count == 2: return .single("false")
        // Run on the repositories objects/info/alternates names, to list their tips for a fetch's
        // negotiation: `true` lists none (a fetch may then send more), and runs nothing of theirs.
        case ("core", "alternaterefscommand") where parts.count == 2: return .single("true")
        case ("push", "gpgsign") where parts.count == 2: return .single("false")
        case ("gpg", "program") where parts.count == 2: return .single("gpg")
        case ("gpg", "program") where parts.count == 3:
            return .single(["x509": "gpgsm", "ssh": "ssh-keygen"][String(parts[1])] ?? "gpg")
        case ("gpg", "defaultkeycommand"): return .single("")
        case ("protocol", "allow"):
            guard parts.count == 3 else { return .single("user") }
            return .single(protocolDefaults[String(parts[1])] ?? "user")
        default: return nil
        }
    }

    /// git's defaults when `protocol.allow` is not set: what a repository's `protocol.allow` stands
    /// in for once it is taken away (ext:: runs any command its URL names).
    static let protocolDefaults = [
        "http": "always", "https": "always", "git": "always", "ssh": "always", "file": "always", "ext": "never",
    ]

    /// What every git rollout runs gets, whatever the configs say.
    static let always: [(String, String)] = [
        // Not even the user's own hooks: rollout's pushes and fetches move refs it has checked.
        ("core.hooksPath", "/dev/null")
    ]

    /// `arguments` (a git subcommand and its arguments, `fetch` or `push` to `remote`) and
    /// `environment` for a git on `gitDirectory`, with every program named by the repository's own
    /// config replaced as `rule(for:)` says. The overrides go in as `GIT_CONFIG_COUNT` entries
    /// (command scope, after the user's own): any key, a URL's subsection with '=' included. git
    /// takes the first `uploadpack` and `receivepack` it reads, the user's before the repository's,
    /// so those two are given as `--upload-pack` and `--receive-pack`, which come before any.
    /// The remote is the first argument after the subcommand that is not an option, as
    /// `GitTransport` writes them (`fetch OPTIONS REMOTE REFSPEC`, `push OPTIONS REMOTE REFSPEC`).
    /// Throws, as git refuses it, for a repository another user owns that the user's
    /// `safe.directory` does not list.
    static func command(_ arguments: [String], gitDirectory: String, _ environment: [String: String]) throws
        -> (arguments: [String], environment: [String: String])
    {
        let remote = arguments.dropFirst().first { !$0.hasPrefix("-") } ?? ""
        let listed = try? Subprocess.run(
            ["git", "--git-dir=\(gitDirectory)", "config", "--list", "--show-scope", "-z"], environment: environment)
        let entries = listed.flatMap { $0.status == 0 ? parse($0.stdout) : nil } ?? []
        try checkOwner(gitDirectory, entries, environment)
        var arguments = arguments
        let programs = [
            "fetch": (key: "uploadpack", option: "--upload-pack", program: "git-upload-pack"),
            "push": (key: "receivepack", option: "--receive-pack", program: "git-receive-pack"),
        ]
        if let subcommand = arguments.first, let program = programs[subcommand] {
            let key = "remote.\(remote).\(program.key)"
            if entries.contains(where: { $0.isRepository && folded($0.key) == key }) {
                let users = entries.filter { !$0.isRepository && folded($0.key) == key }.map(\.value)
                arguments.insert("\(program.option)=\(users.first ?? program.program)", at: 1)
            }
        }
        return (arguments, HandedOverConfig.environment(entries, environment))
    }

    /// git's `safe.directory` rule, which git itself does not apply to a `--git-dir` it is given: the
    /// repository is the user's (root may use the one its `sudo` caller owns), or a `safe.directory`
    /// value of the user's own config names it (or is `*`; an empty value empties the list).
    static func checkOwner(_ gitDirectory: String, _ entries: [Entry], _ environment: [String: String]) throws {
        var status = stat()
        guard stat(gitDirectory, &status) == 0 else { return }
        let user = geteuid()
        if status.st_uid == user { return }
        if user == 0, let sudo = environment["SUDO_UID"].flatMap(UInt32.init), status.st_uid == sudo { return }
        var listed: [String] = []
        for entry in entries where !entry.isRepository && folded(entry.key) == "safe.directory" {
            if entry.value.isEmpty { listed = [] } else { listed.append(entry.value) }
        }
        let names = Set([gitDirectory, URL(fileURLWithPath: gitDirectory).resolvingSymlinksInPath().path].map(trimmed))
        if listed.contains(where: { $0 == "*" || names.contains(trimmed($0)) }) { return }
        throw GitTransport.Failure(
            kind: .other,
            lines: [
                "detected dubious ownership in repository at '\(gitDirectory)': it is owned by uid \(status.st_uid), and this is uid \(user)",
                "rollout, like git, runs git on a repository another user owns only when the user lists it as safe: if you trust it, git config --global --add safe.directory \(gitDirectory)",
            ])
    }

    private static func trimmed(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// `environment` with the overrides for `entries`.
    static func environment(_ entries: [Entry], _ environment: [String: String]) -> [String: String] {
        var result = adding(overrides(entries, environment), to: environment)
        if entries.contains(where: { $0.isRepository && folded($0.key) == "core.gitproxy" })
            && environment["GIT_PROXY_COMMAND"] == nil
        {
            // git takes the first matching core.gitProxy, the repository's before any later one;
            // the variable, even empty, makes git skip them all.
            result["GIT_PROXY_COMMAND"] = ""
        }
        return result
    }

    /// The overrides for `entries` (every scope, in git's order): `always`, then each program key the
    /// repository set, back to the user's value or the default.
    static func overrides(_ entries: [Entry], _ environment: [String: String]) -> [(String, String)] {
        var result = always
        var seen = Set<String>()
        var protocolSet = false
        for entry in entries where entry.isRepository {
            let folded = folded(entry.key)
            guard !seen.contains(folded), let rule = rule(for: entry.key, environment: environment) else { continue }
            seen.insert(folded)
            if folded.hasPrefix("protocol.") { protocolSet = true }
            let users = entries.filter { !$0.isRepository && Self.folded($0.key) == folded }.map(\.value)
            switch rule {
            case .single(let fallback): result.append((entry.key, users.last ?? fallback))
            case .list: result += [(entry.key, "")] + users.map { (entry.key, $0) }
            }
        }
        if protocolSet {
            // A repository's protocol.allow would otherwise stand for ext:: too.
            for (name, value) in protocolDefaults.sorted(by: { $0.key < $1.key })
            where !seen.contains("protocol.\(name).allow") {
                let key = "protocol.\(name).allow"
                let users = entries.filter { !$0.isRepository && Self.folded($0.key) == key }.map(\.value)
                result.append((key, users.last ?? value))
            }
        }
        return result
    }

    /// `environment` with `overrides` appended as GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n.
    static func adding(_ overrides: [(String, String)], to environment: [String: String]) -> [String: String] {
        var result = environment
        var count = Int(environment["GIT_CONFIG_COUNT"] ?? "") ?? 0
        for (key, value) in overrides {
            result["GIT_CONFIG_KEY_\(count)"] = key
            result["GIT_CONFIG_VALUE_\(count)"] = value
            count += 1
        }
        result["GIT_CONFIG_COUNT"] = String(count)
        return result
    }

    /// `git config --list --show-scope -z`: SCOPE NUL KEY [LF VALUE] NUL, repeated.
    static func parse(_ text: String) -> [Entry] {
        let fields = text.split(separator: "\0", omittingEmptySubsequences: false)
        var entries: [Entry] = []
        var index = 0
        while index + 1 < fields.count {
            let scope = String(fields[index])
            let item = fields[index + 1]
            index += 2
            guard !scope.isEmpty else { continue }
            if let newline = item.firstIndex(of: "\n") {
                entries.append(
                    Entry(
                        scope: scope, key: String(item[..<newline]), value: String(item[item.index(after: newline)...]))
                )
            } else {
                entries.append(Entry(scope: scope, key: String(item), value: "true"))
            }
        }
        return entries
    }

    /// A key as git compares it: section and name without case, the subsection as written.
    static func folded(_ key: String) -> String {
        guard let first = key.firstIndex(of: "."), let last = key.lastIndex(of: "."), first != last else {
            return key.lowercased()
        }
        return key[..<first].lowercased() + key[first..<last] + key[last...].lowercased()
    }

    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
