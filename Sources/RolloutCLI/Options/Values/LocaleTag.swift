import RolloutModel

/// A BCP 47 locale as rollout names packs: `tr-TR`, `zh-Hant-TW`; written only in its canonical form
/// (`LocaleTag.parse`). Positional LOCALE arguments are read the same way (`argument(_:)`).
extension LocaleTag: ArgumentValue {
    package static func argument(_ text: String, flag: String) throws -> LocaleTag { try argument(text) }

    /// `text` as a locale, or its refusal as a usage error (64).
    package static func argument(_ text: String) throws -> LocaleTag {
        do {
            return try LocaleTag.parse(text)
        } catch let error as LocaleTag.ParseError {
            throw RolloutError.usage(error.message)
        }
    }

    /// A LOCALE argument's canonical spelling, or its refusal as a usage error (64).
    package static func canonical(_ text: String) throws -> String { try argument(text).description }
}
