import Foundation

/// The simulations behind docs/experiments.md's table (`rollout experiment simulate`): experiments
/// run on simulated traffic, looked at every hour, decided by the functions `experiment show` uses
/// (`LiftSequence` at each hourly look, `ExperimentAnalysis.analyze` at each day's end for the
/// sample ratio and the guardrails). Seeded, so a table is reproducible to the digit.
public enum ExperimentSimulation {
    public struct Scenario: Sendable {
        public let name: String
        /// The treatment's conversion rate relative to the control's (1.05: a 5% lift).
        public let ratio: Double
        /// The share of the treatment's exposures a broken client loses (0: none).
        public let lostExposures: Double
        /// The treatment's crash rate relative to the control's.
        public let crashRatio: Double

        public init(name: String, ratio: Double, lostExposures: Double = 0, crashRatio: Double = 1) {
            self.name = name
            self.ratio = ratio
            self.lostExposures = lostExposures
            self.crashRatio = crashRatio
        }
    }

    public struct Traffic: Sendable {
        /// Exposed sessions a day, both arms together, split 50/50.
        public let exposures: Int
        /// The control's conversion rate.
        public let rate: Double
        /// The control's crash rate per session.
        public let crashRate: Double
        public let days: Int

        public init(exposures: Int, rate: Double, crashRate: Double = 0.004, days: Int = 14) {
            self.exposures = exposures
            self.rate = rate
            self.crashRate = crashRate
            self.days = days
        }
    }

    /// What the runs of one scenario came to.
    public struct Row: Equatable, Sendable {
        public let scenario: String
        public let runs: Int
        public let winners: Int
        public let harms: Int
        public let voided: Int
        /// Runs in which a two-proportion z-test at p < 0.05, looked at every hour, called a
        /// difference at some look (the peeking a fixed-horizon test forbids).
        public let naivePeeking: Int
        /// Runs in which the same z-test, looked at once at the horizon, called one.
        public let naiveFixed: Int
        /// The median day (from 1) a verdict other than keep running was reached, among the runs that
        /// reached one.
        public let medianDays: Double?
    }

    /// The scenarios of docs/experiments.md's table.
    public static let standard = [
        Scenario(name: "no difference", ratio: 1),
        Scenario(name: "+5% lift", ratio: 1.05),
        Scenario(name: "+10% lift", ratio: 1.10),
        Scenario(name: "-5% (worse)", ratio: 0.95),
        Scenario(name: "mismatch: 5% of variant exposures lost", ratio: 1, lostExposures: 0.05),
        Scenario(name: "guardrail: variant crashes 1.5x", ratio: 1, crashRatio: 1.5),
    ]

    public static func run(_ scenario: Scenario, traffic: Traffic, runs: Int, seed: UInt64) -> Row {
        var random = SplitMix64(seed: seed)
        var winners = 0
        var harms = 0
        var voided = 0
        var peeking = 0
        var fixed = 0
        var days: [Double] = []
        for _ in 0..<runs {
            let outcome = one(scenario, traffic: traffic, random: &random)
            switch outcome.verdict {
            case .winner: winners += 1
            case .harm: harms += 1
            case .void: voided += 1
            default: break
            }
            if let day = outcome.day { days.append(day) }
            if outcome.peeked { peeking += 1 }
            if outcome.fixed { fixed += 1 }
        }
        days.sort()
        let median = days.isEmpty ? nil : days[days.count / 2]
        return Row(
            scenario: scenario.name, runs: runs, winners: winners, harms: harms, voided: voided,
            naivePeeking: peeking, naiveFixed: fixed, medianDays: median)
    }

    struct Outcome {
        var verdict: ExperimentAnalysis.Verdict = .keepRunning(days: nil)
        var day: Double?
        var peeked = false
        var fixed = false
    }

