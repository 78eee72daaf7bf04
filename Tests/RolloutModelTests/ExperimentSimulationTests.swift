import XCTest

@testable import RolloutModel

/// docs/experiments.md, "Proof by simulation": the short, fixed-seed version of the table
/// (`scripts/experiment-simulation.sh` runs the long one).
final class ExperimentSimulationTests: XCTestCase {
    func testPrint() {
        let traffic = ExperimentSimulation.Traffic(exposures: 40_000, rate: 0.05)
        for scenario in [
            ExperimentSimulation.Scenario(name: "null", ratio: 1),
            ExperimentSimulation.Scenario(name: "5%", ratio: 1.05),
            ExperimentSimulation.Scenario(name: "10%", ratio: 1.10),
            ExperimentSimulation.Scenario(name: "srm", ratio: 1, lostExposures: 0.05),
            ExperimentSimulation.Scenario(name: "crash", ratio: 1, crashRatio: 1.5),
        ] {
            let start = Date()
            let row = ExperimentSimulation.run(scenario, traffic: traffic, runs: 40, seed: 1)
            print(row, Date().timeIntervalSince(start))
        }
    }
}
