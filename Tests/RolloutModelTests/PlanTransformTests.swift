import RolloutModel
import XCTest

/// What promote and revert do to a plan, on plans alone (docs/targeting.md): no repository, no
/// process. The end-to-end tests drive the same rules through the binary.
final class PlanTransformTests: XCTestCase {
    let v48 = AppVersion("4.8.0")!
    var v16: Plan.PackRef { Plan.PackRef(contentVersion: 16, minAppVersion: v48) }
    var v17: Plan.PackRef { Plan.PackRef(contentVersion: 17, minAppVersion: v48) }

    func promote(
        _ plan: Plan, _ share: String, _ version: Int = 18, regions: [String]? = nil, versions: String? = nil,
        ramp: [String]? = nil
    ) throws -> (Plan, PromoteEffect) {
        let request = PromoteRequest(
            pack: PackID(locale: "tr-TR", contentVersion: version), share: try Percent.parse(share), regions: regions,
            versions: try versions.map(VersionRange.parse), reason: nil,
            ramp: try ramp.map { (try $0.map(Percent.parse), 3600) })
        return try plan.promoted(by: request, minAppVersion: v48, parentCommit: "p")
    }

    func revert(
        _ plan: Plan, to target: RevertTarget = .lastKnownGood, segment: (String, String)? = nil, block: Bool = true
    ) throws -> (Plan, [Int]) {
        let request = RevertRequest(
            locale: "tr-TR", segment: try segment.map { ($0.0, try VersionRange.parse($0.1)) }, target: target,
            reason: nil, block: block)
        return try plan.reverted(by: request) { $0 <= 18 ? self.v48 : nil }
    }

    func message(_ expression: @autoclosure () throws -> Any) -> String {
        do {
            _ = try expression()
            return "no error"
        } catch {
            return (error as? RolloutError)?.message ?? "\(error)"
        }
    }

    /// What the expression refused, as the model says it (the command line words it: RefusalWordingTests).
    func refusal<R: Refusal>(_ expression: @autoclosure () throws -> Any, as type: R.Type) -> R? {
        do {
            _ = try expression()
            return nil
        } catch {
            return error as? R
        }
    }

    // MARK: promote

    func testCompletingTheBaselineAgainChangesNothingAndAnyOtherShareOfItIsRefused() throws {
        let plan = Plan(locale: "tr-TR", baseline: v17)
        XCTAssertEqual(try promote(plan, "100%", 17).1, .unchanged)
        let id17 = PackID(locale: "tr-TR", contentVersion: 17)
        XCTAssertEqual(refusal(try promote(plan, "10%", 17), as: PromoteRefusal.self), .alreadyBaseline(id17))
        XCTAssertEqual(
            refusal(try promote(plan, "10%", 16), as: PromoteRefusal.self),
            .olderThanBaseline(PackID(locale: "tr-TR", contentVersion: 16), baseline: 17))
    }

    func testUnderTheKillSwitchOnlyACompletionIsAllowedAndItMayGoBack() throws {
        let killed = Plan(locale: "tr-TR", baseline: v17, previousBaselines: [v16], bundledOnly: true)
        XCTAssertEqual(
            refusal(try promote(killed, "10%", 16), as: PromoteRefusal.self),
            .underKillSwitch(PackID(locale: "tr-TR", contentVersion: 16)))
        let (back, effect) = try promote(killed, "100%", 16)
        XCTAssertEqual(effect, .completed)
        XCTAssertFalse(back.bundledOnly)
        XCTAssertEqual(back.baseline, v16)
        XCTAssertEqual(back.previousBaselines, [], "last known good means older than the new baseline")
    }

    func testARampStartsAtItsFirstStepAndAPromoteByHandEndsIt() throws {
        let (ramped, _) = try promote(Plan(locale: "tr-TR", baseline: v17), "1%", ramp: ["1%", "10%", "50%"])
        XCTAssertEqual(ramped.ramp?.steps.map(\.basisPoints), [100, 1000, 5000])
        XCTAssertEqual(ramped.ramp?.step, 0)
        XCTAssertNil(try promote(ramped, "20%").0.ramp)
    }

    func testTargetingASegmentAgainTakesItBackFromAScopedRevert() throws {
        let staged = try promote(Plan(locale: "tr-TR", baseline: v17), "10%").0
        let (withdrawn, _) = try revert(staged, segment: ("TR", "*"))
        XCTAssertEqual(withdrawn.withdrawals.map(\.label), ["TR/*"])
        XCTAssertEqual(try promote(withdrawn, "10%", regions: ["TR"]).0.withdrawals.map(\.label), [])
        XCTAssertEqual(try promote(withdrawn, "20%", regions: ["DE"]).0.withdrawals.map(\.label), ["TR/*"])
    }

    // MARK: revert

    func testRevertingWhatIsStagedBlocksItUnlessToldNotTo() throws {
        let staged = try promote(Plan(locale: "tr-TR", baseline: v17), "10%", ramp: ["10%", "50%"]).0
        let (after, blocked) = try revert(staged)
        XCTAssertEqual(blocked, [18])
        XCTAssertEqual(after.blocked, [18])
        XCTAssertEqual(after.baseline, v17)
        XCTAssertTrue(after.rules.isEmpty)
        XCTAssertNil(after.ramp, "no schedule is left without rules")
        let (unblocked, none) = try revert(staged, block: false)
        XCTAssertEqual(none, [])
        XCTAssertEqual(unblocked.blocked, [])
    }

