import Foundation

/// Sample ratio mismatch (docs/health.md, "Sample ratio mismatch"): per segment, whether the
/// candidate's share of the sessions is the share the plan gives it. A bucketing bug in a client,
/// attribution lost on a crash or a stale manifest moves that share and biases every comparison
/// health makes, so a mismatch holds the rollout. The test is sequential (anytime-valid): it may be
/// looked at every hour for weeks and keeps its error rate, with the budget split over the segments;
/// and its evidence may start afresh on any day, so a mismatch that begins late is found within hours.
public enum SampleRatio {
    /// The sessions of each arm in one day and exact app version of a segment, and the share of that
    /// cell's devices the plan gives the candidate.
    public struct Cell: Equatable, Sendable {
        /// The cell's date as days since a fixed origin, the same at every look (the first day the
        /// candidate was staged, say); days before it count as day 0. The evidence may start afresh
        /// on any day (see `logEvidence`), so a mismatch that begins late is found as fast as one
        /// that begins with the rollout.
        public let day: Int
        public let candidate: Int
        public let baseline: Int
        /// The candidate's planned share of the cell's devices, as a fraction (0.1 = 10%): the lowest
        /// and the highest it may be. They differ on a day the plan changed, when devices move to the
        /// new share over hours: any share between is then within the plan. The candidate-high side
        /// is tested against `high`, the candidate-low side against `low`.
        public let low: Double
        public let high: Double
        /// What a report shows as planned: the share in force at the end of the day.
        public let planned: Double

        public init(day: Int, candidate: Int, baseline: Int, planned: Double) {
            self.init(
                day: day, candidate: candidate, baseline: baseline, planned: planned, between: planned, and: planned)
        }

        /// A cell whose planned share was anything from `low` to `high` (in either order), `planned` at
        /// the end of its day (the middle of the range when not given).
        public init(
            day: Int, candidate: Int, baseline: Int, planned: Double? = nil, between low: Double, and high: Double
        ) {
            self.day = day
            self.candidate = candidate
            self.baseline = baseline
            self.low = min(low, high)
            self.high = max(low, high)
            self.planned = planned ?? (low + high) / 2
        }

        /// A side planned at 0 or 1 has nothing to test (one arm is all there is); a cell is testable
        /// when a side is. A share outside that range or a count outside 0...MetricCounts.maximum is
        /// not a cell ingest can produce.
        var isTestable: Bool {
            (Self.testable(low) || Self.testable(high)) && candidate >= 0 && baseline >= 0
                && candidate <= MetricCounts.maximum && baseline <= MetricCounts.maximum
        }

        static func testable(_ share: Double) -> Bool { share > 0 && share < 1 }
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
        /// For a mismatch, the days its evidence is strongest over (from the start day that weighs most
        /// in the larger side's e-value to the newest day), and the sessions, observed and planned share
        /// there: a mismatch that began late reads as what it is, not diluted by the weeks before it.
        /// The whole segment otherwise.
        public var recent: Window? = nil

        /// The days a mismatch shows in, counted back from the newest day with sessions.
        public var window: Window {
            recent ?? Window(days: 0, candidate: candidate, sessions: candidate + baseline, planned: planned)
        }
    }

    /// Sessions over the newest `days` days of a segment (0: all of them).
    public struct Window: Equatable, Sendable {
        public let days: Int
        public let candidate: Int
        public let sessions: Int
        /// The planned share over those days, weighted by their sessions.
        public let planned: Double
        public var observed: Double? { sessions > 0 ? Double(candidate) / Double(sessions) : nil }
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
        // Segments mostly share their planned shares: each share's ratios are computed once.
        var high = Ratios(side: .candidateHigh, maxOddsRatio: maxOddsRatio)
        var low = Ratios(side: .candidateLow, maxOddsRatio: maxOddsRatio)
        var checks: [Check] = []
        for segment in tested {
            checks.append(
                check(
                    segment.label, pools: segment.pools, minSamples: minSamples, logThreshold: logThreshold,
                    high: &high, low: &low))
        }
        return checks
    }

