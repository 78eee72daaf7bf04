import RolloutModel
import XCTest

@testable import RolloutStore

/// The one table of who may sign what (`SignerRoles`; docs/policy.md, "Roles").
final class SignerRolesTests: XCTestCase {
    func testBotSignsOnlyWhatGuardWritesToMakeThingsSafer() {
        let bot = ChangeAction.allCases.filter { SignerRoles.may([.bot], sign: $0) }
        XCTAssertEqual(bot, [.ramp, .pause, .revert], "a revert, a hold, the next step of a started ramp")
        for action in [ChangeAction.promote, .complete, .packAdd, .policySet, .keys, .signers] {
            XCTAssertFalse(SignerRoles.may([.bot], sign: action), action.rawValue)
        }
    }

    func testAdminSignsEverythingReleaseAllButSignersPolicyAndKeysApproverNothingAlone() {
        XCTAssertEqual(ChangeAction.allCases.filter { SignerRoles.may([.admin], sign: $0) }, ChangeAction.allCases)
        XCTAssertEqual(
            Set(ChangeAction.allCases.filter { !SignerRoles.may([.release], sign: $0) }),
            [.initialize, .policySet, .keys, .signers])
        XCTAssertTrue(ChangeAction.allCases.allSatisfy { !SignerRoles.may([.approver], sign: $0) })
        XCTAssertTrue(ChangeAction.allCases.allSatisfy { !SignerRoles.may([], sign: $0) })
    }
}
