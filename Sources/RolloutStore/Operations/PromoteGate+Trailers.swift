import RolloutModel

extension PromoteGate.Decision {
    /// What promote records for this decision (`Rollout-Forced`, `Rollout-Accepted-Insufficient`), or
    /// the refusal that stops a promote of `pack`, dry run included, with the way out.
    public func trailers(pack: PackID) throws -> [(name: Trailer, value: String)] {
        switch self {
        case .notGated, .healthy: return []
        case .accepted(let segments): return segments.map { (.acceptedInsufficient, $0) }
        case .forced(let refusal): return [(.forced, refusal.recorded)]
        case .refused(let refusal): throw GateRefusal.refused(pack, refusal)
        }
    }
}
