import Foundation

/// Sample ratio mismatch (docs/health.md, "Sample ratio mismatch"): per segment, whether the
/// candidate's share of the sessions is the share the plan gives it. A bucketing bug in a client,
/// attribution lost on a crash or a stale manifest moves that share and biases every comparison
/// health makes, so a mismatch holds the rollout. The test is sequential (anytime-valid): it may be
/// looked at every hour for weeks and keeps its error rate, with the budget split over the segments.
public enum SampleRatio {
    /// The sessions of each arm in one day and exact app version of a segment, and the share of that
    /// cell's devices the plan gives the candidate.
    public struct Cell: Equatable, Sendable {
        public let candidate: Int
        public let baseline: Int
        /// The candidate's planned share of the cell's devices, as a fraction (0.1 = 10%).
        public let planned: Double

        public init(candidate: Int, baseline: Int, planned: Double) {
            self.candidate = candidate
            self.baseline = baseline
            self.planned = planned
        }

        /// A cell planned at 0 or 1 has nothing to test (one arm is all there is); a share outside
        /// that range or a count outside 0...MetricCounts.maximum is not a cell ingest can produce.
        var isTestable: Bool {
            planned > 0 && planned < 1 && candidate >= 0 && baseline >= 0 && candidate <= MetricCounts.maximum
                && baseline <= MetricCounts.maximum
        }
    }

    /// A segment's verdict: `mismatch` holds the rollout; `insufficient-data` does not.
    public enum Verdict: String, Sendable {
        case ok
        case mismatch
        case insufficientData = "insufficient-data"
    }

    /// Which way the candidate's share is off.
    public enum Side: String, Sendable, CaseIterable {
        case candidateHigh = "candidate-high"
        case candidateLow = "candidate-low"
    }

    /// The test of one segment, over its testable cells.
    public struct Check: Equatable, Sendable {
        public let segment: String
        /// Sessions of each arm.
        public let candidate: Int
        public let baseline: Int
        /// The candidate's planned share: the cells' planned shares weighted by their sessions (their
        /// plain mean while there are no sessions).
        public let planned: Double
        /// The candidate's share of the sessions; nil without sessions.
        public let observed: Double?
        public let verdict: Verdict
        /// The side that crossed the threshold; nil unless the verdict is `mismatch`.
        public let side: Side?
        /// The natural log of the larger side's e-value; nil with insufficient data. The segment is a
        /// mismatch when it reaches `logThreshold`.
        public let logEvidence: Double?
        /// ln(2 / alpha per segment): where either side's evidence becomes a mismatch.
        public let logThreshold: Double
    }

    /// The band of the null hypothesis: the candidate's odds (share / (1 - share)) in every cell are
    /// within this factor of the planned odds. Sessions cluster by device and the draw of devices
    /// itself varies, so a tiny deviation must not hold a rollout.
    public static let maxOddsRatio = 1.25
    /// The error budget over all segments: the chance that any segment whose cells all lie within the
    /// band is ever called a mismatch, at any number of looks.
    public static let alpha = 0.001

    /// Tests every segment with at least one testable cell (others are left out of the result and of
    /// the split). `alpha` is split evenly over those segments, then over the two sides. A segment is
    /// judged once the plan expects each arm to have `minSamples` sessions over its cells (the sum of
    /// sessions x planned share, and x 1 - planned share); gating on the observed sessions instead
    /// would never judge a candidate that receives almost nothing, the largest mismatch there is.
    public static func evaluate(
        _ segments: [(label: String, cells: [Cell])], minSamples: Int, alpha: Double = SampleRatio.alpha,
        maxOddsRatio: Double = SampleRatio.maxOddsRatio
    ) -> [Check] {
        let tested = segments.compactMap { segment -> (label: String, pools: [Pool])? in
            let pools = Pool.pooling(segment.cells)
            return pools.isEmpty ? nil : (segment.label, pools)
        }
        let logThreshold = log(2 * Double(tested.count) / alpha)
        return tested.map { segment in
            check(
                segment.label, pools: segment.pools, minSamples: minSamples, logThreshold: logThreshold,
                maxOddsRatio: maxOddsRatio)
        }
    }

