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
struct GitTransport: Sendable {
    /// The repository (a git directory) the objects come from and go to.
    let gitDirectory: String
    /// The environment git runs in: the user's, minus variables that would point git at another
    /// repository, with git's messages in English so they can be classified.
    let environment: [String: String]

    /// Whether the user set git's low-speed limit (config or environment); rollout sets one if not.
    let limitsSpeed: Bool

    init(
        gitDirectory: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        stdinIsTerminal: Bool = isatty(STDIN_FILENO) == 1, userLimitsSpeed: Bool = false
    ) {
        self.gitDirectory = gitDirectory
        self.environment = GitTransport.environment(from: environment, stdinIsTerminal: stdinIsTerminal)
        limitsSpeed =
            userLimitsSpeed || environment["GIT_HTTP_LOW_SPEED_LIMIT"] != nil
            || environment["GIT_HTTP_LOW_SPEED_TIME"] != nil
    }

    /// What a failed network operation was, as far as git's message tells: the one classification
    /// every fetch and push goes through, so the same failure always gives the same exit code.
    enum FailureKind: Equatable, Sendable {
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
        /// git itself could not be run.
        case noGit
    }

    struct Failure: Error, Sendable {
        let kind: FailureKind
        /// What git and the server said, credentials removed, one line each.
        let lines: [String]

        /// Classified by what git said, as it said it; shown with every credential removed.
        init(_ raw: [String], secrets: [String], kind: FailureKind? = nil) {
            self.kind = kind ?? GitTransport.classify(raw)
            lines = raw.map { RemoteURL.redactingURLs(in: $0, secrets: secrets) }
        }

        init(kind: FailureKind, lines: [String]) {
            self.kind = kind
            self.lines = lines
        }
    }

    enum PushOutcome: Sendable {
        /// The branch is now the pushed commit.
        case landed
        /// The branch was not the expected commit any more: another writer was faster.
        case refMoved(String)
        /// The server refused the update for a reason of its own (a hook, a protected branch, or
        /// a race in words this classification does not know): the caller looks at the branch to
        /// tell which.
        case rejected(Failure)
    }

    /// Fetches `source` (a ref on the remote) into the local ref `destination`. Returns false when
    /// the remote has no such ref.
    func fetch(remote: String, source: String, into destination: String, secrets: [String]) throws -> Bool {
        let run = try git([
            "fetch", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--refmap=", remote,
            "+\(source):\(destination)",
        ])
        if run.status == 0 { return true }
        let lines = GitTransport.messageLines(run.stderr)
        if lines.contains(where: { $0.contains("couldn't find remote ref") }) { return false }
        throw Failure(lines, secrets: secrets)
    }

    /// Pushes `commit` as `ref` on the remote if, and only if, the remote's `ref` is `expected`
    /// (absent when nil).
    func push(_ commit: String, to remote: String, ref: String, expected: String?, secrets: [String]) throws
        -> PushOutcome
    {
        // --no-verify: a pre-push hook (a global core.hooksPath) guards a person's pushes from their
        // work tree, not the state rollout has already checked.
        let run = try git([
            "push", "--porcelain", "--no-verify", "--no-follow-tags", "--force-with-lease=\(ref):\(expected ?? "")",
            remote, "\(commit):\(ref)",
        ])
        let lines = GitTransport.messageLines(run.stderr)
        // Porcelain: "FLAG<TAB>FROM:TO<TAB>SUMMARY (REASON)" for the ref, whatever the exit status
        // (git may fail to update its own tracking ref after the remote took the push).
        let status = run.stdout.split(separator: "\n").first {
            $0.split(separator: "\t").count >= 3 && $0.contains(":\(ref)\t")
        }
        guard let status else { throw Failure(lines, secrets: secrets) }
        let fields = status.split(separator: "\t", omittingEmptySubsequences: false)
        let summary = RemoteURL.redactingURLs(in: String(fields[2]), secrets: secrets)
        switch fields[0] {
        case " ", "*", "+", "=": return .landed
        case "!" where summary.hasPrefix("[rejected]"):
            return .refMoved(summary)
        case "!" where summary.hasPrefix("[remote rejected]") && GitTransport.isLostRace(summary):
            return .refMoved(summary)
        case "!" where summary.hasPrefix("[remote failure]"):
            throw Failure(lines + [summary], secrets: secrets, kind: .transient)
        case "!" where summary.contains("unpacker error") || summary.contains("missing necessary objects"):
            // The server could not store the objects (its disk, its limits): not who you are.
            throw Failure(lines + ["\(ref): \(summary)"], secrets: secrets, kind: .other)
        default:
            return .rejected(Failure(lines + ["\(ref): \(summary)"], secrets: secrets, kind: .refusedByServer))
        }
    }

