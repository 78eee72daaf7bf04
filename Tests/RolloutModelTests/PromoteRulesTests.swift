import RolloutModel
import XCTest

/// The rules of promote, on plans directly (the end-to-end tests drive the same through the binary).
final class PromoteRulesTests: XCTestCase {
    let pack18 = Pack(locale: "tr-TR", contentVersion: 18, minAppVersion: AppVersion("4.8.0")!, strings: ["a": "b"])
    let v17 = Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!)

    func request(
        _ share: String, regions: [String]? = nil, versions: String? = nil, reason: String? = nil, version: Int = 18
    ) throws -> PromoteRequest {
        PromoteRequest(
            pack: PackID(locale: "tr-TR", contentVersion: version), share: try Percent.parse(share), regions: regions,
            versions: try versions.map(VersionRange.parse), reason: reason)
    }

    func promoted(_ plan: Plan, pack: Pack, request: PromoteRequest, parentCommit: String) throws -> (
        Plan, PromoteEffect
    ) {
        try plan.promoted(by: request, minAppVersion: pack.minAppVersion, parentCommit: parentCommit)
    }

    func testABlockedVersionIsRefusedWithTheWayOut() throws {
        let plan = Plan(locale: "tr-TR", baseline: v17, blocked: [18])
        XCTAssertThrowsError(try promoted(plan, pack: pack18, request: try request("10%"), parentCommit: "p")) {
            error in
            XCTAssertEqual(
                error as? PromoteRefusal, .blocked(PackID(locale: "tr-TR", contentVersion: 18), nextFree: 19))
            XCTAssertEqual((error as? PromoteRefusal)?.kind, .checkFailed)
        }
    }

    func testRepromotingKeepsTheSaltAndTheTargeting() throws {
        let start = Plan(locale: "tr-TR", baseline: v17)
        let (first, kind) = try promoted(
            start, pack: pack18, request: try request("10%", regions: ["TR"], versions: ">=4.8"), parentCommit: "p1")
        XCTAssertEqual(kind, .staged)
        let (second, _) = try promoted(first, pack: pack18, request: try request("50%"), parentCommit: "p2")
        XCTAssertEqual(second.rules.count, 1)
        XCTAssertEqual(second.rules[0].salt, first.rules[0].salt, "devices already in stay in")
        XCTAssertEqual(second.rules[0].regions, ["TR"])
        XCTAssertEqual(second.rules[0].share.basisPoints, 5000)
        // A different region gets its own rule with the same salt and its own share.
        let (third, _) = try promoted(
            second, pack: pack18, request: try request("5%", regions: ["DE"]), parentCommit: "p3")
        XCTAssertEqual(third.rules.map(\.regionsLabel).sorted(), ["DE", "TR"])
        XCTAssertEqual(Set(third.rules.map(\.salt)), [first.rules[0].salt])
    }

    func testTargetingIsComparedByMeaningNotSpelling() throws {
        let start = Plan(locale: "tr-TR", baseline: v17)
        let first = try promoted(
            start, pack: pack18, request: try request("10%", regions: ["TR"], versions: "4.8.x"), parentCommit: "p"
        ).0
        let second = try promoted(
            first, pack: pack18, request: try request("20%", regions: ["TR"], versions: ">=4.8.0 <4.9"),
            parentCommit: "p"
        ).0
        XCTAssertEqual(second.rules.count, 1, "4.8.x and >=4.8.0 <4.9 are the same versions")
        XCTAssertEqual(second.rules[0].share.basisPoints, 2000)
        XCTAssertThrowsError(
            try promoted(
                second, pack: pack18, request: try request("5%", regions: ["TR"], versions: ">=4.8 <4.9"),
                parentCommit: "p"),
            "lowering through another spelling still needs a reason")
    }

    func testSeveralRegionsMakeOneRuleEachThatMoveIndependently() throws {
        let start = Plan(locale: "tr-TR", baseline: v17)
        let both = try promoted(
            start, pack: pack18, request: try request("10%", regions: ["DE", "TR"]), parentCommit: "p"
        ).0
        XCTAssertEqual(both.rules.map(\.regions), [["DE"], ["TR"]])
        let moved = try promoted(both, pack: pack18, request: try request("30%", regions: ["TR"]), parentCommit: "p").0
        XCTAssertEqual(moved.rules.map(\.share.basisPoints), [1000, 3000])
    }

    func testARuleThatCouldNeverApplyIsRefused() throws {
        let start = Plan(locale: "tr-TR", baseline: v17)
        let wide = try promoted(
            start, pack: pack18, request: try request("10%", regions: ["TR"], versions: ">=4.8"), parentCommit: "p"
        ).0
        XCTAssertThrowsError(
            try promoted(
                wide, pack: pack18, request: try request("50%", regions: ["TR"], versions: ">=4.9"), parentCommit: "p")
        ) { error in
            guard case .ruleNeverApplies(let dead, let winner, _, _, _) = error as? PromoteRefusal else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(dead.target, "TR on >=4.9")
            XCTAssertEqual(winner?.target, "TR on >=4.8")
            XCTAssertEqual(winner?.share.basisPoints, 1000)
        }
        // A narrower window inside it is reachable: it sorts first.
        XCTAssertNoThrow(
            try promoted(
                wide, pack: pack18, request: try request("50%", regions: ["TR"], versions: "4.9.x"), parentCommit: "p"))
    }

    func testANewCandidateGetsAFreshSalt() throws {
        let a = try promoted(
            Plan(locale: "tr-TR", baseline: v17), pack: pack18, request: try request("10%"), parentCommit: "p1"
        ).0
        let b = try promoted(
            Plan(locale: "tr-TR", baseline: v17), pack: pack18, request: try request("10%"), parentCommit: "p2"
        ).0
        XCTAssertNotEqual(a.rules[0].salt, b.rules[0].salt)
    }

    func testHundredPercentEverywhereCompletesAndKeepsTheLastKnownGood() throws {
        let staged = try promoted(
            Plan(locale: "tr-TR", baseline: v17), pack: pack18, request: try request("10%", regions: ["TR"]),
            parentCommit: "p"
        ).0
        let (done, kind) = try promoted(staged, pack: pack18, request: try request("100%"), parentCommit: "p")
        XCTAssertEqual(kind, .completed)
        XCTAssertEqual(done.baseline?.contentVersion, 18)
        XCTAssertEqual(done.previousBaselines.map(\.contentVersion), [17])
        XCTAssertTrue(done.rules.isEmpty)
        // 100% for one region is a rule, not a completion.
        let (regional, regionalKind) = try promoted(
            staged, pack: pack18, request: try request("100%", regions: ["TR"]), parentCommit: "p")
        XCTAssertEqual(regionalKind, .staged)
        XCTAssertEqual(regional.baseline?.contentVersion, 17)
    }

    func testLoweringNeedsAReasonAndASecondCandidateIsRefused() throws {
        let staged = try promoted(
            Plan(locale: "tr-TR", baseline: v17), pack: pack18, request: try request("10%"), parentCommit: "p"
        ).0
        XCTAssertThrowsError(try promoted(staged, pack: pack18, request: try request("5%"), parentCommit: "p")) {
            error in
            XCTAssertEqual(
                error as? PromoteRefusal, .loweringWithoutReason(PackID(locale: "tr-TR", contentVersion: 18)))
            XCTAssertEqual((error as? PromoteRefusal)?.kind, .usage)
        }
        XCTAssertNoThrow(
            try promoted(staged, pack: pack18, request: try request("5%", reason: "too fast"), parentCommit: "p"))
        let pack19 = Pack(locale: "tr-TR", contentVersion: 19, minAppVersion: AppVersion("4.8.0")!, strings: ["a": "c"])
        XCTAssertThrowsError(
            try promoted(staged, pack: pack19, request: try request("5%", version: 19), parentCommit: "p")
        ) { error in
            XCTAssertEqual(
                error as? PromoteRefusal,
                .otherCandidateStaged(
                    locale: "tr-TR", candidate: 18, staged: "10% in every region on every app version"))
        }
    }
}
