import XCTest

@testable import RolloutModel

/// The parser refuses everything on which two JSON parsers could disagree, and says where.
final class StrictJSONParserTests: XCTestCase {
    private func error(_ text: String) -> JSONParseError? {
        error(Array(text.utf8))
    }

    private func error(_ bytes: [UInt8]) -> JSONParseError? {
        do {
            _ = try StrictJSONParser.parse(bytes)
            return nil
        } catch let e as JSONParseError {
            return e
        } catch {
            XCTFail("unexpected \(error)")
            return nil
        }
    }

    func testParsesEveryKindOfValue() throws {
        let value = try StrictJSONParser.parse(
            #"{"a": [1, -2.5e3, true, false, null, "x\n\u00e7\ud83d\ude00"], "b": {}}"#)
        guard case .object(let o) = value, case .array(let items) = o["a"] else { return XCTFail("\(value)") }
        XCTAssertEqual(items[0].integerValue, 1)
        XCTAssertEqual(items[1], .number(JSONNumber(-2500.0)))
        XCTAssertNil(items[1].integerValue, "an exponent means it was not written as an integer")
        XCTAssertEqual(items[2], .bool(true))
        XCTAssertEqual(items[4], .null)
        XCTAssertEqual(items[5], .string("x\nç😀"))
        XCTAssertEqual(o["b"], .object([:]))
    }

    func testDuplicateKeysAreRefusedWithBothLines() {
        let e = error("{\n  \"k\": 1,\n  \"k\": 2\n}")
        XCTAssertEqual(e?.message, "duplicate key \"k\" (first defined on line 2)")
        XCTAssertEqual(e?.line, 3)
        XCTAssertEqual(e?.column, 3)
    }

    func testDuplicatesAreFoundAfterEscapesAreDecoded() {
        XCTAssertEqual(error(#"{"é": 1, "\u00e9": 2}"#)?.message, "duplicate key \"é\" (first defined on line 1)")
    }

    func testKeysEqualOnlyUpToNormalisationAreRefusedAndSaidSo() {
        XCTAssertEqual(
            error("{\"caf\u{E9}\": 1, \"cafe\u{301}\": 2}")?.message,
            "duplicate key \"cafe\u{301}\" (first defined on line 1 as the same text in another Unicode normalisation form)"
        )
    }

    func testNumbersKeepTheirText() throws {
        guard case .number(let n) = try StrictJSONParser.parse("99999999999999999999") else { return XCTFail() }
        XCTAssertNil(n.integerValue, "too large for Int")
        XCTAssertEqual(n.literal, "99999999999999999999")
        // Beyond 2^53 an integer is not read exactly by every parser (RFC 7493): not an integer here.
        guard case .number(let m) = try StrictJSONParser.parse("9007199254740993") else { return XCTFail() }
        XCTAssertNil(m.integerValue)
    }

    func testInvalidUTF8IsRefused() {
        let cases: [[UInt8]] = [
            [0x22, 0xC3, 0x28, 0x22],  // lead byte without continuation
            [0x22, 0xC0, 0xAF, 0x22],  // overlong '/'
            [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong 3-byte
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // surrogate U+D800 encoded
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xFF, 0x22],
            [0x22, 0xE2, 0x82, 0x22],  // truncated
        ]
        for bytes in cases {
            XCTAssertTrue(
                error(bytes)?.message.hasPrefix("invalid UTF-8") == true,
                "\(bytes): \(String(describing: error(bytes)))")
        }
        XCTAssertNil(error([0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22]), "a valid 4-byte sequence is fine")
    }

    func testLoneSurrogateEscapesAreRefused() {
        XCTAssertTrue(error(#""\ud800""#)?.message.contains("unpaired surrogate") == true)
        XCTAssertTrue(error(#""\udc00""#)?.message.contains("unpaired surrogate") == true)
        XCTAssertTrue(error(#""\ud800\u0041""#)?.message.contains("unpaired surrogate") == true)
    }

    func testGrammarViolations() {
        let cases: [(String, String)] = [
            ("{\"a\": 1,}", "expected a quoted key"),
            ("[1,]", "where a value should start"),
            ("01", "leading zeros"),
            ("1.", "digits must follow '.'"),
            ("{} {}", "unexpected content after the end"),
            ("\"a\tb\"", "must be escaped"),
            ("\"\\x\"", "invalid escape"),
            ("tru", "invalid literal"),
            ("NaN", "where a value should start"),
            ("1e999", "out of range"),
            ("{\"a\" 1}", "expected ':'"),
            ("", "unexpected end of document"),
            (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), "nesting deeper than 64"),
        ]
        for (text, message) in cases {
            XCTAssertTrue(error(text)?.message.contains(message) == true, "\(text): \(String(describing: error(text)))")
        }
        XCTAssertNil(error(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)), "64 levels are fine")
    }

    func testAByteOrderMarkIsSkipped() throws {
        XCTAssertEqual(try StrictJSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)), .array([.integer(1)]))
    }

    func testColumnsCountCharactersNotBytes() {
        // "ş" is two bytes; the error is at the third character of line 1.
        let e = error("\"ş\" x")
        XCTAssertEqual(e?.column, 5)
    }
}
