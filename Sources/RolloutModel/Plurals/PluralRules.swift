/// The CLDR cardinal plural rules of a locale (docs/pack-format.md, "Plural forms"): which
/// category a count takes, and which categories a plural message in that language needs. The
/// rules are CLDR's own, generated into PluralRules+CLDR.swift by scripts/generate-plural-rules.py.
///
/// A locale resolves whole, then by dropping subtags (`pt-PT-u-nu-latn`, `pt-PT`, `pt-AO`,
/// `pt-Latn-PT`: Portugal's rules; `pt-BR`, `pt`: Brazil's; `sr-Latn-RS`, `sr`; `lookupTags`);
/// `_` and `-` are the same, case is ignored, and a POSIX `.UTF-8` or `@modifier` tail is dropped. A language CLDR has no rules for gets CLDR's root rules,
/// `other` for every number.
public struct PluralRules: Equatable, Sendable {
    /// The rule set's index in the generated table.
    let ruleSet: Int
    /// Whether CLDR has rules for the locale's language (false: the root rules, `other` only).
    public let isKnown: Bool

    public init(locale: String) {
        for tag in Self.lookupTags(locale) {
            if let number = Self.cldrLocales[tag] {
                ruleSet = number
                isKnown = true
                return
            }
        }
        ruleSet = 0
        isKnown = false
    }

    /// The tags a locale's rules are looked up by, longest first: the whole locale (`pt-PT`, not
    /// its language: Portugal's rules are not Brazil's) less a POSIX tail, then each form one subtag
    /// shorter, as CLDR's parent locales go (`pt-AO-u-nu-latn`, `pt-ao`: Portugal's rules through
    /// the table's `pt-ao`). A script subtag is left out first (`pt-Latn-PT` is `pt-PT`): CLDR gives
    /// no script rules of its own (scripts/generate-plural-rules.py stops if it ever does). The
    /// one rule both clients choose a locale's rules by (PluralRules.java does the same).
    static func lookupTags(_ locale: String) -> [String] {
        var tag = Substring(locale.lowercased().replacingOccurrences(of: "_", with: "-"))
        if let tail = tag.firstIndex(where: { $0 == "." || $0 == "@" }) { tag = tag[..<tail] }
        guard !tag.isEmpty else { return [] }
        var subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        if subtags.count > 1, subtags[1].count == 4, subtags[1].allSatisfy({ (97...122).contains($0.asciiValue ?? 0) })
        {
            subtags.remove(at: 1)
        }
        return (1...subtags.count).reversed().map { subtags.prefix($0).joined(separator: "-") }
    }

    /// The category of `number` (digits as shown, `1.50`), or nil when it is not a number.
    public static func category(for number: String, language: String) -> PluralCategory? {
        PluralOperands(number).map { PluralRules(locale: language).category(for: $0) }
    }

    public static func category(for number: PluralOperands, language: String) -> PluralCategory {
        PluralRules(locale: language).category(for: number)
    }

    public func category(for number: PluralOperands) -> PluralCategory {
        Self.parsed[ruleSet].first { $0.condition.matches(number) }?.category ?? .other
    }

    /// The categories the language uses, in CLDR order, `other` last: the cases a plural message
    /// in it needs.
    public var categories: [PluralCategory] {
        Self.parsed[ruleSet].map(\.category) + [.other]
    }

    /// A language with one form for every number (Japanese, Korean, Chinese...): a count need not
    /// be shown in it. False for a language CLDR has no rules for.
    public var hasOneForm: Bool { isKnown && categories == [.other] }

    /// The categories some whole number takes: Polish, Russian, Ukrainian and Belarusian keep
    /// `other` for fractions, French, Spanish and Italian `many` for millions.
    public var wholeNumberCategories: Set<PluralCategory> {
        Self.wholeNumberCategoryTable[ruleSet]
    }

