import Foundation
import XCTest

@testable import RolloutModel

/// CLDR's plural rules for every locale (docs/pack-format.md, "Plural forms"): the generated table
/// against its source, the operands of UTS #35, and the forms the old hand-written rules got wrong.
final class PluralRulesTests: XCTestCase {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// What `scripts/generate-plural-rules.py --check` says, run once with the Python that has
    /// python3-babel (Debian installs it for /usr/bin/python3; `make deps` does).
    // nonisolated(unsafe): [String: Any] is not Sendable, but this is a let set once (Swift's lazy
    // static initialization is thread-safe) and only read after, so sharing it between tests is safe.
    nonisolated(unsafe) private static let check: Result<[String: Any], CheckUnavailable> = {
        for python in ["/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"]
        where FileManager.default.isExecutableFile(atPath: python) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [repository.appendingPathComponent("scripts/generate-plural-rules.py").path, "--check"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { continue }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            if process.terminationStatus == 0,
                let report = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            {
                return .success(report)
            }
        }
        return .failure(CheckUnavailable())
    }()

    struct CheckUnavailable: Error, CustomStringConvertible {
        var description: String {
            "scripts/generate-plural-rules.py --check needs python3-babel: install it (make deps, or apt-get install python3-babel)"
        }
    }

    /// Every locale babel knows, on whole numbers 0 to 200 and up to a billion and on decimals
    /// written with one to three fraction digits ("1.5", "1.50", "1.500"): Swift says what babel says.
    func testEveryLocaleMatchesCLDRAsBabelEvaluatesIt() throws {
        let report = try Self.check.get()
        let numbers = try XCTUnwrap(report["numbers"] as? [String])
        let categories = try XCTUnwrap(report["categories"] as? [String: String])
        XCTAssertGreaterThan(categories.count, 700, "babel has some 800 locales")
        XCTAssertGreaterThan(numbers.count, 300)
        let operands = try numbers.map { try XCTUnwrap(PluralOperands($0), $0) }
        var mismatches: [String] = []
        for (locale, expected) in categories.sorted(by: { $0.key < $1.key }) {
            let rules = PluralRules(locale: locale)
            XCTAssertTrue(rules.isKnown || locale == "und", locale)
            for (index, category) in expected.split(separator: " ").enumerated()
            where rules.category(for: operands[index]).rawValue != category {
                mismatches.append(
                    "\(locale) \(numbers[index]): Swift \(rules.category(for: operands[index])), CLDR \(category)")
            }
        }
        XCTAssertEqual(mismatches.prefix(20), [], "\(mismatches.count) mismatches")
    }

    /// Both outputs: the Swift table and the Android client's PluralRulesCldr.java, so the two clients
    /// never choose different forms because one file was regenerated and the other was not.
    func testTheCommittedTablesAreWhatTheGeneratorWritesNow() throws {
        let report = try Self.check.get()
        let outputs = [
            ("swift", "Sources/RolloutModel/Plurals/PluralRules+CLDR.swift"),
            ("java", "android/src/main/java/dev/rollout/client/PluralRulesCldr.java"),
        ]
        for (key, path) in outputs {
            let committed = try String(contentsOf: Self.repository.appendingPathComponent(path), encoding: .utf8)
            let generated = try XCTUnwrap(report[key] as? String, "--check reports no \(key) output")
            XCTAssertEqual(
                committed, generated,
                "\(path) is not what scripts/generate-plural-rules.py writes: run it and commit both files")
        }
    }

    func testEveryGeneratedRuleSetParsesAndIsUsed() {
        XCTAssertEqual(PluralRules.parsed.count, PluralRules.cldrRuleSets.count)
        XCTAssertEqual(
            Set(PluralRules.cldrLocales.values), Set(PluralRules.cldrRuleSets.indices), "no rule set without a locale")
    }

