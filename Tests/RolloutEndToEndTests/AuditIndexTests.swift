import Foundation
import XCTest

/// An auditor's fresh clone answers `rollout log` exactly as the history says, whatever state its
/// log index is in: built in one go by the first query, brought up to date after a sync, edited,
/// cut, copied from another repository, or built by two processes at once (docs/audit.md, "The index").
final class AuditIndexTests: XCTestCase {
    /// The questions an auditor asks, each as `log` arguments.
    static let questions: [[String]] = [
        ["log", "--segment", "TR/4.8", "--limit", "0", "--json"],
        ["log", "--segment", "DE", "--limit", "0", "--json"],
        ["log", "--segment", "VN/4.2", "--limit", "0", "--json"],
        ["log", "--locale", "tr-TR", "--limit", "0", "--json"],
        ["log", "--pack", "vi-VN@3", "--limit", "0", "--json"],
        ["log", "--limit", "0", "--json"],
        ["log", "--segment", "TR/4.8", "--limit", "2"],
    ]

    /// A shared repository with promotes, region and version targeting, and reverts (one scoped to a
    /// segment); its own index is brought up to date one change at a time, as a team's would be.
    func sharedHistory(_ w: Workspace) throws -> String {
        let origin = w.scratch.path("server/shared.git")
        XCTAssertEqual(try w.rollout("init", origin).status, 0)
        let added = try w.rollout(["--repo", origin, "pack", "add"] + Fixtures.allExamplePacks)
        XCTAssertEqual(added.status, 0, added.output)
        let changes: [[String]] = [
            ["promote", "tr-TR@17", "--to", "100%"],
            [
                "promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8", "--reason",
                "Start in Turkey",
            ],
            ["promote", "tr-TR@18", "--to", "30%", "--region", "DE", "--force", "--reason", "DE before its metrics"],
            ["promote", "vi-VN@3", "--to", "50%", "--region", "VN"],
            ["revert", "tr-TR", "--segment", "TR/4.8", "--reason", "crash spike in TR on 4.8"],
            [
                "promote", "tr-TR@18", "--to", "50%", "--region", "DE", "--app-version", "4.9.x", "--force", "--reason",
                "DE on 4.9",
            ],
            ["revert", "vi-VN", "--reason", "wrong dates"],
        ]
        for change in changes {
            let result = try w.rollout(["--repo", origin] + change)
            XCTAssertEqual(result.status, 0, "\(change): \(result.output)")
            XCTAssertEqual(try w.rollout("--repo", origin, "log", "--limit", "1").status, 0)
        }
        return origin
    }

