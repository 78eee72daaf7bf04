import Foundation

/// What `rollout experiment show` decides for one experiment (docs/experiments.md, "The verdict"),
/// as a value: no repository, no clock. The reader in RolloutIngest hands it the outcome counts per
/// metric, day and pack, and each treatment's guardrail health; the simulation hands it simulated
/// ones. One function, so what the docs' simulation proves is what the command does.
public enum ExperimentAnalysis {
    /// The error budget of the primary metric's decision, split over the treatments; the exploratory
    /// metrics each get it split over the treatments and the exploratory metrics.
    public static let alpha = 0.05
    /// The sample ratio check: sessions cluster by device and devices are drawn at random, so the
    /// exposures of an arm may be off its split by a little; beyond this odds ratio they are a
    /// mismatch. Far tighter than a rollout's (SampleRatio.maxOddsRatio): a 5% loss of one arm's
    /// exposures would bias a lift by as much as the lift being looked for.
    public static let sampleRatioBand = 1.02
    /// Exposures each arm needs (by its split) before the sample ratio is judged.
    public static let sampleRatioMinimum = 1_000

    public enum Decision: String, Sendable {
        case better
        case worse
        case undecided
    }

    /// One treatment against the control on one metric, over every day so far.
    public struct Comparison: Equatable, Sendable {
        public let metric: String
        public let treatment: Int
        public let control: MetricCounts
        public let variant: MetricCounts
        /// The observed relative lift of the rate; nil while either arm has no exposure or the control
        /// no conversion.
        public let lift: Double?
        /// The confidence sequence's bounds, intersected over every day so far.
        public let lower: Double
        public let upper: Double
        public let alpha: Double
        public let exploratory: Bool

        public var decision: Decision { lower > 0 ? .better : upper < 0 ? .worse : .undecided }

        /// As `experiment show --json` lists it, and as guard's stop for a primary metric shown
        /// worse records it as the rollback's evidence.
        public func jsonValue(locale: String) -> JSONValue {
            func number(_ value: Double?) -> JSONValue {
                guard let value, value.isFinite else { return .null }
                return .number(JSONNumber(value))
            }
            return [
                "metric": .string(metric), "pack": .string("\(locale)@\(treatment)"), "exploratory": .bool(exploratory),
                "control": ["exposures": .integer(control.total), "conversions": .integer(control.events)],
                "variant": ["exposures": .integer(variant.total), "conversions": .integer(variant.events)],
                "lift": number(lift), "lower": number(lower), "upper": number(upper), "alpha": number(alpha),
                "decision": .string(decision.rawValue),
            ]
        }
    }

    /// The primary comparison of one treatment as of the end of one day: the report's chart.
    public struct Point: Equatable, Sendable {
        public let day: Int
        public let controlExposures: Int
        public let variantExposures: Int
        public let lift: Double?
        public let lower: Double
        public let upper: Double
    }

    public enum Verdict: Equatable, Sendable {
        /// The treatment (content version) converts better on the primary metric.
        case winner(Int)
        /// A treatment is worse on the primary metric, or harms a guardrail: why.
        case harm(String)
        /// The horizon passed and no treatment was shown better or worse.
        case noDifference
        /// Not decided yet: about this many more days at the traffic so far, at most the days left to
        /// the horizon (nil: no estimate: no day with counts of both arms, no conversion of the
        /// control, or no difference seen to project).
        case keepRunning(days: Int?)
        /// The exposures do not match the split: no comparison can be trusted. Why.
        case void(String)

        public var label: String {
            switch self {
            case .winner: return "winner"
            case .harm: return "harm"
            case .noDifference: return "no difference shown"
            case .keepRunning: return "keep running"
            case .void: return "void"
            }
        }
    }

    public struct Result: Sendable {
        public let comparisons: [Comparison]
        /// Per treatment (labelled by its pack), its exposures against the control's.
        public let sampleRatios: [SampleRatio.Check]
        /// Per treatment (content version), its crash and fallback health against the control.
        public let guardrails: [Int: Health.Report]
        /// Per treatment, the primary comparison day by day.
        public let timeline: [Int: [Point]]
        public let verdict: Verdict
    }

    /// Outcome counts of one metric: per day (days since 1970-01-01), per content version.
    public typealias Daily = [Int: [Int: MetricCounts]]

