import Foundation
import RolloutModel

/// Whether a change commit is signed: as the operator's git config says (`commit.gpgSign`), or
/// always (`--sign`) or never (`--no-sign`), whatever it says.
public enum SigningChoice: Sendable, Equatable {
    case asConfigured, always, never
}

/// What a repository is told about signing by whoever runs the command (`CommandContext`): the
/// choice, where a relative `user.signingKey` is found, and how long the signer may take.
public struct SigningRequest: Sendable {
    /// Never by default: a library caller asks for signing; the command line asks for git's rule.
    public var choice = SigningChoice.never
    /// A relative `user.signingKey` is read from here, as git reads it from where it runs.
    public var workingDirectory = FileManager.default.currentDirectoryPath
    /// Seconds the signing program may take before it is killed (a prompt nobody can answer).
    public var timeout: Double = 30

    public init() {}
}

/// How the operator's git config signs a commit, as `git commit -S` reads it: `gpg.format`
/// (openpgp by default, or ssh), `user.signingKey`, and the program (`gpg.program`,
/// `gpg.openpgp.program`, `gpg.ssh.program`, from the user's own config only, as for every git
/// rollout runs: docs/teams.md, "A repository handed over"). Part of a refusal, so the message
/// says what git config said.
public struct SignerSetup: Equatable, Sendable {
    public enum Format: String, Sendable { case openpgp, ssh }
    public let format: Format
    public let program: String
    /// The config key that named the program; nil for git's default (gpg, ssh-keygen).
    public let programKey: String?
    /// `user.signingKey` as configured; for openpgp without one, the committer (`Name <email>`).
    public let key: String
    /// The key is the committer's identity because `user.signingKey` is not set (openpgp only).
    public let keyIsCommitter: Bool
    /// The key is the first `gpg.ssh.defaultKeyCommand` printed, as `user.signingKey` is not set (ssh only).
    public let defaultKeyCommand: String?

    public init(
        format: Format, program: String, programKey: String?, key: String, keyIsCommitter: Bool,
        defaultKeyCommand: String? = nil
    ) {
        self.format = format
        self.program = program
        self.programKey = programKey
        self.key = key
        self.keyIsCommitter = keyIsCommitter
        self.defaultKeyCommand = defaultKeyCommand
    }
}

/// Why a change could not be signed, as data (worded by the command line, which names the flags
/// and the git config lines that fix it). Each leaves the repository as it was: a commit is signed
/// before any ref moves.
public enum SigningRefusal: Refusal {
    /// `gpg.format` names a format rollout does not sign with (x509, or a value git does not know).
    case unsupportedFormat(String)
    /// ssh signing asked for, and neither `user.signingKey` nor `gpg.ssh.defaultKeyCommand` is set.
    case noSSHKey
    /// `gpg.ssh.defaultKeyCommand` (`command`) failed or printed no ssh public key; `said` is its stderr.
    case noDefaultKey(command: String, said: [String])
    /// The signing program could not be started; `why` is the system's reason.
    case programMissing(SignerSetup, why: String)
    /// The key file `user.signingKey` names (expanded) cannot be read.
    case keyFileMissing(SignerSetup, path: String)
    /// A key held in ssh-agent, and no agent answers (SSH_AUTH_SOCK unset or stale).
    case noAgent(SignerSetup)
    /// The agent answers but does not hold the key.
    case keyNotInAgent(SignerSetup)
    /// The key needs its passphrase, and nothing may ask for one.
    case needsPassphrase(SignerSetup)
    /// gpg holds no secret key for it.
    case noSecretKey(SignerSetup)
    /// The program failed otherwise; `said` is what it wrote on stderr.
    case failed(SignerSetup, status: Int32, said: [String])
    /// The program did not end within `seconds` and was killed.
    case timedOut(SignerSetup, seconds: Int)

    public var kind: RolloutError.Kind { .unavailable }
}

/// Signs a commit's bytes as git does, with the system's program: ssh `ssh-keygen -Y sign -n git
/// -f KEY FILE` (the signature in FILE.sig; `-U` and a key file holding the public key when
/// `user.signingKey` is a literal key, whose private half is in ssh-agent), openpgp
/// `gpg --status-fd=2 -bsau KEY` (the bytes on stdin, the signature on stdout, and
/// `[GNUPG:] SIG_CREATED` in the status). The program never waits on a person: it runs in a
/// session of its own with SSH_ASKPASS_REQUIRE=never and is killed at the request's deadline.
struct CommitSigner {
    let format: SignerSetup.Format
    let program: String
    let programKey: String?
    /// `user.signingKey`, nil when unset (openpgp then signs as the committer, ssh with the first
    /// key `defaultKeyCommand` prints, as git does).
    let key: String?
    let environment: [String: String]
    let request: SigningRequest
    /// `gpg.ssh.defaultKeyCommand`, from the user's own config, when ssh has no `user.signingKey`.
    var defaultKeyCommand: String? = nil

