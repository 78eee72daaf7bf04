import RolloutModel
import XCTest

/// Durations as `--expires` and `--overlap` take them (docs/keys.md): a positive whole number and
/// one unit, nothing a typo could turn into "forever" or "never".
final class TimeSpanTests: XCTestCase {
    func testEachUnitCountsInSeconds() {
        XCTAssertEqual(TimeSpan.parse("30m"), 1_800)
        XCTAssertEqual(TimeSpan.parse("12h"), 43_200)
        XCTAssertEqual(TimeSpan.parse("7d"), 604_800)
        XCTAssertEqual(TimeSpan.parse("2w"), 1_209_600)
        XCTAssertEqual(TimeSpan.parse("365d"), 31_536_000)
        XCTAssertEqual(TimeSpan.parse("1m"), 60)
    }

    func testAnythingElseIsRefused() {
        for text in [
            "", "7", "d", "0d", "-7d", "+7d", "7D", "7 d", " 7d", "7d ", "1.5h", "7s", "7y", "7dd", "٧d", "0x10m",
        ] {
            XCTAssertNil(TimeSpan.parse(text), text)
        }
        XCTAssertEqual(TimeSpan.parse("07d"), 604_800, "a leading zero is still a whole number")
    }

    func testHugeSpansNeverOverflowAndStayWithinAHundredYears() {
        XCTAssertNil(TimeSpan.parse("99999999999999999999w"))
        XCTAssertNil(TimeSpan.parse("9223372036854775807m"))
        XCTAssertNil(TimeSpan.parse("15250284452471w"), "overflows Int64 seconds")
        XCTAssertNil(TimeSpan.parse("36601d"))
        XCTAssertEqual(TimeSpan.parse("36600d"), TimeSpan.maximumSeconds)
        // The largest span added to the largest year a time is written in stays representable.
        let latest = Timestamp(iso8601: "9899-01-01T00:00:00Z")!
        XCTAssertNotNil(Timestamp(iso8601: Timestamp(seconds: latest.seconds + TimeSpan.maximumSeconds).description))
    }

    func testDescribeUsesTheLargestWholeUnit() {
        XCTAssertEqual(TimeSpan.describe(604_800), "1 week")
        XCTAssertEqual(TimeSpan.describe(1_209_600), "2 weeks")
        XCTAssertEqual(TimeSpan.describe(86_400 * 3), "3 days")
        XCTAssertEqual(TimeSpan.describe(5_400), "90 minutes")
        XCTAssertEqual(TimeSpan.describe(3_600), "1 hour")
        XCTAssertEqual(TimeSpan.describe(61), "61 seconds")
        XCTAssertEqual(TimeSpan.describe(0), "0 seconds")
    }

    func testParseAndDescribeAgree() {
        for text in ["30m", "12h", "7d", "2w", "90m", "36h", "10d"] {
            let seconds = TimeSpan.parse(text)!
            XCTAssertEqual(TimeSpan.parse(describeAsFlag(TimeSpan.describe(seconds))), seconds, text)
        }
    }

    private func describeAsFlag(_ text: String) -> String {
        let parts = text.split(separator: " ")
        return "\(parts[0])\(parts[1].first!)"
    }
}
