import RolloutCrypto

/// Where things live in a published site (docs/manifest.md).
public enum SiteLayout {
    public static let index = "index.json"
    public static func manifest(_ locale: String) -> String { "manifests/\(locale).json" }
    /// Packs live under paths that include their digest: the bytes at a path never change.
    public static func pack(_ id: PackID, sha256: String) -> String {
        "packs/\(id.locale)/\(id.contentVersion).\(sha256.prefix(16)).json"
    }
    public static func signature(of path: String) -> String { path + ".sig" }
    /// The signatures that name their keys (docs/keys.md): what a device on a key list reads.
    public static func signatures(of path: String) -> String { path + ".sigs" }
    /// The newest key list, signed by the root keys.
    public static let keys = "keys.json"
    /// The key list of a version at which the root keys changed, kept for devices that trust older roots.
    public static func keys(version: Int) -> String { "keys/\(version).json" }

    /// The one pack URL a device accepts for a manifest entry: exactly the path `pack(_:sha256:)`
    /// names, for a canonical locale and a lowercase hex SHA-256. Anything else (absolute, `..`,
    /// another host, another digest) is refused, so a signed manifest can only point inside the
    /// site and at the bytes it vouches for (docs/manifest.md, "Pack URLs").
    public static func isSafePackURL(_ url: String, for id: PackID, sha256: String) -> Bool {
        guard Wire.isSHA256Hex(sha256), id.contentVersion >= 1, (try? LocaleTag.parse(id.locale)) != nil else {
            return false
        }
        return url == pack(id, sha256: sha256)
    }
}

/// The wire rules shared by the index and the manifests (docs/manifest.md, "Wire rules"): members
/// a device does not know are ignored; a member it knows must have its documented type, or the
/// whole document is refused.
enum Wire {
    /// Integers on the wire fit a JavaScript number exactly.
    static let maximumInteger = 9_007_199_254_740_991

    indirect enum Kind: Sendable {
        case string, bool
        case integer(min: Int)
        case array(Kind)
        case nullable(Kind)
        /// An object whose known members have these kinds; other members are ignored.
        case object([String: Kind])
        /// An object of any member names, each of this kind.
        case map(Kind)
    }

