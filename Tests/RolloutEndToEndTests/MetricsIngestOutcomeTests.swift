import Foundation
import XCTest

/// rollout metrics ingest, retract, show and verify on outcome CSVs (docs/metrics.md, "Outcome CSVs"):
/// each metric a kind of its own, `outcome-<metric>`.
final class MetricsIngestOutcomeTests: XCTestCase {
    static let header = "date,locale,pack,region,app_version,metric,exposures,conversions\n"
    /// Two metrics, two packs, two days, two regions: 12 rows, 6 of each metric.
    static let rows = [
        "2026-11-25,tr-TR,tr-TR@17,TR,4.8.1,checkout,1000,120",
        "2026-11-25,tr-TR,tr-TR@18,TR,4.8.1,checkout,1010,150",
        "2026-11-25,tr-TR,tr-TR@17,TR,4.8.1,signup,1000,40",
        "2026-11-25,tr-TR,tr-TR@18,TR,4.8.1,signup,1010,35",
        "2026-11-26,tr-TR,tr-TR@17,TR,4.8.1,checkout,900,100",
        "2026-11-26,tr-TR,tr-TR@18,TR,4.8.1,checkout,950,130",
        "2026-11-26,tr-TR,tr-TR@17,DE,4.9.0,checkout,50,5",
        "2026-11-26,tr-TR,tr-TR@18,DE,4.9.0,checkout,60,9",
        "2026-11-26,tr-TR,tr-TR@17,TR,4.8.1,signup,900,30",
        "2026-11-26,tr-TR,tr-TR@18,TR,4.8.1,signup,950,31",
        "2026-11-26,tr-TR,tr-TR@17,DE,4.9.0,signup,50,2",
        "2026-11-26,tr-TR,tr-TR@18,DE,4.9.0,signup,60,3",
    ]

    private func trailers(_ w: Workspace, _ name: String) throws -> [String] {
        try w.git("log", "-1", "--format=%(trailers:key=Rollout-\(name),valueonly,separator=|)").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
    }

    private func tree(_ w: Workspace, _ paths: String...) throws -> String {
        try Processes.run(
            "/usr/bin/env", ["git", "--git-dir", w.repository, "ls-tree", "-r", "main"] + paths, in: w.root,
            environment: w.environment
        ).stdout
    }

    private func workspace() throws -> Workspace {
        let w = try Workspace()
        try w.initWithExamples()
        return w
    }

