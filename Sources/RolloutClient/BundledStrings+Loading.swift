import Foundation
import RolloutModel

extension BundledStrings {
    /// Every `*.lproj/Localizable.strings` and `.stringsdict` of the app's bundle (text or binary
    /// property lists, as Xcode copies or compiles them). `Base.lproj` fills the gaps of the
    /// bundle's development language. `device` picks the variant of a device rule (`iphone`, `ipad`,
    /// `mac`, ...; `other` when the catalog has none for it), as the app shows it on that device.
    /// `locales`, when given, limits the reading to the tables those locales can show (each, its
    /// shorter forms and `Base.lproj`): an app with 90,000 strings in 34 languages reads one or two
    /// of them at launch (`[deviceLocale, "en-US"]`), and makes a new `BundledStrings` when the
    /// user picks another language.
    public init(
        bundle: Bundle, table: String = "Localizable", device: String = BundledStrings.currentDevice,
        locales: [String]? = nil
    ) {
        self.init()
        guard let resources = bundle.resourceURL else {
            problem(bundle.bundlePath, "the bundle has no resources folder")
            return
        }
        // Read from Info.plist: swift-corelibs-foundation's `developmentLocalization` traps in a
        // bundle without one.
        let development = bundle.infoDictionary?["CFBundleDevelopmentRegion"] as? String
        load(
            directory: resources, baseLocale: development ?? "en", table: table, readsJSON: false, device: device,
            locales: locales)
    }

    /// A folder of `LOCALE.json` files (one object of key -> text each) or `*.lproj` folders
    /// holding `Localizable.strings` / `.stringsdict`, or both; what `rollout device --bundled DIR`
    /// reads. `Base.lproj` fills the gaps of `baseLocale`; `device` and `locales` as for
    /// `init(bundle:)`.
    public init(
        directory: URL, baseLocale: String = "en", table: String = "Localizable",
        device: String = BundledStrings.currentDevice,
        locales: [String]? = nil
    ) {
        self.init()
        load(
            directory: directory, baseLocale: baseLocale, table: table, readsJSON: true, device: device,
            locales: locales)
    }

