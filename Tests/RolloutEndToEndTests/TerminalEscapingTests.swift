import Foundation
import XCTest

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Text from packs, CSV files, file names and the command line never reaches a terminal raw: every
/// control character and bidi control is shown visibly in human output, `--json` keeps the exact
/// text, and the report stays well-formed XML (docs/architecture.md, "Human output").
final class TerminalEscapingTests: XCTestCase {
    /// Every C0 control, DEL, every C1 control and the bidi embeddings, overrides and isolates.
    static let hostileScalars: [Unicode.Scalar] =
        (Array(0x00...0x1F) + [0x7F] + Array(0x80...0x9F) + Array(0x202A...0x202E) + Array(0x2066...0x2069))
        .map { Unicode.Scalar($0)! }
    /// All of them in one string, each between < and > (a command line cannot carry NUL, so
    /// `noNUL` leaves it out).
    static func hostile(noNUL: Bool = false) -> String {
        var text = String.UnicodeScalarView()
        for scalar in hostileScalars where !(noNUL && scalar.value == 0) {
            text.append("<")
            text.append(scalar)
            text.append(">")
        }
        return String(text)
    }

    /// All of them but NUL, bare: short enough for a file name.
    static let hostileFileName = String(String.UnicodeScalarView(hostileScalars.dropFirst()))

    func assertNothingRaw(_ result: RunResult, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for (stream, text) in [("stdout", result.stdout), ("stderr", result.stderr)] {
            let raw = text.unicodeScalars.filter { $0 != "\n" && Self.hostileScalars.contains($0) }
            XCTAssertEqual(
                raw.map { String($0.value, radix: 16) }, [],
                "\(what): raw control characters on \(stream): \(text.debugDescription)", file: file, line: line)
        }
    }

