import RolloutModel
import RolloutStore
import XCTest

@testable import RolloutCLI

/// The library targets refuse with data (`Refusal`); the command line words each refusal and its
/// next step in one place (`Refusals`). Here is the English, once.
final class RefusalWordingTests: XCTestCase {
    private let id18 = PackID(locale: "tr-TR", contentVersion: 18)
    private let rule = Plan.Rule(
        pack: Plan.PackRef(contentVersion: 18, minAppVersion: AppVersion("4.8")!), regions: ["TR"],
        versions: try! VersionRange.parse(">=4.9"), share: Percent(basisPoints: 5000), salt: "s")

    /// One of every case: each has its own sentence (never the fallback for a refusal nobody worded),
    /// and keeps the exit code its kind says.
    private var everyCase: [any Refusal] {
        let promote: [PromoteRefusal] = [
            .blocked(id18, nextFree: 19), .olderThanBaseline(id18, baseline: 19), .alreadyBaseline(id18),
            .loweringWithoutReason(id18), .otherCandidateStaged(locale: "tr-TR", candidate: 18, staged: "10% in TR"),
            .underKillSwitch(id18),
            .ruleNeverApplies(rule, winner: nil, tooOld: true, pack: id18, minAppVersion: AppVersion("4.8")!),
        ]
        let revert: [RevertRefusal] = [
            .notATarget("0", locale: "tr-TR"), .targetOfAnotherLocale("de-DE@3", id18, locale: "tr-TR"),
            .segmentWithTarget, .nothingStagedToWithdraw(locale: "tr-TR", segment: "TR/*"),
            .nothingPromoted(locale: "tr-TR"), .noEarlierBaseline(locale: "tr-TR", baseline: 17),
            .targetBlocked(locale: "tr-TR", version: 16), .targetNotEarlier(locale: "tr-TR", version: 17),
        ]
        let gate: [GateRefusal] = [
            .forceWithoutReason, .acceptanceNotJudged, .strayAcceptance(SegmentPattern("DE/4.8")!, targeted: []),
            .strayAcceptance(SegmentPattern("DE/4.8")!, targeted: ["TR/4.8"]), .refused(id18, .noMetrics),
            .refused(id18, .unhealthy(deciding: nil)), .refused(id18, .held([])), .refused(id18, .unproven([])),
        ]
        let keys: [KeyRefusal] = [
            .alreadyInitialized(version: 1), .noKeyList,
            .notARoot(file: "r.key", id: "0011223344556677", role: "publishing", version: 2, roots: ["aa"]),
            .notARoot(file: "r.key", id: "0011223344556677", role: nil, version: 2, roots: ["aa"]),
            .tooFewRoots(given: ["a.key"], distinct: 1, threshold: 2, roots: 3, version: 4),
            .alreadyRevoked(id: "0011223344556677", reason: "lost", time: Timestamp(seconds: 0)),
            .revokingARoot(id: "0011223344556677"), .keptNotARoot("0011", version: 2, roots: ["aa"]),
            .unknownKey("0011", version: 2), .ambiguousKey("0011", matches: ["0011a", "0011b"]), .shortKeyID("00"),
            .untrusted(.damaged(file: "keys.json", why: "bad")), .invalid("has no root"),
            .expiryTooLate(lifetime: 86_400, from: Timestamp(seconds: 0)),
        ]
        let store: [StoreRefusal] = [
            .noRepositoryFound(from: "/w"), .notADirectory("/w/site"), .noRamp(locale: "tr-TR", doing: "pause"),
        ]
        return promote + revert + gate + keys + store
    }

    func testEveryRefusalHasItsOwnSentenceAndItsKindsExitCode() throws {
        var seen: Set<String> = []
        for refusal in everyCase {
            let worded = try XCTUnwrap(Refusals.worded(refusal))
            XCTAssertFalse(worded.message.hasPrefix("refused:"), "\(refusal) has no wording")
            XCTAssertEqual(worded.kind, refusal.kind, "\(refusal)")
            XCTAssertTrue(seen.insert(worded.message).inserted, "\(refusal) shares its sentence")
        }
    }

    /// The sentences name the command line's flags and commands: the next step a person types.
    func testTheSentencesNameTheNextStep() {
        XCTAssertEqual(
            Refusals.message(PromoteRefusal.loweringWithoutReason(id18)),
            "lowering the share of tr-TR@18 takes devices back off it; say why with --reason TEXT")
        XCTAssertEqual(
            Refusals.message(PromoteRefusal.otherCandidateStaged(locale: "tr-TR", candidate: 18, staged: "10% in TR")),
            "tr-TR@18 is still staged (10% in TR). Finish it first with rollout promote tr-TR@18 --to 100%, or take it back with rollout revert tr-TR"
        )
        XCTAssertEqual(
            Refusals.message(GateRefusal.forceWithoutReason),
            "--force overrides the health gate; say why with --reason TEXT")
        XCTAssertEqual(
            Refusals.message(GateRefusal.strayAcceptance(SegmentPattern("DE/4.8")!, targeted: ["TR/4.8", "TR/4.9"])),
            "--accept-insufficient DE/4.8 names no segment this promote widens (it widens: TR/4.8, TR/4.9)")
        XCTAssertEqual(
            Refusals.message(RevertRefusal.segmentWithTarget),
            "--segment takes devices back to the baseline; it cannot be combined with --to")
        XCTAssertEqual(
            Refusals.message(RevertRefusal.notATarget("0", locale: "tr-TR")),
            "--to \"0\" is not a content version (16, or tr-TR@16) or bundled")
        XCTAssertEqual(
            Refusals.message(RevertRefusal.targetOfAnotherLocale("de-DE@3", id18, locale: "tr-TR")),
            "--to de-DE@3 is a tr-TR pack; reverting tr-TR needs a tr-TR version")
        XCTAssertEqual(
            Refusals.message(
                PromoteRefusal.ruleNeverApplies(
                    rule, winner: nil, tooOld: true, pack: id18, minAppVersion: AppVersion("4.8")!)),
            "a rule for TR on >=4.9 would never apply: every device it would reach is below tr-TR@18's minAppVersion 4.8. Use targeting that does not overlap it, or change the share of the rule that decides"
        )
    }

    /// Through the runner, a refusal reaches the person as a `RolloutError` with its exit code; any
    /// other error is not mistaken for one.
    func testOnlyRefusalsAndRolloutErrorsAreWorded() {
        XCTAssertEqual(Refusals.worded(RolloutError.missing("x")), .missing("x"))
        XCTAssertNil(Refusals.worded(CocoaError(.fileNoSuchFile)))
        XCTAssertEqual(Refusals.worded(RevertRefusal.segmentWithTarget)?.exitCode, 64)
        XCTAssertEqual(Refusals.worded(RevertRefusal.targetBlocked(locale: "tr-TR", version: 16))?.exitCode, 1)
    }
}
