import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// A clock a test moves: the day counters are recorded under. `@unchecked Sendable`: `lock` guards `day`.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var day: String
    init(_ day: String) { self.day = day }
    func set(_ day: String) { lock.withLock { self.day = day } }
    var now: Date { lock.withLock { CounterDays.date(day) } }
}

/// Counters kept in the device state: what a killed process had saved is exported by the next one,
/// attributed to the pack that was active, in the CSV `rollout metrics ingest` reads.
final class CounterDurabilityTests: XCTestCase {
    func testCountersSurviveAKilledProcessAndRolloutIngestsThem() async throws {
        let world = try ClientWorld()
        let clock = TestClock("2026-11-27")
        let app = world.launch(now: { clock.now })
        await app.refreshAndActivate()
        app.recordSession()
        for _ in 0..<40 { _ = app.string("home.title") }  // in tr-TR@17
        for _ in 0..<10 { _ = app.string("home.banner") }  // not in tr-TR@17: a fallback
        app.recordCrash()
        try world.promoteEighteen()
        _ = await app.refresh()
        XCTAssertEqual(app.activatePending(), [PackID("tr-TR@18")])
        app.recordSession()
        for _ in 0..<20 { _ = app.string("home.title") }
        for _ in 0..<3 { _ = app.string("only.bundled") }  // in no pack: a fallback
        app.recordCrash()
        app.waitForSaves()  // a few milliseconds in an app
        // The process is killed: from here on nothing it counts reaches the disk.
        app.storageBudget = 0
        app.recordSession()
        for _ in 0..<500 { _ = app.string("home.title") }
        app.waitForSaves()

        clock.set("2026-11-28")
        let next = world.launch(now: { clock.now })
        XCTAssertEqual(next.activePack, PackID("tr-TR@18"))
        next.recordSession()
        for _ in 0..<7 { _ = next.string("home.title") }
        next.recordSession()  // saves the lookups before it too
        next.waitForSaves()
        let crash = next.metricsCSV(.crash)
        XCTAssertEqual(
            crash,
            """
            date,locale,pack,region,app_version,sessions,crashes
            2026-11-27,tr-TR,tr-TR@17,TR,4.8.1,1,1
            2026-11-27,tr-TR,tr-TR@18,TR,4.8.1,1,1
            2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,2,0

            """)
        let fallback = next.metricsCSV(.fallback)
        XCTAssertEqual(
            fallback,
            """
            date,locale,pack,region,app_version,lookups,fallbacks
            2026-11-27,tr-TR,tr-TR@17,TR,4.8.1,50,10
            2026-11-27,tr-TR,tr-TR@18,TR,4.8.1,23,3
            2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,7,0

            """)

        // The real `rollout metrics ingest` takes both files as they are.
        for (kind, text) in [("crash", crash), ("fallback", fallback)] {
            let file = world.w.scratch.path("device-\(kind).csv")
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let ingest = try world.w.rollout("metrics", "ingest", "--kind", kind, file)
            XCTAssertEqual(ingest.status, 0, ingest.output)
        }
        let shown = try world.w.json(try world.w.rollout("metrics", "show", "tr-TR", "--json"))
        let rows = try XCTUnwrap(shown["rows"] as? [[String: Any]])
        let byPack = Dictionary(uniqueKeysWithValues: rows.map { ($0["pack"] as! String, $0) })
        XCTAssertEqual(byPack["tr-TR@17"]?["sessions"] as? Int, 1)
        XCTAssertEqual(byPack["tr-TR@17"]?["crashes"] as? Int, 1)
        XCTAssertEqual(byPack["tr-TR@17"]?["lookups"] as? Int, 50)
        XCTAssertEqual(byPack["tr-TR@17"]?["fallbacks"] as? Int, 10)
        XCTAssertEqual(byPack["tr-TR@18"]?["sessions"] as? Int, 3)
        XCTAssertEqual(byPack["tr-TR@18"]?["crashes"] as? Int, 1)
        XCTAssertEqual(byPack["tr-TR@18"]?["lookups"] as? Int, 30)
        XCTAssertEqual(byPack["tr-TR@18"]?["fallbacks"] as? Int, 3)

        next.resetCounters()
        XCTAssertEqual(
            world.launch().metricsCSV(.crash), "date,locale,pack,region,app_version,sessions,crashes\n",
            "a reset is kept")
    }

