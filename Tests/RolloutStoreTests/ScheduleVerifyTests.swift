import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// What `rollout verify` says about pending changes written behind rollout's back: a promote that
/// touches them without naming the change, a schedule that names one but writes nothing, and a
/// tip whose schedule file is damaged or names a pack the repository does not hold.
final class ScheduleVerifyTests: XCTestCase {
    private var path = ""
    private let time = Timestamp(iso8601: "2026-12-01T09:00:00Z")!

    override func setUp() {
        path = NSTemporaryDirectory() + "schedule-verify-\(UUID().uuidString)"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: path) }

    private func repository() throws -> (PackRepository, Actor) {
        let actor = try Actor.parse("Tester <tester@example.com>", from: "test")
        let (repository, _) = try PackRepository.create(
            at: path, files: [(StateLayout.policy, Array("{}\n".utf8))], actor: actor, time: time)
        return (repository, actor)
    }

    private func commit(_ change: Change, _ repository: PackRepository, _ actor: Actor) throws -> String {
        try XCTUnwrap(try repository.apply(actor: actor, time: { self.time }) { _ in (change, ()) }.commit).short
    }

    private func scheduleBytes(pack: String) -> [UInt8] {
        var schedule = Schedule(locale: "tr-TR")
        _ = schedule.add(
            PromoteRequest(
                pack: try! PackID.parse(pack), share: Percent(basisPoints: 1000), regions: nil, versions: nil,
                reason: nil),
            at: Timestamp(seconds: time.seconds + 86_400), accepting: [], by: "Tester", now: time)
        return JSONWriter.pretty(schedule.jsonValue)
    }

    func testAPromoteThatTouchesPendingChangesMustNameOne() throws {
        let (repository, actor) = try repository()
        let plan = JSONWriter.pretty(Plan(locale: "tr-TR").jsonValue)
        let promote = Change(
            summary: "promote tr-TR@18 to 10%", trailers: [(.action, "promote"), (.locale, "tr-TR")],
            writes: [
                (StateLayout.plan("tr-TR"), plan), (StateLayout.schedule("tr-TR"), scheduleBytes(pack: "tr-TR@18")),
            ])
        let short = try commit(promote, repository, actor)
        let problems = try Verifier.verify(repository).problems
        XCTAssertTrue(
            problems.contains {
                $0.commit == short && $0.message == "a promote without Rollout-Locale and Rollout-Schedule trailers"
            }, "\(problems)")
        XCTAssertTrue(
            problems.contains {
                $0.path == StateLayout.schedule("tr-TR")
                    && $0.message == "pending change 1 gives tr-TR@18; the repository does not hold it"
            }, "\(problems)")
    }

    func testAScheduleThatWritesNothingAndADamagedFileAreReported() throws {
        let (repository, actor) = try repository()
        let empty = Change(
            summary: "schedule", trailers: [(.action, "schedule"), (.locale, "tr-TR"), (.schedule, "1")],
            writes: [("README.md", [])])
        let short = try commit(empty, repository, actor)
        let damaged = Change(
            summary: "cancel", trailers: [(.action, "cancel"), (.locale, "tr-TR"), (.schedule, "1")],
            writes: [(StateLayout.schedule("tr-TR"), Array("{\"locale\": \"tr-TR\"}".utf8))])
        _ = try commit(damaged, repository, actor)
        let problems = try Verifier.verify(repository).problems
        XCTAssertTrue(
            problems.contains { $0.commit == short && $0.path == "README.md" },
            "a schedule may not touch it: \(problems)")
        XCTAssertTrue(
            problems.contains {
                $0.commit == short && $0.message == "Rollout-Schedule names a change, but this commit left it as it was"
            }, "\(problems)")
        XCTAssertTrue(
            problems.contains {
                $0.path == StateLayout.schedule("tr-TR")
                    && $0.message.contains("a schedule needs locale, nextId and pending")
            }, "\(problems)")
    }
}
