import Foundation
import XCTest

/// One metrics file must never switch the safety net off (issue 12, item 2): what ingest accepts,
/// every reader reads; guard judges each locale on its own.
final class MetricsRangeTests: XCTestCase {
    static let header = "date,locale,pack,region,app_version,sessions,crashes\n"

    func testAFileWhoseSumsForOneKeyPass2To53IsRefusedNamingTheLine() throws {
        let w = try Workspace()
        try w.initWithExamples()
        // 9,008 rows of 10^12 - 1 for one key: each row is valid, the sum is not exact as a JSON number.
        let row = "2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,999999999999,1\n"
        let file = try w.scratch.write("issue.csv", Self.header + String(repeating: row, count: 9_008))
        let tip = try w.stateTip()
        let refused = try w.rollout("metrics", "ingest", "--kind", "crash", file)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("issue.csv:9009: the sessions of tr-TR@18 would add up past 9007199254740991"),
            refused.stderr)
        XCTAssertEqual(try w.stateTip(), tip, "a refused file writes nothing")

        // Sums across files and dates count too: what is stored leaves room only for so much more.
        let fits = try w.scratch.write("fits.csv", Self.header + String(repeating: row, count: 9_007))
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "crash", fits).status, 0)
        let more = try w.scratch.write("more.csv", Self.header + "2026-11-27,tr-TR,tr-TR@18,DE,4.9.0,999999999999,0\n")
        let second = try w.rollout("metrics", "ingest", "--kind", "crash", more)
        XCTAssertEqual(second.status, 65, second.output)
        XCTAssertTrue(
            second.stderr.contains(
                "more.csv:2: the sessions of tr-TR@18 would add up past 9007199254740991, the most rollout counts exactly (9006999999990993 already stored)"
            ), second.stderr)
        // The stored sums are remembered per rollup (MetricsLayout.totals): remembered, they refuse alike.
        XCTAssertTrue(FileManager.default.fileExists(atPath: w.repository + "/rollout/rollup-totals"))
        let again = try w.rollout("metrics", "ingest", "--kind", "crash", more)
        XCTAssertEqual(again.status, 65, again.output)
        XCTAssertEqual(again.stderr, second.stderr)

        // Everything accepted reads back exactly.
        let shown = try w.rollout("metrics", "show", "tr-TR", "--json")
        XCTAssertEqual(shown.status, 0, shown.output)
        XCTAssertTrue(shown.stdout.contains("\"sessions\": 9006999999990993"), shown.stdout)
    }

    func testRollupsAnOlderVersionStoredOutOfRangeGiveAClearMessageNotABug() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR").status, 0)
        try OldVersion.ingest(w, locale: "tr-TR", counts: ["18|TR|4.8.1": "18014398509481984", "17|TR|4.8.1": "100"])

        for command in [
            ["metrics", "show", "tr-TR"], ["health", "tr-TR"], ["report", "tr-TR", "--out", w.scratch.path("r.html")],
            ["promote", "tr-TR@18", "--to", "50%"],
        ] {
            let result = try w.rollout(command)
            XCTAssertEqual(result.status, 65, "\(command): \(result.output)")
            XCTAssertTrue(
                result.stderr.contains(
                    "metrics/crash/tr-TR/2026-11-20.json: 18|TR|4.8.1 holds 18014398509481984 sessions"),
                "\(command): \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains("rollout metrics retract sha256:\(OldVersion.hex.prefix(12))"),
                "\(command): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("bug"), result.stderr)
        }
        for command in [
            ["status"], ["pack", "list"], ["metrics", "show", "vi-VN"], ["log", "--limit", "1"],
            ["promote", "vi-VN@3", "--to", "100%"],
        ] {
            let result = try w.rollout(command)
            XCTAssertEqual(result.status, 0, "\(command) does not read tr-TR's metrics: \(result.output)")
        }
        let ingest = try w.rollout(
            "metrics", "ingest", "--kind", "crash", MetricsIngestTests.examples + "/crashes-healthy.csv")
        XCTAssertEqual(ingest.status, 65, "adding to an out-of-range locale is refused clearly: \(ingest.output)")
        XCTAssertTrue(ingest.stderr.contains("rollout metrics retract"), ingest.stderr)
    }
}

