import Foundation
import RolloutModel

extension CatalogImporter {
    // MARK: i18next JSON

    /// `locales/<lng>/<namespace>.json` (keys prefixed with the namespace unless it is
    /// `translation`; a namespace in a subfolder, `locales/en/views/live.json`, is `views/live`) or
    /// `locales/<lng>.json`, as i18next reads them (docs/import.md, "i18next"). Folder and file
    /// names are locales in any spelling i18next apps use (`pt_BR`, `zh-Hant`); anything else in
    /// the folder is listed as left out. The source locale is `en` when there is one (the
    /// `fallbackLng` i18next apps set), else the import's default.
    static func i18next(_ path: String, format: I18nextFormat? = nil) throws -> CatalogImport {
        var result = CatalogImport()
        let files = try i18nextFiles(path, into: &result)
        guard !files.isEmpty else { throw RolloutError.missing("\(path): no i18next JSON files in it") }
        let reading =
            try format.map { CatalogReading(format: $0.rawValue, because: .asked) }
            ?? i18nextICUProject(path, into: &result).map {
                CatalogReading(format: I18nextFormat.icu.rawValue, because: .project(manifest: $0))
            }
        result.reading = reading
        let icu = reading?.format == I18nextFormat.icu.rawValue
        for file in files {
            let before = (result.strings[file.locale]?.count ?? 0, result.skipped.count)
            try icu ? icuNamespace(file, into: &result) : i18nextNamespace(file, into: &result)
            // A file with nothing in it makes no pack, and is said so.
            if (result.strings[file.locale]?.count ?? 0, result.skipped.count) == before {
                result.skipFile(file.path, "no strings in it")
            }
        }
        if result.strings["en"] != nil { result.sourceLocale = "en" }
        return result
    }

    /// One namespace file: its locale, and the prefix its keys get (empty for `translation`).
    struct I18nextFile {
        let locale: String
        let prefix: String
        let path: String
    }

    /// How deep namespace subfolders are read (`locales/en/a/b/c.json` is two).
    static let namespaceDepth = 8

    /// The namespace files at `path` (one file, or a folder of locale folders and locale files);
    /// what is not one is listed in `result` as left out.
    static func i18nextFiles(_ path: String, into result: inout CatalogImport) throws -> [I18nextFile] {
        guard isDirectory(path) else {
            let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            return [I18nextFile(locale: try locale(stem, in: path), prefix: "", path: path)]
        }
        var files: [I18nextFile] = []
        for entry in entries(path) {
            let full = "\(path)/\(entry)"
            if isDirectory(full) {
                guard let tag = canonicalLocale(entry) else {
                    result.skipFile(full, "not a locale folder (such as pt-BR, pt_BR or zh-Hant)")
                    continue
                }
                files += namespaceFiles(in: full, namespace: "", locale: tag, into: &result)
            } else if entry.hasSuffix(".json"), let tag = canonicalLocale(String(entry.dropLast(5))) {
                files.append(I18nextFile(locale: tag, prefix: "", path: full))
            } else {
                result.skipFile(
                    full,
                    entry.hasSuffix(".json")
                        ? "not named for a locale (such as pt-BR.json)" : "not an i18next .json file")
            }
        }
        return files
    }

    /// The namespace files of one locale folder, subfolders included: i18next's backends put the
    /// namespace into `loadPath` (`/locales/{{lng}}/{{ns}}.json`) as it is, so namespace
    /// `views/live` is the file `views/live.json` (with `interpolation.escapeValue: false`, which
    /// React apps set). `namespace` is the subfolder's path so far (`views/`).
    static func namespaceFiles(
        in folder: String, namespace: String, locale tag: String, into result: inout CatalogImport
    ) -> [I18nextFile] {
        var files: [I18nextFile] = []
        for file in entries(folder) {
            let full = "\(folder)/\(file)"
            if isDirectory(full) {
                guard namespace.split(separator: "/").count < namespaceDepth else {
                    result.skipFile(full, "namespace folders more than \(namespaceDepth) deep are not read")
                    continue
                }
                files += namespaceFiles(in: full, namespace: "\(namespace)\(file)/", locale: tag, into: &result)
                continue
            }
            guard file.hasSuffix(".json") else {
                result.skipFile(full, "not a namespace file (<namespace>.json)")
                continue
            }
            let name = namespace + String(file.dropLast(5))
            files.append(I18nextFile(locale: tag, prefix: name == "translation" ? "" : name + ".", path: full))
        }
        return files
    }

