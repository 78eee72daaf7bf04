// PENDING-MERGE (issue 15): stand-ins for RolloutClient API that other parts add, so that
// `rollout device` builds before their branches land. Delete each block when its branch is merged;
// nothing else in the device command changes. Each stand-in does the least that compiles.
import Foundation
import RolloutClient
import RolloutModel

// PENDING-MERGE h-launch (helper B): Options.countsLaunch, markLaunchSucceeded(), saveCounters(), launchStatus.
extension RolloutClient.Options {
    var countsLaunch: Bool {
        get { true }
        set {}
    }
}

extension RolloutClient {
    func markLaunchSucceeded() {}
    func saveCounters() -> Bool { true }

    struct LaunchStatus {
        var armed = false
        var awaitingSuccess: [PackID] = []
        var launchesSinceActivation = 0
        var failedLaunches = 0
        var launchAttempts = 2
        var previousLaunchFailed = false
        var rolledBack: [PackID] = []
        var rollbacks = 0
    }

    var launchStatus: LaunchStatus { LaunchStatus() }
}
