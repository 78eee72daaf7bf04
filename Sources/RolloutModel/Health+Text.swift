import Foundation

/// How health figures read in text, the same in `rollout health`, the report, promote's refusals
/// and guard's rows (docs/health.md).
public enum HealthText {
    /// A fraction as a percentage with three decimals (`0.187%`); `-` for none.
    public static func percent(_ value: Double?) -> String {
        value.map { String(format: "%.3f%%", $0 * 100) } ?? "-"
    }

    /// A share with one decimal (`10.0%`).
    static func share(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }

    /// A segment's sample ratio: `10.2% of 10.0% ok`, `20.1% of 10.0% MISMATCH` (over the days the
    /// mismatch shows in), or `not judged yet`.
    public static func ratio(_ check: SampleRatio.Check) -> String {
        let window = check.window
        guard let observed = window.observed, check.verdict != .insufficientData else { return "not judged yet" }
        return "\(share(observed)) of \(share(window.planned)) " + (check.verdict == .mismatch ? "MISMATCH" : "ok")
    }

    /// Why a mismatch holds the rollout, in one sentence: the shares over the days it shows in.
    public static func mismatch(_ check: SampleRatio.Check) -> String {
        let window = check.window
        let span =
            window.days == 0 ? "" : (window.days == 1 ? "on its newest day, " : "over its newest \(window.days) days, ")
        return
            "sample ratio mismatch in \(check.segment): \(span)the staged pack had \(share(window.observed ?? 0)) of the sessions (\(window.candidate) of \(window.sessions)) where the plan gave it \(share(window.planned)); every comparison there is biased until devices get the planned share (docs/health.md, \"Sample ratio mismatch\")"
    }

    /// When a verdict is expected at the current traffic: `now`, `~1 day`, `~4 days`, `no traffic`, `-`.
    public static func days(_ days: Double?, measured: Bool) -> String {
        guard measured else { return "no data" }
        guard let days else { return "-" }
        if days == 0 { return "now" }
        if !days.isFinite { return "no traffic" }
        let whole = Int(days.rounded(.up))
        return whole <= 1 ? "~1 day" : "~\(whole) days"
    }

    /// A segment's row, as `rollout health` and the report show it: segment, verdict, sessions and
    /// lookups (candidate / baseline), sample ratio, and when a decision is expected.
    public static func cells(_ standing: Health.Standing) -> [String] {
        func pair(_ kind: MetricKind) -> String {
            standing.exposures(kind).map { "\($0.candidate) / \($0.baseline)" } ?? "-"
        }
        return [
            standing.segment, standing.verdict.rawValue, pair(.crash), pair(.fallback),
            standing.sampleRatio.map(ratio) ?? "-", decision(standing),
        ]
    }

    /// A segment's `DECIDED` column.
    public static func decision(_ standing: Health.Standing) -> String {
        days(standing.daysToDecision, measured: !standing.checks.isEmpty)
    }
}
