import Foundation
import XCTest

/// rollout metrics ingest and show on real repositories.
final class MetricsIngestTests: XCTestCase {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("examples/metrics").path

    func testIngestIsIdempotentRecordsProvenanceAndNeverCountsTwice() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let file = Self.examples + "/crashes-spike-TR-4.8.csv"
        let first = try w.rollout("metrics", "ingest", "--kind", "crash", file, "--json")
        XCTAssertEqual(first.status, 0, first.output)
        let tip = try w.stateTip()
        let again = try w.rollout("metrics", "ingest", "--kind", "crash", file)
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertTrue(again.stdout.contains("already ingested"), again.stdout)
        XCTAssertEqual(try w.stateTip(), tip, "the same file twice changes nothing")

        let overlap = try w.rollout("metrics", "ingest", "--kind", "crash", Self.examples + "/crashes-healthy.csv")
        XCTAssertEqual(overlap.status, 65, overlap.output)
        XCTAssertTrue(overlap.stderr.contains("overlap data already ingested"), overlap.stderr)
        XCTAssertEqual(try w.stateTip(), tip)

        let digest = try XCTUnwrap((try w.json(first)["files"] as? [[String: Any]])?.first?["digest"] as? String)
        let provenance = try w.git("show", "main:metrics/ingests/\(digest.dropFirst(7)).crash.json").stdout
        XCTAssertTrue(provenance.contains("\"rows\": 32"), provenance)
        XCTAssertTrue(provenance.contains("Test Runner"), provenance)
        XCTAssertEqual(
            try w.git("log", "-1", "--format=%(trailers:key=Rollout-Action,valueonly,separator=)").stdout
                .trimmingCharacters(in: .whitespacesAndNewlines), "metrics-ingest")

