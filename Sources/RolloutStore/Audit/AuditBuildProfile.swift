import Foundation

/// Wall time per phase of bringing the index up to date: how docs/performance.md explains a cold query.
public struct BuildProfile: Sendable {
    public enum Phase: String, CaseIterable, Sendable {
        /// Reading the first-parent chain of commit ids from the tip back to what is indexed.
        case walk
        /// Reading each commit (message, author, tree) and diffing its `plans/` tree with its parent's.
        case commitsAndTrees = "commits and plans/ trees"
        /// Reading trailers, reading and parsing the plan blobs that changed.
        case plans = "trailers and plan blobs"
        /// Working out which regions each plan change altered.
        case segments = "segments altered"
        /// Making the index lines and appending them.
        case writing = "writing the index"
    }

    public var seconds: [Phase: Double] = [:]
    public var commits = 0

    public init() {}

    public var lines: [String] {
        let total = seconds.values.reduce(0, +)
        return ["log index: \(commits) commits indexed in \(String(format: "%.3f", total)) s"]
            + Phase.allCases.map { phase in
                let value = seconds[phase] ?? 0
                let percent = total > 0 ? Int((100 * value / total).rounded()) : 0
                return "  \(phase.rawValue): \(String(format: "%.3f", value)) s (\(percent)%)"
            }
    }
}

/// A monotonic stopwatch that charges the time since its last lap to a phase.
struct PhaseClock {
    private var last = PhaseClock.now()

    mutating func lap(_ phase: BuildProfile.Phase, into profile: inout BuildProfile?) {
        let now = PhaseClock.now()
        profile?.seconds[phase, default: 0] += now - last
        last = now
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
