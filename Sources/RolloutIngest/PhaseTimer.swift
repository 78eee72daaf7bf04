#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Times the phases of an ingest for ROLLOUT_INGEST_PROFILE: each lap reports the wall and CPU time
/// since the last (CPU time, because a shared machine stretches wall time).
final class PhaseTimer {
    let report: ((String) -> Void)?
    var last: (wall: Double, cpu: Double)

    init(_ report: ((String) -> Void)?) {
        self.report = report
        last = PhaseTimer.now()
    }

    static func now() -> (wall: Double, cpu: Double) {
        func seconds(_ clock: clockid_t) -> Double {
            var time = timespec()
            clock_gettime(clock, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        return (seconds(CLOCK_MONOTONIC), seconds(CLOCK_PROCESS_CPUTIME_ID))
    }

    func lap(_ what: @autoclosure () -> String) {
        guard let report else { return }
        let now = PhaseTimer.now()
        report(
            "ingest profile: \(what()): \(Int((now.wall - last.wall) * 1000)) ms, cpu \(Int((now.cpu - last.cpu) * 1000)) ms"
        )
        last = now
    }
}
