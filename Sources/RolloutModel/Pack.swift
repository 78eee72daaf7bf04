import RolloutCrypto

/// One immutable translation pack (seed 000): the strings of one locale at one content version.
public struct Pack: Equatable, Sendable {
    public static let supportedSchemaVersions: Set<Int> = [2]
    public static let currentSchemaVersion = 2
    public static let fields: Set<String> = [
        "locale", "schemaVersion", "contentVersion", "minAppVersion", "fallbackLocale", "checksum", "strings",
    ]
    public static let maximumContentVersion = 1_000_000_000

    public var locale: String
    public var schemaVersion: Int
    public var contentVersion: Int
    public var minAppVersion: AppVersion
    public var fallbackLocale: String?
    public var strings: [String: String]

    public init(
        locale: String, schemaVersion: Int = Pack.currentSchemaVersion, contentVersion: Int, minAppVersion: AppVersion,
        fallbackLocale: String? = nil, strings: [String: String]
    ) {
        self.locale = locale
        self.schemaVersion = schemaVersion
        self.contentVersion = contentVersion
        self.minAppVersion = minAppVersion
        self.fallbackLocale = fallbackLocale
        self.strings = strings
    }

    public var id: PackID { PackID(locale: locale, contentVersion: contentVersion) }

    /// The pack as a JSON object, without `checksum`: the input of the checksum.
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [
            "locale": .string(locale),
            "schemaVersion": .integer(schemaVersion),
            "contentVersion": .integer(contentVersion),
            "minAppVersion": .string(minAppVersion.description),
            "strings": .object(strings.mapValues { .string($0) }),
        ]
        if let fallbackLocale { object["fallbackLocale"] = .string(fallbackLocale) }
        return .object(object)
    }

    /// RFC 8785 canonical bytes of the pack without its `checksum` member.
    public var canonicalBytes: [UInt8] { JSONWriter.canonical(jsonValue) }

    /// `sha256:` and the lowercase hex SHA-256 of `canonicalBytes`.
    public var checksum: String { "sha256:" + SHA256.hex(canonicalBytes) }

    /// The bytes the repository stores and publishes: every field including `checksum`, members in
    /// canonical order, two-space indentation. Deterministic, so the same pack is always the same blob.
    public var storedBytes: [UInt8] {
        guard case .object(var object) = jsonValue else { preconditionFailure("a pack is an object") }
        object["checksum"] = .string(checksum)
        return JSONWriter.pretty(.object(object))
    }
}

/// What parsing a pack file found, before any repository rule is applied.
public struct ParsedPack: Sendable {
    public let pack: Pack
    /// The checksum the file declared, if any (already verified to match).
    public let declaredChecksum: String?
    public let byteCount: Int
}