final class GuardPerLocaleTests: XCTestCase {
    func testALocaleGuardCannotEvaluateIsReportedAndTheOthersAreStillReverted() throws {
        let w = try GuardTests.twoStagedLocales()
        // en-US sorts first: its metrics, out of range, must not stop guard before tr-TR.
        try OldVersion.ingest(w, locale: "en-US", counts: ["2|US|4.8.1": "18014398509481984", "1|US|4.8.1": "100"])

        let result = try w.rollout("guard", "--auto-revert", "--json")
        XCTAssertEqual(result.status, 1, "a locale guard could not evaluate fails the run: \(result.output)")
        let report = try w.json(result)
        XCTAssertEqual(report["failed"] as? [String], ["en-US"])
        let rows = try XCTUnwrap(report["locales"] as? [[String: Any]])
        let en = try XCTUnwrap(rows.first { $0["locale"] as? String == "en-US" })
        XCTAssertEqual(en["verdict"] as? String, "error")
        XCTAssertTrue((en["error"] as? String ?? "").contains("metrics/crash/en-US/2026-11-20.json"), "\(en)")
        let tr = try XCTUnwrap(rows.first { $0["locale"] as? String == "tr-TR" })
        XCTAssertEqual(tr["verdict"] as? String, "unhealthy")
        XCTAssertEqual(tr["rollback"] as? String, "tr-TR/1", "the unhealthy locale is still reverted")
        XCTAssertTrue(try w.rollout("status", "tr-TR", "--json").stdout.contains("\"blocked\""))

        let text = try w.rollout("guard")
        XCTAssertEqual(text.status, 1, text.output)
        XCTAssertTrue(text.stdout.contains("en-US was not guarded: metrics/crash/en-US/2026-11-20.json"), text.stdout)
    }
}

final class MetricsRetractTests: XCTestCase {
    static let spike = MetricsIngestTests.examples + "/crashes-spike-TR-4.8.csv"

    private func trailers(_ w: Workspace, _ name: String) throws -> [String] {
        try w.git("log", "-1", "--format=%(trailers:key=Rollout-\(name),valueonly,separator=|)").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
    }

