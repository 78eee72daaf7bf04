import Foundation
import XCTest

/// Failures of the servers the tests start, with the server's own log.
struct ServerError: Error, CustomStringConvertible {
    let description: String
}

/// Starts a server with its stdout and stderr in files (never pipes: a chatty server must not
/// block on a full pipe), and kills it with SIGKILL: a child spawned from the test's threads
/// inherits their blocked SIGTERM (see GitDaemon).
///
/// The server runs under a waiting `sh`: Foundation notices a child's exit when the child's copy
/// of a descriptor it hands down closes, and sshd closes every inherited descriptor at start. Run
/// directly, it would look exited at once and Foundation would block waiting for it, so that no
/// later process (the rollout under test) is ever seen to exit.
final class ServerProcess {
    private let shell = Process()
    private let pidFile: String
    let stdoutFile: String
    let stderrFile: String

    init(_ arguments: [String], logs prefix: String) throws {
        stdoutFile = prefix + ".stdout"
        stderrFile = prefix + ".stderr"
        pidFile = prefix + ".pid"
        FileManager.default.createFile(atPath: stdoutFile, contents: nil)
        FileManager.default.createFile(atPath: stderrFile, contents: nil)
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "\"$0\" \"$@\" & echo $! > '\(pidFile)'; wait"] + arguments
        shell.standardInput = FileHandle.nullDevice
        shell.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutFile))
        shell.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrFile))
        try shell.run()
    }

    var stdout: String { (try? String(contentsOfFile: stdoutFile, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? "" }

    /// Polls `ready` for up to ten seconds while the server lives.
    func wait(until ready: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if ready() { return true }
            if !shell.isRunning { return false }
            usleep(20_000)
        }
        return false
    }

    func stop() {
        guard shell.isRunning else { return }
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: pidFile) { usleep(10_000) }
        if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            kill(pid, SIGKILL)
        }
        kill(shell.processIdentifier, SIGKILL)
        shell.waitUntilExit()
    }
}

