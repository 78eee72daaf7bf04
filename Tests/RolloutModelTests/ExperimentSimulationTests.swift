import Foundation
import XCTest

@testable import RolloutModel

/// docs/experiments.md, "Proof by simulation": the short, fixed-seed version of the table
/// (`scripts/experiment-simulation.sh` runs the long one through `rollout experiment simulate`).
final class ExperimentSimulationTests: XCTestCase {
    let traffic = ExperimentSimulation.Traffic(exposures: 40_000, rate: 0.05)
    /// `make test`'s size and seed; `scripts/experiment-simulation.sh` sets others.
    let runs = ProcessInfo.processInfo.environment["EXPERIMENT_SIM_RUNS"].flatMap { Int($0) } ?? 120
    let seed = ProcessInfo.processInfo.environment["EXPERIMENT_SIM_SEED"].flatMap { UInt64($0) } ?? 1

    func row(_ name: String) -> ExperimentSimulation.Row {
        let scenario = ExperimentSimulation.standard.first { $0.name == name }!
        let row = ExperimentSimulation.run(scenario, traffic: traffic, runs: runs, seed: seed)
        print("experiment-simulation: \(row)")
        return row
    }

    func share(_ count: Int) -> Double { Double(count) / Double(runs) }

    func testWithNoDifferenceHourlyLooksRarelyCallOneWhilePeekingAtAZTestOftenDoes() {
        let null = row("no difference")
        XCTAssertLessThanOrEqual(share(null.winners + null.harms), 0.05, "\(null)")
        XCTAssertEqual(null.voided, 0, "\(null)")
        // The same runs, a z-test looked at every hour: the peeking problem the sequence avoids.
        XCTAssertGreaterThan(share(null.naivePeeking), 0.15, "\(null)")
        XCTAssertLessThanOrEqual(share(null.naiveFixed), 0.10, "\(null)")
    }

    func testLiftsAreFoundAndALossIsHarm() {
        let ten = row("+10% lift")
        XCTAssertGreaterThanOrEqual(share(ten.winners), 0.95, "\(ten)")
        XCTAssertLessThan(ten.medianDays ?? 99, 4, "\(ten)")
        let five = row("+5% lift")
        XCTAssertGreaterThanOrEqual(share(five.winners), 0.6, "\(five)")
        XCTAssertGreaterThan(five.medianDays ?? 0, ten.medianDays ?? 99, "a smaller lift takes longer")
        let worse = row("-5% (worse)")
        XCTAssertGreaterThanOrEqual(share(worse.harms), 0.6, "\(worse)")
        // A loss called a win is the sequence missing the lift: at most its level, at any number of runs
        // (none of `make test`'s 120; 1 of 2,000 in the long run).
        XCTAssertLessThanOrEqual(share(worse.winners), ExperimentAnalysis.alpha, "\(worse)")
    }

    func testAMismatchVoidsAndAHarmedGuardrailIsHarm() {
        let mismatch = row("mismatch: 5% of variant exposures lost")
        XCTAssertGreaterThanOrEqual(share(mismatch.voided), 0.9, "\(mismatch)")
        XCTAssertLessThanOrEqual(share(mismatch.winners), ExperimentAnalysis.alpha, "\(mismatch)")
        let crash = row("guardrail: variant crashes 1.5x")
        XCTAssertGreaterThanOrEqual(share(crash.harms), 0.9, "\(crash)")
    }
}
