import Foundation
import XCTest

/// `rollout diff REV1 REV2`: what changed for devices between two points of the history, read
/// through the real command on a history made by promote and revert.
final class DiffTests: XCTestCase {
    /// tr-TR@17 the baseline at 09:00, tr-TR@18 at 10% in TR at 10:00, vi-VN@3 the baseline at 11:00,
    /// tr-TR reverted (tr-TR@18 blocked) the next day.
    private func history() throws -> Workspace {
        let w = try Workspace()
        w.environment["ROLLOUT_ACTOR"] = "Ayşe Demir <ayse@example.com>"
        w.environment["ROLLOUT_NOW"] = "2026-11-30T08:00:00Z"
        try w.initWithExamples()
        let steps: [(time: String, arguments: [String])] = [
            ("2026-11-30T09:00:00Z", ["promote", "tr-TR@17", "--to", "100%"]),
            ("2026-11-30T10:00:00Z", ["promote", "tr-TR@18", "--to", "10%", "--region", "TR"]),
            ("2026-11-30T11:00:00Z", ["promote", "vi-VN@3", "--to", "100%"]),
            ("2026-12-01T09:00:00Z", ["revert", "tr-TR", "--reason", "crash spike"]),
        ]
        for step in steps {
            let result = try w.rollout(step.arguments, env: ["ROLLOUT_NOW": step.time])
            XCTAssertEqual(result.status, 0, result.output)
        }
        return w
    }

    func testADiffShowsEachSegmentBeforeAndAfterWithBlocksPerLocale() throws {
        let w = try history()
        let staged = try w.rollout("diff", "HEAD~3", "HEAD~2")
        XCTAssertEqual(staged.status, 0, staged.output)
        XCTAssertEqual(
            staged.stdout.split(separator: "\n").dropFirst(2).map(String.init),
            [
                "tr-TR", "SEGMENT     BEFORE         AFTER",
                "TR >=4.8.0  tr-TR@17 100%  tr-TR@17 90%, tr-TR@18 10%",
            ])
        XCTAssertTrue(staged.stdout.hasPrefix("From "), staged.stdout)
        XCTAssertTrue(staged.stdout.contains("complete tr-TR@17: the baseline of tr-TR\nto   "), staged.stdout)

        // By time: from before the first promote to after the revert, both locales; the revert
        // took the share back, so tr-TR shows only its baseline and the block.
        let all = try w.json(try w.rollout("diff", "2026-11-30T08:30:00Z", "2026-12-02", "--json"))
        let locales = try XCTUnwrap(all["locales"] as? [[String: Any]])
        XCTAssertEqual(locales.compactMap { $0["locale"] as? String }, ["tr-TR", "vi-VN"])
        let trTR = locales[0]
        XCTAssertEqual((trTR["blocked"] as? [String: Any])?["after"] as? [String], ["tr-TR@18"])
        XCTAssertEqual((trTR["blocked"] as? [String: Any])?["before"] as? [String], [])
        let segments = try XCTUnwrap(trTR["segments"] as? [[String: Any]])
        XCTAssertEqual(segments.count, 1)
        XCTAssertEqual(segments[0]["regions"] as? String, "*")
        XCTAssertEqual((segments[0]["after"] as? [[String: Any]])?.first?["pack"] as? String, "tr-TR@17")
        XCTAssertEqual((segments[0]["before"] as? [[String: Any]])?.first?["pack"] as? String, "bundled")
        XCTAssertEqual((all["to"] as? [String: Any])?["summary"] as? String, "revert tr-TR to last-known-good")

        let narrowed = try w.json(try w.rollout("diff", "2026-11-30T08:30:00Z", "HEAD", "--locale", "vi-VN", "--json"))
        XCTAssertEqual((narrowed["locales"] as? [[String: Any]])?.compactMap { $0["locale"] as? String }, ["vi-VN"])

        // A tag and a full commit id name points as well; the same point twice changes nothing.
        XCTAssertEqual(try w.git("tag", "launch", "HEAD~1").status, 0)
        let tip = try w.stateTip()
        let same = try w.rollout("diff", "launch", tip, "--locale", "vi-VN")
        XCTAssertEqual(same.status, 0, same.output)
        XCTAssertTrue(same.stdout.hasSuffix("Nothing changed for any device of vi-VN.\n"), same.stdout)
        let reverted = try w.rollout("diff", "launch", String(tip.prefix(10)))
        XCTAssertTrue(reverted.stdout.contains("blocked: none -> tr-TR@18\n"), reverted.stdout)
    }

    /// A revision that names nothing, or a time before the history, is refused with exit 66 naming it,
    /// and nothing is written.
    func testAnUnknownRevisionIsRefusedNamingIt() throws {
        let w = try history()
        let tip = try w.stateTip()
        for revision in ["HEAD~40", "no-such-tag", "0123456789abcdef", "2026-13-45"] {
            let refused = try w.rollout("diff", revision, "HEAD")
            XCTAssertEqual(refused.status, 66, refused.output)
            XCTAssertEqual(
                refused.stderr,
                "rollout: unknown revision \(revision): not a commit id, tag or git revision (HEAD~3) of this repository, nor a time such as 2026-11-30T09:00:00Z; list the changes with rollout log\n"
            )
            XCTAssertEqual(refused.stdout, "")
        }
        let early = try w.rollout("diff", "HEAD", "2026-01-01", "--json")
        XCTAssertEqual(early.status, 66, early.output)
        XCTAssertTrue(early.stderr.contains("\"code\": \"missing\""), early.stderr)
        XCTAssertTrue(early.stderr.contains("no state at 2026-01-01"), early.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
    }
}
