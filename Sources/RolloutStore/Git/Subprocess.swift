import CGit2
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Musl)
    import Musl
#endif

/// Runs one program to its end and returns what it wrote: how rollout runs git.
///
/// Not Foundation's `Process`: on Linux it hands every child a socket and takes the socket's
/// closing for the child's exit, so a program that outlives git and keeps its descriptors (a
/// credential helper's daemon, an ssh master connection) would hold rollout until it exits, and one
/// that closes them early (sshd) makes it wait on a process still running. Here the child's output
/// goes to unlinked temporary files, never pipes, only the child itself is waited for, and it
/// inherits no descriptor but the three standard ones.
enum Subprocess {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        /// Killed at `Launch.deadline`, before it ended on its own.
        var timedOut = false
    }

    /// How a program is started beyond its arguments. git's own runs take the defaults; the signer
    /// of a commit (`CommitSigner`) must never wait on a person, so it runs in a session of its own
    /// (no controlling terminal: a passphrase prompt fails at once instead of waiting) and is
    /// killed, with everything it started in its group, at a deadline.
    struct Launch {
        /// The file the program reads as its standard input.
        var input = "/dev/null"
        /// A new session (POSIX_SPAWN_SETSID): no controlling terminal, its own process group.
        var ownSession = false
        /// Seconds after which it is killed; nil waits for it to end.
        var deadline: Double? = nil
    }

    struct LaunchFailure: Error {
        let reason: String
        /// The program is not there (not installed, not in PATH).
        var notFound = false
    }

    // Long: one posix_spawn; its file actions, attributes and C strings must live in this scope
    // (each freed by a defer here) until the child has started.
    /// Runs `arguments[0]`, looked up in PATH, with `environment`, stdin from /dev/null (or `launch.input`).
    static func run(_ arguments: [String], environment: [String: String], launch: Launch = Launch()) throws -> Result {
        let stdout = try scratchFile(environment)
        defer { close(stdout) }
        let stderr = try scratchFile(environment)
        defer { close(stderr) }

        #if os(Linux)
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #else
            var actions: posix_spawn_file_actions_t? = nil
            var attributes: posix_spawnattr_t? = nil
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, launch.input, O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Nothing rollout inherited (its caller's pipes and sockets) reaches git, or what git leaves running.
        _ = rollout_spawn_close_from(&actions, 3)

        // The child starts with no blocked signals and default handlers: rollout's threads may
        // block some, and an ignored SIGPIPE would be inherited across exec.
        // Inherited from a parent that ignores it, an ignored SIGCHLD makes the kernel reap children
        // at once and waitpid fail: rollout waits for git, so it takes the default back.
        signal(SIGCHLD, SIG_DFL)
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if launch.ownSession { flags |= Int32(rollout_spawn_setsid_flag()) }
        #if canImport(Darwin)
            // Only what the file actions set up is inherited (glibc: the closefrom above).
            flags |= POSIX_SPAWN_CLOEXEC_DEFAULT
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        // Under the lock of the running set: an interruption sees every child started, and none
        // starts after it.
        guard
            let spawned = GitProcesses.running.start(
                { posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp) }, pid: { pid })
        else {
            throw LaunchFailure(reason: "\(arguments[0]) was not run: the command was interrupted")
        }
        defer { GitProcesses.running.finished(pid) }
        guard spawned == 0 else {
            throw LaunchFailure(
                reason: "cannot run \(arguments[0]): \(String(cString: strerror(spawned)))", notFound: spawned == ENOENT
            )
        }
        let (status, timedOut) = try wait(for: pid, named: arguments[0], deadline: launch.deadline)
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: exitCode, stdout: try contents(stdout), stderr: try contents(stderr), timedOut: timedOut)
    }

    /// Waits for `pid` to end; with a deadline, kills its process group (itself, when it has none
    /// of its own) once the deadline passes, and says so.
    private static func wait(for pid: pid_t, named name: String, deadline: Double?) throws
        -> (status: Int32, timedOut: Bool)
    {
        var status: Int32 = 0
        let end = deadline.map { Date().addingTimeInterval($0) }
        var timedOut = false
        while true {
            let result = waitpid(pid, &status, end == nil || timedOut ? 0 : WNOHANG)
            if result == pid { return (status, timedOut) }
            if result == -1 {
                guard errno == EINTR else {
                    throw LaunchFailure(reason: "cannot wait for \(name): \(String(cString: strerror(errno)))")
                }
                continue
            }
            if let end, Date() >= end {
                // Its own session makes it a group leader: the group holds what it started (an agent's prompt).
                if kill(-pid, SIGKILL) != 0 { kill(pid, SIGKILL) }
                timedOut = true
            } else {
                usleep(2_000)
            }
        }
    }

    /// A temporary file no other process can find: created, then unlinked at once, in the TMPDIR
    /// of the environment git runs in (the command's, not necessarily this process's).
    private static func scratchFile(_ environment: [String: String]) throws -> Int32 {
        let directory = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(directory)/rollout-git-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw LaunchFailure(
                reason: "cannot create a temporary file in \(directory): \(String(cString: strerror(errno)))")
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        // Above 2 (rollout may have been started with a standard descriptor closed, and mkstemp would
        // then return it), and close-on-exec: only the spawned git gets it, as its 1 or 2.
        let moved = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
        let cause = errno
        close(descriptor)
        guard moved >= 0 else {
            throw LaunchFailure(
                reason: "cannot create a temporary file in \(directory): \(String(cString: strerror(cause)))")
        }
        return moved
    }

    private static func contents(_ descriptor: Int32) throws -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
            offset += off_t(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The programs rollout is running now (git, for a fetch or a push), so that a command
/// interrupted by a signal can stop them before it cleans up after itself (`rollout clone`).
package enum GitProcesses {
    static let running = Running()

    /// Stops every program started and starts no more: each gets `signal`, then SIGKILL if it has
    /// not ended within `grace` seconds. Returns when all have ended (not reaped: the thread that
    /// started each still waits for it).
    package static func stopAll(signal: Int32 = SIGTERM, grace: TimeInterval = 3) {
        let pids = running.refuseMore()
        for pid in pids { kill(pid, signal) }
        for pid in pids where !ended(pid, within: grace) {
            kill(pid, SIGKILL)
            _ = ended(pid, within: grace)
        }
    }

    /// Whether `pid` ended within `seconds`, leaving it to be reaped by whoever waits for it.
    private static func ended(_ pid: pid_t, within seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var info = siginfo_t()
            let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG)
            // ECHILD: already reaped by the thread that started it.
            if result == -1 && errno != EINTR { return true }
            #if os(Linux)
                let reported = info._sifields._sigchld.si_pid
            #else
                let reported = info.si_pid
            #endif
            if result == 0 && reported == pid { return true }
            usleep(10_000)
        }
        return false
    }

    /// The set, under a lock, and whether new programs may start.
    /// `@unchecked Sendable`: `lock` guards `pids` and `refusing`.
    final class Running: @unchecked Sendable {
        private let lock = NSLock()
        private var pids = Set<pid_t>()
        private var refusing = false

        /// Runs `spawn` unless refusing; records the pid it made. Nil when refused.
        func start(_ spawn: () -> Int32, pid: () -> pid_t) -> Int32? {
            lock.withLock {
                guard !refusing else { return nil }
                let result = spawn()
                if result == 0 { pids.insert(pid()) }
                return result
            }
        }

        func finished(_ pid: pid_t) { _ = lock.withLock { pids.remove(pid) } }

        func refuseMore() -> [pid_t] {
            lock.withLock {
                refusing = true
                return Array(pids)
            }
        }
    }
}
