import XCTest

@testable import RolloutModel

/// `StrictJSONParser.parse(_:duplicates:)`, the reading catalogs get (i18next, ARB): a key given
/// twice with one value is one key, with different values it is left out and listed; `parse`
/// alone, for packs and manifests, still refuses every duplicate.
final class CatalogDuplicateKeysTests: XCTestCase {
    private func lenient(_ text: String) throws -> (JSONValue, [JSONDuplicateKey]) {
        var duplicates: [JSONDuplicateKey] = []
        let value = try StrictJSONParser.parse(Array(text.utf8), duplicates: &duplicates)
        return (value, duplicates)
    }

    func testTheSameValueTwiceIsOneKey() throws {
        let (value, duplicates) = try lenient("{\"a\": \"x\",\n\"a\": \"x\", \"b\": {\"c\": [1], \"c\": [1]}}")
        XCTAssertEqual(value, ["a": "x", "b": ["c": [1]]])
        XCTAssertEqual(duplicates, [])
        XCTAssertThrowsError(try StrictJSONParser.parse("{\"a\": \"x\",\n\"a\": \"x\"}"), "packs stay strict")
    }

    func testDifferentValuesLeaveOutThatKeyOnlyWithItsPathAndLines() throws {
        let (value, duplicates) = try lenient(
            "{\"keep\": \"k\",\n\"outer\": {\n\"t\": \"one\",\n\"u\": \"u\",\n\"t\": \"two\",\n\"t\": \"one\"}}")
        XCTAssertEqual(value, ["keep": "k", "outer": ["u": "u"]])
        XCTAssertEqual(duplicates, [JSONDuplicateKey(path: ["outer", "t"], lines: [3, 5, 6])])
    }

    func testEverythingElseIsRefusedAsBefore() throws {
        XCTAssertThrowsError(try lenient("{\"a\": \"x\" \"a\": \"y\"}"))
        XCTAssertThrowsError(try lenient("{\"a\": \"\\ud800\"}"))
    }
}
