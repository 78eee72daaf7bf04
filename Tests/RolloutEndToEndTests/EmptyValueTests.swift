import XCTest

/// An unset shell variable (`--region "$REGION"`) must never widen a rollout: empty values and
/// empty list items are usage errors that change nothing (docs/architecture.md, "Empty values").
final class EmptyValueTests: XCTestCase {
    func testAnEmptyRegionNeverPromotesGlobally() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let tip = try w.stateTip()
        let before = try w.rollout("status", "tr-TR", "--json").stdout
        for region in [
            ["--region", ""], ["--region="], ["--region", "TR,,"], ["--region", ",TR"], ["--region", "TR, "],
            ["--region", " "],
        ] {
            let result = try w.rollout(["promote", "tr-TR@18", "--to", "10%"] + region)
            XCTAssertEqual(result.status, 64, "\(region): \(result.output)")
            XCTAssertTrue(result.stderr.contains("--region"), "the message names the flag: \(result.stderr)")
            XCTAssertEqual(try w.stateTip(), tip, "\(region) changed nothing")
        }
        XCTAssertEqual(try w.rollout("status", "tr-TR", "--json").stdout, before, "the plan is unchanged")
        let resolved = try w.json(
            try w.rollout(
                "resolve", "--locale", "tr-TR", "--region", "DE", "--app-version", "4.8.1", "--install-id", "x",
                "--json"))
        let chain = try XCTUnwrap(resolved["chain"] as? [[String: Any]])
        XCTAssertEqual(chain.first?["result"] as? String, "tr-TR@17", "no device outside TR was moved: \(resolved)")
    }

    /// `--segment "TR/$V"` with V unset must not take back every version in TR.
    func testASegmentWithAnEmptyVersionIsRefusedNotWidened() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR").status, 0)
        let tip = try w.stateTip()
        for arguments in [
            ["revert", "tr-TR", "--segment", "TR/", "--reason", "x"], ["log", "--segment", "TR/ "],
            ["metrics", "show", "tr-TR", "--segment", "TR/"],
        ] {
            let result = try w.rollout(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains("empty version"), "\(arguments): \(result.stderr)")
        }
        XCTAssertEqual(try w.stateTip(), tip)
    }

    func testEmptyValuesOfOtherOptionsAreUsageErrorsNamingTheFlag() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let tip = try w.stateTip()
        for (arguments, flag) in [
            (["promote", "tr-TR@18", "--to", "10%", "--reason", ""], "--reason"),
            (["promote", "tr-TR@18", "--to", "10%", "--actor", ""], "--actor"),
            (["promote", "tr-TR@18", "--to", "10%", "--app-version", ""], "--app-version"),
            (["revert", "tr-TR", "--segment", ""], "--segment"),
            (["report", "tr-TR", "--out", ""], "--out"),
            (["pack", "list", "--repo", ""], "--repo"),
        ] {
            let result = try w.rollout(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains("option \(flag) is empty"), "\(arguments): \(result.stderr)")
        }
        XCTAssertEqual(try w.stateTip(), tip)
    }

    func testEmptyEnvironmentVariablesStillMeanUnset() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let listed = try w.rollout(
            ["pack", "list"], env: ["ROLLOUT_REPO": "", "ROLLOUT_ACTOR": "", "ROLLOUT_NOW": ""])
        XCTAssertEqual(
            listed.status, 0,
            "documented: an empty ROLLOUT_REPO, ROLLOUT_ACTOR or ROLLOUT_NOW counts as unset: \(listed.output)")
    }
}
