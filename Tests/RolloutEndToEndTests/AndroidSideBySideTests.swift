import Foundation
import RolloutModel
import XCTest

/// The Android client (android/, played by scripts/android-device) and the Swift one (`rollout
/// device`) as the same devices on the same published site, through one history: promotions, a
/// revert, the kill switch, a key rotation and a revocation. At each step both must print the same
/// bytes: the same text for the same keys, the same packs, the same refresh, the same crash-loop
/// guard and counters. The two ports of the client are one client.
final class AndroidSideBySideTests: XCTestCase {
    /// The repository root, where scripts/android-device is.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// One device: what places it in a rollout, and its locale's chain.
    struct Device {
        let installID: String
        let region: String
        let appVersion: String
        let locale: String
    }

    static let deviceCount = Int(ProcessInfo.processInfo.environment["SIDE_BY_SIDE_DEVICES"] ?? "") ?? 500

    /// 500 devices over regions, app versions and locales: inside and outside the percent shares
    /// (install ids), the segment a regional promotion targets and the others, a locale with a pack
    /// of its own, one on its language's pack, and one with none (the bundled strings, then en-US).
    static func devices() -> [Device] {
        let regions = ["TR", "DE", "US", "VN", "TR"]
        let versions = ["4.8.1", "4.9", "5.0.2", "3.2"]
        let locales = ["tr-TR", "en-US", "vi-VN", "tr", "de-DE", "tr-TR", "tr-CY"]
        return (0..<deviceCount).map { n in
            Device(
                installID: "device-\(n)", region: regions[n % regions.count],
                appVersion: versions[(n / regions.count) % versions.count], locale: locales[n % locales.count])
        }
    }

    /// What device `index` does at step `step`. Each step a fifth of the devices act, a different
    /// fifth each time, as phones that open the app now and then: each device refreshes once or
    /// twice in the history, some across several changes at once. (All 500 at every step would take
    /// minutes: every invocation starts a client, and the machine that runs make test has 2 cores.)
    /// An acting device refreshes, activates as an app does at a safe moment, reads a key and its
    /// status; one in three also reads a placeholder, a plural and a key only the bundle has. One in
    /// seven starts the app and reaches its first screen; another one in seven does so on the packs
    /// it had, then starts three times with the new ones without reaching it, so the crash-loop guard
    /// rolls them back.
    static func actions(index: Int, step: Int) -> [[String]] {
        guard (index + step) % 5 == 0 else { return [] }
        var actions: [[String]] = [["refresh", "--force", "--json"], ["activate"]]
        switch index % 7 {
        case 1: actions += [["launch"], ["launch-succeeded"]]
        case 2:
            // Armed on the packs it had, then three launches that never reach the first screen.
            actions = [["launch"], ["launch-succeeded"]] + actions + [["launch"], ["launch"], ["launch", "--json"]]
        default: break
        }
        actions.append(["get", "home.title"])
        if (index / 5) % 3 == 0 {
            actions += [
                ["get", "profile.greeting", "--arg", "name=Ayşe"], ["get", "files.count", "--arg", "count=21"],
                ["get", "only.bundled"],
            ]
        }
        return actions + [["status", "--json"]]
    }

    /// How device `index` checks the site: most are apps built with the key list's root key; one in
    /// four pins the first publishing key, as an app from before the key list, and is refused the
    /// site once publish signs with the next key.
    static func trust(index: Int, rootKey: String, pinnedKey: String) -> [String] {
        index % 4 == 3 ? ["--public-key", pinnedKey] : ["--root-key", rootKey]
    }