    /// A JSON catalog: one file `{"tr": {"key": "text"}, ...}`, or a folder of `LOCALE.json` files.
    /// Texts are taken as written: they are in the form packs use.
    public init(jsonCatalog url: URL) {
        self.init()
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            load(
                directory: url, baseLocale: "en", table: "", readsJSON: true, readsLproj: false,
                device: Self.currentDevice)
            return
        }
        let name = url.lastPathComponent
        guard let root = json(url, file: name)?.objectValue else {
            if problems.isEmpty { problem(name, "expected an object of locale -> {key: text}") }
            return
        }
        for spelling in root.keys.sorted() {
            guard let locale = Self.locale(spelling) else {
                problem(name, spelling, "\"\(spelling)\" is not a locale such as tr-TR or pt_BR")
                continue
            }
            addTable(root[spelling]!, locale: locale, file: "\(name): \(spelling)")
        }
    }

    /// An Xcode String Catalog, as Xcode builds it into the app: every localization with a value
    /// (whatever its review state), plural variations and substitutions as ICU plurals; a key
    /// without a value in the source language is its own text there, as the app shows it. Device
    /// variations give `device`'s, else `other`'s (a key with neither is listed).
    public init(xcstrings url: URL, device: String = BundledStrings.currentDevice) {
        self.init()
        let name = url.lastPathComponent
        guard let root = json(url, file: name)?.objectValue else {
            if problems.isEmpty { problem(name, "expected a String Catalog object") }
            return
        }
        guard let entries = root["strings"]?.objectValue else {
            problem(name, "a String Catalog has a \"strings\" object")
            return
        }
        let source = root["sourceLanguage"]?.stringValue.flatMap(Self.locale)
        for key in entries.keys.sorted() {
            let localizations = entries[key]?.objectValue?["localizations"]?.objectValue ?? [:]
            for spelling in localizations.keys.sorted() {
                guard let locale = Self.locale(spelling) else {
                    problem(name, key, "\"\(spelling)\" is not a locale")
                    continue
                }
                guard var localization = localizations[spelling]?.objectValue else { continue }
                do {
                    if let devices = localization["variations"]?.objectValue?["device"]?.objectValue {
                        guard let variant = (devices[device] ?? devices["other"])?.objectValue else {
                            problem(name, key, "\(locale): no device variation for \(device), and no \"other\"")
                            continue
                        }
                        // Substitutions stay beside the variations: the variant's text names them.
                        localization = variant.merging(localization.filter { $0.key == "substitutions" }) { own, _ in
                            own
                        }
                    }
                    if let text = try StringCatalogText.icu(localization, language: locale, anyState: true) {
                        addConverted(locale, key, text, file: name)
                    }
                } catch let skip as StringCatalogText.Skip {
                    problem(name, key, "\(locale): \(skip.reason)")
                } catch let refusal as PrintfRefusal {
                    problem(name, key, "\(locale): \(refusal.reason)")
                } catch {
                    problem(name, key, "\(locale): \(error)")
                }
            }
            if let source, !localizations.keys.contains(where: { Self.locale($0) == source }) {
                addConverted(source, key, printfText(key, file: name, key: key), file: name)
            }
        }
    }

    /// The device kind this process runs on, as device rules and String Catalog device variations
    /// name it: `mac`, `appletv`, `applewatch`, `applevision`, on iOS `iphone`, `ipad` or `ipod`
    /// (from the hardware model, as UIKit is not linked); `other` elsewhere (Linux, `rollout device`).
    public static var currentDevice: String {
        #if os(macOS) || targetEnvironment(macCatalyst)
            return "mac"
        #elseif os(tvOS)
            return "appletv"
        #elseif os(watchOS)
            return "applewatch"
        #elseif os(visionOS)
            return "applevision"
        #elseif os(iOS)
            var system = utsname()
            uname(&system)
            var model = withUnsafeBytes(of: &system.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let simulated = ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"] { model = simulated }
            if model.hasPrefix("iPad") { return "ipad" }
            if model.hasPrefix("iPod") { return "ipod" }
            return "iphone"
        #else
            return "other"
        #endif
    }

    // MARK: - Folders

    /// Names older projects gave `.lproj` folders.
    static let legacyFolderNames = [
        "English": "en", "French": "fr", "German": "de", "Japanese": "ja", "Spanish": "es", "Italian": "it",
        "Dutch": "nl",
    ]

    static func locale(_ spelling: String) -> String? {
        LocaleTag.canonical(spelling: legacyFolderNames[spelling] ?? spelling)
    }

    mutating func load(
        directory: URL, baseLocale: String, table: String, readsJSON: Bool, readsLproj: Bool = true, device: String,
        locales wanted: [String]? = nil
    ) {
        // A table is wanted when it is one of `wanted` or a shorter form of one (`tr` for `tr-TR`).
        let wanted = wanted?.map { Self.locale($0) ?? $0 }
        func skipped(_ locale: String) -> Bool {
            guard let wanted else { return false }
            return !wanted.contains { $0 == locale || $0.hasPrefix(locale + "-") }
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        } catch {
            problem(directory.lastPathComponent, "the folder cannot be read")
            return
        }
        var base: BundledStrings?
        for name in names where !name.hasPrefix(".") {
            let url = directory.appendingPathComponent(name)
            if readsLproj, name.hasSuffix(".lproj") {
                let spelling = String(name.dropLast(6))
                if spelling == "Base" {
                    var loaded = BundledStrings()
                    loaded.loadLproj(
                        url, locale: Self.locale(baseLocale) ?? "en", table: table, folder: name, device: device)
                    base = loaded
                } else if let locale = Self.locale(spelling) {
                    if skipped(locale) { continue }
                    loadLproj(url, locale: locale, table: table, folder: name, device: device)
                } else {
                    problem(name, "not a locale folder (tr.lproj, pt-BR.lproj, zh-Hans.lproj, Base.lproj)")
                }
            } else if readsJSON, name.hasSuffix(".json") {
                guard let locale = Self.locale(String(name.dropLast(5))) else {
                    problem(name, "not a LOCALE.json file (tr.json, pt-BR.json)")
                    continue
                }
                if skipped(locale) { continue }
                if let value = json(url, file: name) { addTable(value, locale: locale, file: name) }
            }
        }
        // Base.lproj: the development language's text wherever its own folder has none.
        if let base { absorb(base) }
    }

    /// One `.lproj` folder: the `.stringsdict` plurals first, then the `.strings` keys it does not
    /// have (Foundation prefers the `.stringsdict` entry for a key both define; a device rule with no
    /// variant for `device` leaves the key to the `.strings` file).
    mutating func loadLproj(_ url: URL, locale: String, table: String, folder: String, device: String) {
        var plurals: [String: String] = [:]
        var noVariant: [String] = []
        let dictFile = "\(folder)/\(table).stringsdict"
        if let root = propertyList(url.appendingPathComponent("\(table).stringsdict"), file: dictFile) {
            for key in root.keys.sorted() {
                do {
                    if let text = try AppleStringsFile.stringsdictEntry(root[key]!, language: locale, device: device) {
                        plurals[key] = text
                    } else {
                        noVariant.append(key)
                    }
                } catch let refusal as PrintfRefusal {
                    problem(dictFile, key, refusal.reason)
                } catch let skip as StringCatalogText.Skip {
                    problem(dictFile, key, skip.reason)
                } catch {
                    problem(dictFile, key, "\(error)")
                }
            }
        }
        for key in plurals.keys.sorted() { addConverted(locale, key, plurals[key]!, file: dictFile) }
        let stringsFile = "\(folder)/\(table).strings"
        let root = propertyList(url.appendingPathComponent("\(table).strings"), file: stringsFile) ?? [:]
        for key in noVariant where root[key] == nil {
            problem(dictFile, key, "no device variant for \(device), no \"other\", and no .strings value")
        }
        for key in root.keys.sorted() where plurals[key] == nil {
            guard let value = root[key] as? String else {
                problem(stringsFile, key, "the value is not a string")
                continue
            }
            addConverted(locale, key, printfText(value, file: stringsFile, key: key), file: stringsFile)
        }
    }

    // MARK: - Files

    /// A property list's top-level dictionary; nil, and a problem unless the file is absent.
    mutating func propertyList(_ url: URL, file: String) -> [String: Any]? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            problem(file, "the file cannot be read")
            return nil
        }
        do {
            guard
                let root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
                    as? [String: Any]
            else {
                problem(file, "expected a dictionary of key -> text")
                return nil
            }
            return root
        } catch {
            let detail = (error as NSError).userInfo["NSDebugDescription"] as? String
            problem(file, "not a property list\(detail.map { " (\($0))" } ?? "")")
            return nil
        }
    }

    mutating func json(_ url: URL, file: String) -> JSONValue? {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            problem(file, "no such file, or it cannot be read")
            return nil
        }
        do {
            return try StrictJSONParser.parse([UInt8](data))
        } catch let error as JSONParseError {
            problem(file, "\(error.line):\(error.column): \(error.message)")
        } catch {
            problem(file, "\(error)")
        }
        return nil
    }

    /// An object of key -> text; anything else is listed.
    mutating func addTable(_ value: JSONValue, locale: String, file: String) {
        guard let table = value.objectValue else {
            problem(file, "expected an object of key -> text")
            return
        }
        for key in table.keys.sorted() {
            guard let text = table[key]?.stringValue else {
                problem(file, key, "the value is not a string")
                continue
            }
            add(locale, key, text, file: file)
        }
    }

    /// A printf string (`Localizable.strings`, a String Catalog key) in the form packs use; one
    /// whose conversions have no such form (`%05d`) is shown as written, and listed.
    mutating func printfText(_ value: String, file: String, key: String) -> String {
        do {
            return try Placeholders.printfICU(value, dialect: .apple)
        } catch let refusal as PrintfRefusal {
            problem(file, key, "shown as written, without its arguments: \(refusal.reason)")
        } catch {
            problem(file, key, "shown as written: \(error)")
        }
        return Placeholders.literal(value)
    }
}

