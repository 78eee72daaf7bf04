import Foundation
import RolloutClient
import RolloutCrypto
import RolloutModel
import XCTest

/// The Swift client replays launches.json, counters.json and outcomes.json (docs/conformance.md,
/// "launches.json and counters.json", "outcomes.json") as a port must: each case one device on a fresh cache, a site served from
/// memory, every step on the real client, and after each step every member of `expect` compared.
final class DeviceConformanceTests: XCTestCase {
    func testEveryCrashLoopCaseIsDecidedAsTheVectorsSay() async throws {
        let cases = try await replay("launches.json")
        XCTAssertGreaterThanOrEqual(cases, 10)
    }

    func testEveryCounterCaseExportsTheCSVsTheVectorsSay() async throws {
        let cases = try await replay("counters.json")
        XCTAssertGreaterThanOrEqual(cases, 6)
    }

    func testEveryExperimentCaseCountsTheExposuresAndConversionsTheVectorsSay() async throws {
        let cases = try await replay("outcomes.json")
        XCTAssertGreaterThanOrEqual(cases, 9)
    }

    /// The device's clock, which a `clock` step sets and the client reads through `Options.now`.
    /// `@unchecked Sendable`: `lock` guards `date`.
    private final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var date: Date
        init(_ date: Date) { self.date = date }
        var now: Date { lock.withLock { date } }
        func set(_ new: Date) { lock.withLock { date = new } }
    }

    private func date(_ text: String) throws -> Date {
        Date(timeIntervalSince1970: TimeInterval(try XCTUnwrap(Timestamp(iso8601: text), text).seconds))
    }

    private func ids(_ list: [PackID]) -> JSONValue { .array(list.map { .string($0.description) }) }

    /// Replays every case of `name`; returns how many there were.
    private func replay(_ name: String) async throws -> Int {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/conformance/\(name)")
        let file = try XCTUnwrap(StrictJSONParser.parse([UInt8](try Data(contentsOf: url))).objectValue, name)
        let device = (file["device"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        let bundled = (file["bundled"]?.objectValue ?? [:]).mapValues {
            ($0.objectValue ?? [:]).compactMapValues(\.stringValue)
        }
        let sites = file["sites"]?.objectValue ?? [:]
        let publicKey = try XCTUnwrap(file["publicKey"]?.stringValue)
        let cases = file["cases"]?.arrayValue?.compactMap(\.objectValue) ?? []
        for c in cases {
            let caseName = c["name"]?.stringValue ?? "?"
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("device-conformance-\(UUID())")
            addTeardownBlock { try? FileManager.default.removeItem(at: cache) }
            let clock = Clock(try date(try XCTUnwrap(device["now"])))
            let site = SiteTransport(nil)
            var options = RolloutClient.Options()
            options.transport = site
            options.installID = device["installId"]
            options.defaultLocale = try XCTUnwrap(device["defaultLocale"])
            options.now = { clock.now }
            options.launchAttempts = try XCTUnwrap(c["launchAttempts"]?.integerValue, caseName)
            var (locale, region, appVersion) = (
                device["locale"] ?? "", device["region"] ?? "", device["appVersion"] ?? ""
            )
            var client: RolloutClient?
            for (number, value) in (c["steps"]?.arrayValue ?? []).enumerated() {
                let step = try XCTUnwrap(value.objectValue)
                let action = step["do"]?.stringValue ?? ""
                let at = "\(name): \(caseName), step \(number + 1) (\(action))"
                var observed: [String: JSONValue] = [:]
                if action == "launch" {
                    // The previous process ends with its counts written; whether it reached its
                    // first screen is what its `succeed` step said.
                    client?.saveCounters()
                    region = step["region"]?.stringValue ?? region
                    appVersion = step["appVersion"]?.stringValue ?? appVersion
                    client = RolloutClient(
                        bundled: bundled, cacheDirectory: cache,
                        manifestURL: URL(string: "https://site.example/app/index.json")!, publicKey: publicKey,
                        appVersion: appVersion, region: region, locale: locale, options: options)
                }
                guard let device = client else {
                    XCTFail("\(at): a case starts with a launch")
                    break
                }
                switch action {
                case "launch": break
                case "refresh":
                    site.serve(sites[step["site"]?.stringValue ?? ""])
                    switch await device.refresh(force: true) {
                    case .staged, .upToDate: observed["result"] = "accepted"
                    case .partial: observed["result"] = "partial"
                    default: observed["result"] = "refused"
                    }
                case "activate": observed["activated"] = ids(device.activatePending())
                case "succeed": observed["confirmed"] = device.markLaunchSucceeded().map(ids) ?? .null
                case "markFailed":
                    observed["markedFailed"] = device.markActivePackFailed().map { .string($0.description) } ?? .null
                case "session": device.recordSession()
                case "crash": device.recordCrash()
                case "reset": device.resetCounters()
                case "convert": device.recordConversion(step["name"]?.stringValue ?? "")
                case "lookup": observed["text"] = .string(device.string(step["key"]?.stringValue ?? ""))
                case "setLocale":
                    locale = step["locale"]?.stringValue ?? locale
                    device.setLocale(locale)
                case "clock": clock.set(try date(step["now"]?.stringValue ?? ""))
                default: XCTFail("\(at): unknown step")
                }
                let status = device.launchStatus
                observed["activePacks"] = ids(device.activePacks)
                observed["pendingPacks"] = ids(device.pendingPacks)
                observed["failed"] = ids(device.status.failed)
                observed["armed"] = .bool(status.armed)
                observed["succeeded"] = .bool(status.succeeded)
                observed["awaitingSuccess"] = ids(status.awaitingSuccess)
                observed["launchesSinceActivation"] = .integer(status.launchesSinceActivation)
                observed["failedLaunches"] = .integer(status.failedLaunches)
                observed["previousLaunchFailed"] = .bool(status.previousLaunchFailed)
                observed["rolledBack"] = ids(status.rolledBack)
                observed["rollbacks"] = .integer(status.rollbacks)
                observed["crashCsv"] = .string(device.metricsCSV(.crash))
                observed["fallbackCsv"] = .string(device.metricsCSV(.fallback))
                observed["outcomeCsv"] = .string(device.outcomeCSV())
                let expect = step["expect"]?.objectValue ?? [:]
                XCTAssertFalse(expect.isEmpty, "\(at): nothing expected")
                for (member, expected) in expect.sorted(by: { $0.key < $1.key }) {
                    XCTAssertEqual(observed[member], expected, "\(at): \(member)")
                }
            }
            client?.saveCounters()
        }
        return cases.count
    }
}