    // MARK: running git

    func git(_ arguments: [String]) throws -> Subprocess.Result {
        // No automatic gc or maintenance: rollout's pushes and fetches stay as fast as they were,
        // and a background repack never races another rollout process on this repository.
        var command = ["git", "-c", "gc.auto=0", "-c", "maintenance.auto=false"]
        // A connection that stalls fails (and is tried again) instead of holding a CI job until
        // its own timeout: unless the user chose a limit, under 1 KB/s for 60 s is a failure.
        if !limitsSpeed { command += ["-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=60"] }
        // Nothing the repository's own config names runs (HandedOverConfig).
        let safe = try HandedOverConfig.command(arguments, gitDirectory: gitDirectory, environment)
        command += ["--git-dir=\(gitDirectory)"] + safe.arguments
        do {
            return try Subprocess.run(command, environment: safe.environment)
        } catch let failure as Subprocess.LaunchFailure {
            throw Failure(kind: failure.notFound ? .noGit : .transient, lines: [failure.reason])
        }
    }

    /// The user's environment, so git finds their helpers, keys and settings, without the variables
    /// that would make git act on another repository (set when rollout runs inside a git hook), and
    /// with git's own messages in English (LC_MESSAGES=C; the server's text stays as it is): they
    /// are what the classification reads.
    static func environment(from inherited: [String: String], stdinIsTerminal: Bool = false) -> [String: String] {
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
        if !stdinIsTerminal && environment["GIT_TERMINAL_PROMPT"] == nil { environment["GIT_TERMINAL_PROMPT"] = "0" }
        return environment
    }

    // MARK: reading git's messages

    /// git's stderr as lines a person can read, as git wrote them (`Failure` removes credentials
    /// after classifying): progress, advice and blank lines dropped.
    static func messageLines(_ stderr: String) -> [String] {
        stderr.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { line in
                !line.isEmpty && line != "remote:" && !line.hasPrefix("To ") && !line.hasPrefix("hint:")
                    && !line.contains("failed to push some refs")
                    // git's advice after any ssh failure, even a refused connection.
                    && line != "Please make sure you have the correct access rights"
                    && line != "and the repository exists."
                    && ![
                        "Counting objects", "Compressing objects", "Writing objects", "Total ", "Enumerating objects",
                        "Delta compression",
                    ].contains { line.contains($0) }
            }
    }

    /// Whether a failed push certainly never handed its pack to the server: no connection was
    /// made, or git's HTTP client failed at the advertisement (`unable to access`), before any
    /// POST. Any other failure may have reached receive-pack, which may still apply the push.
    static func neverReachedServer(_ failure: Failure) -> Bool {
        let text = failure.lines.joined(separator: "\n")
        return [
            "unable to access", "Could not resolve host", "Could not resolve hostname", "Connection refused",
            "Failed to connect", "Network is unreachable", "No route to host", "Temporary failure in name resolution",
        ].contains { text.localizedCaseInsensitiveContains($0) }
    }

    /// A receive-pack refusal that means another writer held or moved the ref, not a hook.
    static func isLostRace(_ summary: String) -> Bool {
        [
            "failed to lock", "cannot lock", "failed to update ref", "incorrect old value", "stale info", "fetch first",
            "non-fast-forward",
        ]
        .contains { summary.contains($0) }
    }

