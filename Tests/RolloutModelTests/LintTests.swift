import XCTest

@testable import RolloutModel

final class MessageSyntaxTests: XCTestCase {
    func testPlaceholdersOfEveryStyleAreFoundAndNormalised() {
        XCTAssertEqual(MessageSyntax.analyse("Đã có phiên bản {{version}}").placeholders, ["{{version}}"])
        XCTAssertEqual(
            MessageSyntax.analyse("Hello, {name}! {count, plural, one {# file} other {# files}}").placeholders,
            ["{name}", "{count}"])
        XCTAssertEqual(MessageSyntax.analyse("%@ sent %d photos").placeholders, ["%1$@", "%2$d"])
        XCTAssertEqual(
            MessageSyntax.analyse("%2$d photos from %1$@").placeholders, ["%1$@", "%2$d"], "positions make order free")
        XCTAssertEqual(MessageSyntax.analyse("%i and %u").placeholders, ["%1$d", "%2$d"])
        XCTAssertEqual(MessageSyntax.analyse("%.2f%% off").placeholders, ["%1$f"])
        XCTAssertEqual(MessageSyntax.analyse("{{ version }}").placeholders, ["{{version}}"])
    }

    func testLiteralPercentSignsAndApostrophesAreText() {
        XCTAssertEqual(MessageSyntax.analyse("Winter sale: 20% off every plan").placeholders, [])
        XCTAssertEqual(
            MessageSyntax.analyse("Kış indirimi: %20 indirim").placeholders, [], "Turkish puts % before the number")
        XCTAssertTrue(MessageSyntax.analyse("L'application n'est pas à jour").errors.isEmpty)
        XCTAssertEqual(
            MessageSyntax.analyse("Write '{name}' literally").placeholders, [], "an apostrophe before { quotes it")
        XCTAssertEqual(MessageSyntax.analyse("It''s {name}").placeholders, ["{name}"])
    }

    func testICUSyntaxErrors() {
        let cases: [(String, String)] = [
            ("{count, plural, one {# file}}", "no 'other' case"),
            ("{count, plural, one {# file} other {# files}", "is not closed"),
            ("{count, plural, one {# file} lots {# x} other {# files}}", "unknown category 'lots'"),
            ("{count, plural, one {a} one {b} other {c}}", "repeats the case 'one'"),
            ("{count, plural, =x {a} other {c}}", "invalid explicit value"),
            ("{gender, select, male {he} female {she}}", "no 'other' case"),
            ("{count, plurl, other {x}}", "unknown type"),
            ("{}", "has no name"),
            ("a } b", "unmatched '}'"),
            ("{{version}", "unclosed '{{'"),
            ("{{ver sion}}", "is not a template placeholder"),
        ]
        for (text, message) in cases {
            let errors = MessageSyntax.analyse(text).errors
            XCTAssertTrue(errors.contains { $0.contains(message) }, "\(text): \(errors)")
        }
        for good in [
            "{count, plural, =0 {none} one {# file} other {# files}}",
            "{n, selectordinal, one {#st} two {#nd} few {#rd} other {#th}}",
            "{g, select, male {{name} is here} other {they are here}}", "{d, date, short}", "{n, number}",
            "{count, plural, offset:1 other {#}}",
        ] {
            XCTAssertEqual(MessageSyntax.analyse(good).errors, [], good)
        }
    }
}

final class TextSafetyTests: XCTestCase {
    func testTextInEveryScriptIsFine() {
        for text in [
            "Hoş geldin", "Chào mừng", "مرحبا\u{200F}", "שלום \u{2067}x\u{2069}", "こんにちは", "Line one\nLine two\tTabbed",
            "<b>bold</b> and <a href=\"https://example.com\">link</a>",
        ] {
            XCTAssertEqual(TextSafety.check(text), [], text)
        }
    }

    func testExecutableContentIsFound() {
        for text in [
            "<script>x</script>", "<SCRIPT src=x>", "javascript:alert(1)", "<img src=x onerror=alert(1)>",
            "<svg/onload=alert(1)>", "<iframe src=x>", "data:text/html;base64,xx",
        ] {
            XCTAssertEqual(TextSafety.check(text).map(\.kind), [.executable], text)
        }
        XCTAssertEqual(TextSafety.check("Tap once to continue"), [], "the word 'once' is not an event handler")
    }

