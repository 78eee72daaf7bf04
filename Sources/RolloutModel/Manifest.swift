import RolloutCrypto

/// Where things live in a published site (docs/manifest.md).
public enum SiteLayout {
    public static let index = "index.json"
    public static func manifest(_ locale: String) -> String { "manifests/\(locale).json" }
    /// Packs live under paths that include their digest: the bytes at a path never change.
    public static func pack(_ id: PackID, sha256: String) -> String { "packs/\(id.locale)/\(id.contentVersion).\(sha256.prefix(16)).json" }
    public static func signature(of path: String) -> String { path + ".sig" }
}

/// One locale's published manifest: its plan, in the form `Resolution` reads, and where each pack is.
public struct LocaleManifest: Equatable, Sendable {
    public struct PackEntry: Equatable, Sendable {
        public let url: String
        public let bytes: Int
        /// Lowercase hex SHA-256 of the file's bytes, for the transport.
        public let sha256: String
        /// The pack's own `sha256:` checksum (RFC 8785), for the content.
        public let checksum: String
        public let minAppVersion: String
        public let schemaVersion: Int

        public init(url: String, bytes: Int, sha256: String, checksum: String, minAppVersion: String, schemaVersion: Int) {
            self.url = url
            self.bytes = bytes
            self.sha256 = sha256
            self.checksum = checksum
            self.minAppVersion = minAppVersion
            self.schemaVersion = schemaVersion
        }
    }

    public static let format = "rollout-manifest/1"

    public let locale: String
    public let sequence: Int
    public let time: Timestamp
    public let plan: Plan
    public let packs: [Int: PackEntry]
    /// The policy's bundle-only key patterns: a device never shows a key they match from a pack
    /// (docs/policy.md). Absent from the manifest when there are none, as in manifests written
    /// before the field existed.
    public let bundleOnly: KeyPatterns

    public init(locale: String, sequence: Int, time: Timestamp, plan: Plan, packs: [Int: PackEntry], bundleOnly: KeyPatterns = .none) {
        self.bundleOnly = bundleOnly
        self.locale = locale
        self.sequence = sequence
        self.time = time
        self.plan = plan
        self.packs = packs
    }

    public var jsonValue: JSONValue {
        var planJSON = plan.jsonValue.objectValue ?? [:]
        planJSON["lastChange"] = nil
        var object: [String: JSONValue] = [
            "format": .string(LocaleManifest.format),
            "locale": .string(locale),
            "sequence": .integer(sequence),
            "time": .string(time.description),
            "plan": .object(planJSON),
            "packs": .object(Dictionary(uniqueKeysWithValues: packs.map { version, entry in
                (String(version), [
                    "url": .string(entry.url), "bytes": .integer(entry.bytes), "sha256": .string(entry.sha256),
                    "checksum": .string(entry.checksum), "minAppVersion": .string(entry.minAppVersion),
                    "schemaVersion": .integer(entry.schemaVersion),
                ] as JSONValue)
            })),
        ]
        if !bundleOnly.isEmpty { object["bundleOnly"] = .array(bundleOnly.spellings.map { .string($0) }) }
        return .object(object)
    }

    /// The bytes that are published and signed: RFC 8785 canonical JSON.
    public var bytes: [UInt8] { JSONWriter.canonical(jsonValue) }

    public static func parse(_ bytes: [UInt8], source: String) throws -> LocaleManifest {
        func fail(_ why: String) -> RolloutError { .badInput("\(source): \(why)") }
        let value: JSONValue
        do { value = try StrictJSONParser.parse(bytes) } catch let e as JSONParseError { throw fail(e.description) }
        guard let o = value.objectValue, o["format"]?.stringValue == format else { throw fail("not a \(format) document") }
        guard let locale = o["locale"]?.stringValue, let sequence = o["sequence"]?.integerValue, sequence >= 0,
            let timeText = o["time"]?.stringValue, let time = Timestamp(iso8601: timeText), let planValue = o["plan"],
            let packValues = o["packs"]?.objectValue
        else { throw fail("a manifest needs locale, sequence, time, plan and packs") }
        let plan = try Plan.parse(planValue, source: "\(source): plan")
        guard plan.locale == locale else { throw fail("the plan is for \(plan.locale), the manifest for \(locale)") }
        var packs: [Int: PackEntry] = [:]
        for (key, item) in packValues {
            guard let version = Int(key), let p = item.objectValue, let url = p["url"]?.stringValue, let size = p["bytes"]?.integerValue,
                let sha = p["sha256"]?.stringValue, let checksum = p["checksum"]?.stringValue, let minApp = p["minAppVersion"]?.stringValue,
                let schema = p["schemaVersion"]?.integerValue
            else { throw fail("pack entry \"\(key)\" needs url, bytes, sha256, checksum, minAppVersion and schemaVersion") }
            guard !url.contains(".."), !url.hasPrefix("/") else { throw fail("pack entry \"\(key)\" has the unsafe url \(url)") }
            packs[version] = PackEntry(url: url, bytes: size, sha256: sha, checksum: checksum, minAppVersion: minApp, schemaVersion: schema)
        }
        var bundleOnly = KeyPatterns.none
        if let value = o["bundleOnly"] {
            let spellings = value.arrayValue?.compactMap(\.stringValue)
            guard let spellings, spellings.count == value.arrayValue?.count, let patterns = KeyPatterns(spellings: spellings) else {
                throw fail("bundleOnly must be an array of key patterns")
            }
            bundleOnly = patterns
        }
        return LocaleManifest(locale: locale, sequence: sequence, time: time, plan: plan, packs: packs, bundleOnly: bundleOnly)
    }
}

