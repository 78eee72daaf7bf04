import Foundation
import RolloutModel

extension CatalogImporter {
    // MARK: i18next JSON

    /// `locales/<lng>/<namespace>.json` (keys prefixed with the namespace unless it is
    /// `translation`) or `locales/<lng>.json`, as i18next reads them (docs/import.md, "i18next").
    /// Folder and file names are locales in any spelling i18next apps use (`pt_BR`, `zh-Hant`);
    /// anything else in the folder is listed as left out.
    static func i18next(_ path: String) throws -> CatalogImport {
        var result = CatalogImport()
        let files = try i18nextFiles(path, into: &result)
        guard !files.isEmpty else { throw RolloutError.missing("\(path): no i18next JSON files in it") }
        for file in files {
            let before = (result.strings[file.locale]?.count ?? 0, result.skipped.count)
            try i18nextNamespace(file, into: &result)
            // A file with nothing in it makes no pack, and is said so.
            if (result.strings[file.locale]?.count ?? 0, result.skipped.count) == before {
                result.skipFile(file.path, "no strings in it")
            }
        }
        return result
    }

    /// One namespace file: its locale, and the prefix its keys get (empty for `translation`).
    struct I18nextFile {
        let locale: String
        let prefix: String
        let path: String
    }

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
                for file in entries(full) {
                    guard file.hasSuffix(".json"), !isDirectory("\(full)/\(file)") else {
                        result.skipFile("\(full)/\(file)", "not a namespace file (<namespace>.json)")
                        continue
                    }
                    let namespace = String(file.dropLast(5))
                    files.append(
                        I18nextFile(
                            locale: tag, prefix: namespace == "translation" ? "" : namespace + ".",
                            path: "\(full)/\(file)"))
                }
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

    /// One namespace file's strings, flattened to dotted keys, plural forms made ICU plurals.
    static func i18nextNamespace(_ file: I18nextFile, into result: inout CatalogImport) throws {
        let (tag, prefix) = (file.locale, file.prefix)
        var flat: [String: String] = [:]
        func walk(_ value: JSONValue, _ key: String) {
            if let object = value.objectValue {
                for (name, child) in object { walk(child, key.isEmpty ? name : "\(key).\(name)") }
            } else if let text = value.stringValue {
                flat[key] = text
            } else {
                result.skip(tag, prefix + key, "not a string (arrays and numbers are not imported)")
            }
        }
        walk(.object(try json(file.path)), "")
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

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static func entries(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
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
        return entries
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
/// `{{count}}` in a plural form becomes `#`, and every other character is literal text, which
/// i18next never reads as syntax (an apostrophe, a lone brace, `#`, `%`).
enum I18nextText {
    struct LeftOut: Error, Equatable {
        let message: String
    }

    static func convert(_ text: String, countedArgument: String? = nil) -> Result<String, LeftOut> {
        if text.contains("$t(") {
            return .failure(LeftOut(message: "nests another key with $t(...), which the pack form cannot"))
        }
        let inPlural = countedArgument != nil
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            out += Placeholders.literal(String(rest[..<open.lowerBound]), inPlural: inPlural)
            var name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
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
            out += name == countedArgument ? "#" : "{\(name)}"
            rest = rest[close.upperBound...]
        }
        return .success(out + Placeholders.literal(String(rest), inPlural: inPlural))
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
