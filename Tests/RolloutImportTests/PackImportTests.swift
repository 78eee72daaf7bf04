import RolloutModel
import XCTest

@testable import RolloutImport

/// What `rollout pack import` decides for a catalog it has read (docs/import.md, "Which
/// minAppVersion, which fallback" and "All or nothing, or --skip-invalid"), on catalogs in memory
/// with no repository: the stored packs are a table and lint is a stand-in. The end-to-end
/// ImportTests and ImportSkipInvalidTests drive real catalogs through the binary.
final class PackImportTests: XCTestCase {
    let v48 = AppVersion("4.8.0")!

    func catalog(_ strings: [String: [String: String]], sourceLocale: String? = nil) -> CatalogImport {
        var catalog = CatalogImport()
        catalog.strings = strings
        catalog.sourceLocale = sourceLocale
        return catalog
    }

    /// A repository holding `locales`, each with a newest pack of minAppVersion `newest[locale]`.
    func stored(
        _ locales: Set<String> = [], newest: [String: AppVersion] = [:], policy: Policy = Policy(),
        asked: ((String) -> Void)? = nil
    ) -> PackImport.Stored {
        PackImport.Stored(policy: policy, locales: locales) { locale in
            asked?(locale)
            return newest[locale]
        }
    }

    func request(
        minAppVersion: AppVersion? = AppVersion("4.8.0"), sourceLocale: String? = nil, locales: Set<String> = [],
        skipInvalid: Bool = false
    ) -> PackImport.Request {
        PackImport.Request(
            catalogName: "Localizable.xcstrings", contentVersion: 18, minAppVersion: minAppVersion,
            sourceLocale: sourceLocale,
            locales: locales, skipInvalid: skipInvalid)
    }

    /// Builds with a lint that refuses nothing, and fails the test if lint is asked.
    func build(
        _ catalog: CatalogImport, _ request: PackImport.Request, _ stored: PackImport.Stored
    ) throws -> PackImport.Result {
        try PackImport.build(catalog, request: request, stored: stored) { _ in
            XCTFail("lint is asked only with --skip-invalid")
            return []
        }
    }

