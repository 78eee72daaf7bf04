import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// The actions and trailers rollout writes are the ones docs/architecture.md ("Commit messages")
/// lists, and `rollout verify` has a rule for the files of each: a new action cannot be added
/// without its row in that table and its rule in `Verifier.allowed`.
final class ChangeVocabularyTests: XCTestCase {
    static let architecture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/architecture.md")

    /// The rows of the "Commit messages" table: each row's cells, without the header.
    static func commitMessageRows() throws -> [[String]] {
        let text = try String(contentsOf: architecture, encoding: .utf8)
        let section = try XCTUnwrap(text.components(separatedBy: "\n## Commit messages\n").dropFirst().first)
        let body = section.components(separatedBy: "\n## ").first ?? section
        let table = body.split(separator: "\n").drop { !$0.hasPrefix("| action |") }.prefix { $0.hasPrefix("|") }
        return table.dropFirst(2).map { row in
            row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The text between backticks in a cell, in order.
    static func quoted(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
    }

    func testTheDocumentedActionsAreExactlyTheActionsRolloutWrites() throws {
        let documented = try Self.commitMessageRows().map { try XCTUnwrap(Self.quoted($0[0]).first) }
        XCTAssertEqual(documented, ChangeAction.allCases.map(\.rawValue), "docs/architecture.md, Commit messages")
    }

    /// A promote records its `PromoteEffect`'s raw value as its action (RolloutModel cannot name
    /// `ChangeAction`): each effect that writes a commit is one of the actions above.
    func testAPromoteRecordsItsEffectAsAnAction() {
        XCTAssertEqual(ChangeAction(rawValue: PromoteEffect.staged.rawValue), .promote)
        XCTAssertEqual(ChangeAction(rawValue: PromoteEffect.completed.rawValue), .complete)
    }

    func testTheDocumentedTrailersAreExactlyTheTrailersRolloutWrites() throws {
        // A trailer is a capitalised name in the trailers column (`Allow-Removed-Keys: true` names
        // its value too); lower-case words there are values (`init`) and paths.
        let names = try Self.commitMessageRows().flatMap { Self.quoted($0[2]) }.compactMap { quoted -> String? in
            let name = String(quoted.prefix { $0 != ":" })
            return name.first?.isUppercase == true && name.allSatisfy({ $0.isLetter || $0 == "-" }) ? name : nil
        }
        XCTAssertEqual(Set(names), Set(Trailer.allCases.map(\.rawValue)), "docs/architecture.md, Commit messages")
    }

    /// docs/audit.md says what each action and trailer means to an auditor: its tables list the
    /// same actions, in the same order, and every trailer.
    func testTheAuditGuideListsEveryActionAndExplainsEveryTrailer() throws {
        let guide = Self.architecture.deletingLastPathComponent().appendingPathComponent("audit.md")
        let text = try String(contentsOf: guide, encoding: .utf8)
        let section = try XCTUnwrap(
            text.components(separatedBy: "\n### Commit messages and trailers\n").dropFirst().first)
        let lines = (section.components(separatedBy: "\n### ").first ?? section).split(separator: "\n")
        func firstCells(of header: String) -> [String] {
            lines.drop { !$0.hasPrefix(header) }.prefix { $0.hasPrefix("|") }.dropFirst(2).compactMap {
                Self.quoted(String($0.split(separator: "|").first ?? "")).first
            }
        }
        XCTAssertEqual(
            firstCells(of: "| action |"), ChangeAction.allCases.map(\.rawValue), "docs/audit.md, the action table")
        XCTAssertEqual(
            Set(firstCells(of: "| trailer |")), Set(Trailer.allCases.map { "Rollout-" + $0.rawValue }),
            "docs/audit.md, the table of what trailer values mean")
    }

    /// Files each action's commit may touch, and files it may not (of tr-TR, its Rollout-Locale).
    func examples(_ action: ChangeAction) -> (touches: [String], refuses: [String]) {
        let pack = PackID(locale: "tr-TR", contentVersion: 18)
        let digest = "sha256:" + String(repeating: "ab", count: 32)
        let rollup = MetricsLayout.rollup(.crash, locale: "tr-TR", day: 20_000)
        let ingest = MetricsLayout.provenance(digest, kind: .crash)
        let retraction = MetricsLayout.retraction(digest, kind: .crash)
        let plan = StateLayout.plan("tr-TR")
        switch action {
        case .initialize: return ([StateLayout.policy, "README.md"], [])
        case .packAdd: return ([StateLayout.pack(pack), StateLayout.packRecord(pack)], [plan, StateLayout.policy])
        case .policySet: return ([StateLayout.policy, StateLayout.siteSequence], [plan, StateLayout.pack(pack)])
        case .promote, .complete:
            return (
                [plan, StateLayout.schedule("tr-TR")], [StateLayout.plan("de-DE"), StateLayout.rollback("tr-TR/1")]
            )
        case .ramp, .pause, .resume:
            return ([plan], [StateLayout.schedule("tr-TR"), StateLayout.rollback("tr-TR/1")])
        case .schedule, .cancel:
            return ([StateLayout.schedule("tr-TR")], [plan, StateLayout.schedule("de-DE")])
        case .revert:
            return (
                [plan, StateLayout.rollback("tr-TR/1")], [StateLayout.plan("de-DE"), StateLayout.rollback("de-DE/1")]
            )
        case .metricsIngest: return ([rollup, ingest], [retraction, plan])
        case .metricsRetract: return ([rollup, retraction], [ingest, plan])
        case .keys:
            return (
                [StateLayout.keyList(2), StateLayout.keyListSignatures(2)], ["keys/notes.txt", StateLayout.policy]
            )
        case .publish: return ([], [StateLayout.siteSequence, plan])
        case .testersAdd, .testersRemove:
            return (
                [StateLayout.testers("qa"), plan, StateLayout.plan("de-DE")],
                [StateLayout.policy, StateLayout.schedule("tr-TR")]
            )
        case .experimentStart:
            return (
                [StateLayout.experiment("checkout-copy"), plan],
                [StateLayout.plan("de-DE"), StateLayout.rollback("tr-TR/1"), StateLayout.policy]
            )
        case .experimentStop:
            return (
                [StateLayout.experiment("checkout-copy"), plan, StateLayout.rollback("tr-TR/1")],
                [StateLayout.plan("de-DE"), StateLayout.rollback("de-DE/1"), StateLayout.schedule("tr-TR")]
            )
        case .signers:
            return (
                [StateLayout.allowedSigners, StateLayout.signerRoles, StateLayout.openPGPSigner("ana@example.com")],
                [StateLayout.policy, plan, "signers"]
            )
        }
    }

    func testEveryActionHasItsRuleForTheFilesItMayTouch() throws {
        let rows = try Self.commitMessageRows()
        for action in ChangeAction.allCases {
            let (touches, refuses) = examples(action)
            for path in touches {
                XCTAssertTrue(
                    Verifier.allowed(action, locale: "tr-TR", path: path),
                    "a \(action.rawValue) commit may touch \(path)")
            }
            for path in refuses {
                XCTAssertFalse(
                    Verifier.allowed(action, locale: "tr-TR", path: path),
                    "a \(action.rawValue) commit may not touch \(path)")
            }
            let row = rows.first { Self.quoted($0[0]).first == action.rawValue }
            let changesNoFile = row?.last?.contains("It changes no file") == true
            XCTAssertEqual(
                touches.isEmpty, changesNoFile, "\(action.rawValue): files it writes, as docs/architecture.md says")
        }
    }

    func testAnActionThisBuildDoesNotKnowIsReportedAndMayTouchNoFile() throws {
        let path = NSTemporaryDirectory() + "vocabulary-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let actor = try Actor.parse("Tester <tester@example.com>", from: "test")
        let time = Timestamp(iso8601: "2026-12-01T09:00:00Z")!
        let (repository, _) = try PackRepository.create(
            at: path, files: [(StateLayout.policy, Array("{}\n".utf8))], actor: actor, time: time)
        // What a newer rollout might write: an action, and a trailer, this build has no case for.
        let change = Change(
            summary: "archive tr-TR", trailers: [(.action, "archive"), (.locale, "tr-TR")],
            writes: [("archive/tr-TR", [])])
        let commit = try XCTUnwrap(try repository.apply(actor: actor, time: { time }) { _ in (change, ()) }.commit)
        XCTAssertNil(Change.trailers(of: try repository.git.commit(commit).message).action)

        let problems = try Verifier.verify(repository).problems.filter { $0.commit == commit.short }
        XCTAssertEqual(problems.map(\.path), ["archive/tr-TR", nil])
        XCTAssertEqual(
            problems.map(\.message),
            ["a archive of tr-TR commit may not touch this file", "has the unknown action archive"])
    }
}
