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
        _ bytes: [UInt8], source: String, maximumBytes: Int = PolicyLimits.default.maxPackBytes,
        verifyChecksum: Bool = true
    ) throws -> ParsedPack {
        guard bytes.count <= maximumBytes else {
            throw RolloutError.packTooLarge(source, bytes: bytes.count, limit: maximumBytes)
        }
        let fields = PackFields(object: try object(bytes, source: source), source: source)
        try fields.checkNames()
        let schemaVersion = try fields.schemaVersion()
        let locale = try fields.locale()
        let contentVersion = try fields.contentVersion()
        let minAppVersion = try fields.minAppVersion()
        let fallbackLocale = try fields.fallbackLocale(of: locale)
        let strings = try fields.strings()
        let pack = Pack(
            locale: locale, schemaVersion: schemaVersion, contentVersion: contentVersion, minAppVersion: minAppVersion,
            fallbackLocale: fallbackLocale, strings: strings)
        let declared = verifyChecksum ? try fields.declaredChecksum(of: pack) : nil
        return ParsedPack(pack: pack, declaredChecksum: declared, byteCount: bytes.count)
    }

    /// The file as strict JSON, which must be an object.
    private static func object(_ bytes: [UInt8], source: String) throws -> [String: JSONValue] {
        let document: JSONValue
        do {
            document = try StrictJSONParser.parse(bytes)
        } catch let error as JSONParseError {
            throw RolloutError.badInput("\(source):\(error.line):\(error.column): \(error.message)")
        }
        guard case .object(let object) = document else {
            throw RolloutError.badInput("\(source): a pack is a JSON object, found \(document.kindName)")
        }
        return object
    }

    public static func isWellFormedChecksum(_ text: String) -> Bool {
        guard text.hasPrefix("sha256:") else { return false }
        let hex = text.utf8.dropFirst(7)
        return hex.count == 64 && hex.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}

/// A pack object's fields, read and checked one at a time in `PackParser.parse`'s order, so a file
/// with several faults is refused for the first; every message starts with the file's name.
private struct PackFields {
    let object: [String: JSONValue]
    let source: String

    func fail(_ message: String) -> RolloutError { .badInput("\(source): \(message)") }

    /// No field a schemaVersion 2 pack does not have, and every one it needs.
    func checkNames() throws {
        if let field = object.keys.filter({ !Pack.fields.contains($0) }).min() {
            throw RolloutError.packUnknownField(source, field)
        }
        for field in ["schemaVersion", "locale", "contentVersion", "minAppVersion", "strings"]
        where object[field] == nil {
            throw fail("missing required field \"\(field)\"")
        }
    }

    func schemaVersion() throws -> Int {
        guard let schemaVersion = object["schemaVersion"]?.integerValue else {
            throw fail("\"schemaVersion\" must be an integer, found \(object["schemaVersion"]!.kindName)")
        }
        guard Pack.supportedSchemaVersions.contains(schemaVersion) else {
            throw RolloutError.packSchemaUnsupported(source, schemaVersion)
        }
        return schemaVersion
    }

    func locale() throws -> String {
        guard let locale = object["locale"]?.stringValue else {
            throw fail("\"locale\" must be a string, found \(object["locale"]!.kindName)")
        }
        do {
            _ = try LocaleTag.parse(locale)
        } catch let error as LocaleTag.ParseError {
            throw fail(error.message)
        }
        return locale
    }

    func contentVersion() throws -> Int {
        let value = object["contentVersion"]!
        let outOfRange = RolloutError.badInput(
            "\(source): \"contentVersion\" must be between 1 and \(Pack.maximumContentVersion), found "
                + InputLimits.echo(value.numberLiteral ?? ""))
        guard let contentVersion = value.integerValue else {
            // A whole number too large for an integer is an integer out of range, not something else.
            if let literal = value.numberLiteral, literal.drop(while: { $0 == "-" }).allSatisfy(\.isNumber) {
                throw outOfRange
            }
            throw fail("\"contentVersion\" must be an integer, found \(PackFields.describe(value))")
        }
        guard (1...Pack.maximumContentVersion).contains(contentVersion) else { throw outOfRange }
        return contentVersion
    }

