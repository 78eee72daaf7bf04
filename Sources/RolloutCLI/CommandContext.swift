import Foundation
import RolloutModel
import RolloutStore

/// Everything a command needs from the outside world, built once and passed in, so commands run
/// the same in a process and in a test.
public struct CommandContext {
    public var environment: [String: String]
    public var workingDirectory: String
    public var stdoutIsTerminal: Bool
    /// Progress lines are drawn only for people watching a terminal.
    public var stderrIsTerminal: Bool = false
    /// Whether a person can answer git's prompts (credentials) on a terminal during fetch and push.
    public var stdinIsTerminal: Bool = false
    /// The wall clock; `ROLLOUT_NOW` (ISO 8601) overrides it for reproducible demos and tests.
    public var systemClock: () -> Timestamp
    /// Progress and warnings for people, on stderr. Commands write through `progress(_:finished:)`,
    /// which applies the escaping rule.
    public var diagnostics: (String) -> Void
    /// All of standard input, read when a command asks (`rollout hook pre-receive`'s ref updates).
    public var standardInput: () -> [UInt8] = { [] }
    /// Makes this run's colour marks unforgeable (see `Style`).
    var styleToken = String(UInt64.random(in: .min ... .max), radix: 36)

    public static func live() -> CommandContext {
        CommandContext(
            environment: ProcessInfo.processInfo.environment,
            workingDirectory: FileManager.default.currentDirectoryPath,
            stdoutIsTerminal: isatty(STDOUT_FILENO) == 1,
            stderrIsTerminal: isatty(STDERR_FILENO) == 1,
            stdinIsTerminal: isatty(STDIN_FILENO) == 1,
            systemClock: { Timestamp(seconds: Int64(Date().timeIntervalSince1970)) },
            diagnostics: { FileHandle.standardError.write(Data($0.utf8)) },
            standardInput: { [UInt8](FileHandle.standardInput.readDataToEndOfFile()) })
    }

    func repository(_ invocation: Invocation) throws -> PackRepository {
        let repository = try PackRepository.discover(
            explicit: try invocation.value(GlobalOptions.all.repo)?.text, environment: environment["ROLLOUT_REPO"],
            workingDirectory: workingDirectory)
        repository.offline =
            invocation.flag(GlobalOptions.all.offline)
            || ["1", "true", "yes"].contains(environment["ROLLOUT_OFFLINE"]?.lowercased() ?? "")
        if let text = environment["ROLLOUT_PACK_THRESHOLD"], !text.isEmpty {
            guard let threshold = Int(text), threshold >= 0 else {
                throw RolloutError.usage("ROLLOUT_PACK_THRESHOLD=\(text) is not a count of loose objects such as 2000")
            }
            repository.packThreshold = threshold
        }
        repository.warn = { [diagnostics] in diagnostics("warning: \($0.oneLine)\n") }
        repository.gitEnvironment = environment
        repository.stdinIsTerminal = stdinIsTerminal
        repository.signing = try signing(invocation)
        repository.proposing = invocation.flag(ApprovalCommands.ProposeOptions.declared.propose)
        return repository
    }