    /// One segment: the counts and shares a report shows, and the verdict.
    static func check(_ label: String, pools: [Pool], minSamples: Int, logThreshold: Double, maxOddsRatio: Double)
        -> Check
    {
        var candidate = 0
        var sessions = 0
        var expectedCandidate = 0.0
        var plannedSum = 0.0
        for i in pools.indices {
            let pool = pools[i]
            candidate += pool.candidate
            sessions += pool.sessions
            expectedCandidate += Double(pool.sessions) * pool.planned
            plannedSum += pool.planned
        }
        let planned = sessions > 0 ? expectedCandidate / Double(sessions) : plannedSum / Double(pools.count)
        let observed = sessions > 0 ? Double(candidate) / Double(sessions) : nil
        func result(_ verdict: Verdict, _ side: Side?, _ logEvidence: Double?) -> Check {
            Check(
                segment: label, candidate: candidate, baseline: sessions - candidate, planned: planned,
                observed: observed, verdict: verdict, side: side, logEvidence: logEvidence, logThreshold: logThreshold)
        }
        let expectedBaseline = Double(sessions) - expectedCandidate
        guard expectedCandidate >= Double(minSamples), expectedBaseline >= Double(minSamples) else {
            return result(.insufficientData, nil, nil)
        }
        let high = logEvidence(pools, side: .candidateHigh, maxOddsRatio: maxOddsRatio)
        let low = logEvidence(pools, side: .candidateLow, maxOddsRatio: maxOddsRatio)
        let (side, strongest) = high >= low ? (Side.candidateHigh, high) : (Side.candidateLow, low)
        return strongest >= logThreshold ? result(.mismatch, side, strongest) : result(.ok, nil, strongest)
    }

    /// The cells of one planned share summed: a cell's log-likelihood ratio is linear in its counts
    /// with coefficients that depend only on the planned share, so pooling changes nothing but the
    /// work, which then grows with the number of distinct shares rather than of days.
    struct Pool: Equatable {
        let planned: Double
        var candidate: Int
        var sessions: Int

        static func pooling(_ cells: [Cell]) -> [Pool] {
            var pools: [Pool] = []
            for c in cells.indices where cells[c].isTestable {
                let cell = cells[c]
                var i = 0
                while i < pools.count && pools[i].planned != cell.planned { i += 1 }
                if i == pools.count { pools.append(Pool(planned: cell.planned, candidate: 0, sessions: 0)) }
                pools[i].candidate += cell.candidate
                pools[i].sessions += cell.candidate + cell.baseline
            }
            return pools
        }
    }

    /// How far beyond the band each alternative of the mixture lies, in log odds: the alternatives'
    /// odds ratios are maxOddsRatio x e^step (candidate-high) or their inverses (candidate-low), with
    /// equal weights. Small steps find a mismatch just outside the band, large ones find a gross one
    /// within hours.
    static let alternativeSteps = [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2]

    /// ln of one side's mixture e-value: for each alternative, the likelihood ratio of the sessions
    /// under the alternative's shares against the shares at the band's edge on that side, multiplied
    /// over the cells; then the mean over the alternatives. Where the true odds lie within the band,
    /// every session's ratio has expectation at most 1 (exactly 1 at the edge, less the farther the
    /// truth lies from the alternative), so each product, and their mean, is a nonnegative
    /// supermartingale however the planned shares change, as long as a cell's share is set before its
    /// sessions: by Ville's inequality it ever reaches 2/alpha with probability at most alpha/2.
    /// (The loops here run over indices: in a debug build, where the hourly simulations run,
    /// iterating an array's elements costs several times more.)
    static func logEvidence(_ pools: [Pool], side: Side, maxOddsRatio: Double) -> Double {
        let direction: Double = side == .candidateHigh ? 1 : -1
        let steps = alternativeSteps
        var components = [Double](repeating: 0, count: steps.count)
        for i in pools.indices {
            let pool = pools[i]
            let edge = logit(pool.planned) + direction * log(maxOddsRatio)
            let candidateAtEdge = logShare(edge)
            let baselineAtEdge = logShare(-edge)
            let candidate = Double(pool.candidate)
            let baseline = Double(pool.sessions - pool.candidate)
            for j in steps.indices {
                let alternative = edge + direction * steps[j]
                let perCandidate = logShare(alternative) - candidateAtEdge
                let perBaseline = logShare(-alternative) - baselineAtEdge
                components[j] += candidate * perCandidate + baseline * perBaseline
            }
        }
        return logMeanExp(components)
    }

    /// ln(p / (1 - p)).
    static func logit(_ p: Double) -> Double { log(p) - log1p(-p) }

    /// ln of the share whose log odds are `logOdds`: -ln(1 + e^-logOdds), without overflow. The share
    /// of the other arm is logShare(-logOdds).
    static func logShare(_ logOdds: Double) -> Double {
        logOdds < 0 ? logOdds - log1p(exp(logOdds)) : -log1p(exp(-logOdds))
    }

    /// ln of the mean of e^x over `values`, without overflow.
    static func logMeanExp(_ values: [Double]) -> Double {
        var top = -Double.infinity
        for i in values.indices where values[i] > top { top = values[i] }
        guard top > -.infinity else { return top }
        var sum = 0.0
        for i in values.indices { sum += exp(values[i] - top) }
        return top + log(sum / Double(values.count))
    }
}