    func testSecretsAreFound() {
        let secrets = [
            "AKIAIOSFODNN7EXAMPLE", "AIzaSyA-1234567890abcdefghijklmnopqrstu",
            "ghp_" + String(repeating: "a1", count: 18),
            "sk_live_" + String(repeating: "x", count: 24),
            "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig_nature-abc", "xoxb-123456789012-abcdefghij",
        ]
        for secret in secrets {
            XCTAssertEqual(TextSafety.check("token: \(secret)").map(\.kind), [.secret], secret)
        }
        XCTAssertEqual(TextSafety.check("Use code AKIA to save"), [], "a prefix alone is not a key")
    }

    func testControlAndOverrideCharacters() {
        XCTAssertEqual(TextSafety.check("a\u{0}b").map(\.detail), ["control character U+0000"])
        XCTAssertEqual(TextSafety.check("a\u{202E}b").map(\.detail), ["bidirectional override U+202E"])
        XCTAssertEqual(TextSafety.check("a\u{85}b").map(\.kind), [.controlCharacter])
    }
}

final class PackLinterTests: XCTestCase {
    let en = Pack(
        locale: "en-US", contentVersion: 1, minAppVersion: AppVersion("4.0")!,
        strings: [
            "update.body": "Version {{version}} is available", "legal.terms": "Terms", "cart.items": "%d items",
        ])
    let tr1 = Pack(
        locale: "tr", contentVersion: 1, minAppVersion: AppVersion("4.0")!, fallbackLocale: "en-US",
        strings: [
            "update.body": "{{version}} yayında", "legal.terms": "Koşullar", "cart.items": "%d ürün",
        ])

    private var policy: Policy {
        Policy(defaultLocale: "en-US", requiredKeys: ["update.body"], protectedKeys: [KeyPattern("legal.*")!])
    }

    private func rules(_ pack: Pack, existing: [Pack]? = nil, options: LintOptions = LintOptions()) throws -> [String] {
        let linter = PackLinter(policy: policy, catalog: MemoryCatalog(existing ?? [en, tr1]), options: options)
        return try linter.lint([pack]).filter { $0.severity == .error }.map(\.rule)
    }

    private func tr(_ version: Int, _ changes: [String: String?], fallback: String? = "en-US") -> Pack {
        var strings = tr1.strings
        for (key, value) in changes { strings[key] = value }
        return Pack(
            locale: "tr", contentVersion: version, minAppVersion: AppVersion("4.0")!, fallbackLocale: fallback,
            strings: strings)
    }

    func testACleanNewVersionPasses() throws {
        XCTAssertEqual(try rules(tr(2, ["cart.items": "Sepette %d ürün"])), [])
    }

    func testEachRule() throws {
        XCTAssertEqual(try rules(tr(1, [:])), ["content-version"], "same version number again")
        XCTAssertEqual(try rules(tr(2, ["update.body": nil])), ["required-key", "removed-keys"])
        XCTAssertEqual(try rules(tr(2, ["update.body": "Yeni sürüm"])), ["placeholders"])
        XCTAssertEqual(try rules(tr(2, ["cart.items": "%@ ürün"])), ["placeholders"])
        XCTAssertEqual(try rules(tr(2, ["legal.terms": "Yeni koşullar"])), ["protected-key"])
        XCTAssertEqual(
            try rules(tr(2, ["legal.terms": "Yeni koşullar"]), options: LintOptions(approvedBy: "Legal")), [])
        XCTAssertEqual(try rules(tr(2, ["cart.items": nil]), options: LintOptions(allowRemovedKeys: true)), [])
        XCTAssertEqual(try rules(tr(2, ["x": ""])), [], "a blank value is a warning: platforms show it")
        XCTAssertEqual(try rules(tr(2, ["x": "<script>"])), ["executable-content"])
        XCTAssertEqual(try rules(tr(2, ["x": "AKIAIOSFODNN7EXAMPLE"])), ["secret"])
        XCTAssertEqual(try rules(tr(2, ["x": "{n, plural, one {#}}"])), ["message-syntax"])
        XCTAssertEqual(
            try rules(tr(2, [" x ": "a", "": "b", "two\nlines": "c", String(repeating: "k", count: 600): "d"])), [],
            "keys Xcode accepts")
        XCTAssertEqual(try rules(tr(2, ["x\u{1B}[2J": "a"])), ["bad-key"])
        XCTAssertEqual(try rules(tr(2, [:], fallback: "de-DE")), ["fallback-chain"])
    }

