import Foundation
import XCTest

/// promote, status, resolve, simulate and log on real repositories.
final class TargetingTests: XCTestCase {
    let device = ["--locale", "tr-TR", "--region", "TR", "--app-version", "4.8.1"]

    private func packOf(_ w: Workspace, id: String, region: String = "TR", version: String = "4.8.1", installID: String)
        throws -> String
    {
        let result = try w.json(
            try w.rollout(
                "resolve", "--locale", "tr-TR", "--region", region, "--app-version", version, "--install-id", installID,
                "--json"))
        let chain = try XCTUnwrap(result["chain"] as? [[String: Any]])
        return try XCTUnwrap(chain.first?["result"] as? String)
    }

    func testAStagedRolloutGrowsKeepingItsDevicesAndCompletes() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let staged = try w.rollout(
            "promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8", "--reason", "typo fix")
        XCTAssertEqual(staged.status, 0, staged.output)
        XCTAssertTrue(staged.stdout.contains("tr-TR@17 90%, tr-TR@18 10%"), staged.stdout)

        var ids = (0..<150).map { "device-\($0)" }
        var inAtTen: Set<String> = []
        for id in ids where try packOf(w, id: "tr-TR", installID: id) == "tr-TR@18" { inAtTen.insert(id) }
        XCTAssertGreaterThan(inAtTen.count, 4)
        XCTAssertLessThan(inAtTen.count, 35)

