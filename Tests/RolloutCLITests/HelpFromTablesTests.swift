import Foundation
import RolloutModel
import XCTest

@testable import RolloutCLI

/// Help that cannot drift (issue 32): `rollout help` and each command's help are made from the tables
/// in code (`ExitCode`, each command's option table, arguments and effects), never written by hand.
final class HelpFromTablesTests: XCTestCase {
    let style = Style(enabled: false, token: "t")

    func help(_ command: CommandSpec) -> String { HelpCommand.detail(command, style).text }

    /// The lines of the "Exit codes:" section of a help text, as their codes.
    func listedExitCodes(_ text: String) -> [Int32] {
        guard let start = text.range(of: "Exit codes:\n") else { return [] }
        return text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { $0.hasPrefix("  ") }
            .compactMap { Int32($0.split(separator: " ").first ?? "") }
    }

    func testTheOverviewListsEveryExitCodeOfTheTableWithItsNameAndMeaning() throws {
        let text = try HelpCommand.render([], style: style).text
        XCTAssertEqual(listedExitCodes(text), ExitCode.allCases.map(\.rawValue))
        for code in ExitCode.allCases {
            XCTAssertTrue(text.contains(code.name), "\(code) \(code.name)")
            XCTAssertTrue(text.contains(code.meaning), "\(code) \(code.meaning)")
        }
        // The codes the issue found missing, and every --json error code.
        for code: Int32 in [69, 74, 77] { XCTAssertTrue(listedExitCodes(text).contains(code), "\(code)") }
        for kind in RolloutError.Kind.allCases {
            XCTAssertTrue(text.contains(kind.rawValue), kind.rawValue)
            XCTAssertTrue(kind.exitCode.name.contains(kind.rawValue))
        }
        let json = try HelpCommand.render([], style: style).json
        guard case .array(let codes) = json.objectValue?["exitCodes"] else { return XCTFail("no exitCodes in --json") }
        XCTAssertEqual(codes.count, ExitCode.allCases.count)
    }

    /// Every error a user can see exits with a code of the table: the mapping is the table's.
    func testEveryErrorExitsWithACodeOfTheTable() {
        let errors: [RolloutError] = [
            .checkFailed(""), .usage(""), .badInput(""), .missing(""), .conflict(""), .unreachable(""), .diverged(""),
            .permission(""), .unavailable(""), .io(""), .internal(""),
        ]
        XCTAssertEqual(Set(errors.map(\.code)), Set(RolloutError.Kind.allCases.map(\.rawValue)))
        for error in errors {
            XCTAssertEqual(ExitCode(rawValue: error.exitCode), error.kind.exitCode, error.code)
        }
        XCTAssertEqual(
            ExitCode.allCases.map(\.rawValue), [0, 1, 64, 65, 66, 69, 70, 74, 75, 76, 77],
            "docs/architecture.md, \"Exit codes\" lists these")
    }

    /// docs/architecture.md, "Exit codes" has a row for every code of the table, and names every
    /// `--json` error code: a new code cannot be left out of the page either.
    func testTheArchitecturePageListsEveryExitCode() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/architecture.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        let start = try XCTUnwrap(text.range(of: "\n## Exit codes\n"))
        let section = text[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        let rows = section[..<end].split(separator: "\n").filter { $0.hasPrefix("| ") }
        for code in ExitCode.allCases {
            XCTAssertTrue(rows.contains { $0.hasPrefix("| \(code.rawValue) |") }, "no row for \(code.rawValue)")
        }
        for kind in RolloutError.Kind.allCases {
            XCTAssertTrue(
                rows.contains { $0.hasPrefix("| \(kind.exitCode.rawValue) |") && $0.contains("`\(kind.rawValue)`") },
                "no row for \(kind.rawValue) (\(kind.exitCode.rawValue))")
        }
    }

    func testEachCommandsHelpListsItsExitCodesFromTheTable() {
        for command in allCommands {
            let text = help(command)
            XCTAssertEqual(listedExitCodes(text), command.exitCodes.map(\.rawValue), command.name)
            for code in command.exitCodes {
                XCTAssertTrue(text.contains(code.meaning), "\(command.name): \(code)")
            }
            XCTAssertTrue(
                Set(command.exitNotes.keys).isSubset(of: command.exitCodes),
                "\(command.name) notes a code it never returns")
            for (code, note) in command.exitNotes { XCTAssertTrue(text.contains(note), "\(command.name): \(code)") }
        }
    }

    /// A command that records a change pushes it when the repository has a remote, so it can get
    /// every answer a remote gives; the commands that talk to a remote say so.
    func testCommandsThatReachTheRemoteListTheRemotesCodes() {
        let remoteCodes: Set<ExitCode> = [.unavailable, .io, .tryAgain, .diverged, .permission]
        var reaching: [String] = []
        for command in allCommands where !command.effects.isDisjoint(with: [.recordsChange, .touchesRemote]) {
            reaching.append(command.name)
            XCTAssertTrue(remoteCodes.isSubset(of: command.exitCodes), command.name)
            for code in remoteCodes {
                XCTAssertEqual(listedExitCodes(help(command)).filter { $0 == code.rawValue }.count, 1)
            }
        }
        for name in ["sync", "clone", "remote add", "pack add", "pack import", "promote", "revert", "publish"] {
            XCTAssertTrue(reaching.contains(name), "\(name) reaches the remote")
        }
        for name in ["status", "pack list", "help", "completion", "pack checksum"] {
            XCTAssertFalse(reaching.contains(name), "\(name) never reaches a remote")
        }
    }

