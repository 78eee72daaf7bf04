import Foundation
import XCTest

/// The contracts every command keeps (docs/architecture.md, "Help and usage errors", "Exit codes",
/// "--json"): help, --json, exit codes, colour.
// Processes: exit statuses and streams as a shell sees them, colour on a real terminal.
final class CLIContractTests: XCTestCase {
    func testHelpExistsForEveryCommandInEveryForm() throws {
        let w = try Workspace(process: true)
        let overview = try w.rollout("help", "--json")
        XCTAssertEqual(overview.status, 0, overview.output)
        let commands = try XCTUnwrap(try w.json(overview)["commands"] as? [[String: Any]]).compactMap {
            $0["name"] as? String
        }
        XCTAssertTrue(commands.contains("pack add") && commands.contains("init"), "\(commands)")
        for command in commands where command != "help" && command != "version" {
            let words = command.split(separator: " ").map(String.init)
            let viaHelp = try w.rollout(["help"] + words)
            XCTAssertEqual(viaHelp.status, 0, "\(command): \(viaHelp.output)")
            XCTAssertTrue(viaHelp.stdout.hasPrefix("Usage: rollout \(command)"), "\(command): \(viaHelp.stdout)")
            XCTAssertEqual(try w.rollout(words + ["--help"]).stdout, viaHelp.stdout, command)
        }
        XCTAssertTrue(try w.rollout().stdout.contains("Commands:"), "no arguments prints the overview")
    }

    func testVersion() throws {
        let w = try Workspace(process: true)
        let text = try w.rollout("--version")
        XCTAssertEqual(text.status, 0)
        XCTAssertTrue(text.stdout.hasPrefix("rollout 0."), text.stdout)
        XCTAssertTrue(text.stdout.contains("libgit2 1."), text.stdout)
        XCTAssertNotNil(try w.json(try w.rollout("--version", "--json"))["libgit2"])
    }

    func testEveryCommandPrintsOneJSONDocumentWithJson() throws {
        let w = try Workspace(process: true)
        let created = try w.rollout("init", "--json")
        XCTAssertEqual(created.status, 0, created.output)
        XCTAssertNotNil(try w.json(created)["commit"])
        let invocations: [[String]] = [
            ["pack", "lint"] + Fixtures.allExamplePacks,
            ["pack", "add"] + Fixtures.allExamplePacks,
            ["pack", "list"], ["pack", "list", "tr-TR"], ["pack", "show", "tr-TR@18", "--strings"],
            ["pack", "diff", "tr-TR@17", "tr-TR@18"], ["pack", "checksum", Fixtures.examplePack("vi-VN@3")],
            ["policy", "show"], ["help", "pack", "add"],
        ]
        for arguments in invocations {
            let result = try w.rollout(arguments + ["--json"])
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.output)")
            XCTAssertNoThrow(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)), "\(arguments): \(result.stdout)")
            XCTAssertEqual(result.stderr, "", "\(arguments)")
        }
    }

    func testErrorsUnderJsonAreJSONOnStderrWithTheDocumentedCode() throws {
        let w = try Workspace(process: true)
        try w.initWithExamples()
        // An error about one option names it, from its declaration: the parser's (unknown, twice,
        // empty) and its value type's (a share over 100%, a time that is no time) alike.
        let cases: [([String], Int32, String, String?)] = [
            (["pack", "show", "tr-TR@99"], 66, "missing", nil),
            (["pack", "add", Fixtures.directory + "/hostile/wrong-checksum.json"], 65, "bad-input", nil),
            (["pack", "list", "--colour"], 64, "usage", "--colour"),
            (["pack", "add", "x.json", "--reason", "a", "--reason=b"], 64, "usage", "--reason"),
            (["promote", "tr-TR@18", "--to", "150%"], 64, "usage", "--to"),
            (["log", "--since", "yesterday-ish"], 64, "usage", "--since"),
            (["promote", "tr-TR@18", "--to", "5%", "--region", "TR,,DE"], 64, "usage", "--region"),
        ]
        for (arguments, status, code, option) in cases {
            let result = try w.rollout(arguments + ["--json"])
            XCTAssertEqual(result.status, status, "\(arguments): \(result.output)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
            let document = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(result.stderr.utf8)) as? [String: Any])
            let error = try XCTUnwrap(document["error"] as? [String: Any])
            XCTAssertEqual(error["code"] as? String, code, "\(arguments)")
            XCTAssertFalse((error["message"] as? String ?? "").isEmpty)
            XCTAssertEqual(error["option"] as? String, option, "\(arguments): \(result.stderr)")
        }
    }

    func testUsageErrorsAreExit64AndSuggestTheNextStep() throws {
        let w = try Workspace(process: true)
        let cases: [([String], String)] = [
            (["pack", "add", "x.json", "--jsno"], "unknown option --jsno for rollout pack add (did you mean --json?)"),
            (["pakc", "list"], "unknown command \"pakc\" (did you mean pack?)"),
            (["pack", "ad"], "(did you mean add?)"),
            (["pack"], "pack needs a subcommand"),
            (["pack", "add"], "rollout pack add needs FILE"),
            (["pack", "show", "a@1", "b@2"], "takes at most 1 argument"),
            (["pack", "add", "x.json", "--reason"], "option --reason needs a value (TEXT)"),
            (["pack", "list", "--json=yes"], "option --json takes no value"),
            (["pack", "add", "x.json", "--reason", "a", "--reason", "b"], "option --reason is given twice"),
        ]
        for (arguments, message) in cases {
            let result = try w.rollout(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): expected \"\(message)\" in \(result.stderr)")
        }
    }

    func testOptionsTakeBothSpellingsAndDoubleDashEndsOptions() throws {
        let w = try Workspace(process: true)
        XCTAssertEqual(try w.rollout("init").status, 0)
        // A file literally named "--reason.json" can only be passed after --.
        let odd = try w.scratch.write(
            "work/--reason.json", try String(contentsOfFile: Fixtures.examplePack("en-US@1"), encoding: .utf8))
        XCTAssertTrue(FileManager.default.fileExists(atPath: odd))
        let added = try w.rollout("pack", "add", "--reason=first pack", "--", "--reason.json")
        XCTAssertEqual(added.status, 0, added.output)
        XCTAssertEqual(
            try w.git("log", "-1", "--format=%(trailers:key=Rollout-Reason,valueonly)").stdout.trimmingCharacters(
                in: .whitespacesAndNewlines), "first pack")
    }

    /// Colour only on a terminal, and never with NO_COLOR: run under a pseudo-terminal made by script(1).
    func testColourOnlyOnATerminalAndNeverWithNoColor() throws {
        let w = try Workspace(process: true)
        try w.initWithExamples()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("script(1) from bsdutils is not installed")
        }
        func underTerminal(_ env: [String: String]) throws -> String {
            let command = "'\(Processes.rolloutBinary)' pack list --repo '\(w.repository)'"
            return try Processes.run(
                "/usr/bin/script", ["-qec", command, "/dev/null"], in: w.root,
                environment: w.environment.merging(env) { $1 }
            ).stdout
        }
        XCTAssertTrue(try underTerminal(["TERM": "xterm"]).contains("\u{1B}["), "a terminal gets colour")
        XCTAssertFalse(
            try underTerminal(["TERM": "xterm", "NO_COLOR": "1"]).contains("\u{1B}["), "NO_COLOR is respected")
        XCTAssertFalse(try w.rollout("pack", "list").stdout.contains("\u{1B}["), "a pipe gets none")
    }
}
