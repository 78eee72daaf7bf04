import RolloutCrypto

extension Ed25519.PublicKey {
    /// The key's id: the first 16 hex digits of the SHA-256 of its 32 raw bytes (docs/keys.md, "Key
    /// ids"). Signatures name it; revocations and `rollout keys` use it.
    public var keyID: String { String(SHA256.hex(raw).prefix(16)) }
}

/// The signatures over one site file, each naming the key that made it: `FILE.sigs` beside
/// `index.json`, every manifest and every key list (docs/keys.md, "Wire format").
///
///     {"format":"rollout-signatures/1","signatures":[{"keyid":"9f86d081884c7d65","sig":"BASE64"}]}
public struct SignatureSet: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public let keyID: String
        /// The 64-byte Ed25519 signature over the file's exact bytes.
        public let signature: [UInt8]

        public init(keyID: String, signature: [UInt8]) {
            self.keyID = keyID
            self.signature = signature
        }
    }

    public static let format = "rollout-signatures/1"
    /// More than this many signatures on one file is refused unread: a device never verifies an
    /// attacker's thousand signatures.
    public static let maximumEntries = 16

    public let entries: [Entry]

    public init(_ entries: [Entry]) { self.entries = entries }

    public var jsonValue: JSONValue {
        [
            "format": .string(SignatureSet.format),
            "signatures": .array(
                entries.map { ["keyid": .string($0.keyID), "sig": .string(Base64.encode($0.signature))] }),
        ]
    }

    /// RFC 8785 canonical JSON; not signed itself, so a reader accepts any strict JSON of this shape.
    public var bytes: [UInt8] { JSONWriter.canonical(jsonValue) }

    public static func parse(_ bytes: [UInt8], source: String) throws -> SignatureSet {
        func fail(_ why: String) -> RolloutError { .badInput("\(source): \(why)") }
        let value: JSONValue
        do { value = try StrictJSONParser.parse(bytes) } catch let e as JSONParseError { throw fail(e.description) }
        guard let o = value.objectValue, o["format"]?.stringValue == format else {
            throw fail("not a \(format) document")
        }
        guard let items = o["signatures"]?.arrayValue else { throw fail("needs a \"signatures\" array") }
        guard items.count <= maximumEntries else {
            throw fail("holds \(items.count) signatures; at most \(maximumEntries) are read")
        }
        var entries: [Entry] = []
        for (i, item) in items.enumerated() {
            guard let e = item.objectValue, let id = e["keyid"]?.stringValue, let text = e["sig"]?.stringValue else {
                throw fail("signatures[\(i)] needs \"keyid\" and \"sig\" strings")
            }
            guard KeyList.isKeyID(id) else {
                throw fail("signatures[\(i)]: \"\(id)\" is not a key id (16 lowercase hex digits)")
            }
            guard let raw = Base64.decode(text), raw.count == Ed25519.signatureBytes else {
                throw fail("signatures[\(i)]: \"sig\" is not the base64 of a 64-byte Ed25519 signature")
            }
            entries.append(Entry(keyID: id, signature: raw))
        }
        return SignatureSet(entries)
    }

    /// The ids among `keys` with a signature here that verifies over `message`.
    public func signers(of message: [UInt8], among keys: [String: Ed25519.PublicKey]) -> Set<String> {
        var valid: Set<String> = []
        for entry in entries where !valid.contains(entry.keyID) {
            if let key = keys[entry.keyID], key.verify(entry.signature, for: message) { valid.insert(entry.keyID) }
        }
        return valid
    }
}

/// The key list a site publishes as `keys.json` (docs/keys.md): the root keys and how many of them
/// must sign a list, the publishing keys that may sign indexes and manifests, the revoked ids, and
/// a version that only grows. Root keys sign it; a device accepts a list only if it is newer than
/// the one it holds and signed by the roots it trusts (`KeyChain.accept`).
public struct KeyList: Equatable, Sendable {
    public struct Roots: Equatable, Sendable {
        public var keys: [String: Ed25519.PublicKey]
        /// How many of `keys` must sign a key list.
        public var threshold: Int

        public init(keys: [Ed25519.PublicKey], threshold: Int) {
            self.keys = Dictionary(keys.map { ($0.keyID, $0) }, uniquingKeysWith: { a, _ in a })
            self.threshold = threshold
        }

        public var ids: [String] { keys.keys.sorted() }
    }