    /// The usage line is made from the option table: every option the command accepts is in it, and
    /// it names no option the command does not accept; its help lists the same options.
    func testTheUsageLineAndHelpNameExactlyTheOptionsTheCommandAccepts() throws {
        let optionPattern = try NSRegularExpression(pattern: "--[a-z0-9-]+")
        func options(in text: String) -> Set<String> {
            Set(
                optionPattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
                    String(text[Range($0.range, in: text)!])
                })
        }
        for command in allCommands {
            let accepted = Set(command.options.map { "--" + $0.name })
            XCTAssertEqual(options(in: command.usage), accepted, command.name)
            let text = help(command)
            let usageLine = String(text.split(separator: "\n")[0])
            XCTAssertEqual(usageLine, "Usage: rollout \(command.usage)")
            for option in command.options + globalOptions {
                XCTAssertTrue(text.contains("\n  \(option.label)  "), "\(command.name) help lacks \(option.label)")
            }
            // The arguments, in the usage line in the order of the table.
            var rest = Substring(command.usage.dropFirst(command.name.count))
            for name in command.arguments.names {
                guard let found = rest.range(of: name) else {
                    XCTFail("\(command.name): usage lacks \(name)")
                    break
                }
                rest = rest[found.upperBound...]
            }
        }
    }

    func testTheUsageLineShowsWhatIsRequiredRepeatedOrOneOfAGroup() {
        func usage(_ path: String) -> String { allCommands.first { $0.name == path }!.usage }
        XCTAssertTrue(usage("pack import").hasPrefix("pack import PATH --content-version N ["), usage("pack import"))
        XCTAssertTrue(usage("pack import").contains(" [--locale L]... "), usage("pack import"))
        XCTAssertEqual(usage("keys revoke"), "keys revoke KEYID --root FILE... --reason TEXT [--dry-run] [--propose]")
        XCTAssertEqual(usage("pack diff"), "pack diff FROM TO")
        XCTAssertEqual(usage("clone"), "clone URL [DIR]")
        XCTAssertEqual(
            usage("pack add"),
            "pack add FILE... [--approved-by NAME] [--allow-removed-keys] [--reason TEXT] [--propose]")
        XCTAssertTrue(usage("verify-site").hasPrefix("verify-site DIR (--root-key KEY... | --public-key KEY) "))
        XCTAssertTrue(
            usage("device").hasPrefix("device --state DIR --site URL|DIR (--public-key KEY | --root-key KEY...)"))
        XCTAssertTrue(usage("device").hasSuffix(" ACTION [ARGUMENT]"), usage("device"))
        XCTAssertEqual(usage("help"), "help [COMMAND...]")
    }

    /// A usage error quotes the same generated line.
    func testUsageErrorsQuoteTheGeneratedUsage() {
        let parser = ArgumentParser(commands: allCommands)
        XCTAssertThrowsError(try parser.parse(["pack", "diff", "tr-TR@1"])) { error in
            XCTAssertEqual(
                (error as? RolloutError)?.message, "rollout pack diff needs TO; usage: rollout pack diff FROM TO")
        }
    }

    /// "(repeatable) (repeatable)" in `pack import --help`, fixed as a class: one place adds
    /// "(repeatable)", no option's own text says it, and no help text repeats a parenthetical.
    func testNoHelpTextRepeatsAParenthetical() throws {
        let repeated = try NSRegularExpression(pattern: #"(\([^()\n]+\))\s*\1"#)
        var texts = [("help", try HelpCommand.render([], style: style).text)]
        texts += allCommands.map { ($0.name, help($0)) }
        for (name, text) in texts {
            let match = repeated.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
            XCTAssertNil(match.map { String(text[Range($0.range, in: text)!]) }, name)
        }
        for option in allCommands.flatMap(\.options) + globalOptions {
            XCTAssertFalse(option.help.contains("repeatable"), "--\(option.name): the table says it")
        }
        let importHelp = help(allCommands.first { $0.name == "pack import" }!)
        XCTAssertTrue(importHelp.contains("import only this locale (repeatable)\n"), importHelp)
    }

    /// Completion reads the same tables: every option of a command, and its arguments.
    func testCompletionOffersTheOptionsOfTheTable() {
        var context = CommandContext.live()
        context.environment = [:]
        context.workingDirectory = FileManager.default.temporaryDirectory.path
        for command in allCommands where command.path != ["help"] && command.path != ["version"] {
            let offered = CompletionCommand.candidates(command.path + ["--"], context: context)
            XCTAssertEqual(
                Set(offered), Set((command.options + globalOptions).map { "--" + $0.name }), command.name)
        }
        XCTAssertEqual(CompletionCommand.candidates(["help", "sy"], context: context), ["sync"])
        XCTAssertEqual(CompletionCommand.candidates(["help", "remote", ""], context: context), ["add", "list"])
    }
}
