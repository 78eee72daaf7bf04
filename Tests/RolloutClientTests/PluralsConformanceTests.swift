import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// plurals.json of the conformance kit (docs/conformance.md): every language CLDR has rules for
/// gives each number the category the kit pins, both in the rules and in what a device shows for
/// a plural message, so a port that passes the same file chooses the same form.
final class PluralsConformanceTests: XCTestCase {
    private func plurals() throws -> [String: JSONValue] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/conformance/plurals.json")
        return try XCTUnwrap(StrictJSONParser.parse([UInt8](try Data(contentsOf: url))).objectValue)
    }

    func testEveryLanguageGivesEachNumberTheCategoryTheKitPins() throws {
        let file = try plurals()
        let numbers = (file["numbers"]?.arrayValue ?? []).compactMap(\.stringValue)
        let languages = try XCTUnwrap(file["languages"]?.objectValue)
        XCTAssertEqual(file["cldr"]?.stringValue, PluralRules.cldrVersion)
        XCTAssertGreaterThan(languages.count, 400, "every language CLDR has")
        let message = "{n, plural, zero {zero} one {one} two {two} few {few} many {many} other {other}}"
        var wrong: [String] = []
        for (language, groups) in languages {
            let rules = PluralRules(locale: language)
            var listed: [String] = []
            for (category, text) in groups.objectValue ?? [:] {
                let group = (text.stringValue ?? "").split(separator: " ").map(String.init)
                listed += group
                wrong += group.filter { PluralOperands($0).map(rules.category(for:))?.rawValue != category }
                    .map { "\(language) \($0) is not \(category)" }
                // What a device shows for one number of each category: the message takes the same path.
                if let number = group.first,
                    MessageFormat.format(message, ["n": number], language: language) != category
                {
                    wrong.append("\(language) \(number): a plural message does not show \(category)")
                }
            }
            XCTAssertEqual(listed.sorted(), numbers.sorted(), "\(language) lists each number once")
        }
        XCTAssertEqual(wrong, [])
    }
}
