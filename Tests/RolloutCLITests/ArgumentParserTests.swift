import RolloutModel
import XCTest

@testable import RolloutCLI

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
        } catch let error as OptionError {
            XCTAssertEqual(error.error.exitCode, 64, "\(arguments)")
            XCTAssertTrue(
                arguments.contains { $0 == error.option || $0.hasPrefix(error.option + "=") },
                "\(error.option) is not among \(arguments)")
            return error.error.message
        } catch {
            return "\(error)"
        }
    }

    func testFindsTheCommandAndItsArguments() throws {
        let i = try invocation(["pack", "add", "a.json", "b.json", "--reason", "typo fix", "--approved-by=Legal"])
        XCTAssertEqual(i.command.name, "pack add")
        XCTAssertEqual(i.positionals, ["a.json", "b.json"])
        let options = PackCommands.AddOptions.declared
        XCTAssertEqual(i.value(options.reason), "typo fix")
        XCTAssertEqual(i.value(options.lint.approvedBy), "Legal")
    }

    func testGlobalOptionsWorkBeforeAndAfterTheCommand() throws {
        XCTAssertTrue(try invocation(["--json", "pack", "list"]).json)
        XCTAssertTrue(try invocation(["pack", "list", "--json"]).json)
        let global = GlobalOptions.all
        XCTAssertEqual(try invocation(["pack", "list", "--repo", "/r"]).value(global.repo)?.text, "/r")
        let before = try invocation(["--repo", "/r", "--actor=Ana", "pack", "add", "a.json"])
        XCTAssertEqual(before.command.name, "pack add")
        XCTAssertEqual(try before.value(global.repo)?.text, "/r")
        XCTAssertEqual(before.value(global.actor), "Ana")
        XCTAssertEqual(before.positionals, ["a.json"])
    }

    func testDoubleDashEndsOptions() throws {
        let i = try invocation(["pack", "add", "--", "--json", "-x.json"])
        XCTAssertEqual(i.positionals, ["--json", "-x.json"])
        XCTAssertFalse(i.json)
    }

    /// Every option of every command that takes a value, given '' (as an unset shell variable
    /// gives it), as `--x ''`, `--x=` and `--x '  '`, is a usage error naming the flag: a new option
    /// cannot miss the rule.
    func testAnEmptyValueIsAUsageErrorForEveryOptionOfEveryCommand() throws {
        var checked = 0
        // help and version read no option values; every other command does.
        for command in allCommands where !["help", "version"].contains(command.name) {
            for option in command.options + globalOptions where option.valueName != nil {
                for form in [["--\(option.name)", ""], ["--\(option.name)="], ["--\(option.name)", "  "]] {
                    let arguments = command.path + form
                    let message = usageMessage(arguments)
                    XCTAssertNotNil(message, "\(arguments) must be refused")
                    XCTAssertTrue(
                        message?.hasPrefix("option --\(option.name) is empty") == true,
                        "\(arguments): \(message ?? "accepted")")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 100, "the walk reached the option tables")
    }

    func testAListRefusesEmptyItemsNamingThePosition() throws {
        XCTAssertEqual(
            try invocation(["promote", "tr-TR@18", "--region", " TR , DE", "--region=FR"]).list(
                PlanCommands.PromoteOptions.declared.region
            ).map(\.code),
            ["TR", "DE", "FR"])
        XCTAssertEqual(
            usageMessage(["promote", "tr-TR@18", "--region", "TR,,"]),
            "option --region \"TR,,\": item 2 of 3 is empty; separate the items with single commas")
        XCTAssertTrue(
            usageMessage(["promote", "tr-TR@18", "--region", ",TR"])?.contains("item 1 of 2 is empty") == true)
        XCTAssertTrue(
            usageMessage(["promote", "tr-TR@18", "--region=TR, ,DE"])?.contains("item 2 of 3 is empty") == true)
        XCTAssertTrue(
            usageMessage(["promote", "tr-TR@18", "--to", "1%", "--ramp", "1,5,,10"])?.contains("--ramp") == true)
        // Every list option goes through the same check.
        for command in allCommands {
            for option in command.options where option.isList {
                XCTAssertTrue(
                    usageMessage(command.path + ["--\(option.name)", "A,"])?.contains("item 2 of 2 is empty") == true,
                    "\(command.name) --\(option.name)")
            }
        }
    }

    func testPreciseUsageErrors() {
        XCTAssertEqual(
            usageMessage(["pack", "add", "a", "--resaon", "x"]),
            "unknown option --resaon for rollout pack add (did you mean --reason?); see rollout help pack add")
        XCTAssertEqual(usageMessage(["pack", "add", "a", "--reason"]), "option --reason needs a value (TEXT)")
        XCTAssertEqual(usageMessage(["pack", "list", "--json=1"]), "option --json takes no value")
        XCTAssertEqual(
            usageMessage(["pack", "list", "-j"]), "unknown option -j for rollout pack list; options are spelled --name")
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
