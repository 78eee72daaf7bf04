import Foundation
import RolloutModel
import XCTest

/// Experiments through the command line on real repositories (docs/experiments.md): started,
/// refused where a question cannot be asked, fed simulated traffic as outcome CSVs, decided, voided
/// by a sample ratio mismatch, shipped through the promote gate, and stopped by guard for harm.
final class ExperimentEndToEndTests: XCTestCase {
    static let outcomeHeader = "date,locale,pack,region,app_version,metric,exposures,conversions\n"
    static let crashHeader = "date,locale,pack,region,app_version,sessions,crashes\n"

    /// tr-TR@17 completed, then `title-test` started on it against tr-TR@18 in TR, on 2026-12-01.
    func started() throws -> Workspace {
        let w = try Workspace()
        try w.initWithExamples()
        w.environment["ROLLOUT_NOW"] = "2026-12-01T09:00:00Z"
        try ok(w, "promote", "tr-TR@17", "--to", "100%")
        try ok(
            w, "experiment", "start", "title-test", "--variants", "tr-TR@17,tr-TR@18", "--region", "TR", "--metric",
            "checkout", "--exploratory", "signup", "--reason", "which title converts")
        w.environment["ROLLOUT_NOW"] = "2026-12-04T09:00:00Z"
        return w
    }

    @discardableResult
    func ok(_ w: Workspace, _ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws
        -> String
    {
        let result = try w.rollout(arguments)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.output)", file: file, line: line)
        return result.stdout
    }

    /// Three days of outcome rows, 2026-12-01 to 03, for TR on 4.8.1: per day, each arm's exposures
    /// and checkout conversions (and a flat signup).
    func outcomes(_ w: Workspace, control: (Int, Int), variant: (Int, Int)) throws -> String {
        var text = Self.outcomeHeader
        for day in 1...3 {
            for (pack, counts) in [("tr-TR@17", control), ("tr-TR@18", variant)] {
                text += "2026-12-0\(day),tr-TR,\(pack),TR,4.8.1,checkout,\(counts.0),\(counts.1)\n"
                text += "2026-12-0\(day),tr-TR,\(pack),TR,4.8.1,signup,\(counts.0),\(counts.0 / 100)\n"
            }
        }
        return try w.scratch.write("outcomes.csv", text)
    }

    func crashes(_ w: Workspace, control: Int, variant: Int) throws -> String {
        var text = Self.crashHeader
        for day in 1...3 {
            text += "2026-12-0\(day),tr-TR,tr-TR@17,TR,4.8.1,20000,\(control)\n"
            text += "2026-12-0\(day),tr-TR,tr-TR@18,TR,4.8.1,20000,\(variant)\n"
        }
        return try w.scratch.write("crashes.csv", text)
    }

    func show(_ w: Workspace) throws -> [String: Any] {
        try w.json(try w.rollout("experiment", "show", "title-test", "--json"))
    }

    func verdict(_ shown: [String: Any]) -> [String: Any] { shown["verdict"] as? [String: Any] ?? [:] }

