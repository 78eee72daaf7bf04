import Foundation
import RolloutModel

/// Fetch and push through the system `git` (docs/teams.md, "How rollout talks to the server").
/// Running git itself is what makes a remote authenticate exactly as `git clone URL` does on the
/// same machine: credential helpers, GIT_ASKPASS, http.extraheader, http.sslCAInfo and
/// GIT_SSL_CAINFO, core.sshCommand, ~/.ssh/config and known_hosts, proxies. libgit2 keeps every
/// local object and ref; only the bytes that cross the network go through git.
///
/// The remote's branch still moves only by compare-and-swap: a push carries
/// `--force-with-lease=REF:EXPECTED`, which git checks against the server's advertisement and which
/// receive-pack checks again, under its lock, as the old value of the update.
public struct GitTransport: Sendable {
    /// The repository (a git directory) the objects come from and go to.
    public let gitDirectory: String
    /// The environment git runs in: the user's, minus variables that would point git at another
    /// repository, with git's messages in English so they can be classified.
    let environment: [String: String]

    public init(gitDirectory: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.gitDirectory = gitDirectory
        self.environment = GitTransport.environment(from: environment)
    }

    /// What a failed network operation was, as far as git's message tells: the one classification
    /// every fetch and push goes through, so the same failure always gives the same exit code.
    public enum FailureKind: Equatable, Sendable {
        /// No credentials, wrong credentials, no access (HTTP 401 and 403, ssh's "Permission denied").
        case authentication
        /// The server took the credentials but refused the change: a hook, a protected branch.
        case refusedByServer
        /// ssh does not know the server's host key, or it changed.
        case hostKey
        /// The server's TLS certificate did not verify.
        case certificate
        /// Nothing is at that URL.
        case notFound
        /// The network or the server failed in a way that may pass: connection refused or reset, a
        /// timeout, a 5xx.
        case transient
        /// Anything else git refused: a URL it cannot speak, a local configuration it rejects.
        case other
    }

    public struct Failure: Error, Sendable {
        public let kind: FailureKind
        /// What git and the server said, credentials removed, one line each.
        public let lines: [String]
    }

    public enum PushOutcome: Equatable, Sendable {
        /// The branch is now the pushed commit.
        case landed
        /// The branch was not the expected commit any more: another writer was faster.
        case refMoved(String)
    }

    /// Fetches `source` (a ref on the remote) into the local ref `destination`. Returns false when
    /// the remote has no such ref.
    public func fetch(remote: String, source: String, into destination: String, secrets: [String]) throws -> Bool {
        let run = try git([
            "fetch", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--refmap=", remote,
            "+\(source):\(destination)",
        ])
        if run.status == 0 { return true }
        let lines = GitTransport.messageLines(run.stderr, secrets: secrets)
        if lines.contains(where: { $0.contains("couldn't find remote ref") }) { return false }
        throw Failure(kind: GitTransport.classify(lines), lines: lines)
    }

    /// Pushes `commit` as `ref` on the remote if, and only if, the remote's `ref` is `expected`
    /// (absent when nil).
    public func push(_ commit: String, to remote: String, ref: String, expected: String?, secrets: [String]) throws -> PushOutcome {
        let run = try git([
            "push", "--porcelain", "--no-follow-tags", "--force-with-lease=\(ref):\(expected ?? "")", remote, "\(commit):\(ref)",
        ])
        let lines = GitTransport.messageLines(run.stderr, secrets: secrets)
        // Porcelain: "FLAG<TAB>FROM:TO<TAB>SUMMARY (REASON)" for the ref, whatever the exit status
        // (git may fail to update its own tracking ref after the remote took the push).
        let status = run.stdout.split(separator: "\n").first { $0.split(separator: "\t").count >= 3 && $0.contains(":\(ref)\t") }
        guard let status else { throw Failure(kind: GitTransport.classify(lines), lines: lines) }
        let fields = status.split(separator: "\t", omittingEmptySubsequences: false)
        let summary = RemoteURL.redactingURLs(in: String(fields[2]), secrets: secrets)
        switch fields[0] {
        case " ", "*", "+", "=": return .landed
        case "!" where summary.hasPrefix("[rejected]"):
            return .refMoved(summary)
        case "!" where summary.hasPrefix("[remote rejected]") && GitTransport.isLostRace(summary):
            return .refMoved(summary)
        case "!" where summary.hasPrefix("[remote failure]"):
            throw Failure(kind: .transient, lines: lines + [summary])
        default:
            throw Failure(kind: .refusedByServer, lines: lines + ["\(ref): \(summary)"])
        }
    }

