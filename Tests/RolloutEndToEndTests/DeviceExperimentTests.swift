import Foundation
import RolloutModel
import XCTest

/// Phones in an A/B test of tr-TR's home title (docs/client.md, "Experiments: exposures and
/// conversions"; docs/device.md, "metrics outcome and convert"), played by `rollout device` against
/// what `rollout publish` wrote: each learns its variant from the signed manifest, counts the first
/// read of the title in the session `launch` opened as its exposure, and its conversions with it.
final class DeviceExperimentTests: XCTestCase {
    static let header = "date,locale,pack,region,app_version,metric,exposures,conversions\n"

    /// tr-TR@17 (control, "Hoş gledin") and tr-TR@18 ("Hoş geldin") split 50/50 for TR on >=4.8 by
    /// `rollout experiment start`, published; returns the experiment's salt, as the plan holds it.
    private func startExperiment(_ world: DeviceWorld) throws -> String {
        try world.rollout(
            "experiment", "start", "title-test", "--variants", "tr-TR@17,tr-TR@18", "--split", "50/50", "--region",
            "TR", "--app-version", ">=4.8", "--metric", "checkout", "--exploratory", "signup", "--reason",
            "which title converts")
        try world.publish()
        let text = try world.w.git("show", "main:plans/tr-TR.json").stdout
        let plan = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let experiment = try XCTUnwrap(plan["experiment"] as? [String: Any], text)
        XCTAssertEqual(experiment["metrics"] as? [String], ["checkout", "signup"])
        XCTAssertTrue((experiment["keys"] as? [String])?.contains("home.title") ?? false, text)
        return try XCTUnwrap(experiment["salt"] as? String)
    }

    /// An install id whose bucket of the experiment's salt is in the control (true) or the variant.
    private func installID(control: Bool, salt: String) -> String {
        (0..<1000).lazy.map { "phone-\($0)" }.first {
            // The treatment's range comes first (buckets 0 to 4999), the control's after it.
            (Bucketing.bucket(installID: $0, salt: salt) >= 5000) == control
        }!
    }

    private func ok(_ result: RunResult, file: StaticString = #filePath, line: UInt = #line) -> String {
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
        return result.stdout
    }

    func testEachArmCountsItsExposuresAndConversionsAcrossInvocationsOfOneSession() throws {
        let world = try DeviceWorld()
        let salt = try startExperiment(world)
        var exported = ""
        defer { XCTAssertNoThrow(try ingestAndShow(exported, world)) }
        for (control, pack, title) in [(true, "tr-TR@17", "Hoş gledin"), (false, "tr-TR@18", "Hoş geldin")] {
            let id = installID(control: control, salt: salt)
            let name = control ? "control" : "variant"
            func device(_ action: String...) throws -> RunResult {
                try world.w.rollout(
                    [
                        "device", "--state", world.w.scratch.path("devices/\(name)"), "--site", world.site,
                        "--public-key", world.publicKey, "--bundled", world.bundled, "--locale", "tr-TR", "--region",
                        "TR", "--app-version", "4.8.1", "--install-id", id,
                    ] + action)
            }
            _ = ok(try device("refresh", "--force"))
            // Assigned by the manifest, before the variant is active: a conversion before the exposure
            // waits for it, and a name the experiment does not measure is ignored.
            let status = try world.w.json(try device("status", "--json"))
            let experiment = try XCTUnwrap(status["experiment"] as? [String: Any], "\(status)")
            XCTAssertEqual(experiment["pack"] as? String, pack)
            XCTAssertEqual(experiment["control"] as? Bool, control)
            _ = ok(try device("launch"))
            XCTAssertTrue(ok(try device("convert", "checkout")).hasPrefix("Conversion checkout counts"))
            XCTAssertTrue(ok(try device("convert", "purchase")).hasPrefix("Ignored: purchase is not a metric"))
            XCTAssertEqual(ok(try device("metrics", "outcome")), Self.header, "no exposure yet")
            _ = ok(try device("get", "home.title"))
            _ = ok(try device("get", "home.title"))
            _ = ok(try device("activate"))
            _ = ok(try device("launch"))
            XCTAssertEqual(ok(try device("get", "home.title")).trimmingCharacters(in: .newlines), title)
            // The device counts under the real clock's UTC day.
            let day = String(Timestamp(seconds: Int64(Date().timeIntervalSince1970)).description.prefix(10))
            XCTAssertEqual(
                ok(try device("metrics", "outcome")),
                Self.header + "\(day),tr-TR,\(pack),TR,4.8.1,checkout,2,1\n"
                    + "\(day),tr-TR,\(pack),TR,4.8.1,signup,2,0\n",
                "two sessions exposed, each counted once, counted as \(pack) before it was active")
            XCTAssertEqual(
                ok(try device("metrics", "outcome-signup")),
                Self.header + "\(day),tr-TR,\(pack),TR,4.8.1,signup,2,0\n")
            exported += ok(try device("metrics", "outcome")).dropFirst(Self.header.count)
        }
    }

    /// What the two phones exported, ingested as `--kind outcome` (one commit, both metrics), is what
    /// `experiment show` counts for each arm.
    private func ingestAndShow(_ rows: String, _ world: DeviceWorld) throws {
        let file = try world.w.scratch.write("outcomes.csv", Self.header + rows)
        XCTAssertEqual(try world.w.rollout("metrics", "ingest", file, "--kind", "outcome").status, 0)
        let shown = try world.w.json(try world.w.rollout("experiment", "show", "title-test", "--json"))
        let comparisons = try XCTUnwrap(shown["comparisons"] as? [[String: Any]], "\(shown)")
        let checkout = try XCTUnwrap(comparisons.first { $0["metric"] as? String == "checkout" })
        XCTAssertEqual((checkout["control"] as? [String: Any])?["exposures"] as? Int, 2, "\(checkout)")
        XCTAssertEqual((checkout["variant"] as? [String: Any])?["exposures"] as? Int, 2, "\(checkout)")
        XCTAssertEqual((checkout["variant"] as? [String: Any])?["conversions"] as? Int, 1, "\(checkout)")
        XCTAssertEqual((shown["verdict"] as? [String: Any])?["verdict"] as? String, "keep running", "\(shown)")
    }

    func testAPhoneOutsideTheTargetingCountsNothing() throws {
        let world = try DeviceWorld()
        _ = try startExperiment(world)
        func device(_ action: String...) throws -> RunResult {
            try world.w.rollout(
                [
                    "device", "--state", world.w.scratch.path("devices/de"), "--site", world.site, "--public-key",
                    world.publicKey, "--locale", "tr-TR", "--region", "DE", "--app-version", "4.8.1",
                ] + action)
        }
        _ = ok(try device("refresh", "--force"))
        _ = ok(try device("launch"))
        _ = ok(try device("get", "home.title"))
        XCTAssertEqual(ok(try device("convert", "checkout")), "Ignored: the device is in no experiment.\n")
        XCTAssertEqual(ok(try device("metrics", "outcome")), Self.header)
        XCTAssertNil(try world.w.json(try device("status", "--json"))["experiment"])
        XCTAssertNotEqual(try device("convert", "Check-Out").status, 0, "not a metric name: a usage error")
    }
}
