import Foundation
import RolloutModel

extension CatalogImporter {
    // MARK: i18next JSON v4

    /// `locales/<lng>/<namespace>.json` (keys prefixed with the namespace unless it is
    /// `translation`) or `locales/<lng>.json`. Nested objects join with ".". `_zero`..`_other`
    /// suffixes are plural forms of `count`; `{{name}}` becomes `{name}`.
    static func i18next(_ path: String) throws -> CatalogImport {
        var files: [(locale: String, prefix: String, file: String)] = []
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if !isDirectory.boolValue {
            let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
            files = [(try locale(stem, in: path), "", path)]
        } else {
            for entry in ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() {
                let full = "\(path)/\(entry)"
                if entry.hasSuffix(".json") {
                    files.append((try locale(String(entry.dropLast(5)), in: full), "", full))
                } else if let tag = try? LocaleTag.parse(entry).description {
                    for file in ((try? FileManager.default.contentsOfDirectory(atPath: full)) ?? []).sorted() where file.hasSuffix(".json") {
                        let namespace = String(file.dropLast(5))
                        files.append((tag, namespace == "translation" ? "" : namespace + ".", "\(full)/\(file)"))
                    }
                }
            }
        }
        guard !files.isEmpty else { throw RolloutError.missing("\(path): no i18next JSON files in it") }
        var result = CatalogImport()
        let categories = ["zero", "one", "two", "few", "many", "other"]
        for (tag, prefix, file) in files {
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
            walk(.object(try json(file)), "")
            var plurals: [String: [String: String]] = [:]
            for (key, text) in flat {
                if let category = categories.first(where: { key.hasSuffix("_" + $0) }) {
                    plurals[String(key.dropLast(category.count + 1)), default: [:]][category] = text
                } else {
                    result.add(tag, prefix + key, Placeholders.templates(text))
                }
            }
            for (key, forms) in plurals {
                result.add(tag, prefix + key, forms["other"] == nil ? Placeholders.templates(forms.values.first!) : Placeholders.plural(forms, namedArgument: "count"))
            }
        }
        return result
    }
}
