import RolloutImport
import RolloutIngest
import RolloutModel
import RolloutReport
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
        let remote: [RemoteRefusal] = [
            .unreachable(
                doing: "fetch from", remote: "origin", url: "https://git.example.com/r", attempts: 3, gitSaid: []),
            .unreachable(
                doing: "push to", remote: "origin", url: "https://git.example.com/r", attempts: 3, gitSaid: ["reset"]),
            .unpushed(count: 2, remote: "origin"),
            .replayClash(
                mine: "promote", commit: "abc", path: "plans/tr-TR.json", remote: "origin", their: "revert",
                other: "def"),
        ]
        let store: [StoreRefusal] = [
            .noRepositoryFound(from: "/w"), .notADirectory("/w/site"), .noRamp(locale: "tr-TR", doing: "pause"),
            .lintRefused([removedKeys]), .unknownRevision("HEAD~9"), .beforeHistory("2020-01-01"),
        ]
        return promote + revert + gate + keys + store + remote + ingest + importing
            + [ReportRefusal.nothingPromoted(locale: "tr-TR")]
            + [
                ScheduleRefusal.wouldChangeNothing(id18, share: Percent(basisPoints: 1000)),
                ScheduleRefusal.nothingPending(locale: "tr-TR"),
                ScheduleRefusal.noSuchPending(locale: "tr-TR", id: 3, pending: [1, 2]),
                ScheduleRefusal.gateRefused(.refused(id18, .noMetrics), whenDue: true),
            ]
            + [
                TesterRefusal.badGroupName("QA"), TesterRefusal.badID(.space, text: "a b", file: nil, line: nil),
                TesterRefusal.badID(.control, text: "a\u{1B}", file: "ids.txt", line: 4),
                TesterRefusal.badID(.empty, text: "", file: nil, line: nil),
                TesterRefusal.badID(.tooLong(bytes: 300), text: "x", file: "ids.txt", line: 1),
                TesterRefusal.noIDsInFile("ids.txt"), TesterRefusal.noSuchGroup("qa", groups: ["beta"]),
            ]
            + signing + signers + admission + proposal
    }

    private var signers: [SignerRefusal] {
        [
            SignerRefusal.badAllowedSigner(file: "f", line: 1, .noKey),
            SignerRefusal.badAllowedSigner(file: "f", line: 1, .unclosedQuote),
            SignerRefusal.badAllowedSigner(file: "f", line: 1, .certificateAuthority),
            SignerRefusal.badAllowedSigner(file: "f", line: 1, .unknownOption("x")),
            SignerRefusal.badAllowedSigner(file: "f", line: 1, .unknownKeyType("x")),
            SignerRefusal.badAllowedSigner(file: "f", line: 1, .badKey("ssh-ed25519")),
            SignerRefusal.badRoles(file: "signers/roles.json", "bad"), SignerRefusal.unknownRole("root"),
            SignerRefusal.firstWithoutAdmin("a@x"), SignerRefusal.lastAdmin("a@x"),
            SignerRefusal.noSuchSigner("a@x", signers: ["b@x"]), SignerRefusal.badOpenPGPKey(file: "k", "bad"),
            SignerRefusal.badPrincipal("a b"),
        ]
    }

    private let admission: [AdmissionRefusal] = [
        .needsApproval(action: "promote", .promoteAbove(Percent(basisPoints: 1000))),
        .refused(action: "promote", [.selfApproval(principal: "ana@example.com")]),
    ]

    private let proposal: [ProposalRefusal] = [
        .unsigned, .nothingToPropose, .noSuchProposal("1a2b3c4d", open: []), .stale(id: "1a2b3c4d", paths: ["p"]),
        .badProposal(id: "1a2b3c4d", [.unsigned]),
    ]

    private var signing: [SigningRefusal] {
        let ssh = SignerSetup(
            format: .ssh, program: "ssh-keygen", programKey: nil, key: "~/.ssh/a.pub", keyIsCommitter: false)
        let gpg = SignerSetup(
            format: .openpgp, program: "gpg", programKey: "gpg.program", key: "A <a@x>", keyIsCommitter: true)
        return [
            .unsupportedFormat("x509"), .noSSHKey, .noDefaultKey(command: "ssh-add -L", said: ["no identities"]),
            .programMissing(ssh, why: "cannot run ssh-keygen: not found"),
            .keyFileMissing(ssh, path: "/h/.ssh/a.pub"), .noAgent(ssh), .keyNotInAgent(ssh), .needsPassphrase(ssh),
            .noSecretKey(gpg), .failed(gpg, status: 2, said: ["gpg: signing failed"]), .timedOut(ssh, seconds: 30),
        ]
    }

    private var removedKeys: LintFinding {
        LintFinding(
            severity: .error, rule: "removed-keys", pack: id18, key: "a", message: "1 key(s) removed since tr-TR@17: a",
            override: .allowRemovedKeys)
    }

    private let ingest: [IngestRefusal] = [
        .gzipTextOverLimit(file: "a.csv.gz", text: 2049, limit: 2048),
        .gzipRatioOverLimit(file: "a.csv.gz", text: 5_000_000, consumed: 4096, limit: 200),
        .headerLacks(place: "a.csv:1", missing: ["sessions"], found: ["date"], kind: .crash),
        .invalidRows(file: "a.csv", shown: [.init(line: 3, message: "bad")], count: 2, rows: 9),
        .ingestedAsSeveralKinds(source: "a.csv", kinds: [.crash, .fallback]),
        .ingestedAsSeveralKinds(source: "a.csv", kinds: [.crash, .outcome("a")!, .outcome("b")!]),
        .headerLacks(place: "a.csv:1", missing: ["metric"], found: ["date"], kind: nil),
        .headerLacks(place: "a.csv:1", missing: ["metric"], found: ["date"], kind: .outcome("checkout")!),
        .noRowsOfMetric(file: "a.csv", metric: "checkout", others: ["signup", "tap"]),
        .noRowsOfMetric(file: "a.csv", metric: "checkout", others: []), .namesNoMetric(file: "a.csv"),
        .notADigest(source: "x", minimumPrefix: 12),
        .noSuchIngest(source: "sha256:0", kind: nil), .noSuchIngest(source: "sha256:0", kind: "fallback"),
        .noSuchIngest(source: "sha256:0", kind: "an outcome kind"),
        .damagedProvenance(path: "metrics/p.json"),
    ]

    private let importing: [ImportRefusal] = [
        .catalogTooLarge(path: "L.xcstrings", bytes: 70, limit: 64),
        .localesMatchNone(catalog: "L.xcstrings", asked: ["de", "fr"], has: []),
        .catalogHasNoStrings(catalog: "L.xcstrings"),
        .sourceLocaleNotInCatalog(catalog: "L.xcstrings", source: "en-US", has: ["de"], dependents: ["de"]),
        .sourceLocaleNotImported(catalog: "L.xcstrings", source: "en", dependents: ["fr"]),
        .sourceLocaleLeftOut(catalog: "L.xcstrings", source: "en", dependents: ["fr"]),
        .noMinAppVersion(locale: "fr"),
    ]

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

    /// Ingest, import and report: the flag or command that gets past each refusal.
    func testTheIngestImportAndReportSentencesNameTheFlag() {
        XCTAssertEqual(
            Refusals.message(
                IngestRefusal.invalidRows(
                    file: "a.csv", shown: [.init(line: 3, message: "bad")], count: 2, rows: 9)),
            "a.csv: 2 of 9 rows are invalid; nothing was ingested (--skip-invalid keeps the good rows):\n  a.csv:3: bad\n  ... and 1 more"
        )
        // No good row: the flag would keep nothing, and is not offered.
        XCTAssertEqual(
            Refusals.message(
                IngestRefusal.invalidRows(file: "a.csv", shown: [.init(line: 2, message: "bad")], count: 1, rows: 1)),
            "a.csv: its one row is invalid; nothing was ingested:\n  a.csv:2: bad")
        XCTAssertEqual(
            Refusals.message(
                IngestRefusal.headerLacks(place: "a.csv:1", missing: ["sessions"], found: ["date"], kind: .crash)),
            "a.csv:1: the header lacks sessions (found: date); a crash CSV needs date, locale, pack, region, app_version, sessions, crashes; --map NAME=COLUMN renames"
        )
        XCTAssertEqual(
            Refusals.worded(IngestRefusal.ingestedAsSeveralKinds(source: "a.csv", kinds: [.crash, .fallback])),
            .usage("a.csv was ingested as both crash and fallback; say which to retract with --kind"))
        XCTAssertEqual(
            Refusals.message(
                IngestRefusal.noRowsOfMetric(file: "a.csv", metric: "checkout", others: ["signup"])),
            "a.csv: no row has metric checkout, so nothing was ingested as outcome-checkout: it names signup; "
                + "ingest those with --kind outcome-signup, or every metric of the file with --kind outcome")
        XCTAssertEqual(
            Refusals.message(
                IngestRefusal.headerLacks(place: "a.csv:1", missing: ["metric"], found: ["date"], kind: nil)),
            "a.csv:1: the header lacks metric (found: date); an outcome CSV needs date, locale, pack, region, "
                + "app_version, metric, exposures, conversions; --map NAME=COLUMN renames")
        XCTAssertEqual(
            Refusals.worded(IngestRefusal.noSuchIngest(source: "sha256:000000000000", kind: nil)),
            .missing(
                "sha256:000000000000: no file with this digest was ingested; rollout log lists the ingests with their digests"
            ))
        XCTAssertEqual(
            Refusals.message(ImportRefusal.localesMatchNone(catalog: "L.xcstrings", asked: ["de", "fr"], has: [])),
            "L.xcstrings: --locale de, fr matches no locale of the catalog; it has none")
        XCTAssertEqual(
            Refusals.message(
                ImportRefusal.sourceLocaleNotImported(catalog: "L.xcstrings", source: "en", dependents: ["fr"])),
            "L.xcstrings: the source locale en has no stored pack and is not imported: add --locale en (or import it first); 1 locale(s) (fr) fall back to it"
        )
        XCTAssertEqual(
            Refusals.worded(ImportRefusal.noMinAppVersion(locale: "fr")),
            .usage(
                "fr has no stored pack to take minAppVersion from: give --min-app-version V (the oldest app version these strings suit)"
            ))
        XCTAssertEqual(
            Refusals.worded(ReportRefusal.nothingPromoted(locale: "vi-VN")),
            .checkFailed(
                "nothing was ever promoted for vi-VN: there is no rollout to report on yet (rollout promote vi-VN@N --to 10% starts one)"
            ))
    }

    /// A scheduled change takes no --force, and once guard applies it no --accept-insufficient
    /// either: its sentence offers only what can be taken then.
    func testAScheduledChangeTheGateRefusesOffersOnlyWhatCanBeTaken() {
        let byHand = Refusals.message(GateRefusal.refused(id18, .noMetrics))
        let due = Refusals.message(ScheduleRefusal.gateRefused(.refused(id18, .noMetrics), whenDue: true))
        XCTAssertTrue(byHand.hasSuffix("; override with --force --reason TEXT"), byHand)
        XCTAssertEqual(due + "; override with --force --reason TEXT", byHand)
        XCTAssertFalse(due.contains("--"), due)
        let unproven = PromoteGate.Refusal.unproven([])
        let scheduling = Refusals.message(ScheduleRefusal.gateRefused(.refused(id18, unproven), whenDue: false))
        XCTAssertTrue(scheduling.contains(", or accept them with"), "it may be scheduled accepting them: \(scheduling)")
        let applying = Refusals.message(ScheduleRefusal.gateRefused(.refused(id18, unproven), whenDue: true))
        XCTAssertFalse(applying.contains("--accept-insufficient"), applying)
    }

    /// Through the runner, a refusal reaches the person as a `RolloutError` with its exit code; any
    /// other error is not mistaken for one.
    /// A signing failure says what git config said, the git config line or command that fixes it,
    /// and --no-sign, the way to make the change unsigned.
    func testASigningFailureNamesTheConfigAndTheWayOut() {
        let gpg = SignerSetup(
            format: .openpgp, program: "gpg", programKey: nil, key: "Ana <ana@example.com>", keyIsCommitter: true)
        XCTAssertEqual(
            Refusals.message(SigningRefusal.noSecretKey(gpg)),
            "cannot sign the change with gpg, gpg.format=openpgp, the committer's key Ana <ana@example.com>, as user.signingKey is not set: gpg holds no secret key for it; set git config user.signingKey KEYID to a key gpg --list-secret-keys shows. Nothing was changed; to make this change unsigned, run it again with --no-sign"
        )
        XCTAssertEqual(
            Refusals.message(SigningRefusal.noSSHKey),
            "git config asks for signed commits with gpg.format=ssh, but user.signingKey is not set: name your key with git config user.signingKey ~/.ssh/id_ed25519.pub (or key::ssh-ed25519 AAAA... for a key held in ssh-agent). Nothing was changed; to make this change unsigned, run it again with --no-sign"
        )
        XCTAssertEqual(Refusals.worded(SigningRefusal.noSSHKey)?.kind.exitCode.rawValue, 69)
    }

    func testOnlyRefusalsAndRolloutErrorsAreWorded() {
        XCTAssertEqual(Refusals.worded(RolloutError.missing("x")), .missing("x"))
        XCTAssertNil(Refusals.worded(CocoaError(.fileNoSuchFile)))
        XCTAssertEqual(Refusals.worded(RevertRefusal.segmentWithTarget)?.exitCode, 64)
        XCTAssertEqual(Refusals.worded(RevertRefusal.targetBlocked(locale: "tr-TR", version: 16))?.exitCode, 1)
    }

    /// Lint says what is wrong; the command line adds the flag that gets past it, in the text, the
    /// JSON and a refusal's listing alike.
    func testLintFindingsNameTheFlagThatGetsPastThem() {
        let protected = LintFinding(
            severity: .error, rule: "protected-key", pack: id18, key: "legal",
            message: "changes protected key \"legal\"",
            override: .approval)
        XCTAssertEqual(
            protected.sentence,
            "changes protected key \"legal\"; it may not change over the air without --approved-by NAME")
        XCTAssertEqual(
            removedKeys.sentence, "1 key(s) removed since tr-TR@17: a. Pass --allow-removed-keys if that is intended")
        XCTAssertEqual(removedKeys.jsonValue.objectValue?["message"], .string(removedKeys.sentence))
        let plain = LintFinding(severity: .warning, rule: "secret", pack: id18, key: nil, message: "looks like a key")
        XCTAssertEqual(plain.sentence, "looks like a key", "no override: nothing added")
        XCTAssertEqual(
            Refusals.worded(StoreRefusal.lintRefused([removedKeys, plain])),
            .badInput(
                "refused, nothing was stored (2 problems):\n  tr-TR@18 \"a\": \(removedKeys.sentence) [removed-keys]\n  tr-TR@18: looks like a key [secret]"
            ))
    }

    /// guard's ACTION column: what guard did, and for an unhealthy rollout it leaves in place, the
    /// two commands that take it back.
    func testGuardsActionColumnSaysWhatToDoNext() {
        let step = Guard.RampStep(share: Percent(basisPoints: 500), after: Timestamp(seconds: 1_795_000_000))
        let cases: [(GuardLoop.Row.Action, String)] = [
            (.decided(.reportUnhealthy), "unhealthy: run rollout revert tr-TR, or guard --auto-revert"),
            (.decided(.leave(nextStep: nil)), "none"),
            (.decided(.holdForData(nextStep: step)), "hold: not enough data yet; ramp to 5% after \(step.after)"),
            (.decided(.holdForMismatch(["TR/4.8"])), "held: sample ratio mismatch in TR/4.8; see rollout health tr-TR"),
            (.decided(.holdRampForData(segments: ["DE/4.8"])), "ramp held: not enough data yet in DE/4.8"),
            (.decided(.holdRampForFreshMetrics), "ramp held: no metrics since this step began"),
            (.decided(.rampPaused), "ramp paused"),
            (.reverted(rollback: "rb-0003"), "reverted: rollback rb-0003"),
            (.reverted(rollback: nil), "already reverted"),
            (.rampAdvanced(to: "10%"), "ramp advanced to 10%"), (.rampAdvanced(to: nil), "ramp not advanced"),
            (.notGuarded, "not guarded"),
            (
                .scheduleApplied(id: 1, change: "promote tr-TR@19 to 10%", effect: .staged),
                "applied scheduled change 1: promote tr-TR@19 to 10%"
            ),
            (
                .scheduleApplied(id: 2, change: "promote tr-TR@19 to 100%", effect: .completed),
                "applied scheduled change 2: promote tr-TR@19 to 100%, now the baseline"
            ),
            (
                .scheduleApplied(id: 3, change: "promote tr-TR@19 to 10%", effect: .unchanged),
                "dropped scheduled change 3: it would change nothing"
            ),
            (
                .scheduleApplied(id: 4, change: "promote tr-TR@19 to 10%", effect: nil),
                "scheduled change 4 was cancelled meanwhile"
            ),
            (
                .scheduleRefused(id: 5, change: "promote tr-TR@19 to 10%", due: Timestamp(seconds: 0)),
                "scheduled change 5 refused: still pending"
            ),
        ]
        for (action, column) in cases { XCTAssertEqual(GuardCommand.column(action, locale: "tr-TR"), column) }
    }
}
