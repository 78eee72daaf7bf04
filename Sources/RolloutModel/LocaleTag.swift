/// A BCP 47 language tag in the subset that app localisations use: language, optional script,
/// optional region, optional variants (`tr`, `tr-TR`, `zh-Hant-TW`, `ca-ES-valencia`). Tags must be in
/// canonical case so that `tr-TR` and `tr-tr` can never be two locales.
public struct LocaleTag: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let language: String
    public let script: String?
    public let region: String?
    public let variants: [String]

    public enum ParseError: Error, Equatable {
        case invalid(String)
        case notCanonical(String, canonical: String)
        case repeatedVariant(String, variant: String)
        /// Longer than `InputLimits.localeBytes`: refused before anything else is read from it.
        case tooLong(String)

        public var message: String {
            switch self {
            case .tooLong(let text):
                return "\"\(InputLimits.echo(text))\" is not a locale: "
                    + InputLimits.tooLong("a locale", text, limit: InputLimits.localeBytes)!
            case .invalid(let text):
                return "\"\(text)\" is not a BCP 47 locale such as tr-TR, tr, zh-Hant-TW"
            case .notCanonical(let text, let canonical):
                return "locale \"\(text)\" must be written \"\(canonical)\""
            case .repeatedVariant(let text, let variant):
                return "locale \"\(text)\" has the variant \(variant) twice; BCP 47 (RFC 5646) allows each variant once"
            }
        }
    }

    public static func parse(_ text: String) throws -> LocaleTag {
        guard text.utf8.count <= InputLimits.localeBytes else { throw ParseError.tooLong(text) }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isAlphanumeric) })
        else {
            throw ParseError.invalid(text)
        }
        // ISO 639 codes only: BCP 47 reserves 4-8 letter language subtags and none are registered.
        guard (2...3).contains(first.count), first.allSatisfy(isLetter) else {
            throw ParseError.invalid(text)
        }
        var index = 1
        var script: String?
        var region: String?
        var variants: [String] = []
        if index < parts.count, parts[index].count == 4, parts[index].allSatisfy(isLetter) {
            script = parts[index].prefix(1).uppercased() + parts[index].dropFirst().lowercased()
            index += 1
        }
        if index < parts.count,
            (parts[index].count == 2 && parts[index].allSatisfy(isLetter))
                || (parts[index].count == 3 && parts[index].allSatisfy(isDigit))
        {
            region = parts[index].uppercased()
            index += 1
        }
        while index < parts.count {
            let v = parts[index]
            let isVariant = (5...8).contains(v.count) || (v.count == 4 && isDigit(v.first!))
            guard isVariant else { throw ParseError.invalid(text) }
            guard !variants.contains(v.lowercased()) else {
                throw ParseError.repeatedVariant(text, variant: v.lowercased())
            }
            variants.append(v.lowercased())
            index += 1
        }
        let tag = LocaleTag(language: first.lowercased(), script: script, region: region, variants: variants)
        guard tag.description == text else { throw ParseError.notCanonical(text, canonical: tag.description) }
        return tag
    }

    private init(language: String, script: String?, region: String?, variants: [String]) {
        self.language = language
        self.script = script
        self.region = region
        self.variants = variants
    }

    public var description: String {
        ([language] + [script, region].compactMap { $0 } + variants).joined(separator: "-")
    }

    /// Less specific tags by truncation, most specific first: `zh-Hant-TW` gives `zh-Hant`, `zh`.
    public var truncationParents: [String] {
        let subtags = [language] + [script, region].compactMap { $0 } + variants
        guard subtags.count > 1 else { return [] }
        return (1..<subtags.count).reversed().map { subtags[0..<$0].joined(separator: "-") }
    }

    public static func < (lhs: LocaleTag, rhs: LocaleTag) -> Bool { lhs.description < rhs.description }

    private static func isLetter(_ c: Character) -> Bool { c.isASCII && c.isLetter }
    private static func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }
    private static func isAlphanumeric(_ c: Character) -> Bool { isLetter(c) || isDigit(c) }
}

/// `tr-TR@18`: a locale and a content version, the immutable name of one pack.
public struct PackID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let locale: String
    public let contentVersion: Int

    public init(locale: String, contentVersion: Int) {
        self.locale = locale
        self.contentVersion = contentVersion
    }

    /// Parses `LOCALE@VERSION` as typed on the command line.
    public static func parse(_ text: String) throws -> PackID {
        let pieces = text.split(separator: "@", omittingEmptySubsequences: false)
        guard pieces.count == 2, let version = Int(pieces[1]), version >= 1,
            pieces[1].allSatisfy({ $0.isASCII && $0.isNumber })
        else {
            throw RolloutError.usage("\"\(text)\" is not a pack id; write LOCALE@VERSION, for example tr-TR@18")
        }
        do {
            _ = try LocaleTag.parse(String(pieces[0]))
        } catch let error as LocaleTag.ParseError {
            throw RolloutError.usage("\"\(text)\" is not a pack id: \(error.message)")
        }
        return PackID(locale: String(pieces[0]), contentVersion: version)
    }

    public var description: String { "\(locale)@\(contentVersion)" }

    public static func < (lhs: PackID, rhs: PackID) -> Bool {
        (lhs.locale, lhs.contentVersion) < (rhs.locale, rhs.contentVersion)
    }
}