    func testTheAndroidAndSwiftClientsShowTheSameTextsAndPacksThroughAHistory() throws {
        let world = try SideBySideWorld()
        let w = world.w
        var signingKey = w.scratch.path("keys/publish-1.key")
        let pinnedKey = try ClientWorld.publicKey(of: signingKey)
        let steps: [(String, () throws -> Void)] = [
            ("the baselines", {}),
            (
                // Testers first: a tenth of the devices get tr-TR@18 before any share, whatever their bucket.
                "tr-TR@18 to tester group qa",
                {
                    let ids = Self.devices().prefix(Self.deviceCount / 10).map(\.installID)
                    let file = try w.scratch.write("qa.txt", ids.joined(separator: "\n") + "\n")
                    try world.rollout("testers", "add", "qa", "--file", file)
                    try world.rollout("promote", "tr-TR@18", "--to", "testers:qa")
                }
            ),
            (
                "tr-TR@18 to 10%",
                { try world.rollout("promote", "tr-TR@18", "--to", "10%", "--force", "--reason", "fix") }
            ),
            (
                "tr-TR@18 to 50% in TR on 4.8 and later",
                {
                    try world.rollout(
                        "promote", "tr-TR@18", "--to", "50%", "--region", "TR", "--app-version", ">=4.8", "--force",
                        "--reason", "wider")
                }
            ),
            ("a revert of tr-TR", { try world.rollout("revert", "tr-TR", "--reason", "crash spike") }),
            ("vi-VN's kill switch", { try world.rollout("revert", "vi-VN", "--to", "bundled", "--reason", "bad") }),
            (
                "a key rotation",
                {
                    try world.rollout("keys", "rotate", "--root", w.scratch.path("keys/root.key"))
                    signingKey = w.scratch.path("keys/publish-2.key")
                }
            ),
            (
                "the old publishing key revoked",
                {
                    let rows = try w.json(try w.rollout("keys", "list", "--json"))["keys"] as? [[String: Any]] ?? []
                    let id = try XCTUnwrap(rows.first { $0["publicKey"] as? String == pinnedKey }?["id"] as? String)
                    try world.rollout("keys", "revoke", id, "--root", w.scratch.path("keys/root.key"), "--reason", "x")
                }
            ),
        ]
        let devices = Self.devices()
        var seen = Tally()
        for (index, (step, change)) in steps.enumerated() {
            // An hour between steps, for the repository and the devices alike.
            w.environment["ROLLOUT_NOW"] = Timestamp(seconds: world.start + Int64(index) * 3600).description
            try change()
            try world.rollout("publish", "--out", w.scratch.path("site"), "--key", signingKey)
            let invocations = devices.indices.flatMap { device in
                Self.actions(index: device, step: index).map { (device: device, arguments: $0) }
            }
            func words(_ client: String, _ n: Int, _ action: [String]) -> [String] {
                [
                    "--state", w.scratch.path("devices/\(client)/\(n)"), "--site", w.scratch.path("site"),
                    "--bundled", w.scratch.path("bundled"), "--locale", devices[n].locale, "--region",
                    devices[n].region, "--app-version", devices[n].appVersion, "--install-id", devices[n].installID,
                ] + Self.trust(index: n, rootKey: world.rootKey, pinnedKey: pinnedKey) + action
            }
            let printed = try world.run(
                swift: invocations.map { ["device"] + words("swift", $0.device, $0.arguments) },
                android: invocations.map { words("android", $0.device, $0.arguments) })
            var differences = 0
            for (n, invocation) in invocations.enumerated() where n < printed.count {
                seen.count(invocation.arguments, printed[n].swift)
                let what = "\(step), device \(invocation.device) \(devices[invocation.device]), \(invocation.arguments)"
                if !same(printed[n].swift, printed[n].android, what) { differences += 1 }
                if differences >= 10 { return XCTFail("\(step): stopping after 10 differences") }
            }
        }
        // The history moved the devices: packs were staged, the revert and the revocation dropped some,
        // the apps that pin the first publishing key were refused the site after the rotation, and the
        // crash-loop guard rolled packs back.
        XCTAssertEqual(seen.refreshes, devices.count * steps.count / 5, "\(seen)")
        XCTAssertGreaterThan(seen.kinds["staged"] ?? 0, devices.count / 2, "\(seen)")
        XCTAssertGreaterThan(seen.kinds["failed"] ?? 0, 0, "\(seen)")
        XCTAssertGreaterThan(seen.dropping, 0, "\(seen)")
        XCTAssertGreaterThan(seen.rollingBack, 0, "\(seen)")
    }