    // MARK: running git

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    func git(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // No automatic gc or maintenance: rollout's pushes and fetches stay as fast as they were,
        // and a background repack never races another rollout process on this repository.
        process.arguments = ["git", "-c", "gc.auto=0", "-c", "maintenance.auto=false", "--git-dir=\(gitDirectory)"] + arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do {
            try process.run()
        } catch {
            throw Failure(kind: .other, lines: ["cannot run git: \(error.localizedDescription)"])
        }
        // Both pipes are drained at once, so a child that writes a lot to one never blocks.
        let stderrData = LockedData()
        let reader = Thread { stderrData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !stderrData.done { usleep(1_000) }
        let run = Run(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData.value, as: UTF8.self))
        // env(1) exits 127 when it cannot find git.
        if run.status == 127 && run.stderr.contains("git") && run.stderr.contains("No such file") {
            throw Failure(kind: .other, lines: ["git is not installed (rollout runs it for every fetch and push): install git, for example apt-get install git"])
        }
        return run
    }

    private final class LockedData: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        private var finished = false
        func set(_ value: Data) {
            lock.lock()
            data = value
            finished = true
            lock.unlock()
        }
        var done: Bool {
            lock.lock()
            defer { lock.unlock() }
            return finished
        }
        var value: Data {
            lock.lock()
            defer { lock.unlock() }
            return data
        }
    }

    /// The user's environment, so git finds their helpers, keys and settings, without the variables
    /// that would make git act on another repository (set when rollout runs inside a git hook), and
    /// with git's own messages in English (LC_MESSAGES=C; the server's text stays as it is): they
    /// are what the classification reads.
    static func environment(from inherited: [String: String]) -> [String: String] {
        var environment = inherited
        for key in [
            "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX", "GIT_QUARANTINE_PATH", "GIT_CEILING_DIRECTORIES",
        ] {
            environment[key] = nil
        }
        if let all = environment["LC_ALL"] {
            environment["LC_ALL"] = nil
            environment["LC_CTYPE"] = all
        }
        environment["LC_MESSAGES"] = "C"
        environment["LANGUAGE"] = nil
        // Nobody can answer a prompt that has no terminal: fail at once, as git does in CI.
        if isatty(STDIN_FILENO) == 0 && environment["GIT_TERMINAL_PROMPT"] == nil { environment["GIT_TERMINAL_PROMPT"] = "0" }
        return environment
    }

    // MARK: reading git's messages

    /// git's stderr as lines a person can read: progress and blank lines dropped, credentials
    /// removed.
    static func messageLines(_ stderr: String, secrets: [String]) -> [String] {
        stderr.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            .map { RemoteURL.redactingURLs(in: $0.trimmingCharacters(in: .whitespaces), secrets: secrets) }
            .filter { line in
                !line.isEmpty && line != "remote:" && !line.hasPrefix("To ") && !line.hasPrefix("hint:")
                    && !line.contains("failed to push some refs")
                    // git's advice after any ssh failure, even a refused connection.
                    && line != "Please make sure you have the correct access rights" && line != "and the repository exists."
                    && !["Counting objects", "Compressing objects", "Writing objects", "Total ", "Enumerating objects", "Delta compression"].contains { line.contains($0) }
            }
    }

    /// A receive-pack refusal that means another writer held or moved the ref, not a hook.
    static func isLostRace(_ summary: String) -> Bool {
        ["failed to lock", "cannot lock", "failed to update ref", "incorrect old value", "stale info", "fetch first", "non-fast-forward"]
            .contains { summary.contains($0) }
    }

    /// The one classification of git's messages. Permanent causes are looked for first: ssh prints
    /// "Permission denied" and then the same "Could not read from remote repository" as a dropped
    /// connection.
    static func classify(_ lines: [String]) -> FailureKind {
        let text = lines.joined(separator: "\n")
        func has(_ needles: String...) -> Bool { needles.contains { text.localizedCaseInsensitiveContains($0) } }
        if has("Host key verification failed", "REMOTE HOST IDENTIFICATION HAS CHANGED", "host key is known") { return .hostKey }
        if has("SSL certificate problem", "server certificate verification failed", "certificate verify failed", "unable to get local issuer", "self-signed certificate", "self signed certificate", "no alternative certificate subject name", "does not match target host name", "certificate has expired")
        {
            return .certificate
        }
        // git daemon's answer for a path it does not serve, before "Access denied" below.
        if has("access denied or repository not exported") { return .notFound }
        if has(
            "Authentication failed", "could not read Username", "could not read Password", "Access denied", "returned error: 401", "returned error: 403",
            "Permission denied (", "Permission denied, please try again", "Permission to ", "Too many authentication failures", "Invalid username or password",
            "dubious ownership")
        {
            return .authentication
        }
        if has("returned error: 404", "Repository not found", "does not appear to be a git repository", "not found") { return .notFound }
        if has(
            "Could not resolve host", "Temporary failure in name resolution", "Connection refused", "Failed to connect", "timed out", "Connection reset",
            "Connection closed", "early EOF", "hung up unexpectedly", "RPC failed", "returned error: 50", "transfer closed", "unexpected disconnect",
            "Broken pipe", "kex_exchange_identification", "Network is unreachable", "No route to host", "Empty reply from server")
        {
            return .transient
        }
        return .other
    }
}