    public struct PublishingKey: Equatable, Sendable {
        public var publicKey: Ed25519.PublicKey
        public var created: Timestamp
        /// After this a device accepts no index or manifest it signs; packs it vouched for stay.
        public var expires: Timestamp

        public init(publicKey: Ed25519.PublicKey, created: Timestamp, expires: Timestamp) {
            self.publicKey = publicKey
            self.created = created
            self.expires = expires
        }
    }

    public struct Revocation: Equatable, Sendable {
        public var time: Timestamp
        public var reason: String

        public init(time: Timestamp, reason: String) {
            self.time = time
            self.reason = reason
        }
    }

    public static let format = "rollout-keys/1"
    /// Limits a device applies before it trusts anything in a list.
    public static let maximumRoots = 16
    public static let maximumKeys = 256
    /// A device fetches one `keys/<n>.json` per root change it walks, as an unsigned list asks:
    /// without a bound, a site could make it fetch without end.
    public static let maximumRootChanges = 64

    public var version: Int
    public var time: Timestamp
    public var roots: Roots
    public var publishing: [String: PublishingKey]
    public var revoked: [String: Revocation]
    /// The versions at which the root keys changed, oldest first (1 included): the site keeps
    /// each of those lists at `keys/<version>.json`, so a device that trusts older roots can walk
    /// from them to the current ones.
    public var rootChanges: [Int]

    public init(
        version: Int, time: Timestamp, roots: Roots, publishing: [String: PublishingKey], revoked: [String: Revocation],
        rootChanges: [Int]
    ) {
        self.version = version
        self.time = time
        self.roots = roots
        self.publishing = publishing
        self.revoked = revoked
        self.rootChanges = rootChanges
    }

