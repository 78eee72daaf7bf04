import RolloutModel
import XCTest

@testable import RolloutCLI

/// The one escaping rule for human output, and colour that survives it.
final class OutputTests: XCTestCase {
    func testColourSurvivesTheEscapingButUserTextCannotForgeIt() {
        let style = Style(enabled: true, token: "t0k3n")
        XCTAssertEqual(style.terminal(style.red("a\u{1B}[2Jb") + "\n"), "\u{1B}[31ma\\u{1B}[2Jb\u{1B}[0m\n")
        // A mark typed by a user (without this run's token) stays text, and ESC stays visible.
        XCTAssertEqual(style.terminal("x\u{E000}guess;31\u{E001}y\u{1B}"), "x\u{E000}guess;31\u{E001}y\\u{1B}")
        let plain = Style(enabled: false, token: "t0k3n")
        XCTAssertEqual(plain.terminal(plain.bold("b\u{7}")), "b\\u{7}")
    }

    func testHelpIsBoldOnATerminal() {
        var context = CommandContext.live()
        context.environment = ["TERM": "xterm"]
        context.stdoutIsTerminal = true
        let result = RolloutCLI.run(["help"], context: context)
        XCTAssertTrue(result.stdout.contains("\u{1B}[1mUsage:\u{1B}[0m"), result.stdout)
        XCTAssertFalse(result.stdout.contains("\u{E000}"), "no mark is left behind")
    }

    func testTheVisibleForms() {
        XCTAssertEqual(
            VisibleText.escape("a\nb\tc\rd\0e\u{1B}f\u{9B}g\u{202E}h\u{2066}i\u{FFFF}", lineBreaks: .kept),
            #"a"# + "\n" + #"b\tc\rd\0e\u{1B}f\u{9B}g\u{202E}h\u{2066}i\u{FFFF}"#)
        XCTAssertEqual("one\ntwo".oneLine, #"one\ntwo"#)
        XCTAssertEqual(
            "Ayşe ‎שלום".oneLine, "Ayşe ‎שלום", "letters and the directional marks RTL text needs are left alone")
        for value in Array(0x00...0x1F) + Array(0x7F...0x9F) + Array(0x202A...0x202E) + Array(0x2066...0x2069) {
            let scalar = Unicode.Scalar(value)!
            XCTAssertFalse(
                String(scalar).oneLine.unicodeScalars.contains(scalar), "U+\(String(value, radix: 16)) is shown visibly"
            )
        }
    }
}

/// docs/teams.md, "Credentials": no error a person or a script reads carries a URL's credential,
/// whatever it quotes.
final class ErrorRedactionTests: XCTestCase {
    func testNoErrorPrintsAURLsCredentialInTextOrJSON() {
        let error = RolloutError.permission(
            "cannot push to origin (https://x-access-token:ghs_S3CRET@github.com/m/p.git): fatal: Authentication failed for 'https://ghs_S3CRET@github.com/m/p.git/'"
        )
        for json in [false, true] {
            let result = RolloutCLI.failure(error, json: json, style: Style(enabled: false, token: "t"))
            XCTAssertEqual(result.exitCode, 77)
            XCTAssertFalse(result.stderr.contains("ghs_S3CRET"), result.stderr)
            XCTAssertTrue(result.stderr.contains("https://github.com/m/p.git"), result.stderr)
        }
    }
}
