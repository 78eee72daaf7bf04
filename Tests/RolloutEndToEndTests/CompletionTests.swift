import Foundation
import XCTest

/// The bash completion script, sourced in a real bash, offering what a user expects.
// Processes: the completion scripts call the installed binary, as a shell does.
final class CompletionTests: XCTestCase {
    func testBashOffersCommandsFlagsLocalesAndPackIds() throws {
        let w = try Workspace(process: true)
        try w.initWithExamples()
        let script = try w.rollout("completion", "bash")
        XCTAssertEqual(script.status, 0, script.output)
        let scriptFile = try w.scratch.write("rollout.bash", script.stdout)
        let lines = [
            "rollout pa", "rollout pack ", "rollout promote tr-TR@1", "rollout revert t",
            "rollout promote tr-TR@18 --t",
            "rollout metrics ingest --kind ", "rollout revert tr-TR --to ", "rollout completion ",
            "rollout --repo .rollout status v",
            "rollout pack add ex",
        ]
        let driver = """
            source \(scriptFile)
            complete_line() {
                read -ra COMP_WORDS <<< "$1"
                if [[ "$1" == *" " ]]; then COMP_WORDS+=(""); fi
                COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
                COMPREPLY=()
                _rollout
                echo "${COMPREPLY[*]}"
            }
            \(lines.map { "complete_line '\($0)'" }.joined(separator: "\n"))
            """
        try FileManager.default.createDirectory(atPath: w.work + "/examples", withIntermediateDirectories: true)
        var environment = w.environment
        environment["PATH"] =
            URL(fileURLWithPath: Processes.rolloutBinary).deletingLastPathComponent().path + ":"
            + (environment["PATH"] ?? "/usr/bin:/bin")
        let result = try Processes.run("/bin/bash", ["-c", driver], in: w.work, environment: environment)
        XCTAssertEqual(result.status, 0, result.output)
        let offered = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let expected = [
            "pack pause", "add checksum diff import lint list show", "tr-TR@17 tr-TR@18", "tr tr-TR", "--to",
            "crash fallback outcome", "bundled 17 18", "bash fish zsh", "vi-VN",
            "examples",
        ]
        for (line, want) in zip(lines, expected) {
            let index = lines.firstIndex(of: line)!
            XCTAssertEqual(index < offered.count ? offered[index] : nil, want, line)
        }
    }

    func testEveryShellHasAScriptAndAnUnknownOneIsAUsageError() throws {
        let w = try Workspace(process: true)
        for shell in ["bash", "zsh", "fish"] {
            let result = try w.rollout("completion", shell)
            XCTAssertEqual(result.status, 0)
            XCTAssertTrue(result.stdout.contains("rollout __complete"), shell)
        }
        let unknown = try w.rollout("completion", "tcsh")
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.stderr.contains("choose bash, zsh or fish"), unknown.stderr)
        // Outside any repository there are no locales to offer, and no error either.
        let none = try w.rollout("__complete", "status", "")
        XCTAssertEqual(none.status, 0)
        XCTAssertEqual(none.stdout, "")
    }
}