    func testWithNothingStagedARevertGoesBackToTheNewestBaselineThatIsNotBlocked() throws {
        let plan = Plan(
            locale: "tr-TR", baseline: Plan.PackRef(contentVersion: 18, minAppVersion: v48),
            previousBaselines: [v17, v16], blocked: [17])
        let (after, blocked) = try revert(plan)
        XCTAssertEqual(after.baseline, v16)
        XCTAssertEqual(after.previousBaselines, [])
        XCTAssertEqual(blocked, [18])
        XCTAssertEqual(after.blocked, [17, 18])
        XCTAssertEqual(
            refusal(try revert(Plan(locale: "tr-TR", baseline: v17)), as: RevertRefusal.self),
            .noEarlierBaseline(locale: "tr-TR", baseline: 17))
        XCTAssertEqual(
            refusal(try revert(Plan(locale: "tr-TR")), as: RevertRefusal.self), .nothingPromoted(locale: "tr-TR"))
    }

    func testRevertingToAVersionBlocksWhatCameAfterIt() throws {
        let staged = try promote(Plan(locale: "tr-TR", baseline: v17, previousBaselines: [v16]), "10%").0
        let (after, blocked) = try revert(staged, to: .version(16))
        XCTAssertEqual(after.baseline, v16)
        XCTAssertEqual(blocked, [18, 17], "the candidate, then the baseline")
        XCTAssertEqual(after.blocked, [17, 18])
        XCTAssertEqual(message(try revert(staged, to: .version(19))), "no pack tr-TR@19 to go back to")
        XCTAssertEqual(
            try revert(Plan(locale: "tr-TR", baseline: v17), to: .version(17)).1, [], "already there: nothing to do")
        XCTAssertEqual(
            refusal(try revert(Plan(locale: "tr-TR", baseline: v16), to: .version(17)), as: RevertRefusal.self),
            .targetNotEarlier(locale: "tr-TR", version: 17))
        XCTAssertEqual(
            refusal(
                try revert(Plan(locale: "tr-TR", baseline: v17, blocked: [16]), to: .version(16)),
                as: RevertRefusal.self),
            .targetBlocked(locale: "tr-TR", version: 16))
    }

    func testTheKillSwitchBlocksWhatWasServedAndAVersionTakesItOff() throws {
        let staged = try promote(Plan(locale: "tr-TR", baseline: v17, previousBaselines: [v16]), "10%").0
        let (killed, blocked) = try revert(staged, to: .bundled)
        XCTAssertTrue(killed.bundledOnly)
        XCTAssertEqual(blocked, [18, 17])
        XCTAssertEqual(try revert(killed, to: .bundled).1, [], "already on")
        XCTAssertEqual(try revert(killed).0, killed, "last known good under the kill switch is the kill switch")
        let (back, none) = try revert(killed, to: .version(16))
        XCTAssertFalse(back.bundledOnly)
        XCTAssertEqual(back.baseline, v16)
        XCTAssertEqual(none, [], "leaving the kill switch blocks nothing more")
    }

    func testAScopedRevertNeedsSomethingStagedThatReachesTheSegment() throws {
        let staged = try promote(Plan(locale: "tr-TR", baseline: v17), "10%", regions: ["TR"]).0
        XCTAssertEqual(try revert(staged, segment: ("DE", "*")).0, staged, "the candidate reaches nobody in DE")
        XCTAssertEqual(try revert(staged, segment: ("TR", ">=4.8")).0.withdrawals.map(\.label), ["TR/>=4.8"])
        XCTAssertEqual(
            refusal(try revert(Plan(locale: "tr-TR", baseline: v17), segment: ("TR", "*")), as: RevertRefusal.self),
            .nothingStagedToWithdraw(locale: "tr-TR", segment: "TR/*"))
        XCTAssertEqual(
            refusal(try revert(staged, to: .bundled, segment: ("TR", "*")), as: RevertRefusal.self),
            .segmentWithTarget)
    }

    func testRevertTargetsParseVersionsAndRefuseOtherLocales() {
        XCTAssertEqual(try RevertTarget.parse("16", locale: "tr-TR"), .version(16))
        XCTAssertEqual(try RevertTarget.parse("tr-TR@16", locale: "tr-TR"), .version(16))
        XCTAssertEqual(try RevertTarget.parse("bundled", locale: "tr-TR"), .bundled)
        XCTAssertEqual(
            refusal(try RevertTarget.parse("0", locale: "tr-TR"), as: RevertRefusal.self),
            .notATarget("0", locale: "tr-TR"))
        XCTAssertEqual(
            refusal(try RevertTarget.parse("de-DE@3", locale: "tr-TR"), as: RevertRefusal.self),
            .targetOfAnotherLocale("de-DE@3", PackID(locale: "de-DE", contentVersion: 3), locale: "tr-TR"))
    }
}