        let shown = try w.json(
            try w.rollout("metrics", "show", "tr-TR", "--pack", "tr-TR@18", "--segment", "TR/4.8", "--json"))
        let rows = try XCTUnwrap(shown["rows"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0]["sessions"] as? Int, 36_000)
        XCTAssertEqual(rows[0]["crashes"] as? Int, 214)
    }

    func testBadFilesNameTheLineAndChangeNothing() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let tip = try w.stateTip()
        let header = "date,locale,pack,region,app_version,sessions,crashes\n"
        let good = "2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,100,1\n"
        let cases: [(String, String, Int32, String)] = [
            ("no-header.csv", good, 65, "the header lacks"),
            (
                "columns.csv", header + good + "2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,100\n", 65,
                "columns.csv:3: 6 fields, the header has 7"
            ),
            (
                "quote.csv", header + good + "2026-11-28,tr-TR,\"tr-TR@18,TR,4.8.1,100,1\n", 65,
                "quote.csv:3: a quoted field is never closed"
            ),
            ("nul.csv", header + good + "2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,1\u{0}0,1\n", 65, "nul.csv:3: NUL byte"),
            (
                "negative.csv", header + good + "2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,-5,1\n", 65,
                "negative.csv:3: sessions \"-5\""
            ),
            (
                "more-crashes.csv", header + "2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,10,11\n", 65,
                "more-crashes.csv:2: crashes 11 > sessions 10"
            ),
            ("date.csv", header + "2026-02-30,tr-TR,tr-TR@18,TR,4.8.1,10,1\n", 65, "date.csv:2: date \"2026-02-30\""),
            ("pack.csv", header + "2026-11-28,tr-TR,tr-TR@99,TR,4.8.1,10,1\n", 65, "pack.csv:2: unknown pack tr-TR@99"),
            (
                "version.csv", header + "2026-11-28,tr-TR,tr-TR@18,TR,4.8-beta,10,1\n", 65,
                "version.csv:2: app_version \"4.8-beta\""
            ),
            (
                "region.csv", header + "2026-11-28,tr-TR,tr-TR@18,Turkey,4.8.1,10,1\n", 65,
                "region.csv:2: region \"Turkey\""
            ),
            ("empty.csv", "", 65, "empty file"),
        ]
        for (name, content, status, message) in cases {
            let path = try w.scratch.write(name, content)
            let result = try w.rollout("metrics", "ingest", "--kind", "crash", path)
            XCTAssertEqual(result.status, status, "\(name): \(result.output)")
            XCTAssertTrue(result.stderr.contains(message), "\(name): expected \(message) in \(result.stderr)")
            XCTAssertEqual(try w.stateTip(), tip, "\(name) changed the repository")
        }
        // A 2 GB line is refused at 1 MiB, without reading the rest into memory.
        let long = w.scratch.path("long.csv")
        FileManager.default.createFile(atPath: long, contents: Data(header.utf8))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: long))
        handle.seekToEndOfFile()
        handle.write(Data(repeating: UInt8(ascii: "7"), count: 3 << 20))
        try handle.close()
        let refused = try w.rollout("metrics", "ingest", "--kind", "crash", long)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("long.csv:2: the record starting on this line is longer than 1 MiB"), refused.stderr
        )
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "crashes", long).status, 64)
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "crash", w.scratch.path("missing.csv")).status, 66)
    }

    func testTheSameVersionWrittenTwoWaysIsOneSegmentAndOneFileCanBeBothKinds() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let a = try w.scratch.write(
            "a.csv",
            "date,locale,pack,region,app_version,sessions,crashes,lookups,fallbacks\n2026-11-11,tr-TR,tr-TR@18,TR,4.8,100,1,1000,2\n"
        )
        let b = try w.scratch.write(
            "b.csv", "date,locale,pack,region,app_version,sessions,crashes\n2026-11-11,tr-TR,tr-TR@18,TR,4.8.0,100,1\n")
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "crash", a).status, 0)
        let both = try w.rollout("metrics", "ingest", "--kind", "fallback", a)
        XCTAssertEqual(both.status, 0, both.output)
        XCTAssertTrue(both.stdout.contains("1 rows ingested"), both.stdout)
        let twice = try w.rollout("metrics", "ingest", "--kind", "crash", b)
        XCTAssertEqual(twice.status, 65, "4.8 and 4.8.0 are the same version: \(twice.output)")
        XCTAssertTrue(twice.stderr.contains("overlap"), twice.stderr)
    }

    func testHostileSizesAreRefusedNotCrashedOn() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let header = "date,locale,pack,region,app_version,sessions,crashes\n"
        let commas = try w.scratch.write("commas.csv", header + String(repeating: ",", count: 2 << 20) + "\n")
        let refused = try w.rollout("metrics", "ingest", "--kind", "crash", commas)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("commas.csv:2: the record starting on this line is longer than 1 MiB"),
            refused.stderr)
        let row = "2026-11-12,tr-TR,tr-TR@18,TR,4.8.1,999999999999,0\n"
        let huge = try w.scratch.write("huge.csv", header + String(repeating: row, count: 10_000_000 / 1000))
        let overflow = try w.rollout("metrics", "ingest", "--kind", "crash", huge)
        XCTAssertEqual(overflow.status, 65, "10,000 rows of 10^12 add up past 2^53 - 1: \(overflow.output)")
        XCTAssertTrue(
            overflow.stderr.contains("huge.csv:9009: the sessions of tr-TR@18 would add up past 9007199254740991"),
            overflow.stderr)
        let tooMany = try w.scratch.write("digits.csv", header + "2026-11-13,tr-TR,tr-TR@18,TR,4.8.1,9999999999999,0\n")
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "crash", tooMany).status, 65)
        // A later bad file does not hide that an earlier one landed.
        let good = try w.scratch.write("good.csv", header + "2026-11-14,tr-TR,tr-TR@18,TR,4.8.1,10,0\n")
        let bad = try w.scratch.write("bad.csv", header + "2026-11-15,tr-TR,tr-TR@99,TR,4.8.1,10,0\n")
        let mixed = try w.rollout("metrics", "ingest", "--kind", "crash", good, bad)
        XCTAssertEqual(mixed.status, 65, mixed.output)
        XCTAssertTrue(mixed.stderr.contains("already ingested by this command, and kept: \(good)"), mixed.stderr)
    }

    func testOtherColumnNamesOrderQuotingAndSkippingBadRows() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let path = try w.scratch.write(
            "export.csv",
            """
            \u{FEFF}string_reads,app_version,region,"pack",date,locale,misses,extra\r
            1000,4.8.1,TR,18,2026-11-28,tr-TR,4,x\r
            500,"4.8.2",TR,tr-TR@18,2026-11-28,,2,"a, b"\r
            100,4.8.2,TR,tr-TR@18,2026-11-28,,200,\r

            """)
        let strict = try w.rollout(
            "metrics", "ingest", "--kind", "fallback", "--map", "lookups=string_reads", "--map", "fallbacks=misses",
            path)
        XCTAssertEqual(strict.status, 65, strict.output)
        XCTAssertTrue(strict.stderr.contains("export.csv:4: fallbacks 200 > lookups 100"), strict.stderr)
        let lenient = try w.rollout(
            "metrics", "ingest", "--kind", "fallback", "--map", "lookups=string_reads", "--map", "fallbacks=misses",
            "--skip-invalid", path)
        XCTAssertEqual(lenient.status, 0, lenient.output)
        XCTAssertTrue(lenient.stdout.contains("2 rows ingested"), lenient.stdout)
        XCTAssertTrue(lenient.stdout.contains("skipped"), lenient.stdout)
        let shown = try XCTUnwrap(
            try w.json(try w.rollout("metrics", "show", "tr-TR", "--json"))["rows"] as? [[String: Any]])
        XCTAssertEqual(shown.first?["lookups"] as? Int, 1500)
        XCTAssertEqual(shown.first?["fallbacks"] as? Int, 6)
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "fallback", "--map", "bogus=x", path).status, 64)
    }
}

