import XCTest

@testable import RolloutClient

/// Placeholders as packs write them, filled the way an app expects.
final class MessageFormatTests: XCTestCase {
    private func format(_ text: String, _ arguments: [String: String], _ language: String = "en") -> String {
        MessageFormat.format(text, arguments, language: language)
    }

    func testNamedAndPositionalPlaceholders() {
        XCTAssertEqual(format("Merhaba, {name}!", ["name": "Ada"]), "Merhaba, Ada!")
        XCTAssertEqual(format("{{version}} sürümü yayında", ["version": "4.9"]), "4.9 sürümü yayında")
        XCTAssertEqual(format("Sepetinde %d ürün var", ["1": "3"]), "Sepetinde 3 ürün var")
        XCTAssertEqual(format("%2$@ then %1$@", ["1": "a", "2": "b"]), "b then a")
        XCTAssertEqual(format("%@ and %@", ["1": "x", "2": "y"]), "x and y")
        XCTAssertEqual(
            format("Kış indirimi: %20", ["1": "x"]), "Kış indirimi: %20",
            "a percent sign that is not a placeholder stays")
        XCTAssertEqual(format("Hello {name}", [:]), "Hello {name}", "no arguments: the text as written")
        XCTAssertEqual(format("Hello {name}", ["other": "x"]), "Hello {name}", "a missing argument stays visible")
    }

    func testPluralAndSelect() {
        let files = "{count, plural, =0 {no files} one {# file} other {# files}}"
        XCTAssertEqual(format(files, ["count": "0"]), "no files")
        XCTAssertEqual(format(files, ["count": "1"]), "1 file")
        XCTAssertEqual(format(files, ["count": "12"]), "12 files")
        let arabic = "{n, plural, zero {صفر} one {واحد} two {اثنان} few {# قليل} many {# كثير} other {# آخر}}"
        XCTAssertEqual(format(arabic, ["n": "0"], "ar"), "صفر")
        XCTAssertEqual(format(arabic, ["n": "2"], "ar"), "اثنان")
        XCTAssertEqual(format(arabic, ["n": "5"], "ar"), "5 قليل")
        XCTAssertEqual(format(arabic, ["n": "11"], "ar"), "11 كثير")
        XCTAssertEqual(format(arabic, ["n": "100"], "ar"), "100 آخر")
        XCTAssertEqual(MessageFormat.pluralCategory(21, language: "ru"), "one")
        XCTAssertEqual(MessageFormat.pluralCategory(22, language: "ru"), "few")
        XCTAssertEqual(MessageFormat.pluralCategory(11, language: "ru"), "many")
        XCTAssertEqual(MessageFormat.pluralCategory(1, language: "ja"), "other")
        XCTAssertEqual(
            format("{g, select, female {Her} male {His} other {Their}} turn, {name}", ["g": "female", "name": "Ada"]),
            "Her turn, Ada")
        XCTAssertEqual(format("{g, select, female {Her} other {Their}} turn", ["g": "x"]), "Their turn")
    }

    /// Issue 15: every language CLDR has, with its own forms (the hand-written rules fell back to
    /// English for Croatian, Romanian, Welsh...), through what an app calls.
    func testEveryLanguageChoosesItsOwnForm() {
        let all = "{n, plural, zero {zero} one {one} two {two} few {few} many {many} other {other}}"
        let cases: [(String, String, String)] = [
            ("hr", "21", "one"), ("sr", "21", "one"), ("ro", "2", "few"), ("lt", "21", "one"), ("lv", "0", "zero"),
            ("sl", "2", "two"), ("he", "2", "two"), ("ga", "5", "few"), ("cy", "6", "many"), ("mt", "3", "few"),
            ("pt-PT", "0", "other"), ("pt-BR", "0", "one"), ("fr", "1000000", "many"), ("es", "1000000", "many"),
            ("it", "1000000", "many"), ("pt", "1000000", "many"), ("ja", "1", "other"), ("ru", "21", "one"),
        ]
        for (language, n, form) in cases {
            XCTAssertEqual(format(all, ["n": n], language), form, "\(language) \(n)")
        }
    }

