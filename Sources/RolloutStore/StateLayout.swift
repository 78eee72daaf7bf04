import RolloutModel

/// Where things live in the state tree (docs/architecture.md, "The repository": the tree table).
public enum StateLayout {
    /// The one state ref. A branch, so `git log` and `git show` in the bare repository just work.
    public static let stateBranch = "main"
    public static let stateRef = "refs/heads/\(stateBranch)"
    /// Set in the repository's git config by `rollout init`; discovery looks for it.
    public static let formatConfigKey = "rollout.format"
    /// 2: versions may sit in shard directories (`packs/tr-TR/1/1017.json`). A rollout from before
    /// sharding reads 1 only and refuses 2 as "made by a newer rollout", so it never misses a sharded
    /// version or adds one again flat (docs/pack-format.md, "Upgrading").
    public static let formatVersion = "2"
    /// Formats this rollout reads: 1 (flat only) turns into 2 at its first write (`recordShardedFormat`).
    public static let readableFormats: Set<String> = ["1", formatVersion]

    public static let policy = "policy.json"
    /// Bumped by changes that alter the published index without changing a plan (a new default locale).
    public static let siteSequence = "site-sequence"
    public static let packsDirectory = "packs"

    public static let plansDirectory = "plans"
    /// Every signed key list (docs/keys.md): `keys/<version>.json` and its signatures beside it,
    /// `keys/<version>.json.sigs`. Written once, never changed; the newest is the one in force.
    public static let keysDirectory = "keys"
    public static func keyList(_ version: Int) -> String { "\(keysDirectory)/\(version).json" }
    public static func keyListSignatures(_ version: Int) -> String { keyList(version) + ".sigs" }
    public static let rollbacksDirectory = "rollbacks"

    public static func rollbackDirectory(_ locale: String) -> String { "\(rollbacksDirectory)/\(locale)" }
    /// `tr-TR/3` is stored at `rollbacks/tr-TR/3.json`.
    public static func rollback(_ id: String) -> String { "\(rollbacksDirectory)/\(id).json" }

    public static func plan(_ locale: String) -> String { "\(plansDirectory)/\(locale).json" }
    /// A locale's pending changes (`promote --at`), kept out of the plan so devices never read them.
    public static let schedulesDirectory = "schedules"
    public static func schedule(_ locale: String) -> String { "\(schedulesDirectory)/\(locale).json" }
    public static func packDirectory(_ locale: String) -> String { "\(packsDirectory)/\(locale)" }
    /// Tester groups (`rollout testers`): the raw install ids of each, never published.
    /// Who may sign which changes (docs/audit.md, "Who made each change: verified signers").
    public static let signersDirectory = "signers"
    public static let allowedSigners = "\(signersDirectory)/allowed_signers"
    public static let signerRoles = "\(signersDirectory)/roles.json"
    public static let openPGPSignersDirectory = "\(signersDirectory)/openpgp"
    public static func openPGPSigner(_ principal: String) -> String { "\(openPGPSignersDirectory)/\(principal).asc" }
    public static let testersDirectory = "testers"
    public static func testers(_ group: String) -> String { "\(testersDirectory)/\(group).json" }
    /// Experiments (`rollout experiment`, docs/experiments.md): each one's declared question and how it
    /// ended, never published (devices read the running one's part from the plan).
    public static let experimentsDirectory = "experiments"
    public static func experiment(_ name: String) -> String { "\(experimentsDirectory)/\(name).json" }

    /// Content versions per shard directory: `packs/tr-TR/1/1017.json` is tr-TR@1017, so no tree an
    /// add rewrites holds more than 2,000 entries (docs/pack-format.md, "Where packs are stored").
    public static let versionsPerShard = 1000

    /// Where a version's files are: in its shard (`packs/tr-TR/0/17.json`), as every rollout since
    /// sharding writes them, or flat in the locale's directory (`packs/tr-TR/17.json`), as
    /// repositories made before it hold their older versions.
    public enum PackPlacement: Sendable { case sharded, flat }

    public static func packShard(_ contentVersion: Int) -> String { String(contentVersion / versionsPerShard) }

    /// The one place pack paths are made: the stored pack, or its record (`N.meta.json`) beside it.
    /// Readers ask `Snapshot.packPlacement(_:)` which placement a stored version has.
    public static func packFile(_ id: PackID, record: Bool = false, _ placement: PackPlacement = .sharded) -> String {
        let directory =
            placement == .flat
            ? packDirectory(id.locale) : "\(packDirectory(id.locale))/\(packShard(id.contentVersion))"
        return "\(directory)/\(id.contentVersion)\(record ? ".meta" : "").json"
    }
    public static func pack(_ id: PackID, _ placement: PackPlacement = .sharded) -> String { packFile(id, placement) }
    public static func packRecord(_ id: PackID, _ placement: PackPlacement = .sharded) -> String {
        packFile(id, record: true, placement)
    }