/// rollout health on the example metrics: the TR/4.8 crash spike is caught, the healthy files pass.
final class HealthCommandTests: XCTestCase {
    private func staged(_ crashes: String) throws -> Workspace {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8").status, 0)
        XCTAssertEqual(
            try w.rollout("metrics", "ingest", "--kind", "crash", MetricsIngestTests.examples + "/" + crashes).status, 0
        )
        XCTAssertEqual(
            try w.rollout(
                "metrics", "ingest", "--kind", "fallback", MetricsIngestTests.examples + "/fallbacks-healthy.csv"
            ).status, 0)
        return w
    }

    func testACrashSpikeConfinedToOneSegmentIsUnhealthyWithItsNumbers() throws {
        let w = try staged("crashes-spike-TR-4.8.csv")
        let result = try w.rollout("health", "tr-TR", "--json")
        XCTAssertEqual(result.status, 1, "unhealthy is a check that said no: \(result.output)")
        let report = try w.json(result)
        XCTAssertEqual(report["verdict"] as? String, "unhealthy")
        let checks = try XCTUnwrap(report["checks"] as? [[String: Any]])
        let bad = checks.filter { $0["verdict"] as? String == "unhealthy" }
        XCTAssertEqual(bad.map { "\($0["segment"]!) \($0["metric"]!)" }, ["TR/4.8 crash"])
        XCTAssertEqual(bad.first?["candidate"] as? [Int], [214, 36_000])
        XCTAssertGreaterThan(bad.first?["lowerBound"] as? Double ?? 0, bad.first?["tolerance"] as? Double ?? 1)
    }

    func testHealthyMetricsAreHealthyAndNothingStagedIsMissing() throws {
        let w = try staged("crashes-healthy.csv")
        let result = try w.rollout("health", "tr-TR")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.hasPrefix("tr-TR@18 against tr-TR@17: healthy"), result.stdout)
        XCTAssertEqual(try w.rollout("health", "vi-VN").status, 66)
    }
}

/// promote widens a staged rollout only when it is healthy.
final class PromoteGateTests: XCTestCase {
    func testWideningNeedsHealthOrARecordedOverride() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8").status, 0,
            "the first stage needs no metrics")
        XCTAssertEqual(
            try w.rollout(
                "metrics", "ingest", "--kind", "crash", MetricsIngestTests.examples + "/crashes-spike-TR-4.8.csv"
            ).status, 0)
        let tip = try w.stateTip()
        let refused = try w.rollout("promote", "tr-TR@18", "--to", "50%")
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("tr-TR@18 is unhealthy (TR/4.8 crash: 214/36000 against 607/324000)"),
            refused.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "50%", "--force").status, 64, "--force needs a reason")
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "5%", "--reason", "smaller").status, 0,
            "lowering is never gated")
        let forced = try w.rollout(
            "promote", "tr-TR@18", "--to", "50%", "--force", "--reason", "crash is in an unrelated SDK")
        XCTAssertEqual(forced.status, 0, forced.output)
        XCTAssertEqual(
            try w.git("log", "-1", "--format=%(trailers:key=Rollout-Forced,valueonly,separator=)").stdout
                .trimmingCharacters(in: .whitespacesAndNewlines),
            "health was unhealthy")
        // Taking TR/4.8 back, then targeting it again, is widening too: gated.
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--segment", "TR/4.8", "--reason", "spike").status, 0)
        XCTAssertEqual(try w.rollout("guard").status, 0, "the withdrawn segment is not judged again")
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "50%", "--region", "TR", "--app-version", ">=4.8").status, 1)
    }

    func testAHealthyRolloutWidensWithoutAnOverride() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8").status, 0)
        XCTAssertEqual(
            try w.rollout("metrics", "ingest", "--kind", "crash", MetricsIngestTests.examples + "/crashes-healthy.csv")
                .status, 0)
        let widened = try w.rollout("promote", "tr-TR@18", "--to", "50%")
        XCTAssertEqual(widened.status, 0, widened.output)
    }
}

