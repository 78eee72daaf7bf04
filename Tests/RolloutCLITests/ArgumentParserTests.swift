import XCTest
@testable import RolloutCLI
import RolloutModel

/// The option table and its one parsing loop, without a process.
final class ArgumentParserTests: XCTestCase {
    let parser = ArgumentParser(commands: allCommands)

    private func invocation(_ arguments: [String]) throws -> Invocation {
        guard case .run(let invocation) = try parser.parse(arguments) else {
            XCTFail("\(arguments) did not select a command")
            throw RolloutError.internal("no command")
        }
        return invocation
    }

    private func usageMessage(_ arguments: [String]) -> String? {
        do {
            _ = try parser.parse(arguments)
            return nil
        } catch let error as RolloutError {
            XCTAssertEqual(error.exitCode, 64, "\(arguments)")
            return error.message
        } catch {
            return "\(error)"
        }
    }

    func testFindsTheCommandAndItsArguments() throws {
        let i = try invocation(["pack", "add", "a.json", "b.json", "--reason", "typo fix", "--approved-by=Legal"])
        XCTAssertEqual(i.command.name, "pack add")
        XCTAssertEqual(i.positionals, ["a.json", "b.json"])
        XCTAssertEqual(i.value("reason"), "typo fix")
        XCTAssertEqual(i.value("approved-by"), "Legal")
    }

    func testGlobalOptionsWorkBeforeAndAfterTheCommand() throws {
        XCTAssertTrue(try invocation(["--json", "pack", "list"]).json)
        XCTAssertTrue(try invocation(["pack", "list", "--json"]).json)
        XCTAssertEqual(try invocation(["pack", "list", "--repo", "/r"]).value("repo"), "/r")
        let before = try invocation(["--repo", "/r", "--actor=Ana", "pack", "add", "a.json"])
        XCTAssertEqual(before.command.name, "pack add")
        XCTAssertEqual(before.value("repo"), "/r")
        XCTAssertEqual(before.value("actor"), "Ana")
        XCTAssertEqual(before.positionals, ["a.json"])
    }

    func testDoubleDashEndsOptions() throws {
        let i = try invocation(["pack", "add", "--", "--json", "-x.json"])
        XCTAssertEqual(i.positionals, ["--json", "-x.json"])
        XCTAssertFalse(i.json)
    }

    func testAnEmptyValueAfterEqualsIsStillAValue() throws {
        XCTAssertEqual(try invocation(["pack", "add", "a", "--reason="]).value("reason"), "")
    }

    func testPreciseUsageErrors() {
        XCTAssertEqual(usageMessage(["pack", "add", "a", "--resaon", "x"]), "unknown option --resaon for rollout pack add (did you mean --reason?); see rollout help pack add")
        XCTAssertEqual(usageMessage(["pack", "add", "a", "--reason"]), "option --reason needs a value (TEXT)")
        XCTAssertEqual(usageMessage(["pack", "list", "--json=1"]), "option --json takes no value")
        XCTAssertEqual(usageMessage(["pack", "list", "-j"]), "unknown option -j for rollout pack list; options are spelled --name")
        XCTAssertEqual(usageMessage(["frobnicate"]), "unknown command \"frobnicate\"; see rollout help")
        XCTAssertTrue(usageMessage(["pack", "diff", "a@1"])?.contains("needs TO") == true)
    }

    func testHelpAndVersionAreRecognisedAnywhere() throws {
        guard case .help(let path) = try parser.parse(["pack", "add", "--help"]) else { return XCTFail() }
        XCTAssertEqual(path, ["pack", "add"])
        guard case .help(let named) = try parser.parse(["help", "pack", "diff"]) else { return XCTFail() }
        XCTAssertEqual(named, ["pack", "diff"])
        guard case .version = try parser.parse(["--version"]) else { return XCTFail() }
    }

    func testSuggestionsUseTheClosestName() {
        XCTAssertEqual(suggestion("jsno", among: ["json", "repo"], prefix: "--"), " (did you mean --json?)")
        XCTAssertEqual(suggestion("xyzzy", among: ["json", "repo"]), "")
        XCTAssertEqual(editDistance("pakc", "pack"), 1)
        XCTAssertEqual(editDistance("kitten", "sitting"), 3)
    }
}
