import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where and with what a page runs: the same for every page, so a page states everything else itself.
public struct TranscriptEnvironment: Sendable {
    /// Folders put first on PATH: the built `rollout` and `rollout-device`, then the repository's scripts.
    public var path: [String]
    /// The repository's examples/ folder, as `$ROLLOUT_EXAMPLES`.
    public var examples: String
    /// git's author and committer dates, so a commit a page makes with plain git has the same id on every
    /// run. rollout's clock is not set: a page whose outputs depend on the date exports `ROLLOUT_NOW` where
    /// the reader sees it, or its dates differ from run to run and `transcripts update` says so.
    public var gitDate = "2026-12-01T09:00:00Z"
    /// How long one section may run before it is stopped and reported.
    public var timeLimit: TimeInterval = 600
    /// Where the last section's directory is moved when it has run (`transcripts play --keep`), instead
    /// of being removed.
    public var keepWork: String?

    public init(path: [String], examples: String) {
        self.path = path
        self.examples = examples
    }

    /// The repository the runner is in, from this file's place in it, and the binaries in `binDirectory`.
    public static func repository(_ root: String, binDirectory: String) -> TranscriptEnvironment {
        TranscriptEnvironment(
            path: [binDirectory, root + "/scripts", root + "/scripts/docs"], examples: root + "/examples")
    }

    /// The page's whole environment. Under `make coverage` the profile path goes on too, so an
    /// instrumented `rollout` writes its profile there, not a `default.profraw` into the page's
    /// folder (where a page's `ls` would show it) (docs/architecture.md, "Test coverage").
    func variables(root: String) -> [String: String] {
        let system = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        var variables = [
            "PATH": (path + [system]).joined(separator: ":"),
            "HOME": root + "/home",
            "TMPDIR": root + "/tmp",
            "LC_ALL": "C.UTF-8",
            "LANG": "C.UTF-8",
            "TZ": "UTC",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Ana Release", "GIT_AUTHOR_EMAIL": "ana@example.com",
            "GIT_COMMITTER_NAME": "Ana Release", "GIT_COMMITTER_EMAIL": "ana@example.com",
            "GIT_AUTHOR_DATE": gitDate,
            "GIT_COMMITTER_DATE": gitDate,
            "ROLLOUT_EXAMPLES": examples,
        ]
        variables["LLVM_PROFILE_FILE"] = ProcessInfo.processInfo.environment["LLVM_PROFILE_FILE"]
        return variables
    }
}

/// One section of a page run in one bash, command after command, in a new scratch directory.
struct TranscriptShell {
    var environment: TranscriptEnvironment