    func testAnOutcomeKindReadsItsMetricsRowsInAnyOrderAndLeavesTheOthersOut() throws {
        let w = try workspace()
        let sorted = try w.scratch.write("sorted.csv", Self.header + Self.rows.joined(separator: "\n") + "\n")
        let ingested = try w.rollout("metrics", "ingest", "--kind", "outcome-checkout", sorted, "--json")
        XCTAssertEqual(ingested.status, 0, ingested.output)
        let entry = try XCTUnwrap((try w.json(ingested)["files"] as? [[String: Any]])?.first)
        XCTAssertEqual(entry["kind"] as? String, "outcome-checkout")
        XCTAssertEqual(entry["otherMetricRows"] as? Int, 6)
        XCTAssertEqual(entry["rows"] as? Int, 12)
        let digest = try XCTUnwrap(entry["digest"] as? String)
        XCTAssertEqual(try trailers(w, "Metrics-Kind"), ["outcome-checkout"])
        XCTAssertEqual(
            try w.git("cat-file", "-e", "main:metrics/ingests/\(digest.dropFirst(7)).outcome-checkout.json").status, 0)
        let rollup = try w.git("show", "main:metrics/outcome-checkout/tr-TR/2026-11-26.json").stdout
        XCTAssertTrue(rollup.contains("\"columns\":[\"exposures\",\"conversions\"]"), rollup)
        XCTAssertTrue(rollup.contains("\"kind\":\"outcome-checkout\""), rollup)
        XCTAssertTrue(rollup.contains("\"18|DE|4.9\":[60,9,"), rollup)
        XCTAssertEqual(try tree(w, "metrics/outcome-signup"), "", "signup rows are another kind")

        // The same rows in another order (another file, so another digest) give the same counts.
        let other = try workspace()
        let shuffled = try other.scratch.write(
            "shuffled.csv",
            "conversions,metric,pack,date,locale,region,app_version,exposures,extra\n"
                + Self.rows.reversed().map { row in
                    let f = row.split(separator: ",").map(String.init)
                    return [f[7], f[5], f[2], f[0], f[1], f[3], f[4], f[6], "x"].joined(separator: ",")
                }.joined(separator: "\r\n"))
        let text = try other.rollout("metrics", "ingest", "--kind", "outcome-checkout", shuffled)
        XCTAssertEqual(text.status, 0, text.output)
        XCTAssertTrue(
            text.stdout.contains("shuffled.csv (outcome-checkout): 6 rows ingested into 2 rollup(s)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("left out 6 row(s) of other metrics (signup)"), text.stdout)
        func counts(_ w: Workspace) throws -> [String] {
            try ["2026-11-25", "2026-11-26"].map { date in
                try w.git("show", "main:metrics/outcome-checkout/tr-TR/\(date).json").stdout
                    .replacingOccurrences(of: #",\"[0-9a-f]{12}\"\]"#, with: "]", options: .regularExpression)
            }
        }
        XCTAssertEqual(try counts(other), try counts(w), "the same counts, only the file named differs")

        let shown = try w.json(try w.rollout("metrics", "show", "tr-TR", "--segment", "DE/4.9", "--json"))
        let outcomes = try XCTUnwrap(shown["outcomes"] as? [[String: Any]])
        XCTAssertEqual(outcomes.map { $0["pack"] as? String }, ["tr-TR@17", "tr-TR@18"])
        XCTAssertEqual(outcomes.map { $0["conversions"] as? Int }, [5, 9])
        XCTAssertEqual(outcomes.map { $0["metric"] as? String }, ["checkout", "checkout"])
        let table = try w.rollout("metrics", "show", "tr-TR")
        XCTAssertTrue(table.stdout.contains("CONVERSION RATE"), table.stdout)
        XCTAssertTrue(table.stdout.contains("tr-TR, 2026-11-25 to 2026-11-26:"), table.stdout)
        let verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output)
    }

    func testOutcomeIngestsEveryMetricOfTheFileInOneCommitRetractsOneAndVerifies() throws {
        let w = try workspace()
        let file = try w.scratch.write("both.csv", Self.header + Self.rows.joined(separator: "\n") + "\n")
        let tip = try w.stateTip()
        let ingested = try w.rollout("metrics", "ingest", "--kind", "outcome", file)
        XCTAssertEqual(ingested.status, 0, ingested.output)
        XCTAssertTrue(ingested.stdout.contains("both.csv (outcome-checkout): 6 rows ingested"), ingested.stdout)
        XCTAssertTrue(ingested.stdout.contains("both.csv (outcome-signup): 6 rows ingested"), ingested.stdout)
        XCTAssertFalse(ingested.stdout.contains("left out"), "each metric's rows are ingested: \(ingested.stdout)")
        XCTAssertEqual(
            try w.git("rev-parse", "main~1").stdout.trimmingCharacters(in: .whitespacesAndNewlines), tip, "one commit")
        XCTAssertEqual(try trailers(w, "Metrics-Kind"), ["outcome-checkout", "outcome-signup"])
        XCTAssertEqual(try trailers(w, "Metrics-File"), [file])
        let records = try tree(w, "metrics/ingests").split(separator: "\n")
        XCTAssertEqual(records.count, 2, "\(records)")
        XCTAssertEqual(try tree(w, "metrics/outcome-signup/tr-TR").split(separator: "\n").count, 2)
        var verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output)

        let after = try w.stateTip()
        let again = try w.rollout("metrics", "ingest", "--kind", "outcome", file)
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertTrue(again.stdout.contains("both.csv (outcome-signup): already ingested"), again.stdout)
        XCTAssertEqual(try w.stateTip(), after, "the same file twice changes nothing")

        let which = try w.rollout("metrics", "retract", file, "--reason", "test")
        XCTAssertEqual(which.status, 64, which.output)
        XCTAssertTrue(
            which.stderr.contains("was ingested as both outcome-checkout and outcome-signup; say which"), which.stderr)
        let retracted = try w.rollout(
            "metrics", "retract", file, "--kind", "outcome-signup", "--reason", "test", "--json")
        XCTAssertEqual(retracted.status, 0, retracted.output)
        XCTAssertEqual(try w.json(retracted)["entries"] as? Int, 6)
        XCTAssertEqual(try tree(w, "metrics/outcome-signup"), "", "no signup counts are left")
        XCTAssertEqual(try tree(w, "metrics/outcome-checkout").split(separator: "\n").count, 2)
        verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output)

        // Again: checkout is still counted, signup comes back under its second record, in one commit.
        let back = try w.rollout("metrics", "ingest", "--kind", "outcome", file)
        XCTAssertEqual(back.status, 0, back.output)
        XCTAssertTrue(back.stdout.contains("both.csv (outcome-checkout): already ingested"), back.stdout)
        XCTAssertTrue(back.stdout.contains("both.csv (outcome-signup): 6 rows ingested"), back.stdout)
        XCTAssertEqual(try trailers(w, "Metrics-Kind"), ["outcome-signup"])
        XCTAssertEqual(try trailers(w, "Metrics-Generation"), ["2"])
        verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output)
        XCTAssertEqual(try w.rollout("gc").status, 0)
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    /// What `--kind outcome` ingested in one commit, `--kind outcome` retracts in one commit: every
    /// outcome kind of the file still counted, a record and a `Rollout-Metrics-Kind` each; verify
    /// accepts it, and the file may be ingested again.
    func testOutcomeRetractsEveryOutcomeKindOfTheFileInOneCommit() throws {
        let w = try workspace()
        let file = try w.scratch.write("both.csv", Self.header + Self.rows.joined(separator: "\n") + "\n")
        let crash = try w.scratch.write(
            "crash.csv",
            "date,locale,pack,region,app_version,sessions,crashes\n2026-11-26,tr-TR,tr-TR@18,TR,4.8.1,100,1\n")
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "crash", crash).status, 0)
        let none = try w.rollout("metrics", "retract", crash, "--kind", "outcome", "--reason", "test")
        XCTAssertEqual(none.status, 66, none.output)
        XCTAssertTrue(none.stderr.contains("no file with this digest was ingested as an outcome kind"), none.stderr)

        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "outcome", file).status, 0)
        let which = try w.rollout("metrics", "retract", file, "--reason", "test")
        XCTAssertEqual(which.status, 64, which.output)
        XCTAssertTrue(which.stderr.contains("(--kind outcome: every outcome kind of it, in one commit)"), which.stderr)
        let tip = try w.stateTip()
        let retracted = try w.rollout(
            "metrics", "retract", file, "--kind", "outcome", "--reason", "wrong export", "--json")
        XCTAssertEqual(retracted.status, 0, retracted.output)
        let json = try w.json(retracted)
        let entries = try XCTUnwrap(json["retractions"] as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["kind"] as? String }, ["outcome-checkout", "outcome-signup"])
        XCTAssertEqual(entries.map { $0["entries"] as? Int }, [6, 6])
        XCTAssertEqual(
            try w.git("rev-parse", "main~1").stdout.trimmingCharacters(in: .whitespacesAndNewlines), tip, "one commit")
        XCTAssertEqual(try trailers(w, "Metrics-Kind"), ["outcome-checkout", "outcome-signup"])
        XCTAssertEqual(try tree(w, "metrics/retractions").split(separator: "\n").count, 2)
        XCTAssertEqual(try tree(w, "metrics/outcome-checkout") + (try tree(w, "metrics/outcome-signup")), "")
        XCTAssertNotEqual(try tree(w, "metrics/crash"), "", "another kind's counts stay")
        var verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output)

        let again = try w.rollout("metrics", "retract", file, "--kind", "outcome", "--reason", "again")
        XCTAssertEqual(again.status, 1, again.output)
        XCTAssertTrue(again.stderr.contains("was already retracted"), again.stderr)
        // One kind back, then --kind outcome takes out the one still counted and leaves the other be.
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "outcome-signup", file).status, 0)
        let one = try w.rollout("metrics", "retract", file, "--kind", "outcome", "--reason", "signup again")
        XCTAssertEqual(one.status, 0, one.output)
        XCTAssertTrue(one.stdout.contains("outcome-signup): retracted 6 entries"), one.stdout)
        XCTAssertFalse(one.stdout.contains("outcome-checkout"), one.stdout)
        verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output)
        // The same bytes ingested under two names, a kind each: one commit, one name, verify agrees.
        let copy = try w.scratch.write("copy.csv", Self.header + Self.rows.joined(separator: "\n") + "\n")
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "outcome-checkout", copy).status, 0)
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "outcome-signup", file).status, 0)
        let both = try w.rollout("metrics", "retract", file, "--kind", "outcome", "--reason", "both names")
        XCTAssertEqual(both.status, 0, both.output)
        XCTAssertEqual(try trailers(w, "Metrics-Kind"), ["outcome-checkout", "outcome-signup"])
        verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output)
    }

    func testAnOverlapInOneMetricRefusesEveryMetricAndChangesNothing() throws {
        let w = try workspace()
        let first = try w.scratch.write("first.csv", Self.header + Self.rows[0] + "\n")
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "outcome-checkout", first).status, 0)
        let tip = try w.stateTip()
        let both = try w.scratch.write("both.csv", Self.header + Self.rows.joined(separator: "\n") + "\n")
        let refused = try w.rollout("metrics", "ingest", "--kind", "outcome", both)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("1 row group(s) overlap data already ingested"), refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains(
                "(refused as outcome-checkout; the file was read as outcome-checkout, outcome-signup, and none of them was ingested)"
            ), refused.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
        XCTAssertEqual(try tree(w, "metrics/outcome-signup"), "")
        // The metric that does not overlap goes in on its own.
        XCTAssertEqual(try w.rollout("metrics", "ingest", "--kind", "outcome-signup", both).status, 0)
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    func testBadOutcomeRowsAndFilesNameTheLineAndChangeNothing() throws {
        let w = try workspace()
        let tip = try w.stateTip()
        let good = "2026-11-25,tr-TR,tr-TR@18,TR,4.8.1,checkout,100,10\n"
        let cases: [(String, String, [String], Int32, String)] = [
            (
                "metric.csv", Self.header + good + "2026-11-25,tr-TR,tr-TR@17,TR,4.8.1,Check Out,100,10\n",
                ["outcome-checkout"], 65, "metric.csv:3: metric \"Check Out\" is not a metric name"
            ),
            (
                "more.csv", Self.header + "2026-11-25,tr-TR,tr-TR@18,TR,4.8.1,checkout,10,11\n", ["outcome-checkout"],
                65, "more.csv:2: conversions 11 > exposures 10"
            ),
            (
                "none.csv", Self.header + good, ["outcome-signup"], 65,
                "none.csv: no row has metric signup, so nothing was ingested as outcome-signup: it names checkout"
            ),
            (
                "header.csv", "date,locale,pack,region,app_version,exposures,conversions\n", ["outcome-checkout"], 65,
                "header.csv:1: the header lacks metric"
            ),
            ("all-header.csv", "date,pack,exposures\n", ["outcome"], 65, "all-header.csv:1: the header lacks metric"),
            ("nothing.csv", Self.header, ["outcome"], 65, "nothing.csv: no row names a metric"),
            // Every metric field bad: each row named by its line, as beside a good row.
            (
                "upper.csv", Self.header + "2026-11-25,tr-TR,tr-TR@18,TR,4.8.1,Checkout,100,10\n", ["outcome"], 65,
                "upper.csv:2: metric \"Checkout\" is not a metric name"
            ),
            (
                "short.csv", Self.header + "2026-11-25,tr-TR,tr-TR@18,TR,4.8.1,Checkout,100,10\n2026-11-25,tr-TR\n",
                ["outcome"], 65, "short.csv:3: 2 fields, the header has 8"
            ),
            ("bad-kind.csv", Self.header + good, ["outcome-Checkout"], 64, "is not crash, fallback"),
            ("bad-map.csv", Self.header + good, ["outcome-checkout", "--map", "sessions=s"], 64, "--map"),
        ]
        for (name, content, kind, status, message) in cases {
            let path = try w.scratch.write(name, content)
            let result = try w.rollout(["metrics", "ingest", path, "--kind"] + kind)
            XCTAssertEqual(result.status, status, "\(name): \(result.output)")
            XCTAssertTrue(result.stderr.contains(message), "\(name): expected \(message) in \(result.stderr)")
            XCTAssertEqual(try w.stateTip(), tip, "\(name) changed the repository")
        }
        // --skip-invalid keeps the good rows; --map reads the metric column under another name.
        let skipped = try w.rollout(
            "metrics", "ingest", "--kind", "outcome-checkout", "--skip-invalid", w.scratch.path("metric.csv"))
        XCTAssertEqual(skipped.status, 0, skipped.output)
        XCTAssertTrue(
            skipped.stdout.contains("metric.csv:3: metric \"Check Out\" is not a metric name"), skipped.stdout)
        let mapped = try w.scratch.write(
            "mapped.csv",
            Self.header.replacingOccurrences(of: "metric", with: "event_name")
                + "2026-11-26,tr-TR,tr-TR@18,TR,4.8.1,checkout,100,10\n")
        let read = try w.rollout("metrics", "ingest", "--kind", "outcome", "--map", "metric=event_name", mapped)
        XCTAssertEqual(read.status, 0, read.output)
        XCTAssertTrue(read.stdout.contains("mapped.csv (outcome-checkout): 1 rows ingested"), read.stdout)
    }

    /// `--kind outcome` reads a file as several kinds, but its bad rows are the file's: one refusal
    /// names every metric's bad rows in the order of their lines, each once (a short row and a
    /// field that is no metric name belong to no kind), and --skip-invalid skips each once.
    func testEveryMetricsBadRowsAreNamedOnceInOneRefusal() throws {
        let w = try workspace()
        let tip = try w.stateTip()
        var lines = [String]()
        var bad = [Int]()
        for index in 0..<36 {
            let line = index + 2
            switch index % 6 {
            case 0: lines.append("2026-11-26,tr-TR,tr-TR@18,TR,4.8.1,signup,10,11")
            case 1: lines.append("2026-11-26,tr-TR,tr-TR@18,TR,4.8.1,Sign Up,10,1")
            case 2: lines.append("2026-11-26,tr-TR,tr-TR@18,TR,4.8.1,checkout,10")
            case 3: lines.append("2026-11-31,tr-TR,tr-TR@18,TR,4.8.1,checkout,10,1")
            default:
                lines.append(
                    "2026-11-2\(index % 6),tr-TR,tr-TR@18,TR,4.8.\(index),\(index % 2 == 0 ? "signup" : "checkout"),10,1"
                )
                continue
            }
            bad.append(line)
        }
        let path = try w.scratch.write("mixed.csv", Self.header + lines.joined(separator: "\n") + "\n")
        let refused = try w.rollout("metrics", "ingest", "--kind", "outcome", path)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("mixed.csv: \(bad.count) of 36 rows are invalid; nothing was ingested"),
            refused.stderr)
        let named = refused.stderr.split(separator: "\n").compactMap { line in
            line.hasPrefix("  \(path):") ? Int(line.dropFirst(path.count + 3).prefix { $0 != ":" }) : nil
        }
        XCTAssertEqual(named, Array(bad.prefix(20)), "the first 20 bad lines of the file, each once, in order")
        XCTAssertFalse(refused.stderr.contains("refused as"), "the rows are the file's, not one kind's")
        XCTAssertEqual(try w.stateTip(), tip)

        let skipped = try w.rollout("metrics", "ingest", "--kind", "outcome", "--skip-invalid", "--json", path)
        XCTAssertEqual(skipped.status, 0, skipped.output)
        let files = try XCTUnwrap(try w.json(skipped)["files"] as? [[String: Any]])
        XCTAssertEqual(files.map { $0["kind"] as? String }, ["outcome-checkout", "outcome-signup"])
        XCTAssertEqual(files.map { $0["skippedCount"] as? Int ?? 0 }.reduce(0, +), bad.count, "each bad row once")
        let skippedLines = files.flatMap { ($0["skipped"] as? [[String: Any]] ?? []).compactMap { $0["line"] as? Int } }
        XCTAssertEqual(skippedLines.sorted(), bad, "every bad row named, none twice")

        // A metric whose every row is bad lands nothing, and its skipped row is still named.
        let lone = try w.scratch.write(
            "lone.csv",
            Self.header
                + "2026-11-26,tr-TR,tr-TR@18,TR,4.8.1,checkout,10,1\n2026-11-26,tr-TR,tr-TR@99,TR,4.8.1,tap,10,1\n")
        let text = try w.rollout("metrics", "ingest", "--kind", "outcome", "--skip-invalid", lone)
        XCTAssertEqual(text.status, 0, text.output)
        XCTAssertTrue(text.stdout.contains("(outcome-tap): no valid data rows (1 skipped); nothing to do"), text.stdout)
        XCTAssertTrue(text.stdout.contains("  skipped \(lone):3: unknown pack tr-TR@99"), text.stdout)
    }

    /// `--kind outcome` holds every metric's sums until its one commit, so the metrics share ingest's
    /// memory budget: each spills past its part, and the rollups are those of a budget each.
    func testEveryMetricSpillsPastItsPartOfTheBudgetToTheSameRollups() throws {
        let whole = try workspace()
        let shared = try workspace()
        var rows: [String] = []
        for region in ["TR", "DE", "NL", "FR", "GB"] {
            for minor in 0..<8 {
                for metric in ["checkout", "signup", "share"] {
                    rows.append(
                        "2026-11-26,tr-TR,tr-TR@18,\(region),4.\(minor).0,\(metric),\(100 + minor),\(minor + 1)")
                }
            }
        }
        let text = Self.header + rows.joined(separator: "\n") + "\n"
        let plain = try whole.rollout("metrics", "ingest", "--kind", "outcome", try whole.scratch.write("o.csv", text))
        XCTAssertEqual(plain.status, 0, plain.output)
        // 3,072 bytes for three metrics: a table of 32 groups a metric (24 before it spills) against
        // 40 groups each, where the whole budget, 96, would hold them.
        let small = try shared.rollout(
            ["metrics", "ingest", "--kind", "outcome", try shared.scratch.write("o.csv", text)],
            env: ["ROLLOUT_INGEST_MEMORY": "3072", "ROLLOUT_INGEST_PROFILE": "1"])
        XCTAssertEqual(small.status, 0, small.output)
        let spilled = small.stderr.split(separator: "\n").filter {
            $0.contains("runs spilled") && !$0.contains(" 0 runs spilled")
        }
        XCTAssertGreaterThanOrEqual(spilled.count, 3, small.stderr)
        for metric in ["checkout", "signup", "share"] {
            let path = "main:metrics/outcome-\(metric)/tr-TR/2026-11-26.json"
            XCTAssertEqual(try shared.git("show", path).stdout, try whole.git("show", path).stdout, metric)
        }
    }

    func testAGzipOutcomeExportGivesTheRollupsOfThePlainFile() throws {
        let plain = try workspace()
        let zipped = try workspace()
        let text = Self.header + Self.rows.joined(separator: "\n") + "\n"
        let path = try plain.scratch.write("plain.csv", text)
        let input = try zipped.scratch.write("input.csv", text)
        let output = zipped.scratch.path("outcomes.csv.gz")
        let shell = try Processes.run(
            "/bin/sh", ["-c", "gzip -c -n \"$0\" > \"$1\"", input, output], in: zipped.root,
            environment: zipped.environment)
        XCTAssertEqual(shell.status, 0, shell.output)
        XCTAssertEqual(try plain.rollout("metrics", "ingest", "--kind", "outcome", path).status, 0)
        let read = try zipped.rollout("metrics", "ingest", "--kind", "outcome", output)
        XCTAssertEqual(read.status, 0, read.output)
        func rollups(_ w: Workspace) throws -> [String] {
            try tree(w, "metrics/outcome-checkout", "metrics/outcome-signup").split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(try rollups(zipped).count, 4)
        let shown = ["metrics", "show", "tr-TR", "--json"]
        XCTAssertEqual(try zipped.rollout(shown).stdout, try plain.rollout(shown).stdout)
        let retracted = try zipped.rollout(
            "metrics", "retract", output, "--kind", "outcome-checkout", "--reason", "test")
        XCTAssertEqual(retracted.status, 0, retracted.output)
        XCTAssertEqual(try zipped.rollout("verify").status, 0)
    }
}
