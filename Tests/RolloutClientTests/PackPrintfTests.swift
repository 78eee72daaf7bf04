import RolloutModel
import XCTest

@testable import RolloutClient

/// The pack's printf, one reader for lint and devices (`PackPrintf`), and the importers' rule that
/// writes a literal `%` so that both show it as itself (docs/import.md, "Percent signs").
final class PackPrintfTests: XCTestCase {
    /// Model-based: for any text without braces or apostrophes (so it is read as printf), the
    /// device shows `literalPercents(text)` as exactly `text`, whatever arguments the app passes,
    /// and lint finds no placeholder in it. 20,000 strings over the characters printf reads,
    /// including a joiner after a conversion.
    func testALiteralPercentShowsAsItselfAndIsNoPlaceholder() {
        let alphabet = Array("%%%%ddsS@lq$1200.#- a\u{200C}é".unicodeScalars)
        var state: UInt64 = 0x5EED_0030
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let arguments = ["1": "A", "2": "B", "3": "C", "12": "L", "0": "Z"]
        for _ in 0..<20_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<(1 + next(12)) { scalars.append(alphabet[next(alphabet.count)]) }
            let text = String(scalars)
            let written = PackPrintf.literalPercents(text)
            XCTAssertEqual(MessageFormat.format(written, arguments, language: "en"), text, "written as \(written)")
            XCTAssertEqual(MessageSyntax.analyse(written).placeholders, [], "written as \(written)")
        }
    }

    /// A string with an ICU argument reads no printf: its `%` are already text, left as typed.
    func testAStringWithICUArgumentsIsLeftAsTyped() {
        XCTAssertEqual(PackPrintf.literalPercents("{0}%d of %%"), "{0}%d of %%")
        XCTAssertEqual(MessageFormat.format("{0}%d of %%", ["0": "7", "1": "x"], language: "en"), "7%d of %%")
        XCTAssertEqual(PackPrintf.literalPercents("50% off"), "50% off", "a % that starts nothing is kept as typed")
        XCTAssertEqual(PackPrintf.literalPercents("%b %-d, %I:%M:%S %p"), "%b %-d, %I:%M:%%S %p")
    }

    /// Lint and the device read the same specifiers: each one lint counts as a placeholder is
    /// one a device fills, and `%%` is one percent sign to both.
    func testLintAndTheDeviceReadTheSameSpecifiers() {
        for (text, placeholders, shown) in [
            ("%lld files", ["%1$d"], "A files"), ("%S", ["%1$S"], "A"), ("%02d:%02d", ["%1$d", "%2$d"], "A:B"),
            ("%.2f MB", ["%1$f"], "A MB"), ("%2$s\u{200C}ها", ["%2$s"], "B\u{200C}ها"), ("100%%", [], "100%"),
            ("%-d %+d % d %o %x %b", [], "%-d %+d % d %o %x %b"),
            ("%99999999999999999999$d", [], "%99999999999999999999$d"),
        ] {
            XCTAssertEqual(MessageSyntax.analyse(text).placeholders, Set(placeholders), text)
            XCTAssertEqual(MessageFormat.format(text, ["1": "A", "2": "B"], language: "en"), shown, text)
        }
    }
}
