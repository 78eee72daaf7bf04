import RolloutModel

extension ConformanceVectors {
    /// The numbers plurals.json pins: whole numbers through every residue the small CLDR ranges
    /// test, the thousands and millions some languages count apart (French, Spanish and Italian
    /// `many`), and decimals written with one to three fraction digits, trailing zeros included,
    /// because the operands v, w, f and t read the digits as shown ("1" and "1.0" differ in English).
    static let pluralNumbers: [String] =
        (0...200).map(String.init)
        + ["1000", "1001", "10000", "100000", "1000000", "1000001", "2000000", "1000000000"]
        + [
            "0.0", "0.1", "0.2", "0.5", "1.0", "1.1", "1.5", "2.0", "2.1", "2.5", "3.5", "5.0", "10.0", "11.0", "21.0",
            "100.0", "0.00", "0.01", "0.11", "1.00", "1.01", "1.10", "1.25", "2.50", "0.000", "1.000", "1.500",
            "2.010", "1000000.0",
        ]

    /// Every tag the CLDR table has rules for that a port must resolve: each language (two or three
    /// letters) CLDR knows, and each language-REGION tag whose rules differ from its language's
    /// (pt-PT). Found by asking `PluralRules`, the table itself being internal to RolloutModel.
    static func pluralLanguages() -> [String] {
        let letters = (UInt8(ascii: "a")...UInt8(ascii: "z")).map { String(UnicodeScalar($0)) }
        let pairs = letters.flatMap { a in letters.map { a + $0 } }
        let languages = (pairs + pairs.flatMap { p in letters.map { p + $0 } }).filter {
            PluralRules(locale: $0).isKnown
        }
        let regions = pairs.map { $0.uppercased() }
        return languages.flatMap { language in
            let rules = PluralRules(locale: language)
            return [language] + regions.map { "\(language)-\($0)" }.filter { PluralRules(locale: $0) != rules }
        }
    }

    // MARK: - Plurals

    /// plurals.json: for each language, the numbers of `pluralNumbers` grouped by the category
    /// `PluralRules` gives them, each category's numbers one space-separated string in grid order.
    static func plurals() -> JSONValue {
        let languages = pluralLanguages()
        var table: [String: JSONValue] = [:]
        for language in languages {
            let rules = PluralRules(locale: language)
            var groups: [PluralCategory: [String]] = [:]
            for number in pluralNumbers {
                groups[rules.category(for: PluralOperands(number)!), default: []].append(number)
            }
            table[language] = .object(
                Dictionary(
                    uniqueKeysWithValues: groups.map { ($0.key.rawValue, .string($0.value.joined(separator: " "))) }))
        }
        return [
            "about": """
            The CLDR cardinal plural category (zero, one, two, few, many, other) of each number in each language \
            (docs/pack-format.md, "Plural forms"): languages.TAG.CATEGORY lists, space-separated, the numbers of \
            `numbers` that take CATEGORY in TAG; a category no number takes is left out. Numbers are text, digits as \
            shown: trailing zeros change the operands v, f and t ("1" is one in English, "1.0" other). TAG is every \
            language CLDR has rules for, and each language-REGION tag whose rules differ from its language's (pt-PT).
            """,
            "cldr": .string(PluralRules.cldrVersion),
            "numbers": strings(pluralNumbers),
            "languages": .object(table),
        ]
    }
}