    /// The analysis of `record` on `outcomes` (by metric) and `guardrails` (by treatment) at `now`.
    public static func analyze(
        _ record: ExperimentRecord, outcomes: [String: Daily], guardrails: [Int: Health.Report], now: Timestamp
    ) -> Result {
        let days = record.days(until: now)
        let treatments = record.treatments.map(\.contentVersion)
        let control = record.control.contentVersion
        var comparisons: [Comparison] = []
        var timeline: [Int: [Point]] = [:]
        let primaryAlpha = alpha / Double(treatments.count)
        let exploratoryAlpha = primaryAlpha / Double(max(1, record.exploratory.count))
        for metric in record.metrics {
            let exploratory = metric != record.primary
            for (index, treatment) in treatments.enumerated() {
                let share =
                    Double(record.split[index + 1].basisPoints)
                    / Double(record.split[index + 1].basisPoints + record.split[0].basisPoints)
                let (comparison, points) = compare(
                    metric: metric, treatment: treatment, control: control, share: share,
                    daily: outcomes[metric] ?? [:], days: days,
                    alpha: exploratory ? exploratoryAlpha : primaryAlpha, exploratory: exploratory)
                comparisons.append(comparison)
                if !exploratory { timeline[treatment] = points }
            }
        }
        let ratios = sampleRatios(record, daily: outcomes[record.primary] ?? [:], days: days)
        let verdict = decide(
            record, comparisons: comparisons.filter { !$0.exploratory }, ratios: ratios, guardrails: guardrails,
            now: now)
        return Result(
            comparisons: comparisons, sampleRatios: ratios, guardrails: guardrails, timeline: timeline,
            verdict: verdict)
    }

    /// One treatment on one metric, day by day; the running intersection of the sequence's intervals.
    ///
    /// A day counts only when both arms have exposures on it (`counted`): with one arm's export
    /// missing, every conversion of the day is the other arm's whatever the lift, so the day says
    /// nothing about it, and adding it to one side would move the lift and the bounds with it. Should
    /// the intersection so far no longer hold the observed lift (the lift itself moved: a novelty
    /// effect, or a chance the level allows), the bounds start again from that day's interval, which
    /// always holds it: the bounds never exclude the lift printed beside them, nor cross. Whichever
    /// is shown, it is an intersection of the sequence's intervals, so the level holds.
    static func compare(
        metric: String, treatment: Int, control: Int, share: Double, daily: Daily, days: ClosedRange<Int>,
        alpha: Double, exploratory: Bool
    ) -> (Comparison, [Point]) {
        var c = MetricCounts.zero
        var t = MetricCounts.zero
        var lower = -1.0
        var upper = Double.infinity
        var points: [Point] = []
        for day in days {
            if let counted = counted(daily[day], treatment: treatment, control: control) {
                c = c.adding(counted.control) ?? c
                t = t.adding(counted.treatment) ?? t
            }
            // The null share of the conversions is the treatment's share of the exposures so far: the
            // test is of the rates, whatever the exposures came to (the sample ratio check judges those).
            let observed = t.total > 0 && c.total > 0 ? Double(t.total) / Double(t.total + c.total) : share
            let interval = LiftSequence.interval(
                treatment: t.events, conversions: t.events + c.events, share: observed, alpha: alpha)
            // The intersection, while it still holds the observed lift (today's interval always does).
            let narrowed = (lower: max(lower, interval.lower), upper: min(upper, interval.upper))
            let observedLift = lift(t, over: c)
            if narrowed.lower <= narrowed.upper,
                observedLift.map({ narrowed.lower <= $0 && $0 <= narrowed.upper }) ?? true
            {
                (lower, upper) = narrowed
            } else {
                (lower, upper) = interval
            }
            points.append(
                Point(
                    day: day, controlExposures: c.total, variantExposures: t.total, lift: lift(t, over: c),
                    lower: lower, upper: upper))
        }
        let comparison = Comparison(
            metric: metric, treatment: treatment, control: c, variant: t, lift: lift(t, over: c), lower: lower,
            upper: upper, alpha: alpha, exploratory: exploratory)
        return (comparison, points)
    }

    /// One day's counts of the two arms, when the day counts toward the lift: both have exposures.
    static func counted(_ day: [Int: MetricCounts]?, treatment: Int, control: Int) -> (
        treatment: MetricCounts, control: MetricCounts
    )? {
        guard let t = day?[treatment], let c = day?[control], t.total > 0, c.total > 0 else { return nil }
        return (t, c)
    }