    /// The signer git config asks for under `request.choice`, or nil when the change is not signed.
    static func configured(in git: GitRepository, request: SigningRequest, environment: [String: String]) throws
        -> CommitSigner?
    {
        switch request.choice {
        case .never: return nil
        case .asConfigured: guard try git.configBool("commit.gpgSign") == true else { return nil }
        case .always: break
        }
        let formatName = try git.config("gpg.format") ?? "openpgp"
        guard let format = SignerSetup.Format(rawValue: formatName.lowercased()) else {
            throw SigningRefusal.unsupportedFormat(formatName)
        }
        let key = try git.config("user.signingKey").flatMap { $0.isEmpty ? nil : $0 }
        let programKeys = format == .ssh ? ["gpg.ssh.program"] : ["gpg.openpgp.program", "gpg.program"]
        var program: (key: String, value: String)?
        // The user's own config only: a repository handed over chooses no program (HandedOverConfig).
        for programKey in programKeys {
            if let value = GitRepository.defaultConfig(programKey), !value.isEmpty {
                program = (programKey, value)
                break
            }
        }
        // A command, so like the programs only from the user's own config (HandedOverConfig).
        let defaultKeyCommand = GitRepository.defaultConfig("gpg.ssh.defaultKeyCommand").flatMap {
            $0.isEmpty ? nil : $0
        }
        if format == .ssh && key == nil && defaultKeyCommand == nil { throw SigningRefusal.noSSHKey }
        return CommitSigner(
            format: format, program: program?.value ?? (format == .ssh ? "ssh-keygen" : "gpg"),
            programKey: program?.key, key: key, environment: environment, request: request,
            defaultKeyCommand: format == .ssh && key == nil ? defaultKeyCommand : nil)
    }

    /// What the refusals report: this signer as git config set it, signing for `committer`.
    func setup(committer: GitSignature, defaultKey: String? = nil) -> SignerSetup {
        SignerSetup(
            format: format, program: program, programKey: programKey,
            key: key ?? defaultKey ?? "\(committer.name) <\(committer.email)>",
            keyIsCommitter: key == nil && defaultKeyCommand == nil, defaultKeyCommand: defaultKeyCommand)
    }

    /// The armored signature of `content`, made as git makes it.
    func sign(_ content: String, committer: GitSignature) throws -> String {
        let defaultKey = try defaultKeyCommand.map { try firstKey(printedBy: $0, committer: committer) }
        let setup = setup(committer: committer, defaultKey: defaultKey)
        let directory = try Self.scratchDirectory(environment)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let buffer = directory + "/buffer"
        try Data(content.utf8).write(to: URL(fileURLWithPath: buffer))
        switch format {
        case .ssh: return try signSSH(buffer, in: directory, setup: setup)
        case .openpgp: return try signOpenPGP(buffer, setup: setup)
        }
    }