    /// A decimal count chooses by the digits the app passes (docs/pack-format.md, "Plural forms"),
    /// and `#` shows them with the language's decimal separator.
    func testADecimalCountChoosesByItsVisibleDigits() {
        let km = "{d, plural, one {# kilometre} other {# kilometres}}"
        XCTAssertEqual(format(km, ["d": "1"]), "1 kilometre")
        XCTAssertEqual(format(km, ["d": "1.5"]), "1.5 kilometres")
        XCTAssertEqual(format(km, ["d": "1.0"]), "1.0 kilometres", "English: one is 1 with no visible fraction")
        let fr = "{d, plural, one {# kilomètre} many {# de kilomètres} other {# kilomètres}}"
        XCTAssertEqual(format(fr, ["d": "1.5"], "fr"), "1,5 kilomètre", "French: one is 0 to 1.99...")
        XCTAssertEqual(format(fr, ["d": "2.5"], "fr"), "2,5 kilomètres")
        XCTAssertEqual(format(fr, ["d": "1000000"], "fr"), "1000000 de kilomètres")
        let ru = "{d, plural, one {# километр} few {# километра} many {# километров} other {# километра}}"
        XCTAssertEqual(format(ru, ["d": "2.5"], "ru"), "2,5 километра", "Russian fractions take other")
        XCTAssertEqual(format(ru, ["d": "5"], "ru"), "5 километров")
        let exact = "{n, plural, =0 {none} =1 {just one} other {# files}}"
        XCTAssertEqual(format(exact, ["n": "1.0"]), "just one", "=1 matches the value, as in ICU")
        XCTAssertEqual(format(exact, ["n": "0.00"]), "none")
        XCTAssertEqual(format(exact, ["n": "-1"]), "-1 files")
        XCTAssertEqual(format(km, ["d": "1,5"]), "1,5", "not a number the rules can read: the value as given")
    }
}

/// The one-file form a cached pack takes: a torn file is never mistaken for a whole one.
final class PackSlotTests: XCTestCase {
    func testRoundTripAndEveryTruncationIsRefused() {
        let slot = PackSlot(
            manifest: Array("{\"m\":1}".utf8), signature: Array("sig\n".utf8), pack: Array("{\"p\":2}".utf8))
        XCTAssertEqual(PackSlot(slot.bytes), slot)
        for cut in 0..<slot.bytes.count {
            XCTAssertNil(PackSlot(Array(slot.bytes.prefix(cut))), "cut at \(cut)")
        }
        XCTAssertNil(PackSlot(slot.bytes + [0x20]), "trailing bytes")
    }
}

/// ICU's apostrophes, as the importers write them (docs/import.md): what a device shows is what the
/// source catalog meant.
final class MessageFormatApostropheTests: XCTestCase {
    private func format(_ text: String, _ arguments: [String: String] = [:], _ language: String = "fr") -> String {
        MessageFormat.format(text, arguments, language: language)
    }

    func testADoubledApostropheIsOneAndALoneOneIsItself() {
        XCTAssertEqual(format("qu''{0, number} minute pour l''épisode", ["0": "3"]), "qu'3 minute pour l'épisode")
        XCTAssertEqual(format("l''app"), "l'app", "even with no argument at all")
        XCTAssertEqual(format("l'app {0}", ["0": "x"]), "l'app x", "an apostrophe before a letter is itself")
    }

    func testQuotedBracesAndHashAreText() {
        XCTAssertEqual(format("'{'name'}' is {0}", ["0": "Ada"]), "{name} is Ada")
        XCTAssertEqual(format("{0, plural, one {# fichier '#'1} other {# fichiers '#'2}}", ["0": "3"]), "3 fichiers #2")
        XCTAssertEqual(format("{0, plural, one {l''épisode #} other {les épisodes #}}", ["0": "1"]), "l'épisode 1")
    }

    func testAQuotedBraceDoesNotEndAPluralCase() {
        XCTAssertEqual(format("{0, plural, one {a '}' b} other {c '{' d #}}", ["0": "2"], "en"), "c { d 2")
    }

    /// MessageStyle: a `{{name}}` string keeps its apostrophes as packs in that form always showed
    /// them, and a string with ICU arguments reads no printf.
    func testTemplateStringsKeepApostrophesAndICUStringsReadNoPrintf() {
        XCTAssertEqual(format("Supprimer '{{name}}' ?", ["name": "Doc"]), "Supprimer 'Doc' ?")
        XCTAssertEqual(
            format("{0, number}%ige Steigerung bei {1}", ["0": "5", "1": "x"], "de"), "5%ige Steigerung bei x",
            "%i is text here")
        XCTAssertEqual(
            format("%d files, l'{{name}}", ["1": "5", "name": "x"], "fr"), "5 files, l'x",
            "printf is still read in a string without ICU arguments")
    }

    func testAFixedPrecisionSkeletonKeepsPrintfsDigits() {
        XCTAssertEqual(
            format("{0, number, ::.00} km", ["0": "3.14159"]), "3,14 km",
            "French writes a decimal comma, as Android and iOS do in French")
        XCTAssertEqual(format("{0, number, ::.00} km", ["0": "1234.5"], "en"), "1234.50 km", "no grouping, as printf")
        XCTAssertEqual(format("{0, number} km", ["0": "3.14159"]), "3.14159 km")
    }
}