    /// The whole numbers a category holds when they are few and it holds nothing else (Hebrew
    /// `two`: 2; Arabic `zero`: 0; Welsh `few`: 3), so ICU `=N` cases for all of them stand in for
    /// it; nil for a category of endless numbers (Russian `few`: 2, 3, 4, 22...).
    public func exactValues(of category: PluralCategory) -> [Int]? {
        guard let condition = Self.parsed[ruleSet].first(where: { $0.category == category })?.condition else {
            return nil
        }
        var values: Set<Int> = []
        for relations in condition.alternatives {
            // A relation that pins the whole value: `n = 2`, or `i = 2` with `v = 0`.
            let wholeOnly = relations.contains {
                $0.operand == .v && $0.modulus == nil && !$0.negated && !$0.within && $0.ranges == [0...0]
            }
            guard
                let pin = relations.first(where: {
                    ($0.operand == .n || ($0.operand == .i && wholeOnly)) && $0.modulus == nil && !$0.negated
                        && !$0.within
                })
            else { return nil }
            guard pin.ranges.reduce(0, { $0 + $1.count }) <= 100 else { return nil }
            values.formUnion(pin.ranges.flatMap { $0.map { Int($0) } })
        }
        return values.filter { self.category(for: PluralOperands($0)) == category }.sorted()
    }

    /// The categories the language uses that a plural message's cases (`one`, `=2`, ...) leave
    /// out, `other` aside (message syntax requires it): what lint and import report.
    public func missingCategories<S: Sequence>(cases: S) -> [PluralCategory] where S.Element == String {
        let selectors = Set(cases)
        let explicit = Set(selectors.compactMap { $0.hasPrefix("=") ? Int($0.dropFirst()) : nil })
        return categories.filter { category in
            guard category != .other, !selectors.contains(category.rawValue) else { return false }
            guard let values = exactValues(of: category), !values.isEmpty else { return true }
            return !explicit.isSuperset(of: values)
        }
    }

    /// Up to four numbers of `category`, for messages: whole numbers first, then `…` unless that is all.
    public func examples(of category: PluralCategory) -> String {
        Self.exampleTable[ruleSet][category] ?? ""
    }

    // MARK: The generated table, parsed once

    struct Rule: Sendable {
        let category: PluralCategory
        let condition: PluralCondition
    }

    /// Each rule set's rules in CLDR order (the order they are tried in).
    static let parsed: [[Rule]] = cldrRuleSets.map { set in
        set.keys.sorted().map { category in
            do {
                return Rule(category: category, condition: try PluralCondition(set[category]!))
            } catch {
                fatalError(
                    "PluralRules+CLDR.swift has a rule this code cannot read (\(error)): "
                        + "regenerate it with scripts/generate-plural-rules.py")
            }
        }
    }

    /// Whole numbers that meet every residue a CLDR rule tests (moduli 10 to 1000, the small
    /// ranges, and the millions French `many` counts), then fractions with one and two digits.
    static let samples: [(text: String, operands: PluralOperands)] = {
        let whole = Array(0...1999) + [1_000_000, 2_000_000, 1_000_001, 1_000_000_000]
        let tenths = (0...30).map { "\($0 / 10).\($0 % 10)" }
        let hundredths = (1...30).map { "\($0 / 100).\($0 / 10 % 10)\($0 % 10)" }
        return whole.map { (String($0), PluralOperands($0)) } + (tenths + hundredths).map { ($0, PluralOperands($0)!) }
    }()

    static let wholeNumberCategoryTable: [Set<PluralCategory>] = parsed.indices.map { set in
        let rules = PluralRules(ruleSet: set)
        return Set(samples.lazy.filter { $0.operands.v == 0 }.map { rules.category(for: $0.operands) })
    }

    static let exampleTable: [[PluralCategory: String]] = parsed.indices.map { set in
        let rules = PluralRules(ruleSet: set)
        var found: [PluralCategory: [String]] = [:]
        for sample in samples {
            let category = rules.category(for: sample.operands)
            if found[category, default: []].count < 4 { found[category, default: []].append(sample.text) }
        }
        return found.reduce(into: [:]) { table, entry in
            table[entry.key] =
                entry.value.joined(separator: ", ") + (rules.exactValues(of: entry.key) == nil ? ", …" : "")
        }
    }

    private init(ruleSet: Int) {
        self.ruleSet = ruleSet
        isKnown = true
    }
}