    /// docs/pack-format.md, "placeholders": refused only where a device would go wrong.
    func testPlaceholderDifferencesAreRefusedOnlyWhereADeviceGoesWrong() throws {
        let count = "{0, plural, one {# photo} other {# photos}}"
        func differences(_ source: String, _ translation: String, locale: String = "ko") throws -> [LintFinding
            .Severity]
        {
            let english = Pack(
                locale: "en-US", contentVersion: 1, minAppVersion: AppVersion("4.0")!, fallbackLocale: nil,
                strings: ["k": source])
            let other = Pack(
                locale: locale, contentVersion: 1, minAppVersion: AppVersion("4.0")!, fallbackLocale: "en-US",
                strings: ["k": translation])
            let linter = PackLinter(policy: policy, catalog: MemoryCatalog([english]), options: LintOptions())
            return try linter.lint([other]).filter { $0.rule == "placeholders" }.map(\.severity)
        }
        XCTAssertEqual(try differences(count, "사진"), [.warning], "Korean leaves the count unshown")
        XCTAssertEqual(try differences(count, "{0, plural, other {사진}}"), [])
        XCTAssertEqual(
            try differences("{1} photos", "{0} kişinin {1} fotoğrafı", locale: "tr"), [.warning],
            "the source skips argument 0, which the app passes")
        XCTAssertEqual(
            try differences("Delete", "{0, number}件を削除", locale: "ja"), [.error],
            "an argument past all the source's may not be passed at all")
        XCTAssertEqual(
            try differences(count, "Dateien", locale: "de"), [.error],
            "German has a one form: dropping the count is a change")
        XCTAssertEqual(
            try differences("Version {{version}} is out", "Yeni sürüm", locale: "tr"), [.error],
            "seed 002: the version number is lost")
        XCTAssertEqual(
            try differences("Hi", "Merhaba {name}", locale: "tr"), [.error], "a name the app does not pass shows raw")
        XCTAssertEqual(try differences("%d photos", "%@ fotoğraf", locale: "tr"), [.error], "%d became %@")
    }

    /// A blank value shows nothing of its own (the device falls through to the next locale, as
    /// i18next does with returnEmptyString: false), so placeholder parity does not apply to it; it
    /// keeps its empty-value warning.
    func testABlankValueIsNotComparedForPlaceholders() throws {
        let english = Pack(
            locale: "en", contentVersion: 1, minAppVersion: AppVersion("4.0")!, fallbackLocale: nil,
            strings: ["left": "{count} files left", "help": "Artwork from {name}", "size": "%1$d MB"])
        let arabic = Pack(
            locale: "ar", contentVersion: 1, minAppVersion: AppVersion("4.0")!, fallbackLocale: "en",
            strings: ["left": "", "help": " ", "size": ""])
        let linter = PackLinter(
            policy: Policy(defaultLocale: "en"), catalog: MemoryCatalog([english]), options: LintOptions())
        let findings = try linter.lint([arabic])
        XCTAssertEqual(findings.filter { $0.severity == .error }.map(\.rule), [])
        XCTAssertEqual(findings.filter { $0.rule == "placeholders" }.count, 0)
        XCTAssertEqual(findings.filter { $0.rule == "empty-value" }.map(\.severity), [.warning, .warning, .warning])
        let dropped = Pack(
            locale: "ar", contentVersion: 1, minAppVersion: AppVersion("4.0")!, fallbackLocale: "en",
            strings: ["left": "ملفات", "help": "", "size": ""])
        XCTAssertEqual(
            try linter.lint([dropped]).filter { $0.severity == .error }.map(\.rule), ["placeholders"],
            "a value that shows text still keeps the count")
    }