    /// A file under `packs/` that is a pack or its record: what it holds and where it sits. `inShard`
    /// says whether its shard directory is the right one for its version (always true when flat).
    public struct StoredPackFile: Equatable, Sendable {
        public let path: String
        public let id: PackID
        public let isRecord: Bool
        public let placement: PackPlacement
        public let inShard: Bool
    }

    /// Reads a path in either layout; nil for anything that is not a pack or a record.
    public static func storedPackFile(atPath path: String) -> StoredPackFile? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 || parts.count == 4, parts[0] == packsDirectory, !parts[1].isEmpty else { return nil }
        let name = parts[parts.count - 1]
        let isRecord = name.hasSuffix(".meta.json")
        guard
            let version = contentVersion(
                fromFileName: isRecord ? String(name.dropLast(".meta.json".count)) + ".json" : name)
        else { return nil }
        let id = PackID(locale: parts[1], contentVersion: version)
        guard parts.count == 4 else {
            return StoredPackFile(path: path, id: id, isRecord: isRecord, placement: .flat, inShard: true)
        }
        return StoredPackFile(
            path: path, id: id, isRecord: isRecord, placement: .sharded, inShard: parts[2] == packShard(version))
    }

    /// `17.json` gives 17; anything else (including `17.meta.json`) gives nil.
    static func contentVersion(fromFileName name: String) -> Int? {
        guard name.hasSuffix(".json") else { return nil }
        let stem = name.dropLast(5)
        guard !stem.isEmpty, stem.allSatisfy({ $0.isASCII && $0.isNumber }), stem.first != "0" else { return nil }
        return Int(stem)
    }

    /// A shard directory's name: the decimal quotient, `0`, `1`, ... (no leading zeros).
    static func isShardName(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy({ $0.isASCII && $0.isNumber }) && (name == "0" || name.first != "0")
    }
}

/// What the repository records about a pack besides its bytes: the index `pack list` reads.
public struct PackRecord: Equatable, Sendable {
    public let id: PackID
    public let checksum: String
    public let minAppVersion: String
    public let fallbackLocale: String?
    public let keys: Int
    public let bytes: Int
    public let addedBy: String
    public let addedAt: Timestamp
    public let approvedBy: String?

    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "pack": .string(id.description), "locale": .string(id.locale),
            "contentVersion": .integer(id.contentVersion),
            "checksum": .string(checksum), "minAppVersion": .string(minAppVersion), "keys": .integer(keys),
            "bytes": .integer(bytes), "addedBy": .string(addedBy), "addedAt": .string(addedAt.description),
        ]
        if let fallbackLocale { object["fallbackLocale"] = .string(fallbackLocale) }
        if let approvedBy { object["approvedBy"] = .string(approvedBy) }
        return .object(object)
    }

    static func parse(_ bytes: [UInt8], path: String) throws -> PackRecord {
        let value: JSONValue
        do {
            value = try StrictJSONParser.parse(bytes)
        } catch let error as JSONParseError {
            throw RolloutError.internal("\(path) in the repository is damaged: \(error.description)")
        }
        guard let o = value.objectValue, let pack = o["pack"]?.stringValue, let id = try? PackID.parse(pack),
            let checksum = o["checksum"]?.stringValue, let minApp = o["minAppVersion"]?.stringValue,
            let keys = o["keys"]?.integerValue, let size = o["bytes"]?.integerValue, let by = o["addedBy"]?.stringValue,
            let atText = o["addedAt"]?.stringValue, let at = Timestamp(iso8601: atText)
        else {
            throw RolloutError.internal(
                "\(path) in the repository is damaged: a field is missing or has the wrong type")
        }
        return PackRecord(
            id: id, checksum: checksum, minAppVersion: minApp, fallbackLocale: o["fallbackLocale"]?.stringValue,
            keys: keys,
            bytes: size, addedBy: by, addedAt: at, approvedBy: o["approvedBy"]?.stringValue)
    }
}

extension PackRecord {
    public init(pack: Pack, storedBytes: Int, addedBy: String, addedAt: Timestamp, approvedBy: String?) {
        self.init(
            id: pack.id, checksum: pack.checksum, minAppVersion: pack.minAppVersion.description,
            fallbackLocale: pack.fallbackLocale,
            keys: pack.strings.count, bytes: storedBytes, addedBy: addedBy, addedAt: addedAt, approvedBy: approvedBy)
    }
}

/// The files `rollout init` seeds a repository with: repo-template/, compiled in at build time.
public enum RepositoryTemplate {
    public static var files: [(path: String, bytes: [UInt8])] {
        EmbeddedTemplate.files.map { (path: $0.name, bytes: Array($0.text.utf8)) }
    }

    /// The template's policy: what a new repository starts with, and what standalone lint applies.
    public static func policy() throws -> Policy {
        guard let bytes = files.first(where: { $0.path == StateLayout.policy })?.bytes else {
            throw RolloutError.internal("this rollout was built without repo-template/policy.json")
        }
        return try Policy.parse(bytes, source: "repo-template/policy.json")
    }
}
