import RolloutModel
import XCTest

@testable import RolloutCLI

/// Options are declared once with their value type (docs/architecture.md, "Help and usage errors"):
/// the table the parser reads, help and completion come from the declarations, and a value is read
/// through its type's one grammar.
final class OptionDeclarationTests: XCTestCase {
    let parser = ArgumentParser(commands: allCommands)

    private func invocation(_ arguments: [String]) throws -> Invocation {
        guard case .run(let invocation) = try parser.parse(arguments) else {
            throw RolloutError.internal("\(arguments) did not select a command")
        }
        return invocation
    }

    private func usageMessage(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as RolloutError {
            XCTAssertEqual(error.exitCode, 64)
            return error.message
        } catch let error as OptionError {
            XCTAssertEqual(error.error.exitCode, 64)
            return error.error.message
        } catch {
            return "\(error)"
        }
    }

    /// A nested group (`LintFlags`, `RootKeyFiles`) or a command's own option never takes a name that
    /// another option of the command, or a global option, already has: the parser would read only one.
    func testNoCommandDeclaresANameTwice() {
        for command in allCommands {
            let names = (command.options + globalOptions).map(\.name)
            XCTAssertEqual(names.count, Set(names).count, "rollout \(command.name): \(names)")
        }
    }

    /// Every option that takes a value has the reader of its declaration in the table, and every word
    /// completion offers for it is a value that reader accepts.
    func testCompletionOffersOnlyValuesTheOptionAccepts() throws {
        var offered = 0
        for command in allCommands {
            for option in command.options + globalOptions where option.valueName != nil {
                let reads = try XCTUnwrap(option.reads, "rollout \(command.name) --\(option.name) has no reader")
                guard case .words(let words) = option.completion else { continue }
                XCTAssertFalse(words.isEmpty, "rollout \(command.name) --\(option.name)")
                for word in words {
                    XCTAssertNoThrow(try reads(word), "rollout \(command.name) --\(option.name) \(word)")
                    offered += 1
                }
            }
        }
        XCTAssertGreaterThan(offered, 20, "the walk reached the completions")
    }

    /// What completion offers after an option is what its value type says, for every command alike.
    func testCompletionComesFromTheValueType() {
        func completion(_ command: String, _ option: String) -> ValueCompletion? {
            allCommands.first { $0.name == command }?.options.first { $0.name == option }?.completion
        }
        XCTAssertEqual(completion("pack import", "format"), .words(["xcstrings", "android", "i18next", "arb"]))
        // The kinds the repository holds (outcome kinds too); ingest and retract offer `outcome` as well.
        XCTAssertEqual(completion("metrics ingest", "kind"), .metricKinds(orEveryOutcome: true))
        XCTAssertEqual(completion("metrics retract", "kind"), .metricKinds(orEveryOutcome: true))
        XCTAssertEqual(completion("experiment start", "guardrail"), .words(["crash", "fallback"]))
        XCTAssertEqual(completion("promote", "every"), completion("keys rotate", "overlap"))
        XCTAssertEqual(completion("revert", "to"), .contentVersions)
        XCTAssertEqual(completion("keys rotate-root", "keep"), .keyIDs)
        for (command, option) in [("publish", "key"), ("verify-site", "root-key"), ("device", "state")] {
            XCTAssertEqual(completion(command, option), .files, "\(command) --\(option)")
        }
        XCTAssertEqual(GlobalOptions.table.first { $0.name == "repo" }?.completion, .files)
    }

