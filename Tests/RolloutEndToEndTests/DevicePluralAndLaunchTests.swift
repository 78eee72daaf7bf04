import Foundation
import XCTest

/// Issue 31, items 14 to 16, played with `rollout device` against what `rollout publish` wrote:
/// plural rules by the whole locale (pt-PT is not pt), by the locale the text came from (not the
/// device's), and `launch-succeeded` reporting what it confirmed.
final class DevicePluralAndLaunchTests: XCTestCase {
    /// Item 15: lookup mixes languages on purpose; the en-US pack's plural is English whatever the
    /// device's language (Ukrainian `one` holds 21, Japanese has only `other`).
    func testTextFromAnotherLocalesPackTakesThatLocalesPluralRules() throws {
        let world = try DeviceWorld()
        for (locale, count, expected) in [
            ("uk-UA", "21", "21 files"), ("ja-JP", "1", "1 file"), ("uk-UA", "1", "1 file"),
        ] {
            try world.update(locale, locale: locale)
            let shown = try world.device(locale, locale: locale, "get", "files.count", "--arg", "count=\(count)")
            XCTAssertEqual(shown.status, 0, shown.output)
            XCTAssertEqual(shown.stdout, expected + "\n", "a \(locale) device showing the en-US pack")
        }
    }

    /// Item 14: Portugal's rules (0 and 1.5 are `other`) for pt-PT, pt-AO and pt-Latn-PT; Brazil's for pt.
    func testPortugalsPluralRulesForPortugalNotBrazils() throws {
        let world = try DeviceWorld()
        let plural = "{n, plural, one {# ficheiro} other {# ficheiros}}"
        for locale in ["pt-PT", "pt-AO", "pt-Latn-PT", "pt-BR"] {
            try world.w.scratch.write("bundled/\(locale).json", #"{"files": "\#(plural)"}"#)
        }
        let cases: [(String, String, String)] = [
            ("pt-PT", "0", "0 ficheiros"), ("pt-PT", "1", "1 ficheiro"), ("pt-PT", "1.5", "1,5 ficheiros"),
            ("pt-AO", "0", "0 ficheiros"), ("pt-Latn-PT", "1.5", "1,5 ficheiros"),
            ("pt-BR", "0", "0 ficheiro"), ("pt-BR", "1.5", "1,5 ficheiro"),
        ]
        for (locale, count, expected) in cases {
            let shown = try world.device("phone", locale: locale, "get", "files", "--arg", "n=\(count)")
            XCTAssertEqual(shown.status, 0, shown.output)
            XCTAssertEqual(shown.stdout, expected + "\n", "\(locale), \(count)")
        }
    }

    /// Item 16: `launch; launch-succeeded; refresh --force; activate; launch-succeeded` printed
    /// "Launch succeeded with tr-TR@18." while status listed tr-TR@18 awaiting success.
    func testLaunchSucceededReportsWhatItConfirmedNotWhatIsActive() throws {
        let world = try DeviceWorld()
        try world.update("phone")
        XCTAssertEqual(try world.device("phone", "launch").status, 0)
        let first = try world.device("phone", "launch-succeeded")
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertEqual(first.stdout, "Launch succeeded with en-US@1, tr@1, tr-TR@17.\n")

        try world.rollout("promote", "tr-TR@18", "--to", "100%", "--force", "--reason", "typo fix")
        try world.publish()
        try world.update("phone")
        XCTAssertEqual(try world.activePack("phone"), "tr-TR@18")
        let second = try world.device("phone", "launch-succeeded")
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertEqual(
            second.stdout,
            "Nothing to confirm: the last launch succeeded already. tr-TR@18 stays on trial until a launch that "
                + "begins with it succeeds (launch, then launch-succeeded).\n")
        let json = try world.w.json(try world.device("phone", "launch-succeeded", "--json"))
        XCTAssertTrue(json["confirmed"] is NSNull, "\(json)")
        XCTAssertEqual(json["awaitingSuccess"] as? [String], ["tr-TR@18"])
        let launch = try XCTUnwrap(try world.status("phone")["launch"] as? [String: Any])
        XCTAssertEqual(launch["awaitingSuccess"] as? [String], ["tr-TR@18"], "still on trial, as reported")

        // A launch that begins with it, then succeeds: that confirms it.
        XCTAssertEqual(try world.device("phone", "launch").status, 0)
        let third = try world.w.json(try world.device("phone", "launch-succeeded", "--json"))
        XCTAssertEqual(third["confirmed"] as? [String], ["en-US@1", "tr@1", "tr-TR@18"])
        XCTAssertEqual(third["awaitingSuccess"] as? [String], [])
    }
}