/// `Localizable.stringsdict` entries, as Foundation reads them.
enum AppleStringsFile {
    /// One entry (`NSStringLocalizedFormatKey` and its variables) as the ICU plural a String
    /// Catalog substitution gives: a `%#@name@` takes the next argument in order unless it has a
    /// position, and a conversion without a position in a form is the counted argument. A form may
    /// use another variable (`%2$#@accounts@`, as Foundation allows): it is an ICU plural inside
    /// the form. A `zero` form is for the number 0 in every language, as Foundation takes it: `=0`
    /// where the language has no CLDR zero category. A device rule (`NSStringDeviceSpecificRuleType`,
    /// what Xcode compiles a String Catalog's device variations into) gives `device`'s variant, else
    /// `other`; nil when it has neither (Foundation then reads the `.strings` value, where Xcode
    /// writes the fallback).
    static func stringsdictEntry(_ entry: Any, language: String, device: String) throws -> String? {
        guard let entry = entry as? [String: Any] else { throw StringCatalogText.Skip("the entry is not a dictionary") }
        if let rule = entry["NSStringDeviceSpecificRuleType"] {
            guard let variants = rule as? [String: Any] else { throw StringCatalogText.Skip.deviceRuleNotADictionary }
            guard let variant = variants[device] ?? variants["other"] else { return nil }
            if let text = variant as? String { return try Placeholders.printfICU(text, dialect: .apple) }
            return try stringsdictEntry(variant, language: language, device: device)
        }
        guard let format = entry["NSStringLocalizedFormatKey"] as? String else {
            throw StringCatalogText.Skip("the entry has no NSStringLocalizedFormatKey")
        }
        return try Placeholders.icu(Placeholders.printf(format, dialect: .apple)) { name, argument in
            try variable(name, argument: argument, entry: entry, language: language, within: [])
        }
    }

