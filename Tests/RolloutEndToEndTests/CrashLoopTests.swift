import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

extension ClientWorld {
    /// A process start of the app on device `device` (docs/client.md#activation-and-rollback-on-the-device):
    /// a launch that is not followed by `markLaunchSucceeded()` is one that died before its first screen.
    func launch(
        _ device: String = "phone", attempts: Int = 2, countsLaunch: Bool = true, budget: Int? = nil,
        app: String = "4.8.1",
        now: @escaping @Sendable () -> Date = { CounterDays.date("2026-11-28") }
    ) -> RolloutClient {
        var options = RolloutClient.Options()
        options.transport = transport
        options.installID = "install-\(device)"
        options.launchAttempts = attempts
        options.countsLaunch = countsLaunch
        options.storageBudget = budget
        options.minimumRefreshInterval = 0
        options.now = now
        return client(device, options: options, app: app)
    }

    /// A device whose launches reached their first screen on tr-TR@17 (the guard is armed), with
    /// tr-TR@18 published and waiting in its pending slot: the next start activates it.
    func deviceWithEighteenPending(_ device: String = "phone") async throws -> RolloutClient {
        let first = launch(device)
        await first.refreshAndActivate()
        first.markLaunchSucceeded()
        XCTAssertEqual(first.launchStatus.armed, true)
        XCTAssertEqual(first.launchStatus.awaitingSuccess, [])
        try promoteEighteen()
        let staged = await first.refresh()
        XCTAssertEqual(staged, .staged(staged: [PackID("tr-TR@18")], dropped: []))
        return first
    }
}

/// Where to cut a process that writes `total` units (bytes, renames, removals: DeviceStorage.budget):
/// every unit within 3 of each boundary (the ends of each write, the renames), every 37th between,
/// and `total + 1`, a process that finishes.
enum KillSweep {
    static func cuts(total: Int, boundaries: [Int]) -> [Int] {
        var cuts = Set(stride(from: 0, through: total, by: 37))
        for boundary in boundaries { cuts.formUnion(max(0, boundary - 3)...min(total, boundary + 3)) }
        cuts.insert(total + 1)
        return cuts.sorted()
    }
}

enum CounterDays {
    static func date(_ day: String) -> Date { ISO8601DateFormatter().date(from: "\(day)T10:00:00Z")! }
}

/// Crash-loop protection: a pack activated since the last launch that reached its first screen is
/// rolled back when `launchAttempts` launches in a row end before `markLaunchSucceeded()`.
final class CrashLoopTests: XCTestCase {
    func testAPackThatCrashesEveryLaunchIsRolledBackAfterTwoLaunchesAndNeverComesBack() async throws {
        let world = try ClientWorld()
        _ = try await world.deviceWithEighteenPending()

        let crashing1 = world.launch()
        XCTAssertEqual(crashing1.activePack, PackID("tr-TR@18"), "the pending pack becomes active at the next start")
        XCTAssertEqual(crashing1.string("home.title"), "Hoş geldin")
        XCTAssertEqual(crashing1.launchStatus.awaitingSuccess, [PackID("tr-TR@18")])
        XCTAssertEqual(crashing1.launchStatus.launchesSinceActivation, 1)
        XCTAssertEqual(crashing1.launchStatus.failedLaunches, 0)
        XCTAssertFalse(crashing1.launchStatus.previousLaunchFailed)
        // ...and the app dies before its first screen, twice.
        let crashing2 = world.launch()
        XCTAssertEqual(crashing2.activePack, PackID("tr-TR@18"), "one failed launch is not a loop")
        XCTAssertEqual(crashing2.launchStatus.failedLaunches, 1)
        XCTAssertEqual(crashing2.launchStatus.launchesSinceActivation, 2)
        XCTAssertTrue(crashing2.launchStatus.previousLaunchFailed)

        let third = world.launch()
        XCTAssertEqual(third.activePack, PackID("tr-TR@17"), "the previous pack, before the first string")
        XCTAssertEqual(third.string("home.title"), "Hoş gledin")
        XCTAssertEqual(third.launchStatus.rolledBack, [PackID("tr-TR@18")])
        XCTAssertEqual(third.launchStatus.rollbacks, 1)
        XCTAssertEqual(third.launchStatus.awaitingSuccess, [], "tr-TR@17 reached a first screen before")
        XCTAssertEqual(
            third.metricsCSV(.crash),
            "date,locale,pack,region,app_version,sessions,crashes\n2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,2,2\n",
            "each launch that died is a session and a crash of the pack it died with")
        third.markLaunchSucceeded()

        // The manifest keeps offering tr-TR@18: it is not downloaded nor activated again.
        world.transport.clearLog()
        let refreshed = await third.refresh()
        XCTAssertEqual(refreshed, .upToDate(dropped: []))
        XCTAssertFalse(world.transport.fetched.contains { $0.hasPrefix("packs/") }, "\(world.transport.fetched)")
        XCTAssertEqual(third.activatePending(), [])
        let later = world.launch()
        XCTAssertEqual(later.activePack, PackID("tr-TR@17"))
        XCTAssertEqual(later.launchStatus.rolledBack, [PackID("tr-TR@18")])
        XCTAssertFalse(later.launchStatus.previousLaunchFailed)
    }