    /// One namespace file's strings, flattened to dotted keys, plural forms made ICU plurals.
    static func i18nextNamespace(_ file: I18nextFile, into result: inout CatalogImport) throws {
        let (tag, prefix) = (file.locale, file.prefix)
        var flat: [String: String] = [:]
        func walk(_ value: JSONValue, _ key: String) {
            if let object = value.objectValue {
                for name in object.keys.sorted() { walk(object[name]!, key.isEmpty ? name : "\(key).\(name)") }
            } else if let text = value.stringValue {
                flat[key] = text
            } else {
                result.skip(tag, prefix + key, "not a string (arrays and numbers are not imported)")
            }
        }
        let (object, ambiguous) = try catalogJSON(file.path)
        for duplicate in ambiguous {
            result.skip(
                tag, prefix + duplicate.path.joined(separator: "."),
                ambiguousReason(duplicate, in: file.path, toolchain: "JSON.parse"))
        }
        walk(.object(object), "")
        for entry in I18nextKeys.group(flat, language: tag) {
            switch entry {
            case .text(let key, let text):
                switch I18nextText.convert(text) {
                case .success(let icu): result.add(tag, prefix + key, icu)
                case .failure(let reason): result.skip(tag, prefix + key, reason.message)
                }
            case .plural(let key, let forms):
                switch I18nextText.plural(forms, language: tag) {
                case .success(let icu): result.add(tag, prefix + key, icu)
                case .failure(let reason): result.skip(tag, prefix + key, reason.message)
                }
            case .leftOut(let key, let reason):
                result.skip(tag, prefix + key, reason)
            }
        }
    }