    func testRetractTakesOneFilesCountsOutInOneRecordedCommitAndTheFileMayComeBack() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8").status, 0)
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "crash", Self.spike).status, 0)
        XCTAssertEqual(
            try w.rollout(
                "metrics", "ingest", "--kind", "fallback", MetricsIngestTests.examples + "/fallbacks-healthy.csv"
            ).status, 0)
        XCTAssertEqual(try w.rollout("health", "tr-TR").status, 1, "the spike makes it unhealthy")
        let tip = try w.stateTip()

        let noReason = try w.rollout("metrics", "retract", Self.spike)
        XCTAssertEqual(noReason.status, 64, noReason.output)
        XCTAssertTrue(noReason.stderr.contains("--reason"), noReason.stderr)
        XCTAssertEqual(try w.stateTip(), tip)

        let retracted = try w.rollout(
            "metrics", "retract", Self.spike, "--reason", "exported twice by mistake", "--json")
        XCTAssertEqual(retracted.status, 0, retracted.output)
        XCTAssertEqual(try w.json(retracted)["entries"] as? Int, 32)
        XCTAssertEqual(
            try w.git("rev-parse", "main~1").stdout.trimmingCharacters(in: .whitespacesAndNewlines), tip, "one commit")
        XCTAssertEqual(try trailers(w, "Action"), ["metrics-retract"])
        XCTAssertEqual(try trailers(w, "Locale"), ["tr-TR"])
        XCTAssertEqual(try trailers(w, "Metrics-Kind"), ["crash"])
        XCTAssertEqual(try trailers(w, "Reason"), ["exported twice by mistake"])
        let digest = try trailers(w, "Metrics-Digest").first ?? ""
        XCTAssertTrue(digest.hasPrefix("sha256:759c754d8def"), digest)
        XCTAssertTrue(try w.rollout("log", "--limit", "1").stdout.contains("metrics-retract"))
        XCTAssertTrue(
            try w.git("cat-file", "-e", "main:metrics/retractions/\(digest.dropFirst(7)).crash.json").status == 0,
            "its own record")
        XCTAssertTrue(
            try w.git("cat-file", "-e", "main:metrics/ingests/\(digest.dropFirst(7)).crash.json").status == 0,
            "the ingest record stays")

        let shown = try w.json(try w.rollout("metrics", "show", "tr-TR", "--pack", "tr-TR@18", "--json"))
        XCTAssertEqual(
            (shown["rows"] as? [[String: Any]])?.map { $0["sessions"] as? Int }, [0, 0], "no crash data is left")
        XCTAssertNotEqual(try w.rollout("health", "tr-TR").status, 1, "the spike is gone")
        let verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output)

        let twice = try w.rollout("metrics", "retract", Self.spike, "--reason", "again")
        XCTAssertEqual(twice.status, 1, twice.output)
        XCTAssertTrue(twice.stderr.contains("already retracted"), twice.stderr)
        let unknown = try w.rollout("metrics", "retract", "sha256:000000000000", "--reason", "x")
        XCTAssertEqual(unknown.status, 66, unknown.output)
        XCTAssertEqual(
            try w.rollout("metrics", "retract", "sha256:759c75", "--reason", "x").status, 64,
            "a prefix needs 12 hex digits")

        // The same file may come back: counted again, under a second ingest record.
        let again = try w.rollout("metrics", "ingest", "--kind", "crash", Self.spike)
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertTrue(again.stdout.contains("32 rows ingested"), again.stdout)
        XCTAssertTrue(
            try w.git("cat-file", "-e", "main:metrics/ingests/\(digest.dropFirst(7)).crash.2.json").status == 0)
        XCTAssertEqual(try w.rollout("health", "tr-TR").status, 1)
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    func testAFileThatIsGoneIsRetractedByItsDigest() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let copy = try w.scratch.write("export.csv", try String(contentsOfFile: Self.spike, encoding: .utf8))
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "crash", copy).status, 0)
        try FileManager.default.removeItem(atPath: copy)
        let gone = try w.rollout("metrics", "retract", copy, "--reason", "x")
        XCTAssertEqual(gone.status, 66, gone.output)
        XCTAssertTrue(gone.stderr.contains("give its digest as sha256:HEX"), gone.stderr)
        let byDigest = try w.rollout("metrics", "retract", "sha256:759c754d8def", "--reason", "wrong export")
        XCTAssertEqual(byDigest.status, 0, byDigest.output)
        XCTAssertEqual(
            try w.git("ls-tree", "-r", "--name-only", "main", "metrics/crash").stdout, "",
            "rollups left empty are removed")
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    func testOutOfRangeDataAnOlderVersionStoredIsFoundByVerifyAndRetracted() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "crash", Self.spike).status, 0)
        try OldVersion.ingest(w, locale: "tr-TR", counts: ["18|TR|4.8.1": "18014398509481984"])
        let damaged = try w.rollout("verify")
        XCTAssertEqual(damaged.status, 1, damaged.output)
        XCTAssertTrue(damaged.output.contains("metrics/crash/tr-TR/2026-11-20.json"), damaged.output)
        XCTAssertTrue(damaged.output.contains("18014398509481984"), damaged.output)

        let retracted = try w.rollout(
            "metrics", "retract", "sha256:\(OldVersion.hex.prefix(12))", "--reason", "counts beyond 2^53")
        XCTAssertEqual(retracted.status, 0, retracted.output)
        XCTAssertEqual(try w.rollout("metrics", "show", "tr-TR").status, 0)
        let verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output)
    }
}