    /// Issue 15's list of what the hand-written rules chose wrongly.
    func testTheFormsTheHandWrittenRulesGotWrong() {
        let cases: [(String, String, PluralCategory)] = [
            ("hr", "21", .one), ("sr", "21", .one), ("sr-Latn", "21", .one), ("bs", "21", .one), ("hr", "22", .few),
            ("hr", "25", .other),
            ("ro", "2", .few), ("ro", "19", .few), ("ro", "20", .other), ("ro", "1", .one),
            ("lt", "21", .one), ("lt", "11", .other), ("lt", "2", .few), ("lt", "1.5", .many),
            ("lv", "0", .zero), ("lv", "10", .zero), ("lv", "21", .one), ("lv", "2", .other),
            ("sl", "2", .two), ("sl", "102", .two), ("sl", "3", .few), ("sl", "5", .other), ("sl", "101", .one),
            ("he", "2", .two), ("he", "1", .one), ("he", "20", .many), ("he", "15", .other), ("he", "2.0", .other),
            ("ga", "1", .one), ("ga", "2", .two), ("ga", "3", .few), ("ga", "7", .many), ("ga", "11", .other),
            ("cy", "0", .zero), ("cy", "1", .one), ("cy", "2", .two), ("cy", "3", .few), ("cy", "6", .many),
            ("cy", "4", .other),
            ("mt", "1", .one), ("mt", "0", .few), ("mt", "2", .few), ("mt", "11", .many), ("mt", "20", .other),
            ("pt-PT", "0", .other), ("pt-PT", "1", .one), ("pt", "0", .one), ("pt-BR", "0", .one),
            ("pt-AO", "0", .other),
            ("fr", "1000000", .many), ("es", "1000000", .many), ("it", "1000000", .many), ("pt", "1000000", .many),
            ("pt-PT", "2000000", .many),
            ("fr", "1000001", .other), ("fr", "0", .one), ("fr", "1.5", .one), ("es", "1c6", .many),
            ("fr", "1.5c6", .many), ("fr", "1c3", .other),
        ]
        for (language, number, category) in cases {
            XCTAssertEqual(PluralRules.category(for: number, language: language), category, "\(language) \(number)")
        }
    }

    /// UTS #35, "Plural Operand Meanings", and its examples.
    func testOperandsFromTheDigitsShown() throws {
        func operands(_ text: String) throws -> [UInt64] {
            let o = try XCTUnwrap(PluralOperands(text), text)
            return [o.i.low, UInt64(o.v), UInt64(o.w), o.f.low, o.t.low, UInt64(o.e)]
        }
        XCTAssertEqual(try operands("1"), [1, 0, 0, 0, 0, 0])
        XCTAssertEqual(try operands("1.0"), [1, 1, 0, 0, 0, 0])
        XCTAssertEqual(try operands("1.00"), [1, 2, 0, 0, 0, 0])
        XCTAssertEqual(try operands("1.3"), [1, 1, 1, 3, 3, 0])
        XCTAssertEqual(try operands("1.30"), [1, 2, 1, 30, 3, 0])
        XCTAssertEqual(try operands("1.03"), [1, 2, 2, 3, 3, 0])
        XCTAssertEqual(try operands("1.230"), [1, 3, 2, 230, 23, 0])
        XCTAssertEqual(try operands("1.50"), [1, 2, 1, 50, 5, 0])
        XCTAssertEqual(try operands("-7.5"), [7, 1, 1, 5, 5, 0])
        XCTAssertEqual(try operands("1200000"), [1_200_000, 0, 0, 0, 0, 0])
        XCTAssertEqual(try operands("1.2c6"), [1_200_000, 0, 0, 0, 0, 6])
        XCTAssertEqual(try operands("123c6"), [123_000_000, 0, 0, 0, 0, 6])
        XCTAssertEqual(try operands("1.23456c3"), [1234, 2, 2, 56, 56, 3])
        XCTAssertEqual(try operands("1.2e3"), [1200, 0, 0, 0, 0, 3])
        for bad in ["", "-", "1.", ".5", "1,5", "1 000", "1.2.3", "x", "1c", "1c-3", "+1", "١", "1e12345"] {
            XCTAssertNil(PluralOperands(bad), bad)
        }
        XCTAssertEqual(PluralOperands(21), PluralOperands("21"))
        XCTAssertTrue(PluralOperands("1.0")!.isNumericallyEqual(to: PluralOperands(1)))
        XCTAssertTrue(PluralOperands("-0.0")!.isNumericallyEqual(to: PluralOperands(0)))
        XCTAssertFalse(PluralOperands("0.05")!.isNumericallyEqual(to: PluralOperands("0.5")!))
        XCTAssertFalse(PluralOperands("-1")!.isNumericallyEqual(to: PluralOperands(1)))
    }