    /// How a change commit is signed: `--sign` or `--no-sign`, else git config `commit.gpgSign`;
    /// `ROLLOUT_SIGN_TIMEOUT` (seconds) bounds the signing program. Read by commands that write.
    func signing(_ invocation: Invocation) throws -> SigningRequest {
        var request = SigningRequest()
        let sign = invocation.flag(GlobalOptions.all.sign)
        let noSign = invocation.flag(GlobalOptions.all.noSign)
        if sign && noSign {
            throw RolloutError.usage("--sign and --no-sign cannot both be given: choose one")
        }
        request.choice = sign ? .always : noSign ? .never : .asConfigured
        request.workingDirectory = workingDirectory
        if let text = environment["ROLLOUT_SIGN_TIMEOUT"], !text.isEmpty {
            guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                throw RolloutError.usage("ROLLOUT_SIGN_TIMEOUT=\(text) is not a number of seconds such as 30")
            }
            request.timeout = seconds
        }
        return request
    }

    /// The repository if one can be found; nil (not an error) when none exists and none was named.
    func optionalRepository(_ invocation: Invocation) throws -> PackRepository? {
        do {
            return try repository(invocation)
        } catch StoreRefusal.noRepositoryFound(let directory) {
            if invocation.given(GlobalOptions.all.repo) || !(environment["ROLLOUT_REPO"] ?? "").isEmpty {
                throw StoreRefusal.noRepositoryFound(from: directory)
            }
            return nil
        }
    }

    /// Who is acting: `--actor`, then `ROLLOUT_ACTOR`, then git config `user.name`/`user.email`
    /// (repository, then global), then the login name.
    func actor(_ invocation: Invocation, repository: PackRepository?) throws -> Actor {
        // An empty --actor never gets here: the parser refuses empty values.
        if let flag = invocation.value(GlobalOptions.all.actor) {
            try Self.checkActorLength(flag, from: "--actor")
            return try Actor.parse(flag, from: "--actor")
        }
        if let env = environment["ROLLOUT_ACTOR"], !env.trimmingCharacters(in: .whitespaces).isEmpty {
            try Self.checkActorLength(env, from: "ROLLOUT_ACTOR")
            return try Actor.parse(env, from: "ROLLOUT_ACTOR")
        }
        // git reads a repository's config and then the global one; outside a repository, the global one.
        if let repository {
            if let configured = try repository.configuredActor() { return configured }
        } else if let configured = try PackRepository.configuredActor() {
            return configured
        }
        let login = [environment["USER"], environment["LOGNAME"]].compactMap { $0 }.first { !$0.isEmpty }
        return try Actor(validating: login ?? "unknown", email: "", from: "the login name")
    }

    /// An actor of at most `InputLimits.actorBytes`, before anything else is read from it.
    private static func checkActorLength(_ text: String, from source: String) throws {
        if let tooLong = InputLimits.tooLong("the actor", text, limit: InputLimits.actorBytes) {
            throw RolloutError.usage("\(source): \(tooLong); write Name <email>")
        }
    }

    package func now() throws -> Timestamp {
        if let text = environment["ROLLOUT_NOW"], !text.isEmpty {
            guard let time = Timestamp(iso8601: text), time.seconds >= 0 else {
                throw RolloutError.usage("ROLLOUT_NOW=\(text) is not an ISO 8601 time such as 2026-11-30T09:00:00Z")
            }
            return time
        }
        return systemClock()
    }

    package func absolutePath(_ path: String) -> String {
        path.hasPrefix("/")
            ? path : URL(fileURLWithPath: workingDirectory).appendingPathComponent(path).standardizedFileURL.path
    }

    /// Checks that a file named on the command line is a regular file (not a directory, a named
    /// pipe or a device), without opening it; returns its absolute path.
    @discardableResult
    func requireFile(_ path: String, describedAs what: String = "file") throws -> String {
        let absolute = absolutePath(path)
        try LocalFile.requireRegular(absolute, name: path, describedAs: what)
        return absolute
    }

    /// Reads a file named on the command line. Refuses files over `limit` bytes before reading them.
    func readFile(_ path: String, limit: Int? = nil, describedAs what: String = "file") throws -> [UInt8] {
        try LocalFile.read(absolutePath(path), name: path, describedAs: what) { size in
            if let limit, size > limit {
                throw RolloutError.badInput(
                    "\(path): \(what) is \(ByteCount.describe(size)), over the limit of \(ByteCount.describe(limit)) (policy limits.maxPackBytes)"
                )
            }
        }
    }

    package func style(_ invocation: Invocation?) -> Style {
        let noColor =
            !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
            || invocation?.flag(GlobalOptions.all.noColor) == true
        return Style(enabled: stdoutIsTerminal && !noColor, token: styleToken)
    }

    /// One progress line redrawn in place on stderr: `\r` is ours, the line's text is shown by the
    /// escaping rule like all human output.
    func progress(_ line: String, finished: Bool) {
        diagnostics("\r" + line.oneLine + (finished ? "\n" : ""))
    }
}

extension CommandContext {
    /// Replaces a file atomically (write a temporary file beside it, flush it, then rename).
    func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        try LocalFile.replace(absolutePath(path), with: bytes, name: path)
    }
}