    /// A blank value down the chain is not the reference either: en `Hello {name}`, pt blank,
    /// pt-BR is compared with en (what a device shows when pt-BR's own is missing), so pt-BR
    /// `Olá {name}` is fine and `Olá` drops the name.
    func testABlankValueDownTheChainIsNotTheReference() throws {
        let pack = { (locale: String, fallback: String?, text: String) in
            Pack(
                locale: locale, contentVersion: 1, minAppVersion: AppVersion("4.0")!, fallbackLocale: fallback,
                strings: ["hi": text])
        }
        let linter = PackLinter(
            policy: Policy(defaultLocale: "en"),
            catalog: MemoryCatalog([pack("en", nil, "Hello {name}"), pack("pt", "en", "")]), options: LintOptions())
        XCTAssertEqual(
            try linter.lint([pack("pt-BR", "pt", "Olá {name}")]).filter { $0.rule == "placeholders" }.count, 0,
            "i18next shows Olá Ana")
        let dropped = try linter.lint([pack("pt-BR", "pt", "Olá")]).filter { $0.rule == "placeholders" }
        XCTAssertEqual(dropped.map(\.severity), [.error])
        XCTAssertTrue(dropped.first?.message.contains("en@1") == true, "\(dropped)")
    }

    /// A plural's forms need not show its count (ICU, gen-l10n): a count the source shows in none
    /// of its forms only picks a form, so a translation that never shows it is a warning; a count
    /// the source shows (`#`, `{n}`, `{n, number}`) and the translation drops is still refused.
    func testAPluralCountTheSourceNeverShowsMayBeLeftUnshown() throws {
        func severities(_ source: String, _ translation: String) throws -> [LintFinding.Severity] {
            let english = Pack(
                locale: "en", contentVersion: 1, minAppVersion: AppVersion("4.0")!, fallbackLocale: nil,
                strings: ["k": source])
            let german = Pack(
                locale: "de", contentVersion: 1, minAppVersion: AppVersion("4.0")!, fallbackLocale: "en",
                strings: ["k": translation])
            let linter = PackLinter(policy: policy, catalog: MemoryCatalog([english]), options: LintOptions())
            return try linter.lint([german]).filter { $0.rule == "placeholders" }.map(\.severity)
        }
        XCTAssertEqual(
            try severities("{count, plural, zero {Account} one {Account} other {Accounts}}", "Konten"), [.warning])
        XCTAssertEqual(
            try severities("{n, plural, one {Photo} other {Photos}} of {name}", "Fotos von {name}"), [.warning])
        XCTAssertEqual(try severities("{n, plural, one {One file} other {# files}}", "Dateien"), [.error])
        XCTAssertEqual(try severities("{n, plural, one {{n} file} other {{n} files}}", "Dateien"), [.error])
        XCTAssertEqual(try severities("{n, plural, one {file} other {files}}: {n, number}", "Dateien"), [.error])
        XCTAssertEqual(
            try severities("{n, plural, other {{g, select, f {Fotos} other {# Fotos}}}}", "{g, select, other {Fotos}}"),
            [.warning], "a # inside a select is text, as the client reads it")
        XCTAssertEqual(try severities("{n, plural, one {a '#'} other {b}}", "c"), [.warning], "a quoted # is text")
    }

    func testRightToLeftEmbeddingsPassAndOverridesDoNot() throws {
        XCTAssertEqual(try rules(tr(2, ["x": "\u{202B}مرحبا \u{202A}Rollout\u{202C}\u{202C}"])), [])
        XCTAssertEqual(try rules(tr(2, ["x": "\u{202E}txet desrever"])), ["control-character"])
    }