    /// A count past 64 bits keeps its last digits, which are all CLDR's moduli read.
    func testNumbersLongerThanEighteenDigits() {
        XCTAssertEqual(PluralRules.category(for: "100000000000000000000021", language: "ru"), .one)
        XCTAssertEqual(PluralRules.category(for: "100000000000000000000022", language: "ru"), .few)
        XCTAssertEqual(PluralRules.category(for: "1000000000000000000000000", language: "fr"), .many)
        XCTAssertEqual(PluralRules.category(for: "1000000000000000000000001", language: "en"), .other, "not 1")
        XCTAssertEqual(
            PluralRules.category(for: "0.1000000000000000000000", language: "lt"), .many, "a fraction that is not zero")
        XCTAssertEqual(PluralRules.category(for: "1.0000000000000000000000", language: "lt"), .one)
    }

    func testALocaleResolvesByDroppingSubtags() {
        let portugal = PluralRules(locale: "pt-PT")
        for tag in ["pt_PT", "PT-pt", "pt-PT-u-nu-latn", "pt-AO", "pt_PT.UTF-8", "pt_PT@euro"] {
            XCTAssertEqual(PluralRules(locale: tag), portugal, tag)
        }
        XCTAssertNotEqual(PluralRules(locale: "pt-BR"), portugal)
        XCTAssertEqual(PluralRules(locale: "pt-BR"), PluralRules(locale: "pt"))
        XCTAssertEqual(PluralRules(locale: "sr-Latn-RS"), PluralRules(locale: "hr"))
        XCTAssertEqual(PluralRules(locale: "iw"), PluralRules(locale: "he"), "Android's old code for Hebrew")
        XCTAssertEqual(PluralRules(locale: "in-ID"), PluralRules(locale: "id"))
        XCTAssertEqual(PluralRules(locale: "zh-Hant-TW").categories, [.other])
        XCTAssertTrue(PluralRules(locale: "ja").isKnown)
        let klingon = PluralRules(locale: "tlh")
        XCTAssertFalse(klingon.isKnown)
        XCTAssertEqual(klingon.categories, [.other], "CLDR's root rules")
        XCTAssertFalse(klingon.hasOneForm, "not known to have one form")
    }

    func testWhatALanguageNeeds() {
        XCTAssertEqual(PluralRules(locale: "ru").categories, [.one, .few, .many, .other])
        XCTAssertEqual(PluralRules(locale: "ar").categories, [.zero, .one, .two, .few, .many, .other])
        XCTAssertEqual(PluralRules(locale: "en-GB").categories, [.one, .other])
        XCTAssertEqual(PluralRules(locale: "fr").categories, [.one, .many, .other])
        for language in ["pl", "ru", "uk", "be"] {
            XCTAssertFalse(
                PluralRules(locale: language).wholeNumberCategories.contains(.other),
                "\(language): other is for fractions")
        }
        XCTAssertEqual(PluralRules(locale: "fr").wholeNumberCategories, [.one, .many, .other])
        XCTAssertEqual(PluralRules(locale: "lt").wholeNumberCategories, [.one, .few, .other], "many is for fractions")
        XCTAssertTrue(PluralRules(locale: "ko").hasOneForm)
        XCTAssertFalse(PluralRules(locale: "de").hasOneForm)

        XCTAssertEqual(PluralRules(locale: "he").exactValues(of: .two), [2])
        XCTAssertEqual(PluralRules(locale: "ar").exactValues(of: .zero), [0])
        XCTAssertEqual(PluralRules(locale: "ga").exactValues(of: .few), [3, 4, 5, 6])
        XCTAssertNil(PluralRules(locale: "ru").exactValues(of: .few))
        XCTAssertNil(PluralRules(locale: "fr").exactValues(of: .one), "0, 1 and 1.5 are all one")

        XCTAssertEqual(
            PluralRules(locale: "he").missingCategories(cases: ["one", "=2", "many", "other"]), [], "=2 is all of two")
        XCTAssertEqual(
            PluralRules(locale: "he").missingCategories(cases: ["=1", "=2", "other"]), [.many],
            "one is 1 and two is 2; many is endless")
        XCTAssertEqual(PluralRules(locale: "ru").missingCategories(cases: ["one", "other"]), [.few, .many])
        XCTAssertEqual(PluralRules(locale: "ja").missingCategories(cases: ["other"]), [])
        XCTAssertEqual(PluralRules(locale: "ru").examples(of: .few), "2, 3, 4, 22, …")
        XCTAssertEqual(PluralRules(locale: "ga").examples(of: .few), "3, 4, 5, 6")
        XCTAssertEqual(PluralRules(locale: "lt").examples(of: .many), "0.1, 0.2, 0.3, 0.4, …")
    }

