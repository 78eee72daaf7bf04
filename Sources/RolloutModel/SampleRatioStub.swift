// TEMPORARY stub until h19-srm merges.
public enum SampleRatio {
    public struct Cell: Sendable {
        public let candidate: Int
        public let baseline: Int
        public let planned: ClosedRange<Double>
        public init(candidate: Int, baseline: Int, planned: ClosedRange<Double>) {
            self.candidate = candidate
            self.baseline = baseline
            self.planned = planned
        }
    }
    public enum Verdict: String, Sendable { case ok, mismatch, insufficientData = "insufficient-data" }
    public enum Side: String, Sendable { case candidateHigh = "candidate-high", candidateLow = "candidate-low" }
    public struct Check: Sendable {
        public let segment: String
        public let candidate: Int
        public let baseline: Int
        public let planned: Double
        public let observed: Double
        public let verdict: Verdict
        public let side: Side?
        public let logEvidence: Double
    }
    public static let maxOddsRatio = 1.25
    public static let alpha = 0.001
    public static func evaluate(_ segments: [(label: String, cells: [Cell])], minSamples: Int, alpha: Double = 0.001)
        -> [Check]
    { [] }
}