    /// The variable `name` of `entry`, counting `argument`, as an ICU plural; `within` are the
    /// variables it is nested in (a form that names one of them again is refused, not followed).
    static func variable(_ name: String, argument: Int, entry: [String: Any], language: String, within: [String]) throws
        -> String
    {
        guard !within.contains(name) else { throw StringCatalogText.Skip("the variable \(name) uses itself") }
        guard let variable = entry[name] as? [String: Any] else { throw StringCatalogText.Skip.noVariable(name) }
        let rule = variable["NSStringFormatSpecTypeKey"] as? String
        guard rule == "NSStringPluralRuleType" else {
            throw StringCatalogText.Skip.notAPluralRule(name, rule)
        }
        let rules = PluralRules(locale: language)
        var forms: [String: String] = [:]
        for category in ["zero", "one", "two", "few", "many", "other"] {
            guard let text = variable[category] as? String else { continue }
            forms[category == "zero" && !rules.categories.contains(.zero) ? "=0" : category] = text
        }
        // A language in which no whole number is `other` may leave it out: `many` stands for it.
        if forms["other"] == nil, let many = forms["many"], !rules.wholeNumberCategories.contains(.other) {
            forms["other"] = many
        }
        guard forms["other"] != nil else {
            throw PrintfRefusal.noOtherForm(name)
        }
        let order = ["zero", "one", "two", "few", "many", "other"]
        let selectors = forms.keys.sorted {
            (order.firstIndex(of: $0) ?? 99, $0) < (order.firstIndex(of: $1) ?? 99, $1)
        }
        let cases = try selectors.map { selector in
            let pieces = try Placeholders.printf(forms[selector]!, dialect: .apple, unnumbered: argument)
            let text = try Placeholders.icu(pieces, pluralArgument: argument) { inner, position in
                try self.variable(inner, argument: position, entry: entry, language: language, within: within + [name])
            }
            return "\(selector) {\(text)}"
        }
        return "{\(argument), plural, \(cases.joined(separator: " "))}"
    }
}

extension StringCatalogText.Skip {
    fileprivate static let deviceRuleNotADictionary = Self("NSStringDeviceSpecificRuleType is not a dictionary")

    fileprivate static func noVariable(_ name: String) -> Self { Self("%#@\(name)@ names no variable of the entry") }

    fileprivate static func notAPluralRule(_ name: String, _ rule: String?) -> Self {
        Self("the variable \(name) is \(rule ?? "of no rule type"); only NSStringPluralRuleType is read")
    }
}

extension PrintfRefusal {
    fileprivate static func noOtherForm(_ name: String) -> PrintfRefusal {
        PrintfRefusal(reason: "the variable \(name) has no \"other\" form, the form every count falls back to")
    }
}
