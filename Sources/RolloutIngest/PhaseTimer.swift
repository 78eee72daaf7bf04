#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Times the phases of an ingest for ROLLOUT_INGEST_PROFILE: each lap reports the time since the last.
final class PhaseTimer {
    let report: ((String) -> Void)?
    var last: Double

    init(_ report: ((String) -> Void)?) {
        self.report = report
        last = PhaseTimer.now()
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    func lap(_ what: @autoclosure () -> String) {
        guard let report else { return }
        let now = PhaseTimer.now()
        report("ingest profile: \(what()): \(Int((now - last) * 1000)) ms")
        last = now
    }
}
