import Foundation
import XCTest

/// A real git daemon on loopback, started and stopped by the test, with receive-pack enabled.
final class GitDaemon {
    let root: String
    let port: Int
    private let process: Process

    init(root: String) throws {
        self.root = root
        var lastError = ""
        // git-daemon itself, not `git daemon`: git would run it as a child, which the SIGKILL in
        // stop() would leave running after the test.
        let execPath = try Processes.run(
            "/usr/bin/env", ["git", "--exec-path"], in: root,
            environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"]
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for _ in 0..<20 {
            let port = Int.random(in: 20_000...60_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: execPath + "/git-daemon")
            process.arguments = [
                "--reuseaddr", "--export-all", "--enable=receive-pack", "--base-path=\(root)",
                "--listen=127.0.0.1", "--port=\(port)", root,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Ready when it answers; gone if the port was taken.
            for _ in 0..<100 {
                if !process.isRunning { break }
                let probe = try Processes.run(
                    "/usr/bin/env", ["git", "ls-remote", "git://127.0.0.1:\(port)/nothing"], in: root,
                    environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"])
                if probe.stderr.contains("access denied") || probe.stderr.contains("does not appear")
                    || probe.status == 0 || probe.stderr.contains("not exported")
                {
                    self.port = port
                    self.process = process
                    return
                }
                lastError = probe.stderr
                usleep(50_000)
            }
            kill(process.processIdentifier, SIGKILL)
        }
        throw NSError(
            domain: "GitDaemon", code: 1,
            userInfo: [NSLocalizedDescriptionKey: "git daemon did not start: \(lastError)"])
    }

    func url(_ name: String) -> String { "git://127.0.0.1:\(port)/\(name)" }

    func stop() {
        // SIGKILL: a child spawned from the test's threads inherits their blocked SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<100 where process.isRunning { usleep(20_000) }
    }
}

/// Shared repositories: clones on a real git daemon and on a local path, racing each other.
/// `make test` races 16 rounds on each (each round a push from every clone against the three
/// others, 64 contended pushes a race); scripts/remote-races.sh runs REMOTE_RACE_ROUNDS rounds, as
/// many times as asked. The suite raced 50 rounds on the daemon and 20 on the path before: nine
/// tenths of the class's time.
final class RemoteTests: XCTestCase {
    /// The rounds of the four-clone races: REMOTE_RACE_ROUNDS, else `fallback`.
    static func raceRounds(_ fallback: Int) throws -> Int {
        guard let text = ProcessInfo.processInfo.environment["REMOTE_RACE_ROUNDS"], !text.isEmpty else {
            return fallback
        }
        return try XCTUnwrap(Int(text).flatMap { $0 > 0 ? $0 : nil }, "REMOTE_RACE_ROUNDS: a whole number over 0")
    }

    func testFourClonesOnAGitDaemonLoseNothing() throws {
        let w = try Workspace()
        let repository = try shared(w)
        let daemon = try GitDaemon(root: w.scratch.path("server"))
        defer { daemon.stop() }
        try fourClonesAtOnce(url: daemon.url, serverRepository: repository, w: w, rounds: try Self.raceRounds(16))
    }

    /// libgit2's local-path transport does not compare-and-swap: rollout guards it.
    func testFourClonesOnALocalPathLoseNothing() throws {
        let w = try Workspace()
        let repository = try shared(w)
        try fourClonesAtOnce(
            url: { w.scratch.path("server/\($0)") }, serverRepository: repository, w: w, rounds: try Self.raceRounds(16)
        )
    }

    /// Two clones revert the same staged rollout at the same moment, over and over: each time one
    /// revert lands, and the other, re-applied on the winner's tip, finds nothing left to revert.
    func testTwoClonesRacingOnOneLocale() throws {
        let w = try Workspace()
        let repository = try shared(w)
        let daemon = try GitDaemon(root: w.scratch.path("server"))
        defer { daemon.stop() }
        for index in 0..<2 {
            XCTAssertEqual(try w.rollout("clone", daemon.url("shared.git"), w.scratch.path("racer\(index)")).status, 0)
        }
        let environment = w.environment
        for round in 0..<6 {
            let staged = try w.rollout(
                "--repo", w.scratch.path("racer0"), "promote", "tr-TR@18", "--to", "10%", "--force", "--reason",
                "round \(round)")
            XCTAssertEqual(staged.status, 0, staged.output)
            let before = try actions(w, repository).count
            let results = simultaneously(2) { index in
                try! Processes.run(
                    Processes.rolloutBinary,
                    [
                        "--repo", w.scratch.path("racer\(index)"), "revert", "tr-TR", "--no-block", "--reason",
                        "race \(round)", "--json",
                    ],
                    in: w.root, environment: environment)
            }
            let log = try actions(w, repository)
            XCTAssertEqual(log.count, before + 1, "round \(round): exactly one revert landed: \(results.map(\.output))")
            XCTAssertTrue(log[0].hasPrefix("revert|tr-TR|"))
            // The loser re-applied the revert on the winner's tip and found nothing staged.
            let statuses = results.map(\.status).sorted()
            XCTAssertEqual(statuses.first, 0, "\(results.map(\.output))")
            XCTAssertTrue(statuses.allSatisfy { $0 == 0 || $0 == 1 }, "\(results.map(\.output))")
        }
        XCTAssertEqual(try w.rollout("--repo", repository, "verify").status, 0)
    }

    func testOfflineWorkIsReplayedOrRefusedByName() throws {
        let w = try Workspace()
        let repository = try shared(w)
        for name in ["a", "b"] { XCTAssertEqual(try w.rollout("clone", repository, w.scratch.path(name)).status, 0) }
        let a = w.scratch.path("a")
        let b = w.scratch.path("b")
        // Offline in a, on tr-TR; meanwhile b changes vi-VN on the remote.
        XCTAssertEqual(
            try w.rollout(
                "--repo", a, "--offline", "promote", "tr-TR@18", "--to", "5%", "--force", "--reason", "offline"
            ).status, 0)
        XCTAssertEqual(
            try w.rollout("--repo", b, "promote", "vi-VN@4", "--to", "5%", "--force", "--reason", "online").status, 0)
        let blocked = try w.rollout("--repo", a, "promote", "en-US@2", "--to", "5%", "--force", "--reason", "x")
        XCTAssertEqual(blocked.status, 76, blocked.output)
        XCTAssertTrue(blocked.stderr.contains("run rollout sync first"), blocked.stderr)
        let synced = try w.rollout("--repo", a, "sync")
        XCTAssertEqual(synced.status, 0, synced.output)
        XCTAssertTrue(synced.stdout.contains("Pushed 1 change(s) to origin, replayed"), synced.stdout)
        XCTAssertEqual(
            try actions(w, repository).prefix(2).map { $0.split(separator: "|").prefix(2).joined(separator: "|") },
            ["promote|tr-TR", "promote|vi-VN"])
        XCTAssertEqual(try w.rollout("--repo", a, "verify").status, 0, "a replay is not a rewrite")

        // Offline in a and online in b, on the same locale: refused by name, nothing changed.
        XCTAssertEqual(
            try w.rollout("--repo", a, "--offline", "revert", "tr-TR", "--no-block", "--reason", "offline").status, 0)
        XCTAssertEqual(
            try w.rollout("--repo", b, "promote", "tr-TR@18", "--to", "20%", "--force", "--reason", "online").status, 0)
        let serverTip = try actions(w, repository)
        let refused = try w.rollout("--repo", a, "sync")
        XCTAssertEqual(refused.status, 76, refused.output)
        XCTAssertTrue(refused.stderr.contains("plans/tr-TR.json was also changed on origin"), refused.stderr)
        XCTAssertEqual(try actions(w, repository), serverTip, "the remote is unchanged")
        let discarded = try w.rollout("--repo", a, "sync", "--discard-local")
        XCTAssertEqual(discarded.status, 0, discarded.output)
        XCTAssertEqual(try w.rollout("--repo", a, "verify").status, 0)
        XCTAssertEqual(try w.rollout("--repo", a, "status", "tr-TR", "--json").status, 0)
    }

    /// A clone that is behind prepares a change against the remote's state, not its stale copy:
    /// metrics for a pack another clone added are ingested, not refused as an unknown pack.
    func testAWriteInAStaleCloneJudgesItsInputByTheRemotesState() throws {
        let w = try Workspace()
        let repository = try shared(w)
        for name in ["a", "b"] { XCTAssertEqual(try w.rollout("clone", repository, w.scratch.path(name)).status, 0) }
        var pack =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("tr@1"))))
            as! [String: Any]
        pack["contentVersion"] = 3
        pack["checksum"] = nil
        let file = try w.scratch.write("tr@3.json", Data(JSONSerialization.data(withJSONObject: pack)))
        XCTAssertEqual(try w.rollout("--repo", w.scratch.path("a"), "pack", "add", file).status, 0)
        let csv = try w.scratch.write(
            "crashes.csv", "date,locale,pack,region,app_version,sessions,crashes\n2026-11-20,tr,tr@3,TR,4.8.0,1000,1\n")
        let ingested = try w.rollout("--repo", w.scratch.path("b"), "metrics", "ingest", "--kind", "crash", csv)
        XCTAssertEqual(ingested.status, 0, ingested.output)
        XCTAssertEqual(try w.rollout("--repo", w.scratch.path("b"), "verify").status, 0)
    }