    private func signSSH(_ buffer: String, in directory: String, setup: SignerSetup) throws -> String {
        var arguments = [program, "-Y", "sign", "-n", "git", "-f"]
        let configured = setup.key
        if let literal = Self.literalSSHKey(configured) {
            let keyFile = directory + "/signing-key.pub"
            try Data((literal + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
            arguments += [keyFile, "-U", buffer]
        } else {
            let path = expandedPath(configured)
            guard FileManager.default.fileExists(atPath: path) else {
                throw SigningRefusal.keyFileMissing(setup, path: path)
            }
            arguments += [path, buffer]
        }
        let result = try run(arguments, input: "/dev/null", setup: setup)
        guard result.status == 0, let signature = try? String(contentsOfFile: buffer + ".sig", encoding: .utf8) else {
            throw Self.sshFailure(result, setup: setup)
        }
        return signature
    }

    /// The first line `command` prints, when it is a literal ssh key, as git takes its default key
    /// (`ssh-add -L`: the agent's first key). Run by the shell, as git runs it, never waiting on a person.
    private func firstKey(printedBy command: String, committer: GitSignature) throws -> String {
        let result = try run(["/bin/sh", "-c", command], input: "/dev/null", setup: setup(committer: committer))
        let first = result.stdout.split(separator: "\n").first.map(String.init) ?? ""
        guard result.status == 0, Self.literalSSHKey(first) != nil else {
            throw SigningRefusal.noDefaultKey(command: command, said: Self.lines(result.stderr + result.stdout))
        }
        return first
    }

    private func signOpenPGP(_ buffer: String, setup: SignerSetup) throws -> String {
        let result = try run([program, "--status-fd=2", "-bsau", setup.key], input: buffer, setup: setup)
        guard result.status == 0, result.stderr.contains("[GNUPG:] SIG_CREATED "), !result.stdout.isEmpty else {
            let said = Self.lines(result.stderr).filter { !$0.hasPrefix("[GNUPG:]") }
            if result.stderr.contains("No secret key") { throw SigningRefusal.noSecretKey(setup) }
            if ["passphrase", "pinentry", "Inappropriate ioctl"].contains(where: result.stderr.contains) {
                throw SigningRefusal.needsPassphrase(setup)
            }
            throw SigningRefusal.failed(setup, status: result.status, said: said)
        }
        return result.stdout
    }

    /// Runs the signer so that it cannot wait on a person, and maps its not starting or not ending.
    private func run(_ arguments: [String], input: String, setup: SignerSetup) throws -> Subprocess.Result {
        var environment = self.environment
        environment["SSH_ASKPASS_REQUIRE"] = "never"
        let launch = Subprocess.Launch(input: input, ownSession: true, deadline: request.timeout)
        let result: Subprocess.Result
        do {
            result = try Subprocess.run(arguments, environment: environment, launch: launch)
        } catch let failure as Subprocess.LaunchFailure {
            throw SigningRefusal.programMissing(setup, why: failure.reason)
        }
        if result.timedOut { throw SigningRefusal.timedOut(setup, seconds: Int(request.timeout.rounded(.up))) }
        return result
    }

    private static func sshFailure(_ result: Subprocess.Result, setup: SignerSetup) -> SigningRefusal {
        let text = result.stderr
        if text.contains("Couldn't get agent socket") || text.contains("Could not open a connection to your") {
            return .noAgent(setup)
        }
        if text.contains("Couldn't find key in agent") { return .keyNotInAgent(setup) }
        if text.contains("passphrase") { return .needsPassphrase(setup) }
        if text.contains("Couldn't load public key") || text.contains("No such file") {
            return .keyFileMissing(setup, path: setup.key)
        }
        return .failed(setup, status: result.status, said: lines(text))
    }

    private static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The public key a literal `user.signingKey` holds (`key::...`, or one starting `ssh-`), as
    /// git tells a literal key from a path; nil for a path.
    static func literalSSHKey(_ key: String) -> String? {
        if key.hasPrefix("key::") { return String(key.dropFirst(5)) }
        return key.hasPrefix("ssh-") ? key : nil
    }

    /// A key path as git expands it: `~/` is HOME; a relative path is read from where rollout runs.
    func expandedPath(_ path: String) -> String {
        if path == "~" || path.hasPrefix("~/"), let home = environment["HOME"], !home.isEmpty {
            return home + path.dropFirst()
        }
        return PackRepository.absolute(path, from: request.workingDirectory)
    }

    /// A new directory of the signer's files, in the TMPDIR of the command's environment.
    private static func scratchDirectory(_ environment: [String: String]) throws -> String {
        let base = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/rollout-sign-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw RolloutError.io("cannot create a temporary directory in \(base): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }
}

extension PackRepository {
    /// The signer git config and `signing` ask for, read once per change; nil: commits go unsigned.
    /// A configuration that cannot sign (an x509 format, ssh without a key) is refused here, before
    /// the operation runs.
    func commitSigner() throws -> CommitSigner? {
        try CommitSigner.configured(in: git, request: signing, environment: gitEnvironment)
    }

    /// Writes a commit object, signed by `signer` when there is one; no ref moves.
    func commitObject(
        tree: ObjectID, parents: [ObjectID], message: String, author: GitSignature, signer: CommitSigner?
    ) throws -> ObjectID {
        guard let signer else {
            return try git.createCommit(tree: tree, parents: parents, message: message, author: author)
        }
        return try git.createSignedCommit(tree: tree, parents: parents, message: message, author: author) {
            try signer.sign($0, committer: author)
        }
    }
}