    static func check(_ value: JSONValue, _ kind: Kind, at path: String) throws {
        func fail(_ expected: String) -> RolloutError {
            .badInput("\(path) must be \(expected), not \(value.kindName)")
        }
        switch kind {
        case .string: guard value.stringValue != nil else { throw fail("a string") }
        case .bool: guard value.boolValue != nil else { throw fail("a boolean") }
        case .integer(let min):
            guard let n = value.integerValue, n >= min, n <= maximumInteger else {
                throw fail("an integer from \(min) to 2^53-1")
            }
        case .array(let item):
            guard let items = value.arrayValue else { throw fail("an array") }
            for (i, element) in items.enumerated() { try check(element, item, at: "\(path)[\(i)]") }
        case .nullable(let inner):
            if value != .null { try check(value, inner, at: path) }
        case .object(let members):
            guard let o = value.objectValue else { throw fail("an object") }
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                if let v = o[name] { try check(v, member, at: "\(path).\(name)") }
            }
        case .map(let item):
            guard let o = value.objectValue else { throw fail("an object") }
            for (name, v) in o.sorted(by: { $0.key < $1.key }) { try check(v, item, at: "\(path).\(name)") }
        }
    }

    static func isSHA256Hex(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static let packRef: Kind = .object(["contentVersion": .integer(min: 1), "minAppVersion": .string])
    static let plan: Kind = .object([
        "locale": .string, "baseline": .nullable(packRef), "previousBaselines": .array(packRef),
        "rules": .array(
            .object([
                "pack": packRef, "regions": .array(.string), "appVersions": .string, "basisPoints": .integer(min: 0),
                "salt": .string,
            ])),
        "blocked": .array(.integer(min: 1)), "withdrawn": .array(.object(["region": .string, "appVersions": .string])),
        "bundledOnly": .bool, "sequence": .integer(min: 0),
        "testers": .array(
            .object(["group": .string, "pack": packRef, "salt": .string, "members": .array(.string)])),
        "experiment": .object([
            "name": .string, "salt": .string, "regions": .array(.string), "appVersions": .string,
            "variants": .array(.object(["pack": packRef, "from": .integer(min: 0), "to": .integer(min: 1)])),
            "keys": .array(.string), "metrics": .array(.string),
        ]),
    ])
    static let manifest: Kind = .object([
        "format": .string, "locale": .string, "sequence": .integer(min: 0), "time": .string, "plan": plan,
        "packs": .map(
            .object([
                "url": .string, "bytes": .integer(min: 0), "sha256": .string, "checksum": .string,
                "minAppVersion": .string,
                "schemaVersion": .integer(min: 1),
            ])),
        "bundleOnly": .array(.string),
    ])
    static let index: Kind = .object([
        "format": .string, "sequence": .integer(min: 0), "time": .string, "expires": .string, "defaultLocale": .string,
        "locales": .map(
            .object([
                "sequence": .integer(min: 0), "manifest": .string, "chain": .array(.string),
                "fallbackChain": .array(.string),
            ])),
    ])
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

        public init(
            url: String, bytes: Int, sha256: String, checksum: String, minAppVersion: String, schemaVersion: Int
        ) {
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
    /// App-version ranges of the published plan this device could not read (a newer publisher's
    /// syntax). They never give a device the staged pack: such a rule matches no device, such a
    /// withdrawn segment covers every app version of its region. `verify-site` reports them.
    public let unreadableRanges: [String]
    /// The policy's bundle-only key patterns: a device never shows a key they match from a pack
    /// (docs/policy.md). Absent from the manifest when there are none, as in manifests written
    /// before the field existed.
    public let bundleOnly: KeyPatterns

    public init(
        locale: String, sequence: Int, time: Timestamp, plan: Plan, packs: [Int: PackEntry],
        unreadableRanges: [String] = [],
        bundleOnly: KeyPatterns = .none
    ) {
        self.bundleOnly = bundleOnly
        self.locale = locale
        self.sequence = sequence
        self.time = time
        self.plan = plan
        self.packs = packs
        self.unreadableRanges = unreadableRanges
    }

    /// The plan as this device reads it: a rule whose range it cannot parse is left out (it matches
    /// no device, so resolution is the same), and a withdrawn segment whose range it cannot parse
    /// covers every version (`*`). Fail safe: a range the device cannot read never gives it the
    /// staged pack, and never takes away a block, a kill switch or a baseline.
    public static func readableRanges(_ plan: JSONValue) -> (JSONValue, [String]) {
        guard var o = plan.objectValue else { return (plan, []) }
        var unreadable: [String] = []
        func readable(_ item: JSONValue) -> Bool {
            guard let text = item.objectValue?["appVersions"]?.stringValue, (try? VersionRange.parse(text)) == nil
            else { return true }
            unreadable.append(text)
            return false
        }
        if let rules = o["rules"]?.arrayValue { o["rules"] = .array(rules.filter(readable)) }
        if let withdrawn = o["withdrawn"]?.arrayValue {
            o["withdrawn"] = .array(
                withdrawn.map { item in
                    guard !readable(item), var w = item.objectValue else { return item }
                    w["appVersions"] = "*"
                    return .object(w)
                })
        }
        return (.object(o), unreadable)
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
            "packs": .object(
                Dictionary(
                    uniqueKeysWithValues: packs.map { version, entry in
                        (
                            String(version),
                            [
                                "url": .string(entry.url), "bytes": .integer(entry.bytes),
                                "sha256": .string(entry.sha256),
                                "checksum": .string(entry.checksum), "minAppVersion": .string(entry.minAppVersion),
                                "schemaVersion": .integer(entry.schemaVersion),
                            ] as JSONValue
                        )
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
        guard let o = value.objectValue, o["format"]?.stringValue == format else {
            throw fail("not a \(format) document")
        }
        do { try Wire.check(value, Wire.manifest, at: "manifest") } catch let e as RolloutError {
            throw fail(e.message)
        }
        guard let locale = o["locale"]?.stringValue, let sequence = o["sequence"]?.integerValue,
            let timeText = o["time"]?.stringValue, let time = Timestamp(iso8601: timeText), let planValue = o["plan"],
            let packValues = o["packs"]?.objectValue
        else { throw fail("a manifest needs locale, sequence, time, plan and packs") }
        let (readable, unreadable) = readableRanges(planValue)
        let plan = try Plan.parse(readable, source: "\(source): plan")
        guard plan.locale == locale else { throw fail("the plan is for \(plan.locale), the manifest for \(locale)") }
        var packs: [Int: PackEntry] = [:]
        for (key, item) in packValues {
            guard let version = Int(key), String(version) == key, version >= 1, let p = item.objectValue,
                let url = p["url"]?.stringValue,
                let size = p["bytes"]?.integerValue, let sha = p["sha256"]?.stringValue,
                let checksum = p["checksum"]?.stringValue,
                let minApp = p["minAppVersion"]?.stringValue, let schema = p["schemaVersion"]?.integerValue
            else { throw .manifestPackEntryIncomplete(source, key: key) }
            let id = PackID(locale: locale, contentVersion: version)
            guard SiteLayout.isSafePackURL(url, for: id, sha256: sha) else {
                throw .manifestPackURLUnsafe(source, key: key, url: url, expected: SiteLayout.pack(id, sha256: sha))
            }
            guard checksum.hasPrefix("sha256:"), Wire.isSHA256Hex(String(checksum.dropFirst(7))),
                AppVersion(minApp) != nil
            else {
                throw fail("pack entry \"\(key)\" needs a sha256: checksum and a numeric minAppVersion")
            }
            packs[version] = PackEntry(
                url: url, bytes: size, sha256: sha, checksum: checksum, minAppVersion: minApp, schemaVersion: schema)
        }
        var bundleOnly = KeyPatterns.none
        if let value = o["bundleOnly"] {
            let spellings = value.arrayValue?.compactMap(\.stringValue)
            guard let spellings, spellings.count == value.arrayValue?.count,
                let patterns = KeyPatterns(spellings: spellings)
            else {
                throw fail("bundleOnly must be an array of key patterns")
            }
            bundleOnly = patterns
        }
        return LocaleManifest(
            locale: locale, sequence: sequence, time: time, plan: plan, packs: packs, unreadableRanges: unreadable,
            bundleOnly: bundleOnly)
    }
}

/// The site's entry point: which locales are published, at which sequence, with which fallback chain.
public struct SiteIndex: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public let sequence: Int
        public let manifest: String
        /// The locales a device of this locale reads, in order, before its bundled strings.
        public let chain: [String]
        /// The chain as if this locale's kill switch were off, for devices whose own locale is not
        /// listed and falls back to this one; written only when it differs from `chain`.
        public let fallbackChain: [String]?

        public init(sequence: Int, manifest: String, chain: [String], fallbackChain: [String]? = nil) {
            self.sequence = sequence
            self.manifest = manifest
            self.chain = chain
            self.fallbackChain = fallbackChain == chain ? nil : fallbackChain
        }
    }

    public static let format = "rollout-index/1"

    public let sequence: Int
    public let time: Timestamp
    /// After this a device does not switch to this index (docs/keys.md, "Expiry"); absent in sites
    /// published without `--expires` and before it existed.
    public let expires: Timestamp?
    public let defaultLocale: String
    public let locales: [String: Entry]

    public init(
        sequence: Int, time: Timestamp, expires: Timestamp? = nil, defaultLocale: String, locales: [String: Entry]
    ) {
        self.sequence = sequence
        self.time = time
        self.expires = expires
        self.defaultLocale = defaultLocale
        self.locales = locales
    }

    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "format": .string(SiteIndex.format), "sequence": .integer(sequence), "time": .string(time.description),
            "defaultLocale": .string(defaultLocale),
            "locales": .object(
                locales.mapValues { entry in
                    var o: [String: JSONValue] = [
                        "sequence": .integer(entry.sequence), "manifest": .string(entry.manifest),
                        "chain": .array(entry.chain.map { .string($0) }),
                    ]
                    if let fallbackChain = entry.fallbackChain {
                        o["fallbackChain"] = .array(fallbackChain.map { .string($0) })
                    }
                    return .object(o)
                }),
        ]
        if let expires { members["expires"] = .string(expires.description) }
        return .object(members)
    }

    public var bytes: [UInt8] { JSONWriter.canonical(jsonValue) }

    public static func parse(_ bytes: [UInt8], source: String) throws -> SiteIndex {
        func fail(_ why: String) -> RolloutError { .badInput("\(source): \(why)") }
        let value: JSONValue
        do { value = try StrictJSONParser.parse(bytes) } catch let e as JSONParseError { throw fail(e.description) }
        guard let o = value.objectValue, o["format"]?.stringValue == format else {
            throw fail("not a \(format) document")
        }
        do { try Wire.check(value, Wire.index, at: "index") } catch let e as RolloutError { throw fail(e.message) }
        guard let sequence = o["sequence"]?.integerValue, let timeText = o["time"]?.stringValue,
            let time = Timestamp(iso8601: timeText),
            let defaultLocale = o["defaultLocale"]?.stringValue, let localeValues = o["locales"]?.objectValue
        else { throw fail("an index needs sequence, time, defaultLocale and locales") }
        var expires: Timestamp?
        if let text = o["expires"]?.stringValue {
            guard let t = Timestamp(iso8601: text) else { throw fail("expires \"\(text)\" is not an ISO 8601 time") }
            expires = t
        }
        var locales: [String: Entry] = [:]
        for (locale, item) in localeValues {
            guard let e = item.objectValue, let seq = e["sequence"]?.integerValue,
                let manifest = e["manifest"]?.stringValue,
                let chain = e["chain"]?.arrayValue?.compactMap(\.stringValue)
            else { throw fail("locale \(locale) needs sequence, manifest and chain") }
            guard (try? LocaleTag.parse(locale)) != nil else {
                throw fail("lists \"\(locale)\", which is not a canonical BCP 47 locale")
            }
            guard manifest == SiteLayout.manifest(locale) else {
                throw fail("locale \(locale) points at \(manifest), not \(SiteLayout.manifest(locale))")
            }
            let fallbackChain = e["fallbackChain"]?.arrayValue?.compactMap(\.stringValue)
            locales[locale] = Entry(sequence: seq, manifest: manifest, chain: chain, fallbackChain: fallbackChain)
        }
        return SiteIndex(
            sequence: sequence, time: time, expires: expires, defaultLocale: defaultLocale, locales: locales)
    }

    /// The locales a device set to `locale` fetches and reads, in order, before its bundled strings
    /// (docs/manifest.md, "The chain of a device"):
    ///
    /// 1. a listed locale: its `chain`;
    /// 2. otherwise the nearest shorter form that is listed (drop the last `-` subtag, repeatedly:
    ///    `tr-CY` gives `tr`): its `fallbackChain` when present, else its `chain`;
    /// 3. otherwise `defaultLocale` alone, when it is listed;
    /// 4. otherwise nothing: the bundled strings.
    ///
    /// An index written before `fallbackChain` existed gives the shorter form's `chain` in step 2.
    public func chain(for locale: String) -> [String] {
        SiteIndex.chain(
            for: locale, chains: locales.mapValues(\.chain), fallbackChains: locales.compactMapValues(\.fallbackChain),
            defaultLocale: defaultLocale)
    }

    /// The same rule over what a device keeps of the last index it accepted, so that a locale
    /// switched offline reads the chain a refresh would give it.
    public static func chain(
        for locale: String, chains: [String: [String]], fallbackChains: [String: [String]], defaultLocale: String
    ) -> [String] {
        if let chain = chains[locale] { return chain }
        var shorter = locale
        while let cut = shorter.lastIndex(of: "-") {
            shorter = String(shorter[..<cut])
            if let chain = chains[shorter] { return fallbackChains[shorter] ?? chain }
        }
        return chains[defaultLocale] == nil ? [] : [defaultLocale]
    }
}