public enum PackParser {
    /// Parses and structurally validates a pack file. `source` names the file in every message.
    /// Throws `RolloutError.badInput` for anything that is not a well-formed pack.
    /// With `verifyChecksum` false a declared checksum is ignored (for recomputing it after an edit).
    public static func parse(
        _ bytes: [UInt8], source: String, maximumBytes: Int = PolicyLimits.default.maxPackBytes, verifyChecksum: Bool = true
    ) throws -> ParsedPack {
        guard bytes.count <= maximumBytes else {
            throw RolloutError.badInput(
                "\(source): pack is \(ByteCount.describe(bytes.count)), over the limit of \(ByteCount.describe(maximumBytes)) (policy limits.maxPackBytes)")
        }
        let document: JSONValue
        do {
            document = try StrictJSONParser.parse(bytes)
        } catch let error as JSONParseError {
            throw RolloutError.badInput("\(source):\(error.line):\(error.column): \(error.message)")
        }
        guard case .object(let object) = document else {
            throw RolloutError.badInput("\(source): a pack is a JSON object, found \(document.kindName)")
        }
        func fail(_ message: String) -> RolloutError { .badInput("\(source): \(message)") }

        let unknown = object.keys.filter { !Pack.fields.contains($0) }.sorted()
        if let field = unknown.first {
            throw fail("unknown field \"\(field)\"; a schemaVersion 2 pack has only \(Pack.fields.sorted().joined(separator: ", "))")
        }
        for field in ["schemaVersion", "locale", "contentVersion", "minAppVersion", "strings"] where object[field] == nil {
            throw fail("missing required field \"\(field)\"")
        }

        guard let schemaVersion = object["schemaVersion"]?.integerValue else {
            throw fail("\"schemaVersion\" must be an integer, found \(object["schemaVersion"]!.kindName)")
        }
        guard Pack.supportedSchemaVersions.contains(schemaVersion) else {
            let supported = Pack.supportedSchemaVersions.sorted().map(String.init).joined(separator: ", ")
            if schemaVersion > Pack.currentSchemaVersion {
                throw fail("schemaVersion \(schemaVersion) is newer than this rollout understands (\(supported)); upgrade rollout")
            }
            throw fail("schemaVersion \(schemaVersion) is not supported (supported: \(supported))")
        }

        guard let locale = object["locale"]?.stringValue else {
            throw fail("\"locale\" must be a string, found \(object["locale"]!.kindName)")
        }
        do {
            _ = try LocaleTag.parse(locale)
        } catch let error as LocaleTag.ParseError {
            throw fail(error.message)
        }

        guard let contentVersion = object["contentVersion"]?.integerValue else {
            throw fail("\"contentVersion\" must be an integer, found \(describe(object["contentVersion"]!))")
        }
        guard (1...Pack.maximumContentVersion).contains(contentVersion) else {
            throw fail("\"contentVersion\" must be between 1 and \(Pack.maximumContentVersion), found \(contentVersion)")
        }

        guard let minAppText = object["minAppVersion"]?.stringValue else {
            throw fail("\"minAppVersion\" must be a string such as \"4.8.0\", found \(object["minAppVersion"]!.kindName)")
        }
        guard let minAppVersion = AppVersion(minAppText) else {
            throw fail("\"minAppVersion\" \"\(minAppText)\" is not a numeric version such as 4.8.0")
        }

        var fallbackLocale: String?
        if let value = object["fallbackLocale"] {
            guard let text = value.stringValue else { throw fail("\"fallbackLocale\" must be a string, found \(value.kindName)") }
            do {
                _ = try LocaleTag.parse(text)
            } catch let error as LocaleTag.ParseError {
                throw fail("fallbackLocale: \(error.message)")
            }
            guard text != locale else { throw fail("\"fallbackLocale\" is the pack's own locale \(locale)") }
            fallbackLocale = text
        }

        guard case .object(let stringValues) = object["strings"]! else {
            throw fail("\"strings\" must be an object of key to text, found \(object["strings"]!.kindName)")
        }
        var strings: [String: String] = [:]
        strings.reserveCapacity(stringValues.count)
        var wrongTypes: [String] = []
        for (key, value) in stringValues {
            if let text = value.stringValue { strings[key] = text } else { wrongTypes.append(key) }
        }
        if let key = wrongTypes.min() {
            throw fail("strings[\"\(key)\"] must be a string, found \(describe(stringValues[key]!))")
        }

        let pack = Pack(
            locale: locale, schemaVersion: schemaVersion, contentVersion: contentVersion, minAppVersion: minAppVersion,
            fallbackLocale: fallbackLocale, strings: strings)

        var declared: String?
        if verifyChecksum, let value = object["checksum"] {
            guard let text = value.stringValue else { throw fail("\"checksum\" must be a string, found \(value.kindName)") }
            guard isWellFormedChecksum(text) else {
                throw fail("\"checksum\" must be \"sha256:\" followed by 64 lowercase hex digits, found \"\(text)\"")
            }
            let actual = pack.checksum
            guard text == actual else {
                throw fail("checksum mismatch: the file declares \(text) but its content hashes to \(actual); the pack was changed after it was checksummed")
            }
            declared = text
        }
        return ParsedPack(pack: pack, declaredChecksum: declared, byteCount: bytes.count)
    }

    public static func isWellFormedChecksum(_ text: String) -> Bool {
        guard text.hasPrefix("sha256:") else { return false }
        let hex = text.utf8.dropFirst(7)
        return hex.count == 64 && hex.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    private static func describe(_ value: JSONValue) -> String {
        if case .number(let n) = value, n.integerValue == nil {
            let digits = n.literal.drop { $0 == "-" }
            return digits.allSatisfy(\.isNumber) ? "\(n.literal), which is too large" : "the number \(n.literal)"
        }
        return value.kindName
    }
}

public enum ByteCount {
    public static func describe(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return "\(bytes / 1024) KiB" }
        let mib = Double(bytes) / (1024 * 1024)
        return mib == mib.rounded() ? "\(Int(mib)) MiB" : "\((mib * 10).rounded() / 10) MiB"
    }
}

extension String {
    /// Byte-for-byte equality. Swift's `==` treats canonically equivalent text as equal ("ş" composed
    /// and decomposed), but a pack's bytes, its checksum and other platforms' parsers do not.
    public func isSameText(as other: String?) -> Bool {
        guard let other else { return false }
        return utf8.elementsEqual(other.utf8)
    }
}
