import Foundation
import XCTest

/// Every refusal says what to do next: the command that fixes it, or what was probably meant.
final class ErrorGuidanceTests: XCTestCase {
    func testRefusalsNameTheNextStep() throws {
        let w = try Workspace()
        let outside = try w.rollout("status")
        XCTAssertEqual(outside.status, 66)
        XCTAssertTrue(outside.stderr.contains("create one with rollout init"), outside.stderr)
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let cases: [(arguments: [String], status: Int32, hint: String)] = [
            (["promot", "tr-TR@18"], 64, "did you mean promote?"),
            (["promote", "tr-TR@18", "--too", "10%"], 64, "did you mean --to?"),
            (["log", "--segment", "TR-4.8"], 64, "did you mean TR/4.8?"),
            (["promote", "tr-TR@99", "--to", "10%"], 66, "tr-TR has versions 17, 18"),
            (["health", "tr-TR"], 66, "rollout promote tr-TR@N --to 5%"),
            (["pause", "tr-TR"], 1, "start one with promote --ramp"),
            (["revert", "tr-TR"], 1, "Use --to bundled for the kill switch, or promote a fix"),
            (["rollbacks", "tr-TR/9"], 66, "list them with rollout rollbacks"),
            (["report", "vi-VN", "--out", "r.html"], 1, "rollout promote vi-VN@N --to 10% starts one"),
            (["sync"], 64, "rollout remote add origin URL"),
            (["completion", "tcsh"], 64, "choose bash, zsh or fish"),
        ]
        for (arguments, status, hint) in cases {
            let result = try w.rollout(arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains(hint), "\(arguments) should say \(hint): \(result.stderr)")
        }
        // Widening an unhealthy rollout names the command that shows why, and the override.
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--reason", "typo fix").status, 0)
        XCTAssertEqual(
            try w.rollout(
                "metrics", "ingest", "--kind", "crash", MetricsIngestTests.examples + "/crashes-spike-TR-4.8.csv"
            ).status, 0)
        let widen = try w.rollout("promote", "tr-TR@18", "--to", "50%")
        XCTAssertEqual(widen.status, 1)
        XCTAssertTrue(
            widen.stderr.contains("See rollout health tr-TR; override with --force --reason TEXT"), widen.stderr)
    }
}