    /// An experiment on both clients (docs/experiments.md): 80 tr-TR phones in and out of its targeting
    /// learn their variant from the same manifest, count the same exposures and conversions over two
    /// sessions, and export the same outcome CSV, byte for byte; the Swift phones' exports, ingested,
    /// are what `experiment show` counts.
    func testBothClientsCountTheSameExposuresAndConversionsInAnExperiment() throws {
        let world = try SideBySideWorld()
        let w = world.w
        try world.rollout(
            "experiment", "start", "title-test", "--variants", "tr-TR@17,tr-TR@18", "--region", "TR,DE", "--metric",
            "checkout", "--exploratory", "signup")
        try world.rollout("publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("keys/publish-1.key"))
        let devices = (0..<80).map { n in
            Device(
                installID: "phone-\(n)", region: ["TR", "DE", "US", "TR"][n % 4],
                appVersion: ["4.8.1", "4.7", "5.0"][n % 3],
                locale: "tr-TR")
        }
        let session: [[String]] = [
            ["refresh", "--force"], ["launch"], ["convert", "checkout"], ["get", "home.title"], ["get", "home.title"],
            ["activate"], ["launch"], ["get", "home.title"], ["convert", "signup"], ["convert", "purchase"],
            ["status", "--json"], ["metrics", "outcome"],
        ]
        let invocations = devices.indices.flatMap { n in session.map { (device: n, arguments: $0) } }
        func words(_ client: String, _ n: Int, _ action: [String]) -> [String] {
            [
                "--state", w.scratch.path("devices/\(client)/\(n)"), "--site", w.scratch.path("site"), "--bundled",
                w.scratch.path("bundled"), "--locale", devices[n].locale, "--region", devices[n].region,
                "--app-version", devices[n].appVersion, "--install-id", devices[n].installID, "--root-key",
                world.rootKey,
            ] + action
        }
        let printed = try world.run(
            swift: invocations.map { ["device"] + words("swift", $0.device, $0.arguments) },
            android: invocations.map { words("android", $0.device, $0.arguments) })
        var differences = 0
        var exported = ""
        for (n, invocation) in invocations.enumerated() where n < printed.count {
            let what = "device \(invocation.device) \(devices[invocation.device]), \(invocation.arguments)"
            if !same(printed[n].swift, printed[n].android, what) { differences += 1 }
            if differences >= 10 { return XCTFail("stopping after 10 differences") }
            if invocation.arguments == ["metrics", "outcome"] {
                exported += printed[n].swift.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                    .dropFirst().joined(separator: "\n")
            }
        }
        // Phones in TR and DE on 4.8 and later are in it, split between the arms; the others count nothing.
        let header = "date,locale,pack,region,app_version,metric,exposures,conversions\n"
        let file = try w.scratch.write("outcomes.csv", header + exported)
        XCTAssertTrue(exported.contains("tr-TR@17,TR,") && exported.contains("tr-TR@18,"), exported)
        XCTAssertFalse(exported.contains(",US,") || exported.contains(",4.7,"), exported)
        try world.rollout("metrics", "ingest", file, "--kind", "outcome")
        let shown = try w.json(try w.rollout("experiment", "show", "title-test", "--json"))
        let rows = try XCTUnwrap(shown["comparisons"] as? [[String: Any]])
        let checkout = try XCTUnwrap(rows.first { $0["metric"] as? String == "checkout" })
        let control = (checkout["control"] as? [String: Any])?["exposures"] as? Int ?? 0
        let variant = (checkout["variant"] as? [String: Any])?["exposures"] as? Int ?? 0
        let inIt = devices.filter { ["TR", "DE"].contains($0.region) && $0.appVersion != "4.7" }.count
        XCTAssertEqual(control + variant, inIt * 2, "two exposed sessions a phone in the experiment: \(checkout)")
        XCTAssertGreaterThan(min(control, variant), 0, "\(checkout)")
    }

    /// What the Swift devices did over the history, to check the history did what it is meant to.
    struct Tally {
        var kinds: [String: Int] = [:]
        var refreshes = 0
        var dropping = 0
        var rollingBack = 0

        mutating func count(_ action: [String], _ printed: Printed) {
            let document = try? JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [String: Any]
            if action[0] == "refresh" {
                refreshes += 1
                kinds[document?["result"] as? String ?? "none", default: 0] += 1
                if !(document?["dropped"] as? [String] ?? []).isEmpty { dropping += 1 }
            }
            if action == ["launch", "--json"], let launch = document?["launch"] as? [String: Any],
                !(launch["rolledBack"] as? [String] ?? []).isEmpty
            {
                rollingBack += 1
            }
        }
    }

    /// A mistyped flag, a missing one, an unknown action, a bad key: both programs refuse it with the
    /// same message on stderr and the same exit code, as text and with --json; and both print the
    /// same help.
    func testBothClientsRefuseTheSameFlagsWithTheSameWords() throws {
        let world = try SideBySideWorld()
        let w = world.w
        let key = try ClientWorld.publicKey(of: w.scratch.path("keys/publish-1.key"))
        try world.rollout("publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("keys/publish-1.key"))
        try w.scratch.write("signing.pub", key + "\n")
        let state = w.scratch.path("devices/p")
        let device = ["--state", state, "--site", w.scratch.path("site"), "--locale", "tr-TR", "--region", "TR"]
        let pinned = device + ["--public-key", key, "--app-version", "4.8.1"]
        let cases: [[String]] = [
            pinned, pinned + ["bogus"], pinned + ["refrsh"], pinned + ["get"], pinned + ["get", "a", "b"],
            pinned + ["status", "now"],
            pinned + ["metrics"], pinned + ["metrics", "crashes"], pinned + ["status", "--force"],
            pinned + ["status", "--arg", "a=b"], pinned + ["get", "k", "--arg", "=b"],
            pinned + ["get", "k", "--arg", "a"], pinned + ["get", "k", "--arg", "a=1", "--arg", "a=2"],
            pinned + ["get", "k", "--jsno"], pinned + ["get", "k", "-x"], pinned + ["get", "k", "--force", "--json"],
            pinned + ["status", "--json=yes"], pinned + ["status", "--min-sequence"],
            pinned + ["status", "--min-sequence", " "], pinned + ["status", "--min-sequence", "-1"],
            pinned + ["status", "--threshold", "2"], pinned + ["status", "--min-keys-version", "1"],
            pinned + ["status", "--root-key", key], pinned + ["status", "--state", state],
            device + ["--app-version", "4.8.1", "status"],
            device + ["--app-version", "4.8.1", "--public-key", "ed25519:AAAA", "status"],
            device + ["--app-version", "4.8.1", "--public-key", w.scratch.path("keys/root.key"), "status"],
            device + ["--app-version", "4.8.1", "--root-key", key, "--threshold", "2", "status"],
            device + ["--app-version", "4.8.1", "--root-key", key, "--threshold", "x", "status"],
            device + ["--app-version", "four", "--public-key", key, "status"],
            device + ["--public-key", key, "status"],
            ["--state", state, "--site", w.scratch.path("nowhere"), "--public-key", key, "status"],
            ["--state", state, "--site", "ftp://example.com/site", "--public-key", key, "status"],
            [
                "--state", w.scratch.path("signing.pub"), "--site", w.scratch.path("site"), "--public-key", key,
                "status",
            ],
            ["--site", w.scratch.path("site"), "--public-key", key, "status"],
            pinned.map { $0 == "tr-TR" ? "tr-tr" : $0 } + ["status"],
            pinned.map { $0 == "tr-TR" ? "tr-TR-x" : $0 } + ["status"],
            pinned.map { $0 == "TR" ? "XX" : $0 } + ["status"], pinned.map { $0 == "TR" ? "*" : $0 } + ["status"],
            pinned + ["--bundled", w.scratch.path("nowhere"), "status", "--json"],
        ]
        var invocations = cases + cases.prefix(8).map { $0 + ["--json"] }
        // Help is no refusal, but it is the same text: both read the same option table.
        let help = [["--help"], pinned + ["-h"], ["--state", state, "--help", "--json"]]
        invocations += help
        var printed = try world.run(swift: invocations.map { ["device"] + $0 }, android: invocations)
        w.environment["ROLLOUT_NOW"] = "yesterday"
        printed += try world.run(swift: [["device"] + pinned + ["status"]], android: [pinned + ["status"]])
        invocations.append(pinned + ["status"])
        for (arguments, (swift, android)) in zip(invocations, printed) {
            if !help.contains(arguments) {
                XCTAssertNotEqual(swift.status, 0, "\(arguments) is not refused: \(swift.stdout)")
            }
            XCTAssertEqual(swift, android, "\(arguments)")
        }
    }

    /// Whether both clients printed the same, byte for byte: a lookup's text, the whole status (packs,
    /// failed, blocked, killed, the guard, the counters, key list version, expiry), a refresh's kind,
    /// packs and failures (reason codes and messages alike), the exit code and stderr.
    func same(_ swift: Printed, _ android: Printed, _ what: String) -> Bool {
        guard swift != android else { return true }
        XCTFail(
            "\(what):\nSwift (\(swift.status)):\n\(swift.stdout)\(swift.stderr)\nAndroid (\(android.status)):\n\(android.stdout)\(android.stderr)"
        )
        return false
    }
}

/// A repository with en-US@1, tr@1, tr-TR@17 and vi-VN@3 at 100%, a key list (keys/root.key,
/// keys/publish-1.key), the app's bundled strings, and both clients to run on what it publishes.
final class SideBySideWorld {
    let w: Workspace
    let rootKey: String
    let start: Int64
    private var batches = 0

    /// A failure, not a skip: under `make test` these are the proof that the two clients agree, and a
    /// machine without a JDK would otherwise pass without giving it.
    struct JDKMissing: Error, CustomStringConvertible {
        var description: String {
            "the Android client needs a JDK (java and javac) to build and run: install openjdk-17-jdk-headless "
                + "(make deps, or apt-get install openjdk-17-jdk-headless)"
        }
    }

    init() throws {
        // javac too: scripts/android-device builds its jar when the Java sources are newer.
        guard ["/usr/bin/java", "/usr/bin/javac"].allSatisfy(FileManager.default.isExecutableFile(atPath:)) else {
            throw JDKMissing()
        }
        w = try Workspace()
        start = try XCTUnwrap(Timestamp(iso8601: "2026-12-01T09:00:00Z")).seconds
        w.environment["ROLLOUT_NOW"] = Timestamp(seconds: start).description
        try w.initWithExamples()
        for id in ["en-US@1", "tr@1", "tr-TR@17", "vi-VN@3"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
        let keys = try w.rollout("keys", "init", "--out", w.scratch.path("keys"))
        XCTAssertEqual(keys.status, 0, keys.output)
        rootKey = try ClientWorld.publicKey(of: w.scratch.path("keys/root.key"))
        try w.scratch.write(
            "bundled/tr-TR.json", #"{"home.title": "Hoş geldin (paket içi)", "only.bundled": "Uygulamadan"}"#)
        try w.scratch.write(
            "bundled/en-US.json", #"{"home.title": "Welcome (bundled)", "only.bundled": "From the app"}"#)
    }

    func rollout(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try w.rollout(arguments)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.output)", file: file, line: line)
    }

    /// Each `swift` invocation run in this process (`rollout device` as RolloutCLI.run runs it) and
    /// each `android` one by scripts/android-device, all of them in one JVM (`--batch`: a JVM start
    /// per invocation would take minutes) at the same time on another thread: the two clients share
    /// nothing but the site. Both get this workspace's environment (ROLLOUT_NOW). The script builds
    /// its jar first when the Java sources are newer; a build that fails is the batch's stderr.
    func run(swift: [[String]], android: [[String]]) throws -> [(swift: Printed, android: Printed)] {
        batches += 1
        let requests = try android.map { arguments in
            String(
                decoding: try JSONSerialization.data(withJSONObject: [
                    "arguments": arguments, "environment": w.environment,
                ]), as: UTF8.self)
        }
        let batch = try w.scratch.write("batch-\(batches).jsonl", requests.joined(separator: "\n") + "\n")
        let done = DispatchSemaphore(value: 0)
        let jvm = Box<Result<RunResult, Error>>()
        let environment = w.environment
        Thread.detachNewThread {
            jvm.value = Result {
                try Processes.run(
                    AndroidSideBySideTests.root + "/scripts/android-device", ["--batch", batch],
                    in: AndroidSideBySideTests.root, environment: environment)
            }
            done.signal()
        }
        let inProcess = swift.map { arguments in
            let result = InProcess.run(arguments, in: w.work, environment: w.environment)
            return Printed(status: result.status, stdout: result.stdout, stderr: result.stderr)
        }
        done.wait()
        let batchRun = try jvm.value!.get()
        XCTAssertEqual(batchRun.status, 0, batchRun.stderr)
        let answers = try batchRun.stdout.split(separator: "\n").map { line in
            let object = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            return Printed(
                status: Int32(try XCTUnwrap(object["exit"] as? Int)),
                stdout: try XCTUnwrap(object["stdout"] as? String),
                stderr: try XCTUnwrap(object["stderr"] as? String))
        }
        XCTAssertEqual(answers.count, swift.count, "the Android batch stopped early: \(batchRun.stderr)")
        return Array(zip(inProcess, answers))
    }

    /// The JVM's answer, handed from its thread. `@unchecked Sendable`: written once on that thread
    /// before it signals the semaphore the test waits on, and read only after the wait.
    private final class Box<T>: @unchecked Sendable {
        var value: T?
    }
}

/// What one invocation of either client printed.
struct Printed: Equatable {
    let status: Int32
    let stdout: String
    let stderr: String
}
