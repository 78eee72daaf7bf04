import RolloutModel

/// Who made a change: `Jane Doe <jane@example.com>`, or just a name.
public struct Actor: Equatable, Sendable, CustomStringConvertible {
    public let name: String
    public let email: String

    /// Parses `Name <email>` or a bare name. Refuses what git cannot record in a commit's author line
    /// (control characters, stray angle brackets), naming where the text came from.
    public static func parse(_ text: String, from source: String) throws -> Actor {
        let trimmed = text.trimmingSpaces
        if let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") {
            let name = String(trimmed[..<open]).trimmingSpaces
            let email = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            return try Actor(validating: name.isEmpty ? email : name, email: email, from: source)
        }
        return try Actor(validating: trimmed, email: "", from: source)
    }

    /// Checks a name and email for a commit signature.
    public init(validating name: String, email: String, from source: String) throws {
        for (part, value) in [("name", name), ("email", email)] {
            if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "<" || $0 == ">" }) {
                throw RolloutError.usage(
                    "\(source): the actor's \(part) \"\(value.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\\n"))\" contains a control character or an angle bracket; write Name <email>"
                )
            }
        }
        guard !name.isEmpty else { throw RolloutError.usage("\(source): the actor has no name; write Name <email>") }
        self.name = name
        self.email = email
    }

    public var description: String { email.isEmpty ? name : "\(name) <\(email)>" }
}

extension PackRepository {
    /// The actor git config names for this repository (`user.name` and `user.email`, read as git
    /// reads them: the repository's config, then the global and system ones); nil without a name.
    public func configuredActor() throws -> Actor? {
        guard let name = try? git.config("user.name"), !name.isEmpty else { return nil }
        return try Actor(validating: name, email: (try? git.config("user.email")) ?? "", from: Actor.gitConfigSource)
    }

    /// The actor the global and system git config name, for a command run outside any repository.
    public static func configuredActor() throws -> Actor? {
        guard let name = GitRepository.defaultConfig("user.name"), !name.isEmpty else { return nil }
        return try Actor(
            validating: name, email: GitRepository.defaultConfig("user.email") ?? "", from: Actor.gitConfigSource)
    }

    /// The libgit2 this binary runs with, as `major.minor.revision` (`rollout --version`).
    public static var libgit2Version: String { GitRepository.libraryVersion }
}

extension Actor {
    static let gitConfigSource = "git config user.name/user.email"
}