    static func lift(_ t: MetricCounts, over c: MetricCounts) -> Double? {
        guard let rt = t.rate, let rc = c.rate, rc > 0 else { return nil }
        return rt / rc - 1
    }

    /// Each treatment's exposures against the control's, per day, by the split.
    static func sampleRatios(_ record: ExperimentRecord, daily: Daily, days: ClosedRange<Int>) -> [SampleRatio.Check] {
        let control = record.control.contentVersion
        let segments = record.treatments.enumerated().map { index, ref -> (label: String, cells: [SampleRatio.Cell]) in
            let planned =
                Double(record.split[index + 1].basisPoints)
                / Double(record.split[index + 1].basisPoints + record.split[0].basisPoints)
            let cells = days.compactMap { day -> SampleRatio.Cell? in
                guard let counts = daily[day] else { return nil }
                return SampleRatio.Cell(
                    day: day - days.lowerBound, candidate: counts[ref.contentVersion]?.total ?? 0,
                    baseline: counts[control]?.total ?? 0, planned: planned)
            }
            return (record.id(ref).description, cells)
        }
        return SampleRatio.evaluate(segments, minSamples: sampleRatioMinimum, maxOddsRatio: sampleRatioBand)
    }

    /// The verdict, in the order docs/experiments.md gives: a mismatch voids; a guardrail harmed or a
    /// primary shown worse is harm; a primary shown better wins; past the horizon nothing was shown.
    static func decide(
        _ record: ExperimentRecord, comparisons: [Comparison], ratios: [SampleRatio.Check],
        guardrails: [Int: Health.Report], now: Timestamp
    ) -> Verdict {
        if let mismatch = ratios.first(where: { $0.verdict == .mismatch }) {
            let observed = mismatch.observed.map { percent($0) } ?? "?"
            return .void(
                "sample ratio mismatch: \(mismatch.segment) has \(observed) of its and the control's exposures, "
                    + "the split gives it \(percent(mismatch.planned))")
        }
        for treatment in record.treatments.map(\.contentVersion) {
            guard let report = guardrails[treatment], report.verdict == .unhealthy else { continue }
            let worst = report.checks.first { $0.verdict == .unhealthy }
            let what = worst.map { "\($0.kind.rawValue) in \($0.segment)" } ?? "a guardrail"
            return .harm("\(record.locale)@\(treatment) harms \(what)")
        }
        if let worse = comparisons.first(where: { $0.decision == .worse }) {
            return .harm("\(record.locale)@\(worse.treatment) converts worse on \(worse.metric)")
        }
        let better = comparisons.filter { $0.decision == .better }
        if let best = better.max(by: { $0.lower < $1.lower }) { return .winner(best.treatment) }
        let days = record.days(until: now)
        // An ended experiment is judged as it stood when it ended.
        let left = record.daysLeft(at: now)
        if left <= 0 { return .noDifference }
        // No estimate without counts to project: the horizon is what is left, and the text says so.
        let projected = comparisons.compactMap { projection($0, elapsed: max(1, Double(days.count))) }.min()
        return .keepRunning(days: projected.map { Int(min($0, left).rounded(.up)) })
    }

    /// About how many more days, at the traffic so far, until the sequence excludes no lift if the
    /// observed lift is the true one; nil without one.
    static func projection(_ comparison: Comparison, elapsed: Double) -> Double? {
        guard let lift = comparison.lift, lift != 0, comparison.control.events > 0 else { return nil }
        let share = Double(comparison.variant.total) / Double(comparison.variant.total + comparison.control.total)
        guard share > 0 && share < 1 else { return nil }
        // The conversion share the observed lift stands for, at this exposure split.
        let theta = share * (1 + lift) / (share * (1 + lift) + (1 - share))
        let conversions = Double(comparison.control.events + comparison.variant.events)
        var scale = 1.0
        while scale < 1_000 {
            scale *= 1.25
            let n = Int(conversions * scale)
            let x = Int(Double(n) * theta)
            let interval = LiftSequence.interval(treatment: x, conversions: n, share: share, alpha: comparison.alpha)
            if interval.lower > 0 || interval.upper < 0 { return elapsed * (scale - 1) }
        }
        return nil
    }

    static func percent(_ fraction: Double) -> String { String(format: "%.1f%%", fraction * 100) }
}