    func testRowsKeepTheAppVersionTheyWereCountedOn() async throws {
        let world = try ClientWorld()
        let old = world.launch(app: "4.8.1")
        await old.refreshAndActivate()
        old.recordSession()
        old.waitForSaves()
        let updated = world.launch(app: "4.8.2")
        updated.recordSession()
        XCTAssertEqual(
            updated.metricsCSV(.crash),
            """
            date,locale,pack,region,app_version,sessions,crashes
            2026-11-28,tr-TR,tr-TR@17,TR,4.8.1,1,0
            2026-11-28,tr-TR,tr-TR@17,TR,4.8.2,1,0

            """)
    }

    func testAnAppThatNeverExportsKeepsOnlyTheNewestRows() async throws {
        let world = try ClientWorld()
        let clock = TestClock("2026-01-01")
        let app = world.launch(now: { clock.now })
        await app.refreshAndActivate()
        let days = (0..<(Counters.maximumRows + 10)).map {
            ISO8601DateFormatter().string(from: CounterDays.date("2026-01-01").addingTimeInterval(Double($0) * 86_400))
                .prefix(10)
        }
        for day in days {
            clock.set(String(day))
            app.recordSession()
        }
        app.waitForSaves()
        let rows = world.launch().metricsCSV(.crash).split(separator: "\n").dropFirst()
        XCTAssertEqual(rows.count, Counters.maximumRows)
        XCTAssertEqual(rows.first.map { String($0.prefix(10)) }, String(days[10]), "the oldest days went first")
        XCTAssertEqual(rows.last.map { String($0.prefix(10)) }, String(days.last!))
    }

    /// Lookups are saved off the caller's thread once about `CounterSaver.lookups` are unwritten (a
    /// thread checks every 64th of its lookups): a process killed loses fewer than that.
    func testLookupsAreSavedInTheBackgroundAfterAThousand() async throws {
        let world = try ClientWorld()
        let app = world.launch()
        await app.refreshAndActivate()
        app.counterSaver.interval = 0
        for _ in 0..<1000 { _ = app.string("home.title") }
        app.waitForSaves()
        XCTAssertEqual(
            world.launch().metricsCSV(.fallback), "date,locale,pack,region,app_version,lookups,fallbacks\n",
            "checked at 960: not yet")
        for _ in 0..<24 { _ = app.string("home.title") }
        app.waitForSaves()
        XCTAssertEqual(
            world.launch().metricsCSV(.fallback),
            "date,locale,pack,region,app_version,lookups,fallbacks\n2026-11-28,tr-TR,tr-TR@17,TR,4.8.1,1024,0\n")
    }

    /// The process dies along the state file a session writes: the next start has the
    /// counts before it or after it, and everything else of the device state whole.
    func testKilledAlongACounterSaveTheStateStaysWhole() async throws {
        let world = try ClientWorld()
        let first = world.launch()
        await first.refreshAndActivate()
        first.markLaunchSucceeded()
        first.recordSession()
        first.waitForSaves()
        let device = world.cache("phone").path
        let base = world.w.scratch.path("base-device")
        try FileManager.default.copyItem(atPath: device, toPath: base)
        let before = "date,locale,pack,region,app_version,sessions,crashes\n2026-11-28,tr-TR,tr-TR@17,TR,4.8.1,1,0\n"
        let after = "date,locale,pack,region,app_version,sessions,crashes\n2026-11-28,tr-TR,tr-TR@17,TR,4.8.1,2,0\n"

        // The save is the state file's bytes, then its rename: every unit around both ends, and
        // every 37th byte between (any cut inside the bytes leaves the same partial temporary file).
        let units = try XCTUnwrap(FileManager.default.contents(atPath: device + "/state.json")).count + 1
        for cut in KillSweep.cuts(total: units, boundaries: [0, units - 1]) {
            try FileManager.default.removeItem(atPath: device)
            try FileManager.default.copyItem(atPath: base, toPath: device)
            let dying = world.launch(countsLaunch: false)
            dying.storageBudget = cut
            dying.recordSession()
            dying.waitForSaves()
            let finished = (dying.storageBudget ?? 0) > 0
            XCTAssertEqual(finished, cut > units, "cut at \(cut)")
            let reopened = world.launch(countsLaunch: false)
            let csv = reopened.metricsCSV(.crash)
            XCTAssertEqual(csv, cut >= units ? after : before, "cut at \(cut)")
            XCTAssertTrue(reopened.launchStatus.armed, "cut at \(cut): the rest of the state is whole")
            XCTAssertEqual(reopened.activePack, PackID("tr-TR@17"), "cut at \(cut)")
        }
    }
}