/// rollout guard: the control loop reverts what is unhealthy, with the evidence, and holds the rest.
final class GuardTests: XCTestCase {
    /// tr-TR@18 at 10% in TR on >=4.8 with the crash spike ingested (unhealthy), and en-US@2 at 5%
    /// with no metrics (insufficient data).
    static func twoStagedLocales() throws -> Workspace {
        let w = try Workspace()
        try w.initWithExamples()
        for id in ["tr-TR@17", "en-US@1"] { XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0) }
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8").status, 0)
        let en2 = try w.packVariant(of: "en-US@1", version: 2, replacing: [("\"Welcome\"", "\"Welcome back\"")])
        XCTAssertEqual(try w.rollout("pack", "add", en2).status, 0)
        XCTAssertEqual(try w.rollout("promote", "en-US@2", "--to", "5%").status, 0)
        XCTAssertEqual(
            try w.rollout(
                "metrics", "ingest", "--kind", "crash", MetricsIngestTests.examples + "/crashes-spike-TR-4.8.csv"
            ).status, 0)
        return w
    }

    func testGuardRevertsTheUnhealthyWithEvidenceAndHoldsOnInsufficientData() throws {
        let w = try GuardTests.twoStagedLocales()

        let tip = try w.stateTip()
        let report = try w.rollout("guard", "--json")
        XCTAssertEqual(report.status, 1, "unhealthy and left in place: \(report.output)")
        XCTAssertEqual(try w.stateTip(), tip, "without --auto-revert guard changes nothing")

        let acted = try w.json(try w.rollout("guard", "--auto-revert", "--json"))
        let rows = try XCTUnwrap(acted["locales"] as? [[String: Any]])
        XCTAssertEqual(rows.first { $0["locale"] as? String == "tr-TR" }?["rollback"] as? String, "tr-TR/1")
        XCTAssertEqual(rows.first { $0["locale"] as? String == "en-US" }?["verdict"] as? String, "insufficient-data")
        XCTAssertEqual(
            rows.first { $0["locale"] as? String == "en-US" }?["rollback"] is NSNull, true,
            "never acts on insufficient data")

        let manifest = try w.json(try w.rollout("rollbacks", "tr-TR/1", "--json"))
        let evidence = try XCTUnwrap(manifest["evidence"] as? [String: Any])
        XCTAssertEqual(evidence["verdict"] as? String, "unhealthy")
        XCTAssertEqual(
            (evidence["sources"] as? [[String: Any]])?.first?["file"] as? String,
            MetricsIngestTests.examples + "/crashes-spike-TR-4.8.csv")
        XCTAssertTrue((manifest["blocked"] as? [String])?.contains("tr-TR@18") == true)
        XCTAssertEqual(try w.rollout("guard").status, 0, "nothing unhealthy is left")
        XCTAssertTrue(
            try w.rollout("log", "--segment", "TR/4.8", "--limit", "1").stdout.contains(
                "guard: tr-TR@18 unhealthy (TR/4.8 crash)"))
    }
}

/// Scheduled ramps: guard is the control loop, driven here by ROLLOUT_NOW, never by sleeping.
final class RampTests: XCTestCase {
    func testGuardAdvancesAHealthyRampOnScheduleHoldsWhenPausedAndCompletes() throws {
        let w = try Workspace()
        try w.initWithExamples()
        func at(_ time: String, _ arguments: String...) throws -> RunResult {
            try w.rollout(arguments, env: ["ROLLOUT_NOW": time])
        }
        func share() throws -> Int? {
            let plan = try XCTUnwrap(try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any])
            return (plan["rules"] as? [[String: Any]])?.first?["basisPoints"] as? Int
        }
        XCTAssertEqual(try at("2026-11-24T00:00:00Z", "promote", "tr-TR@17", "--to", "100%").status, 0)
        let started = try at("2026-11-25T00:00:00Z", "promote", "tr-TR@18", "--ramp", "1,5,10,100", "--every", "12h")
        XCTAssertEqual(started.status, 0, started.output)
        XCTAssertEqual(try share(), 100)
        // Each day's counts arrive as the day passes, with the share the ramp gave the staged pack.
        try w.ingestCrashDay("2026-11-25", share: 0.01)

