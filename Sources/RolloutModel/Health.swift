import Foundation

/// Health of a staged pack against its baseline (docs/health.md): per segment and metric, an
/// anytime-valid confidence sequence on the difference of rates, so checking every hour for weeks
/// keeps its error rate, with the error budget split over every segment and metric (Bonferroni), so
/// a regression in one small segment cannot hide in the average.
public enum Health {
    public enum Verdict: String, Sendable, Comparable {
        case healthy
        case insufficientData = "insufficient-data"
        case unhealthy

        private var rank: Int { self == .healthy ? 0 : (self == .insufficientData ? 1 : 2) }
        public static func < (a: Verdict, b: Verdict) -> Bool { a.rank < b.rank }
    }

    /// One metric in one segment.
    public struct Check: Sendable {
        public let segment: String
        public let kind: MetricKind
        public let candidate: MetricCounts
        public let baseline: MetricCounts
        /// Largest increase tolerated here: max(absolute, relative x baseline rate).
        public let tolerance: Double
        /// Anytime-valid bounds on candidate rate - baseline rate (nil without enough data).
        public let lower: Double?
        public let upper: Double?
        public let verdict: Verdict
        /// Days until both arms are expected to have the gate's minimum at the current traffic: 0 when
        /// the check is judged, `.infinity` when an arm short of it had no traffic lately, nil when the
        /// traffic is not known.
        public let daysToDecision: Double?

        public var difference: Double? {
            guard let c = candidate.rate, let b = baseline.rate else { return nil }
            return c - b
        }
    }

    /// The exposures per day of each arm lately, in one segment and metric: what the time to a
    /// decision is estimated from.
    public struct Traffic: Equatable, Sendable {
        public let candidate: Double
        public let baseline: Double

        public init(candidate: Double, baseline: Double) {
            self.candidate = candidate
            self.baseline = baseline
        }
    }

    public struct Report: Sendable {
        public let verdict: Verdict
        public let checks: [Check]
        /// The error budget of each check (1 - confidence, split over the checks).
        public let alphaPerCheck: Double
        /// Per segment, the candidate's share of sessions against the plan's (docs/health.md, "Sample
        /// ratio mismatch"); empty when no plan history was given.
        public var sampleRatios: [SampleRatio.Check] = []
        /// Every region and exact app version the locale's metrics name, for any pack: the segments
        /// rollout knows of, which a widening is judged in (`Health.Report.targetedSegments(by:)`).
        public var observed: [Observed] = []
        /// The segments the plan gives the staged pack in (`targetedSegments(by:)`), listed with the
        /// measured ones even before they have data; empty when no plan was given.
        public var targeted: [String] = []

        public init(verdict: Verdict, checks: [Check], alphaPerCheck: Double) {
            self.verdict = verdict
            self.checks = checks
            self.alphaPerCheck = alphaPerCheck
        }
    }

    /// A region and exact app version some metrics row names.
    public struct Observed: Hashable, Sendable {
        public let region: String
        public let appVersion: AppVersion

        public init(region: String, appVersion: AppVersion) {
            self.region = region
            self.appVersion = appVersion
        }

        /// The segment it counts towards: region and app-version family.
        public var segment: String { "\(region)/\(appVersion.family)" }
    }

    /// Judges every segment for both metrics. A check is unhealthy when even the most favourable end
    /// of its confidence sequence is worse than the tolerance; insufficient-data when either arm has
    /// fewer samples than the gate's minimum. The overall verdict is unhealthy if any check is, healthy
    /// if every check with enough data is healthy and at least one has enough data.
    /// `traffic` (by segment label) gives each check its expected time to a decision.
    public static func evaluate(
        _ segments: [(label: String, candidate: [MetricKind: MetricCounts], baseline: [MetricKind: MetricCounts])],
        gates: GatePolicy, traffic: [String: [MetricKind: Traffic]] = [:]
    ) -> Report {
        let measured = segments.flatMap { segment in
            MetricKind.health.filter { segment.candidate[$0] != nil }.map { (segment, $0) }
        }
        let alpha = (1 - gates.confidence) / Double(max(1, measured.count))
        var checks: [Check] = []
        for (segment, kind) in measured {
            let gate = kind == .crash ? gates.crash : gates.fallback
            let candidate = segment.candidate[kind] ?? MetricCounts(total: 0, events: 0)
            let baseline = segment.baseline[kind] ?? MetricCounts(total: 0, events: 0)
            let baseRate = baseline.rate ?? 0
            let tolerance = max(gate.maxAbsoluteIncrease, gate.maxRelativeIncrease * baseRate)
            let days = daysToDecision(
                candidate: candidate, baseline: baseline, minSamples: gate.minSamples,
                traffic: traffic[segment.label]?[kind])
            guard candidate.total >= gate.minSamples, baseline.total >= gate.minSamples,
                let sequence = DifferenceSequence(
                    candidate: candidate, baseline: baseline, alpha: alpha, plannedSamples: gate.minSamples)
            else {
                checks.append(
                    Check(
                        segment: segment.label, kind: kind, candidate: candidate, baseline: baseline,
                        tolerance: tolerance, lower: nil, upper: nil, verdict: .insufficientData,
                        daysToDecision: days))
                continue
            }
            // The test at the tolerance itself decides; the bounds show what the data allow.
            let verdict: Verdict = sequence.excludes(atMost: tolerance) ? .unhealthy : .healthy
            checks.append(
                Check(
                    segment: segment.label, kind: kind, candidate: candidate, baseline: baseline, tolerance: tolerance,
                    lower: sequence.lowerBound(), upper: sequence.upperBound(), verdict: verdict, daysToDecision: 0))
        }
        let verdict: Verdict
        if checks.contains(where: { $0.verdict == .unhealthy }) {
            verdict = .unhealthy
        } else if checks.contains(where: { $0.verdict == .healthy }) {
            verdict = .healthy
        } else {
            verdict = .insufficientData
        }
        return Report(verdict: verdict, checks: checks, alphaPerCheck: alpha)
    }

    /// Days until both arms have `minSamples` at `traffic` exposures a day: 0 once they have, nil without
    /// traffic figures, `.infinity` when an arm still short had none.
    static func daysToDecision(candidate: MetricCounts, baseline: MetricCounts, minSamples: Int, traffic: Traffic?)
        -> Double?
    {
        if candidate.total >= minSamples && baseline.total >= minSamples { return 0 }
        guard let traffic else { return nil }
        func days(_ have: Int, _ perDay: Double) -> Double {
            let short = Double(max(0, minSamples - have))
            if short == 0 { return 0 }
            return perDay > 0 ? short / perDay : .infinity
        }
        return max(days(candidate.total, traffic.candidate), days(baseline.total, traffic.baseline))
    }

    /// A one-sided-per-end, time-uniform confidence sequence for p1 - p0 (the normal-mixture boundary
    /// of Waudby-Smith et al., "Time-uniform central limit theory", with the variance of each
    /// hypothesised difference evaluated at the rates that fit the counts under it:
    /// `DifferenceSequence`): valid at every sample size at once, so it may be looked at after every
    /// ingest, and not fooled by an arm with few events. `plannedSamples` tunes where it is tightest.
    /// Each end has error at most alpha.
    public static func bounds(candidate: MetricCounts, baseline: MetricCounts, alpha: Double, plannedSamples: Int) -> (
        Double, Double
    )? {
        guard
            let sequence = DifferenceSequence(
                candidate: candidate, baseline: baseline, alpha: alpha, plannedSamples: plannedSamples)
        else { return nil }
        return (sequence.lowerBound(), sequence.upperBound())
    }
}