    /// A CI job's clone that is behind publishes and guards the shared state, not its stale copy.
    func testPublishAndGuardCatchUpFirst() throws {
        let w = try Workspace()
        let repository = try shared(w)
        for name in ["laptop", "ci"] {
            XCTAssertEqual(try w.rollout("clone", repository, w.scratch.path(name)).status, 0)
        }
        XCTAssertEqual(
            try w.rollout(
                "--repo", w.scratch.path("laptop"), "promote", "tr-TR@18", "--to", "10%", "--force", "--reason",
                "typo fix"
            ).status, 0)
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key")).status, 0)
        let published = try w.rollout(
            "--repo", w.scratch.path("ci"), "publish", "--out", w.scratch.path("site"), "--key",
            w.scratch.path("signing.key"))
        XCTAssertEqual(published.status, 0, published.output)
        let manifest = try String(contentsOfFile: w.scratch.path("site/manifests/tr-TR.json"), encoding: .utf8)
        XCTAssertTrue(manifest.contains("\"18\":{"), "the laptop's promote is published: \(manifest)")
        let guarded = try w.rollout("--repo", w.scratch.path("ci"), "guard", "--json")
        XCTAssertTrue([0, 1].contains(guarded.status), guarded.output)
        XCTAssertTrue(guarded.stdout.contains("tr-TR@18"), "guard sees the staged rollout: \(guarded.stdout)")
    }
}

