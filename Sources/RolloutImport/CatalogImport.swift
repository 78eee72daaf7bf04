import Foundation
import RolloutModel

/// Strings from the catalogs apps keep (docs/import.md): Apple String Catalogs, Android resources,
/// i18next JSON v4 and Flutter ARB, per locale, in the pack's canonical ICU form.
public enum CatalogFormat: String, CaseIterable, Sendable {
    case xcstrings, android, i18next, arb

    /// The format a path looks like: a `.xcstrings` or `.arb` file, a `res` directory with
    /// `values*/strings.xml`, a directory of `.arb` files, or a directory of i18next JSON.
    public static func detect(_ path: String) -> CatalogFormat? {
        if path.hasSuffix(".xcstrings") { return .xcstrings }
        if path.hasSuffix(".arb") { return .arb }
        if path.hasSuffix("strings.xml") { return .android }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return path.hasSuffix(".json") ? .i18next : nil
        }
        let children = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        if children.contains(where: { $0 == "values" || $0.hasPrefix("values-") }) { return .android }
        if children.contains(where: { $0.hasSuffix(".arb") }) { return .arb }
        if children.contains(where: { $0.hasSuffix(".json") })
            || children.contains(where: { CatalogImporter.canonicalLocale($0) != nil })
        {
            return .i18next
        }
        return nil
    }
}

public struct CatalogImport: Sendable {
    public struct Skipped: Sendable, Equatable {
        public let locale: String
        public let key: String
        public let reason: String

        public init(locale: String, key: String, reason: String) {
            self.locale = locale
            self.key = key
            self.reason = reason
        }
    }

    /// A file or folder of the catalog that was not read, and why: nothing is dropped silently.
    public struct SkippedFile: Sendable, Equatable {
        public let path: String
        public let reason: Reason

        public enum Reason: Sendable, Equatable {
            /// Why, in words no option of the command line changes.
            case said(String)
            /// A package.json looked at for i18next-icu that could not be read, so values are read
            /// as plain i18next: the command line says why and how to choose the format instead.
            case manifestNotRead(ManifestProblem)
        }

        /// Why a package.json could not be read: a refusal (over the size limit) or its parser's
        /// message, each starting with the manifest's path.
        public enum ManifestProblem: Sendable, Equatable {
            case refused(ImportRefusal)
            case invalid(String)
        }

        /// The order a listing shows files in: by path, then by reason.
        var order: (String, String) { (path, "\(reason)") }
    }

    /// Locale -> key -> text, canonical.
    public var strings: [String: [String: String]] = [:]
    public var skipped: [Skipped] = []
    public var skippedFiles: [SkippedFile] = []
    /// The catalog's development language, when it says (xcstrings' sourceLanguage).
    public var sourceLocale: String?
    /// How the values were read, when the project said (i18next: `icu` with i18next-icu), and why.
    public var reading: CatalogReading?

    /// A key two sources give one locale (`pt_BR/` and `pt-BR/`, `app_en.arb` and `intl_en.arb`):
    /// the first is kept and the second listed, never overwritten silently. Every `%` a reader
    /// hands here is text (printf arguments are ICU arguments by now), so it is written as the pack
    /// shows it as itself (`PackPrintf.literalPercents`): one rule for every format.
    mutating func add(_ locale: String, _ key: String, _ canonical: String) {
        let text = PackPrintf.literalPercents(canonical)
        if let first = strings[locale]?[key] {
            if first != text {
                skip(
                    locale, key, "given twice for \(locale) (two files or folders name this locale): the first is kept")
            }
            return
        }
        strings[locale, default: [:]][key] = text
    }
    /// Leaves out, and lists, every key `patterns` match: bundle-only keys stay in the app and are
    /// never in a pack (docs/import.md, "Bundle-only keys").
    public mutating func leaveOut(bundleOnly patterns: KeyPatterns) {
        for locale in strings.keys.sorted() {
            for key in strings[locale]!.keys.sorted() {
                guard let pattern = patterns.firstMatch(key) else { continue }
                strings[locale]![key] = nil
                skip(locale, key, "bundle-only (policy bundleOnlyKeys \(pattern)): it stays in the app")
            }
        }
    }

    mutating func skip(_ locale: String, _ key: String, _ reason: String) {
        skipped.append(Skipped(locale: locale, key: key, reason: reason))
    }
    mutating func skipFile(_ path: String, _ reason: String) {
        skippedFiles.append(SkippedFile(path: path, reason: .said(reason)))
    }
}

