/// Which CLDR plural categories a language has, where import must know: i18next's `_zero` and
/// ARB's `zero`/`one`/`two` take the exact numbers 0, 1, 2 in every language, and the category
/// where the language has one (CLDR plurals.xml).
public enum PluralLanguages {
    public static let withZero: Set<String> = ["ar", "ars", "blo", "cy", "ksh", "lag", "lv", "prg"]
    public static let withoutOne: Set<String> = [
        "bm", "bo", "dz", "hnj", "id", "ig", "ii", "ja", "jbo", "jv", "kde", "kea", "km", "ko", "lkt", "lo", "ms", "my", "nqo", "osa", "sah", "ses",
        "sg", "su", "th", "to", "tpi", "vi", "wo", "yo", "yue", "zh",
    ]
    public static let withTwo: Set<String> = ["ar", "ars", "br", "cy", "dsb", "ga", "gd", "gv", "he", "hsb", "iu", "kw", "mt", "naq", "sat", "se", "sl", "sma", "smi", "smj", "smn", "sms"]

    /// In these languages every whole number is one, few or many; `other` is for fractions, so a
    /// catalog may leave it out and `many` stands for it.
    public static let otherOnlyForFractions: Set<String> = ["pl", "ru", "uk", "be"]

    /// Languages with one plural form (CLDR: `other` only): a count need not be shown in them.
    public static func hasOneForm(_ locale: String) -> Bool { withoutOne.contains(code(locale)) && !withTwo.contains(code(locale)) && !withZero.contains(code(locale)) }

    public static func code(_ locale: String) -> String { String(locale.split(separator: "-").first ?? "") }
    public static func hasZero(_ locale: String) -> Bool { withZero.contains(code(locale)) }
    public static func hasOne(_ locale: String) -> Bool { !withoutOne.contains(code(locale)) }
    public static func hasTwo(_ locale: String) -> Bool { withTwo.contains(code(locale)) }
}
