import RolloutModel
import RolloutStore

/// Health of a locale's staged pack from the metrics the repository holds (docs/health.md).
public enum HealthCheck {
    /// Sums both packs per segment (region and app-version family) over the dates both have data for.
    public static func evaluate(
        locale: String, candidate: Int, baseline: Int, snapshot: Snapshot, skip: (String) -> Bool = { _ in false }
    ) throws -> Health.Report {
        var segments: [String: (candidate: [MetricKind: MetricCounts], baseline: [MetricKind: MetricCounts])] = [:]
        for kind in MetricKind.allCases {
            for rollup in try MetricsLayout.rollups(kind, locale: locale, in: snapshot) {
                var bySegment: [String: (c: MetricCounts?, b: MetricCounts?)] = [:]
                for (key, counts) in rollup.counts
                where key.contentVersion == candidate || key.contentVersion == baseline {
                    guard let version = AppVersion(key.appVersion) else { continue }
                    let label = "\(key.region)/\(version.family)"
                    var entry = bySegment[label] ?? (nil, nil)
                    let pack = "\(locale)@\(key.contentVersion)"
                    if key.contentVersion == candidate {
                        entry.c = try (entry.c ?? .zero).adding(counts, kind: kind, pack: pack)
                    } else {
                        entry.b = try (entry.b ?? .zero).adding(counts, kind: kind, pack: pack)
                    }
                    bySegment[label] = entry
                }
                // Only dates where both arms were measured in the segment: the same days, the same conditions.
                for (label, entry) in bySegment {
                    guard let c = entry.c, let b = entry.b else { continue }
                    var segment = segments[label] ?? ([:], [:])
                    segment.candidate[kind] = try (segment.candidate[kind] ?? .zero).adding(
                        c, kind: kind, pack: "\(locale)@\(candidate)")
                    segment.baseline[kind] = try (segment.baseline[kind] ?? .zero).adding(
                        b, kind: kind, pack: "\(locale)@\(baseline)")
                    segments[label] = segment
                }
            }
        }
        let ordered = segments.keys.sorted().filter { !skip($0) }.map {
            (label: $0, candidate: segments[$0]!.candidate, baseline: segments[$0]!.baseline)
        }
        return Health.evaluate(ordered, gates: try snapshot.policy().gates)
    }

    /// The health of `plan`'s staged pack, or nil when nothing is staged against a baseline. Segments
    /// a scoped revert already took the pack back from are not judged again.
    public static func evaluate(_ plan: Plan, snapshot: Snapshot) throws -> Health.Report? {
        guard let candidate = plan.candidate, let baseline = plan.baseline else { return nil }
        return try evaluate(
            locale: plan.locale, candidate: candidate.contentVersion, baseline: baseline.contentVersion,
            snapshot: snapshot
        ) { label in
            let parts = label.split(separator: "/")
            guard parts.count == 2, let family = AppVersion(String(parts[1])) else { return false }
            return plan.isWithdrawn(region: String(parts[0]), version: family)
        }
    }

    /// The newest date (days since the epoch) with metrics for `pack`, or nil.
    public static func newestDay(of pack: PackID, snapshot: Snapshot) throws -> Int? {
        var newest: Int?
        for kind in MetricKind.allCases {
            for rollup in try MetricsLayout.rollups(kind, locale: pack.locale, in: snapshot)
            where rollup.counts.keys.contains(where: { $0.contentVersion == pack.contentVersion }) {
                newest = max(newest ?? rollup.day, rollup.day)
            }
        }
        return newest
    }

    /// What a rollback manifest records as evidence: the decisive numbers and where they came from.
    public static func evidence(_ report: Health.Report, locale: String, snapshot: Snapshot) throws -> JSONValue {
        var sources: [JSONValue] = []
        for entry in try snapshot.directory(MetricsLayout.ingestsDirectory) where !entry.isTree {
            // A retracted ingest is no longer evidence.
            if let record = MetricsLayout.parseRecordName(entry.name),
                try snapshot.file(
                    MetricsLayout.retraction(record.digest, kind: record.kind, generation: record.generation)) != nil
            {
                continue
            }
            guard let o = (try? StrictJSONParser.parse(try snapshot.repository.readBlob(entry.id)))?.objectValue,
                (o["locales"]?.arrayValue ?? []).contains(.string(locale))
            else { continue }
            sources.append([
                "file": o["file"] ?? .null, "digest": o["digest"] ?? .null, "kind": o["kind"] ?? .null,
                "rows": o["rows"] ?? .null,
            ])
        }
        return [
            "verdict": .string(report.verdict.rawValue),
            "checks": .array(
                report.checks.map { check in
                    [
                        "segment": .string(check.segment), "metric": .string(check.kind.rawValue),
                        "candidate": [.integer(check.candidate.events), .integer(check.candidate.total)],
                        "baseline": [.integer(check.baseline.events), .integer(check.baseline.total)],
                        "lowerBound": check.lower.map { .number(JSONNumber($0)) } ?? .null,
                        "tolerance": .number(JSONNumber(check.tolerance)), "verdict": .string(check.verdict.rawValue),
                    ]
                }),
            "sources": .array(sources),
        ]
    }
}
