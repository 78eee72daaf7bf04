import Foundation
import RolloutModel

extension CatalogImporter {
    // MARK: Apple String Catalogs

    static func xcstrings(_ path: String) throws -> CatalogImport {
        let root = try json(path)
        var result = CatalogImport()
        result.sourceLocale = try root["sourceLanguage"]?.stringValue.map { try locale($0, in: path) }
        guard let strings = root["strings"]?.objectValue else { throw RolloutError.badInput("\(path): a String Catalog has a \"strings\" object") }
        for key in strings.keys.sorted() {
            guard let entry = strings[key]?.objectValue else { continue }
            let stale = entry["extractionState"]?.stringValue == "stale"
            if entry["shouldTranslate"]?.boolValue == false { continue }
            for (name, value) in entry["localizations"]?.objectValue ?? [:] {
                let tag = try locale(name, in: path)
                if stale { result.skip(tag, key, "stale: no longer in the source code"); continue }
                guard let localization = value.objectValue else { continue }
                do {
                    if let text = try xcstringsText(localization, key: key) { result.add(tag, key, text) }
                } catch let reason as SkipReason {
                    result.skip(tag, key, reason.text)
                }
            }
        }
        return result
    }

    struct SkipReason: Error { let text: String }

    /// A localization's text: a string unit, plural variations, or substitutions (each with its own
    /// plural variations) woven into the main string.
    static func xcstringsText(_ localization: [String: JSONValue], key: String) throws -> String? {
        func unit(_ value: JSONValue?) throws -> String? {
            guard let unit = value?.objectValue?["stringUnit"]?.objectValue, let text = unit["value"]?.stringValue else { return nil }
            switch unit["state"]?.stringValue ?? "translated" {
            case "translated": return text
            case "needs_review": throw SkipReason(text: "needs review")
            case "new": throw SkipReason(text: "not translated")
            case "stale": throw SkipReason(text: "stale")
            case let other: throw SkipReason(text: "state \(other)")
            }
        }
        func pluralForms(_ variations: JSONValue?) throws -> [String: String]? {
            guard let plural = variations?.objectValue?["plural"]?.objectValue else {
                if variations?.objectValue?["device"] != nil { throw SkipReason(text: "device variations are not imported") }
                return nil
            }
            var forms: [String: String] = [:]
            for (category, value) in plural { if let text = try unit(value) { forms[category] = text } }
            return forms
        }
        var main: String
        if let text = try unit(.object(localization)) {
            main = text
        } else if let forms = try pluralForms(localization["variations"]) {
            return forms.isEmpty ? nil : Placeholders.plural(forms)
        } else {
            return nil
        }
        // `%#@files@` names a substitution: an argument with plural forms of its own.
        var tokens: [(String, String)] = []
        for (name, value) in localization["substitutions"]?.objectValue ?? [:] {
            guard let substitution = value.objectValue, let forms = try pluralForms(substitution["variations"]) else { continue }
            let argument = (substitution["argNum"]?.integerValue ?? 1) - 1
            let specifier = substitution["formatSpecifier"]?.stringValue ?? "lld"
            let written = forms.mapValues { $0.replacingOccurrences(of: "%arg", with: "%\(argument + 1)$\(specifier)") }
            let token = "\u{E000}\(tokens.count)\u{E001}"
            main = main.replacingOccurrences(of: "%#@\(name)@", with: token)
            tokens.append((token, Placeholders.plural(written)))
        }
        var text = Placeholders.canonical(main)
        for (token, plural) in tokens { text = text.replacingOccurrences(of: token, with: plural) }
        return text
    }
}