    /// What each command printed (stdout and stderr as a terminal shows them, scratch paths written as
    /// `[dir]`, `[home]`, `[tmp]`, the examples folder as `[examples]`), with `[exit N]` last when it exited
    /// non-zero.
    func run(_ commands: [TranscriptPage.Command], path: String) throws -> [[String]] {
        let root = try Self.scratch()
        defer {
            if let keep = environment.keepWork {
                try? FileManager.default.removeItem(atPath: keep)
                try? FileManager.default.moveItem(atPath: root + "/work", toPath: keep)
            }
            try? FileManager.default.removeItem(atPath: root)
        }
        let script = Self.script(commands, in: root + "/work")
        try script.write(toFile: root + "/script.sh", atomically: true, encoding: .utf8)
        let outputPath = root + "/output"
        // The shell's own status is not the page's: each command's is in the output, after its marker.
        let timedOut = try Self.spawn(
            ["/bin/bash", "--noprofile", "--norc", root + "/script.sh"], output: outputPath,
            environment: environment.variables(root: root), timeLimit: environment.timeLimit)
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: outputPath)), as: UTF8.self)
        let results = Self.split(text, root: root, examples: environment.examples, count: commands.count)
        if results.count < commands.count {
            let stopped = commands[results.count]
            throw TranscriptError.run(
                path,
                timedOut
                    ? "line \(stopped.line): still running after \(Int(environment.timeLimit)) s; stopped"
                    : "line \(stopped.line): the shell ended during `\(stopped.text)`; later commands did not run")
        }
        return results
    }

    private static let marker = "\u{1E}rollout-transcript"

    /// Runs the shell as the leader of a new process group, its output and errors to one file, and waits
    /// for it alone (not for what it left in the background); then the whole group is killed, so a server
    /// a page started dies with it. posix_spawn, not Process: Foundation's Process waits until every
    /// process that inherited its status socket has exited, a background server included. Whether the
    /// time limit stopped it.
    private static func spawn(
        _ arguments: [String], output: String, environment: [String: String], timeLimit: TimeInterval
    ) throws -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var spawnedID = pid_t()
        let spawned = posix_spawn(&spawnedID, arguments[0], &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw TranscriptError.run(arguments[0], "cannot start: \(String(cString: strerror(spawned)))")
        }
        let pid = spawnedID
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            finished.signal()
        }
        let timedOut = finished.wait(timeout: .now() + timeLimit) == .timedOut
        kill(-pid, SIGKILL)
        if timedOut { finished.wait() }
        return timedOut
    }

    private static func script(_ commands: [TranscriptPage.Command], in work: String) -> String {
        // Descriptors the runner's process left open are closed (255 is bash reading this script), so a
        // server started in the background holds nothing of the runner's.
        var script =
            "for fd in $(ls /proc/$$/fd); do if [ \"$fd\" -gt 2 ] && [ \"$fd\" -lt 255 ]; then eval \"exec $fd>&-\"; fi; done\n"
        script += "cd '\(work)' || exit 1\n"
        for (index, command) in commands.enumerated() {
            script += "printf '\\036rollout-transcript start \(index)\\n'\n"
            script += command.text + "\n"
            script += "printf '\\036rollout-transcript exit %d\\n' \"$?\"\n"
        }
        return script
    }

    private static func scratch() throws -> String {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("transcript-\(UUID().uuidString)")
        // Symbolic links resolved: the path commands print is the one written as [dir].
        let root = base.resolvingSymlinksInPath().path
        for folder in ["work", "home", "tmp"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        // No identity here: rollout would take it as the actor, and the actor goes into commits and so into
        // salts and buckets. A page exports ROLLOUT_ACTOR where the reader sees it, so a reader with another
        // git identity gets the page's buckets; plain git commits take GIT_AUTHOR_NAME and its kin.
        let config = "[init]\n\tdefaultBranch = main\n"
        try config.write(toFile: root + "/home/.gitconfig", atomically: true, encoding: .utf8)
        return root
    }

    /// The output cut at the markers. A command's output that does not end its last line still ends there;
    /// blank lines at the end of an output are not kept (a page cannot show them).
    static func split(_ text: String, root: String, examples: String, count: Int) -> [[String]] {
        var results: [[String]] = []
        var current: [String]? = nil
        for line in text.components(separatedBy: "\n") {
            guard let range = line.range(of: marker) else {
                current?.append(line)
                continue
            }
            if range.lowerBound > line.startIndex { current?.append(String(line[..<range.lowerBound])) }
            let instruction = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
            if instruction.hasPrefix("start") {
                current = []
            } else if instruction.hasPrefix("exit"), var lines = current {
                while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
                let status = instruction.dropFirst(4).trimmingCharacters(in: .whitespaces)
                if status != "0" { lines.append("[exit \(status)]") }
                results.append(lines.map { Self.normalize($0, root: root, examples: examples) })
                current = nil
            }
        }
        return Array(results.prefix(count))
    }

    private static func normalize(_ line: String, root: String, examples: String) -> String {
        let named = line.replacingOccurrences(of: root + "/work", with: "[dir]")
            .replacingOccurrences(of: examples, with: "[examples]")
            .replacingOccurrences(of: root + "/home", with: "[home]")
            .replacingOccurrences(of: root + "/tmp", with: "[tmp]")
        return trimmingTrailingSpace(named)
    }
}
