import Foundation
import Transcripts
import XCTest

/// The runner behind "docs are tests" (docs/architecture.md): what it reads as a command and its output,
/// what it checks, and what `transcripts update` writes.
final class TranscriptRunnerTests: XCTestCase {
    private let environment = TranscriptEnvironment(path: [], examples: "/nonexistent")

    private func page(_ body: String) throws -> TranscriptPage {
        try TranscriptPage(path: "page.md", text: body)
    }

    func testAHeredocAFunctionAndABackslashAreOneCommandEachAndTheRestIsOutput() throws {
        let page = try page(
            """
            Intro.

            ```console
            $ cat > plan.csv <<'EOF'
            a,b
            $ not a command
            EOF
            $ greet() {
                echo "hi $1"
            }
            $ greet \\
                you
            hi you
            ```
            """)
        let commands = page.sections[0][0].commands
        XCTAssertEqual(
            commands.map(\.text),
            [
                "cat > plan.csv <<'EOF'\na,b\n$ not a command\nEOF", "greet() {\n    echo \"hi $1\"\n}",
                "greet \\\n    you",
            ])
        XCTAssertEqual(commands.map(\.expected), [[], [], ["hi you"]])
        XCTAssertEqual(commands.map(\.line), [4, 8, 11])
    }

    func testShellFencesAreRefusedSoNoCommandBlockGoesUnchecked() {
        XCTAssertThrowsError(try page("a\n```sh\nrollout init\n```\n")) { error in
            XCTAssertEqual(
                (error as? TranscriptError).map { "\($0)" }?.hasPrefix("page.md:2: a ```sh block is not checked"), true)
        }
        XCTAssertThrowsError(try page("```console\noutput first\n$ true\n```\n"))
        XCTAssertNoThrow(try page("```text\n$ rollout promote PACK --to N%\n```\n"))
    }

    func testVariablesAndTheDirectoryCarryFromBlockToBlockAndANewDirectoryStartsOver() throws {
        let page = try page(
            """
            ```console
            $ NAME=tr-TR; mkdir sub; cd sub
            $ printf 'x\\n' > file
            ```
            Later:
            ```console
            $ echo "$NAME"; pwd; ls
            tr-TR
            [dir]/sub
            file
            $ false
            [exit 1]
            ```
            <!-- transcript: new directory -->
            ```console
            $ echo "[$NAME]"; ls
            []
            ```
            """)
        XCTAssertEqual(page.sections.count, 2)
        XCTAssertEqual(try Transcripts.check(page, in: environment).map(\.description), [])
    }

    func testOneChangedWordFailsAndNamesTheLineAndTheDifference() throws {
        let page = try page("```console\n$ echo one; echo two; (exit 3)\none\nto\n[exit 3]\n```\n")
        let mismatches = try Transcripts.check(page, in: environment)
        XCTAssertEqual(mismatches.count, 1)
        XCTAssertEqual(
            mismatches.first?.description,
            "page.md:2: $ echo one; echo two; (exit 3)\n   one\n + two\n - to\n   [exit 3]")
    }

    func testUpdateWritesTheOutputsAndKeepsCommandsAndProse() throws {
        let text = "# Title\n\n  ```console\n  $ echo new\n  old\n  $ printf 'a\\n\\nb'\n  ```\n\nProse.\n"
        let updated = try Transcripts.update(try page(text), in: environment)
        XCTAssertEqual(
            updated,
            "# Title\n\n  ```console\n  $ echo new\n  new\n  $ printf 'a\\n\\nb'\n  a\n\n  b\n  ```\n\nProse.\n")
        XCTAssertEqual(try Transcripts.check(try page(updated), in: environment).count, 0)
    }

    func testAValueThatVariesGetsItsPlaceholderAndAnythingElseThatVariesIsAnError() throws {
        let key = "$ head -c 32 /dev/urandom | base64; head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \\n'; echo"
        let updated = try Transcripts.update(try page("```console\n\(key)\n```\n"), in: environment)
        XCTAssertEqual(updated, "```console\n\(key)\n[base64]\n[key-id]\n```\n")
        XCTAssertEqual(try Transcripts.check(try page(updated), in: environment).count, 0)
        XCTAssertThrowsError(
            try Transcripts.update(try page("```console\n$ echo $RANDOM$RANDOM\n```\n"), in: environment)
        ) {
            XCTAssertTrue("\($0)".contains("varies between runs"), "\($0)")
        }
    }

    func testAnExitEndsThePageWithAMessageNamingTheCommand() throws {
        XCTAssertThrowsError(
            try Transcripts.check(try page("```console\n$ true\n$ exit 2\n$ true\n```\n"), in: environment)
        ) {
            XCTAssertEqual("\($0)", "page.md: line 3: the shell ended during `exit 2`; later commands did not run")
        }
    }

    func testAServerAPageStartsDiesWithThePage() throws {
        let marker = "transcript-sleeper-\(UUID().uuidString.prefix(8))"
        let page = try page("```console\n$ (exec -a \(marker) sleep 300) &\n```\n")
        let started = Date()
        XCTAssertEqual(try Transcripts.check(page, in: environment).count, 0)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60, "the runner waited for the page's server")
        let left = Process()
        left.executableURL = URL(fileURLWithPath: "/usr/bin/pgrep")
        left.arguments = ["-f", marker]
        left.standardOutput = FileHandle.nullDevice
        try left.run()
        left.waitUntilExit()
        XCTAssertEqual(left.terminationStatus, 1, "the page's background process outlived it")
    }
}