    /// One experiment: hour by hour, the sequence and the naive test; at each day's end, the whole
    /// analysis. The first verdict other than keep running ends it, as a person acting on it would.
    static func one(_ scenario: Scenario, traffic: Traffic, random: inout SplitMix64) -> Outcome {
        let record = simulatedRecord(days: traffic.days)
        let hourly = traffic.exposures / 24
        var outcome = Outcome()
        var outcomes: ExperimentAnalysis.Daily = [:]
        var crashes: [Int: MetricCounts] = [:]
        var totals = (control: MetricCounts.zero, treatment: MetricCounts.zero)
        var bounds = (lower: -1.0, upper: Double.infinity)
        var decided = false
        let alpha = ExperimentAnalysis.alpha
        for hour in 0..<(traffic.days * 24) {
            let day = hour / 24
            let treated = random.binomial(hourly, 0.5)
            let seen = treated - random.binomial(treated, scenario.lostExposures)
            let control = hourly - treated
            let converted = (
                control: random.binomial(control, traffic.rate),
                treatment: random.binomial(seen, min(1, traffic.rate * scenario.ratio))
            )
            let add = { (counts: MetricCounts, exposures: Int, events: Int) in
                MetricCounts(total: counts.total + exposures, events: counts.events + events)
            }
            totals.control = add(totals.control, control, converted.control)
            totals.treatment = add(totals.treatment, seen, converted.treatment)
            outcomes[day, default: [:]][17] = add(outcomes[day]?[17] ?? .zero, control, converted.control)
            outcomes[day, default: [:]][18] = add(outcomes[day]?[18] ?? .zero, seen, converted.treatment)
            crashes[17] = add(crashes[17] ?? .zero, control, random.binomial(control, traffic.crashRate))
            crashes[18] = add(
                crashes[18] ?? .zero, seen, random.binomial(seen, min(1, traffic.crashRate * scenario.crashRatio)))
            // The naive test runs to the horizon, whatever the sequence decided.
            let z = zTest(totals.treatment, totals.control)
            if z { outcome.peeked = true }
            if hour == traffic.days * 24 - 1 { outcome.fixed = z }
            guard !decided, totals.treatment.total > 0, totals.control.total > 0 else { continue }
            let interval = LiftSequence.interval(
                treatment: totals.treatment.events, conversions: totals.treatment.events + totals.control.events,
                share: Double(totals.treatment.total) / Double(totals.treatment.total + totals.control.total),
                alpha: alpha)
            bounds = (max(bounds.lower, interval.lower), min(bounds.upper, interval.upper))
            let hourDecided = bounds.lower > 0 || bounds.upper < 0
            guard hour % 24 == 23 || hourDecided else { continue }
            let now = Timestamp(seconds: record.started.seconds + Int64(hour + 1) * 3_600)
            let guardrail = Health.evaluate(
                [("\(Region.any)/*", [.crash: crashes[18] ?? .zero], [.crash: crashes[17] ?? .zero])],
                gates: .default)
            let result = ExperimentAnalysis.analyze(
                record, outcomes: [record.primary: outcomes], guardrails: [18: guardrail], now: now)
            if case .keepRunning = result.verdict { continue }
            decided = true
            if case .noDifference = result.verdict { continue }
            outcome.verdict = result.verdict
            outcome.day = Double(hour + 1) / 24
        }
        return outcome
    }

    /// A 50/50 experiment of tr-TR@18 against tr-TR@17 started at midnight of day 0 (1970-01-01).
    static func simulatedRecord(days: Int) -> ExperimentRecord {
        let ref = { Plan.PackRef(contentVersion: $0, minAppVersion: AppVersion("1.0.0")!) }
        return ExperimentRecord(
            name: "simulated", locale: "tr-TR", variants: [ref(17), ref(18)],
            split: [Percent(basisPoints: 5_000), Percent(basisPoints: 5_000)], regions: [], versions: .all,
            primary: "conversion", exploratory: [], guardrails: [.crash], days: days, salt: "simulated", keys: [],
            started: Timestamp(seconds: 0), startedBy: "simulation", reason: nil)
    }

    /// A two-sided two-proportion z-test at p < 0.05: what a fixed-horizon calculator does.
    static func zTest(_ t: MetricCounts, _ c: MetricCounts) -> Bool {
        guard t.total > 0, c.total > 0 else { return false }
        let pooled = Double(t.events + c.events) / Double(t.total + c.total)
        let se = (pooled * (1 - pooled) * (1 / Double(t.total) + 1 / Double(c.total))).squareRoot()
        guard se > 0 else { return false }
        return abs(Double(t.events) / Double(t.total) - Double(c.events) / Double(c.total)) / se > 1.959_963_985
    }
}
