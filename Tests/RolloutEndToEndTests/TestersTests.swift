import Foundation
import RolloutClient
import RolloutModel
import XCTest

/// Tester groups (docs/targeting.md, "Testers first"): `rollout testers`, `promote --to
/// testers:GROUP`, and every reader of a plan giving the candidate to exactly those devices.
final class TestersTests: XCTestCase {
    let testers = ["qa-phone-1", "qa-phone-2", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"]
    let outsiders = ["customer-1", "customer-2", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"]

    /// What `rollout resolve` gives a TR device on 4.8.1.
    func resolved(_ w: Workspace, _ installID: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> String
    {
        let result = try w.rollout(
            "resolve", "--locale", "tr-TR", "--region", "TR", "--app-version", "4.8.1", "--install-id", installID,
            "--json")
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
        let chain = try XCTUnwrap(try w.json(result)["chain"] as? [[String: Any]], file: file, line: line)
        return try XCTUnwrap(chain.first?["result"] as? String, file: file, line: line)
    }

    /// The ids as a file, one a line, with a comment and a blank line as people write them.
    func idFile(_ w: Workspace, _ ids: [String]) throws -> String {
        try w.scratch.write("qa.txt", "# the QA team's phones\n\n" + ids.map { "  \($0)\n" }.joined())
    }

    func testTestersGetTheCandidateAlikeInResolveTheSwiftClientOverHTTPAndRolloutDevice() async throws {
        let world = try ClientWorld()
        let w = world.w
        try world.rollout("testers", "add", "qa", "--file", try idFile(w, testers))
        try world.rollout("promote", "tr-TR@18", "--to", "testers:qa")
        try world.publish()
        let server = try LoopbackServer(
            script: """
                import functools, http.server, sys
                handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
                handler.func.log_message = lambda *a: None
                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
                print(server.server_address[1], flush=True)
                server.serve_forever()
                """, arguments: [w.scratch.path("site")])
        defer { server.stop() }
        for (index, id) in (testers + outsiders).enumerated() {
            let expected = testers.contains(id) ? "tr-TR@18" : "tr-TR@17"
            XCTAssertEqual(try resolved(w, id), expected, "rollout resolve, \(id)")

            var options = RolloutClient.Options()
            options.installID = id
            options.timeout = 10
            let client = RolloutClient(
                bundled: ClientWorld.bundled, cacheDirectory: world.cache("http-\(index)"),
                manifestURL: server.url("index.json"), publicKey: world.publicKey, appVersion: "4.8.1", region: "TR",
                locale: "tr-TR", options: options)
            await client.refreshAndActivate()
            XCTAssertEqual(client.activePack?.description, expected, "the Swift client over HTTP, \(id)")

            let device = [
                "device", "--state", w.scratch.path("devices/\(index)"), "--site", w.scratch.path("site"),
                "--public-key", world.publicKey, "--locale", "tr-TR", "--region", "TR", "--app-version", "4.8.1",
                "--install-id", id,
            ]
            XCTAssertEqual(try w.rollout(device + ["refresh"]).status, 0)
            XCTAssertEqual(try w.rollout(device + ["activate"]).status, 0)
            let status = try w.json(try w.rollout(device + ["status", "--json"]))
            let packs = try XCTUnwrap(status["packs"] as? [String: [String: Any]], "\(status)")
            XCTAssertEqual(packs["tr-TR"]?["active"] as? String, expected, "rollout device, \(id)")
        }
    }

    func testThePublishedSiteHoldsNoInstallIDOnlyTheirSaltedHashes() throws {
        let world = try ClientWorld()
        let w = world.w
        try world.rollout("testers", "add", "qa", "--file", try idFile(w, testers))
        try world.rollout("promote", "tr-TR@18", "--to", "testers:qa")
        try world.publish()
        let site = w.scratch.path("site")
        var files: [String] = []
        let walker = FileManager.default.enumerator(atPath: site)
        while let path = walker?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: site + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append(path)
            }
        }
        XCTAssertGreaterThan(files.count, 5)
        for path in files {
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: site + "/" + path)), as: UTF8.self)
            for id in testers {
                XCTAssertFalse(text.lowercased().contains(id.lowercased()), "\(path) holds the install id \(id)")
            }
        }
        // What a device reads instead: the group's salt and one hash a member, which it recomputes.
        let manifest = try XCTUnwrap(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: site + "/manifests/tr-TR.json")))
                as? [String: Any])
        let group = try XCTUnwrap(((manifest["plan"] as? [String: Any])?["testers"] as? [[String: Any]])?.first)
        let salt = try XCTUnwrap(group["salt"] as? String)
        XCTAssertEqual(
            Set(try XCTUnwrap(group["members"] as? [String])),
            Set(testers.map { TesterGroup.memberHash(installID: $0, salt: salt) }))
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    func testWideningKeepsTestersInNewMembersFollowAndRevertTakesThemBack() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(
            try w.rollout("testers", "add", "qa", "--install-id", testers[0], "--install-id", testers[1]).status, 0)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "testers:qa").status, 0)
        let widened = try w.rollout("promote", "tr-TR@18", "--to", "1%")
        XCTAssertEqual(widened.status, 0, widened.output)
        // Testers outside the 1%: they keep the candidate whatever their bucket.
        let plan = try XCTUnwrap(try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any])
        let salt = try XCTUnwrap((plan["rules"] as? [[String: Any]])?.first?["salt"] as? String)
        let outside = testers.prefix(2).filter { Bucketing.bucket(installID: $0, salt: salt) >= 100 }
        XCTAssertFalse(outside.isEmpty, "a tester outside the 1% to prove it on")
        for id in testers.prefix(2) { XCTAssertEqual(try resolved(w, id), "tr-TR@18", id) }
        let wider = try w.rollout("promote", "tr-TR@18", "--to", "5%", "--force", "--reason", "no metrics yet")
        XCTAssertEqual(wider.status, 0, wider.output)
        for id in testers.prefix(2) { XCTAssertEqual(try resolved(w, id), "tr-TR@18", id) }

        // A member added later gets it at once: the same commit restages the plan. It is one the 5%
        // leaves out, so only the group can give it the pack.
        let late = try XCTUnwrap(
            (1...50).map { "late-tester-\($0)" }.first { Bucketing.bucket(installID: $0, salt: salt) >= 500 })
        XCTAssertEqual(try resolved(w, late), "tr-TR@17")
        let added = try w.rollout("testers", "add", "qa", "--install-id", late, "--reason", "Ayşe's new phone")
        XCTAssertEqual(added.status, 0, added.output)
        XCTAssertTrue(
            try w.rollout("log", "--limit", "1").stdout.contains("(\"Ayşe's new phone\")"),
            "the reason is recorded, as for any change")
        XCTAssertTrue(added.stdout.contains("devices follow in: tr-TR"), added.stdout)
        XCTAssertEqual(try resolved(w, late), "tr-TR@18")
        let diff = try w.rollout("diff", "HEAD~1", "HEAD")
        XCTAssertTrue(
            diff.stdout.contains(
                "testers: tr-TR@18 to testers:qa (2 install ids) -> tr-TR@18 to testers:qa (3 install ids)"),
            diff.output)

        let reverted = try w.rollout("revert", "tr-TR", "--reason", "wrong date format")
        XCTAssertEqual(reverted.status, 0, reverted.output)
        for id in testers.prefix(2) + [late] {
            XCTAssertEqual(try resolved(w, id), "tr-TR@17", "the revert takes \(id) back")
        }
        let after = try XCTUnwrap(try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any])
        XCTAssertNil(after["testers"])
        let verify = try w.rollout("verify")
        XCTAssertEqual(verify.status, 0, verify.output)
        let actions = try w.git("log", "--format=%(trailers:key=Rollout-Action,valueonly)").stdout
        XCTAssertTrue(actions.contains("testers-add"), actions)
        try w.assertFsckClean()
    }

    /// The healthy example export with a tester column, and two rows of tester devices that crash
    /// in nearly a third of their sessions, marked as testers' (`marked`) or not.
    func metricsWithTesters(_ w: Workspace, marked: Bool) throws -> String {
        let healthy = try String(
            contentsOfFile: Fixtures.examplePacks + "/../metrics/crashes-healthy.csv", encoding: .utf8)
        let lines = healthy.split(separator: "\n")
        return try w.scratch.write(
            "crashes-\(marked).csv",
            ([lines[0] + ",tester"] + lines.dropFirst().map { $0 + "," }
                + [
                    "2026-11-25,tr-TR,tr-TR@18,TR,4.8.1,3000,900,\(marked ? "qa" : "")",
                    "2026-11-25,tr-TR,tr-TR@18,TR,4.9,3000,900,\(marked ? "true" : "no")",
                ]).joined(separator: "\n") + "\n")
    }

    func testMetricsRowsOfTesterDevicesNeverCountTowardHealth() throws {
        var verdicts: [Bool: String] = [:]
        for marked in [true, false] {
            let w = try Workspace()
            try w.initWithExamples()
            let setup = [
                ["promote", "tr-TR@17", "--to", "100%"], ["testers", "add", "qa", "--install-id", "qa-phone-1"],
                ["promote", "tr-TR@18", "--to", "testers:qa"], ["promote", "tr-TR@18", "--to", "10%"],
            ]
            for step in setup { XCTAssertEqual(try w.rollout(step).status, 0, "\(step)") }
            let now = ["ROLLOUT_NOW": "2026-11-29T09:00:00Z"]
            let ingest = try w.rollout(
                "metrics", "ingest", "--kind", "crash", try metricsWithTesters(w, marked: marked), env: now)
            XCTAssertEqual(ingest.status, 0, ingest.output)
            XCTAssertEqual(ingest.stdout.contains("left out 2 row(s) of tester devices"), marked, ingest.stdout)
            let health = try w.json(try w.rollout("health", "tr-TR", "--json", env: now))
            verdicts[marked] = health["verdict"] as? String
        }
        XCTAssertEqual(verdicts[true], "healthy", "the testers' crashes are left out")
        XCTAssertEqual(verdicts[false], "unhealthy", "the same rows unmarked would have decided")
    }

    func testABadIDFileIsRefusedNamingItsLineAndChangesNothing() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("testers", "add", "qa", "--install-id", "qa-phone-1").status, 0)
        let tip = try w.stateTip()
        let file = try w.scratch.write("ids.txt", "qa-phone-2\n# fine\nqa-phone-3 qa-phone-4\nqa-phone-5\n")
        let refused = try w.rollout("testers", "add", "qa", "--file", file)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("\(file):3: \"qa-phone-3 qa-phone-4\" is not an install id: it has a space in it"),
            refused.stderr)
        let control = try w.rollout("testers", "add", "qa", "--install-id", "qa\u{1B}[2J")
        XCTAssertEqual(control.status, 64, control.output)
        XCTAssertTrue(control.stderr.contains("--install-id"), control.stderr)
        XCTAssertEqual(try w.rollout("testers", "add", "QA", "--install-id", "x").status, 64)
        XCTAssertEqual(try w.rollout("testers", "add", "qa").status, 64, "no id at all")
        let dryRun = try w.rollout("testers", "add", "qa", "--install-id", "qa-phone-9", "--dry-run")
        XCTAssertEqual(dryRun.status, 0, dryRun.output)
        XCTAssertTrue(dryRun.stdout.contains("Nothing was written"), dryRun.stdout)
        let remove = try w.rollout("testers", "remove", "qa", "--install-id", "qa-phone-1", "--dry-run")
        XCTAssertEqual(remove.status, 0, remove.output)
        let nosuch = try w.rollout("promote", "tr-TR@18", "--to", "testers:beta")
        XCTAssertEqual(nosuch.status, 66, nosuch.output)
        XCTAssertTrue(nosuch.stderr.contains("no tester group beta (groups: qa)"), nosuch.stderr)
        let scoped = try w.rollout("promote", "tr-TR@18", "--to", "testers:qa", "--region", "TR")
        XCTAssertEqual(scoped.status, 64, scoped.output)
        XCTAssertEqual(try w.stateTip(), tip, "nothing was written")
        XCTAssertEqual(try w.rollout("testers", "list", "qa").stdout, "qa-phone-1\n")
    }
}