    /// A value is read as its type: the share in basis points, a duration in seconds, a list item by
    /// item, a region in upper case.
    func testValuesAreReadAsTheirTypes() throws {
        let promote = PlanCommands.PromoteOptions.declared
        let staged = try invocation(["promote", "tr-TR@18", "--to", "0.25%", "--region", "tr,DE", "--every", "2w"])
        guard case .share(let share)? = try staged.value(promote.to) else { return XCTFail("--to 0.25% is a share") }
        XCTAssertEqual(share.basisPoints, 25)
        guard case .testers("qa")? = try invocation(["promote", "tr-TR@18", "--to", "testers:qa"]).value(promote.to)
        else { return XCTFail("--to testers:qa names a tester group") }
        XCTAssertEqual(try staged.list(promote.region).map(\.code), ["TR", "DE"])
        XCTAssertEqual(try staged.value(promote.every), 14 * 86_400)
        XCTAssertNil(try staged.value(promote.appVersion))
        XCTAssertFalse(staged.flag(promote.dryRun))

        let log = LogCommand.Options.declared
        let query = try invocation(["log", "--segment", "TR/4.8", "--until", "2026-11-01", "--limit", "0"])
        XCTAssertEqual(try query.value(log.segment)?.region, "TR")
        XCTAssertEqual(try query.value(log.until)?.description, "2026-11-01T23:59:59Z")
        XCTAssertEqual(try query.value(log.limit), 0)
    }

    /// One grammar per type, wherever the option is: a DURATION needs its unit for `promote --every`
    /// as for `keys rotate --expires`; a count is digits only and names its bounds.
    func testOneGrammarPerTypeWhateverTheCommand() throws {
        let every = try invocation(["promote", "tr-TR@18", "--ramp", "7day", "--every", "3600"])
        XCTAssertEqual(
            usageMessage { _ = try every.value(PlanCommands.PromoteOptions.declared.every) },
            "--every \"3600\" is not a duration: give a whole number and a unit, such as 30m, 12h, 7d or 2w (a number needs its unit)"
        )
        let expires = try invocation(["keys", "rotate", "--root", "r.key", "--expires", "3600"])
        XCTAssertEqual(
            usageMessage { _ = try expires.value(KeysCommands.RotateOptions.declared.expires) },
            "--expires \"3600\" is not a duration: give a whole number and a unit, such as 30m, 12h, 7d or 2w (a number needs its unit)"
        )
        let tooLong = try invocation(["promote", "tr-TR@18", "--ramp", "7day", "--every", "400d"])
        XCTAssertEqual(
            usageMessage { _ = try tooLong.value(PlanCommands.PromoteOptions.declared.every) },
            "--every \"400d\" is longer than the limit of 365 days")
        let keyLifetime = try invocation(["keys", "rotate", "--root", "r.key", "--expires", "99999999d"])
        XCTAssertEqual(
            usageMessage { _ = try keyLifetime.value(KeysCommands.RotateOptions.declared.expires) },
            "--expires \"99999999d\" is longer than the limit of 36600 days")
        for text in ["+5", "5 ", "0x10", "-1", "17"] {
            let devices = try invocation(["keys", "init", "--out", "k", "--roots", text])
            XCTAssertEqual(
                usageMessage { _ = try devices.value(KeysCommands.InitOptions.declared.roots) },
                "--roots \"\(text)\" must be a whole number from 1 to \(KeyList.maximumRoots)", text)
        }
    }

    /// `--reason` is bounded as the parser reads it, for every command that declares it, with the key
    /// list's tighter bound where the reason is written into what every device downloads.
    func testEveryReasonIsBoundedWhenRead() {
        let long = String(repeating: "r", count: InputLimits.reasonBytes + 1)
        var commands = 0
        for command in allCommands where command.options.contains(where: { $0.name == "reason" }) {
            let message = usageMessage { _ = try parser.parse(command.path + ["--reason", long]) }
            XCTAssertEqual(
                message?.hasPrefix("--reason is \(long.utf8.count) bytes"), true, "\(command.name): \(message ?? "")")
            commands += 1
        }
        XCTAssertGreaterThanOrEqual(commands, 9)
        let revoke = usageMessage {
            _ = try parser.parse(["keys", "revoke", "--reason", String(repeating: "r", count: 201)])
        }
        XCTAssertEqual(
            revoke,
            "--reason is 201 bytes; at most \(InputLimits.keyListReasonBytes) go into the key list every device downloads (say the rest in the commit's history elsewhere)"
        )
    }
}