    /// Every question's output on `repository`, asserting each ran cleanly.
    func answers(_ w: Workspace, _ repository: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> [String]
    {
        try Self.questions.map { question in
            let result = try w.rollout(["--repo", repository] + question)
            XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
            XCTAssertEqual(
                result.stderr, "", "an index that matches its history is used without a warning", file: file, line: line
            )
            return result.stdout
        }
    }

    func removeIndex(_ repository: String) throws {
        try FileManager.default.removeItem(atPath: repository + "/rollout/log-index")
    }

    func testAFreshCloneAnswersExactlyAsAnIndexRebuiltFromScratchAndTheOriginsOwn() throws {
        let w = try Workspace()
        let origin = try sharedHistory(w)
        let clone = w.scratch.path("auditor")
        XCTAssertEqual(try w.rollout("clone", origin, clone).status, 0)
        let first = try answers(w, clone)
        XCTAssertTrue(first[0].contains("crash spike in TR on 4.8"), first[0])
        XCTAssertTrue(first[0].contains("Start in Turkey"), first[0])
        XCTAssertFalse(first[1].contains("Start in Turkey"), "a TR-only change did not alter DE: \(first[1])")
        XCTAssertEqual(try answers(w, origin), first, "the origin's index, built one change at a time, says the same")
        try removeIndex(clone)
        XCTAssertEqual(try answers(w, clone), first, "an index rebuilt from scratch says the same")
    }

    func testAnIndexBehindTheHistoryIsBroughtUpToDateAfterASync() throws {
        let w = try Workspace()
        let origin = try sharedHistory(w)
        let auditor = w.scratch.path("auditor")
        let teammate = w.scratch.path("teammate")
        for clone in [auditor, teammate] { XCTAssertEqual(try w.rollout("clone", origin, clone).status, 0) }
        let before = try answers(w, auditor)
        XCTAssertEqual(
            try w.rollout(
                "--repo", teammate, "promote", "tr-TR@18", "--to", "20%", "--region", "TR", "--app-version", ">=4.8",
                "--force", "--reason", "fixed"
            ).status, 0)
        XCTAssertEqual(try w.rollout("--repo", auditor, "sync").status, 0)
        let after = try answers(w, auditor)
        XCTAssertNotEqual(after[0], before[0])
        XCTAssertTrue(after[0].contains("\"fixed\""), after[0])
        try removeIndex(auditor)
        XCTAssertEqual(try answers(w, auditor), after)
    }

    func testAnEditedIndexIsNotTrustedTheAnswerStaysRightAndAWarningSaysSo() throws {
        let w = try Workspace()
        let origin = try sharedHistory(w)
        let clone = w.scratch.path("auditor")
        XCTAssertEqual(try w.rollout("clone", origin, clone).status, 0)
        let truth = try answers(w, clone)
        let changes = clone + "/rollout/log-index/changes.jsonl"
        let edited = try String(contentsOfFile: changes, encoding: .utf8).replacingOccurrences(
            of: "Start in Turkey", with: "Start in Greece")
        try edited.write(toFile: changes, atomically: true, encoding: .utf8)
        let answer = try w.rollout(["--repo", clone] + Self.questions[0])
        XCTAssertEqual(answer.stdout, truth[0])
        XCTAssertTrue(answer.stderr.hasPrefix("warning: the log index does not match the history"), answer.stderr)
        XCTAssertEqual(answer.stderr.split(separator: "\n").count, 1, answer.stderr)
        XCTAssertEqual(try answers(w, clone), truth, "rebuilt once, then trusted again")

        // A pointer file cut short.
        try Data().write(to: URL(fileURLWithPath: clone + "/rollout/log-index/region-TR.idx"))
        let cut = try w.rollout(["--repo", clone] + Self.questions[0])
        XCTAssertEqual(cut.stdout, truth[0])
        XCTAssertTrue(cut.stderr.contains("warning: the log index does not match the history"), cut.stderr)
    }

    func testAnIndexFromAnotherHistoryIsNotTrusted() throws {
        let w = try Workspace()
        let origin = try sharedHistory(w)
        let clone = w.scratch.path("auditor")
        XCTAssertEqual(try w.rollout("clone", origin, clone).status, 0)
        let truth = try answers(w, clone)
        // Another team's repository with a history of its own, and its index put in the clone's place.
        let other = w.scratch.path("other.git")
        XCTAssertEqual(try w.rollout("init", other).status, 0)
        XCTAssertEqual(try w.rollout(["--repo", other, "pack", "add"] + Fixtures.allExamplePacks).status, 0)
        for percent in ["10%", "20%", "40%", "60%", "80%", "90%", "95%", "100%"] {
            XCTAssertEqual(
                try w.rollout("--repo", other, "promote", "tr-TR@18", "--to", percent, "--region", "TR").status, 0)
        }
        XCTAssertEqual(try w.rollout("--repo", other, "log", "--segment", "TR/4.8").status, 0)
        try removeIndex(clone)
        try FileManager.default.copyItem(atPath: other + "/rollout/log-index", toPath: clone + "/rollout/log-index")
        let answer = try w.rollout(["--repo", clone] + Self.questions[0])
        XCTAssertEqual(answer.stdout, truth[0])
        XCTAssertTrue(answer.stderr.hasPrefix("warning: the log index does not match the history"), answer.stderr)
        XCTAssertEqual(try answers(w, clone), truth)
    }

    func testTwoFirstQueriesAtOnceOnAFreshCloneBothAnswerRight() throws {
        let w = try Workspace(process: true)  // two processes at once
        let origin = try sharedHistory(w)
        let expected = try answers(w, origin)
        for round in 0..<3 {
            let clone = w.scratch.path("auditor\(round)")
            XCTAssertEqual(try w.rollout("clone", origin, clone).status, 0)
            let results = simultaneously(2) { index in
                try? w.rollout(["--repo", clone] + AuditIndexTests.questions[index == 0 ? 0 : 3])
            }
            XCTAssertEqual(results[0]?.stdout, expected[0], results[0]?.stderr ?? "")
            XCTAssertEqual(results[1]?.stdout, expected[3], results[1]?.stderr ?? "")
            XCTAssertEqual(results.map { $0?.stderr }, ["", ""])
        }
    }
}
