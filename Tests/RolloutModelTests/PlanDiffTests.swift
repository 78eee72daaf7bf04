import RolloutModel
import XCTest

/// What `rollout diff` says changed for a locale's devices between two plans (`PlanDiff`), on plans
/// alone; `DiffTests` drives it through the command on a real history.
final class PlanDiffTests: XCTestCase {
    let v48 = AppVersion("4.8.0")!

    func promote(_ plan: Plan, _ share: String, _ version: Int, regions: [String]? = nil) throws -> Plan {
        let request = PromoteRequest(
            pack: PackID(locale: "tr-TR", contentVersion: version), share: try Percent.parse(share), regions: regions,
            versions: nil, reason: nil)
        return try plan.promoted(by: request, minAppVersion: v48, parentCommit: "p").0
    }

    func revert(_ plan: Plan, to target: RevertTarget) throws -> Plan {
        let request = RevertRequest(locale: "tr-TR", segment: nil, target: target, reason: nil, block: true)
        return try plan.reverted(by: request) { _ in self.v48 }.0
    }

    func testNoPlanReadsAsBundledAndTheSamePlanChangesNothing() throws {
        let baseline = try promote(Plan(locale: "tr-TR"), "100%", 17)
        let first = PlanDiff(locale: "tr-TR", before: nil, after: baseline)
        XCTAssertEqual(first.segments.map { $0.before.describe(locale: "tr-TR") }, ["bundled 100%"])
        XCTAssertEqual(first.segments.map { $0.after.describe(locale: "tr-TR") }, ["tr-TR@17 100%"])
        XCTAssertEqual(first.segments.map(\.after.versions), [">=4.8.0"], "below 4.8 devices get bundled both times")
        XCTAssertTrue(PlanDiff(locale: "tr-TR", before: baseline, after: baseline).isEmpty)
        XCTAssertTrue(PlanDiff(locale: "tr-TR", before: nil, after: nil).isEmpty)
    }

    func testAStagedShareShowsOnlyItsRegionAndARevertItsBlock() throws {
        let baseline = try promote(Plan(locale: "tr-TR"), "100%", 17)
        let staged = try promote(baseline, "10%", 18, regions: ["TR"])
        let widen = PlanDiff(locale: "tr-TR", before: baseline, after: staged)
        XCTAssertEqual(widen.segments.map(\.after.regions), ["TR"], "other regions got nothing new")
        XCTAssertEqual(widen.segments.map { $0.after.describe(locale: "tr-TR") }, ["tr-TR@17 90%, tr-TR@18 10%"])
        XCTAssertEqual(widen.blocked.after, [])

        let reverted = try revert(staged, to: .lastKnownGood)
        let back = PlanDiff(locale: "tr-TR", before: staged, after: reverted)
        XCTAssertEqual(back.blocked.before, [])
        XCTAssertEqual(back.blocked.after, [18])
        XCTAssertEqual(back.segments.map { $0.after.describe(locale: "tr-TR") }, ["tr-TR@17 100%"])
        // Over both changes, devices get what they had: only the block is left to show.
        let overBoth = PlanDiff(locale: "tr-TR", before: baseline, after: reverted)
        XCTAssertTrue(overBoth.segments.isEmpty)
        XCTAssertFalse(overBoth.isEmpty)

        let killed = PlanDiff(locale: "tr-TR", before: baseline, after: try revert(baseline, to: .bundled))
        XCTAssertEqual(killed.killSwitch.before, false)
        XCTAssertEqual(killed.killSwitch.after, true)
        XCTAssertEqual(killed.segments.map { $0.after.describe(locale: "tr-TR") }, ["bundled 100%"])
    }
}