    func testPackLintAddAndShowShowControlCharactersVisiblyAndJSONKeepsThem() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let hostile = Self.hostile()
        // A key and a value with every control character: lint and add refuse them, naming them.
        var pack =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("tr-TR@18")))) as! [String: Any]
        pack.removeValue(forKey: "checksum")
        pack["contentVersion"] = 20
        var strings = pack["strings"] as! [String: Any]
        strings["k" + hostile] = "v"
        strings["home.title"] = hostile
        pack["strings"] = strings
        let name = "pack" + Self.hostileFileName + ".json"
        try w.scratch.write("work/" + name, try JSONSerialization.data(withJSONObject: pack))

        let lint = try w.rollout("pack", "lint", name)
        XCTAssertEqual(lint.status, 1, lint.output)
        XCTAssertTrue(lint.stdout.contains(#"\u{1B}"#), "ESC is shown as \\u{1B}: \(lint.stdout)")
        assertNothingRaw(lint, "pack lint")
        let lintJSON = try w.json(try w.rollout("pack", "lint", name, "--json"))
        let keys = (lintJSON["findings"] as? [[String: Any]] ?? []).compactMap { $0["key"] as? String }
        XCTAssertTrue(keys.contains("k" + hostile), "--json keeps the exact key: \(keys.map(\.debugDescription))")
        XCTAssertEqual(
            (lintJSON["packs"] as? [[String: Any]])?.first?["source"] as? String, name,
            "--json keeps the exact file name")

        let add = try w.rollout("pack", "add", name, "--reason", Self.hostile(noNUL: true))
        XCTAssertEqual(add.status, 65, add.output)
        assertNothingRaw(add, "pack add")
        let addJSON = try w.rollout("pack", "add", name, "--json")
        let message =
            ((try JSONSerialization.jsonObject(with: Data(addJSON.stderr.utf8)) as? [String: Any])?["error"]
            as? [String: Any])?["message"] as? String
        XCTAssertTrue(message?.contains("k" + hostile) == true, "--json errors keep the exact text: \(addJSON.stderr)")

        // What lint allows in a value (newlines, tabs, bidi isolates) and any approval text are
        // stored exactly and shown visibly.
        strings.removeValue(forKey: "k" + hostile)
        let allowed = "a\nb\tc\u{2067}d\u{2069}"
        strings["home.title"] = allowed
        pack["strings"] = strings
        try w.scratch.write("work/ok.json", try JSONSerialization.data(withJSONObject: pack))
        let approval = Self.hostile(noNUL: true)
        let added = try w.rollout("pack", "add", "ok.json", "--approved-by", approval, "--reason", approval)
        XCTAssertEqual(added.status, 0, added.output)
        assertNothingRaw(added, "pack add")
        let show = try w.rollout("pack", "show", "tr-TR@20", "--strings")
        XCTAssertEqual(show.status, 0, show.output)
        XCTAssertTrue(
            show.stdout.contains(#"a\nb\tc\u{2067}d\u{2069}"#), "one table cell, shown visibly: \(show.stdout)")
        assertNothingRaw(show, "pack show")
        let shown = try w.json(try w.rollout("pack", "show", "tr-TR@20", "--strings", "--json"))
        XCTAssertEqual(
            (shown["strings"] as? [String: Any])?["home.title"] as? String, allowed, "--json keeps the exact value")
        let log = try w.rollout("log")
        assertNothingRaw(log, "log")
        let approvedBy = try w.json(try w.rollout("pack", "show", "tr-TR@20", "--json"))["approvedBy"] as? String
        XCTAssertEqual(approvedBy, approval, "--json keeps the exact approval")
    }

    func testReasonsInTheLogAndStatusAreShownVisibly() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let reason = Self.hostile(noNUL: true)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%", "--reason", reason).status, 0)
        for arguments in [["log"], ["status", "tr-TR"], ["status"]] {
            let result = try w.rollout(arguments)
            XCTAssertEqual(result.status, 0, result.output)
            assertNothingRaw(result, arguments.joined(separator: " "))
        }
        // A commit trailer is one line, so the stored reason has spaces for line breaks; everything
        // else reaches --json exactly as typed, escaped only by JSON.
        let entries = try w.json(try w.rollout("log", "--json"))["changes"] as? [[String: Any]] ?? []
        let stored = try XCTUnwrap(
            entries.compactMap { $0["reason"] as? String }.first { $0.hasPrefix("<\u{1}>") }, "\(entries)")
        XCTAssertTrue(
            stored.contains("<\u{1B}>") && stored.contains("<\u{7}>") && stored.contains("<\u{202E}>")
                && stored.contains("<\u{9B}>"), stored.debugDescription)
        // An actor name with control characters is refused, and the refusal shows them visibly.
        let actor = try w.rollout("promote", "tr-TR@18", "--to", "20%", "--actor", "Ann" + reason)
        XCTAssertEqual(actor.status, 64, actor.output)
        assertNothingRaw(actor, "--actor")
    }

    func testIngestMessagesShowCSVFieldsAndFileNamesVisibly() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let hostile = Self.hostile()
        let name = "m" + Self.hostileFileName + ".csv"
        try w.scratch.write(
            "work/" + name,
            "date,locale,pack,region,app_version,sessions,crashes\n2026-11-25,tr\(hostile),tr-TR@17,TR,4.8.1,10,1\n")
        let result = try w.rollout("metrics", "ingest", "--kind", "crash", name)
        XCTAssertEqual(result.status, 65, result.output)
        assertNothingRaw(result, "metrics ingest")
        let json = try w.rollout("metrics", "ingest", "--kind", "crash", name, "--json")
        let message =
            ((try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: Any])?["error"]
            as? [String: Any])?["message"] as? String
        XCTAssertTrue(message?.hasPrefix(name) == true, "--json names the exact file: \(json.stderr)")
    }

    /// A quoted CSV field may hold a newline; in a row's message it must not start a line that
    /// looks like rollout's own.
    func testANewlineInAQuotedCSVFieldCannotFakeALineOfOutput() throws {
        let w = try Workspace()
        try w.initWithExamples()
        try w.scratch.write(
            "work/m.csv",
            "date,locale,pack,region,app_version,sessions,crashes\n2026-11-25,tr-TR,\"tr-TR@99\nm.csv:3: everything fine\",TR,4.8.1,10,1\n"
        )
        let result = try w.rollout("metrics", "ingest", "--kind", "crash", "m.csv")
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertFalse(
            result.stderr.split(separator: "\n").contains { $0.hasPrefix("m.csv:3: everything fine") }, result.stderr)
        XCTAssertTrue(result.stderr.contains(#"tr-TR@99\nm.csv:3"#), result.stderr)
    }

    func testTheReportIsWellFormedXMLForAReasonWithEveryControlCharacter() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let reason = Self.hostile(noNUL: true) + "\u{FFFE}\u{FFFF}"
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%", "--reason", reason).status, 0)
        let result = try w.rollout("report", "tr-TR", "--out", "report.html")
        XCTAssertEqual(result.status, 0, result.output)
        let page = try Data(contentsOf: URL(fileURLWithPath: w.work + "/report.html"))
        let parser = XMLParser(data: page)
        XCTAssertTrue(parser.parse(), "well-formed: \(String(describing: parser.parserError))")
        let text = String(decoding: page, as: UTF8.self)
        XCTAssertTrue(text.contains(#"&lt;\u{1B}&gt;"#), "ESC is shown visibly in the page")
        XCTAssertTrue(text.contains(#"\u{FFFE}\u{FFFF}"#), "so are the characters XML forbids")
    }
}