        XCTAssertEqual(try at("2026-11-25T06:00:00Z", "guard").status, 0)
        XCTAssertEqual(try share(), 100, "a step lasts its full time")
        let first = try at("2026-11-25T12:00:00Z", "guard")
        XCTAssertTrue(first.stdout.contains("ramp advanced to 5%"), first.output)
        XCTAssertEqual(try share(), 500)

        XCTAssertEqual(try at("2026-11-25T13:00:00Z", "pause", "tr-TR", "--reason", "holiday freeze").status, 0)
        XCTAssertTrue(try at("2026-11-26T12:00:00Z", "guard").stdout.contains("ramp paused"))
        XCTAssertEqual(try share(), 500)
        XCTAssertEqual(try at("2026-11-26T12:00:00Z", "resume", "tr-TR").status, 0)
        try w.ingestCrashDay("2026-11-26", share: 0.05)
        XCTAssertEqual(try at("2026-11-26T18:00:00Z", "guard").status, 0)
        XCTAssertEqual(try share(), 500, "after resume the step lasts its full time again")
        let third = try at("2026-11-27T00:00:00Z", "guard")
        XCTAssertEqual(third.status, 0, third.output)
        XCTAssertEqual(try share(), 1000)
        try w.ingestCrashDay("2026-11-27", share: 0.10)
        XCTAssertEqual(try at("2026-11-27T12:00:00Z", "guard").status, 0)
        let plan = try XCTUnwrap(try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any])
        XCTAssertEqual(
            (plan["baseline"] as? [String: Any])?["contentVersion"] as? Int, 18, "the last step completes the rollout")
        let steps = try XCTUnwrap(
            try w.json(try w.rollout("log", "--locale", "tr-TR", "--json"))["changes"] as? [[String: Any]]
        )
        .filter { $0["action"] as? String == "ramp" }
        XCTAssertEqual(steps.count, 3, "every advance is an ordinary recorded change")
    }

    func testARampWithoutDataHoldsAndBadRampsAreUsageErrors() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(
            try w.rollout(["promote", "tr-TR@18", "--ramp", "7day"], env: ["ROLLOUT_NOW": "2026-11-01T00:00:00Z"])
                .status, 0)
        let held = try w.rollout(["guard"], env: ["ROLLOUT_NOW": "2026-11-10T00:00:00Z"])
        XCTAssertTrue(held.stdout.contains("ramp held: not enough data yet"), held.stdout)
        // The staged pack measured in TR only: the ramp gives it in every region, and waits for each.
        // (DE and CY have too few sessions for the ratio to be judged: 1% of them is under 5,000.)
        try w.ingestCrashDay("2026-11-09", share: 0.01, segments: [("TR", "4.8.1")], sessions: 1_000_000)
        try w.ingestCrashDay(
            "2026-11-09", share: 0.01, segments: [], baselineOnly: [("DE", "4.8.1"), ("CY", "4.9.0")],
            sessions: 200_000)
        let waiting = try w.rollout(["guard"], env: ["ROLLOUT_NOW": "2026-11-10T00:00:00Z"])
        XCTAssertTrue(waiting.stdout.contains("ramp held: not enough data yet in CY/4.9, DE/4.8"), waiting.stdout)
        for (ramp, message) in [
            ("5,1", "increasing"), ("10", "at least two"), ("weekly", "preset"), ("1,150", "\"150\""),
        ] {
            let result = try w.rollout("promote", "tr-TR@18", "--ramp", ramp)
            XCTAssertEqual(result.status, 64, "\(ramp): \(result.output)")
            XCTAssertTrue(result.stderr.contains(message), "\(ramp): \(result.stderr)")
        }
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--ramp", "1,5", "--every", "soon").status, 64)
        XCTAssertEqual(try w.rollout("pause", "vi-VN").status, 1, "no ramp there")
        // Metrics from before a step began do not move it on.
        for day in ["2026-11-25", "2026-11-26"] { try w.ingestCrashDay(day, share: 0.01) }
        XCTAssertEqual(
            try w.rollout(
                ["promote", "tr-TR@18", "--ramp", "1,5", "--every", "1d"], env: ["ROLLOUT_NOW": "2026-12-01T00:00:00Z"]
            ).status, 0)
        let stale = try w.rollout(["guard"], env: ["ROLLOUT_NOW": "2026-12-03T00:00:00Z"])
        XCTAssertTrue(stale.stdout.contains("ramp held: no metrics since this step began"), stale.stdout)
    }
}