/// The site's entry point: which locales are published, at which sequence, with which fallback chain.
public struct SiteIndex: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public let sequence: Int
        public let manifest: String
        /// The locales a device of this locale reads, in order, before its bundled strings.
        public let chain: [String]

        public init(sequence: Int, manifest: String, chain: [String]) {
            self.sequence = sequence
            self.manifest = manifest
            self.chain = chain
        }
    }

    public static let format = "rollout-index/1"

    public let sequence: Int
    public let time: Timestamp
    public let defaultLocale: String
    public let locales: [String: Entry]

    public init(sequence: Int, time: Timestamp, defaultLocale: String, locales: [String: Entry]) {
        self.sequence = sequence
        self.time = time
        self.defaultLocale = defaultLocale
        self.locales = locales
    }

    public var jsonValue: JSONValue {
        [
            "format": .string(SiteIndex.format), "sequence": .integer(sequence), "time": .string(time.description),
            "defaultLocale": .string(defaultLocale),
            "locales": .object(locales.mapValues { entry in
                ["sequence": .integer(entry.sequence), "manifest": .string(entry.manifest), "chain": .array(entry.chain.map { .string($0) })]
            }),
        ]
    }

    public var bytes: [UInt8] { JSONWriter.canonical(jsonValue) }

    public static func parse(_ bytes: [UInt8], source: String) throws -> SiteIndex {
        func fail(_ why: String) -> RolloutError { .badInput("\(source): \(why)") }
        let value: JSONValue
        do { value = try StrictJSONParser.parse(bytes) } catch let e as JSONParseError { throw fail(e.description) }
        guard let o = value.objectValue, o["format"]?.stringValue == format else { throw fail("not a \(format) document") }
        guard let sequence = o["sequence"]?.integerValue, let timeText = o["time"]?.stringValue, let time = Timestamp(iso8601: timeText),
            let defaultLocale = o["defaultLocale"]?.stringValue, let localeValues = o["locales"]?.objectValue
        else { throw fail("an index needs sequence, time, defaultLocale and locales") }
        var locales: [String: Entry] = [:]
        for (locale, item) in localeValues {
            guard let e = item.objectValue, let seq = e["sequence"]?.integerValue, let manifest = e["manifest"]?.stringValue,
                let chain = e["chain"]?.arrayValue?.compactMap(\.stringValue)
            else { throw fail("locale \(locale) needs sequence, manifest and chain") }
            guard manifest == SiteLayout.manifest(locale) else { throw fail("locale \(locale) points at \(manifest), not \(SiteLayout.manifest(locale))") }
            locales[locale] = Entry(sequence: seq, manifest: manifest, chain: chain)
        }
        return SiteIndex(sequence: sequence, time: time, defaultLocale: defaultLocale, locales: locales)
    }
}

/// Detached signatures: the base64 of the 64-byte Ed25519 signature over the file's exact bytes, and a newline.
public enum DetachedSignature {
    public static func encode(_ signature: [UInt8]) -> [UInt8] { Array((Base64.encode(signature) + "\n").utf8) }

    /// Only the exact form `encode` writes is accepted: any other byte in the file, even one that
    /// decodes to the same signature, is a changed file.
    public static func verify(_ signatureFile: [UInt8], over bytes: [UInt8], with key: Ed25519.PublicKey) -> Bool {
        guard signatureFile.last == 0x0A, let signature = Base64.decode(String(decoding: signatureFile.dropLast(), as: UTF8.self)),
            encode(signature) == signatureFile
        else { return false }
        return key.verify(signature, for: bytes)
    }
}
