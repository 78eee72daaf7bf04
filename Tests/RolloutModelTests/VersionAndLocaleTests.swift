import XCTest

@testable import RolloutModel

final class AppVersionTests: XCTestCase {
    func testComparesNumericallyNotAsText() throws {
        XCTAssertLessThan(AppVersion("4.9")!, AppVersion("4.10")!)
        XCTAssertLessThan(AppVersion("1.9")!, AppVersion("1.10")!)
        XCTAssertEqual(AppVersion("1.5")!, AppVersion("1.5.0")!)
        XCTAssertEqual(AppVersion("1.5")!.hashValue, AppVersion("1.5.0.0")!.hashValue)
        XCTAssertLessThan(AppVersion("4.8")!, AppVersion("4.8.1")!)
        XCTAssertEqual(AppVersion("04.8")!, AppVersion("4.8")!)
        XCTAssertEqual(AppVersion("4.8.0")!.description, "4.8.0", "the text round-trips")
        XCTAssertEqual(AppVersion("4.08")!.description, "4.08", "as written, so a checksum covers the file's text")
    }

    func testAnythingButDigitsAndDotsIsNotAVersion() {
        for text in [
            "", ".", "4.", ".4", "4..8", "4.8-beta", "v4.8", " 4.8", "4.8 ", "4,8", "1e2", "-1", "4.8.x", "１.２",
            "9999999999",
        ] {
            XCTAssertNil(AppVersion(text), text)
        }
    }

    /// Law: the order is total and agrees with comparing zero-padded component tuples.
    func testOrderIsATotalOrderConsistentWithNumericComparison() {
        var generator = SplitMix64(seed: 42)
        let versions: [AppVersion] = (0..<400).map { _ in
            AppVersion(components: (0..<Int(generator.next() % 4 + 1)).map { _ in Int(generator.next() % 12) })
        }
        func padded(_ v: AppVersion) -> [Int] { v.components + Array(repeating: 0, count: 4 - v.components.count) }
        for a in versions {
            for b in versions.prefix(60) {
                let expected = padded(a).lexicographicallyPrecedes(padded(b))
                XCTAssertEqual(a < b, expected, "\(a) < \(b)")
                XCTAssertEqual(a == b, padded(a) == padded(b), "\(a) == \(b)")
                XCTAssertEqual([a < b, a == b, b < a].filter { $0 }.count, 1, "exactly one of <, ==, > for \(a), \(b)")
            }
        }
        let sorted = versions.sorted()
        for (x, y) in zip(sorted, sorted.dropFirst()) { XCTAssertFalse(y < x) }
    }
}

final class LocaleTagTests: XCTestCase {
    func testAcceptsCanonicalTags() throws {
        for tag in ["tr", "tr-TR", "en-US", "zh-Hant-TW", "es-419", "ca-ES-valencia", "sr-Latn", "fil"] {
            XCTAssertEqual(try LocaleTag.parse(tag).description, tag)
        }
    }

    func testRefusesNonCanonicalCaseWithTheRightSpelling() {
        XCTAssertThrowsError(try LocaleTag.parse("tr-tr")) { error in
            XCTAssertEqual((error as? LocaleTag.ParseError)?.message, "locale \"tr-tr\" must be written \"tr-TR\"")
        }
        XCTAssertThrowsError(try LocaleTag.parse("zh-hant-tw"))
    }

    func testRefusesARepeatedVariantInAnyCase() throws {
        for text in ["de-1996-1996", "de-DE-1996-1996", "ca-ES-valencia-VALENCIA", "sl-rozaj-biske-rozaj"] {
            XCTAssertThrowsError(try LocaleTag.parse(text), text) { error in
                XCTAssertTrue((error as? LocaleTag.ParseError)?.message.contains("twice") == true, "\(text): \(error)")
            }
        }
        XCTAssertEqual(
            try LocaleTag.parse("sl-rozaj-biske").variants, ["rozaj", "biske"], "different variants stay allowed")
    }

    func testRefusesPathsAndGarbage() {
        for text in [
            "", "../tr", "tr/TR", "tr_TR", "t", "tr-", "-TR", "tr-TR-", "tr TR", "trTR", "x-private", "123", "tr-TR-a",
            "türk",
        ] {
            XCTAssertThrowsError(try LocaleTag.parse(text), text)
        }
    }

    func testTruncationParents() throws {
        XCTAssertEqual(try LocaleTag.parse("zh-Hant-TW").truncationParents, ["zh-Hant", "zh"])
        XCTAssertEqual(try LocaleTag.parse("tr-TR").truncationParents, ["tr"])
        XCTAssertEqual(try LocaleTag.parse("tr").truncationParents, [])
    }

    func testPackIDs() throws {
        XCTAssertEqual(try PackID.parse("tr-TR@18"), PackID(locale: "tr-TR", contentVersion: 18))
        for bad in ["tr-TR", "tr-TR@", "tr-TR@0", "tr-TR@-1", "tr-TR@1.5", "@18", "tr-tr@18", "tr-TR@18@1", "tr-TR@+5"]
        {
            XCTAssertThrowsError(try PackID.parse(bad), bad)
        }
    }
}

final class TimestampTests: XCTestCase {
    func testFormatsAndParsesISO8601UTC() {
        XCTAssertEqual(Timestamp(seconds: 0).description, "1970-01-01T00:00:00Z")
        XCTAssertEqual(Timestamp(seconds: 1_795_842_745).description, "2026-11-28T05:12:25Z")
        XCTAssertEqual(Timestamp(iso8601: "2026-11-28T05:12:25Z")?.seconds, 1_795_842_745)
        XCTAssertEqual(Timestamp(iso8601: "2026-11-28T08:12:25+03:00")?.seconds, 1_795_842_745)
        XCTAssertEqual(Timestamp(iso8601: "2024-02-29")?.description, "2024-02-29T00:00:00Z")
        for bad in [
            "2026-02-29", "2026-13-01", "2026-11-28T25:00:00Z", "yesterday", "2026-11-28T05:12:25",
            "2026-11-28 05:12:25Z",
        ] {
            XCTAssertNil(Timestamp(iso8601: bad), bad)
        }
    }

    func testRoundTripsAcrossCenturies() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let seconds = Int64(generator.next() % 8_000_000_000) - 2_000_000_000
            let stamp = Timestamp(seconds: seconds)
            XCTAssertEqual(Timestamp(iso8601: stamp.description), stamp, stamp.description)
        }
    }
}