/// Runs a tool the fixtures need (openssl, ssh-keygen), failing with its output.
@discardableResult
private func tool(_ arguments: [String], in directory: String) throws -> RunResult {
    let result = try Processes.run(
        "/usr/bin/env", arguments, in: directory,
        environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
    guard result.status == 0 else {
        throw ServerError(description: "\(arguments.joined(separator: " ")) failed: \(result.output)")
    }
    return result
}

/// A private certificate authority and a server certificate it signed for 127.0.0.1 and
/// localhost, made with the openssl CLI for one test: the self-hosted server with an internal CA.
struct TestCertificates {
    let authorityFile: String
    let certificateFile: String
    let keyFile: String

    init(in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        authorityFile = directory + "/ca.pem"
        certificateFile = directory + "/server.pem"
        keyFile = directory + "/server.key"
        let extensions = directory + "/server.ext"
        try Data(
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
                .utf8
        )
        .write(to: URL(fileURLWithPath: extensions))
        try tool(
            [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                "/CN=rollout tests internal CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                "-keyout", directory + "/ca.key", "-out", authorityFile,
            ], in: directory)
        try tool(
            [
                "openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", keyFile, "-out",
                directory + "/server.csr",
            ], in: directory)
        try tool(
            [
                "openssl", "x509", "-req", "-in", directory + "/server.csr", "-CA", authorityFile, "-CAkey",
                directory + "/ca.key",
                "-CAcreateserial", "-days", "2", "-extfile", extensions, "-out", certificateFile,
            ], in: directory)
    }
}

/// Tests/Fixtures/servers/git-http-server.py on loopback: the real `git http-backend` behind
/// Basic auth, over HTTP or HTTPS, logging every request.
final class HTTPGitServer {
    enum Mode: String {
        /// Every request needs a user.
        case `private`
        /// Fetching is anonymous; pushing needs a user.
        case publicRead = "public-read"
    }

    /// One line of the server's request log.
    struct Request: Decodable {
        let method: String
        let path: String
        let query: String
        let user: String
        let status: Int

        var isPush: Bool { method == "POST" && path.hasSuffix("/git-receive-pack") }
    }

    let root: String
    let port: Int
    let scheme: String
    private let logFile: String
    private let server: ServerProcess

    /// Serves the bare repositories under `root`. `users` maps names to passwords; `forbidden`
    /// users authenticate but get 403; `headers` maps whole Authorization header values (a bearer
    /// token, for http.extraheader) to the user they stand for.
    init(
        root: String, state directory: String, mode: Mode = .private, users: [String: String] = [:],
        forbidden: [String] = [],
        headers: [String: String] = [:], tls: TestCertificates? = nil
    ) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.root = root
        scheme = tls == nil ? "http" : "https"
        logFile = directory + "/requests.log"
        var config: [String: Any] = [
            "root": root, "log": logFile, "mode": mode.rawValue, "users": users, "forbidden": forbidden,
            "headers": headers, "port": 0,
        ]
        if let tls { config["tls"] = ["cert": tls.certificateFile, "key": tls.keyFile] }
        let configFile = directory + "/server.json"
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configFile))
        FileManager.default.createFile(atPath: logFile, contents: nil)
        let script = Fixtures.directory + "/servers/git-http-server.py"
        server = try ServerProcess(["/usr/bin/env", "python3", script, configFile], logs: directory + "/server")
        let server = self.server
        guard server.wait(until: { server.stdout.hasSuffix("\n") }),
            let port = Int(server.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            server.stop()
            throw ServerError(description: "the git HTTP server did not start: \(server.stderr)")
        }
        self.port = port
    }

    /// The URL of a repository under the root; with a user (and password) in it when given.
    func url(_ repository: String, user: String? = nil, password: String? = nil) -> String {
        let userinfo = user.map { user in (password.map { "\(user):\($0)" } ?? user) + "@" } ?? ""
        return "\(scheme)://\(userinfo)127.0.0.1:\(port)/\(repository)"
    }

    /// The scheme, host and port, as credential helpers and http.<url>.* settings match them.
    var origin: String { "\(scheme)://127.0.0.1:\(port)" }

    /// Every request served so far, in order.
    func requests() throws -> [Request] {
        try String(contentsOfFile: logFile, encoding: .utf8).split(separator: "\n").map {
            try JSONDecoder().decode(Request.self, from: Data($0.utf8))
        }
    }

    /// The server's own errors (a failed TLS handshake, a crash), for failure messages.
    var errors: String { server.stderr }

    func stop() { server.stop() }
}

/// A real sshd on a random loopback port with its own host key, accepting only the keys it
/// generated (no passwords), and an ssh client config with one Host alias per key.
///
/// ssh reads `~` from the passwd entry, not $HOME, so tests point git at `configFile` through
/// `core.sshCommand` (see `sshCommand`) in the test's global git config or GIT_SSH_COMMAND.
final class SSHGitServer {
    let directory: String
    let port: Int
    /// The login: root when the tests run as root (as on CI), else the current user.
    let user: String
    let configFile: String
    let knownHostsFile: String
    private let server: ServerProcess

