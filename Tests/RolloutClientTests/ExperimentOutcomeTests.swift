import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// What a device keeps of an experiment between launches (docs/client.md, "Experiments: exposures
/// and conversions"); the counting rules themselves are outcomes.json's (DeviceConformanceTests).
final class ExperimentOutcomeTests: XCTestCase {
    private func assignment(pack version: Int = 18, metrics: [String] = ["checkout", "signup"]) throws
        -> ExperimentAssignment
    {
        let ref = { (v: Int) in Plan.PackRef(contentVersion: v, minAppVersion: AppVersion("4.8.0")!) }
        let experiment = Plan.Experiment(
            name: "title-test", salt: "abc", regions: ["TR"], versions: .all,
            variants: [.init(pack: ref(17), from: 0, to: 5000), .init(pack: ref(18), from: 5000, to: 10000)],
            keys: ["home.title"], metrics: metrics)
        let variant = try XCTUnwrap(experiment.variants.first { $0.pack.contentVersion == version })
        return ExperimentAssignment(experiment, variant: variant, locale: "tr-TR")
    }

    private func place(_ day: String = "2026-11-21") -> Outcomes.Place {
        Outcomes.Place(day: day, region: "TR", appVersion: "4.8.1")
    }

    func testAnAppUpdatedFromABuildBeforeExperimentsKeepsItsStateAndIsInNoExperiment() throws {
        let old = DeviceState(Array(DeviceStateFormatTests.state.utf8))
        let state = try XCTUnwrap(old, "the state of a build before experiments still loads")
        XCTAssertNil(state.experiment)
        XCTAssertEqual(state.outcomes, Outcomes())
        XCTAssertFalse(String(decoding: state.bytes, as: UTF8.self).contains("outcome"), "nothing new is written")
    }

    func testTheAssignmentTheRowsAndTheOpenSessionSurviveARestart() throws {
        var state = DeviceState()
        state.experiment = try assignment()
        state.outcomes.startSession()
        XCTAssertTrue(state.outcomes.convert("checkout", try assignment()))
        XCTAssertTrue(state.outcomes.expose(try assignment()) { place() })
        let read = try XCTUnwrap(DeviceState(state.bytes))
        XCTAssertEqual(read, state)
        XCTAssertEqual(
            read.outcomes.csv(),
            Outcomes.header + "2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,checkout,1,1\n"
                + "2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,signup,1,0\n")
        XCTAssertEqual(
            read.outcomes.csv(metric: "signup"), Outcomes.header + "2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,signup,1,0\n")
    }

    func testRowsAreBoundedOldestDayFirst() throws {
        var outcomes = Outcomes()
        let one = try assignment(metrics: ["checkout"])
        for day in 1...(Outcomes.maximumRows + 5) {
            outcomes.startSession()
            let text = String(format: "2026-%02d-%02d", 1 + (day - 1) / 28, 1 + (day - 1) % 28)
            XCTAssertTrue(outcomes.expose(one) { place(text) })
        }
        XCTAssertEqual(outcomes.rows.count, Outcomes.maximumRows)
        XCTAssertFalse(outcomes.csv().contains("2026-01-01,"), "the oldest day went first")
        XCTAssertTrue(outcomes.csv().contains("2026-05-13,"), "the newest day stays")
    }

    func testAnotherVariantStartsTheSessionsMemoryAfresh() throws {
        var outcomes = Outcomes()
        outcomes.startSession()
        XCTAssertTrue(outcomes.expose(try assignment(pack: 17)) { place() })
        XCTAssertFalse(outcomes.expose(try assignment(pack: 17)) { place() }, "once a session")
        XCTAssertTrue(outcomes.expose(try assignment(pack: 18)) { place() }, "a new assignment is exposed anew")
        XCTAssertTrue(outcomes.convert("checkout", try assignment(pack: 18)))
        XCTAssertEqual(
            outcomes.csv(metric: "checkout"),
            Outcomes.header + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,checkout,1,0\n"
                + "2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,checkout,1,1\n")
    }

    func testWithoutASessionNothingCounts() throws {
        var outcomes = Outcomes()
        XCTAssertFalse(outcomes.expose(try assignment()) { place() })
        XCTAssertFalse(outcomes.convert("checkout", try assignment()))
        XCTAssertEqual(outcomes.csv(), Outcomes.header)
    }

    /// A client on a cache with no site: `continuesSession` decides whether the session that
    /// state.json keeps is this process's.
    func testOnlyAProcessThatContinuesTheSessionCountsInIt() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("experiment-outcomes-\(UUID())")
        addTeardownBlock { try? FileManager.default.removeItem(at: cache) }
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        var state = DeviceState()
        state.experiment = try assignment()
        state.outcomes.startSession()
        try Data(state.bytes).write(to: cache.appendingPathComponent(DeviceState.file))
        func client(continues: Bool) -> RolloutClient {
            var options = RolloutClient.Options()
            options.installID = "device-1"
            options.continuesSession = continues
            options.countsLaunch = false
            options.now = { Date(timeIntervalSince1970: 1_795_262_400) }
            return RolloutClient(
                bundled: BundledStrings(), cacheDirectory: cache,
                manifestURL: URL(string: "https://site.example/index.json")!,
                publicKey: "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", appVersion: "4.8.1", region: "TR",
                locale: "tr-TR", options: options)
        }
        let app = client(continues: false)
        XCTAssertEqual(app.status.experiment?.pack.description, "tr-TR@18")
        _ = app.string("home.title")
        XCTAssertFalse(app.recordConversion("checkout"), "an app's new process has no session yet")
        XCTAssertEqual(app.outcomeCSV(), Outcomes.header)
        app.saveCounters()
        var tool = client(continues: true)
        _ = tool.string("home.title")
        XCTAssertEqual(
            tool.outcomeCSV(),
            Outcomes.header + "2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,checkout,1,0\n"
                + "2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,signup,1,0\n",
            "state.json keeps the last recorded session until the next recordSession(): this process goes on in it")
        tool.recordSession()
        tool.saveCounters()
        tool = client(continues: true)
        _ = tool.string("home.title")
        XCTAssertTrue(tool.recordConversion("checkout"))
        XCTAssertEqual(
            tool.metricsCSV(MetricKind.outcome("checkout")!),
            Outcomes.header + "2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,checkout,2,1\n")
        XCTAssertEqual(tool.metricsCSV(.crash), "date,locale,pack,region,app_version,sessions,crashes\n")
    }
}
