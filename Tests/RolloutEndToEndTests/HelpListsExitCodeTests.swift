import Foundation
import RolloutCLI
import RolloutDevice
import RolloutModel
import XCTest

/// Makes each command's help honest about its exit codes (issue 32, "Help that cannot drift"): every
/// rollout run of the end-to-end tests, in this process or as a process, is checked against the codes
/// the command's help lists (`CommandSpec.exitCodes`, from its effects). A code a command returns
/// that its help leaves out fails the test that saw it.
enum HelpListsExitCode {
    static func check(
        _ arguments: [String], status: Int32, command: CommandSpec?, file: StaticString = #filePath, line: UInt = #line
    ) {
        // Above 128: a signal ended the process (or rollout passed one on, as an interrupted clone
        // does); not one of rollout's codes.
        guard let command, status < 128 else { return }
        let listed = command.exitCodes.map(\.rawValue)
        guard !listed.contains(status) else { return }
        XCTFail(
            "rollout \(command.name) exited \(status), which rollout help \(command.name) does not list "
                + "(\(listed.map(String.init).joined(separator: ", "))); declare it in the command's effects. "
                + "Arguments: \(arguments.joined(separator: " "))", file: file, line: line)
    }
}

/// Failures provoked on purpose, each exit code checked against the command's help by the hook above
/// and here: remote commands that cannot reach or use their remote, and commands without a repository.
final class HelpListsExitCodeTests: XCTestCase {
    func testProvokedFailuresExitWithCodesTheirHelpLists() throws {
        let w = try Workspace()
        try w.rollout("init", w.scratch.path("shared"))
        let cases: [(arguments: [String], code: Int32)] = [
            // A URL git cannot speak: the remote cannot be used as configured.
            (["clone", "nosuch://host/repository", w.scratch.path("a")], 69),
            (["clone", w.scratch.path("no-such-repository"), w.scratch.path("b")], 66),
            (["clone", w.scratch.path("shared"), w.scratch.path("c")], 0),
            (["init", w.scratch.path("d")], 0),
            (["sync", "--repo", w.scratch.path("d")], 64),
            (["remote", "add", "origin", "nosuch://host/repository", "--repo", w.scratch.path("d")], 0),
            (["sync", "--repo", w.scratch.path("d")], 69),
            (["pack", "add", "--repo", w.scratch.path("d"), Fixtures.examplePack("tr-TR@17")], 69),
            (["sync", "--repo", w.scratch.path("no-such-repository")], 66),
            (["status", "--repo", w.scratch.path("no-such-repository")], 66),
            (["pack", "add", "--repo", w.scratch.path("c"), w.scratch.path("no-such-pack.json")], 66),
            (["pack", "diff", "tr-TR@1"], 64),
            (["completion", "tcsh"], 64),
        ]
        for (arguments, code) in cases {
            let result = try w.rollout(arguments)
            XCTAssertEqual(result.status, code, "\(arguments): \(result.output)")
            let command = try XCTUnwrap(RolloutCLI.command(namedBy: arguments), "\(arguments)")
            XCTAssertTrue(
                command.exitCodes.map(\.rawValue).contains(result.status), "\(arguments) exited \(result.status)")
        }
    }

    /// What the usage line shows as required is required: leaving out one required option (or every
    /// option of a required group), with everything else given, is a usage error naming it.
    func testWhatTheUsageLineShowsAsRequiredIsRequired() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let generated = try w.rollout("keys", "generate", "--out", "k.pem")
        try FileManager.default.createDirectory(atPath: w.work + "/site", withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: w.work + "/catalog.xcstrings"))
        let publicKey = try XCTUnwrap(generated.stdout.split(separator: " ").last).trimmingCharacters(in: .newlines)
        let arguments = [
            "PATH": "catalog.xcstrings", "FILE": "x.json", "PACK": "tr-TR@18", "KEYID": "abc", "SOURCE": "x.json",
            "LOCALE": "tr-TR", "DIR": "site", "ACTION": "status",
        ]
        let values = [
            "out": "out", "key": "k.pem", "root": "k.pem", "reason": "why", "content-version": "2", "to": "10%",
            "ramp": "1,5", "locale": "tr-TR", "region": "TR", "app-version": "4.8.1", "install-id": "a",
            "kind": "crash", "state": "state", "site": "site", "public-key": publicKey, "root-key": publicKey,
            "role": "admin", "variants": "tr-TR@17,tr-TR@18", "metric": "checkout",
        ]
        var checked = 0
        for command in RolloutDevice.commands {
            let required = command.options.filter { $0.presence != .optional }
            for left in required {
                // The group left out whole: any one of it would do.
                let leftOut = command.options.filter {
                    left.presence == .required ? $0.name == left.name : $0.presence == left.presence
                }
                guard leftOut.first?.name == left.name else { continue }
                var words =
                    command.path
                    + command.arguments.names.prefix(max(command.arguments.minimum, 1)).map { arguments[$0] ?? "x" }
                var groups: Set<OptionSpec.Presence> = []
                for option in required where !leftOut.contains(where: { $0.name == option.name }) {
                    // One option of each other group.
                    if case .oneOf = option.presence, !groups.insert(option.presence).inserted { continue }
                    words += ["--" + option.name, try XCTUnwrap(values[option.name], option.name)]
                }
                let result = try w.rollout(words)
                XCTAssertEqual(result.status, 64, "\(words): \(result.output)")
                XCTAssertTrue(
                    leftOut.contains { result.stderr.contains("needs --\($0.name)") }, "\(words): \(result.output)")
                checked += 1
            }
        }
        XCTAssertEqual(checked, 30, "every required option and group of every command")
    }

    /// The commands that talk to a remote list every code a remote can give, the three the issue
    /// found missing (69, 74, 77) among them.
    func testRemoteCommandsHelpListsTheRemotesCodes() throws {
        let w = try Workspace()
        for words in [["sync"], ["clone"], ["remote", "add"], ["pack", "add"], ["promote"]] {
            let help = try w.rollout(words + ["--help"])
            XCTAssertEqual(help.status, 0)
            for (code, name) in [
                ("69", "unavailable"), ("74", "io-error"), ("75", "conflict, unreachable"), ("76", "diverged"),
                ("77", "permission"),
            ] {
                XCTAssertTrue(help.stdout.contains("\n  \(code)  \(name) "), "\(words) lacks \(code):\n\(help.stdout)")
            }
        }
    }
}