    /// The package.json, walking up from the catalog's folder to the project's root (the folder
    /// holding `.git`) or the file system's, that lists `i18next-icu` in its dependencies,
    /// devDependencies, peerDependencies or optionalDependencies: the app then formats every value
    /// as ICU MessageFormat (i18next.use(ICU)), not with i18next's `{{name}}` interpolation. Every
    /// package.json on the way counts, as Node finds the module through every node_modules up the
    /// tree (a workspace's root lists what its apps share). One that is not JSON says nothing: it
    /// is listed as left out with the flag that says it instead, and the walk goes on (the catalog
    /// itself is fine, so it is not refused); a folder named package.json is no manifest.
    static func i18nextICUProject(_ path: String, into result: inout CatalogImport) throws -> String? {
        var folder = URL(fileURLWithPath: isDirectory(path) ? path : (path as NSString).deletingLastPathComponent)
            .standardizedFileURL.path
        let sections = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]
        while true {
            let manifest = folder == "/" ? "/package.json" : "\(folder)/package.json"
            if FileManager.default.fileExists(atPath: manifest), !isDirectory(manifest) {
                do {
                    let object = try json(manifest)
                    if sections.contains(where: { object[$0]?.objectValue?["i18next-icu"] != nil }) { return manifest }
                } catch let refusal as ImportRefusal {
                    result.skippedFiles.append(.init(path: manifest, reason: .manifestNotRead(.refused(refusal))))
                } catch let error as RolloutError where error.kind == .badInput {
                    result.skippedFiles.append(.init(path: manifest, reason: .manifestNotRead(.invalid(error.message))))
                }
            }
            let projectRoot = FileManager.default.fileExists(atPath: "\(folder)/.git")
            guard !projectRoot, folder != "/", !folder.isEmpty else { return nil }
            folder = (folder as NSString).deletingLastPathComponent
        }
    }

    /// One namespace file of an i18next-icu project: each value is ICU MessageFormat, the pack's
    /// own form, kept as it is (apostrophes, `#`, `{{` as ICU reads them), or left out with
    /// the syntax error ICU would refuse it for.
    static func icuNamespace(_ file: I18nextFile, into result: inout CatalogImport) throws {
        let (object, ambiguous) = try catalogJSON(file.path)
        for duplicate in ambiguous {
            result.skip(
                file.locale, file.prefix + duplicate.path.joined(separator: "."),
                ambiguousReason(duplicate, in: file.path, toolchain: "JSON.parse"))
        }
        func walk(_ value: JSONValue, _ key: String) {
            if let object = value.objectValue {
                for name in object.keys.sorted() { walk(object[name]!, key.isEmpty ? name : "\(key).\(name)") }
            } else if let text = value.stringValue {
                let syntax = MessageSyntax.analyse(text)
                if let error = syntax.errors.first {
                    result.skip(file.locale, file.prefix + key, "not ICU MessageFormat (i18next-icu): \(error)")
                } else if let template = syntax.placeholders.sorted().first(where: { $0.hasPrefix("{{") }) {
                    // The pack would read `{{name}}` as its template placeholder; ICU refuses it.
                    result.skip(
                        file.locale, file.prefix + key,
                        "not ICU MessageFormat (i18next-icu): \(template) is not a placeholder in ICU, write {name}")
                } else {
                    result.add(file.locale, file.prefix + key, text)
                }
            } else {
                result.skip(file.locale, file.prefix + key, "not a string (arrays and numbers are not imported)")
            }
        }
        walk(.object(object), "")
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static func entries(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}

/// How i18next values are read: `icu` as ICU MessageFormat (the i18next-icu plugin), `i18next`
/// with i18next's own interpolation (`{{name}}`).
public enum I18nextFormat: String, CaseIterable, Sendable {
    case icu, i18next
}

/// How a catalog's values were read, and why (the flag, or the project file that says).
public struct CatalogReading: Sendable, Equatable {
    public let format: String
    public let because: Because

    public enum Because: Sendable, Equatable {
        /// The import was told (the command line's format option).
        case asked
        /// A package.json up the tree lists i18next-icu.
        case project(manifest: String)
    }
}

/// A namespace's flat keys sorted into plain strings and plural forms, as i18next looks them up.
enum I18nextKeys {
    enum Entry: Equatable {
        case text(key: String, text: String)
        /// Category (`zero`...`other`) -> text, or `=0` for i18next's `_zero`, which a count of 0
        /// takes in every language.
        case plural(key: String, forms: [String: String])
        case leftOut(key: String, reason: String)

        var key: String {
            switch self {
            case .text(let key, _), .plural(let key, _), .leftOut(let key, _): return key
            }
        }
    }

    static let categories = ["zero", "one", "two", "few", "many", "other"]

    /// The forms i18next's JSON v3 wrote as `key_0`...`key_5`: the index is the language's plural
    /// rule's result, in the order of i18next v3's rule sets.
    static let numberedForms: [String: [String]] = {
        var table: [String: [String]] = [
            "ar": ["zero", "one", "two", "few", "many", "other"], "cs": ["one", "few", "other"],
            "sk": ["one", "few", "other"], "pl": ["one", "few", "many"],
        ]
        for language in ["be", "bs", "hr", "ru", "sr", "uk"] { table[language] = ["one", "few", "many"] }
        return table
    }()

    static func group(_ flat: [String: String], language: String) -> [Entry] {
        var entries: [Entry] = []
        var used: Set<String> = []
        var plurals: [String: [String: String]] = [:]
        let languageCode = String(language.split(separator: "-").first ?? "")
        // v4: `_one`...`_other` are forms of a key only when its `_other` exists, or, in a language
        // whose `other` is only for fractions (Polish, Russian, Ukrainian, Belarusian), its `_many`:
        // i18next finds every whole-number count among one, few and many there, and `many`
        // stands for `other` in the pack.
        let fractionsOnly = !PluralRules(locale: language).wholeNumberCategories.contains(.other)
        func isPlural(_ base: String) -> Bool {
            flat[base + "_other"] != nil || (fractionsOnly && flat[base + "_many"] != nil)
        }
        for (key, text) in flat {
            for category in categories where key.hasSuffix("_" + category) {
                let base = String(key.dropLast(category.count + 1))
                if base.hasSuffix("_ordinal"), isPlural(base) {
                    entries.append(
                        .leftOut(
                            key: key, reason: "an ordinal plural form (_ordinal_\(category)): ordinals are not imported"
                        ))
                    used.insert(key)
                } else if isPlural(base) {
                    plurals[base, default: [:]][category] = text
                    used.insert(key)
                }
            }
        }
        for (base, forms) in plurals where forms["other"] == nil { plurals[base]!["other"] = forms["many"] }
        // v3: `key` and `key_plural`, or `key_0`...`key_5` by the language's rule set.
        for (key, text) in flat where key.hasSuffix("_plural") && !used.contains(key) {
            let base = String(key.dropLast(7))
            guard let singular = flat[base], plurals[base] == nil else { continue }
            plurals[base] = ["one": singular, "other": text]
            used.formUnion([key, base])
        }
        numberedPlurals(flat, languageCode: languageCode, into: &plurals, used: &used, entries: &entries)
        for (base, forms) in plurals {
            if flat[base] != nil, !used.contains(base) {
                entries.append(
                    .leftOut(
                        key: base,
                        reason:
                            "the key is also the name of plural forms (\(base)_other); the plural is imported under it")
                )
                used.insert(base)
            }
            entries.append(.plural(key: base, forms: forms))
        }
        for (key, text) in flat where !used.contains(key) { entries.append(.text(key: key, text: text)) }
        // In key order, so what is left out is listed the same way every run.
        return entries.sorted { $0.key < $1.key }
    }

    /// i18next v3's numbered forms, `key_0`...`key_5`, mapped to categories by the language's v3
    /// rule set; for a language whose set is not known here, each form is left out with the reason.
    static func numberedPlurals(
        _ flat: [String: String], languageCode: String, into plurals: inout [String: [String: String]],
        used: inout Set<String>, entries: inout [Entry]
    ) {
        for key in flat.keys where key.hasSuffix("_0") && !used.contains(key) {
            let base = String(key.dropLast(2))
            guard flat[base + "_1"] != nil, plurals[base] == nil else { continue }
            let numbered = (0...5).map { "\(base)_\($0)" }.filter { flat[$0] != nil }
            guard let forms = numberedForms[languageCode], numbered.count <= forms.count else {
                for key in numbered {
                    entries.append(
                        .leftOut(
                            key: key,
                            reason:
                                "an i18next v3 numbered plural form, for a language (\(languageCode)) whose v3 rule set is not known here: write it in v4 form (_one, _other)"
                        ))
                }
                used.formUnion(numbered)
                continue
            }
            var mapped: [String: String] = [:]
            for (index, category) in forms.enumerated() {
                if let form = flat["\(base)_\(index)"] { mapped[category] = form }
            }
            mapped["other"] = mapped["other"] ?? flat["\(base)_\(forms.count - 1)"]
            plurals[base] = mapped
            used.formUnion(numbered)
        }
    }
}

/// i18next's interpolation in ICU form: `{{name}}` (and unescaped `{{- name}}`) become `{name}`,
/// `{{count}}` in a plural form is `{count}` (the count as the app passed it, as i18next shows it), and every other character is literal text, which
/// i18next never reads as syntax (an apostrophe, a lone brace, `#`, `%`).
enum I18nextText {
    struct LeftOut: Error, Equatable {
        let message: String
    }

    /// Read as Unicode scalars, as i18next's regular expressions read the string: `{{name}}`
    /// followed by a zero-width non-joiner (Persian `{{count}}\u{200C}ها`) is an argument and a
    /// joiner, where Swift's Characters would join the `}` and the joiner into one.
    static func convert(_ text: String, countedArgument: String? = nil) -> Result<String, LeftOut> {
        if text.contains("$t(") {
            return .failure(LeftOut(message: "nests another key with $t(...), which the pack form cannot"))
        }
        let inPlural = countedArgument != nil
        let s = Array(text.unicodeScalars)
        func find(_ pair: Unicode.Scalar, from start: Int) -> Int? {
            var i = start
            while i + 1 < s.count {
                if s[i] == pair, s[i + 1] == pair { return i }
                i += 1
            }
            return nil
        }
        func string(_ range: Range<Int>) -> String { String(String.UnicodeScalarView(s[range])) }
        var out = ""
        var rest = 0
        while let open = find("{", from: rest), let close = find("}", from: open + 2) {
            out += Placeholders.literal(string(rest..<open), inPlural: inPlural)
            var name = string((open + 2)..<close).trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("-") { name = String(name.dropFirst()).trimmingCharacters(in: .whitespaces) }
            if name.contains(",") {
                return .failure(.formatter(name))
            }
            guard !name.isEmpty,
                name.unicodeScalars.allSatisfy({
                    $0.isASCII
                        && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0))
                })
            else {
                return .failure(.notAnArgumentName(name))
            }
            // `{{count}}` in a plural form too: i18next shows the count as the app passed it (1.5,
            // never 1,5), which `{count}` does on a device and `#` (the language's digits) would not.
            out += "{\(name)}"
            rest = close + 2
        }
        return .success(out + Placeholders.literal(string(rest..<s.count), inPlural: inPlural))
    }

    /// Plural forms of `count` as one ICU plural. i18next takes `_zero` for a count of 0 in every
    /// language (and for the CLDR zero category where the language has one): `=0` where it has not.
    static func plural(_ forms: [String: String], language: String) -> Result<String, LeftOut> {
        var cases: [String] = []
        for category in I18nextKeys.categories {
            guard let form = forms[category] else { continue }
            let selector =
                category == "zero" && !PluralRules(locale: language).categories.contains(.zero) ? "=0" : category
            switch convert(form, countedArgument: "count") {
            case .success(let icu): cases.append("\(selector) {\(icu)}")
            case .failure(let reason): return .failure(reason)
            }
        }
        return .success("{count, plural, \(cases.joined(separator: " "))}")
    }
}

extension I18nextText.LeftOut {
    fileprivate static func formatter(_ name: String) -> Self {
        Self(message: "formats a value ({{\(name)}}) with an i18next formatter, which the pack form does not have")
    }

    fileprivate static func notAnArgumentName(_ name: String) -> Self {
        Self(message: "{{\(name)}} is not an argument name the pack form can hold (letters, digits, _ . -)")
    }
}
