import Foundation
import XCTest

/// The general fix of docs/reliability.md "Model-based test of whole operations": long random,
/// seeded, replayable sequences of documented commands on two or three clones of one remote,
/// publishing from any of them into one site, with some steps killed, and the invariants checked
/// after every step. The defaults are the short fixed-seed run of `make test`; scripts/model-test.sh
/// runs it long against the release binary (MODEL_SEEDS, MODEL_STEPS, MODEL_KILL_RATE).
// Processes: steps are killed (SIGKILL) at random moments, which only a process can be.
final class ModelBasedTests: XCTestCase {
    func testRandomOperationsOnClonesKeepEveryInvariant() throws {
        let knobs = ModelKnobs.fromEnvironment()
        let started = Date()
        let retract = try Self.binaryHasRetract()
        var total = ModelStats()
        if !retract { total.skippedKinds.insert("retract") }
        // Seeds are independent: MODEL_JOBS of them run at once (the long run uses one per core).
        let jobs = max(1, min(knobs.jobs, knobs.seeds.count))
        let finished = simultaneously(jobs) { job -> [(UInt64, ModelStats, String)] in
            stride(from: job, to: knobs.seeds.count, by: jobs).map { index -> (UInt64, ModelStats, String) in
                let seed = knobs.seeds[index]
                let run: ModelRun
                do {
                    run = try ModelRun(seed: seed, knobs: knobs, retractAvailable: retract)
                } catch {
                    var stats = ModelStats()
                    stats.violations = ["seed \(seed): the harness could not start: \(error)"]
                    return (seed, stats, "")
                }
                do {
                    try run.run()
                } catch {
                    run.stats.violations.append("seed \(seed): the harness stopped: \(error)")
                }
                if run.stats.violations.isEmpty {
                    try? FileManager.default.removeItem(atPath: run.root)
                    return (seed, run.stats, "")
                }
                // Keep everything, and say how to get it back.
                let report = """
                    model: VIOLATION in seed \(seed) after \(run.stats.steps) step(s); scratch kept at \(run.root)
                    model: replay with MODEL_SEEDS=\(seed) MODEL_STEPS=\(run.stats.steps) MODEL_KILL_RATE=\(knobs.killRate) \
                    swift test --disable-swift-testing --filter ModelBasedTests
                    \(run.stats.violations.joined(separator: "\n"))
                    model: the steps so far (remote \(run.remote), clones \(run.clones.joined(separator: " ")), site \(run.site)):
                    \(run.log.joined(separator: "\n"))
                    """
                return (seed, run.stats, report)
            }
        }.flatMap { $0 }.sorted { $0.0 < $1.0 }
        for (_, stats, report) in finished {
            total.merge(stats)
            if !report.isEmpty {
                print(report)
                XCTFail(report)
            }
        }
        print(total.summary)
        print(
            "model: wall time \(String(format: "%.1f", Date().timeIntervalSince(started))) s, binary \(Processes.rolloutBinary)"
        )
    }

    /// `metrics retract` is being added; a binary without it answers 64 and the kind is skipped.
    static func binaryHasRetract() throws -> Bool {
        let home = FileManager.default.temporaryDirectory.path
        let result = try Processes.run(
            Processes.rolloutBinary, ["metrics", "retract", "--help"], in: home,
            environment: Processes.baseEnvironment(home: home))
        if result.status != 0 {
            print(
                "model: rollout metrics retract is not in this binary (exit \(result.status)): the retract step is skipped"
            )
        }
        return result.status == 0
    }
}
