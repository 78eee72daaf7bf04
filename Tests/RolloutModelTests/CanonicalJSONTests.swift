import Foundation
import XCTest

@testable import RolloutModel

/// RFC 8785 canonical form and the pack checksum, including vectors another language can check.
final class CanonicalJSONTests: XCTestCase {
    func testMembersAreSortedByUTF16CodeUnits() throws {
        // By code point U+FF5E comes before U+1F600; in UTF-16 the emoji is 0xD83D 0xDE00, which sorts first.
        let value: JSONValue = ["\u{FF5E}": 1, "😀": 2, "a": 3, "B": 4]
        XCTAssertEqual(JSONWriter.canonicalString(value), #"{"B":4,"a":3,"😀":2,"～":1}"#)
    }

    func testStringEscapingIsMinimal() {
        let value: JSONValue = .string("q\" b\\ \u{08}\u{0C}\n\r\t \u{01} \u{1F} \u{7F} \u{2028} é 😀 /")
        XCTAssertEqual(
            JSONWriter.canonicalString(value), "\"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0001 \\u001f \u{7F} \u{2028} é 😀 /\"")
    }

    func testNumbersUseTheECMAScriptForm() {
        let cases: [(Double, String)] = [
            (0, "0"), (-0.0, "0"), (1, "1"), (-1, "-1"), (17, "17"), (0.5, "0.5"), (0.1, "0.1"), (1e21, "1e+21"),
            (1e20, "100000000000000000000"), (123_456_789_012_345_680_000, "123456789012345680000"), (1e-7, "1e-7"),
            (0.000001, "0.000001"), (1.5e-10, "1.5e-10"), (4.5, "4.5"), (2e-3, "0.002"),
            (9_007_199_254_740_992, "9007199254740992"),
            (5e-324, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
            (333333333.33333329, "333333333.3333333"),
        ]
        for (value, expected) in cases {
            XCTAssertEqual(JSONWriter.formatNumber(value), expected, "\(value)")
        }
    }

    func testPrettyAndCanonicalAgreeOnContent() throws {
        let value: JSONValue = ["b": [1, "x"], "a": ["nested": true]]
        let pretty = JSONWriter.pretty(value)
        XCTAssertEqual(try StrictJSONParser.parse(pretty), value)
        XCTAssertEqual(
            JSONWriter.prettyString(value),
            "{\n  \"a\": {\n    \"nested\": true\n  },\n  \"b\": [\n    1,\n    \"x\"\n  ]\n}\n")
    }

    func testChecksumIgnoresFormattingAndMemberOrderButNotContent() throws {
        let a = try PackParser.parse(
            Array(
                #"{"locale":"tr","schemaVersion":2,"contentVersion":1,"minAppVersion":"4.8","strings":{"a":"x","b":"y"}}"#
                    .utf8), source: "a"
        ).pack
        let b = try PackParser.parse(
            Array(
                "\u{FEFF}{\n \"strings\": {\"b\": \"y\", \"a\": \"x\"},\n \"minAppVersion\": \"4.8\", \"contentVersion\": 1, \"schemaVersion\": 2, \"locale\": \"tr\"}"
                    .utf8), source: "b"
        ).pack
        XCTAssertEqual(a.checksum, b.checksum)
        var c = a
        c.strings["a"] = "X"
        XCTAssertNotEqual(a.checksum, c.checksum)
        // "4.8" and "4.8.0" are the same version but different text: the checksum covers the text.
        var d = a
        d.minAppVersion = AppVersion("4.8.0")!
        XCTAssertNotEqual(a.checksum, d.checksum)
    }

    func testStoredBytesRoundTripAndVerifyTheirOwnChecksum() throws {
        let pack = Pack(
            locale: "vi-VN", contentVersion: 3, minAppVersion: AppVersion("4.2.0")!, fallbackLocale: "en-US",
            strings: ["update.body": "Đã có phiên bản {{version}}"])
        let parsed = try PackParser.parse(pack.storedBytes, source: "stored")
        XCTAssertEqual(parsed.pack, pack)
        XCTAssertEqual(parsed.declaredChecksum, pack.checksum)
    }

    /// Published vectors (docs/pack-format.md), computed independently of this code.
    func testPublishedChecksumVectors() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/checksum-vectors.json")
        let vectors = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: String]])
        XCTAssertGreaterThanOrEqual(vectors.count, 6)
        for vector in vectors {
            let name = vector["name"] ?? "?"
            let input = try XCTUnwrap(vector["input"], name)
            let pack = try PackParser.parse(Array(input.utf8), source: name, verifyChecksum: false).pack
            XCTAssertEqual(String(decoding: pack.canonicalBytes, as: UTF8.self), vector["canonical"], name)
            XCTAssertEqual(pack.checksum, vector["checksum"], name)
        }
    }
}