    /// One segment: the counts and shares a report shows, and the verdict.
    static func check(
        _ label: String, pools: [Pool], minSamples: Int, logThreshold: Double,
        high highRatios: inout Ratios, low lowRatios: inout Ratios
    ) -> Check {
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
        let high = evidenceTerms(pools, ratios: &highRatios)
        let low = evidenceTerms(pools, ratios: &lowRatios)
        let (side, strongest, terms) =
            logSumExp(high) >= logSumExp(low)
            ? (Side.candidateHigh, logSumExp(high), high) : (Side.candidateLow, logSumExp(low), low)
        guard strongest >= logThreshold else { return result(.ok, nil, strongest) }
        var held = result(.mismatch, side, strongest)
        held.recent = window(pools, strongestStart: terms)
        return held
    }

    /// The sessions from the pool whose start day weighs most in `terms` (as `evidenceTerms` lays them
    /// out: per pool index, one term per alternative) to the newest.
    static func window(_ pools: [Pool], strongestStart terms: [Double]) -> Window {
        let count = alternativeSteps.count
        var best = 0
        for i in terms.indices.dropLast() where terms[i] > terms[best] { best = i }
        let first = min(best / count, pools.count - 1)
        var candidate = 0
        var sessions = 0
        var expected = 0.0
        for i in first..<pools.count {
            candidate += pools[i].candidate
            sessions += pools[i].sessions
            expected += Double(pools[i].sessions) * pools[i].planned
        }
        let days = (pools.last?.day ?? 0) - pools[first].day + 1
        return Window(
            days: days, candidate: candidate, sessions: sessions,
            planned: sessions > 0 ? expected / Double(sessions) : pools[first].planned)
    }

    /// The cells of one day and planned share summed (the exact app versions of a day, say): a cell's
    /// log-likelihood ratio is linear in its counts with coefficients that depend only on the planned
    /// share, so summing them changes nothing but the work. Sorted by day.
    struct Pool: Equatable {
        let day: Int
        let low: Double
        let high: Double
        let planned: Double
        var candidate: Int
        var sessions: Int

        static func pooling(_ cells: [Cell]) -> [Pool] {
            var pools: [Pool] = []
            var inOrder = true
            for c in cells.indices where cells[c].isTestable {
                let cell = cells[c]
                let day = max(0, cell.day)
                // Cells mostly come by date: the pool is most likely the last one.
                var i = pools.count - 1
                while i >= 0
                    && (pools[i].day != day || pools[i].low != cell.low || pools[i].high != cell.high
                        || pools[i].planned != cell.planned)
                {
                    i -= 1
                }
                if i < 0 {
                    inOrder = inOrder && (pools.last?.day ?? 0) <= day
                    pools.append(
                        Pool(day: day, low: cell.low, high: cell.high, planned: cell.planned, candidate: 0, sessions: 0)
                    )
                    i = pools.count - 1
                }
                pools[i].candidate += cell.candidate
                pools[i].sessions += cell.candidate + cell.baseline
            }
            return inOrder ? pools : pools.sorted { $0.day < $1.day }
        }
    }

    /// How far beyond the band each alternative of the mixture lies, in log odds: the alternatives'
    /// odds ratios are maxOddsRatio x e^step (candidate-high) or their inverses (candidate-low), with
    /// equal weights. Small steps find a mismatch just outside the band, large ones find a gross one
    /// within hours.
    static let alternativeSteps = [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2]

    /// What one session adds to the log e-value of each alternative, for each planned share met: the
    /// log-likelihood ratio of the alternative's share against the share at the band's edge, for a
    /// candidate session and for a baseline session. Kept flat, one share after another.
    struct Ratios {
        let side: Side
        let maxOddsRatio: Double
        private(set) var shares: [Double] = []
        private(set) var candidate: [Double] = []
        private(set) var baseline: [Double] = []

        init(side: Side, maxOddsRatio: Double) {
            self.side = side
            self.maxOddsRatio = maxOddsRatio
        }

        /// Where the ratios of `planned` start in `candidate` and `baseline`, computed on first use.
        mutating func offset(of planned: Double) -> Int {
            let steps = alternativeSteps
            for s in shares.indices where shares[s] == planned { return s * steps.count }
            let direction: Double = side == .candidateHigh ? 1 : -1
            let edge = logit(planned) + direction * log(maxOddsRatio)
            for j in steps.indices {
                let alternative = edge + direction * steps[j]
                candidate.append(logShare(alternative) - logShare(edge))
                baseline.append(logShare(-alternative) - logShare(-edge))
            }
            shares.append(planned)
            return (shares.count - 1) * steps.count
        }
    }

