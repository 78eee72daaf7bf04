import Foundation
import XCTest

/// Issue 31, the metrics items: dates far from now (item 2), gzip bombs (item 9), and the minor
/// ones: an impossible date, a 13-digit count, `metrics retract ''`, and `health` when the baseline
/// lacks the candidate's dates (docs/metrics.md, "The date window" and "Gzip input").
final class MetricsDateAndExpansionTests: XCTestCase {
    private static let now = ["ROLLOUT_NOW": "2026-11-29T09:00:00Z"]
    private static let header = "date,locale,pack,region,app_version,sessions,crashes\n"

    private func staged() throws -> Workspace {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8").status, 0)
        return w
    }

    private func example(_ name: String) throws -> String {
        try String(contentsOfFile: MetricsIngestTests.examples + "/" + name, encoding: .utf8)
    }

    /// A spike dated five years ahead is refused with its rows' lines, so guard has nothing to revert on.
    func testASpikeDatedFiveYearsAheadIsRefusedAndGuardDoesNotRevert() throws {
        let w = try staged()
        let future = try example("crashes-spike-TR-4.8.csv").replacingOccurrences(of: "2026-11-", with: "2031-11-")
        try w.scratch.write("work/future.csv", future)
        let tip = try w.stateTip()
        let refused = try w.rollout(["metrics", "ingest", "--kind", "crash", "future.csv"], env: Self.now)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains(
                "future.csv:2: date 2031-11-25 is after 2026-11-30, the latest the policy accepts (today 2026-11-29 "
                    + "+ gates.dates.daysAhead 1)"), refused.stderr)
        XCTAssertEqual(try w.stateTip(), tip, "nothing was ingested")
        let guarded = try w.rollout(["guard", "--auto-revert"], env: Self.now)
        XCTAssertEqual(guarded.status, 0, guarded.output)
        XCTAssertFalse(guarded.stdout.contains("revert"), guarded.stdout)
        XCTAssertTrue(try w.rollout("status", "tr-TR").stdout.contains("tr-TR@18"))
    }

    /// The window's both ends, and one day past each; the policy moves them.
    func testTheDateWindowAtItsEndsAndOnePast() throws {
        let w = try staged()
        func ingest(_ date: String, _ name: String) throws -> RunResult {
            try w.scratch.write("work/\(name).csv", Self.header + "\(date),tr-TR,tr-TR@17,DE,4.8.1,10,1\n")
            return try w.rollout(["metrics", "ingest", "--kind", "crash", "\(name).csv"], env: Self.now)
        }
        XCTAssertEqual(try ingest("2026-11-30", "ahead").status, 0, "today + 1 day")
        let tooNew = try ingest("2026-12-01", "ahead2")
        XCTAssertEqual(tooNew.status, 65, tooNew.output)
        XCTAssertTrue(tooNew.stderr.contains("ahead2.csv:2: date 2026-12-01 is after 2026-11-30"), tooNew.stderr)
        XCTAssertEqual(try ingest("2023-11-29", "back").status, 0, "today - 1096 days")
        let tooOld = try ingest("2023-11-28", "back2")
        XCTAssertEqual(tooOld.status, 65, tooOld.output)
        XCTAssertTrue(
            tooOld.stderr.contains(
                "back2.csv:2: date 2023-11-28 is before 2023-11-29, the earliest the policy accepts"),
            tooOld.stderr)
        for (date, name) in [("1999-11-28", "y1999"), ("0001-01-01", "y0001"), ("2099-01-01", "y2099")] {
            let result = try ingest(date, name)
            XCTAssertEqual(result.status, 65, "\(date): \(result.output)")
            XCTAssertTrue(result.stderr.contains("\(name).csv:2: date \(date) is "), result.stderr)
        }
        try w.scratch.write("work/policy.json", #"{"gates": {"dates": {"daysBefore": 2000, "daysAhead": 0}}}"#)
        XCTAssertEqual(
            try w.rollout(["policy", "set", "policy.json", "--reason", "backfill"], env: Self.now).status, 0)
        XCTAssertEqual(try ingest("2023-11-28", "back3").status, 0, "the policy widened the window back")
        let noAhead = try ingest("2026-11-30", "ahead3")
        XCTAssertEqual(noAhead.status, 65, noAhead.output)
        XCTAssertTrue(noAhead.stderr.contains("gates.dates.daysAhead 0"), noAhead.stderr)
        try w.scratch.write("work/bad-policy.json", #"{"gates": {"dates": {"daysAhead": -1}}}"#)
        XCTAssertEqual(try w.rollout(["policy", "set", "bad-policy.json", "--reason", "x"], env: Self.now).status, 65)
    }

    /// --skip-invalid skips rows outside the window like any invalid row.
    func testSkipInvalidSkipsRowsOutsideTheWindow() throws {
        let w = try staged()
        try w.scratch.write(
            "work/mixed.csv",
            Self.header + "2026-11-25,tr-TR,tr-TR@17,DE,4.8.1,10,1\n2031-11-25,tr-TR,tr-TR@17,DE,4.8.1,10,1\n")
        let result = try w.rollout(
            ["metrics", "ingest", "--kind", "crash", "mixed.csv", "--skip-invalid"], env: Self.now)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.contains("skipped mixed.csv:3: date 2031-11-25 is after"), result.stdout)
    }

    func testAnImpossibleDateAndAThirteenDigitCountSayWhatIsWrong() throws {
        let w = try staged()
        try w.scratch.write(
            "work/rows.csv",
            Self.header + "2025-02-29,tr-TR,tr-TR@17,DE,4.8.1,10,1\n2026-13-01,tr-TR,tr-TR@17,DE,4.8.1,10,1\n"
                + "2026-11-25,tr-TR,tr-TR@17,DE,4.8.1,1000000000000,1\n2026-11-25,tr-TR,tr-TR@17,DE,4.8.1,x,1\n")
        let result = try w.rollout(["metrics", "ingest", "--kind", "crash", "rows.csv"], env: Self.now)
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertTrue(
            result.stderr.contains("rows.csv:2: date \"2025-02-29\" does not exist: February 2025 has 28 days"),
            result.stderr)
        XCTAssertTrue(
            result.stderr.contains("rows.csv:3: date \"2026-13-01\" does not exist: there is no month 13"),
            result.stderr)
        XCTAssertTrue(
            result.stderr.contains("rows.csv:4: sessions 1000000000000 has 13 digits; a count has at most 12"),
            result.stderr)
        XCTAssertTrue(result.stderr.contains("rows.csv:5: sessions \"x\" is not a whole number"), result.stderr)
    }

    func testRetractingAnEmptySourceIsAUsageError() throws {
        let w = try staged()
        let result = try w.rollout("metrics", "retract", "", "--reason", "x")
        XCTAssertEqual(result.status, 64, result.output)
        XCTAssertTrue(result.stderr.contains("needs a SOURCE"), result.stderr)
        XCTAssertFalse(result.stderr.contains("directory"), result.stderr)
    }

    /// The candidate has counts, the baseline none on those dates: health says that, not "No metrics".
    func testHealthSaysTheBaselineLacksTheCandidatesDates() throws {
        let w = try staged()
        let candidateOnly = try example("crashes-healthy.csv").split(separator: "\n").filter {
            !$0.contains("tr-TR@17")
        }.joined(separator: "\n")
        try w.scratch.write("work/candidate.csv", candidateOnly + "\n")
        XCTAssertEqual(
            try w.rollout(["metrics", "ingest", "--kind", "crash", "candidate.csv"], env: Self.now).status, 0)
        let health = try w.rollout(["health", "tr-TR"], env: Self.now)
        XCTAssertFalse(health.stdout.contains("No metrics for the staged pack"), health.stdout)
        XCTAssertTrue(
            health.stdout.contains(
                "tr-TR@18 has metrics (the newest dated 2026-11-28), but tr-TR@17, the baseline, has none on the same dates"
            ), health.stdout)
    }

    /// A .csv.gz of 10 GiB of blank lines in about 10 MB (a header member, then 1,280 members of
    /// 8 MiB of line feeds each) is refused after inflating a few MiB of it, as its message says;
    /// without the limit it took minutes to end in "no data rows". (Counted in bytes, not seconds:
    /// the suite runs on a loaded machine.)
    func testAGzipBombIsRefusedEarly() throws {
        let w = try staged()
        let bomb = try gzipBomb(in: w, members: 1280, mebibytes: 8)
        let tip = try w.stateTip()
        let result = try w.rollout(["metrics", "ingest", "--kind", "crash", bomb], env: Self.now)
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertTrue(result.stderr.contains("bomb.csv.gz: the gzip data expands more than 200 times"), result.stderr)
        XCTAssertTrue(result.stderr.contains("--max-gzip-ratio"), result.stderr)
        let inflated = try XCTUnwrap(
            result.stderr.firstMatch(of: #/\((\d+) bytes of text from the first (\d+) bytes/#), result.stderr)
        XCTAssertLessThanOrEqual(try XCTUnwrap(Int(inflated.1)), 16 << 20, "refused early: \(result.stderr)")
        XCTAssertLessThanOrEqual(try XCTUnwrap(Int(inflated.2)), 1 << 20, "refused early: \(result.stderr)")
        XCTAssertEqual(try w.stateTip(), tip)
    }

    /// The flags move both limits: a 4 MiB bomb passes with a higher ratio, and is refused past a
    /// smaller text limit.
    func testTheGzipLimitsAreOverriddenByFlags() throws {
        let w = try staged()
        let bomb = try gzipBomb(in: w, members: 1, mebibytes: 4)
        let refused = try w.rollout(["metrics", "ingest", "--kind", "crash", bomb], env: Self.now)
        XCTAssertEqual(refused.status, 65, refused.output)
        let allowed = try w.rollout(
            ["metrics", "ingest", "--kind", "crash", bomb, "--max-gzip-ratio", "5000"], env: Self.now)
        XCTAssertEqual(allowed.status, 0, allowed.output)
        XCTAssertTrue(allowed.stdout.contains("no data rows"), allowed.stdout)
        let small = try w.rollout(
            ["metrics", "ingest", "--kind", "crash", bomb, "--max-gzip-ratio", "5000", "--max-gzip-text", "1M"],
            env: Self.now)
        XCTAssertEqual(small.status, 65, small.output)
        XCTAssertTrue(small.stderr.contains("expands to more than 1048576 bytes of text"), small.stderr)
        for bad in [["--max-gzip-ratio", "0"], ["--max-gzip-text", "lots"], ["--max-gzip-text", "99999999999T"]] {
            let result = try w.rollout(["metrics", "ingest", "--kind", "crash", bomb] + bad, env: Self.now)
            XCTAssertEqual(result.status, 64, "\(bad): \(result.output)")
        }
    }

    /// `bomb.csv.gz`: the header, then `members` gzip members of `mebibytes` MiB of line feeds each.
    private func gzipBomb(in w: Workspace, members: Int, mebibytes: Int) throws -> String {
        let script = """
            set -e
            cd "$0"
            printf 'date,locale,pack,region,app_version,sessions,crashes\\n' | gzip -n > bomb.csv.gz
            head -c $(($2 * 1048576)) /dev/zero | tr '\\000' '\\n' | gzip -9 -n > lines.gz
            i=0; while [ $i -lt $1 ]; do cat lines.gz; i=$((i + 1)); done >> bomb.csv.gz
            """
        let made = try Processes.run(
            "/bin/sh", ["-c", script, w.work, "\(members)", "\(mebibytes)"], in: w.root, environment: w.environment)
        XCTAssertEqual(made.status, 0, made.output)
        return "bomb.csv.gz"
    }
}
