import Foundation

extension LocaleTag {
    /// Language codes ISO 639 withdrew that Java, and so Android, still write: devices ask for
    /// the current ones (docs/import.md, "Locales").
    public static let legacyLanguages = ["iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro"]

    /// A locale as catalogs and `.lproj` folders spell it (`pt_BR`, `nb_NO`, `zh_Hant_TW`,
    /// `zh-hans`, `iw`) in canonical BCP 47 (`pt-BR`, `nb-NO`, `zh-Hant-TW`, `zh-Hans`, `he`); nil
    /// when it is not a locale.
    public static func canonical(spelling: String) -> String? {
        guard spelling.utf8.count <= InputLimits.localeBytes else { return nil }
        var parts = spelling.replacingOccurrences(of: "_", with: "-").split(
            separator: "-", omittingEmptySubsequences: false
        ).map(String.init)
        guard let language = parts.first?.lowercased(), !language.isEmpty else { return nil }
        parts[0] = legacyLanguages[language] ?? language
        do {
            return try LocaleTag.parse(parts.joined(separator: "-")).description
        } catch LocaleTag.ParseError.notCanonical(_, let canonical) {
            return canonical  // pt-br, zh-hans: catalogs do not always write canonical case
        } catch {
            return nil
        }
    }
}