/// The shared-repository setup and the racing clones, also used by RemoteAuthTests.
extension XCTestCase {
    /// A shared repository with the example packs, one more version of en-US, tr and vi-VN, and a
    /// baseline for every locale.
    func shared(_ w: Workspace) throws -> String {
        let path = w.scratch.path("server/shared.git")
        XCTAssertEqual(try w.rollout("init", path).status, 0)
        var packs = Fixtures.allExamplePacks
        for (name, version) in [("en-US@1", 2), ("tr@1", 2), ("vi-VN@3", 4)] {
            var pack =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack(name)))) as! [String: Any]
            pack["contentVersion"] = version
            pack["checksum"] = nil
            var strings = pack["strings"] as! [String: String]
            strings["settings.title"] = (strings["settings.title"] ?? "") + " ✓"
            pack["strings"] = strings
            packs.append(
                try w.scratch.write(
                    "\(name.split(separator: "@")[0])@\(version).json",
                    Data(JSONSerialization.data(withJSONObject: pack))))
        }
        let added = try w.rollout(["--repo", path, "pack", "add"] + packs)
        XCTAssertEqual(added.status, 0, added.output)
        for id in ["en-US@1", "tr@1", "tr-TR@17", "vi-VN@3"] {
            XCTAssertEqual(try w.rollout("--repo", path, "promote", id, "--to", "100%").status, 0)
        }
        return path
    }

    func actions(_ w: Workspace, _ repository: String) throws -> [String] {
        try Processes.run(
            "/usr/bin/env",
            [
                "git", "--git-dir", repository, "log",
                "--format=%(trailers:key=Rollout-Action,valueonly,separator=)|%(trailers:key=Rollout-Locale,valueonly,separator=)|%p",
            ],
            in: w.root, environment: w.environment
        ).stdout.split(separator: "\n").map(String.init)
    }

    /// Four clones (or the first `clones`), each promoting and reverting its own locale `rounds`
    /// times, all at once.
    func fourClonesAtOnce(url: (String) -> String, serverRepository: String, w: Workspace, rounds: Int, clones: Int = 4)
        throws
    {
        let before = try actions(w, serverRepository).count
        let work = Array(
            [("en-US", "en-US@2"), ("tr", "tr@2"), ("tr-TR", "tr-TR@18"), ("vi-VN", "vi-VN@4")].prefix(clones))
        for index in work.indices {
            let clone = try w.rollout("clone", url("shared.git"), w.scratch.path("clone\(index)"))
            XCTAssertEqual(clone.status, 0, clone.output)
        }
        let environment = w.environment
        let failures = simultaneously(work.count) { index -> [String] in
            let (locale, pack) = work[index]
            var failed: [String] = []
            for round in 0..<rounds {
                let arguments =
                    round % 2 == 0
                    ? ["promote", pack, "--to", "\(round + 1)%", "--force", "--reason", "round \(round)"]
                    : ["revert", locale, "--no-block", "--reason", "round \(round)"]
                let result = try! Processes.run(
                    Processes.rolloutBinary, ["--repo", "\(w.scratch.path("clone\(index)"))"] + arguments, in: w.root,
                    environment: environment)
                if result.status != 0 {
                    failed.append("\(locale) round \(round): exit \(result.status): \(result.stderr)")
                }
            }
            return failed
        }
        XCTAssertEqual(failures.flatMap { $0 }, [], "every operation lands")

        let log = try actions(w, serverRepository)
        XCTAssertEqual(log.count, before + work.count * rounds, "each operation exactly once on the remote")
        for (locale, _) in work {
            XCTAssertEqual(log.filter { $0.hasPrefix("promote|\(locale)|") }.count, (rounds + 1) / 2, locale)
            XCTAssertEqual(log.filter { $0.hasPrefix("revert|\(locale)|") }.count, rounds / 2, locale)
        }
        XCTAssertTrue(
            log.dropLast().allSatisfy {
                $0.split(separator: "|", omittingEmptySubsequences: false).last!.split(separator: " ").count == 1
            }, "one line of single-parent commits")
        let verified = try w.rollout("--repo", serverRepository, "verify")
        XCTAssertEqual(verified.status, 0, verified.output)
        for index in work.indices {
            let synced = try w.rollout("--repo", w.scratch.path("clone\(index)"), "sync")
            XCTAssertEqual(synced.status, 0, synced.output)
            XCTAssertEqual(try w.rollout("--repo", w.scratch.path("clone\(index)"), "verify").status, 0)
        }
        let fsck = try Processes.run(
            "/usr/bin/env", ["git", "--git-dir", serverRepository, "fsck", "--strict", "--no-dangling"], in: w.root,
            environment: w.environment)
        XCTAssertEqual(fsck.status, 0, fsck.output)
    }
}