    func minAppVersion() throws -> AppVersion {
        guard let text = object["minAppVersion"]?.stringValue else {
            throw fail(
                "\"minAppVersion\" must be a string such as \"4.8.0\", found \(object["minAppVersion"]!.kindName)")
        }
        guard let minAppVersion = AppVersion(text) else {
            throw fail("\"minAppVersion\" \"\(text)\" is not a numeric version such as 4.8.0")
        }
        return minAppVersion
    }

    /// A valid locale other than the pack's own, if the field is there.
    func fallbackLocale(of locale: String) throws -> String? {
        guard let value = object["fallbackLocale"] else { return nil }
        guard let text = value.stringValue else {
            throw fail("\"fallbackLocale\" must be a string, found \(value.kindName)")
        }
        do {
            _ = try LocaleTag.parse(text)
        } catch let error as LocaleTag.ParseError {
            throw fail("fallbackLocale: \(error.message)")
        }
        guard text != locale else { throw fail("\"fallbackLocale\" is the pack's own locale \(locale)") }
        return text
    }

    /// Every value a string; of several that are not, the first key in order is named.
    func strings() throws -> [String: String] {
        guard case .object(let values) = object["strings"]! else {
            throw fail("\"strings\" must be an object of key to text, found \(object["strings"]!.kindName)")
        }
        var strings: [String: String] = [:]
        strings.reserveCapacity(values.count)
        var wrongTypes: [String] = []
        for (key, value) in values {
            if let text = value.stringValue { strings[key] = text } else { wrongTypes.append(key) }
        }
        if let key = wrongTypes.min() {
            throw fail("strings[\"\(key)\"] must be a string, found \(PackFields.describe(values[key]!))")
        }
        return strings
    }

    /// The checksum the file declares, if it declares one, which must be what `pack` hashes to.
    func declaredChecksum(of pack: Pack) throws -> String? {
        guard let value = object["checksum"] else { return nil }
        guard let text = value.stringValue else { throw fail("\"checksum\" must be a string, found \(value.kindName)") }
        guard PackParser.isWellFormedChecksum(text) else {
            throw fail("\"checksum\" must be \"sha256:\" followed by 64 lowercase hex digits, found \"\(text)\"")
        }
        let actual = pack.checksum
        guard text == actual else { throw RolloutError.packChecksumMismatch(source, declared: text, actual: actual) }
        return text
    }

    fileprivate static func describe(_ value: JSONValue) -> String {
        if case .number(let n) = value, n.integerValue == nil {
            let digits = n.literal.drop { $0 == "-" }
            return digits.allSatisfy(\.isNumber) ? "\(n.literal), which is too large" : "the number \(n.literal)"
        }
        return value.kindName
    }
}

extension JSONValue {
    /// A number as the file wrote it.
    fileprivate var numberLiteral: String? {
        if case .number(let n) = self { return n.literal }
        return nil
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

/// Pack refusals too long for their call sites (`PackParser.parse`).
extension RolloutError {
    fileprivate static func packTooLarge(_ source: String, bytes: Int, limit: Int) -> RolloutError {
        .badInput(
            "\(source): pack is \(ByteCount.describe(bytes)), over the limit of \(ByteCount.describe(limit)) "
                + "(policy limits.maxPackBytes)")
    }

    fileprivate static func packUnknownField(_ source: String, _ field: String) -> RolloutError {
        .badInput(
            "\(source): unknown field \"\(field)\"; a schemaVersion 2 pack has only "
                + Pack.fields.sorted().joined(separator: ", "))
    }

    fileprivate static func packSchemaUnsupported(_ source: String, _ schemaVersion: Int) -> RolloutError {
        let supported = Pack.supportedSchemaVersions.sorted().map(String.init).joined(separator: ", ")
        if schemaVersion > Pack.currentSchemaVersion {
            return .badInput(
                "\(source): schemaVersion \(schemaVersion) is newer than this rollout understands (\(supported)); "
                    + "upgrade rollout")
        }
        return .badInput("\(source): schemaVersion \(schemaVersion) is not supported (supported: \(supported))")
    }

    fileprivate static func packChecksumMismatch(_ source: String, declared: String, actual: String) -> RolloutError {
        .badInput(
            "\(source): checksum mismatch: the file declares \(declared) but its content hashes to \(actual); "
                + "the pack was changed after it was checksummed")
    }
}