    /// ln of one side's e-value, a mixture over the alternatives and over the day the evidence starts.
    /// For an alternative and a start day, the likelihood ratio of the sessions from that day on under
    /// the alternative's shares against the shares at the band's edge on that side, multiplied over
    /// the cells (1 before the start day). Alternatives weigh equally; start day d weighs
    /// 1 / ((d + 1)(d + 2)), so the weights sum to 1 and a start on day 7 costs ln 72 = 4.3 in log
    /// evidence. Without the later starts, a mismatch that begins after a week of correct traffic
    /// first has to undo the week's evidence against it, which takes days.
    ///
    /// Where the true odds lie within the band, every session's ratio has expectation at most 1
    /// (exactly 1 at the edge, less the farther the truth lies from the alternative), so each product,
    /// and their weighted mean, is a nonnegative supermartingale starting at 1, however the planned
    /// shares change, as long as a cell's share is set before its sessions: by Ville's inequality it
    /// ever reaches 2/alpha with probability at most alpha/2. (The loops here run over indices: in a
    /// debug build, where the hourly simulations run, iterating an array's elements costs several
    /// times more.)
    static func logEvidence(_ pools: [Pool], ratios: inout Ratios) -> Double {
        logSumExp(evidenceTerms(pools, ratios: &ratios))
    }

    /// The terms `logEvidence` sums: for each pool index i and alternative j, at i x count + j, the log
    /// weighted ratio of the starts that first see pool i; the last, the starts after every pool.
    static func evidenceTerms(_ pools: [Pool], ratios: inout Ratios) -> [Double] {
        guard let last = pools.last else { return [0] }
        let count = alternativeSteps.count
        // Per alternative, the log ratio of every session from the current start day on.
        var fromDay = [Double](repeating: 0, count: count)
        // The log of each start day's and alternative's weighted ratio; the last: the starts after the
        // last day with sessions, which have seen nothing yet (ratio 1), with their weight, the sum of
        // 1 / ((d + 1)(d + 2)) over d > last.day.
        var terms = [Double](repeating: -.infinity, count: count * pools.count + 1)
        terms[terms.count - 1] = -log(Double(last.day) + 2)
        var i = pools.count - 1
        while i >= 0 {
            let day = pools[i].day
            while i >= 0 && pools[i].day == day {
                let share = ratios.side == .candidateHigh ? pools[i].high : pools[i].low
                // A side planned at 0 or 1 learns nothing from the cell: its ratio is 1.
                guard Cell.testable(share) else {
                    i -= 1
                    continue
                }
                let offset = ratios.offset(of: share)
                let candidate = Double(pools[i].candidate)
                let baseline = Double(pools[i].sessions - pools[i].candidate)
                for j in 0..<count {
                    fromDay[j] += candidate * ratios.candidate[offset + j] + baseline * ratios.baseline[offset + j]
                }
                i -= 1
            }
            // Every start after the previous day with sessions, up to this day, sees the same sessions.
            let logWeight = logStartWeight(after: i >= 0 ? pools[i].day : -1, upTo: day) - log(Double(count))
            for j in 0..<count { terms[(i + 1) * count + j] = logWeight + fromDay[j] }
        }
        return terms
    }

    /// ln of the weight of the start days after `earlier` up to `day`: the sum of 1 / ((d + 1)(d + 2))
    /// over those days is 1 / (earlier + 2) - 1 / (day + 2).
    static func logStartWeight(after earlier: Int, upTo day: Int) -> Double {
        let (earlier, day) = (Double(earlier), Double(day))
        return log((day - earlier) / (earlier + 2) / (day + 2))
    }

    /// ln(p / (1 - p)).
    static func logit(_ p: Double) -> Double { log(p) - log1p(-p) }

    /// ln of the share whose log odds are `logOdds`: -ln(1 + e^-logOdds), without overflow. The share
    /// of the other arm is logShare(-logOdds).
    static func logShare(_ logOdds: Double) -> Double {
        logOdds < 0 ? logOdds - log1p(exp(logOdds)) : -log1p(exp(-logOdds))
    }

    /// ln of the sum of e^x over `values`, without overflow. Values more than 50 below the largest
    /// change the sum by less than one part in 10^21 and are skipped.
    static func logSumExp(_ values: [Double]) -> Double {
        var top = -Double.infinity
        for i in values.indices where values[i] > top { top = values[i] }
        guard top > -.infinity else { return top }
        var sum = 0.0
        for i in values.indices where values[i] > top - 50 { sum += exp(values[i] - top) }
        return top + log(sum)
    }
}
