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

    /// A repository holding `locales` (by default the pack of the default source locale, en-US,
    /// which packs fall back to), each with a newest pack of minAppVersion `newest[locale]`.
    func stored(
        _ locales: Set<String> = ["en-US"], newest: [String: AppVersion] = [:], policy: Policy = Policy(),
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

    /// The error a refusal of the whole catalog carries, failing the test for any other.
    func refusal(_ body: @autoclosure () throws -> PackImport.Result) -> PackImport.Refusal? {
        do {
            _ = try body()
            XCTFail("expected a refusal")
        } catch let refusal as PackImport.Refusal {
            return refusal
        } catch {
            XCTFail("\(error)")
        }
        return nil
    }

    /// Lint as `pack add` runs it on a new repository: the errors of the real linter.
    func realLint(_ packs: [PackImport.MadePack]) throws -> [LintFinding] {
        try PackLinter(policy: Policy(), catalog: MemoryCatalog()).lint(packs.map(\.parsed.pack)).filter {
            $0.severity == .error
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
            stored(["en-US", "tr", "de"], newest: ["tr": v48, "de": AppVersion("4.2.1")!]))
        XCTAssertEqual(
            result.packs.map(\.parsed.pack.id.description), ["de@18", "tr@18"], "one pack per locale, in locale order")
        XCTAssertEqual(result.packs.map(\.parsed.pack.minAppVersion.description), ["4.2.1", "4.8.0"])
    }

    func testANewLocaleWithoutTheFlagIsAUsageError() throws {
        let catalog = catalog(["tr": ["a": "b"], "fr": ["a": "c"]])
        let refused = refusal(try build(catalog, request(minAppVersion: nil), stored(newest: ["tr": v48])))
        XCTAssertEqual(refused?.error as? ImportRefusal, .noMinAppVersion(locale: "fr"))
        XCTAssertEqual((refused?.error as? ImportRefusal)?.kind, .usage)
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
        XCTAssertNil(
            PackImport.fallbackLocale(of: "en-US", source: "en-US") { $0 == "en" },
            "the source declares none: a device steps to en by itself")
        XCTAssertNil(
            PackImport.fallbackLocale(of: "en", source: "en-US") { _ in true },
            "nor does a less specific form of the source: en -> en-US would loop back through en-US's parent en")
        XCTAssertNil(PackImport.fallbackLocale(of: "zh-Hant", source: "zh-Hant-TW") { _ in true })
        XCTAssertEqual(PackImport.fallbackLocale(of: "en-US", source: "en") { $0 == "en" }, "en")
        XCTAssertEqual(PackImport.fallbackLocale(of: "en-GB", source: "en-US") { $0 == "en" }, "en")
        XCTAssertEqual(PackImport.fallbackLocale(of: "zh-Hant-TW", source: "en") { $0 == "zh" }, "zh")
    }

    /// Both en and en-US, whichever is the source (issue 30, class 6): every chain lint follows is
    /// acyclic and reaches the source, and lint refuses no pack.
    func testEnAndEnUSMakeNoCycleWhicheverIsTheSource() throws {
        let strings = [
            "en": ["a": "Hi"], "en-US": ["a": "Hi"], "en-GB": ["a": "Hiya"], "fr": ["a": "Salut"],
            "fr-CA": ["a": "Allo"],
        ]
        for source in ["en-US", "en"] {
            let result = try PackImport.build(
                catalog(strings, sourceLocale: source), request: request(skipInvalid: true), stored: stored(),
                lint: realLint)
            XCTAssertEqual(result.sourceLocale, source)
            XCTAssertEqual(result.catalog.skipped, [], source)
            XCTAssertEqual(try realLint(result.packs), [], source)
            let packs = MemoryCatalog(result.packs.map(\.parsed.pack))
            for locale in strings.keys {
                let chain = try FallbackChain.locales(for: locale, defaultLocale: source, catalog: packs)
                XCTAssertTrue(chain.contains(source), "\(locale) reaches \(source): \(chain)")
            }
        }
        let enUS = try build(catalog(strings), request(), stored())
        XCTAssertEqual(enUS.sourceLocale, "en-US", "without a source named, en-US as before")
        XCTAssertEqual(
            fallbacks(enUS), ["en": "-", "en-US": "-", "en-GB": "en", "fr": "en-US", "fr-CA": "fr"],
            "en reaches en-US as the policy's default locale, the end of every chain")
        let en = try build(catalog(strings, sourceLocale: "en"), request(), stored())
        XCTAssertEqual(fallbacks(en), ["en": "-", "en-US": "en", "en-GB": "en", "fr": "en", "fr-CA": "fr"])
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
        let result = try build(
            catalog(["en": ["a": "A"], "fr": ["a": "B"]]), request(locales: ["fr"]), stored(["en"]))
        XCTAssertNotNil(
            refusal(try build(catalog(["en": ["a": "A"], "fr": ["a": "B"]]), request(locales: ["fr"]), stored([]))),
            "fr would fall back to en, which has no pack: refused (testASourceWithNoPackIsRefusedNamingTheFix)")
        XCTAssertEqual(result.sourceLocale, "en")
        XCTAssertEqual(fallbacks(result), ["fr": "en"])
    }

    /// A pack that falls back to a source locale with no pack, imported or stored, is refused by
    /// lint: refused here instead, the first line naming what gets past it.
    func testASourceWithNoPackIsRefusedNamingTheFix() throws {
        let strings = ["en": ["a": "A"], "fr": ["a": "B"]]
        let filtered = refusal(try build(catalog(strings), request(locales: ["fr"]), stored([])))
        XCTAssertEqual(
            filtered?.error as? ImportRefusal,
            .sourceLocaleNotImported(catalog: "Localizable.xcstrings", source: "en", dependents: ["fr"]))
        let absent = refusal(try build(catalog(["de": ["a": "A"], "fr": ["a": "B"]]), request(), stored([])))
        XCTAssertEqual(
            absent?.error as? ImportRefusal,
            .sourceLocaleNotInCatalog(
                catalog: "Localizable.xcstrings", source: "en-US", has: ["de", "fr"], dependents: ["de", "fr"]))
        var leftOut = catalog(["en": [:], "fr": ["a": "B"]], sourceLocale: "en")
        leftOut.skip("en", "a", "needs review")
        let emptied = refusal(try build(leftOut, request(), stored([])))
        XCTAssertEqual(
            emptied?.error as? ImportRefusal,
            .sourceLocaleLeftOut(catalog: "Localizable.xcstrings", source: "en", dependents: ["fr"]))
        XCTAssertEqual(emptied?.catalog.skipped, [.init(locale: "en", key: "a", reason: "needs review")])
        XCTAssertEqual(
            try build(leftOut, request(), stored(["en"])).packs.map(\.source), ["Localizable.xcstrings (fr)"])
    }

    func refused(_ refusal: PackImport.Refusal?) -> String? {
        guard case .badInput(let message) = refusal?.error as? RolloutError else { return nil }
        return message
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
        for key in ["d", "c", "b", "a"] { catalog.skip("tr", key, "needs_review") }
        let leftOut = refusal(try build(catalog, request(), stored()))
        XCTAssertEqual(
            refused(leftOut),
            "Localizable.xcstrings: no locale has a string to import: all 4 were left out, each for its reason (fix those in the catalog; tr a: needs_review; tr b: needs_review; tr c: needs_review)"
        )
        XCTAssertEqual(leftOut?.catalog.skipped.map(\.key), ["a", "b", "c", "d"], "listed, even when refused")
        XCTAssertEqual(
            refusal(try build(self.catalog(["tr": [:]]), request(), stored()))?.error as? ImportRefusal,
            .catalogHasNoStrings(catalog: "Localizable.xcstrings"))
        XCTAssertEqual(
            refusal(try build(self.catalog(["tr": ["a": "b"]]), request(locales: ["de", "fr"]), stored()))?.error
                as? ImportRefusal,
            .localesMatchNone(catalog: "Localizable.xcstrings", asked: ["de", "fr"], has: ["tr"]))
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
        let message = refused(
            refusal(
                try build(
                    catalog(["tr": ["greet": String(repeating: "a", count: 300)]]), request(), stored(policy: policy))))
        XCTAssertTrue(message?.hasPrefix("Localizable.xcstrings (tr): pack is ") ?? false, message ?? "")
        XCTAssertTrue(message?.hasSuffix("(policy limits.maxPackBytes)") ?? false, message ?? "")
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
                .init(locale: "tr", key: "bye", reason: "lint message-syntax: refused"),
                .init(locale: "tr", key: "greet", reason: "lint placeholders: refused"),
            ], "in listing order, not the order they were found in")
    }

    /// Issue 30, class 9: a pt-BR string lint compares with a pt string that is itself left out is
    /// judged again against what is kept (the source's), not left out with it.
    func testAStringComparedWithOneLeftOutIsJudgedAgainstWhatIsKept() throws {
        let strings = [
            "en": ["greet": "Hello {name}", "bye": "Bye {name}", "files": "{count} files"],
            "pt": ["greet": "Olá {nome}", "bye": "Tchau {name}", "files": "{count} arquivos"],
            "pt-BR": ["greet": "Olá {name}", "bye": "Tchau {nome}", "files": "{total} arquivos"],
        ]
        var rounds = 0
        let result = try PackImport.build(
            catalog(strings, sourceLocale: "en"), request: request(skipInvalid: true), stored: stored()
        ) {
            rounds += 1
            return try self.realLint($0)
        }
        XCTAssertEqual(fallbacks(result), ["en": "-", "pt": "en", "pt-BR": "pt"])
        XCTAssertEqual(
            result.catalog.skipped.map { "\($0.locale) \($0.key)" }, ["pt greet", "pt-BR bye", "pt-BR files"],
            "pt-BR greet matches en, what pt-BR falls back to once pt's is left out")
        let ptBR = result.packs.first { $0.parsed.pack.locale == "pt-BR" }?.parsed.pack.strings
        XCTAssertEqual(ptBR, ["greet": "Olá {name}"])
        XCTAssertEqual(
            rounds, 2, "pt's string left out first; the second lint judges pt-BR's against en's and passes it")
        XCTAssertEqual(try realLint(result.packs), [])
    }

    /// The rule on its own: a compared finding waits while the string it was compared with is
    /// refused too; findings of a string on its own never wait.
    func testOnlyFindingsAgainstAStringBeingLeftOutWait() throws {
        let made = try build(
            catalog(["en": ["a": "A", "b": "B"], "pt": ["a": "A", "b": "B"], "pt-BR": ["a": "A", "b": "B"]]),
            request(sourceLocale: "en"), stored()
        ).packs
        let findings = [
            finding("pt", "a", rule: "placeholders"), finding("pt-BR", "a", rule: "placeholders"),
            finding("pt-BR", "b", rule: "placeholders"), finding("pt", "b", rule: "secret"),
            finding("en", "a", rule: "control-character"),
        ]
        let now = PackImport.judgedAgainstKept(findings, packs: made, defaultLocale: "en")
        XCTAssertEqual(
            now.map { "\($0.pack.locale) \($0.key!) \($0.rule)" },
            ["pt b secret", "en a control-character"],
            "pt a was compared with en a, which is refused; pt-BR a and b with pt's, which are refused")
        let alone = [finding("pt-BR", "a", rule: "placeholders"), finding("pt", "b", rule: "placeholders")]
        XCTAssertEqual(PackImport.judgedAgainstKept(alone, packs: made, defaultLocale: "en"), alone)
    }

    /// `pack import --json`'s `skipped` and `skippedFiles` come in one order, whatever order the
    /// reader and the lint rounds found them in: locale, key, reason; path, reason.
    func testWhatIsLeftOutIsListedInOneOrder() throws {
        var catalog = catalog(["en": ["a": "A"], "tr": ["z": "Z", "a": "B"]], sourceLocale: "en")
        catalog.skip("tr", "y", "stale")
        catalog.skip("en", "y", "stale")
        catalog.skip("tr", "b", "needs review")
        catalog.skip("tr", "b", "given twice")
        catalog.skipFile("values-night", "not a locale")
        catalog.skipFile("README.md", "not a locale")
        let result = try PackImport.build(catalog, request: request(skipInvalid: true), stored: stored()) { packs in
            packs.count == 2 && packs[1].parsed.pack.strings["z"] != nil
                ? [self.finding("tr", "z", rule: "secret")] : []
        }
        XCTAssertEqual(
            result.catalog.skipped.map { "\($0.locale) \($0.key) \($0.reason)" },
            ["en y stale", "tr b given twice", "tr b needs review", "tr y stale", "tr z lint secret: refused"])
        XCTAssertEqual(result.catalog.skippedFiles.map(\.path), ["README.md", "values-night"])
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