    func testAChangeOfUnicodeNormalisationIsAChange() throws {
        // "ş" composed (U+015F) and decomposed (s + U+0327) are equal to Swift's == but not byte for byte.
        let composed = tr(2, ["legal.terms": "\u{015F}artlar"])
        let decomposed = tr(3, ["legal.terms": "s\u{0327}artlar"])
        let linter = PackLinter(policy: policy, catalog: MemoryCatalog([en, tr1, composed]), options: LintOptions())
        XCTAssertEqual(try linter.lint([decomposed]).map(\.rule), ["protected-key"])
        XCTAssertEqual(PackDiff(from: composed, to: decomposed).changed.map(\.key), ["legal.terms"])
        XCTAssertNotEqual(composed.checksum, tr(2, ["legal.terms": "s\u{0327}artlar"]).checksum)
    }

    func testAFirstPackMayCarryProtectedKeysButLaterChangesNeedApproval() throws {
        XCTAssertEqual(try rules(tr1, existing: [en]), [])
        XCTAssertEqual(
            try rules(tr(2, ["legal.terms": nil]), options: LintOptions(allowRemovedKeys: true)), ["protected-key"])
    }

    func testPlaceholderParityFollowsTheFallbackChain() throws {
        // tr-TR falls back to tr (its truncation parent), so it is compared with tr, not en-US.
        let trTR = Pack(
            locale: "tr-TR", contentVersion: 1, minAppVersion: AppVersion("4.8")!, fallbackLocale: "en-US",
            strings: [
                "update.body": "{{version}} çıktı", "cart.items": "%d",
            ])
        XCTAssertEqual(try rules(trTR), [])
        let chain = try FallbackChain.locales(
            for: "tr-TR", defaultLocale: "en-US", catalog: MemoryCatalog([en, tr1, trTR]))
        XCTAssertEqual(chain, ["tr-TR", "tr", "en-US"])
    }

    func testACycleIsFound() throws {
        let en2 = Pack(
            locale: "en-US", contentVersion: 2, minAppVersion: AppVersion("4.0")!, fallbackLocale: "tr",
            strings: en.strings)
        let linter = PackLinter(policy: policy, catalog: MemoryCatalog([en, tr1]))
        let findings = try linter.lint([en2])
        XCTAssertEqual(findings.map(\.rule), ["fallback-chain"])
        XCTAssertTrue(findings[0].message.contains("en-US -> tr -> en-US"), findings[0].message)
    }

    /// es declares es-ES, and es-ES (declaring nothing) takes es's declaration: the loop is
    /// es -> es-ES -> es, printed in the order it is followed, whichever locale reaches it.
    func testACycleThroughALessSpecificLocaleIsPrintedInOrder() throws {
        let es = Pack(
            locale: "es", contentVersion: 1, minAppVersion: AppVersion("4.0")!, fallbackLocale: "es-ES",
            strings: en.strings)
        let esES = Pack(locale: "es-ES", contentVersion: 1, minAppVersion: AppVersion("4.0")!, strings: en.strings)
        let esMX = Pack(
            locale: "es-MX", contentVersion: 1, minAppVersion: AppVersion("4.0")!, fallbackLocale: "es",
            strings: en.strings)
        let catalog = MemoryCatalog([en, es, esES, esMX])
        for (locale, loop) in [
            ("es", ["es", "es-ES", "es"]), ("es-ES", ["es-ES", "es", "es-ES"]), ("es-MX", ["es", "es-ES", "es"]),
        ] {
            XCTAssertThrowsError(
                try FallbackChain.locales(for: locale, defaultLocale: "en-US", catalog: catalog), locale
            ) { error in
                XCTAssertEqual((error as? FallbackChain.Cycle)?.locales, loop, locale)
            }
        }
        let findings = try PackLinter(policy: policy, catalog: MemoryCatalog([en])).lint([es, esES])
        XCTAssertEqual(
            findings.map(\.message),
            ["fallback chain has a cycle: es -> es-ES -> es", "fallback chain has a cycle: es-ES -> es -> es-ES"])
    }