        // No metrics yet, so health is insufficient-data: widening needs an explicit, recorded override.
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "50%").status, 1)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "50%", "--force", "--reason", "no metrics pipeline yet")
                .status, 0)
        ids.shuffle()
        var inAtFifty: Set<String> = []
        for id in ids where try packOf(w, id: "tr-TR", installID: id) == "tr-TR@18" { inAtFifty.insert(id) }
        XCTAssertTrue(inAtTen.isSubset(of: inAtFifty), "devices already in stay in")
        XCTAssertGreaterThan(inAtFifty.count, inAtTen.count)
        // Other regions and older apps are untouched by a TR >=4.8 rule.
        XCTAssertEqual(try packOf(w, id: "tr-TR", region: "DE", installID: ids[0]), "tr-TR@17")

        let status = try w.json(try w.rollout("status", "tr-TR", "--json"))
        let plan = try XCTUnwrap(status["plan"] as? [String: Any])
        let rules = try XCTUnwrap(plan["rules"] as? [[String: Any]])
        XCTAssertEqual(rules.count, 1)
        XCTAssertEqual(rules[0]["basisPoints"] as? Int, 5000)
        XCTAssertEqual(rules[0]["regions"] as? [String], ["TR"])
        XCTAssertEqual(rules[0]["appVersions"] as? String, ">=4.8")

        let done = try w.rollout(
            "promote", "tr-TR@18", "--to", "100%", "--force", "--reason", "no metrics pipeline yet")
        XCTAssertEqual(done.status, 0, done.output)
        XCTAssertTrue(done.stdout.contains("now the baseline"), done.stdout)
        let after = try XCTUnwrap(try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any])
        XCTAssertEqual((after["baseline"] as? [String: Any])?["contentVersion"] as? Int, 18)
        XCTAssertEqual(
            (after["previousBaselines"] as? [[String: Any]])?.compactMap { $0["contentVersion"] as? Int }, [17])
        XCTAssertEqual((after["rules"] as? [Any])?.count, 0)
        XCTAssertEqual(try packOf(w, id: "tr-TR", region: "DE", installID: "anyone"), "tr-TR@18")

        let trailers = try w.git(
            "log", "-1", "--skip=1",
            "--format=%(trailers:key=Rollout-Action,key=Rollout-Percent,key=Rollout-Pack,key=Rollout-Regions,valueonly,separator=|)"
        ).stdout
        XCTAssertEqual(
            trailers.trimmingCharacters(in: .whitespacesAndNewlines), "promote|tr-TR@18|50%|all staged rules")
        XCTAssertEqual(
            try w.git("log", "-1", "--skip=1", "--format=%(trailers:key=Rollout-Forced,valueonly,separator=)").stdout
                .trimmingCharacters(in: .whitespacesAndNewlines),
            "health was insufficient-data in TR/*", "no metrics name TR: the segment widened into is TR/*")
        try w.assertFsckClean()
    }

    func testDryRunPrintsPerSegmentChangesAndWritesNothing() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let tip = try w.stateTip()
        let dry = try w.rollout("promote", "tr-TR@18", "--to", "5%", "--region", "TR", "--dry-run")
        XCTAssertEqual(dry.status, 0, dry.output)
        XCTAssertTrue(dry.stdout.contains("Dry run"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("tr-TR@17 100%"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("tr-TR@17 95%, tr-TR@18 5%"), dry.stdout)
        XCTAssertEqual(try w.stateTip(), tip)
        let json = try w.json(try w.rollout("promote", "tr-TR@18", "--to", "5%", "--dry-run", "--json"))
        XCTAssertEqual(json["dryRun"] as? Bool, true)
        XCTAssertTrue(json["commit"] is NSNull)
        XCTAssertEqual(try w.stateTip(), tip)
    }

    func testEveryRefusalLeavesTheStateRefUnchanged() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%").status, 0)
        let tip = try w.stateTip()
        let cases: [([String], Int32, String)] = [
            (["promote", "tr-TR@99", "--to", "5%"], 66, "no pack tr-TR@99"),
            (["promote", "de-DE@1", "--to", "5%"], 66, "no pack de-DE@1"),
            (["promote", "tr-TR@18", "--to", "150%"], 64, "\"150%\""),
            (["promote", "tr-TR@18", "--to", "-1%"], 64, "\"-1%\""),
            (["promote", "tr-TR@18", "--to", "1e2%"], 64, "\"1e2%\""),
            (["promote", "tr-TR@18", "--to", "abc"], 64, "\"abc\""),
            (["promote", "tr-TR@18", "--to", "0.001%"], 64, "finer than 0.01%"),
            (["promote", "tr-TR@18"], 64, "needs --to"),
            (["promote", "tr-TR@18", "--to", "20%", "--app-version", "4.8-beta"], 64, "\"4.8-beta\""),
            (["promote", "tr-TR@18", "--to", "20%", "--app-version", "4.8"], 64, "4.8.x for every 4.8 release"),
            (["promote", "tr-TR@18", "--to", "20%", "--region", "Turkey"], 64, "\"Turkey\" is not an ISO 3166-1"),
            (["promote", "tr-TR@18", "--to", "5%"], 64, "--reason"),
            (["promote", "tr-TR@17", "--to", "5%"], 1, "already the baseline"),
            (["promote", "tr@1", "--to", "5%"], 0, ""),
        ]
        for (arguments, status, message) in cases where status != 0 {
            let result = try w.rollout(arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): expected \(message) in \(result.stderr)")
            XCTAssertEqual(try w.stateTip(), tip, "\(arguments) changed the state")
        }
        // A second candidate while one is staged: refused with the ways out.
        let extra = try w.scratch.write(
            "tr-TR@19.json",
            try String(contentsOfFile: Fixtures.examplePack("tr-TR@18"), encoding: .utf8)
                .replacingOccurrences(of: "\"contentVersion\": 18", with: "\"contentVersion\": 19")
                .replacingOccurrences(of: "Daha sonra", with: "Sonra")
                .split(separator: "\n").filter { !$0.contains("\"checksum\"") }.joined(separator: "\n"))
        XCTAssertEqual(try w.rollout("pack", "add", extra).status, 0)
        let tip2 = try w.stateTip()
        let second = try w.rollout("promote", "tr-TR@19", "--to", "5%")
        XCTAssertEqual(second.status, 1, second.output)
        XCTAssertTrue(
            second.stderr.contains("tr-TR@18 is still staged (10% in every region on every app version)"), second.stderr
        )
        XCTAssertTrue(second.stderr.contains("rollout promote tr-TR@18 --to 100%"), second.stderr)
        XCTAssertEqual(try w.stateTip(), tip2)
        let older = try w.rollout("promote", "tr-TR@17", "--to", "100%")
        XCTAssertEqual(older.status, 1, older.output)
    }

    func testARuleNeverReachesDevicesBelowThePacksMinAppVersion() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let needs49 = try w.scratch.write(
            "tr-TR@19.json",
            try String(contentsOfFile: Fixtures.examplePack("tr-TR@18"), encoding: .utf8)
                .replacingOccurrences(of: "\"contentVersion\": 18", with: "\"contentVersion\": 19")
                .replacingOccurrences(of: "\"minAppVersion\": \"4.8.0\"", with: "\"minAppVersion\": \"4.9\"")
                .split(separator: "\n").filter { !$0.contains("\"checksum\"") }.joined(separator: "\n"))
        XCTAssertEqual(try w.rollout("pack", "add", needs49).status, 0)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@19", "--to", "100%", "--region", "TR").status, 0)
        XCTAssertEqual(try packOf(w, id: "tr-TR", version: "4.9.0", installID: "a"), "tr-TR@19")
        XCTAssertEqual(try packOf(w, id: "tr-TR", version: "4.8.5", installID: "a"), "tr-TR@17")
        let trace = try w.rollout(["resolve"] + device + ["--install-id", "a"])
        XCTAssertTrue(trace.stdout.contains("below its minAppVersion 4.9"), trace.stdout)
        // Completing it keeps devices on 4.8 on the last baseline they can run.
        XCTAssertEqual(try w.rollout("promote", "tr-TR@19", "--to", "100%", "--force", "--reason", "test").status, 0)
        XCTAssertEqual(try packOf(w, id: "tr-TR", version: "4.8.5", installID: "a"), "tr-TR@17")
        XCTAssertEqual(try packOf(w, id: "tr-TR", version: "4.7", installID: "a"), "bundled")
    }

    func testResolveWalksTheFallbackChain() throws {
        let w = try Workspace()
        try w.initWithExamples()
        for id in ["en-US@1", "tr@1", "tr-TR@17"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
        let result = try w.rollout(["resolve"] + device + ["--install-id", "5F0C2A7E-1111-2222-3333-444455556666"])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.contains("tr-TR: tr-TR@17"), result.stdout)
        XCTAssertTrue(result.stdout.contains("tr: tr@1"), result.stdout)
        XCTAssertTrue(result.stdout.contains("en-US: en-US@1"), result.stdout)
        XCTAssertTrue(
            result.stdout.contains(
                "tr-TR, then tr, then en-US (in each, the pack, then the app's bundled strings of that locale)"),
            result.stdout)
        for (flag, bad) in [("--app-version", "4.8-beta"), ("--region", "XX"), ("--locale", "tr_TR")] {
            var arguments = ["resolve"] + device + ["--install-id", "x"]
            arguments[arguments.firstIndex(of: flag)! + 1] = bad
            let refused = try w.rollout(arguments)
            XCTAssertEqual(refused.status, 64, "\(flag) \(bad): \(refused.output)")
            XCTAssertTrue(refused.stderr.contains(bad), refused.stderr)
        }
        XCTAssertEqual(try w.rollout("resolve", "--locale", "tr-TR", "--region", "TR").status, 64)
    }

    func testSimulateMatchesThePlanAndReadsAMix() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "25%", "--region", "TR", "--app-version", ">=4.8").status, 0)
        let simulated = try w.json(try w.rollout("simulate", "tr-TR", "--devices", "40000", "--json"))
        let segments = try XCTUnwrap(simulated["segments"] as? [[String: Any]])
        XCTAssertTrue(segments.contains { ($0["region"] as? String) == "TR" })
        for segment in segments {
            let devices = try XCTUnwrap(segment["devices"] as? Int)
            for pack in try XCTUnwrap(segment["packs"] as? [[String: Any]]) {
                let expected = Double(try XCTUnwrap(pack["expectedBasisPoints"] as? Int)) / 10_000
                let got = Double(try XCTUnwrap(pack["devices"] as? Int)) / Double(devices)
                XCTAssertEqual(got, expected, accuracy: 0.03, "\(segment)")
            }
        }
        let mix = try w.scratch.write("mix.csv", "weight,region,app_version\r\n70,TR,4.8.1\r\n30,DE,4.9\r\n")
        let withMix = try w.rollout("simulate", "tr-TR", "--devices", "10000", "--mix", mix)
        XCTAssertEqual(withMix.status, 0, withMix.output)
        XCTAssertTrue(withMix.stdout.contains("TR/4.8.1  7000"), withMix.stdout)
        XCTAssertTrue(withMix.stdout.contains("DE/4.9    3000"), withMix.stdout)

        let broken = try w.scratch.write("broken.csv", "region,app_version,weight\nTR,4.8.1,1\nTR,four,1\n")
        let refused = try w.rollout("simulate", "tr-TR", "--mix", broken)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("broken.csv:3: app_version \"four\""), refused.stderr)
        XCTAssertEqual(try w.rollout("simulate", "vi-VN").status, 66, "nothing promoted for vi-VN")
    }

    func testLogBySegmentListsOnlyTheChangesThatAlteredIt() throws {
        let w = try Workspace()
        try w.initWithExamples()
        w.environment["ROLLOUT_NOW"] = "2026-11-01T10:00:00Z"
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        w.environment["ROLLOUT_NOW"] = "2026-11-10T10:00:00Z"
        XCTAssertEqual(
            try w.rollout(
                "promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8", "--reason", "typo fix"
            ).status, 0)
        w.environment["ROLLOUT_NOW"] = "2026-11-11T10:00:00Z"
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "30%", "--region", "DE", "--force", "--reason", "test").status,
            0)
        XCTAssertEqual(try w.rollout("promote", "vi-VN@3", "--to", "50%", "--region", "VN").status, 0)
        w.environment["ROLLOUT_NOW"] = "2026-11-12T10:00:00Z"
        XCTAssertEqual(
            try w.rollout(
                "promote", "tr-TR@18", "--to", "50%", "--region", "TR", "--app-version", ">=4.8", "--force", "--reason",
                "test"
            ).status, 0)

        let log = try w.json(try w.rollout("log", "--segment", "TR/4.8", "--json"))
        let changes = try XCTUnwrap(log["changes"] as? [[String: Any]])
        XCTAssertEqual(
            changes.map { $0["summary"] as? String },
            [
                "promote tr-TR@18 to 50% in TR on >=4.8", "promote tr-TR@18 to 10% in TR on >=4.8",
                "complete tr-TR@17: the baseline of tr-TR",
            ], "the DE and VN changes did not alter TR/4.8")
        XCTAssertEqual(changes[1]["reason"] as? String, "typo fix")
        XCTAssertEqual(changes[1]["actor"] as? String, "Test Runner <test@example.com>")
        let shares = try XCTUnwrap((changes[1]["shares"] as? [[String: Any]])?.first?["packs"] as? [[String: Any]])
        XCTAssertEqual(shares.map { "\($0["pack"]!) \($0["basisPoints"]!)" }, ["tr-TR@17 9000", "tr-TR@18 1000"])

        let text = try w.rollout("log", "--segment", "TR/4.8")
        XCTAssertTrue(text.stdout.contains("TR 4.8.x: tr-TR@17 90%, tr-TR@18 10%"), text.stdout)
        // TR on 4.7: tr-TR packs need 4.8, so nothing ever changed there for tr-TR.
        XCTAssertTrue(
            try w.rollout("log", "--segment", "TR/4.7", "--locale", "tr-TR").stdout.contains("No changes match"))
        XCTAssertEqual(
            try w.json(try w.rollout("log", "--segment", "DE/4.8", "--json"))["changes"].map { ($0 as! [Any]).count }, 2
        )

        let since = try XCTUnwrap(
            try w.json(
                try w.rollout("log", "--locale", "tr-TR", "--since", "2026-11-10", "--until", "2026-11-11", "--json"))[
                    "changes"] as? [[String: Any]])
        XCTAssertEqual(since.count, 2)
        XCTAssertEqual(
            try XCTUnwrap(try w.json(try w.rollout("log", "--pack", "vi-VN@3", "--json"))["changes"] as? [Any]).count,
            2, "the pack add and the promote")
        let limited = try w.json(try w.rollout("log", "--limit", "2", "--json"))
        XCTAssertEqual((limited["changes"] as? [Any])?.count, 2)
        XCTAssertEqual(limited["truncated"] as? Bool, true)
        XCTAssertEqual(try w.rollout("log", "--segment", "TR-4.8").status, 64)
        XCTAssertEqual(try w.rollout("log", "--since", "last week").status, 64)
    }

    func testAPlanChangedBehindRolloutsBackStillShowsInTheLog() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR").status, 0)
        XCTAssertEqual(try w.rollout("log", "--segment", "TR/4.8").status, 0, "index built before the rogue commit")
        // Someone edits plans/tr-TR.json with plain git: 10% becomes 90%, with no trailers at all.
        let plan = try w.git("show", "main:plans/tr-TR.json").stdout.replacingOccurrences(
            of: "\"basisPoints\": 1000", with: "\"basisPoints\": 9000")
        try w.scratch.write("plan.json", plan)
        let blob = try w.git("hash-object", "-w", w.scratch.path("plan.json")).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        var env = w.environment
        env["GIT_INDEX_FILE"] = w.scratch.path("index")
        env["GIT_DIR"] = w.repository
        func git(_ arguments: String...) throws -> String {
            let result = try Processes.run("/usr/bin/env", ["git"] + arguments, in: w.root, environment: env)
            XCTAssertEqual(result.status, 0, result.output)
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        _ = try git("read-tree", "main")
        _ = try git("update-index", "--cacheinfo", "100644,\(blob),plans/tr-TR.json")
        let tree = try git("write-tree")
        let commit = try git(
            "-c", "user.name=Rogue", "-c", "user.email=rogue@example.com", "commit-tree", tree, "-p", "main", "-m",
            "quick fix")
        _ = try git("update-ref", "refs/heads/main", commit)

        let log = try w.json(try w.rollout("log", "--segment", "TR/4.8", "--json"))
        let newest = try XCTUnwrap((log["changes"] as? [[String: Any]])?.first)
        XCTAssertEqual(newest["commit"] as? String, commit)
        XCTAssertEqual(newest["action"] as? String, "unknown")
        XCTAssertEqual(newest["actor"] as? String, "Rogue <rogue@example.com>")
        XCTAssertEqual(newest["locales"] as? [String], ["tr-TR"])
    }

    func testTheLogIndexIsACacheRebuiltFromHistory() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let beforeStage = try w.stateTip()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR").status, 0)
        let first = try w.rollout("log", "--segment", "TR/4.8", "--json").stdout
        XCTAssertTrue(first.contains("promote tr-TR@18"))

        // Deleted, in whole or in part: rebuilt, same answer.
        try FileManager.default.removeItem(atPath: w.repository + "/rollout/log-index")
        XCTAssertEqual(try w.rollout("log", "--segment", "TR/4.8", "--json").stdout, first)
        try FileManager.default.removeItem(atPath: w.repository + "/rollout/log-index/changes.jsonl")
        XCTAssertEqual(try w.rollout("log", "--segment", "TR/4.8", "--json").stdout, first)
        // Damaged: a garbage line is skipped.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: w.repository + "/rollout/log-index/region-TR.idx"))
        handle.seekToEndOfFile()
        handle.write(Data("12 not-a-pointer\n99999 123456789\n".utf8))
        try handle.close()
        XCTAssertEqual(try w.rollout("log", "--segment", "TR/4.8", "--json").stdout, first)
        // History rewritten behind the tool's back: the index follows the state ref, not its own memory.
        XCTAssertEqual(try w.git("update-ref", "refs/heads/main", beforeStage).status, 0)
        let rewritten = try w.rollout("log", "--segment", "TR/4.8", "--json").stdout
        XCTAssertFalse(rewritten.contains("promote tr-TR@18"), rewritten)
        XCTAssertTrue(rewritten.contains("complete tr-TR@17"), rewritten)
    }
}
