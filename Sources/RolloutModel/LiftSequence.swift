import Foundation

/// An anytime-valid confidence sequence for the relative lift of a treatment's conversion rate over
/// its control's (docs/experiments.md, "The statistics").
///
/// Each exposed session is assigned to the treatment with probability `share` (its part of the two
/// arms' split) and converts with its arm's rate, p1 or p0. So each conversion, whichever session it
/// comes from, is the treatment's with probability
///
///     theta = share * p1 / (share * p1 + (1 - share) * p0)
///
/// independently of every other, and theta is a strictly increasing function of the ratio
/// r = p1 / p0. The sequence is the set of theta0 whose beta-binomial mixture likelihood ratio
/// (a nonnegative martingale with mean 1 when theta = theta0) is still below 1 / alpha; by Ville's
/// inequality it misses the true theta at any conversion count, after any number of looks, with
/// probability at most alpha. It needs only the two arms' conversion counts, so daily rollups
/// give the same answer as the conversions one by one. Lift is r - 1.
public enum LiftSequence {
    /// The mixture is tuned for lifts of about this size: a prior whose spread, on the log ratio,
    /// is ln(1 + tunedLift). Smaller lifts are found too, with more conversions.
    public static let tunedLift = 0.10

    /// The lift's bounds after `treatment` of `conversions` conversions were the treatment's.
    /// (-1, +infinity) before any conversion.
    public static func interval(treatment x: Int, conversions n: Int, share: Double, alpha: Double) -> (
        lower: Double, upper: Double
    ) {
        precondition(share > 0 && share < 1 && x >= 0 && x <= n && alpha > 0 && alpha < 1)
        let (low, high) = thetaInterval(treatment: x, conversions: n, null: share, alpha: alpha)
        return (lift(theta: low, share: share), lift(theta: high, share: share))
    }

    /// The relative lift a conversion share `theta` stands for.
    public static func lift(theta: Double, share: Double) -> Double {
        if theta <= 0 { return -1 }
        if theta >= 1 { return .infinity }
        return theta * (1 - share) / ((1 - theta) * share) - 1
    }

    /// The bounds on theta: where the log likelihood at theta0 falls to the log marginal likelihood
    /// plus ln(alpha).
    static func thetaInterval(treatment x: Int, conversions n: Int, null share: Double, alpha: Double) -> (
        Double, Double
    ) {
        guard n > 0 else { return (0, 1) }
        let spread = log1p(tunedLift)
        // A beta prior centred on the null, with sd = share * (1 - share) * ln(1 + tunedLift).
        let concentration = max(2, 1 / (share * (1 - share) * spread * spread) - 1)
        let a = concentration * share
        let b = concentration * (1 - share)
        let xs = Double(x)
        let ys = Double(n - x)
        let level = logBeta(a + xs, b + ys) - logBeta(a, b) + log(alpha)
        func inside(_ theta: Double) -> Bool {
            (x > 0 ? xs * log(theta) : 0) + (n > x ? ys * log1p(-theta) : 0) >= level
        }
        let peak = xs / Double(n)
        let low = x == 0 ? 0 : bisect(outside: 0, inside: peak, inside)
        let high = x == n ? 1 : bisect(outside: 1, inside: peak, inside)
        return (low, high)
    }

    /// The boundary between a point outside and one inside, to about 1e-15.
    static func bisect(outside: Double, inside: Double, _ isInside: (Double) -> Bool) -> Double {
        var out = outside
        var inn = inside
        for _ in 0..<100 {
            let mid = (out + inn) / 2
            if mid == out || mid == inn { break }
            if isInside(mid) { inn = mid } else { out = mid }
        }
        return inn
    }

    static func logBeta(_ a: Double, _ b: Double) -> Double { lgamma(a) + lgamma(b) - lgamma(a + b) }
}