    /// UTS #35's syntax, beyond the normalised form babel writes.
    func testConditionSyntax() throws {
        let rule = try PluralCondition("n % 10 = 1 and n % 100 != 11,71,91 or v = 0 and i is not 4")
        XCTAssertEqual(rule.alternatives.count, 2)
        XCTAssertEqual(rule.alternatives[0].map(\.operand), [.n, .n])
        XCTAssertEqual(rule.alternatives[0][1].ranges, [11...11, 71...71, 91...91])
        XCTAssertTrue(rule.alternatives[1][1].negated)
        let within = try PluralCondition("n within 0..2 and n not in 2")
        XCTAssertTrue(within.matches(PluralOperands("1.5")!))
        XCTAssertTrue(within.matches(PluralOperands("0")!))
        XCTAssertFalse(within.matches(PluralOperands("2")!))
        XCTAssertFalse(within.matches(PluralOperands("2.5")!))
        XCTAssertFalse(try PluralCondition("n in 0..2").matches(PluralOperands("1.5")!), "in takes whole values only")
        XCTAssertTrue(try PluralCondition("e = 6 and c = 6").matches(PluralOperands("1c6")!))
        for bad in [
            "", "n", "n = ", "x = 1", "n mod 0 = 1", "n = 3..1", "n = 1 but v = 0", "n ~ 1", "n = 1 @integer 1",
        ] {
            XCTAssertThrowsError(try PluralCondition(bad), bad)
        }
    }
}

/// Lint's plural-forms rule, from the same table: a plural should have every case its language uses.
final class PluralFormsLintTests: XCTestCase {
    private func findings(_ locale: String, _ value: String) throws -> [LintFinding] {
        let pack = Pack(locale: locale, contentVersion: 1, minAppVersion: AppVersion("4.0")!, strings: ["files": value])
        let linter = PackLinter(policy: Policy(defaultLocale: locale), catalog: MemoryCatalog(), options: LintOptions())
        return try linter.lint([pack]).filter { $0.rule == "plural-forms" }
    }

    func testAPluralMissingACategoryItsLanguageUsesIsAWarningThatNamesTheNumbers() throws {
        let found = try findings("ru", "{count, plural, one {# файл} other {# файла}}")
        XCTAssertEqual(found.map(\.severity), [.warning], "a device shows the other case: readable, in the wrong form")
        XCTAssertEqual(found.first?.key, "files")
        XCTAssertEqual(
            found.first?.message,
            "{count, plural} has no case for few (2, 3, 4, 22, …), many (0, 5, 6, 7, …), which ru uses: a device shows the other case for those numbers"
        )
        XCTAssertEqual(
            try findings("pt-PT", "{n, plural, one {# ficheiro} other {# ficheiros}}").map(\.message),
            [
                "{n, plural} has no case for many (1000000, 2000000, 1000000000, …), which pt-PT uses: a device shows the other case for those numbers"
            ])
        XCTAssertEqual(
            try findings("cy", "{n, plural, zero {a} one {b} two {c} few {d} other {e}}").first?.message.contains(
                "many (6)"), true)
        XCTAssertEqual(
            try findings("en", "{a, plural, other {x}} {b, plural, one {y} other {z}}").map(\.message),
            ["{a, plural} has no case for one (1), which en uses: a device shows the other case for those numbers"])
    }

    func testCompletePluralsExactCasesAndOtherKindsPass() throws {
        for (locale, value) in [
            ("ru", "{count, plural, one {# файл} few {# файла} many {# файлов} other {# файла}}"),
            ("he", "{n, plural, one {קובץ} =2 {שני קבצים} many {# קבצים} other {# קבצים}}"),
            ("en", "{n, plural, =1 {one file} other {# files}}"),
            ("ja", "{n, plural, other {# ファイル}}"),
            ("en", "{n, selectordinal, one {#st} other {#th}}"),
            ("tlh", "{n, plural, other {x}}"),
            ("ru", "{count, plural, one {# файл}}"),
        ] {
            XCTAssertEqual(try findings(locale, value), [], "\(locale): \(value)")
        }
    }
}
