import Foundation
import RolloutModel
import XCTest

/// A repository with en-US@1, tr@1 and tr-TR@17 as baselines, published to a directory, and phones
/// played by `rollout device` (docs/device.md): each phone is a state directory, and each
/// invocation is one moment in its life.
final class DeviceWorld {
    let w: Workspace
    let publicKey: String
    var site: String { w.scratch.path("site") }
    var bundled: String { w.scratch.path("bundled") }

    init() throws {
        w = try Workspace(process: true)
        try w.initWithExamples()
        for id in ["en-US@1", "tr@1", "tr-TR@17"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
        publicKey = try XCTUnwrap(
            try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key"), "--json"))["publicKey"]
                as? String)
        // What the app bundles, spelled so a test can tell bundled text from a pack's.
        try w.scratch.write(
            "bundled/tr-TR.json", #"{"home.title": "Hoş geldin (paket içi)", "home.banner": "İndirim (paket içi)"}"#)
        try w.scratch.write(
            "bundled/en-US.json",
            #"{"home.title": "Welcome (bundled)", "home.banner": "Sale (bundled)", "only.bundled": "From the app"}"#)
        try publish()
    }

    func rollout(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try w.rollout(arguments)
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
    }

    func publish(file: StaticString = #filePath, line: UInt = #line) throws {
        try rollout("publish", "--out", site, "--key", w.scratch.path("signing.key"), file: file, line: line)
    }

    /// `rollout device` for the phone `name` (a TR user on 4.8.1 by default), with its own state directory.
    @discardableResult
    func device(_ name: String, installID: String? = nil, locale: String = "tr-TR", _ action: String...) throws
        -> RunResult
    {
        try w.rollout(
            [
                "device", "--state", w.scratch.path("devices/\(name)"), "--site", site, "--public-key", publicKey,
                "--bundled", bundled,
                "--locale", locale, "--region", "TR", "--app-version", "4.8.1", "--install-id",
                installID ?? "install-\(name)",
            ] + action)
    }

    /// The text the phone shows for `key`.
    func text(_ name: String, _ key: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try device(name, "get", key)
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
        return result.stdout.trimmingCharacters(in: .newlines)
    }

    /// `rollout device ... status --json`.
    func status(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let result = try device(name, "status", "--json")
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
        return try w.json(result, file: file, line: line)
    }

    func activePack(_ name: String, locale: String = "tr-TR", file: StaticString = #filePath, line: UInt = #line) throws
        -> String?
    {
        let packs = try status(name, file: file, line: line)["packs"] as? [String: [String: Any]]
        return packs?[locale]?["active"] as? String
    }

    /// Refresh (forced: one invocation follows another within seconds), then activate, as an app does.
    func update(
        _ name: String, installID: String? = nil, locale: String = "tr-TR", file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let refreshed = try device(name, installID: installID, locale: locale, "refresh", "--force")
        XCTAssertEqual(refreshed.status, 0, refreshed.output, file: file, line: line)
        let activated = try device(name, installID: installID, locale: locale, "activate")
        XCTAssertEqual(activated.status, 0, activated.output, file: file, line: line)
    }

    /// An install id `rollout resolve` places in `pack` (true) or outside it (false), for a TR user on 4.8.1.
    func installID(resolvingTo pack: String, inside: Bool, file: StaticString = #filePath, line: UInt = #line) throws
        -> String
    {
        for n in 0..<400 {
            let id = "phone-\(n)"
            let result = try w.rollout(
                "resolve", "--locale", "tr-TR", "--region", "TR", "--app-version", "4.8.1", "--install-id", id, "--json"
            )
            XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
            let chain = try w.json(result, file: file, line: line)["chain"] as? [[String: Any]]
            if (chain?.first?["result"] as? String == pack) == inside { return id }
        }
        XCTFail("no install id \(inside ? "inside" : "outside") \(pack) among 400", file: file, line: line)
        return "none"
    }
}

/// `rollout device`: the client library a phone runs, driven from a shell against what `rollout
/// publish` wrote, through promote, crash loops, revert and the lookup order.
// Processes: `rollout device` is rollout replacing itself with the rollout-device program (exec).
final class DeviceCommandTests: XCTestCase {
    func testATenPercentPromotionReachesADeviceInTheShareAndNotOneOutsideIt() throws {
        let world = try DeviceWorld()
        try world.rollout("promote", "tr-TR@18", "--to", "10%", "--reason", "typo fix")
        try world.publish()
        let inside = try world.installID(resolvingTo: "tr-TR@18", inside: true)
        let outside = try world.installID(resolvingTo: "tr-TR@18", inside: false)

        let staged = try world.device("in", installID: inside, "refresh", "--json")
        XCTAssertEqual(staged.status, 0, staged.output)
        let report = try world.w.json(staged)
        XCTAssertEqual(report["result"] as? String, "staged")
        XCTAssertEqual((report["staged"] as? [String] ?? []).sorted(), ["en-US@1", "tr-TR@18", "tr@1"])
        XCTAssertEqual(try world.device("in", installID: inside, "activate").status, 0)
        XCTAssertEqual(try world.text("in", "home.title"), "Hoş geldin", "the typo fix of tr-TR@18")
        XCTAssertEqual(try world.activePack("in"), "tr-TR@18")

        try world.update("out", installID: outside)
        XCTAssertEqual(try world.text("out", "home.title"), "Hoş gledin", "tr-TR@17, the baseline, typo and all")
        XCTAssertEqual(try world.activePack("out"), "tr-TR@17")
    }

    /// Needs crash-loop protection (part 4: Options.countsLaunch, markLaunchSucceeded).
    func testAPackThatCrashesEveryLaunchIsRolledBackByTheDevice() throws {
        let world = try DeviceWorld()
        for phone in ["crashy", "healthy"] {
            try world.update(phone)
            // The app has reached its first screen on this install before: the guard is armed.
            XCTAssertEqual(try world.device(phone, "launch").status, 0)
            XCTAssertEqual(try world.device(phone, "launch-succeeded").status, 0)
        }
        try world.rollout("promote", "tr-TR@18", "--to", "100%", "--force", "--reason", "the bad pack")
        try world.publish()
        try world.update("crashy")
        try world.update("healthy")
        XCTAssertEqual(try world.activePack("crashy"), "tr-TR@18")

        // The app dies before its first screen every time: launch, never launch-succeeded. The
        // default is 2 launches in a row.
        var after: [String?] = []
        for _ in 1...3 {
            XCTAssertEqual(try world.device("crashy", "launch").status, 0)
            after.append(try world.activePack("crashy"))
        }
        XCTAssertEqual(after.first, "tr-TR@18", "one launch without success is not yet a crash loop")
        XCTAssertEqual(
            after.last, "tr-TR@17", "the previous pack is back after the launches that never succeeded: \(after)")
        let status = try world.status("crashy")
        XCTAssertEqual(status["failed"] as? [String], ["tr-TR@18"])
        XCTAssertEqual((status["launch"] as? [String: Any])?["rolledBack"] as? [String], ["tr-TR@18"])
        XCTAssertEqual(try world.text("crashy", "home.title"), "Hoş gledin")
        // Never again, even though the site still offers it.
        try world.update("crashy")
        XCTAssertEqual(try world.activePack("crashy"), "tr-TR@17")

        // The same pack on a phone whose launches succeed stays.
        for _ in 1...3 {
            XCTAssertEqual(try world.device("healthy", "launch").status, 0)
            XCTAssertEqual(try world.device("healthy", "launch-succeeded").status, 0)
        }
        XCTAssertEqual(try world.activePack("healthy"), "tr-TR@18")
        XCTAssertEqual(try world.status("healthy")["failed"] as? [String], [])
    }

    func testARevertAndAPublishMoveTheDeviceBack() throws {
        let world = try DeviceWorld()
        try world.update("phone")
        try world.rollout("promote", "tr-TR@18", "--to", "100%", "--force", "--reason", "typo fix")
        try world.publish()
        try world.update("phone")
        XCTAssertEqual(try world.text("phone", "home.title"), "Hoş geldin")

        try world.rollout("revert", "tr-TR", "--reason", "crash spike")
        try world.publish()
        let refreshed = try world.device("phone", "refresh", "--force", "--json")
        XCTAssertEqual(refreshed.status, 0, refreshed.output)
        XCTAssertEqual(
            try world.w.json(refreshed)["dropped"] as? [String], ["tr-TR@18"], "dropped at once, before any activation")
        XCTAssertEqual(try world.device("phone", "activate").status, 0)
        XCTAssertEqual(try world.text("phone", "home.title"), "Hoş gledin", "tr-TR@17 again")
        XCTAssertEqual(try world.activePack("phone"), "tr-TR@17")
    }

    /// Needs the lookup order of part 3: the OTA pack, then the bundled strings, of each locale in turn.
    func testAKeyTheTurkishPackLacksShowsTheBundledTurkishNotEnglish() throws {
        let world = try DeviceWorld()
        try world.update("phone")
        XCTAssertEqual(try world.activePack("phone"), "tr-TR@17")
        // tr-TR@17 and tr@1 have no home.banner; en-US@1 has it in English; the app bundles it in Turkish.
        XCTAssertEqual(try world.text("phone", "home.banner"), "İndirim (paket içi)")
        XCTAssertEqual(try world.text("phone", "only.bundled"), "From the app", "a key only the default locale bundles")
    }

    func testGetFillsPlaceholdersAndAnEnglishDeviceReadsItsOwnChain() throws {
        let world = try DeviceWorld()
        try world.update("phone")
        let greeting = try world.device("phone", "get", "profile.greeting", "--arg", "name=Ayşe", "--json")
        XCTAssertEqual(greeting.status, 0, greeting.output)
        let json = try world.w.json(greeting)
        XCTAssertEqual(json["text"] as? String, "Merhaba, Ayşe!")
        XCTAssertEqual(json["activePack"] as? String, "tr-TR@17")
        try world.update("us", locale: "en-US")
        XCTAssertEqual(try world.device("us", locale: "en-US", "get", "home.title").stdout, "Welcome\n")
    }

    func testAFreshDeviceShowsBundledTextAndItsStatusSaysSo() throws {
        let world = try DeviceWorld()
        XCTAssertEqual(try world.text("new", "home.title"), "Hoş geldin (paket içi)")
        let status = try world.device("new", "status")
        XCTAssertEqual(status.status, 0, status.output)
        XCTAssertTrue(status.stdout.contains("No packs: the bundled strings."), status.stdout)
        XCTAssertEqual(try world.status("new")["installID"] as? String, "install-new")
    }

    /// Needs counters kept with the device state (part 5): each invocation is its own process.
    func testTheMetricsCSVIsWhatMetricsIngestReads() throws {
        let world = try DeviceWorld()
        try world.update("phone")
        XCTAssertEqual(try world.device("phone", "launch").status, 0)
        XCTAssertEqual(try world.text("phone", "home.title"), "Hoş gledin")
        XCTAssertEqual(try world.text("phone", "only.bundled"), "From the app", "a fallback: not from tr-TR@17")
        let crash = try world.device("phone", "metrics", "crash")
        XCTAssertEqual(crash.status, 0, crash.output)
        XCTAssertTrue(crash.stdout.hasPrefix("date,locale,pack,region,app_version,sessions,crashes\n"), crash.stdout)
        XCTAssertTrue(crash.stdout.contains(",tr-TR,tr-TR@17,TR,4.8.1,1,"), crash.stdout)
        let fallback = try world.device("phone", "metrics", "fallback")
        XCTAssertTrue(fallback.stdout.contains(",tr-TR,tr-TR@17,TR,4.8.1,2,1\n"), fallback.stdout)
        for (kind, csv) in [("crash", crash.stdout), ("fallback", fallback.stdout)] {
            let file = try world.w.scratch.write("\(kind).csv", csv)
            let ingested = try world.w.rollout("metrics", "ingest", "--kind", kind, file)
            XCTAssertEqual(ingested.status, 0, ingested.output)
        }
    }

    func testASiteThatDoesNotVerifyIsAFailedRefreshNotAnError() throws {
        let world = try DeviceWorld()
        let other = try world.w.json(
            try world.w.rollout("keys", "generate", "--out", world.w.scratch.path("other.key"), "--json"))
        let wrongKey = try XCTUnwrap(other["publicKey"] as? String)
        let result = try world.w.rollout(
            [
                "device", "--state", world.w.scratch.path("devices/p"), "--site", world.site, "--public-key", wrongKey,
                "--locale", "tr-TR", "--region", "TR", "--app-version", "4.8.1", "refresh", "--json",
            ])
        XCTAssertEqual(result.status, 1, result.output)
        let json = try world.w.json(result)
        XCTAssertEqual(json["result"] as? String, "failed")
        XCTAssertEqual(json["ok"] as? Bool, false)
        // The reason's code for a program, the sentence for a person.
        XCTAssertEqual(json["reason"] as? String, "bad-signature", result.stdout)
        XCTAssertTrue((json["message"] as? String ?? "").contains("signature does not verify"), result.stdout)
        XCTAssertEqual(result.stderr, "")
    }

    func testTheSiteAsAFileURLAndTheKeyAsAFile() throws {
        let world = try DeviceWorld()
        let keyFile = try world.w.scratch.write("signing.pub", world.publicKey + "\n")
        let result = try world.w.rollout(
            [
                "device", "--state", world.w.scratch.path("devices/p"), "--site",
                URL(fileURLWithPath: world.site).absoluteString,
                "--public-key", keyFile, "--locale", "tr-TR", "--region", "tr", "--app-version", "4.8.1", "refresh",
            ])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.hasPrefix("Staged "), result.stdout)
    }

    func testBadFlagsAreUsageErrorsNamingTheFlag() throws {
        let world = try DeviceWorld()
        let base = [
            "device", "--state", world.w.scratch.path("devices/p"), "--site", world.site, "--public-key",
            world.publicKey,
        ]
        let device = ["--locale", "tr-TR", "--region", "TR", "--app-version", "4.8.1"]
        let cases: [([String], Int32, String)] = [
            (["device", "--site", world.site, "--public-key", world.publicKey] + device + ["status"], 64, "--state"),
            (base + ["--locale", "tr-TR", "--region", "TR", "status"], 64, "--app-version"),
            (base + ["--locale", "tr-TR", "--region", "XX", "--app-version", "4.8.1", "status"], 64, "--region"),
            (base + ["--locale", "tr-TR", "--region", "TR", "--app-version", "four", "status"], 64, "--app-version"),
            (
                ["device", "--state", world.w.scratch.path("p"), "--site", world.site, "--public-key", "ed25519:nope"]
                    + device + ["status"], 64, "--public-key"
            ),
            (
                [
                    "device", "--state", world.w.scratch.path("p"), "--site", world.w.scratch.path("nowhere"),
                    "--public-key", world.publicKey,
                ] + device + ["status"], 66, "--site"
            ),
            (base + device + ["--bundled", world.w.scratch.path("nowhere"), "status"], 66, "--bundled"),
            (base + device + ["refesh"], 64, "refresh"),
            (base + device + ["get"], 64, "KEY"),
            (base + device + ["get", "home.title", "--arg", "name"], 64, "--arg"),
            (base + device + ["status", "--force"], 64, "--force"),
            (base + device + ["metrics", "sessions"], 64, "crash, fallback or outcome"),
        ]
        for (arguments, code, named) in cases {
            let result = try world.w.rollout(arguments)
            XCTAssertEqual(result.status, code, "\(arguments.suffix(4)): \(result.output)")
            XCTAssertTrue(
                result.stderr.contains(named), "\(arguments.suffix(4)) should name \(named): \(result.stderr)")
            XCTAssertEqual(result.stdout, "")
        }
        XCTAssertEqual(try world.w.rollout("help", "device").status, 0)
        let actions = try world.w.rollout("__complete", "device", "--state", "d", "")
        XCTAssertTrue(actions.stdout.contains("launch-succeeded\n"), actions.stdout)
        XCTAssertEqual(try world.w.rollout("__complete", "device", "metrics", "f").stdout, "fallback\n")
    }

    /// An app built with root keys (`--root-key`): the device takes the key list, and its status says
    /// which version it holds, when the index expires, and that it is stale once it has.
    func testADeviceOnAKeyListShowsItsKeysVersionExpiryAndStaleness() throws {
        let world = try DeviceWorld()
        let initialized = try world.w.rollout("keys", "init", "--out", world.w.scratch.path("keys"))
        XCTAssertEqual(initialized.status, 0, initialized.output)
        try world.rollout(
            "publish", "--out", world.site, "--key", world.w.scratch.path("keys/publish-1.key"), "--expires", "2d")
        let root = try ClientWorld.publicKey(of: world.w.scratch.path("keys/root.key"))
        let rootFile = try world.w.scratch.write("root.pub", root + "\n")
        func device(_ action: [String], now: String? = nil, extra: [String] = []) throws -> RunResult {
            try world.w.rollout(
                [
                    "device", "--state", world.w.scratch.path("devices/p"), "--site", world.site, "--root-key",
                    rootFile, "--locale", "tr-TR",
                    "--region", "TR", "--app-version", "4.8.1",
                ] + extra + action, env: now.map { ["ROLLOUT_NOW": $0] } ?? [:])
        }
        let refreshed = try device(["refresh"])
        XCTAssertEqual(refreshed.status, 0, refreshed.output)
        XCTAssertEqual(try device(["launch"]).status, 0)
        let status = try world.w.json(try device(["status", "--json"]))
        XCTAssertEqual(status["keysVersion"] as? Int, 1)
        XCTAssertEqual(status["stale"] as? Bool, false)
        let expires = try XCTUnwrap(status["indexExpires"] as? String)
        let text = try device(["status"])
        XCTAssertTrue(
            text.stdout.contains("(expires \(expires))") && text.stdout.contains("Key list version 1.\n"), text.stdout)

        let later = Timestamp(seconds: try XCTUnwrap(Timestamp(iso8601: expires)).seconds + 3600).description
        let stale = try device(["status"], now: later)
        XCTAssertTrue(stale.stdout.contains("(stale: expired at \(expires); the packs stay in use)"), stale.stdout)
        XCTAssertEqual(try world.w.json(try device(["status", "--json"], now: later))["stale"] as? Bool, true)
        let refused = try device(["refresh", "--force"], now: later)
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(refused.output.contains("index.json: expired at \(expires)"), refused.output)
        XCTAssertEqual(try device(["get", "home.title"], now: later).stdout, "Hoş gledin\n", "the packs stay")

        let old = try device(["refresh", "--force"], extra: ["--min-sequence", "99"])
        XCTAssertEqual(old.status, 1, old.output)
        XCTAssertTrue(old.output.contains("the minimum built into this app"), old.output)

        let base = [
            "device", "--state", world.w.scratch.path("devices/q"), "--site", world.site, "--locale", "tr-TR",
            "--region", "TR", "--app-version", "4.8.1",
        ]
        // An app built when the key list was at version 2: a fresh install refuses version 1.
        let belowMinimum = try world.w.rollout(base + ["--root-key", root, "--min-keys-version", "2", "refresh"])
        XCTAssertEqual(belowMinimum.status, 1, belowMinimum.output)
        XCTAssertTrue(
            belowMinimum.output.contains(
                "keys.json: version 1 is older than version 2, the minimum built into this app"), belowMinimum.output)
        let refusedStatus = try world.w.rollout(base + ["--root-key", root, "--min-keys-version", "2", "status"])
        XCTAssertFalse(
            refusedStatus.stdout.contains("Key list version"), "a fresh install holds no list: \(refusedStatus.stdout)")
        XCTAssertEqual(
            try world.w.rollout(base + ["--root-key", root, "--min-keys-version", "1", "refresh"]).status, 0)
        XCTAssertTrue(
            try world.w.rollout(base + ["--root-key", root, "--min-keys-version", "1", "status"]).stdout.contains(
                "Key list version 1.\n"))

        let cases: [([String], String)] = [
            (base + ["--root-key", root, "--min-keys-version", "-1", "status"], "--min-keys-version"),
            (
                base + ["--public-key", world.publicKey, "--min-keys-version", "1", "status"],
                "--min-keys-version goes with --root-key"
            ),
            (base + ["status"], "--root-key"),
            (base + ["--root-key", root, "--public-key", world.publicKey, "status"], "alternatives"),
            (base + ["--root-key", root, "--threshold", "2", "status"], "--threshold 2"),
            (base + ["--root-key", root, "--min-sequence", "-1", "status"], "--min-sequence"),
            (base + ["--root-key", world.w.scratch.path("keys/root.key"), "status"], "private key"),
        ]
        for (arguments, named) in cases {
            let result = try world.w.rollout(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments.suffix(4)): \(result.output)")
            XCTAssertTrue(
                result.stderr.contains(named), "\(arguments.suffix(4)) should name \(named): \(result.stderr)")
        }
    }
}
