import Foundation
import RolloutCrypto
import XCTest

/// Scheduled changes (`promote --at`, `rollout cancel`, guard applying them; docs/health.md,
/// "Scheduled changes"): guard is the clock, driven here by ROLLOUT_NOW, never by sleeping.
final class ScheduleTests: XCTestCase {
    /// A repository with every example pack and tr-TR@17 as the baseline, made on 2026-12-01.
    private func baseline() throws -> Workspace {
        let w = try Workspace()
        w.environment["ROLLOUT_NOW"] = "2026-12-01T08:00:00Z"
        try w.initWithExamples()
        let promoted = try w.rollout("promote", "tr-TR@17", "--to", "100%")
        XCTAssertEqual(promoted.status, 0, promoted.output)
        return w
    }

    private func at(_ w: Workspace, _ time: String, _ arguments: String...) throws -> RunResult {
        try w.rollout(arguments, env: ["ROLLOUT_NOW": time])
    }

    /// The share of tr-TR@18's first rule, or nil when nothing is staged.
    private func share(_ w: Workspace) throws -> Int? {
        let plan = try XCTUnwrap(try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any])
        return (plan["rules"] as? [[String: Any]])?.first?["basisPoints"] as? Int
    }

    private func pending(_ w: Workspace) throws -> [[String: Any]] {
        try XCTUnwrap(try w.json(try w.rollout("status", "tr-TR", "--json"))["pending"] as? [[String: Any]])
    }

    private func assertVerifies(_ w: Workspace, file: StaticString = #filePath, line: UInt = #line) throws {
        let verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output, file: file, line: line)
    }

    /// 09:00 in Istanbul (+03:00) is 06:00 UTC: one second before, guard applies nothing; at the
    /// minute, it applies the promote and takes the change out of the pending list, in one commit.
    func testGuardAppliesAScheduleAtTheMinuteAcrossAnOffset() throws {
        let w = try baseline()
        let scheduled = try at(
            w, "2026-12-01T09:00:00Z", "promote", "tr-TR@18", "--to", "10%", "--at", "2026-12-10T09:00+03:00",
            "--reason", "campaign launch")
        XCTAssertEqual(scheduled.status, 0, scheduled.output)
        XCTAssertTrue(scheduled.stdout.contains("promote tr-TR@18 to 10% at 2026-12-10T06:00:00Z"), scheduled.output)
        XCTAssertNil(try share(w), "nothing is staged until it is due")
        try assertVerifies(w)

        let early = try at(w, "2026-12-10T05:59:59Z", "guard")
        XCTAssertEqual(early.status, 0, early.output)
        XCTAssertFalse(early.stdout.contains("applied"), early.output)
        XCTAssertTrue(
            early.stdout.hasSuffix(
                "Next scheduled change: tr-TR 1 at 2026-12-10T06:00:00Z, promote tr-TR@18 to 10%.\n"),
            early.output)
        XCTAssertNil(try share(w))
        XCTAssertEqual(try pending(w).count, 1)

        let due = try at(w, "2026-12-10T06:00:00Z", "guard")
        XCTAssertEqual(due.status, 0, due.output)
        XCTAssertTrue(
            due.stdout.contains("applied scheduled change 1: promote tr-TR@18 to 10%"), due.output)
        XCTAssertEqual(try share(w), 1000)
        XCTAssertEqual(try pending(w).count, 0)
        XCTAssertFalse(due.stdout.contains("Next scheduled change"), "nothing is left to wait for")
        let message = try w.git("log", "-1", "--format=%B", "refs/heads/main").stdout
        XCTAssertTrue(message.hasPrefix("promote tr-TR@18 to 10%\n"), message)
        for trailer in [
            "Rollout-Action: promote", "Rollout-Reason: campaign launch", "Rollout-Schedule: 1",
            "Rollout-Scheduled-By: Test Runner <test@example.com>",
        ] {
            XCTAssertTrue(message.contains(trailer + "\n"), "\(trailer) in:\n\(message)")
        }
        let files = try w.git("show", "--name-only", "--format=", "refs/heads/main").stdout
        XCTAssertEqual(files, "plans/tr-TR.json\nschedules/tr-TR.json\n")
        let status = try w.rollout("status", "tr-TR").stdout
        XCTAssertTrue(status.contains("last change     2026-12-10T06:00:00Z promote"), status)
        XCTAssertEqual(try at(w, "2026-12-10T06:15:00Z", "guard").stdout.contains("applied"), false, "applied once")
        try assertVerifies(w)
    }

    /// status lists what is pending (when, what, who); log shows the schedule and its application.
    func testStatusAndLogShowTheScheduleAndItsApplication() throws {
        let w = try baseline()
        XCTAssertEqual(
            try at(
                w, "2026-12-01T09:00:00Z", "promote", "tr-TR@18", "--ramp", "1,5,100", "--every", "12h", "--at",
                "2026-12-10T06:00:00Z"
            ).status, 0)
        let status = try w.rollout("status", "tr-TR").stdout
        XCTAssertTrue(status.contains("scheduled       1 pending"), status)
        XCTAssertTrue(
            status.contains(
                "    1  2026-12-10T06:00:00Z  promote tr-TR@18 to 1%, ramp 1%,5%,100%  by Test Runner <test@example.com> at 2026-12-01T09:00:00Z"
            ), status)
        let listed = try XCTUnwrap(try pending(w).first)
        XCTAssertEqual(listed["at"] as? String, "2026-12-10T06:00:00Z")
        XCTAssertEqual(listed["scheduledBy"] as? String, "Test Runner <test@example.com>")
        // Every locale at a glance lists it too, with the locale it belongs to.
        let overview = try at(w, "2026-12-01T09:00:00Z", "status").stdout
        XCTAssertTrue(
            overview.contains("  tr-TR 1  2026-12-10T06:00:00Z  promote tr-TR@18 to 1%, ramp 1%,5%,100%\n"), overview)
        let everywhere = try w.json(try w.rollout("status", "--json"))["pending"] as? [[String: Any]]
        XCTAssertEqual(everywhere?.map { $0["locale"] as? String }, ["tr-TR"])

        XCTAssertEqual(try at(w, "2026-12-10T07:00:00Z", "guard").status, 0)
        let plan = try XCTUnwrap(try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any])
        let ramp = try XCTUnwrap(plan["ramp"] as? [String: Any])
        XCTAssertEqual(ramp["since"] as? String, "2026-12-10T07:00:00Z", "the ramp starts when it is applied")
        let log = try w.rollout("log", "--locale", "tr-TR", "--limit", "2").stdout
        XCTAssertTrue(log.contains("  promote  "), log)
        XCTAssertTrue(log.contains("  schedule  "), log)
        XCTAssertTrue(
            log.contains("schedule promote tr-TR@18 to 1%, ramp 1%,5%,100% at 2026-12-10T06:00:00Z"), log)
        try assertVerifies(w)
    }

    /// cancel takes one change back (or every one), recorded with its reason; what it refuses.
    func testCancelRemovesAPendingChange() throws {
        let w = try baseline()
        for (share, time) in [("10%", "2026-12-10T06:00:00Z"), ("50%", "2026-12-11T06:00:00Z")] {
            let scheduled = try at(w, "2026-12-01T09:00:00Z", "promote", "tr-TR@18", "--to", share, "--at", time)
            XCTAssertEqual(scheduled.status, 0, scheduled.output)
        }
        let tip = try w.stateTip()
        let noReason = try w.rollout("cancel", "tr-TR", "1")
        XCTAssertEqual(noReason.status, 64, noReason.output)
        XCTAssertTrue(noReason.stderr.contains("--reason"), noReason.output)
        let unknown = try w.rollout("cancel", "tr-TR", "7", "--reason", "typo")
        XCTAssertEqual(unknown.status, 1, unknown.output)
        XCTAssertTrue(
            unknown.stderr.contains("tr-TR has no scheduled change 7; its pending changes are 1, 2"), unknown.output)
        XCTAssertEqual(try w.stateTip(), tip)

        let cancelled = try w.rollout("cancel", "tr-TR", "1", "--reason", "launch moved")
        XCTAssertEqual(cancelled.status, 0, cancelled.output)
        XCTAssertEqual(try pending(w).map { $0["id"] as? Int }, [2])
        let message = try w.git("log", "-1", "--format=%B", "refs/heads/main").stdout
        XCTAssertTrue(message.contains("Rollout-Action: cancel\n"), message)
        XCTAssertTrue(message.contains("Rollout-Schedule: 1\n"), message)
        XCTAssertTrue(message.contains("Rollout-Reason: launch moved\n"), message)

        XCTAssertEqual(try w.rollout("cancel", "tr-TR", "--reason", "campaign off").status, 0)
        XCTAssertEqual(try pending(w).count, 0)
        XCTAssertEqual(try at(w, "2026-12-12T00:00:00Z", "guard").status, 0)
        XCTAssertNil(try share(w), "a cancelled change is never applied")
        let nothing = try w.rollout("cancel", "tr-TR", "--reason", "again")
        XCTAssertEqual(nothing.status, 1, nothing.output)
        XCTAssertTrue(nothing.stderr.contains("tr-TR has no scheduled change to cancel"), nothing.output)
        let log = try w.rollout("log", "--locale", "tr-TR", "--limit", "2").stdout
        XCTAssertTrue(log.contains("cancel scheduled change 1 of tr-TR"), log)
        try assertVerifies(w)
    }

    /// What promote would refuse now is refused when scheduling; the repository is unchanged.
    func testSchedulingWhatPromoteWouldRefuseIsRefusedNow() throws {
        let w = try baseline()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "100%").status, 0)
        let tip = try w.stateTip()
        let older = try w.rollout("promote", "tr-TR@17", "--to", "10%", "--at", "2026-12-10T09:00+03:00")
        XCTAssertEqual(older.status, 1, older.output)
        XCTAssertTrue(older.stderr.contains("tr-TR@17 is older than the baseline tr-TR@18"), older.output)
        let same = try w.rollout("promote", "tr-TR@18", "--to", "100%", "--at", "2026-12-10T09:00+03:00")
        XCTAssertEqual(same.status, 1, same.output)
        let forced = try w.rollout(
            "promote", "tr-TR@18", "--to", "100%", "--at", "2026-12-10T09:00+03:00", "--force", "--reason", "x")
        XCTAssertEqual(forced.status, 64, forced.output)
        XCTAssertTrue(forced.stderr.contains("--force cannot be scheduled with --at"), forced.output)
        XCTAssertEqual(try w.stateTip(), tip)
    }

    /// A time in the past, or without its offset, is a usage error naming --at and the time.
    func testPastTimesAndTimesWithoutAnOffsetAreRefused() throws {
        let w = try baseline()
        let tip = try w.stateTip()
        // 10:59 in Istanbul is 07:59 UTC, before now (08:00 UTC).
        let past = try w.rollout("promote", "tr-TR@18", "--to", "10%", "--at", "2026-12-01T10:59+03:00")
        XCTAssertEqual(past.status, 64, past.output)
        XCTAssertTrue(
            past.stderr.contains(
                "--at 2026-12-01T10:59+03:00 is not in the future (2026-12-01T07:59:00Z, and it is 2026-12-01T08:00:00Z now)"
            ), past.output)
        let now = try w.rollout("promote", "tr-TR@18", "--to", "10%", "--at", "2026-12-01T08:00:00Z")
        XCTAssertEqual(now.status, 64, now.output)
        for text in ["2026-12-10T09:00", "2026-12-10", "tomorrow"] {
            let bad = try w.rollout("promote", "tr-TR@18", "--to", "10%", "--at", text)
            XCTAssertEqual(bad.status, 64, bad.output)
            XCTAssertTrue(bad.stderr.contains("--at \"\(text)\" is not a time with its UTC offset"), bad.output)
        }
        XCTAssertEqual(try w.stateTip(), tip)
    }

    /// A change refused when it is due stays pending, and guard exits 1 until someone acts.
    func testAChangeRefusedWhenDueStaysPendingAndGuardFails() throws {
        let w = try baseline()
        XCTAssertEqual(
            try at(w, "2026-12-01T09:00:00Z", "promote", "tr-TR@18", "--to", "50%", "--at", "2026-12-10T06:00:00Z")
                .status, 0)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "5%").status, 0)
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--reason", "typo in checkout").status, 0)
        let due = try at(w, "2026-12-10T06:00:00Z", "guard")
        XCTAssertEqual(due.status, 1, due.output)
        XCTAssertTrue(due.stdout.contains("scheduled change 1 refused: still pending"), due.output)
        XCTAssertTrue(
            due.stdout.contains(
                "tr-TR's scheduled change 1 (promote tr-TR@18 to 50%, due 2026-12-10T06:00:00Z) was refused and stays pending: tr-TR@18 is blocked"
            ), due.output)
        XCTAssertEqual(try pending(w).count, 1)
        XCTAssertEqual(try at(w, "2026-12-10T06:15:00Z", "guard").status, 1, "it fails until someone acts")
        XCTAssertEqual(try w.rollout("cancel", "tr-TR", "1", "--reason", "18 was reverted").status, 0)
        XCTAssertEqual(try at(w, "2026-12-10T06:30:00Z", "guard").status, 0)
        try assertVerifies(w)
    }

    /// The health gate decides again when the change is due: scheduled before anything was staged
    /// (no gate then), it has become a widening of a staged rollout without metrics, and waits.
    func testTheHealthGateDecidesAgainWhenDue() throws {
        let w = try baseline()
        XCTAssertEqual(
            try at(w, "2026-12-01T09:00:00Z", "promote", "tr-TR@18", "--to", "50%", "--at", "2026-12-10T06:00:00Z")
                .status, 0)
        XCTAssertEqual(try at(w, "2026-12-02T09:00:00Z", "promote", "tr-TR@18", "--to", "5%").status, 0)
        let due = try at(w, "2026-12-10T06:00:00Z", "guard")
        XCTAssertEqual(due.status, 1, due.output)
        XCTAssertTrue(due.stdout.contains("was refused and stays pending: tr-TR@18 is insufficient-data"), due.output)
        XCTAssertFalse(due.stdout.contains("--force"), "a scheduled change has no --force to take: \(due.output)")
        XCTAssertEqual(try share(w), 500, "the gate kept the widening back")
        XCTAssertEqual(try pending(w).map { $0["id"] as? Int }, [1])
    }

    /// --dry-run on promote --at and on cancel writes nothing: every file of the repository keeps its bytes.
    func testDryRunsLeaveTheRepositoryByteIdentical() throws {
        let w = try baseline()
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--at", "2026-12-10T09:00+03:00").status, 0)
        let before = try digest(of: w.repository)
        let dry = try w.rollout("promote", "tr-TR@18", "--to", "20%", "--at", "2026-12-11T09:00+03:00", "--dry-run")
        XCTAssertEqual(dry.status, 0, dry.output)
        XCTAssertTrue(dry.stdout.hasPrefix("Dry run: promote tr-TR@18 to 20% would be scheduled"), dry.output)
        let dryCancel = try w.rollout("cancel", "tr-TR", "--reason", "x", "--dry-run")
        XCTAssertEqual(dryCancel.status, 0, dryCancel.output)
        XCTAssertTrue(
            dryCancel.stdout.contains("  1  promote tr-TR@18 to 10% at 2026-12-10T06:00:00Z"), dryCancel.output)
        XCTAssertEqual(try digest(of: w.repository), before)
        XCTAssertEqual(try pending(w).count, 1)
    }

    /// Every file under `directory`, path and bytes, hashed in path order.
    private func digest(of directory: String) throws -> String {
        let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: directory)).sorted()
        var all: [UInt8] = []
        for path in files {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory)
            all += Array(path.utf8) + [0]
            if !isDirectory.boolValue {
                all += Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path)))
            }
        }
        return SHA256.hex(all)
    }
}
