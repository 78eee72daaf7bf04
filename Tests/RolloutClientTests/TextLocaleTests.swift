import Foundation
import XCTest

@testable import RolloutClient
@testable import RolloutModel

/// Issue 31, items 14 and 15: a locale's plural rules are chosen by the whole locale, CLDR's parent
/// locales included (pt-PT, pt-AO: Portugal's; pt: Brazil's), and text is formatted in the locale of
/// the pack or bundle it came from, not the device's (formatting.json's lookups).
final class TextLocaleTests: XCTestCase {
    private func vectors(_ name: String) throws -> [String: JSONValue] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/conformance/\(name)")
        return try XCTUnwrap(StrictJSONParser.parse([UInt8](try Data(contentsOf: url))).objectValue, name)
    }

    private func client(bundled: [String: [String: String]], locale: String) -> RolloutClient {
        var options = RolloutClient.Options()
        options.defaultLocale = "en-US"
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("device-text-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: cache) }
        return RolloutClient(
            bundled: bundled, cacheDirectory: cache, manifestURL: URL(string: "https://site.example/app/index.json")!,
            publicKey: "", appVersion: "4.8.1", region: "PT", locale: locale, options: options)
    }

    func testTextIsFormattedInTheLocaleOfTheBundleItCameFromAsTheVectorsSay() throws {
        let cases = try vectors("formatting.json")["lookups"]?.arrayValue ?? []
        XCTAssertGreaterThanOrEqual(cases.count, 6)
        for c in cases.compactMap(\.objectValue) {
            let bundled = (c["bundled"]?.objectValue ?? [:]).mapValues {
                ($0.objectValue ?? [:]).mapValues { $0.stringValue ?? "" }
            }
            let device = client(bundled: bundled, locale: c["locale"]?.stringValue ?? "")
            let arguments = (c["arguments"]?.objectValue ?? [:]).mapValues { $0.stringValue ?? "" }
            XCTAssertEqual(
                device.string(c["key"]?.stringValue ?? "", arguments), c["expected"]?.stringValue,
                c["name"]?.stringValue ?? "")
        }
    }

    func testPortugalsRulesAreChosenByTheWholeLocale() {
        for locale in [
            "pt-PT", "pt_PT", "pt-AO", "pt-MZ", "pt-Latn-PT", "pt-PT-u-nu-latn", "PT-pt.UTF-8", "pt_AO@euro",
        ] {
            for number in ["0", "0.0", "1.5"] {
                XCTAssertEqual(PluralRules.category(for: number, language: locale), .other, "\(locale) \(number)")
            }
            XCTAssertEqual(PluralRules.category(for: "1", language: locale), .one, locale)
        }
        for locale in ["pt", "pt-BR", "pt-Latn-BR", "pt-US-x-private"] {
            XCTAssertEqual(PluralRules.category(for: "0", language: locale), .one, locale)
            XCTAssertEqual(PluralRules.category(for: "1.5", language: locale), .one, locale)
        }
        XCTAssertEqual(
            PluralRules.lookupTags("pt-Latn-PT-u-nu-latn"), ["pt-pt-u-nu-latn", "pt-pt-u-nu", "pt-pt-u", "pt-pt", "pt"])
        XCTAssertEqual(PluralRules.lookupTags("sr_Latn_RS.UTF-8"), ["sr-rs", "sr"])
        XCTAssertEqual(PluralRules.lookupTags(""), [])
    }

    /// A device in pt-PT formats its own text by Portugal's rules, and the default locale's English
    /// by English rules (the snapshot used to hand the formatter the device's language alone).
    func testAPortugueseDeviceFormatsEachTextInItsOwnLocale() {
        let device = client(
            bundled: [
                "pt-PT": ["files": "{n, plural, one {# ficheiro} other {# ficheiros}}"],
                "en-US": ["items": "{n, plural, one {# item} other {# items}}"],
            ], locale: "pt-PT")
        XCTAssertEqual(device.string("files", ["n": "0"]), "0 ficheiros")
        XCTAssertEqual(device.string("files", ["n": "1.5"]), "1,5 ficheiros")
        XCTAssertEqual(device.string("files", ["n": "1"]), "1 ficheiro")
        XCTAssertEqual(device.string("items", ["n": "0"]), "0 items")
        XCTAssertEqual(device.string("items", ["n": "1.5"]), "1.5 items")
        // The app's own fallback is in no known locale: the device's formats it.
        XCTAssertEqual(device.string("missing", ["n": "0"], fallback: "{n, plural, one {um} other {outro}}"), "outro")
    }
}