    static func isKeyID(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The role of a key id in this list, for messages: "root", "publishing", "revoked", or nil.
    public func role(of id: String) -> String? {
        if roots.keys[id] != nil { return "root" }
        if publishing[id] != nil { return "publishing" }
        if revoked[id] != nil { return "revoked" }
        return nil
    }

    public var jsonValue: JSONValue {
        [
            "format": .string(KeyList.format), "version": .integer(version), "time": .string(time.description),
            "roots": [
                "threshold": .integer(roots.threshold),
                "keys": .object(roots.keys.mapValues { .string($0.description) }),
            ],
            "publishing": .object(
                publishing.mapValues { key in
                    [
                        "publicKey": .string(key.publicKey.description), "created": .string(key.created.description),
                        "expires": .string(key.expires.description),
                    ]
                }),
            "revoked": .object(
                revoked.mapValues { ["time": .string($0.time.description), "reason": .string($0.reason)] }),
            "rootChanges": .array(rootChanges.map { .integer($0) }),
        ]
    }

    /// The bytes that are published and signed: RFC 8785 canonical JSON.
    public var bytes: [UInt8] { JSONWriter.canonical(jsonValue) }

    private static let wire: Wire.Kind = .object([
        "format": .string, "version": .integer(min: 1), "time": .string,
        "roots": .object(["threshold": .integer(min: 1), "keys": .map(.string)]),
        "publishing": .map(.object(["publicKey": .string, "created": .string, "expires": .string])),
        "revoked": .map(.object(["time": .string, "reason": .string])),
        "rootChanges": .array(.integer(min: 1)),
    ])

    public static func parse(_ bytes: [UInt8], source: String) throws -> KeyList {
        func fail(_ why: String) -> RolloutError { .badInput("\(source): \(why)") }
        let value: JSONValue
        do { value = try StrictJSONParser.parse(bytes) } catch let e as JSONParseError { throw fail(e.description) }
        guard let o = value.objectValue, o["format"]?.stringValue == format else {
            throw fail("not a \(format) document")
        }
        do { try Wire.check(value, wire, at: "keys") } catch let e as RolloutError { throw fail(e.message) }
        guard let version = o["version"]?.integerValue, let timeText = o["time"]?.stringValue,
            let time = Timestamp(iso8601: timeText),
            let rootsObject = o["roots"]?.objectValue, let threshold = rootsObject["threshold"]?.integerValue,
            let rootKeys = rootsObject["keys"]?.objectValue, let publishingValues = o["publishing"]?.objectValue,
            let revokedValues = o["revoked"]?.objectValue,
            let changes = o["rootChanges"]?.arrayValue?.compactMap(\.integerValue)
        else {
            throw fail("a key list needs version, time, roots (threshold, keys), publishing, revoked and rootChanges")
        }
        guard rootKeys.count + publishingValues.count + revokedValues.count <= maximumKeys,
            rootKeys.count <= maximumRoots
        else {
            throw fail("lists more keys than a device reads (\(maximumRoots) roots, \(maximumKeys) keys in all)")
        }
        guard changes.count <= maximumRootChanges else {
            throw fail("lists \(changes.count) root changes; a device walks at most \(maximumRootChanges)")
        }
        let entries = try Entries(
            rootKeys: rootKeys, publishing: publishingValues, revoked: revokedValues, source: source)
        let list = KeyList(
            version: version, time: time, roots: Roots(keys: entries.roots, threshold: threshold),
            publishing: entries.publishing, revoked: entries.revoked, rootChanges: changes)
        if let problem = list.problem { throw fail(problem) }
        return list
    }

    /// The keys a key list document names, read and checked one by one: roots, then publishing
    /// keys, then revocations, each failure naming the field's path.
    private struct Entries {
        let source: String
        var roots: [Ed25519.PublicKey] = []
        var publishing: [String: PublishingKey] = [:]
        var revoked: [String: Revocation] = [:]

        init(
            rootKeys: [String: JSONValue], publishing publishingValues: [String: JSONValue],
            revoked revokedValues: [String: JSONValue], source: String
        ) throws {
            self.source = source
            for (id, text) in rootKeys.sorted(by: { $0.key < $1.key }) {
                roots.append(try key(id, text.stringValue, "roots.keys.\(id)"))
            }
            for (id, item) in publishingValues {
                let p = item.objectValue ?? [:]
                let created = try timestamp(p["created"]?.stringValue, "publishing.\(id).created")
                let expires = try timestamp(p["expires"]?.stringValue, "publishing.\(id).expires")
                let publicKey = try key(id, p["publicKey"]?.stringValue, "publishing.\(id).publicKey")
                publishing[id] = PublishingKey(publicKey: publicKey, created: created, expires: expires)
            }
            for (id, item) in revokedValues {
                guard KeyList.isKeyID(id) else { throw fail("revoked lists \"\(id)\", which is not a key id") }
                let r = item.objectValue ?? [:]
                let time = try timestamp(r["time"]?.stringValue, "revoked.\(id).time")
                revoked[id] = Revocation(time: time, reason: r["reason"]?.stringValue ?? "")
            }
        }

        private func fail(_ why: String) -> RolloutError { .badInput("\(source): \(why)") }

        private func key(_ id: String, _ text: String?, _ path: String) throws -> Ed25519.PublicKey {
            guard let text, let key = Ed25519.PublicKey(text), text == key.description else {
                throw fail("\(path) is not an Ed25519 public key written ed25519:BASE64")
            }
            guard key.keyID == id else { throw fail("\(path) is listed as \(id), but its id is \(key.keyID)") }
            return key
        }

        private func timestamp(_ text: String?, _ path: String) throws -> Timestamp {
            guard let text, let t = Timestamp(iso8601: text) else { throw fail("\(path) is not an ISO 8601 time") }
            return t
        }
    }

    /// What makes a list one no device may trust, or nil: each key has one role, a revoked key is
    /// neither root nor publishing, the threshold can be met, the root changes are in order.
    public var problem: String? {
        if roots.keys.isEmpty { return "lists no root key" }
        if roots.threshold < 1 || roots.threshold > roots.keys.count {
            return "needs \(roots.threshold) root signature(s) but lists \(roots.keys.count) root key(s)"
        }
        if let both = publishing.keys.sorted().first(where: { roots.keys[$0] != nil }) {
            return "key \(both) is both a root and a publishing key; a key has one role"
        }
        if let both = revoked.keys.sorted().first(where: { roots.keys[$0] != nil || publishing[$0] != nil }) {
            return "key \(both) is revoked and still listed as a \(roots.keys[both] != nil ? "root" : "publishing") key"
        }
        if let late = publishing.sorted(by: { $0.key < $1.key }).first(where: { $0.value.expires < $0.value.created }) {
            return "publishing key \(late.key) expires before it was created"
        }
        if rootChanges.first != 1 || zip(rootChanges, rootChanges.dropFirst()).contains(where: { $0 >= $1 })
            || (rootChanges.last ?? 0) > version
        {
            return "rootChanges must start at 1, grow, and not pass the version (\(version))"
        }
        return nil
    }
}
