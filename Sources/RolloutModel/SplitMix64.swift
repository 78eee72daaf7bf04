import Foundation

/// SplitMix64 (Steele, Lea and Flood): a small, fast generator that gives the same numbers on every
/// platform from a seed, so a simulation (`ExperimentSimulation`) or a property test replays exactly.
/// Not for anything secret.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in (0, 1), never 0 or 1.
    public mutating func uniform() -> Double { (Double(next() >> 11) + 0.5) / 9_007_199_254_740_992 }

    /// Binomial(n, p), exactly: by the gaps between successes, each geometric (on the rarer side).
    public mutating func binomial(_ n: Int, _ p: Double) -> Int {
        if n <= 0 || p <= 0 { return 0 }
        if p >= 1 { return n }
        if p > 0.5 { return n - binomial(n, 1 - p) }
        let logQ = log1p(-p)
        var successes = 0
        var position = 0
        while true {
            position += Int(log(uniform()) / logQ) + 1
            if position > n { return successes }
            successes += 1
        }
    }
}