    func fallbacks(_ result: PackImport.Result) -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: result.packs.map { ($0.parsed.pack.locale, $0.parsed.pack.fallbackLocale ?? "-") })
    }

    func finding(_ locale: String, _ key: String?, rule: String) -> LintFinding {
        LintFinding(
            severity: .error, rule: rule, pack: PackID(locale: locale, contentVersion: 18), key: key, message: "refused"
        )
    }

    // MARK: minAppVersion

    func testMinAppVersionIsTheFlagsWithoutAskingTheRepository() throws {
        var asked: [String] = []
        let result = try build(
            catalog(["tr": ["a": "b"]]), request(minAppVersion: AppVersion("5.0")),
            stored(newest: ["tr": v48]) { asked.append($0) })
        XCTAssertEqual(result.packs.map(\.parsed.pack.minAppVersion), [AppVersion("5.0")!])
        XCTAssertEqual(asked, [])
    }

    func testWithoutTheFlagEachLocaleTakesItsNewestStoredPacks() throws {
        let result = try build(
            catalog(["tr": ["a": "b"], "de": ["a": "c"]]), request(minAppVersion: nil),
            stored(["tr", "de"], newest: ["tr": v48, "de": AppVersion("4.2.1")!]))
        XCTAssertEqual(
            result.packs.map(\.parsed.pack.id.description), ["de@18", "tr@18"], "one pack per locale, in locale order")
        XCTAssertEqual(result.packs.map(\.parsed.pack.minAppVersion.description), ["4.2.1", "4.8.0"])
    }

    func testANewLocaleWithoutTheFlagIsAUsageError() throws {
        let catalog = catalog(["tr": ["a": "b"], "fr": ["a": "c"]])
        XCTAssertThrowsError(try build(catalog, request(minAppVersion: nil), stored(newest: ["tr": v48]))) {
            guard case RolloutError.usage(let message) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(
                message,
                "fr has no stored pack to take minAppVersion from: give --min-app-version V (the oldest app version these strings suit)"
            )
        }
    }

    // MARK: fallback

    func testARegionalLocaleFallsBackToItsLanguageWhenImportedOrStored() throws {
        let imported = try build(
            catalog(["en-US": ["a": "A"], "tr": ["a": "b"], "tr-TR": ["a": "c"]]), request(), stored())
        XCTAssertEqual(fallbacks(imported), ["en-US": "-", "tr": "en-US", "tr-TR": "tr"])
        let stored = try build(catalog(["en-US": ["a": "A"], "tr-TR": ["a": "c"]]), request(), stored(["tr"]))
        XCTAssertEqual(fallbacks(stored)["tr-TR"], "tr", "tr is stored: devices can fall back to it")
    }

    func testOtherwiseTheSourceLocaleWhichItselfHasNone() throws {
        let result = try build(
            catalog(["en-US": ["a": "A"], "pt-BR": ["a": "b"], "de": ["a": "c"]]), request(), stored(["pt-PT"]))
        XCTAssertEqual(fallbacks(result), ["en-US": "-", "pt-BR": "en-US", "de": "en-US"])
    }

    func testALanguageLeftWithNoStringIsNoFallback() throws {
        let result = try build(catalog(["en-US": ["a": "A"], "tr": [:], "tr-TR": ["a": "c"]]), request(), stored())
        XCTAssertEqual(
            fallbacks(result), ["en-US": "-", "tr-TR": "en-US"], "tr makes no pack, so tr-TR cannot fall back to it")
        XCTAssertEqual(result.emptyLocales, ["tr"])
    }

    func testFallbackLocaleRule() {
        XCTAssertEqual(PackImport.fallbackLocale(of: "tr-TR", source: "en-US") { $0 == "tr" }, "tr")
        XCTAssertEqual(PackImport.fallbackLocale(of: "tr-TR", source: "en-US") { _ in false }, "en-US")
        XCTAssertEqual(
            PackImport.fallbackLocale(of: "tr", source: "en-US") { _ in true }, "en-US",
            "a language has no language above it")
        XCTAssertNil(PackImport.fallbackLocale(of: "en-US", source: "en-US") { _ in false })
        XCTAssertEqual(
            PackImport.fallbackLocale(of: "en-US", source: "en-US") { $0 == "en" }, "en",
            "the language is nearer than none")
        XCTAssertEqual(PackImport.fallbackLocale(of: "zh-Hant-TW", source: "en") { $0 == "zh" }, "zh")
    }

    // MARK: source locale

    func testTheSourceLocaleIsTheFlagThenTheCatalogsThenItsEnglish() throws {
        let strings = ["en": ["a": "A"], "en-US": ["a": "A"], "fr": ["a": "B"]]
        XCTAssertEqual(
            try build(catalog(strings, sourceLocale: "en"), request(sourceLocale: "fr"), stored()).sourceLocale, "fr")
        XCTAssertEqual(try build(catalog(strings, sourceLocale: "en"), request(), stored()).sourceLocale, "en")
        XCTAssertEqual(try build(catalog(strings), request(), stored()).sourceLocale, "en-US")
        XCTAssertEqual(
            try build(catalog(["en": ["a": "A"], "fr": ["a": "B"]]), request(), stored()).sourceLocale, "en")
        XCTAssertEqual(try build(catalog(["fr": ["a": "B"]]), request(), stored()).sourceLocale, "en-US")
    }

    func testTheSourceLocaleIsChosenBeforeLocalesAreFiltered() throws {
        let result = try build(catalog(["en": ["a": "A"], "fr": ["a": "B"]]), request(locales: ["fr"]), stored())
        XCTAssertEqual(result.sourceLocale, "en")
        XCTAssertEqual(fallbacks(result), ["fr": "en"])
    }

    // MARK: what is left out

    func testOnlyTheLocalesAskedForAreImportedAndListed() throws {
        var catalog = catalog(["tr": ["a": "b"], "de": ["a": "c"]])
        catalog.skip("tr", "x", "stale")
        catalog.skip("de", "y", "stale")
        catalog.skipFile("values-night", "not a locale")
        let result = try build(catalog, request(locales: ["tr"]), stored())
        XCTAssertEqual(result.packs.map(\.parsed.pack.locale), ["tr"])
        XCTAssertEqual(result.catalog.strings.keys.sorted(), ["tr"])
        XCTAssertEqual(result.catalog.skipped, [.init(locale: "tr", key: "x", reason: "stale")])
        XCTAssertEqual(
            result.catalog.skippedFiles.map(\.path), ["values-night"], "files are listed whatever the locales")
    }

    func testBundleOnlyKeysAreLeftOutAndListed() throws {
        let policy = Policy(bundleOnlyKeys: KeyPatterns(spellings: ["legal.*"])!)
        let result = try build(
            catalog(["tr": ["legal.terms": "x", "greet": "Merhaba"]]), request(), stored(policy: policy))
        XCTAssertEqual(result.packs.map { $0.parsed.pack.strings.keys.sorted() }, [["greet"]])
        XCTAssertEqual(
            result.catalog.skipped,
            [
                .init(
                    locale: "tr", key: "legal.terms",
                    reason: "bundle-only (policy bundleOnlyKeys legal.*): it stays in the app")
            ])
    }

    func testNoLocaleWithAStringIsBadInputNamingWhatWasLeftOut() throws {
        var catalog = catalog(["tr": [:], "de": [:]])
        for key in ["a", "b", "c", "d"] { catalog.skip("tr", key, "needs_review") }
        XCTAssertThrowsError(try build(catalog, request(), stored())) {
            guard case RolloutError.badInput(let message) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(
                message,
                "Localizable.xcstrings: no locale has a string to import (4 left out: tr a: needs_review; tr b: needs_review; tr c: needs_review)"
            )
        }
        XCTAssertThrowsError(try build(self.catalog(["tr": [:]]), request(), stored())) {
            guard case RolloutError.badInput(let message) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(message, "Localizable.xcstrings: no locale has a string to import")
        }
    }

    // MARK: the packs

    func testEachPackIsNamedAfterTheCatalogAndParsedAsPackAddWould() throws {
        let result = try build(catalog(["tr": ["greet": "Merhaba"]]), request(), stored())
        XCTAssertEqual(result.packs.map(\.source), ["Localizable.xcstrings (tr)"])
        let pack = try XCTUnwrap(result.packs.first?.parsed.pack)
        XCTAssertEqual(pack.contentVersion, 18)
        XCTAssertEqual(pack.strings, ["greet": "Merhaba"])
        XCTAssertEqual(try PackParser.parse(pack.storedBytes, source: "again").pack.checksum, pack.checksum)
    }

    func testAPackOverThePolicysSizeLimitIsRefused() throws {
        var policy = Policy()
        policy.limits.maxPackBytes = 200
        XCTAssertThrowsError(
            try build(catalog(["tr": ["greet": String(repeating: "a", count: 300)]]), request(), stored(policy: policy))
        ) {
            guard case RolloutError.badInput(let message) = $0 else { return XCTFail("\($0)") }
            XCTAssertTrue(message.hasPrefix("Localizable.xcstrings (tr): pack is "), message)
            XCTAssertTrue(message.hasSuffix("(policy limits.maxPackBytes)"), message)
        }
    }

    // MARK: --skip-invalid

    func testSkipInvalidLeavesOutEachStringLintRefusesAndLintsAgain() throws {
        var rounds: [[String]] = []
        let result = try PackImport.build(
            catalog(["en-US": ["greet": "Hi {0}", "bye": "Bye"], "tr": ["greet": "Merhaba", "bye": "Hoşça kal"]]),
            request: request(skipInvalid: true), stored: stored()
        ) { packs in
            rounds.append(
                packs.map { "\($0.parsed.pack.locale):\($0.parsed.pack.strings.keys.sorted().joined(separator: ","))" })
            // First the placeholder, then (as if its fallback changed) the other string of tr.
            switch rounds.count {
            case 1: return [self.finding("tr", "greet", rule: "placeholders")]
            case 2: return [self.finding("tr", "bye", rule: "message-syntax")]
            default: return []
            }
        }
        XCTAssertEqual(
            rounds, [["en-US:bye,greet", "tr:bye,greet"], ["en-US:bye,greet", "tr:bye"], ["en-US:bye,greet"]])
        XCTAssertEqual(result.packs.map(\.parsed.pack.locale), ["en-US"])
        XCTAssertEqual(result.emptyLocales, ["tr"], "a locale left with no string makes no pack")
        XCTAssertEqual(
            result.catalog.skipped,
            [
                .init(locale: "tr", key: "greet", reason: "lint placeholders: refused"),
                .init(locale: "tr", key: "bye", reason: "lint message-syntax: refused"),
            ])
    }

    func testProblemsOfWholePacksAreNotLeftOut() throws {
        var asked = 0
        let catalog = catalog(["tr": ["greet": "Merhaba"]])
        let result = try PackImport.build(catalog, request: request(skipInvalid: true), stored: stored()) { _ in
            asked += 1
            // Removed and protected keys, and a pack-level finding: leaving a string out cannot fix them.
            return [
                self.finding("tr", "old", rule: "removed-keys"), self.finding("tr", "legal.x", rule: "protected-keys"),
                self.finding("tr", nil, rule: "placeholders"),
            ]
        }
        XCTAssertEqual(asked, 1)
        XCTAssertEqual(
            result.packs.first?.parsed.pack.strings, ["greet": "Merhaba"], "they still refuse, when the packs are added"
        )
        XCTAssertEqual(result.catalog.skipped, [])
    }

    func testEveryPerStringRuleIsLeftOut() throws {
        for rule in PackImport.perStringRules.sorted() {
            let catalog = catalog(["de": ["a": "A"], "tr": ["a": "b"]])
            let result = try PackImport.build(catalog, request: request(skipInvalid: true), stored: stored()) {
                $0.count == 2 ? [self.finding("tr", "a", rule: rule)] : []
            }
            XCTAssertEqual(result.catalog.skipped.map(\.key), ["a"], rule)
        }
    }

    func testSkipInvalidLintsAtMostEightTimes() throws {
        var asked = 0
        let strings = Dictionary(uniqueKeysWithValues: (0..<20).map { ("k\($0)", "v") })
        let result = try PackImport.build(
            catalog(["tr": strings]), request: request(skipInvalid: true), stored: stored()
        ) { packs in
            asked += 1
            // Always one more string to leave out: the rounds end, and lint at add time has the last word.
            return [self.finding("tr", packs[0].parsed.pack.strings.keys.sorted().first!, rule: "secret")]
        }
        XCTAssertEqual(asked, 8)
        XCTAssertEqual(result.catalog.skipped.count, 8)
        XCTAssertEqual(result.packs.first?.parsed.pack.strings.count, 12)
    }
}