    func testAnActivationBeforeTheFirstScreenThenACrashCountsThatLaunch() async throws {
        let world = try ClientWorld()
        let first = world.launch()
        await first.refreshAndActivate()
        first.markLaunchSucceeded()
        try world.promoteEighteen()

        let activating = world.launch()
        _ = await activating.refresh()
        XCTAssertEqual(activating.activatePending(), [PackID("tr-TR@18")], "before its first screen")
        XCTAssertEqual(activating.launchStatus.awaitingSuccess, [PackID("tr-TR@18")])
        // ...and it dies.
        let second = world.launch()
        XCTAssertEqual(second.activePack, PackID("tr-TR@18"))
        XCTAssertEqual(second.launchStatus.failedLaunches, 1, "the launch it was activated in counts")
        XCTAssertEqual(second.launchStatus.launchesSinceActivation, 2)
        let third = world.launch()
        XCTAssertEqual(third.activePack, PackID("tr-TR@17"))
        XCTAssertEqual(third.launchStatus.rolledBack, [PackID("tr-TR@18")])
        XCTAssertTrue(third.metricsCSV(.crash).contains("tr-TR@18,TR,4.8.1,2,2\n"), third.metricsCSV(.crash))
    }

    func testSuccessBeforeAnActivationDoesNotVouchForTheNewPack() async throws {
        let world = try ClientWorld()
        let first = world.launch()
        await first.refreshAndActivate()
        first.markLaunchSucceeded()
        try world.promoteEighteen()

        let running = world.launch()
        running.markLaunchSucceeded()
        _ = await running.refresh()
        XCTAssertEqual(running.activatePending(), [PackID("tr-TR@18")], "mid-session, after the first screen")
        XCTAssertEqual(
            running.launchStatus.awaitingSuccess, [PackID("tr-TR@18")],
            "no launch has reached a first screen with it yet")
        // It ends (how does not matter: it had reached its first screen), then two launches die.
        let dying = world.launch()
        XCTAssertFalse(dying.launchStatus.previousLaunchFailed)
        XCTAssertEqual(dying.launchStatus.launchesSinceActivation, 1)
        XCTAssertEqual(world.launch().activePack, PackID("tr-TR@18"))
        XCTAssertEqual(world.launch().activePack, PackID("tr-TR@17"))
    }

    func testALaunchThatReachesItsFirstScreenConfirmsThePack() async throws {
        let world = try ClientWorld()
        _ = try await world.deviceWithEighteenPending()
        _ = world.launch()
        let succeeding = world.launch()
        XCTAssertEqual(succeeding.launchStatus.failedLaunches, 1)
        succeeding.markLaunchSucceeded()
        XCTAssertEqual(succeeding.launchStatus.awaitingSuccess, [])
        // From now on tr-TR@18 is a good pack: crashes are the crash reporter's and the server's business.
        for attempt in 1...4 {
            let launched = world.launch()
            XCTAssertEqual(launched.activePack, PackID("tr-TR@18"), "launch \(attempt)")
            XCTAssertEqual(launched.launchStatus.rolledBack, [])
        }
    }

    func testTheGuardStaysOffUntilTheAppHasCalledMarkLaunchSucceeded() async throws {
        let world = try ClientWorld()
        let first = world.launch()
        await first.refreshAndActivate()
        try world.promoteEighteen()
        _ = await first.refresh()
        for attempt in 1...4 {
            let launched = world.launch()
            XCTAssertEqual(
                launched.activePack, PackID("tr-TR@18"),
                "launch \(attempt): an app that never calls it never loses a pack")
            XCTAssertFalse(launched.launchStatus.armed)
            XCTAssertEqual(launched.launchStatus.awaitingSuccess, [])
        }
        XCTAssertEqual(
            world.launch().metricsCSV(.crash), "date,locale,pack,region,app_version,sessions,crashes\n",
            "and counts no crashes")
    }

