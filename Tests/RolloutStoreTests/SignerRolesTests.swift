import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// The one table of who may sign what (`SignerRoles`; docs/policy.md, "Roles").
final class SignerRolesTests: XCTestCase {
    func testBotSignsOnlyWhatGuardWritesToMakeThingsSafer() {
        let bot = ChangeAction.allCases.filter { SignerRoles.may([.bot], sign: $0) }
        XCTAssertEqual(
            bot, [.ramp, .pause, .revert, .experimentStop],
            "a revert, a hold, the next step of a started ramp, an experiment stopped for harm")
        for action in [ChangeAction.experimentStart, .testersAdd] {
            XCTAssertFalse(SignerRoles.may([.bot], sign: action), action.rawValue)
        }
        // Guard stops an experiment for harm; a stop that ships a variant is a promote, never the bot's.
        let stop: [(name: String, value: String)] = [
            ("Action", "experiment-stop"), ("Experiment", "t"), ("Outcome", "harm: x"),
        ]
        XCTAssertTrue(SignerRoles.may([.bot], sign: stop))
        XCTAssertFalse(SignerRoles.may([.bot], sign: stop + [("Pack", "tr-TR@18")]))
        XCTAssertTrue(SignerRoles.may([.release], sign: stop + [("Pack", "tr-TR@18")]))
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

/// The one table of which changes need an approver (`ApprovalRules`; docs/policy.md, "Signing").
final class ApprovalRulesTests: XCTestCase {
    var everything: SigningPolicy.Approval {
        var approval = SigningPolicy.Approval()
        approval.promoteAbove = Percent(basisPoints: 1000)
        (approval.complete, approval.protectedKeys, approval.policy, approval.keys, approval.signers) =
            (true, true, true, true, true)
        return approval
    }

    func rule(_ action: ChangeAction, _ facts: ApprovalFacts = ApprovalFacts(), _ approval: SigningPolicy.Approval)
        throws -> ApprovalRule?
    {
        try ApprovalRules.rule(for: action, facts, approval: approval)
    }

    func testRollbackAndWhatCarriesOnAnApprovedDecisionNeverWait() throws {
        var facts = ApprovalFacts(highestShare: .full)
        facts.protectedKeys = { ["legal.terms"] }
        for action in [ChangeAction.revert, .pause, .resume, .ramp, .metricsIngest, .publish, .cancel] {
            XCTAssertNil(try rule(action, facts, everything), action.rawValue)
        }
        let scheduled = ApprovalFacts(highestShare: .full, appliesSchedule: true)
        XCTAssertNil(try rule(.promote, scheduled, everything), "guard applying a scheduled promote")
        XCTAssertNil(try rule(.complete, scheduled, everything), "guard applying a scheduled complete")
    }

    func testEachRuleCoversItsChangesAndOnlyWhenOn() throws {
        let ten = Percent(basisPoints: 1000)
        XCTAssertNil(try rule(.promote, ApprovalFacts(highestShare: ten), everything), "10% is not above 10%")
        XCTAssertEqual(
            try rule(.promote, ApprovalFacts(highestShare: Percent(basisPoints: 1001)), everything),
            .promoteAbove(ten))
        XCTAssertEqual(try rule(.schedule, ApprovalFacts(highestShare: .full), everything), .promoteAbove(ten))
        // An experiment that gives a variant more than the threshold, and a stop that ships one past it.
        let half = ApprovalFacts(highestShare: Percent(basisPoints: 5000))
        XCTAssertEqual(try rule(.experimentStart, half, everything), .promoteAbove(ten))
        XCTAssertEqual(try rule(.experimentStop, half, everything), .promoteAbove(ten))
        XCTAssertNil(try rule(.experimentStart, ApprovalFacts(highestShare: ten), everything))
        XCTAssertNil(try rule(.experimentStop, ApprovalFacts(), everything), "a stop that ships nothing, or guard's")
        XCTAssertNil(try rule(.promote, ApprovalFacts(highestShare: nil), everything), "a tester group")
        XCTAssertEqual(try rule(.complete, ApprovalFacts(), everything), .complete)
        var pack = ApprovalFacts()
        XCTAssertNil(try rule(.packAdd, pack, everything), "no protected key touched")
        pack.protectedKeys = { ["checkout.pay"] }
        XCTAssertEqual(try rule(.packAdd, pack, everything), .protectedKeys(["checkout.pay"]))
        XCTAssertEqual(try rule(.policySet, ApprovalFacts(), everything), .policy)
        XCTAssertEqual(try rule(.keys, ApprovalFacts(), everything), .keys)
        XCTAssertEqual(try rule(.signers, ApprovalFacts(), everything), .signers)
        for action in ChangeAction.allCases {
            XCTAssertNil(try rule(action, pack, SigningPolicy.Approval()), "every rule off: \(action.rawValue)")
        }
    }

    func testTheHighestShareIsTheRampsLastStep() {
        XCTAssertEqual(
            SignatureAuditor.highestShare([("Percent", "5%"), ("Ramp", "5%,25%,50% every 86400s")]),
            Percent(basisPoints: 5000))
        XCTAssertEqual(SignatureAuditor.highestShare([("Percent", "testers:qa")]), nil)
    }
}

/// How gpgv's status lines read as a verdict (`SignatureVerifier.openPGPVerdict`; the real runs are
/// in SignersTests), and the key inside an SSH signature.
final class SignatureVerdictTests: XCTestCase {
    let fingerprint = "0123456789ABCDEF0123456789ABCDEF01234567"

    func testGPGVStatusLinesBecomeVerdicts() {
        let valid =
            "[GNUPG:] NEWSIG\n[GNUPG:] GOODSIG 89ABCDEF01234567 Ola\n[GNUPG:] VALIDSIG \(fingerprint) 2026-12-01 1764579600 0 4 0 22 10 00 \(fingerprint)\n"
        XCTAssertEqual(
            SignatureVerifier.openPGPVerdict(valid, principals: [fingerprint: "ola@example.com"]),
            .verified(principal: "ola@example.com", key: fingerprint))
        XCTAssertEqual(SignatureVerifier.openPGPVerdict(valid, principals: [:]), .unknownKey(fingerprint))
        let missing =
            "[GNUPG:] ERRSIG 89ABCDEF01234567 22 10 00 1764579600 9 \(fingerprint)\n[GNUPG:] NO_PUBKEY 89ABCDEF01234567\n"
        XCTAssertEqual(SignatureVerifier.openPGPVerdict(missing, principals: [:]), .unknownKey(fingerprint))
        XCTAssertEqual(
            SignatureVerifier.openPGPVerdict("[GNUPG:] BADSIG 89ABCDEF01234567 Ola\n", principals: [:]),
            .bad("BAD signature"))
        XCTAssertEqual(
            SignatureVerifier.openPGPVerdict("", principals: [:]), .bad("gpgv found no good signature"))
    }

    func testTheKeyInsideAnSSHSignatureIsFoundAndADamagedOneIsNot() {
        // "SSHSIG", version 1, then the key as an SSH string: enough of a signature for the key.
        let key = Array("\u{0}\u{0}\u{0}\u{0B}ssh-ed25519".utf8) + [0, 0, 0, 32] + Array(repeating: 7, count: 32)
        let blob = Array("SSHSIG".utf8) + [0, 0, 0, 1] + [0, 0, 0, UInt8(key.count)] + key
        let armored =
            "-----BEGIN SSH SIGNATURE-----\n\(Data(blob).base64EncodedString())\n-----END SSH SIGNATURE-----\n"
        XCTAssertEqual(SignatureVerifier.sshSignatureKey(armored), key)
        XCTAssertNil(
            SignatureVerifier.sshSignatureKey("-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----"))
    }

    /// ssh-keygen judges valid-after and valid-before at the commit's committer time, as git has it.
    func testTheVerifyTimeIsTheCommittersInUTC() throws {
        let file = NSTemporaryDirectory() + "signed-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let object = """
            tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904
            author Ana <ana@example.com> 1700000000 +0300
            committer Ana <ana@example.com> 1764579600 +0300

            promote: committer 1 +0000
            """
        try Data(object.utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(SignatureVerifier.committerTime(file), "20251201090000Z")
    }
}
