import XCTest

@testable import RolloutIngest
@testable import RolloutModel

/// What guard stops an experiment for (docs/experiments.md, "When a variant harms: guard stops it"):
/// the harm verdict `experiment show` gives, and every variant it names, a guardrail's or the
/// primary metric's.
final class ExperimentHarmTests: XCTestCase {
    let started = Timestamp(iso8601: "2026-12-01T00:00:00Z")!

    func record(variants: [Int]) -> ExperimentRecord {
        let share = 10_000 / variants.count
        return ExperimentRecord(
            name: "three", locale: "tr-TR",
            variants: variants.map { Plan.PackRef(contentVersion: $0, minAppVersion: AppVersion("4.8.0")!) },
            split: variants.map { _ in Percent(basisPoints: share) }, regions: ["TR"], versions: .all,
            primary: "checkout", exploratory: [], guardrails: [.crash], days: 14, salt: "5a1t", keys: ["k"],
            started: started, startedBy: "test", reason: nil)
    }

    /// Three days of checkout counts, per content version: (exposures, conversions) a day.
    func outcomes(_ perDay: [Int: (Int, Int)]) -> [String: ExperimentAnalysis.Daily] {
        let first = Int(started.seconds / 86_400)
        var daily: ExperimentAnalysis.Daily = [:]
        for day in first..<(first + 3) {
            daily[day] = perDay.mapValues { MetricCounts(total: $0.0, events: $0.1) }
        }
        return ["checkout": daily]
    }

    func crash(crashes: Int) -> Health.Report {
        Health.evaluate(
            [
                (
                    "TR/4.8", [.crash: MetricCounts(total: 60_000, events: crashes)],
                    [.crash: MetricCounts(total: 60_000, events: 120)]
                )
            ],
            gates: .default)
    }

    func testEveryHarmfulVariantIsBlockedAGuardrailsFirst() {
        let record = record(variants: [17, 18, 19])
        let now = Timestamp(seconds: started.seconds + 3 * 86_400)
        // 18 crashes five times as often; 19 converts 30% worse; neither alone would stop the other.
        let result = ExperimentAnalysis.analyze(
            record, outcomes: outcomes([17: (20_000, 1_000), 18: (20_000, 1_000), 19: (20_000, 700)]),
            guardrails: [18: crash(crashes: 600), 19: crash(crashes: 120)], now: now)
        let harm = ExperimentHarm(record, result)
        XCTAssertEqual(harm.variants, [18, 19])
        XCTAssertEqual(harm.label, "harm on a guardrail")
        XCTAssertEqual(harm.reason?.hasPrefix("tr-TR@18 unhealthy"), true, harm.reason ?? "")
        let evidence = harm.evidence.objectValue ?? [:]
        XCTAssertEqual(evidence["verdict"]?.stringValue, "unhealthy", "the guardrail's health")
        XCTAssertEqual(
            evidence["comparisons"]?.arrayValue?.first?.objectValue?["pack"]?.stringValue, "tr-TR@19",
            "and the comparison that names 19")
    }

    func testAVoidVerdictStopsNothing() {
        let record = record(variants: [17, 18])
        let now = Timestamp(seconds: started.seconds + 3 * 86_400)
        // The variant lost a third of its exposures, and crashes too: nothing can be trusted.
        let result = ExperimentAnalysis.analyze(
            record, outcomes: outcomes([17: (30_000, 1_500), 18: (20_000, 600)]),
            guardrails: [18: crash(crashes: 600)], now: now)
        guard case .void = result.verdict else { return XCTFail("\(result.verdict)") }
        let harm = ExperimentHarm(record, result)
        XCTAssertEqual(harm.variants, [])
        XCTAssertNil(harm.reason)
    }
}
