import RolloutModel
import XCTest

/// Tester groups on plans alone (docs/targeting.md, "Testers first"): what promote, a widening, a
/// completion and a revert do to a plan's testers, the id file's grammar, and the plan's stored form.
final class TesterModelTests: XCTestCase {
    let v48 = AppVersion("4.8.0")!
    let group = TesterGroup(name: "qa", salt: "0c5d7a4e91b2f386", installIDs: ["qa-1", "qa-2"])
    var base: Plan {
        Plan(locale: "tr-TR", baseline: Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!))
    }

    func promote(_ plan: Plan, _ share: String?, reason: String? = nil) throws -> (Plan, PromoteEffect) {
        var request = PromoteRequest(
            pack: PackID(locale: "tr-TR", contentVersion: 18), share: try Percent.parse(share ?? "0%"), regions: nil,
            versions: nil, reason: reason, testerGroup: share == nil ? "qa" : nil)
        if share == nil { request.testers = group }
        return try plan.promoted(by: request, minAppVersion: v48, parentCommit: "p")
    }

    func outcome(_ plan: Plan, _ id: String, version: String = "4.8.1") -> Resolution.Outcome {
        Resolution.outcome(plan, region: "TR", appVersion: AppVersion(version), installID: id)
    }

    func testTestersGetTheCandidateBeforeAnyShareAndKeepItAsSharesGrow() throws {
        let (staged, effect) = try promote(base, nil)
        XCTAssertEqual(effect, .staged)
        XCTAssertEqual(staged.candidate?.contentVersion, 18)
        XCTAssertTrue(staged.rules.isEmpty)
        XCTAssertEqual(outcome(staged, "qa-1"), .pack(18))
        XCTAssertEqual(outcome(staged, "QA-1"), .pack(17), "an id compares byte for byte")
        XCTAssertEqual(outcome(staged, "qa-1", version: "4.7"), .bundled, "below minAppVersion: what it had")
        XCTAssertEqual(try promote(staged, nil).1, .unchanged)
        XCTAssertEqual(staged.publishedVersions, [17, 18], "the candidate is published for the testers")

        let (widened, _) = try promote(staged, "1%")
        XCTAssertEqual(widened.testers, staged.testers, "a share keeps the testers")
        let salt = try XCTUnwrap(widened.rules.first?.salt)
        for id in ["qa-1", "qa-2"] {
            XCTAssertEqual(
                outcome(widened, id), .pack(18), "\(id), bucket \(Bucketing.bucket(installID: id, salt: salt))")
        }
        let (completed, done) = try promote(widened, "100%")
        XCTAssertEqual(done, .completed)
        XCTAssertTrue(completed.testers.isEmpty, "everyone has it: no testers left")
    }

    func testARevertTakesTestersBackAndABlockHoldsForThem() throws {
        let (staged, _) = try promote(base, nil)
        let (reverted, blocked) = try staged.reverted(
            by: RevertRequest(locale: "tr-TR", segment: nil, target: .lastKnownGood, reason: "r", block: true)
        ) { _ in self.v48 }
        XCTAssertEqual(blocked, [18])
        XCTAssertTrue(reverted.testers.isEmpty)
        XCTAssertEqual(outcome(reverted, "qa-1"), .pack(17))
        var blockedOnly = staged
        blockedOnly.blocked = [18]
        XCTAssertEqual(outcome(blockedOnly, "qa-1"), .pack(17), "a blocked candidate reaches no tester")
    }

    func testThePlanStoresHashesNeverIDsAndReadsThemBack() throws {
        let (staged, _) = try promote(base, nil)
        let bytes = JSONWriter.pretty(staged.jsonValue)
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertFalse(text.contains("qa-1"), text)
        XCTAssertTrue(text.contains(TesterGroup.memberHash(installID: "qa-1", salt: group.salt)), text)
        XCTAssertEqual(try Plan.parse(bytes, source: "plan"), staged)
        XCTAssertNil(base.jsonValue.objectValue?["testers"], "absent without testers, as in older plans")
    }

    func testAnIDFileSkipsCommentsAndBlankLinesAndNamesTheFirstBadLine() throws {
        XCTAssertEqual(try TesterGroup.ids(inFile: "# team\n\n  a-1 \r\nb-2\n", named: "f"), ["a-1", "b-2"])
        XCTAssertThrowsError(try TesterGroup.ids(inFile: "a-1\nb-2 c-3\n\u{7}\n", named: "f")) {
            XCTAssertEqual($0 as? TesterRefusal, .badID(.space, text: "b-2 c-3", file: "f", line: 2))
        }
        XCTAssertThrowsError(try TesterGroup.ids(inFile: "ok\nbell\u{7}\n", named: "f")) {
            XCTAssertEqual($0 as? TesterRefusal, .badID(.control, text: "bell\u{7}", file: "f", line: 2))
        }
        XCTAssertThrowsError(try TesterGroup.ids(inFile: "# only a comment\n", named: "f")) {
            XCTAssertEqual($0 as? TesterRefusal, .noIDsInFile("f"))
        }
        XCTAssertFalse(TesterGroup.isValidName("QA"))
        XCTAssertFalse(TesterGroup.isValidName("1qa"))
        XCTAssertTrue(TesterGroup.isValidName("beta-2"))
    }
}
