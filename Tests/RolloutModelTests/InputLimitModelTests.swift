import Foundation
import RolloutModel
import XCTest

/// The input limits of issue 31 (docs/reliability.md, "Input limits") where they are parsed: each
/// at the limit and one past it.
final class InputLimitModelTests: XCTestCase {
    /// A 64-byte tag (language, region, six variants and a four-character one) is a locale; one
    /// byte more is refused for its length, before anything else is read from it.
    func testALocaleIsReadUpToItsLimitAndRefusedOnePast() throws {
        let atLimit = "tr-TR-aaaaaaaa-bbbbbbbb-cccccccc-dddddddd-eeeeeeee-ffffffff-1abc"
        XCTAssertEqual(atLimit.utf8.count, InputLimits.localeBytes)
        XCTAssertEqual(try LocaleTag.parse(atLimit).description, atLimit)
        let past = "tr-TR-aaaaaaaa-bbbbbbbb-cccccccc-dddddddd-eeeeeeee-ffffffff-ggggg"
        XCTAssertEqual(past.utf8.count, InputLimits.localeBytes + 1)
        XCTAssertThrowsError(try LocaleTag.parse(past)) { error in
            XCTAssertEqual(error as? LocaleTag.ParseError, .tooLong(past))
            XCTAssertTrue(
                (error as? LocaleTag.ParseError)?.message.contains("a locale is 65 bytes, over the limit of 64") == true
            )
        }
        XCTAssertNil(LocaleTag.canonical(spelling: String(repeating: "a", count: 60_000)))
    }

    /// An app-version range is read up to 168 bytes (two versions of 80 and their operators).
    func testAVersionRangeIsReadUpToItsLimit() throws {
        let atLimit = ">=4.8" + String(repeating: " ", count: InputLimits.versionRangeBytes - 5)
        XCTAssertEqual(try VersionRange.parse(atLimit).description, ">=4.8")
        XCTAssertThrowsError(try VersionRange.parse(atLimit + " ")) { error in
            XCTAssertTrue(
                (error as? RolloutError)?.message.contains("is 169 bytes, over the limit of 168") == true, "\(error)")
        }
        let longest = Array(repeating: "999999999", count: AppVersion.maximumComponents).joined(separator: ".")
        XCTAssertLessThanOrEqual(longest.utf8.count, InputLimits.appVersionBytes)
        XCTAssertNotNil(AppVersion(longest))
        XCTAssertNil(AppVersion(String(repeating: "1", count: InputLimits.appVersionBytes + 1)))
    }