    func testAPackRolledBackWithNoPreviousOneLeavesTheBundledStrings() async throws {
        let world = try ClientWorld()
        let first = world.launch()
        first.markLaunchSucceeded()  // on the bundled strings: armed, nothing to confirm
        await first.refreshAndActivate()
        XCTAssertEqual(
            Set(first.launchStatus.awaitingSuccess), [PackID("tr-TR@17"), PackID("tr@1"), PackID("en-US@1")])
        _ = world.launch()
        _ = world.launch()
        let third = world.launch()
        XCTAssertEqual(third.activePacks, [], "the packs activated together go back together")
        XCTAssertEqual(Set(third.launchStatus.rolledBack), [PackID("tr-TR@17"), PackID("tr@1"), PackID("en-US@1")])
        XCTAssertEqual(third.launchStatus.rollbacks, 3)
        XCTAssertEqual(third.string("home.title"), "Hoş geldin (paket içi)")
        let refreshed = await third.refresh()
        XCTAssertEqual(refreshed, .upToDate(dropped: []), "none of them is downloaded again")
    }

    func testLaunchAttemptsIsConfigurableAndAnInspectingClientIsNotALaunch() async throws {
        let world = try ClientWorld()
        _ = try await world.deviceWithEighteenPending()
        _ = world.launch(attempts: 3)
        for _ in 1...3 {
            let inspector = world.launch(countsLaunch: false)  // `rollout device status`, say
            XCTAssertEqual(inspector.activePack, PackID("tr-TR@18"))
            XCTAssertEqual(inspector.launchStatus.failedLaunches, 0, "a client that is not a launch counts nothing")
        }
        XCTAssertEqual(world.launch(attempts: 3).activePack, PackID("tr-TR@18"))
        XCTAssertEqual(world.launch(attempts: 3).activePack, PackID("tr-TR@18"))
        let fourth = world.launch(attempts: 3)
        XCTAssertEqual(fourth.activePack, PackID("tr-TR@17"), "three failed launches")
        XCTAssertEqual(fourth.launchStatus.launchAttempts, 3)
    }

    /// The process dies along the start-up that rolls tr-TR@18 back: the state file that records
    /// it, the slots that move, the launch record written after. Whatever the cut, the next start is
    /// on tr-TR@17, tr-TR@18 is failed once, and its two failed launches are counted once.
    func testKilledAlongTheRollbackTheNextStartFinishesIt() async throws {
        try await ClientWorld().killedAlongTheRollback()
    }
}

extension ClientWorld {
    /// The process dies along the start-up that rolls tr-TR@18 back (see
    /// `testKilledAlongTheRollbackTheNextStartFinishesIt`), in a world of either signing.
    func killedAlongTheRollback() async throws {
        _ = try await deviceWithEighteenPending()
        _ = launch()
        _ = launch()
        let device = cache("phone").path
        let base = w.scratch.path("base-device")
        try FileManager.default.copyItem(atPath: device, toPath: base)

        // A launch that finishes, to measure it: the rollback's state file (S1 bytes), its rename,
        // tr-TR@18's removal, tr-TR@17's rename into the active slot, the launch record (S2 bytes)
        // and its rename.
        let measuring = launch(budget: 1 << 40)
        let total = (1 << 40) - (measuring.storageBudget ?? 0)
        let s2 = try XCTUnwrap(FileManager.default.contents(atPath: device + "/state.json")).count
        let s1 = total - 4 - s2
        XCTAssertGreaterThan(s1, 500)
        for cut in KillSweep.cuts(total: total, boundaries: [0, s1, s1 + 3, total - 1]) {
            try FileManager.default.removeItem(atPath: device)
            try FileManager.default.copyItem(atPath: base, toPath: device)
            let dying = launch(budget: cut)
            XCTAssertEqual((dying.storageBudget ?? 0) > 0, cut > total, "cut at \(cut)")
            let reopened = launch()
            XCTAssertEqual(reopened.activePack, PackID("tr-TR@17"), "cut at \(cut)")
            XCTAssertEqual(reopened.launchStatus.rolledBack, [PackID("tr-TR@18")], "cut at \(cut)")
            XCTAssertEqual(reopened.launchStatus.rollbacks, 1, "cut at \(cut)")
            let rows = reopened.metricsCSV(.crash).split(separator: "\n")
            XCTAssertTrue(rows.contains("2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,2,2"), "cut at \(cut): \(rows)")
            // The dying launch counts once it recorded itself (its last write): it died on tr-TR@17.
            let own: [String] = cut >= total ? ["2026-11-28,tr-TR,tr-TR@17,TR,4.8.1,1,1"] : []
            XCTAssertEqual(rows.filter { $0.contains("tr-TR@17") }.map(String.init), own, "cut at \(cut)")
            let leftovers = try FileManager.default.subpathsOfDirectory(atPath: device).filter { $0.contains(".tmp-") }
            XCTAssertEqual(leftovers, [], "cut at \(cut)")
        }
        let last = launch()
        last.markLaunchSucceeded()
        let refreshed = await last.refresh()
        XCTAssertEqual(refreshed, .upToDate(dropped: []))
        XCTAssertEqual(launch().activePack, PackID("tr-TR@17"))
    }
}
