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
                throw RolloutError.usage("\(source): the actor's \(part) \"\(value.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\\n"))\" contains a control character or an angle bracket; write Name <email>")
            }
        }
        guard !name.isEmpty else { throw RolloutError.usage("\(source): the actor has no name; write Name <email>") }
        self.name = name
        self.email = email
    }

    public var description: String { email.isEmpty ? name : "\(name) <\(email)>" }
}
