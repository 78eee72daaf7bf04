import RolloutModel

/// Who made a change: `Jane Doe <jane@example.com>`, or just a name.
public struct Actor: Equatable, Sendable, CustomStringConvertible {
    public let name: String
    public let email: String

    public init(_ text: String) {
        let trimmed = text.trimmingSpaces
        if let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") {
            let name = String(trimmed[..<open]).trimmingSpaces
            let email = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            self.name = name.isEmpty ? email : name
            self.email = email
        } else {
            name = trimmed
            email = ""
        }
    }

    public init(name: String, email: String) {
        self.name = name
        self.email = email
    }

    public var description: String { email.isEmpty ? name : "\(name) <\(email)>" }
}
