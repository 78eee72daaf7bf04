import RolloutCrypto

/// A named group of install ids that gets a candidate before any share of devices does
/// (docs/targeting.md, "Testers first"). The repository keeps the raw ids in
/// `testers/<group>.json`, which is never published; a plan, and so the published manifest, keeps
/// only their salted hashes (`Plan.TesterTarget`), so a device can check its own membership and
/// learns nothing of the others but their number.
public struct TesterGroup: Equatable, Sendable {
    public let name: String
    /// Per group, fixed when the group is made: the hashes of one id differ from group to group.
    public let salt: String
    /// Sorted, each once.
    public private(set) var installIDs: [String]

    public init(name: String, salt: String, installIDs: [String]) {
        self.name = name
        self.salt = salt
        self.installIDs = Array(Set(installIDs)).sorted()
    }

    /// Adds `ids`; returns those that were not members yet.
    public mutating func adding(_ ids: [String]) -> [String] {
        let new = Array(Set(ids).subtracting(installIDs)).sorted()
        installIDs = Array(Set(installIDs + ids)).sorted()
        return new
    }

    /// Takes `ids` out; returns those that were members.
    public mutating func removing(_ ids: [String]) -> [String] {
        let gone = Array(Set(ids).intersection(installIDs)).sorted()
        installIDs.removeAll { gone.contains($0) }
        return gone
    }

    /// The hashes a plan publishes for this group's members.
    public var memberHashes: Set<String> { Set(installIDs.map { Self.memberHash(installID: $0, salt: salt) }) }

    /// The hash a device compares with a plan's members:
    /// lowercase hex of SHA-256( UTF-8(salt) || 0x00 || UTF-8(installID) ).
    public static func memberHash(installID: String, salt: String) -> String {
        SHA256.hex(Array(salt.utf8) + [0] + Array(installID.utf8))
    }

    /// A new group's salt: reproducible from the group's name and the commit it is made on, and
    /// different from every rollout's bucketing salt (another prefix).
    public static func salt(group: String, parent: String) -> String {
        String(SHA256.hex(Array("rollout-testers\u{0}\(group)\u{0}\(parent)".utf8)).prefix(16))
    }

    /// A group name: 1 to 32 lowercase ASCII letters, digits and `-`, starting with a letter, so it
    /// is a file name and a word in `--to testers:NAME` as it is.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, (97...122).contains(first), bytes.count <= 32 else { return false }
        return bytes.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }
    }

    /// Why `text` is not an install id, or nil when it is one: 1 to `InputLimits.installIDBytes` bytes
    /// with no space and no control character (two ids on one line, a stray tab, a pasted escape).
    public static func problem(installID text: String) -> TesterRefusal.BadID? {
        if text.isEmpty { return .empty }
        if text.utf8.count > InputLimits.installIDBytes { return .tooLong(bytes: text.utf8.count) }
        if text.unicodeScalars.contains(where: { $0.properties.isWhitespace }) { return .space }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return .control
        }
        return nil
    }

    /// The ids of an id file: one a line; blank lines and lines starting with `#` are skipped, and
    /// spaces around an id are trimmed. Any other line that is not an install id refuses the whole
    /// file, naming the first such line, so a file half read never reaches devices.
    public static func ids(inFile text: String, named file: String) throws -> [String] {
        var ids: [String] = []
        // CRLF is one Character in Swift: split on every newline, so a file saved on Windows reads too.
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = String(raw).trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            if let problem = problem(installID: line) {
                throw TesterRefusal.badID(problem, text: line, file: file, line: index + 1)
            }
            ids.append(line)
        }
        if ids.isEmpty { throw TesterRefusal.noIDsInFile(file) }
        return ids
    }
}

/// What the testers commands refuse.
public enum TesterRefusal: Refusal {
    /// Why a text is not an install id.
    public enum BadID: Equatable, Sendable {
        case empty, space, control
        case tooLong(bytes: Int)
    }

    /// Not a group name.
    case badGroupName(String)
    /// An install id given on the command line (`file` nil) or a line of an id file is not one.
    case badID(BadID, text: String, file: String?, line: Int?)
    /// An id file with no id in it.
    case noIDsInFile(String)
    /// No such group (`groups` are those the repository has).
    case noSuchGroup(String, groups: [String])

    public var kind: RolloutError.Kind {
        switch self {
        case .badGroupName: return .usage
        case .badID(_, _, let file, _): return file == nil ? .usage : .badInput
        case .noIDsInFile: return .badInput
        case .noSuchGroup: return .missing
        }
    }
}

extension TesterGroup {
    public var jsonValue: JSONValue {
        [
            "group": .string(name), "salt": .string(salt),
            "installIds": .array(installIDs.map { .string($0) }),
        ]
    }

    public static func parse(_ bytes: [UInt8], source: String) throws -> TesterGroup {
        let value: JSONValue
        do {
            value = try StrictJSONParser.parse(bytes)
        } catch let error as JSONParseError {
            throw RolloutError.badInput("\(source):\(error.line):\(error.column): \(error.message)")
        }
        guard let o = value.objectValue, let name = o["group"]?.stringValue, let salt = o["salt"]?.stringValue,
            let ids = o["installIds"]?.arrayValue?.compactMap(\.stringValue)
        else { throw RolloutError.badInput("\(source): a testers group needs group, salt and installIds") }
        return TesterGroup(name: name, salt: salt, installIDs: ids)
    }
}

extension Plan {
    /// A group of testers the candidate is given to, whatever their region and bucket
    /// (docs/targeting.md, "Testers first"): the group's salt and the hashes of its members, never an id.
    public struct TesterTarget: Equatable, Sendable {
        public var group: String
        public var pack: PackRef
        public var salt: String
        public var members: Set<String>

        public init(group: String, pack: PackRef, salt: String, members: Set<String>) {
            self.group = group
            self.pack = pack
            self.salt = salt
            self.members = members
        }

        public init(_ group: TesterGroup, pack: PackRef) {
            self.init(group: group.name, pack: pack, salt: group.salt, members: group.memberHashes)
        }

        /// Whether the device with this install id is one of the group.
        public func includes(installID: String) -> Bool {
            members.contains(TesterGroup.memberHash(installID: installID, salt: salt))
        }

        var jsonValue: JSONValue {
            [
                "group": .string(group),
                "pack": [
                    "contentVersion": .integer(pack.contentVersion),
                    "minAppVersion": .string(pack.minAppVersion.description),
                ],
                "salt": .string(salt), "members": .array(members.sorted().map { .string($0) }),
            ]
        }
    }
}