final class MetricsProvenanceVerifyTests: XCTestCase {
    func testRollupsChangedOutsideIngestAndRecordsThatDisagreeWithTheirCommitAreReported() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "crash", MetricsRetractTests.spike).status, 0)
        let rollup = try w.git("show", "main:metrics/crash/tr-TR/2026-11-28.json").stdout.replacingOccurrences(
            of: "54000", with: "5400")
        try PlainGit.commit(
            w, files: ["metrics/crash/tr-TR/2026-11-28.json": rollup],
            message: "policy tweak\n\nRollout-Action: policy-set\nRollout-Actor: Someone <s@example.com>\n")
        let edited = try w.rollout("verify")
        XCTAssertEqual(edited.status, 1, edited.output)
        XCTAssertTrue(
            edited.output.contains("metrics/crash/tr-TR/2026-11-28.json")
                && edited.output.contains("a policy-set commit may not touch this file"), edited.output)

        let w2 = try Workspace()
        try w2.initWithExamples()
        try OldVersion.ingest(
            w2, locale: "tr-TR", counts: ["18|TR|4.8.1": "10"],
            trailerDigest: "sha256:" + String(repeating: "cd", count: 32))
        let mismatched = try w2.rollout("verify")
        XCTAssertEqual(mismatched.status, 1, mismatched.output)
        XCTAssertTrue(mismatched.output.contains("must add exactly its record"), mismatched.output)
        XCTAssertTrue(
            mismatched.output.contains("was not written by a metrics commit of this history"), mismatched.output)
    }
}

/// Commits with plain git, as someone working behind rollout's back (or an older version) would.
enum PlainGit {
    static func commit(_ w: Workspace, files: [String: String], message: String) throws {
        func git(_ arguments: [String], env: [String: String] = [:]) throws -> String {
            let result = try Processes.run(
                "/usr/bin/env", ["git", "--git-dir", w.repository] + arguments, in: w.root,
                environment: w.environment.merging(env) { $1 })
            XCTAssertEqual(result.status, 0, result.output)
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let index = w.scratch.path("plain-index-\(UUID().uuidString)")
        _ = try git(["read-tree", "main"], env: ["GIT_INDEX_FILE": index])
        for (path, text) in files.sorted(by: { $0.key < $1.key }) {
            let blob = try git(["hash-object", "-w", try w.scratch.write("plain-\(UUID().uuidString).json", text)])
            _ = try git(
                ["update-index", "--add", "--cacheinfo", "100644,\(blob),\(path)"], env: ["GIT_INDEX_FILE": index])
        }
        let tree = try git(["write-tree"], env: ["GIT_INDEX_FILE": index])
        let identity = [
            "GIT_AUTHOR_NAME": "Old", "GIT_AUTHOR_EMAIL": "old@example.com", "GIT_COMMITTER_NAME": "Old",
            "GIT_COMMITTER_EMAIL": "old@example.com",
        ]
        let commit = try git(["commit-tree", tree, "-p", "main", "-m", message], env: identity)
        _ = try git(["update-ref", "refs/heads/main", commit])
    }
}

/// Writes metrics the way a version without the range check could have: an ingest commit, with its
/// provenance and trailers, whose rollup holds counts beyond 2^53 - 1.
enum OldVersion {
    static let hex = String(repeating: "ab", count: 32)

    static func ingest(_ w: Workspace, locale: String, counts: [String: String], trailerDigest: String? = nil) throws {
        let short = String(hex.prefix(12))
        let entries = counts.keys.sorted().map { "    \"\($0)\": [\(counts[$0]!), 1, \"\(short)\"]" }.joined(
            separator: ",\n")
        let rollup = """
            {
              "columns": ["sessions", "crashes"],
              "counts": {
            \(entries)
              },
              "date": "2026-11-20",
              "kind": "crash",
              "locale": "\(locale)"
            }

            """
        let provenance = """
            {"actor": "Old Version <old@example.com>", "bytes": 100, "dates": ["2026-11-20"], "digest": "sha256:\(hex)", "file": "old.csv",
             "kind": "crash", "locales": ["\(locale)"], "rows": \(counts.count), "skippedRows": 0, "time": "2026-11-21T00:00:00Z"}

            """
        let message = """
            metrics ingest crash old.csv (\(counts.count) rows)

            Rollout-Action: metrics-ingest
            Rollout-Locale: \(locale)
            Rollout-Metrics-Kind: crash
            Rollout-Metrics-File: old.csv
            Rollout-Metrics-Digest: \(trailerDigest ?? "sha256:" + hex)
            Rollout-Metrics-Rows: \(counts.count)
            Rollout-Actor: Old Version <old@example.com>

            """
        try PlainGit.commit(
            w,
            files: [
                "metrics/crash/\(locale)/2026-11-20.json": rollup, "metrics/ingests/\(hex).crash.json": provenance,
            ], message: message)
    }
}
