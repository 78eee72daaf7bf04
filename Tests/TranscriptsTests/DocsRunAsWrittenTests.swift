import Foundation
import Transcripts
import XCTest

/// Every page of docs/ and the README, run as a new user would follow it (docs/architecture.md, "Docs are
/// tests"): each console block in page order, in a new empty directory, against the built binaries. A
/// changed word of any output fails here; `make docs-update` rewrites the pages from a real run.
final class DocsRunAsWrittenTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The products directory holds the test bundle and the `rollout` and `rollout-device` it depends on.
    private static var binDirectory: String {
        let candidates = [
            Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        return candidates.first {
            FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("rollout").path)
        }?
        .path ?? ""
    }

    func testEveryConsoleBlockOfEveryPageRunsAsWritten() throws {
        XCTAssertFalse(Self.binDirectory.isEmpty, "no rollout binary next to the tests")
        let environment = TranscriptEnvironment.repository(Self.root, binDirectory: Self.binDirectory)
        let pages = try TranscriptPages.all(in: Self.root).map { try Transcripts.load($0, root: Self.root) }
        let mismatches = try Transcripts.concurrentMap(pages) { try Transcripts.check($0, in: environment) }
            .flatMap { $0 }
        for mismatch in mismatches.prefix(40) {
            XCTFail("\(mismatch)\n(make docs-update rewrites the outputs from a run; review the diff)")
        }
        let blocks = pages.reduce(0) { $0 + $1.blockCount }
        let commands = pages.reduce(0) { $0 + $1.commandCount }
        print(
            "docs as written: \(pages.count) pages, \(blocks) console blocks, \(commands) commands, \(mismatches.count) differ"
        )
        // The README's walk through is what `make demo` runs: it must stay a transcript, not become prose.
        XCTAssertGreaterThan(pages.first { $0.path == "README.md" }?.commandCount ?? 0, 20)
    }
}
