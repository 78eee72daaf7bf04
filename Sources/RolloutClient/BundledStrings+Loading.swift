import Foundation
import RolloutModel

extension BundledStrings {
    /// Every `*.lproj/Localizable.strings` and `.stringsdict` of the app's bundle (text or binary
    /// property lists, as Xcode copies or compiles them). `Base.lproj` fills the gaps of the
    /// bundle's development language.
    public init(bundle: Bundle, table: String = "Localizable") {
        self.init()
        guard let resources = bundle.resourceURL else {
            problem(bundle.bundlePath, "the bundle has no resources folder")
            return
        }
        // Read from Info.plist: swift-corelibs-foundation's `developmentLocalization` traps in a
        // bundle without one.
        let development = bundle.infoDictionary?["CFBundleDevelopmentRegion"] as? String
        load(directory: resources, baseLocale: development ?? "en", table: table, readsJSON: false)
    }

    /// A folder of `LOCALE.json` files (one object of key -> text each) or `*.lproj` folders
    /// holding `Localizable.strings` / `.stringsdict`, or both; what `rollout device --bundled DIR`
    /// reads. `Base.lproj` fills the gaps of `baseLocale`.
    public init(directory: URL, baseLocale: String = "en", table: String = "Localizable") {
        self.init()
        load(directory: directory, baseLocale: baseLocale, table: table, readsJSON: true)
    }

    /// A JSON catalog: one file `{"tr": {"key": "text"}, ...}`, or a folder of `LOCALE.json` files.
    /// Texts are taken as written: they are in the form packs use.
    public init(jsonCatalog url: URL) {
        self.init()
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            load(directory: url, baseLocale: "en", table: "", readsJSON: true, readsLproj: false)
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
    /// without a value in the source language is its own text there, as the app shows it.
    public init(xcstrings url: URL) {
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
                guard let localization = localizations[spelling]?.objectValue else { continue }
                do {
                    if let text = try StringCatalogText.icu(localization, language: locale, anyState: true) {
                        add(locale, key, text, file: name)
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
                add(source, key, printfText(key, file: name, key: key), file: name)
            }
        }
    }

    // MARK: - Folders

    /// Names older projects gave `.lproj` folders.
    static let legacyFolderNames = [
        "English": "en", "French": "fr", "German": "de", "Japanese": "ja", "Spanish": "es", "Italian": "it", "Dutch": "nl",
    ]

    static func locale(_ spelling: String) -> String? {
        LocaleTag.canonical(spelling: legacyFolderNames[spelling] ?? spelling)
    }

    mutating func load(directory: URL, baseLocale: String, table: String, readsJSON: Bool, readsLproj: Bool = true) {
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
                    loaded.loadLproj(url, locale: Self.locale(baseLocale) ?? "en", table: table, folder: name)
                    base = loaded
                } else if let locale = Self.locale(spelling) {
                    loadLproj(url, locale: locale, table: table, folder: name)
                } else {
                    problem(name, "not a locale folder (tr.lproj, pt-BR.lproj, zh-Hans.lproj, Base.lproj)")
                }
            } else if readsJSON, name.hasSuffix(".json") {
                guard let locale = Self.locale(String(name.dropLast(5))) else {
                    problem(name, "not a LOCALE.json file (tr.json, pt-BR.json)")
                    continue
                }
                if let value = json(url, file: name) { addTable(value, locale: locale, file: name) }
            }
        }
        // Base.lproj: the development language's text wherever its own folder has none.
        if let base { absorb(base) }
    }

    /// One `.lproj` folder: the `.stringsdict` plurals first, then the `.strings` keys it does not
    /// have (Foundation prefers the `.stringsdict` entry for a key both define).
    mutating func loadLproj(_ url: URL, locale: String, table: String, folder: String) {
        var plurals: [String: String] = [:]
        let dictFile = "\(folder)/\(table).stringsdict"
        if let root = propertyList(url.appendingPathComponent("\(table).stringsdict"), file: dictFile) {
            for key in root.keys.sorted() {
                do {
                    plurals[key] = try AppleStringsFile.stringsdictEntry(root[key]!, language: locale)
                } catch let refusal as PrintfRefusal {
                    problem(dictFile, key, refusal.reason)
                } catch let skip as StringCatalogText.Skip {
                    problem(dictFile, key, skip.reason)
                } catch {
                    problem(dictFile, key, "\(error)")
                }
            }
        }
        for key in plurals.keys.sorted() { add(locale, key, plurals[key]!, file: dictFile) }
        let stringsFile = "\(folder)/\(table).strings"
        guard let root = propertyList(url.appendingPathComponent("\(table).strings"), file: stringsFile) else { return }
        for key in root.keys.sorted() where plurals[key] == nil {
            guard let value = root[key] as? String else {
                problem(stringsFile, key, "the value is not a string")
                continue
            }
            add(locale, key, printfText(value, file: stringsFile, key: key), file: stringsFile)
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
            guard let root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any] else {
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
    /// Catalog substitution gives: the same argument numbering, through the same converter. A
    /// `zero` form is for the number 0 in every language, as Foundation takes it: `=0` where the
    /// language has no CLDR zero category.
    static func stringsdictEntry(_ entry: Any, language: String) throws -> String {
        guard let entry = entry as? [String: Any] else { throw StringCatalogText.Skip("the entry is not a dictionary") }
        guard let format = entry["NSStringLocalizedFormatKey"] as? String else {
            throw StringCatalogText.Skip("the entry has no NSStringLocalizedFormatKey")
        }
        var substitutions: [String: JSONValue] = [:]
        for (name, value) in entry where name != "NSStringLocalizedFormatKey" {
            guard let variable = value as? [String: Any] else { continue }
            let rule = variable["NSStringFormatSpecTypeKey"] as? String
            guard rule == "NSStringPluralRuleType" else {
                throw StringCatalogText.Skip("the variable \(name) is \(rule ?? "of no rule type"); only NSStringPluralRuleType is read")
            }
            var forms: [String: JSONValue] = [:]
            for category in ["zero", "one", "two", "few", "many", "other"] {
                guard let text = variable[category] as? String else { continue }
                let selector = category == "zero" && !PluralRules(locale: language).categories.contains(.zero) ? "=0" : category
                forms[selector] = ["stringUnit": ["value": .string(text)]]
            }
            var substitution: [String: JSONValue] = ["variations": ["plural": .object(forms)]]
            if let type = variable["NSStringFormatValueTypeKey"] as? String { substitution["formatSpecifier"] = .string(type) }
            substitutions[name] = .object(substitution)
        }
        let localization: [String: JSONValue] = [
            "stringUnit": ["value": .string(format)], "substitutions": .object(substitutions),
        ]
        guard let text = try StringCatalogText.icu(localization, language: language, anyState: true) else {
            throw StringCatalogText.Skip("the entry has no text")
        }
        return text
    }
}
