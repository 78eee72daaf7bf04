import Foundation

/// One localization of an Apple String Catalog (`.xcstrings`) in the pack's canonical ICU form:
/// what `rollout pack import` stores and what `BundledStrings` reads from the app's own catalog
/// (docs/import.md, "String Catalogs: argument numbering").
public enum StringCatalogText {
    /// Why a localization has no text to take; the key is left out with this reason.
    public struct Skip: Error, Equatable, Sendable {
        public let reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    /// A localization's text: a string unit, plural variations, or substitutions (each with its own
    /// plural variations) woven into the main string, numbered as Xcode numbers them: a `%#@name@`
    /// takes the next argument in order like any conversion, unless its substitution names one
    /// (`argNum`); inside a substitution's forms, `%arg` and a conversion without a position (`%lld`)
    /// are the substitution's argument. nil when it has no value at all.
    ///
    /// With `anyState` false only `translated` units are taken (an import stores reviewed
    /// translations); with it true every value is, as Xcode builds them into the app. Throws `Skip`
    /// or `PrintfRefusal`.
    public static func icu(_ localization: [String: JSONValue], language: String, anyState: Bool = false) throws
        -> String?
    {
        func unit(_ value: JSONValue?) throws -> String? {
            guard let unit = value?.objectValue?["stringUnit"]?.objectValue, let text = unit["value"]?.stringValue
            else { return nil }
            if anyState { return text }
            switch unit["state"]?.stringValue ?? "translated" {
            case "translated": return text
            case "needs_review": throw Skip("needs review")
            case "new": throw Skip("not translated")
            case "stale": throw Skip("stale")
            case let other: throw Skip("state \(other)")
            }
        }
        func pluralForms(_ variations: JSONValue?) throws -> [String: String]? {
            guard let plural = variations?.objectValue?["plural"]?.objectValue else {
                if variations?.objectValue?["device"] != nil { throw Skip("device variations are not imported") }
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
                throw Skip("%#@\(name)@ names no substitution")
            }
            guard let forms = try pluralForms(substitution["variations"]), !forms.isEmpty else {
                throw Skip("the substitution \(name) has no plural forms")
            }
            let argument = substitution["argNum"]?.integerValue.map { $0 - 1 } ?? position
            let specifier = substitution["formatSpecifier"]?.stringValue ?? "lld"
            let written = forms.mapValues { $0.replacingOccurrences(of: "%arg", with: "%\(argument + 1)$\(specifier)") }
            return try Placeholders.printfPlural(written, dialect: .apple, counted: argument, language: language)
        }
    }

    /// A key's text in the catalog's development language, as Xcode builds it into the app: its
    /// value there in any state (`new`, `extracted_with_value`, `translated`, `needs_review`,
    /// `stale`: the developer's own text, built whatever its review state), else the key itself
    /// (Xcode's rule: a key without a development-language value is that string, and the app shows
    /// it, formatted). Throws `Skip` or `PrintfRefusal` when that text has no ICU form.
    public static func developmentText(key: String, _ localization: [String: JSONValue]?, language: String) throws
        -> String
    {
        if let localization, let text = try icu(localization, language: language, anyState: true) { return text }
        return try Placeholders.printfICU(key, dialect: .apple)
    }
}