/// How to read a catalog, beyond its path and format.
public struct ImportOptions: Sendable {
    /// The locale of Android's `values/` and of a catalog that does not name its language.
    public var sourceLocale: String
    /// ARB: whether apostrophes are ICU escaping (gen-l10n's `use-escaping: true`). nil: as the
    /// project's l10n.yaml says, else off, gen-l10n's default.
    public var arbUseEscaping: Bool?
    /// i18next: how values are read. nil: ICU MessageFormat when the nearest package.json lists
    /// i18next-icu, else i18next's interpolation.
    public var i18nextFormat: I18nextFormat?
    /// The largest catalog file read (`--max-catalog-bytes`); a larger one is refused from its size,
    /// before it is read (docs/reliability.md, "Input limits").
    public var maxCatalogBytes: Int

    public init(
        sourceLocale: String, arbUseEscaping: Bool? = nil, i18nextFormat: I18nextFormat? = nil,
        maxCatalogBytes: Int = InputLimits.catalogBytes
    ) {
        self.sourceLocale = sourceLocale
        self.arbUseEscaping = arbUseEscaping
        self.i18nextFormat = i18nextFormat
        self.maxCatalogBytes = maxCatalogBytes
    }
}

public enum CatalogImporter {
    public static func read(_ path: String, format: CatalogFormat, options: ImportOptions) throws -> CatalogImport {
        try $maxCatalogBytes.withValue(options.maxCatalogBytes) {
            switch format {
            case .xcstrings: return try xcstrings(path)
            case .android: return try android(path, sourceLocale: options.sourceLocale)
            case .i18next: return try i18next(path, format: options.i18nextFormat)
            case .arb: return try arb(path, useEscaping: options.arbUseEscaping)
            }
        }
    }

    /// `ImportOptions.maxCatalogBytes` of the import under way, for every file `bytes` reads.
    @TaskLocal static var maxCatalogBytes = InputLimits.catalogBytes

    /// A catalog file, refused (65) from its size before it is read when it is over
    /// `maxCatalogBytes`: a 300 MB catalog took 644 MB of memory to be refused later.
    static func bytes(_ path: String) throws -> [UInt8] {
        let limit = maxCatalogBytes
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw RolloutError.missing("\(path): no such file, or it cannot be read")
        }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()).map(Int.init) ?? 0
        if size > limit { throw ImportRefusal.catalogTooLarge(path: path, bytes: size, limit: limit) }
        try? handle.seek(toOffset: 0)
        // Read one byte past the limit, so a file that grows after the size was taken is refused too.
        let data: Data
        do { data = try handle.read(upToCount: limit + 1) ?? Data() } catch {
            throw RolloutError.missing("\(path): no such file, or it cannot be read")
        }
        if data.count > limit { throw ImportRefusal.catalogTooLarge(path: path, bytes: data.count, limit: limit) }
        return [UInt8](data)
    }

    static func json(_ path: String) throws -> [String: JSONValue] {
        let value: JSONValue
        do { value = try StrictJSONParser.parse(try bytes(path)) } catch let error as JSONParseError {
            throw RolloutError.badInput("\(path):\(error.line):\(error.column): \(error.message)")
        }
        guard let object = value.objectValue else { throw RolloutError.badInput("\(path): expected a JSON object") }
        return object
    }

    /// A catalog file as its toolchain reads JSON (i18next's `JSON.parse`, gen-l10n's
    /// `json.decode`, which both take a key given twice): a key given twice with the same value is
    /// one key; one given twice with different values is left out of the object and returned, so
    /// the reader lists it with the file and lines (docs/import.md, "Duplicate keys").
    static func catalogJSON(_ path: String) throws -> (object: [String: JSONValue], ambiguous: [JSONDuplicateKey]) {
        var duplicates: [JSONDuplicateKey] = []
        let value: JSONValue
        do {
            value = try StrictJSONParser.parse(try bytes(path), duplicates: &duplicates)
        } catch let error as JSONParseError {
            throw RolloutError.badInput("\(path):\(error.line):\(error.column): \(error.message)")
        }
        guard let object = value.objectValue else { throw RolloutError.badInput("\(path): expected a JSON object") }
        return (object, duplicates)
    }

    /// Why a key given twice with different values is left out: where, and what the toolchain would do.
    static func ambiguousReason(_ duplicate: JSONDuplicateKey, in path: String, toolchain: String) -> String {
        let lines = duplicate.lines.map(String.init).joined(separator: ", ")
        return
            "\(path): given \(duplicate.lines.count) times with different values (lines \(lines)); \(toolchain) would take the last silently, so which one is meant is not known: keep one"
    }

    static func locale(_ text: String, in path: String) throws -> String {
        guard let tag = canonicalLocale(text) else {
            throw RolloutError.badInput("\(path): \"\(text)\" is not a locale such as tr-TR, tr_TR or tr")
        }
        return tag
    }

    /// A locale as catalogs spell it (`pt_BR`, `nb_NO`, `zh_Hant_TW`, `iw`) in canonical BCP 47
    /// (`pt-BR`, `nb-NO`, `zh-Hant-TW`, `he`); nil when it is not a locale.
    public static func canonicalLocale(_ spelling: String) -> String? { LocaleTag.canonical(spelling: spelling) }
}
