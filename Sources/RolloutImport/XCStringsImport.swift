import Foundation
import RolloutModel

extension CatalogImporter {
    // MARK: Apple String Catalogs

    static func xcstrings(_ path: String) throws -> CatalogImport {
        let root = try json(path)
        var result = CatalogImport()
        let source = try root["sourceLanguage"]?.stringValue.map { try locale($0, in: path) }
        result.sourceLocale = source
        guard let strings = root["strings"]?.objectValue else { throw RolloutError.badInput("\(path): a String Catalog has a \"strings\" object") }
        for key in strings.keys.sorted() {
            guard let entry = strings[key]?.objectValue else { continue }
            let stale = entry["extractionState"]?.stringValue == "stale"
            let localizations = entry["localizations"]?.objectValue ?? [:]
            if entry["shouldTranslate"]?.boolValue == false {
                if let source { result.skip(source, key, "marked shouldTranslate false") }
                continue
            }
            if let source, !stale, !localizations.keys.contains(where: { (try? locale($0, in: path)) == source }) {
                result.skip(source, key, "no \(source) value: the key is the text the app shows")
            }
            for (name, value) in localizations {
                let tag = try locale(name, in: path)
                if stale { result.skip(tag, key, "stale: no longer in the source code"); continue }
                guard let localization = value.objectValue else { continue }
                do {
                    if let text = try xcstringsText(localization, language: tag) { result.add(tag, key, text) }
                } catch let reason as SkipReason {
                    result.skip(tag, key, reason.text)
                } catch let refusal as PrintfRefusal {
                    result.skip(tag, key, refusal.reason)
                }
            }
        }
        return result
    }

    struct SkipReason: Error { let text: String }

    /// A localization's text: a string unit, plural variations, or substitutions (each with its own
    /// plural variations) woven into the main string, numbered as Xcode numbers them: a `%#@name@`
    /// takes the next argument in order like any conversion, unless its substitution names one
    /// (`argNum`); inside a substitution's forms, `%arg` and a conversion without a position (`%lld`)
    /// are the substitution's argument.
    static func xcstringsText(_ localization: [String: JSONValue], language: String) throws -> String? {
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
        guard let main = try unit(.object(localization)) else {
            guard let forms = try pluralForms(localization["variations"]), !forms.isEmpty else { return nil }
            return try Placeholders.printfPlural(forms, dialect: .apple, language: language)
        }
        let substitutions = localization["substitutions"]?.objectValue ?? [:]
        return try Placeholders.icu(Placeholders.printf(main, dialect: .apple)) { name, position in
            guard let substitution = substitutions[name]?.objectValue else {
                throw SkipReason(text: "%#@\(name)@ names no substitution")
            }
            guard let forms = try pluralForms(substitution["variations"]), !forms.isEmpty else {
                throw SkipReason(text: "the substitution \(name) has no plural forms")
            }
            let argument = substitution["argNum"]?.integerValue.map { $0 - 1 } ?? position
            let specifier = substitution["formatSpecifier"]?.stringValue ?? "lld"
            let written = forms.mapValues { $0.replacingOccurrences(of: "%arg", with: "%\(argument + 1)$\(specifier)") }
            return try Placeholders.printfPlural(written, dialect: .apple, counted: argument, language: language)
        }
    }
}
