import RolloutIngest
import RolloutModel
import RolloutStore

enum HealthCommand {
    static let spec = CommandSpec(
        path: ["health"], usage: "health LOCALE",
        summary: "healthy, unhealthy or insufficient-data: the staged pack against its baseline, per segment and metric",
        discussion: """
            Compares the staged pack's crash and fallback rates with the baseline's, in each segment
            (region and app-version family) over the dates where both have data, with an anytime-valid
            confidence sequence (safe to check every hour) and the confidence of policy gates split over
            every segment and metric. Unhealthy when a rate is credibly worse than the gate's tolerance
            (exit 1); insufficient-data when no segment has the gate's minimum samples in both arms.
            See docs/health.md.
            """,
        options: [], arguments: .exactly("LOCALE"),
        run: { invocation, context in
            let locale = try PlanCommands.parseLocale(invocation.positionals[0])
            let snapshot = try context.repository(invocation).snapshot()
            guard let plan = try snapshot.plan(locale), let candidate = plan.candidate, let baseline = plan.baseline else {
                throw RolloutError.missing("\(locale) has nothing staged against a baseline: health compares a staged pack with its baseline")
            }
            let report = try evaluate(locale: locale, candidate: candidate.contentVersion, baseline: baseline.contentVersion, snapshot: snapshot)
            var table = Table("SEGMENT", "METRIC", "CANDIDATE", "BASELINE", "DIFFERENCE", "BOUND", "TOLERANCE", "VERDICT")
            func pct(_ v: Double?) -> String { v.map { String(format: "%.3f%%", $0 * 100) } ?? "-" }
            for check in report.checks {
                table.add(check.segment, check.kind.rawValue,
                          "\(check.candidate.events)/\(check.candidate.total) \(pct(check.candidate.rate))",
                          "\(check.baseline.events)/\(check.baseline.total) \(pct(check.baseline.rate))",
                          pct(check.difference), check.lower.map { ">= " + pct($0) } ?? "-", pct(check.tolerance), check.verdict.rawValue)
            }
            let style = context.style(invocation)
            var text = "\(locale)@\(candidate.contentVersion) against \(locale)@\(baseline.contentVersion): \(report.verdict.rawValue)\n"
            text += report.checks.isEmpty ? "No metrics for the staged pack yet; ingest some with rollout metrics ingest.\n" : table.render(style)
            let json: JSONValue = [
                "locale": .string(locale), "candidate": .string("\(locale)@\(candidate.contentVersion)"),
                "baseline": .string("\(locale)@\(baseline.contentVersion)"), "verdict": .string(report.verdict.rawValue),
                "alphaPerCheck": .number(JSONNumber(report.alphaPerCheck)),
                "checks": .array(report.checks.map { check in
                    [
                        "segment": .string(check.segment), "metric": .string(check.kind.rawValue),
                        "candidate": [.integer(check.candidate.events), .integer(check.candidate.total)],
                        "baseline": [.integer(check.baseline.events), .integer(check.baseline.total)],
                        "difference": check.difference.map { .number(JSONNumber($0)) } ?? .null,
                        "lowerBound": check.lower.map { .number(JSONNumber($0)) } ?? .null,
                        "upperBound": check.upper.map { .number(JSONNumber($0)) } ?? .null,
                        "tolerance": .number(JSONNumber(check.tolerance)), "verdict": .string(check.verdict.rawValue),
                    ]
                }),
            ]
            return CommandOutput(json: json, text: text, exitCode: report.verdict == .unhealthy ? 1 : 0)
        })

    /// Sums both packs per segment (region and app-version family) over the dates both have data for.
    static func evaluate(locale: String, candidate: Int, baseline: Int, snapshot: Snapshot) throws -> Health.Report {
        var segments: [String: (candidate: [MetricKind: MetricCounts], baseline: [MetricKind: MetricCounts])] = [:]
        for kind in MetricKind.allCases {
            for rollup in try MetricsLayout.rollups(kind, locale: locale, in: snapshot) {
                var bySegment: [String: (c: MetricCounts?, b: MetricCounts?)] = [:]
                for (key, counts) in rollup.counts where key.contentVersion == candidate || key.contentVersion == baseline {
                    guard let version = AppVersion(key.appVersion) else { continue }
                    let label = "\(key.region)/" + version.components.prefix(2).map(String.init).joined(separator: ".")
                    var entry = bySegment[label] ?? (nil, nil)
                    if key.contentVersion == candidate {
                        entry.c = (entry.c ?? MetricCounts(total: 0, events: 0)).adding(counts)
                    } else {
                        entry.b = (entry.b ?? MetricCounts(total: 0, events: 0)).adding(counts)
                    }
                    bySegment[label] = entry
                }
                // Only dates where both arms were measured in the segment: the same days, the same conditions.
                for (label, entry) in bySegment {
                    guard let c = entry.c, let b = entry.b else { continue }
                    var segment = segments[label] ?? ([:], [:])
                    segment.candidate[kind] = (segment.candidate[kind] ?? MetricCounts(total: 0, events: 0)).adding(c)
                    segment.baseline[kind] = (segment.baseline[kind] ?? MetricCounts(total: 0, events: 0)).adding(b)
                    segments[label] = segment
                }
            }
        }
        let ordered = segments.keys.sorted().map { (label: $0, candidate: segments[$0]!.candidate, baseline: segments[$0]!.baseline) }
        return Health.evaluate(ordered, gates: try snapshot.policy().gates)
    }
}
