import Foundation

extension Health {
    /// The confidence sequence for one check's difference of rates, candidate - baseline, with the
    /// variance evaluated under each hypothesised difference (docs/health.md, "The method").
    ///
    /// A difference `delta` is ruled out when the observed difference lies further from it than the
    /// normal-mixture boundary of Waudby-Smith et al. allows, the variance in that boundary being the
    /// one the two arms would have if the true difference were `delta`: the rates that fit the counts
    /// best among those `delta` apart (the restricted maximum likelihood estimates, as in Farrington
    /// and Manning's score test), not the observed rates. With the observed rates, an arm with few
    /// events makes its own noise look precise: one crash fewer in a small baseline both widens the
    /// difference and narrows its variance, and a boundary that holds for large counts is crossed far
    /// more often than its level (issue 31: 16 of 100 rollouts at a 99% share). Under the hypothesis,
    /// the small arm's variance comes from the large arm's rate minus `delta`, which its own noise
    /// cannot shrink. The verdict tests `delta` = the tolerance directly; the bounds shown are the
    /// differences the sequence does not rule out.
    struct DifferenceSequence {
        let events1: Double
        let trials1: Double
        let events0: Double
        let trials0: Double
        let alpha: Double
        /// The mixing parameter: the boundary is tightest near the planned number of samples.
        let rho2: Double

        init?(candidate: MetricCounts, baseline: MetricCounts, alpha: Double, plannedSamples: Int) {
            guard candidate.total > 0, baseline.total > 0, alpha > 0, alpha < 1 else { return nil }
            events1 = Double(candidate.events)
            trials1 = Double(candidate.total)
            events0 = Double(baseline.events)
            trials0 = Double(baseline.total)
            self.alpha = alpha
            let logTerm = -2 * log(alpha)
            rho2 = (logTerm + log(logTerm + 1)) / Double(max(1, plannedSamples))
        }

        /// The observed difference of rates.
        var difference: Double { events1 / trials1 - events0 / trials0 }

        /// True when the counts rule out every true difference of `delta` or less: the test behind
        /// the verdict `unhealthy`, with `delta` the tolerance.
        func excludes(atMost delta: Double) -> Bool { difference - delta > radius(delta) }

        /// The smallest difference the sequence does not rule out.
        func lowerBound() -> Double {
            root(from: difference, towards: -1) { difference - $0 - radius($0) }
        }

        /// The largest difference the sequence does not rule out.
        func upperBound() -> Double {
            root(from: difference, towards: 1) { $0 - difference - radius($0) }
        }

        /// The half-width the boundary allows at `delta`, with the variance of the difference the two
        /// arms would have at the rates `restricted(delta)`, floored so that zero events do not make
        /// it collapse.
        func radius(_ delta: Double) -> Double {
            let (p1, p0) = restricted(delta)
            let s1 = max(p1 * (1 - p1), 1 / trials1)
            let s0 = max(p0 * (1 - p0), 1 / trials0)
            let variance = s1 / trials1 + s0 / trials0
            // Intrinsic time: the effective number of samples of the difference.
            let t = (s1 + s0) / variance
            return (variance * 2 * (t * rho2 + 1) / (t * rho2) * log((t * rho2 + 1).squareRoot() / alpha)).squareRoot()
        }

        /// The candidate's and the baseline's rates that make the counts most likely among those whose
        /// difference is `delta`: the root of a cubic in closed form (Farrington and Manning 1990),
        /// clamped to rates between 0 and 1; bisection on the score when the closed form fails.
        func restricted(_ delta: Double) -> (Double, Double) {
            let low = max(0, -delta)
            let high = min(1, 1 - delta)
            let r1 = events1 / trials1
            let r0 = events0 / trials0
            let theta = trials0 / trials1
            let a = 1 + theta
            let b = -(1 + theta + r1 + theta * r0 + delta * (theta + 2))
            let c = delta * delta + delta * (2 * r1 + theta + 1) + r1 + theta * r0
            let d = -r1 * delta * (1 + delta)
            let v = b * b * b / (27 * a * a * a) - b * c / (6 * a * a) + d / (2 * a)
            let u = (v < 0 ? -1.0 : 1.0) * max(0, b * b / (9 * a * a) - c / (3 * a)).squareRoot()
            var p0: Double
            if u != 0 {
                let w = (Double.pi + acos(min(1, max(-1, v / (u * u * u))))) / 3
                p0 = 2 * u * cos(w) - b / (3 * a) - delta
            } else {
                p0 = .nan
            }
            if !p0.isFinite { p0 = bisectScore(delta, low, high) }
            p0 = min(high, max(low, p0))
            return (p0 + delta, p0)
        }

        /// The restricted estimate by bisection: the log likelihood is concave in the baseline's rate,
        /// so its derivative falls through zero once.
        func bisectScore(_ delta: Double, _ low: Double, _ high: Double) -> Double {
            var (lo, hi) = (low, high)
            for _ in 0..<200 {
                let p0 = (lo + hi) / 2
                let p1 = p0 + delta
                var score = 0.0
                if events1 > 0 { score += events1 / p1 }
                if trials1 > events1 { score -= (trials1 - events1) / (1 - p1) }
                if events0 > 0 { score += events0 / p0 }
                if trials0 > events0 { score -= (trials0 - events0) / (1 - p0) }
                if score > 0 { lo = p0 } else { hi = p0 }
            }
            return (lo + hi) / 2
        }

        /// Where `f` (negative at `start`) becomes positive going towards `end`: the bracket is widened
        /// from the plug-in radius, then narrowed by regula falsi with the Illinois step, a few
        /// evaluations where bisection would take fifty. `end` itself when `f` never turns positive.
        func root(from start: Double, towards end: Double, _ f: (Double) -> Double) -> Double {
            var inside = start
            var fInside = f(inside)
            guard fInside < 0 else { return start }
            var step = max(radius(start), 1e-12)
            var outside = start
            var fOutside = fInside
            while true {
                let next = end < start ? max(end, start - step) : min(end, start + step)
                let value = f(next)
                if value > 0 {
                    outside = next
                    fOutside = value
                    break
                }
                if next == end { return end }
                inside = next
                fInside = value
                step *= 2
            }
            var side = 0
            for _ in 0..<100 {
                if abs(outside - inside) <= 1e-14 * max(1, abs(inside)) { break }
                let middle = (inside * fOutside - outside * fInside) / (fOutside - fInside)
                let value = f(middle)
                if value > 0 {
                    outside = middle
                    fOutside = value
                    if side == 1 { fInside /= 2 }
                    side = 1
                } else {
                    inside = middle
                    fInside = value
                    if side == -1 { fOutside /= 2 }
                    side = -1
                }
            }
            return (inside + outside) / 2
        }
    }
}