    /// The one classification of git's messages. Permanent causes are looked for first: ssh prints
    /// "Permission denied" and then the same "Could not read from remote repository" as a dropped
    /// connection. An HTTP status, when git gives one, decides before the wording does.
    static func classify(_ lines: [String]) -> FailureKind {
        let text = lines.joined(separator: "\n")
        func has(_ needles: String...) -> Bool { has(needles) }
        func has(_ needles: [String]) -> Bool { needles.contains { text.localizedCaseInsensitiveContains($0) } }
        if has("Host key verification failed", "REMOTE HOST IDENTIFICATION HAS CHANGED", "host key is known") {
            return .hostKey
        }
        if has(
            "SSL certificate problem", "server certificate verification failed", "certificate verify failed",
            "unable to get local issuer",
            "self-signed certificate", "self signed certificate", "no alternative certificate subject name",
            "does not match target host name",
            "certificate has expired")
        {
            return .certificate
        }
        // git's own answer to a repository another user owns: its message says what to run.
        if has("dubious ownership") { return .other }
        // git daemon's answer for a path it does not serve, before "Access denied" below.
        if has("access denied or repository not exported") { return .notFound }
        if has(
            "Authentication failed", "could not read Username", "could not read Password", "terminal prompts disabled",
            "Access denied",
            "Permission denied (", "Permission denied, please try again", "Permission to ", "User permission denied",
            "permission denied for",
            "Too many authentication failures", "Invalid username or password", "Public key authentication failed",
            "marked as read only",
            "not allowed to push", "you don't have permission", "you do not have permission")
        {
            return .authentication
        }
        if let status = httpStatus(text) {
            switch status {
            case 401, 403, 407: return .authentication
            case 404, 410: return .notFound
            // A server or proxy that failed for now; 501 and 505 say what it will never do.
            case 408, 429, 500, 502, 503, 504, 520...527: return .transient
            default: return .other
            }
        }
        if has("Repository not found", "does not appear to be a git repository", "could not be found")
            || text.range(of: "repository '[^']*' not found", options: .regularExpression) != nil
        {
            return .notFound
        }
        // This machine's git cannot speak the URL at all: no remote helper for its scheme, no ssh.
        // git may break the pipe to the helper it failed to start, and say so; the cause decides.
        if has("is not a git command", "unable to find remote helper", "ssh: not found") { return .other }
        return has(transientWords) ? .transient : .other
    }

    /// What git, curl, OpenSSL, GnuTLS and ssh say when the network or the server failed in a way
    /// that may pass.
    static let transientWords = [
        "Could not resolve host", "Could not resolve proxy", "Temporary failure in name resolution",
        "Connection refused", "Failed to connect",
        "timed out", "Operation too slow", "Connection reset", "Connection closed", "closed by remote host",
        "early EOF", "hung up unexpectedly",
        "RPC failed", "transfer closed", "unexpected disconnect", "Broken pipe", "kex_exchange_identification",
        "Network is unreachable",
        "No route to host", "Empty reply from server", "SSL_ERROR_SYSCALL", "gnutls_handshake() failed",
        "GnuTLS recv error",
        "unexpected eof while reading", "was not closed cleanly",
    ]

    /// The HTTP status git reports: "The requested URL returned error: 503", "RPC failed; HTTP 413",
    /// a proxy's "Received HTTP code 407 from proxy after CONNECT".
    static func httpStatus(_ text: String) -> Int? {
        for pattern in ["returned error: ([0-9]{3})", "RPC failed; HTTP ([0-9]{3})", "Received HTTP code ([0-9]{3})"] {
            guard let expression = try? NSRegularExpression(pattern: pattern),
                let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                let range = Range(match.range(at: 1), in: text)
            else { continue }
            return Int(text[range])
        }
        return nil
    }
}