    /// Makes a key for each of `authorized` (its server-side REMOTE_USER is the name, so a hook
    /// can tell who pushes) and for each of `unauthorized` (keys the server does not know). With
    /// `trustHostKey` false, the client's known_hosts starts empty and checking is strict.
    init(directory: String, authorized: [String], unauthorized: [String] = [], trustHostKey: Bool = true) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        user =
            getuid() == 0
            ? "root" : (getpwuid(getuid()).flatMap { String(cString: $0.pointee.pw_name) } ?? NSUserName())
        configFile = directory + "/ssh_config"
        knownHostsFile = directory + "/known_hosts"
        if getuid() == 0 && !FileManager.default.fileExists(atPath: "/run/sshd") {
            // sshd's privilege separation directory, which the package's init script would make.
            try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        }
        let hostKey = directory + "/host_key"
        try tool(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "rollout-tests-host", "-f", hostKey], in: directory)
        var authorizedKeys = ""
        for name in authorized + unauthorized {
            try tool(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", directory + "/key-\(name)"],
                in: directory)
            if authorized.contains(name) {
                authorizedKeys +=
                    "environment=\"REMOTE_USER=\(name)\" "
                    + (try String(contentsOfFile: directory + "/key-\(name).pub", encoding: .utf8))
            }
        }
        try Data(authorizedKeys.utf8).write(to: URL(fileURLWithPath: directory + "/authorized_keys"))

        var started: (ServerProcess, Int)?
        var lastError = ""
        for _ in 0..<20 where started == nil {
            let port = Int.random(in: 20_000...60_000)
            let config = """
                ListenAddress 127.0.0.1:\(port)
                HostKey \(hostKey)
                PidFile none
                AuthorizedKeysFile \(directory)/authorized_keys
                PasswordAuthentication no
                KbdInteractiveAuthentication no
                PubkeyAuthentication yes
                PermitRootLogin prohibit-password
                StrictModes no
                UsePAM no
                PermitUserEnvironment yes
                LogLevel VERBOSE

                """
            try Data(config.utf8).write(to: URL(fileURLWithPath: directory + "/sshd_config"))
            let sshd = try ServerProcess(
                ["/usr/sbin/sshd", "-D", "-e", "-f", directory + "/sshd_config"], logs: directory + "/sshd")
            if sshd.wait(until: { sshd.stderr.contains("Server listening on") }) {
                started = (sshd, port)
            } else {
                lastError = sshd.stderr
                sshd.stop()
            }
        }
        guard let (server, port) = started else { throw ServerError(description: "sshd did not start: \(lastError)") }
        self.server = server
        self.port = port

        let hostPublicKey = try String(contentsOfFile: hostKey + ".pub", encoding: .utf8)
        try Data((trustHostKey ? "[127.0.0.1]:\(port) \(hostPublicKey)" : "").utf8).write(
            to: URL(fileURLWithPath: knownHostsFile))
        let hosts = (authorized + unauthorized).map { name in
            """
            Host \(alias(name))
              HostName 127.0.0.1
              Port \(port)
              User \(user)
              IdentityFile \(directory)/key-\(name)
              IdentitiesOnly yes
              UserKnownHostsFile \(knownHostsFile)
              GlobalKnownHostsFile /dev/null
              StrictHostKeyChecking yes
              BatchMode yes

            """
        }
        try Data(hosts.joined().utf8).write(to: URL(fileURLWithPath: configFile))
    }

    /// The ssh config Host alias that logs in with `name`'s key.
    func alias(_ name: String) -> String { "gitserver-\(name)" }

    /// An ssh URL for a repository at an absolute path on this machine, logging in as `name`.
    func url(_ path: String, as name: String) -> String { "ssh://\(alias(name))\(path)" }

    /// The private key text of `name`, which must never be printed or stored.
    func privateKey(_ name: String) throws -> String {
        try String(contentsOfFile: directory + "/key-\(name)", encoding: .utf8)
    }

    /// For core.sshCommand or GIT_SSH_COMMAND.
    var sshCommand: String { "ssh -F \(configFile)" }

    var log: String { server.stderr }

    func stop() { server.stop() }
}

/// Server-side hooks in a bare repository, as a git host's branch protection behaves.
enum ServerHooks {
    /// Installs a pre-receive hook that refuses any update of refs/heads/main by anyone but
    /// `allowed` (REMOTE_USER: the HTTP user, or the ssh key's name), printing `message` and the
    /// user, and that counts its runs in the repository's `pre-receive-runs` file.
    static func protectMain(in repository: String, allowing allowed: String, message: String) throws {
        let hook = repository + "/hooks/pre-receive"
        let script = """
            #!/bin/sh
            echo run >> "$GIT_DIR/pre-receive-runs"
            while read old new ref; do
                if [ "$ref" = refs/heads/main ] && [ "${REMOTE_USER:-}" != '\(allowed)' ]; then
                    echo "\(message) (user: ${REMOTE_USER:-anonymous})" >&2
                    exit 1
                fi
            done
            exit 0

            """
        try FileManager.default.createDirectory(atPath: repository + "/hooks", withIntermediateDirectories: true)
        try Data(script.utf8).write(to: URL(fileURLWithPath: hook))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
    }

    /// How many times the hook installed by `protectMain` ran.
    static func runs(in repository: String) -> Int {
        ((try? String(contentsOfFile: repository + "/pre-receive-runs", encoding: .utf8)) ?? "").split(separator: "\n")
            .count
    }
}