    func testSimulatedTrafficReachesAWinnerAndStopShipStagesItThroughTheGate() throws {
        let w = try started()
        try ok(
            w, "metrics", "ingest", try outcomes(w, control: (20_000, 1_000), variant: (20_000, 1_200)), "--kind",
            "outcome")
        let shown = try show(w)
        XCTAssertEqual(verdict(shown)["verdict"] as? String, "winner", "\(shown)")
        XCTAssertEqual(verdict(shown)["pack"] as? String, "tr-TR@18")
        let text = try ok(w, "experiment", "show", "title-test")
        XCTAssertTrue(
            text.contains("verdict: winner tr-TR@18: ship it with rollout experiment stop title-test --ship tr-TR@18"),
            text)
        XCTAssertTrue(text.contains("exploratory signup"), text)

        // While it runs, a promote would change what its devices get: refused, nothing written.
        let tip = try w.git("rev-parse", "main", repository: w.repository).stdout
        let promote = try w.rollout("promote", "tr-TR@18", "--to", "10%")
        XCTAssertEqual(promote.status, 1, promote.output)
        XCTAssertTrue(promote.stderr.contains("experiment title-test is running on tr-TR"), promote.output)
        // Shipping goes through the promote gate, from the share the experiment gave: beyond it,
        // without crash data for tr-TR@18, it is refused.
        let ungated = try w.rollout(
            "experiment", "stop", "title-test", "--ship", "tr-TR@18", "--to", "100%", "--reason", "won")
        XCTAssertEqual(ungated.status, 1, ungated.output)
        XCTAssertTrue(ungated.stderr.contains("tr-TR@18"), ungated.output)
        XCTAssertEqual(try w.git("rev-parse", "main", repository: w.repository).stdout, tip, "nothing written")
        // A ship to no device, and a share for the baseline, mean nothing: usage errors, nothing written.
        for (arguments, says) in [
            (["tr-TR@18", "--to", "0%"], "--ship tr-TR@18 --to 0% ships it to no device"),
            (["tr-TR@17", "--to", "30%"], "--to 30% has no meaning for it"),
        ] {
            let refused = try w.rollout(["experiment", "stop", "title-test", "--ship"] + arguments)
            XCTAssertEqual(refused.status, 64, refused.output)
            XCTAssertTrue(refused.stderr.contains(says), refused.output)
            XCTAssertEqual(try w.git("rev-parse", "main", repository: w.repository).stdout, tip, "nothing written")
        }

        try ok(w, "metrics", "ingest", try crashes(w, control: 40, variant: 40), "--kind", "crash")
        // Shipped at the share it had, the variant keeps exactly its devices (the experiment's salt
        // carries on), so no phone's text changes; a wider share only adds phones.
        func packs() throws -> [String] {
            try (0..<60).map { n in
                try w.json(
                    try w.rollout(
                        "resolve", "--locale", "tr-TR", "--region", "TR", "--app-version", "4.8.1", "--install-id",
                        "phone-\(n)", "--json"))["chain"].flatMap {
                        ($0 as? [[String: Any]])?.first?["result"] as? String
                    }
                    ?? "?"
            }
        }
        let during = try packs()
        XCTAssertTrue(during.contains("tr-TR@17") && during.contains("tr-TR@18"), "\(during)")
        let stopped = try ok(w, "experiment", "stop", "title-test", "--ship", "tr-TR@18", "--reason", "won")
        XCTAssertTrue(stopped.contains("shipped tr-TR@18 to 50%"), stopped)
        XCTAssertEqual(try packs(), during, "every phone keeps what it had")
        try ok(
            w, "promote", "tr-TR@18", "--to", "100%", "--region", "TR", "--app-version", ">=4.8.0",
            "--accept-insufficient", "TR/*", "--reason", "everyone in TR")
        XCTAssertEqual(try packs(), Array(repeating: "tr-TR@18", count: 60), "at 100% in TR every phone has it")
        let plan = try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any] ?? [:]
        XCTAssertNil(plan["experiment"], "\(plan)")
        let rules = plan["rules"] as? [[String: Any]] ?? []
        XCTAssertEqual(rules.count, 1, "\(plan)")
        XCTAssertEqual(rules.first?["basisPoints"] as? Int, 10_000)
        XCTAssertEqual(rules.first?["regions"] as? [String], ["TR"])
        // The record keeps the question and its end; its name is never used again.
        let ended = try ok(w, "experiment", "show", "title-test")
        XCTAssertTrue(ended.contains("ended 2026-12-04: shipped tr-TR@18 to 50%"), ended)
        let again = try w.rollout(
            "experiment", "start", "title-test", "--variants", "tr-TR@18,tr-TR@17", "--metric", "checkout")
        XCTAssertEqual(again.status, 1, again.output)
        XCTAssertTrue(again.stderr.contains("names are never reused"), again.output)
        // What TR on 4.8 got: the split, then everything; the stop changed what no phone there got.
        let log = try ok(w, "log", "--segment", "TR/4.8")
        XCTAssertTrue(log.contains("experiment-start") && !log.contains("experiment-stop"), log)
        XCTAssertTrue(log.contains("tr-TR TR 4.8.x: tr-TR@17 50%, tr-TR@18 50%"), log)
        XCTAssertTrue(log.contains("tr-TR TR 4.8.x: tr-TR@18 100%"), log)
        XCTAssertTrue(try ok(w, "log").contains("experiment stop title-test: shipped tr-TR@18 to 50%"))
        try ok(w, "verify")
    }

    /// Outcome counts of a metric the experiment did not declare, on its days, are never read: show
    /// says so (most often the metric misspelled in an export), and lists them under otherMetrics.
    func testShowNamesOutcomeMetricsOnItsDaysThatAreNotItsOwn() throws {
        let w = try started()
        try ok(
            w, "metrics", "ingest", try outcomes(w, control: (20_000, 1_000), variant: (20_000, 1_000)), "--kind",
            "outcome")
        XCTAssertEqual(try show(w)["otherMetrics"] as? [String], [])
        XCTAssertFalse(try ok(w, "experiment", "show", "title-test").contains("note: outcome counts"))
        let typo = try w.scratch.write(
            "typo.csv",
            Self.outcomeHeader + "2026-12-03,tr-TR,tr-TR@18,TR,4.8.1,checkuot,100,10\n"
                + "2026-11-20,tr-TR,tr-TR@18,TR,4.8.1,tap,100,10\n")
        try ok(w, "metrics", "ingest", typo, "--kind", "outcome")
        XCTAssertEqual(try show(w)["otherMetrics"] as? [String], ["checkuot"], "tap is before its days")
        let text = try ok(w, "experiment", "show", "title-test")
        XCTAssertTrue(
            text.contains("note: outcome counts of checkuot on its days are not of its metrics (checkout, signup)"),
            text)
    }

    func testAMismatchVoidsEvenAClearLift() throws {
        let w = try started()
        try ok(
            w, "metrics", "ingest", try outcomes(w, control: (30_000, 1_500), variant: (20_000, 1_200)), "--kind",
            "outcome")
        let shown = try show(w)
        XCTAssertEqual(verdict(shown)["verdict"] as? String, "void", "\(shown)")
        XCTAssertTrue((verdict(shown)["why"] as? String ?? "").hasPrefix("sample ratio mismatch: tr-TR@18 has 40.0%"))
        let text = try ok(w, "experiment", "show", "title-test")
        XCTAssertTrue(text.contains("sample ratio tr-TR@18: mismatch"), text)
        // Guard holds it for a person to look at, as it holds a rollout whose split is off.
        let guarded = try w.rollout("guard")
        XCTAssertEqual(guarded.status, 1, guarded.output)
        XCTAssertTrue(
            guarded.stdout.contains("experiment title-test: void; its exposures do not match the split"), guarded.output
        )
        // Void comes before harm: with the variant crashing too, no comparison (a guardrail's
        // included) is trusted, so guard holds it and never stops it on them.
        try ok(w, "metrics", "ingest", try crashes(w, control: 40, variant: 200), "--kind", "crash")
        let held = try w.rollout("guard", "--auto-revert")
        XCTAssertEqual(held.status, 1, held.output)
        XCTAssertTrue(held.stdout.contains("experiment title-test: void"), held.output)
        let plan = try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any] ?? [:]
        XCTAssertNotNil(plan["experiment"], "still running: \(plan)")
    }

    /// Guard reports the harm (exit 1), then with --auto-revert stops the experiment: the variant
    /// blocked, its rollback manifest tr-TR/1, no experiment left in the plan.
    func guardStops(_ w: Workspace, reporting row: String) throws {
        let reported = try w.rollout("guard")
        XCTAssertEqual(reported.status, 1, reported.output)
        XCTAssertTrue(reported.stdout.contains(row), reported.output)
        let guarded = try w.rollout("guard", "--auto-revert")
        XCTAssertEqual(guarded.status, 0, guarded.output)
        XCTAssertTrue(guarded.stdout.contains("stopped experiment title-test: rollback tr-TR/1"), guarded.output)
        let plan = try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any] ?? [:]
        XCTAssertNil(plan["experiment"], "\(plan)")
        XCTAssertEqual(plan["blocked"] as? [Int], [18])
    }

    func testGuardStopsAVariantThatHarmsAGuardrailWithARollbackManifest() throws {
        let w = try started()
        try ok(
            w, "metrics", "ingest", try outcomes(w, control: (20_000, 1_000), variant: (20_000, 1_000)), "--kind",
            "outcome")
        try ok(w, "metrics", "ingest", try crashes(w, control: 40, variant: 200), "--kind", "crash")
        try guardStops(w, reporting: "unhealthy  experiment title-test: harm on a guardrail; --auto-revert stops it")
        let manifest = try w.git("show", "main:rollbacks/tr-TR/1.json", repository: w.repository).stdout
        XCTAssertTrue(manifest.contains("experiment title-test") && manifest.contains("unhealthy"), manifest)
        let ended = try ok(w, "experiment", "show", "title-test")
        XCTAssertTrue(ended.contains("harm: tr-TR@18 unhealthy (TR/4.8 crash)"), ended)
        try ok(w, "verify")
    }

    /// The verdict guard acts on is the verdict `experiment show` gives: a primary metric shown worse
    /// is harm as a guardrail is, stopped with --auto-revert and the comparison as evidence; and
    /// guardrails without data are insufficient data, not healthy.
    func testGuardStopsAVariantWhosePrimaryMetricIsShownWorse() throws {
        let w = try started()
        let quiet = try w.rollout("guard")
        XCTAssertEqual(quiet.status, 0, quiet.output)
        XCTAssertTrue(quiet.stdout.contains("insufficient-data  experiment title-test: keep running"), quiet.output)
        try ok(
            w, "metrics", "ingest", try outcomes(w, control: (20_000, 1_200), variant: (20_000, 900)), "--kind",
            "outcome")
        try guardStops(w, reporting: "unhealthy  experiment title-test: harm on checkout; --auto-revert stops it")
        let manifest = try w.json(try w.rollout("rollbacks", "tr-TR/1"))
        let evidence = try XCTUnwrap((manifest["evidence"] as? [String: Any])?["comparisons"] as? [[String: Any]])
        XCTAssertEqual(evidence.first?["decision"] as? String, "worse")
        XCTAssertEqual(evidence.first?["metric"] as? String, "checkout")
        let ended = try ok(w, "experiment", "show", "title-test")
        XCTAssertTrue(ended.contains("tr-TR@18 converts worse on checkout"), ended)
        try ok(w, "verify")
    }

    /// Rollback never waits for a question: a revert ends a running experiment, blocks its variant and
    /// records how it ended.
    func testARevertEndsARunningExperiment() throws {
        let w = try started()
        let reverted = try ok(w, "revert", "tr-TR", "--reason", "support tickets about the new title")
        XCTAssertTrue(reverted.contains("blocked: tr-TR@18"), reverted)
        let plan = try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any] ?? [:]
        XCTAssertNil(plan["experiment"], "\(plan)")
        let ended = try ok(w, "experiment", "show", "title-test")
        XCTAssertTrue(ended.contains("ended 2026-12-04: reverted to last-known-good (rollback tr-TR/1)"), ended)
        let message = try w.git("log", "-1", "--format=%B", "main", repository: w.repository).stdout
        XCTAssertTrue(message.contains("Rollout-Experiment: title-test"), message)
        try ok(w, "verify")
        let stop = try w.rollout("experiment", "stop", "title-test")
        XCTAssertEqual(stop.status, 1, stop.output)
        XCTAssertTrue(stop.stderr.contains("has ended already"), stop.output)
    }

    /// A scoped revert during an experiment takes the variant back from one segment and blocks
    /// nothing: its commit names the variant it took back, as a scoped revert of a rollout names the
    /// candidate, never the baseline that stays.
    func testAScopedRevertNamesTheVariantItTookBack() throws {
        let w = try started()
        try ok(w, "revert", "tr-TR", "--segment", "TR/4.8", "--reason", "a layout bug on 4.8")
        let message = try w.git("log", "-1", "--format=%B", "main", repository: w.repository).stdout
        XCTAssertTrue(message.contains("Rollout-Pack: tr-TR@18\n"), message)
        XCTAssertFalse(message.contains("Rollout-Pack: tr-TR@17"), message)
        XCTAssertTrue(message.contains("Rollout-Segment: TR/4.8.x"), message)
        try ok(w, "verify")
    }

    /// `rollout verify` holds the record and the plan to each other: a plan edited outside rollout
    /// that drops the experiment leaves a record that says it runs, and is reported.
    func testVerifyReportsARecordThePlanNoLongerRuns() throws {
        let w = try started()
        let git = { (arguments: [String], env: [String: String]) throws -> String in
            var environment = w.environment
            for (key, value) in env { environment[key] = value }
            let run = try Processes.run(
                "/usr/bin/git", ["--git-dir", w.repository] + arguments, in: w.work, environment: environment)
            XCTAssertEqual(run.status, 0, run.output)
            return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let index = w.scratch.path("tmp-index")
        _ = try git(["read-tree", "main"], ["GIT_INDEX_FILE": index])
        let plan = try git(["show", "main:plans/tr-TR.json"], [:])
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(plan.utf8)) as? [String: Any])
        object["experiment"] = nil
        let edited = try w.scratch.write("plan.json", Data(try JSONSerialization.data(withJSONObject: object)))
        let blob = try git(["hash-object", "-w", edited], [:])
        _ = try git(["update-index", "--cacheinfo", "100644,\(blob),plans/tr-TR.json"], ["GIT_INDEX_FILE": index])
        let tree = try git(["write-tree"], ["GIT_INDEX_FILE": index])
        let identity = [
            "GIT_AUTHOR_NAME": "Someone", "GIT_AUTHOR_EMAIL": "someone@example.com", "GIT_COMMITTER_NAME": "Someone",
            "GIT_COMMITTER_EMAIL": "someone@example.com",
        ]
        let commit = try git(["commit-tree", tree, "-p", "main", "-m", "end it quietly"], identity)
        _ = try git(["update-ref", "refs/heads/main", commit], [:])
        let verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 1, verified.output)
        XCTAssertTrue(
            verified.stdout.contains(
                "experiments/title-test.json: says it runs, but the plan of tr-TR does not run it"),
            verified.output)
    }

    func testAQuestionThatCannotBeAskedIsRefusedAndWritesNothing() throws {
        let w = try Workspace()
        try w.initWithExamples()
        try ok(w, "promote", "tr-TR@17", "--to", "100%")
        try ok(w, "promote", "tr-TR@18", "--to", "10%")
        let tip = try w.git("rev-parse", "main", repository: w.repository).stdout
        let cases: [([String], Int32, String)] = [
            (["--variants", "tr-TR@17,tr-TR@18"], 1, "tr-TR@18 is staged on tr-TR"),
            (["--variants", "tr-TR@17,tr-TR@17"], 64, "two or more different packs"),
            (["--variants", "tr-TR@17,tr@1"], 64, "mixes locales"),
            (["--variants", "tr-TR@17,tr-TR@18", "--split", "60/50"], 64, "add up to at most 100%"),
            (["--variants", "tr-TR@17,tr-TR@18", "--split", "50"], 64, "1 shares for 2 variants"),
            (["--variants", "tr-TR@17,tr-TR@99"], 66, "tr-TR@99"),
            // A guardrail is a kind health judges; a metric, even an outcome kind, is not one.
            (
                ["--variants", "tr-TR@17,tr-TR@18", "--guardrail", "memory"], 64,
                "is not a guardrail: crash or fallback"
            ),
            (
                ["--variants", "tr-TR@17,tr-TR@18", "--guardrail", "crash,outcome-checkout"], 64,
                "--guardrail \"outcome-checkout\" is not a guardrail: crash or fallback"
            ),
        ]
        for (arguments, status, message) in cases {
            let result = try w.rollout(["experiment", "start", "t", "--metric", "checkout"] + arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.output)")
        }
        let badName = try w.rollout(
            "experiment", "start", "Title Test", "--variants", "tr-TR@17,tr-TR@18", "--metric", "checkout")
        XCTAssertEqual(badName.status, 64, badName.output)
        let badMetric = try w.rollout(
            "experiment", "start", "t", "--variants", "tr-TR@17,tr-TR@18", "--metric", "Check-Out")
        XCTAssertEqual(badMetric.status, 64, badMetric.output)
        XCTAssertEqual(try w.git("rev-parse", "main", repository: w.repository).stdout, tip, "nothing written")
        try ok(w, "revert", "tr-TR", "--no-block", "--reason", "make room")
        let tip2 = try w.git("rev-parse", "main", repository: w.repository).stdout
        XCTAssertNotEqual(tip2, tip)
        let range = try w.rollout(
            "experiment", "start", "t", "--variants", "tr-TR@17,tr-TR@18", "--metric", "checkout", "--app-version",
            ">=4.0")
        XCTAssertEqual(range.status, 1, range.output)
        XCTAssertTrue(range.stderr.contains("reaches below tr-TR@17's minAppVersion 4.8.0"), range.output)
        XCTAssertEqual(try w.git("rev-parse", "main", repository: w.repository).stdout, tip2, "nothing written")
    }
}