    func testABatchIsLintedAsOneWithItsOwnChain() throws {
        let linter = PackLinter(policy: policy, catalog: MemoryCatalog())
        XCTAssertEqual(try linter.lint([tr1, en]).filter { $0.severity == .error }, [])
        XCTAssertEqual(try linter.lint([tr1]).map(\.rule), ["fallback-chain"], "tr alone: en-US is missing")
    }

    func testLimitsFromPolicy() throws {
        var small = policy
        small.limits = PolicyLimits(maxPackBytes: 1 << 20, maxKeys: 2, maxValueBytes: 10)
        let linter = PackLinter(policy: small, catalog: MemoryCatalog([en]))
        let found = try linter.lint([tr(1, ["x": String(repeating: "a", count: 11)])]).map(\.rule)
        XCTAssertTrue(found.contains("too-many-keys"), "\(found)")
        XCTAssertTrue(found.contains("value-too-long"), "\(found)")
    }
}

final class PolicyTests: XCTestCase {
    func testMissingFieldsTakeDefaultsAndUnknownOnesAreRefused() throws {
        let policy = try Policy.parse(Array(#"{"requiredKeys": ["a"]}"#.utf8), source: "p.json")
        XCTAssertEqual(policy.defaultLocale, "en-US")
        XCTAssertEqual(policy.limits, .default)
        XCTAssertEqual(policy.gates, .default)
        XCTAssertThrowsError(try Policy.parse(Array(#"{"requiredkeys": ["a"]}"#.utf8), source: "p.json")) { error in
            XCTAssertTrue("\(error)".contains("unknown field \"requiredkeys\""), "\(error)")
        }
        XCTAssertThrowsError(try Policy.parse(Array(#"{"gates": {"confidence": 1.5}}"#.utf8), source: "p.json"))
        XCTAssertThrowsError(try Policy.parse(Array(#"{"defaultLocale": "english"}"#.utf8), source: "p.json"))
    }

    func testRoundTripsThroughItsJSON() throws {
        let policy = Policy(defaultLocale: "tr-TR", requiredKeys: ["x"], protectedKeys: [KeyPattern("legal.*")!])
        XCTAssertEqual(try Policy.parse(JSONWriter.pretty(policy.jsonValue), source: "p"), policy)
    }

    func testKeyPatterns() {
        let legal = KeyPattern("legal.*")!
        XCTAssertTrue(legal.matches("legal.terms"))
        XCTAssertTrue(legal.matches("legal.terms.v2"))
        XCTAssertFalse(legal.matches("legalese"))
        XCTAssertFalse(legal.matches("home.legal.x"))
        XCTAssertTrue(KeyPattern("*.price")!.matches("checkout.cart.price"))
        XCTAssertTrue(KeyPattern("a?c")!.matches("abc"))
        XCTAssertNil(KeyPattern("has space"))
    }
}

/// docs/import.md, "Apostrophes": an apostrophe meant as text that ICU reads as quoting hides an
/// argument or the plural count; lint says so instead of storing a string that never shows it.
final class SwallowedArgumentTests: XCTestCase {
    private func errors(_ text: String) -> [String] { MessageSyntax.analyse(text).errors }

    func testAnApostropheBeforeAnArgumentOrTheCountIsRefused() {
        XCTAssertTrue(
            errors("qu'{0, number} minute pour l'épisode").contains { $0.contains("quotes an argument") },
            "\(errors("qu'{0, number} minute"))")
        XCTAssertTrue(errors("l'{name} app").contains { $0.contains("quotes an argument") })
        XCTAssertTrue(
            errors("{0, plural, one {l'# épisode} other {# épisodes}}").contains { $0.contains("plural count") })
    }

    func testTheImportersEscapesAndPlainApostrophesPass() {
        for text in [
            "qu''{0, number} minute pour l''épisode", "l'app", "'{'name'}' is literal",
            "{0, plural, one {'#'1 file} other {# files}}",
            "It''s {count}", "{0, plural, one {l''épisode} other {les # épisodes}}",
            "{0, plural, other {# posts in '##'dev}}", "{count, plural, other {# items '{#}'}}",
            "Supprimer '{{name}}' ?",
        ] {
            XCTAssertEqual(errors(text), [], text)
        }
    }
}