/// Detached signatures: the base64 of the 64-byte Ed25519 signature over the file's exact bytes, and a newline.
public enum DetachedSignature {
    public static func encode(_ signature: [UInt8]) -> [UInt8] { Array((Base64.encode(signature) + "\n").utf8) }

    /// Only the exact form `encode` writes is accepted: any other byte in the file, even one that
    /// decodes to the same signature, is a changed file.
    public static func verify(_ signatureFile: [UInt8], over bytes: [UInt8], with key: Ed25519.PublicKey) -> Bool {
        guard signatureFile.last == 0x0A,
            let signature = Base64.decode(String(decoding: signatureFile.dropLast(), as: UTF8.self)),
            encode(signature) == signatureFile
        else { return false }
        return key.verify(signature, for: bytes)
    }
}

extension Error where Self == RolloutError {
    fileprivate static func manifestPackEntryIncomplete(_ source: String, key: String) -> RolloutError {
        .badInput(
            """
            \(source): pack entry "\(key)" needs a content version as its name, and url, bytes, sha256, checksum, \
            minAppVersion and schemaVersion
            """)
    }

    fileprivate static func manifestPackURLUnsafe(
        _ source: String, key: String, url: String, expected: String
    ) -> RolloutError {
        .badInput("\(source): pack entry \"\(key)\" has the url \(url); a device only fetches \(expected)")
    }
}