    /// 60,000 characters are refused in well under a second, and the message quotes 200 of them.
    func testASixtyThousandCharacterLocaleIsRefusedAtOnceWithAShortMessage() throws {
        let text = String(repeating: "a", count: 60_000)
        let start = Date()
        XCTAssertThrowsError(try LocaleTag.parse(text)) { error in
            let message = (error as? LocaleTag.ParseError)?.message ?? ""
            XCTAssertLessThan(message.count, 400, message)
            XCTAssertTrue(message.contains("… (60000 characters)"), message)
        }
        XCTAssertThrowsError(try PackID.parse(text + "@1"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 1)
    }

    func testAWordIsEchoedWholeUpToTheLimitAndCutPastIt() {
        let atLimit = String(repeating: "x", count: InputLimits.echoCharacters)
        XCTAssertEqual(InputLimits.echo(atLimit), atLimit)
        XCTAssertEqual(InputLimits.shortenedWords("region \"\(atLimit)\" is bad"), "region \"\(atLimit)\" is bad")
        let past = atLimit + "yz"
        XCTAssertEqual(InputLimits.echo(past), atLimit + "… (202 characters)")
        let five = String(repeating: "x", count: 5_000)
        XCTAssertEqual(
            InputLimits.shortenedWords("region \"\(five)\": is not\na region"),
            "region \"\(atLimit)… (5000 characters)\": is not\na region")
        // A message that already quotes an echo is left as it is.
        let echoed = "locale \"\(InputLimits.echo(five))\" is bad"
        XCTAssertEqual(InputLimits.shortenedWords(echoed), echoed)
    }

    /// One duration grammar (`30m`, `12h`, `7d`, `2w`) for every flag, each with its own maximum;
    /// a duration longer than it says so, rather than "not a duration".
    func testOneDurationGrammarWithATooLongReadingOfItsOwn() throws {
        XCTAssertEqual(TimeSpan.read("2w", maximum: InputLimits.longestRampStep), .seconds(1_209_600))
        XCTAssertEqual(TimeSpan.read("365d", maximum: InputLimits.longestRampStep), .seconds(31_536_000))
        XCTAssertEqual(TimeSpan.read("366d", maximum: InputLimits.longestRampStep), .tooLong)
        XCTAssertEqual(TimeSpan.read("36600d", maximum: TimeSpan.maximumSeconds), .seconds(TimeSpan.maximumSeconds))
        XCTAssertEqual(TimeSpan.read("36601d", maximum: TimeSpan.maximumSeconds), .tooLong)
        XCTAssertEqual(TimeSpan.read("99999999d", maximum: TimeSpan.maximumSeconds), .tooLong)
        XCTAssertEqual(TimeSpan.read("99999999999999999999999w", maximum: TimeSpan.maximumSeconds), .tooLong)
        XCTAssertEqual(TimeSpan.read("000000000000000000000007d", maximum: TimeSpan.maximumSeconds), .seconds(604_800))
        for text in ["", "7", "0d", "-7d", "7s", "1.5h", "soon", "٧d"] {
            XCTAssertEqual(TimeSpan.read(text, maximum: TimeSpan.maximumSeconds), .notADuration, text)
        }
    }

    private func pack(contentVersion: String) -> [UInt8] {
        Array(
            #"{"locale":"tr-TR","schemaVersion":2,"contentVersion":\#(contentVersion),"minAppVersion":"1.0","strings":{"a":"b"}}"#
                .utf8)
    }

    /// A whole number too large for an integer is out of range, not "not an integer".
    func testAHugeContentVersionIsOutOfRangeNotNotAnInteger() throws {
        XCTAssertEqual(
            try PackParser.parse(pack(contentVersion: "1000000000"), source: "p.json").pack.contentVersion,
            1_000_000_000)
        for literal in ["1000000001", "9223372036854775807", "9223372036854775808", "-9223372036854775809"] {
            XCTAssertThrowsError(try PackParser.parse(pack(contentVersion: literal), source: "p.json")) { error in
                XCTAssertEqual(
                    (error as? RolloutError)?.message,
                    "p.json: \"contentVersion\" must be between 1 and 1000000000, found \(literal)")
            }
        }
        XCTAssertThrowsError(try PackParser.parse(pack(contentVersion: "1.5"), source: "p.json")) { error in
            XCTAssertTrue((error as? RolloutError)?.message.contains("must be an integer") == true, "\(error)")
        }
    }

    /// A pack saved as UTF-16 or UTF-32 is named for its encoding, not for its first byte.
    func testAWideEncodingIsNamed() throws {
        let text = String(decoding: pack(contentVersion: "1"), as: UTF8.self)
        let encodings: [(String.Encoding, String)] = [
            (.utf16, "UTF-16 (it starts with a byte order mark)"), (.utf16LittleEndian, "UTF-16"),
            (.utf16BigEndian, "UTF-16"), (.utf32, "UTF-32 (it starts with a byte order mark)"),
            (.utf32LittleEndian, "UTF-32"),
        ]
        for (encoding, name) in encodings {
            let bytes = Array(text.data(using: encoding)!)
            XCTAssertThrowsError(try PackParser.parse(bytes, source: "p.json")) { error in
                XCTAssertEqual(
                    (error as? RolloutError)?.message,
                    "p.json:1:1: the file is \(name), and JSON is read as UTF-8 (RFC 8259); save it as UTF-8",
                    "\(encoding)")
            }
        }
        XCTAssertNoThrow(try PackParser.parse([0xEF, 0xBB, 0xBF] + pack(contentVersion: "1"), source: "p.json"))
    }
}
