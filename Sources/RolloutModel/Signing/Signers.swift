/// What a signer may sign (docs/policy.md, "Roles"). `SignerRoles` (RolloutStore, beside
/// `ChangeAction`) is the one table from each action to the roles that may sign it.
public enum SignerRole: String, CaseIterable, Comparable, Sendable {
    /// May change the signers, the policy and the keys, and sign all that release may.
    case admin
    /// Ordinary changes: packs, promotes, ramps, reverts, metrics, publishes, schedules, testers.
    case release
    /// May approve another's proposal; signs no change alone.
    case approver
    /// Guard's key: only reverts, holds (pause) and the next step of a ramp already started.
    case bot

    public static func < (lhs: SignerRole, rhs: SignerRole) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// `admin,release`: each once, in this type's order; an unknown name refuses the list.
    public static func parseList(_ text: String) throws -> [SignerRole] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        var roles: Set<SignerRole> = []
        for name in names {
            guard let role = SignerRole(rawValue: name) else { throw SignerRefusal.unknownRole(name) }
            roles.insert(role)
        }
        return roles.sorted()
    }
}

/// `signers/roles.json`: each principal's roles. `{"signersVersion": 1, "principals":
/// {"ana@example.com": ["admin", "release"]}}`, read strictly: an unknown field or role refuses it.
public struct SignerRoster: Equatable, Sendable {
    public static let currentVersion = 1
    public static let file = "signers/roles.json"

    /// Principal -> roles, sorted.
    public var principals: [String: [SignerRole]]

    public init(principals: [String: [SignerRole]] = [:]) { self.principals = principals }

    public func roles(of principal: String) -> [SignerRole] { principals[principal] ?? [] }

    public var admins: [String] { principals.filter { $0.value.contains(.admin) }.map(\.key).sorted() }

    public static func parse(_ bytes: [UInt8], source: String) throws -> SignerRoster {
        let document: JSONValue
        do {
            document = try StrictJSONParser.parse(bytes)
        } catch let error as JSONParseError {
            throw SignerRefusal.badRoles(file: source, "\(error.line):\(error.column): \(error.message)")
        }
        guard let object = document.objectValue else { throw SignerRefusal.badRoles(file: source, "not an object") }
        if let extra = object.keys.filter({ $0 != "signersVersion" && $0 != "principals" }).sorted().first {
            throw SignerRefusal.badRoles(file: source, "unknown field \"\(extra)\" (known: principals, signersVersion)")
        }
        guard object["signersVersion"]?.integerValue == currentVersion else {
            throw SignerRefusal.badRoles(file: source, "signersVersion must be \(currentVersion)")
        }
        guard let members = object["principals"]?.objectValue else {
            throw SignerRefusal.badRoles(file: source, "\"principals\" must be an object")
        }
        var roster = SignerRoster()
        for (principal, value) in members {
            guard let names = value.arrayValue?.compactMap(\.stringValue), names.count == value.arrayValue?.count
            else {
                throw SignerRefusal.badRoles(file: source, "\(principal): roles must be an array of strings")
            }
            var roles: [SignerRole] = []
            for name in names {
                guard let role = SignerRole(rawValue: name) else {
                    throw SignerRefusal.badRoles(
                        file: source,
                        "\(principal): unknown role \"\(name)\" (roles: \(SignerRole.allCases.map(\.rawValue).joined(separator: ", ")))"
                    )
                }
                roles.append(role)
            }
            roster.principals[principal] = Array(Set(roles)).sorted()
        }
        return roster
    }

    public var jsonValue: JSONValue {
        [
            "signersVersion": .integer(Self.currentVersion),
            "principals": .object(principals.mapValues { .array($0.map { .string($0.rawValue) }) }),
        ]
    }
}

/// What the signers commands and files refuse.
public enum SignerRefusal: Refusal {
    /// Why a line of an allowed-signers file is not one rollout reads.
    public enum BadLine: Equatable, Sendable {
        case noKey, unclosedQuote, certificateAuthority
        case unknownOption(String)
        case unknownKeyType(String)
        /// The base64 field does not decode to a key of the type before it.
        case badKey(String)
    }

    case badAllowedSigner(file: String, line: Int, BadLine)
    case badRoles(file: String, String)
    case unknownRole(String)
    /// The first signer must be an admin: nobody could change the set otherwise.
    case firstWithoutAdmin(String)
    /// Removing (or demoting) this principal would leave no admin.
    case lastAdmin(String)
    case noSuchSigner(String, signers: [String])
    /// An OpenPGP key file that `gpg` could not read a key from.
    case badOpenPGPKey(file: String, String)
    /// `principal` is not one rollout can check an actor against: an email address, with no space.
    case badPrincipal(String)

    public var kind: RolloutError.Kind {
        switch self {
        case .badAllowedSigner, .badRoles, .badOpenPGPKey: return .badInput
        case .unknownRole, .badPrincipal: return .usage
        case .firstWithoutAdmin, .lastAdmin: return .checkFailed
        case .noSuchSigner: return .missing
        }
    }
}
