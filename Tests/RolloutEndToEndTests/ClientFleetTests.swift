import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// The whole loop with the real CLI and a fleet of devices running the client library: a staged
/// rollout reaches exactly the devices `rollout simulate` predicts, the devices' counters ingested
/// back give the figures `rollout health` reports, and after a revert every device that refreshes
/// is back on the previous pack. `make test` runs 2,000 devices with seed 1 (the time grows with
/// the devices: 10,000 took 126 s of the suite); scripts/client-fleet.sh runs FLEET_DEVICES devices
/// drawn with FLEET_SEED.
final class ClientFleetTests: XCTestCase {
    struct Device {
        let index: Int
        let region: String
        let app: String
        let installID: String
        var segment: String { "\(region)/\(app)" }
    }

    /// A whole number from the environment (scripts/client-fleet.sh), else `fallback`.
    private static func setting(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = ProcessInfo.processInfo.environment[name], !text.isEmpty else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw InvalidSetting(name: name, text: text, range: range)
        }
        return value
    }

    struct InvalidSetting: Error, CustomStringConvertible {
        let name: String
        let text: String
        let range: ClosedRange<Int>
        var description: String {
            "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), found \"\(text)\""
        }
    }

    /// Runs `body` for every device, a few at a time.
    private func forEach<T: Sendable>(_ devices: [Device], _ body: @escaping @Sendable (Device) async -> T) async -> [T]
    {
        await withTaskGroup(of: (Int, T).self) { group in
            var results = [T?](repeating: nil, count: devices.count)
            var next = 0
            func start() {
                guard next < devices.count else { return }
                let device = devices[next]
                next += 1
                group.addTask { (device.index, await body(device)) }
            }
            for _ in 0..<4 { start() }
            while let (index, value) = await group.next() {
                results[index] = value
                start()
            }
            return results.map { $0! }
        }
    }

    func testAFleetOfDevicesFollowsTheRolloutTheMetricsAndTheRevert() async throws {
        let fleet = try Self.setting("FLEET_DEVICES", default: 2000, range: 100...1_000_000)
        let seed = try Self.setting("FLEET_SEED", default: 1, range: 1...1_000_000)
        XCTAssertEqual(fleet % 100, 0, "FLEET_DEVICES: a multiple of 100, so the mix's shares are whole devices")
        let world = try ClientWorld()
        try world.rollout(
            "promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8", "--reason", "typo fix")
        try world.publish()

        // The devices rollout simulate draws: the same split of the mix, the same install ids.
        let mix = [("TR", "4.8.1", 60), ("TR", "4.7.0", 15), ("DE", "4.8.1", 25)]
        let mixFile = try world.w.scratch.write(
            "mix.csv", "region,app_version,weight\n" + mix.map { "\($0.0),\($0.1),\($0.2)\n" }.joined())
        let simulated = try world.w.json(
            try world.w.rollout(
                "simulate", "tr-TR", "--mix", mixFile, "--devices", "\(fleet)", "--seed", "\(seed)", "--json"))
        var generator = InstallIDGenerator(seed: UInt64(seed))
        var devices: [Device] = []
        for (region, app, weight) in mix {
            for _ in 0..<(fleet * weight / 100) {
                devices.append(Device(index: devices.count, region: region, app: app, installID: generator.next()))
            }
        }
        let day = Date(timeIntervalSince1970: 1_764_288_000)  // 2025-11-28, the day the counters are kept under
        let clients = await forEach(devices) { device in
            let client = world.client(
                "d\(device.index)", region: device.region, app: device.app, installID: device.installID, now: day)
            _ = await client.refresh()
            client.activatePending()
            return client
        }

        // 1. The shares: exactly the devices simulate counted, per segment and pack.
        var reached: [String: [String: Int]] = [:]
        for (device, client) in zip(devices, clients) {
            reached[device.segment, default: [:]][client.activePack?.description ?? "bundled", default: 0] += 1
        }
        let segments = try XCTUnwrap(simulated["segments"] as? [[String: Any]])
        XCTAssertEqual(segments.count, 3)
        for segment in segments {
            let label = "\(segment["region"]!)/\(segment["appVersion"]!)"
            let packs = try XCTUnwrap(segment["packs"] as? [[String: Any]])
            let predicted = Dictionary(
                uniqueKeysWithValues: packs.map { ($0["pack"] as! String, $0["devices"] as! Int) })
            XCTAssertEqual(reached[label], predicted, label)
            for pack in packs {
                let share = Double(reached[label]?[pack["pack"] as! String] ?? 0) / Double(segment["devices"] as! Int)
                let expected = Double(pack["expectedBasisPoints"] as! Int) / 10_000
                XCTAssertEqual(share, expected, accuracy: 0.02, "\(label) \(pack["pack"]!)")
            }
        }
        XCTAssertGreaterThan(reached["TR/4.8.1"]?["tr-TR@18"] ?? 0, fleet / 25, "two thirds of the 10% expected")

        // 2. The counters: 100,000 sessions over the fleet (ten a device at 10,000 devices, so that health has
        // the samples it needs to decide at any size), crashes more often on tr-TR@18, four lookups a session.
        let sessions = max(10, 100_000 / fleet)
        for (device, client) in zip(devices, clients) {
            let onCandidate = client.activePack == PackID("tr-TR@18")
            for session in 0..<sessions {
                client.recordSession()
                if (onCandidate && (device.index + session) % 9 == 0)
                    || (!onCandidate && (device.index * 10 + session) % 97 == 0)
                {
                    client.recordCrash()
                }
                for key in ["home.title", "home.banner", "checkout.retry", "settings.title"] { _ = client.string(key) }
            }
        }
        var expected: [String: [String: [Int]]] = [:]  // metric -> pack -> [events, total] in TR/4.8
        for kind in MetricKind.health {
            var csv = "date,locale,pack,region,app_version,\(kind.columns.total),\(kind.columns.events)\n"
            for (device, client) in zip(devices, clients) {
                let rows = client.metricsCSV(kind).split(separator: "\n").dropFirst()
                for row in rows {
                    csv += row + "\n"
                    let f = row.split(separator: ",").map(String.init)
                    if device.region == "TR" && device.app.hasPrefix("4.8") {
                        var sums = expected[kind.rawValue, default: [:]][f[2], default: [0, 0]]
                        sums[0] += Int(f[6])!
                        sums[1] += Int(f[5])!
                        expected[kind.rawValue, default: [:]][f[2]] = sums
                    }
                }
            }
            let file = try world.w.scratch.write("\(kind.rawValue).csv", csv)
            let ingest = try world.w.rollout("metrics", "ingest", "--kind", kind.rawValue, file)
            XCTAssertEqual(ingest.status, 0, ingest.output)
        }
        let health = try world.w.json(try world.w.rollout("health", "tr-TR", "--json"))
        let checks = try XCTUnwrap(health["checks"] as? [[String: Any]])
        for metric in ["crash", "fallback"] {
            let check = try XCTUnwrap(
                checks.first { $0["segment"] as? String == "TR/4.8" && $0["metric"] as? String == metric }, "\(checks)")
            XCTAssertEqual(check["candidate"] as? [Int], expected[metric]?["tr-TR@18"], metric)
            XCTAssertEqual(check["baseline"] as? [Int], expected[metric]?["tr-TR@17"], metric)
        }
        XCTAssertEqual(expected["fallback"]?["tr-TR@18"]?[0], 0, "tr-TR@18 has every key")
        XCTAssertGreaterThan(expected["fallback"]?["tr-TR@17"]?[0] ?? 0, 0, "tr-TR@17 lacks home.banner")
        XCTAssertEqual(health["verdict"] as? String, "unhealthy", "\(checks)")

        // 3. The revert: every device that refreshes is back on tr-TR@17, and 18 is gone from its cache.
        try world.rollout("revert", "tr-TR", "--reason", "crash spike in TR on 4.8")
        try world.publish()
        let after = await forEach(devices) { device in
            let client = clients[device.index]
            _ = await client.refresh()
            client.activatePending()
            return client.activePack
        }
        for (device, pack) in zip(devices, after) {
            let want: PackID? = device.app == "4.7.0" ? nil : PackID("tr-TR@17")
            XCTAssertEqual(pack, want, "\(device.segment) \(device.installID)")
            if pack != want { break }
        }
        var checked = 0
        for device in devices where device.app != "4.7.0" {
            let cache = world.cache("d\(device.index)").path
            let state = try XCTUnwrap(
                DeviceState(FileManager.default.contents(atPath: cache + "/state.json").map { [UInt8]($0) }))
            XCTAssertEqual(state.blocked["tr-TR"], [18], device.installID)
            for slot in ["active", "pending", "previous"] {
                guard let bytes = FileManager.default.contents(atPath: cache + "/packs/tr-TR/" + slot) else { continue }
                let pack = try PackParser.parse(try XCTUnwrap(PackSlot([UInt8](bytes))).pack, source: slot)
                XCTAssertNotEqual(pack.pack.contentVersion, 18, "\(device.installID) \(slot)")
            }
            checked += 1
        }
        let survivors = devices.count - checked - fleet * 15 / 100
        XCTAssertEqual(survivors, 0, "every device on 4.8 was checked: 18 on its blocked list, in none of its slots")
    }
}
