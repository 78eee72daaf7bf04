/// The one written form of a health verdict (docs/health.md, "One form of a check"): what
/// `rollout health --json` prints and what a rollback manifest keeps as its `evidence`, versioned by
/// `format`, and the reader of both this form and the evidence written before it (format 1).
extension Health {
    /// The version of the form `Health.Report.jsonValue` writes. Format 1 (no `format` member) was
    /// the evidence of earlier rollback manifests: checks without `difference` and `upperBound`.
    public static let jsonFormat = 2

    static func number(_ value: Double?) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        return .number(JSONNumber(value))
    }
}

extension Health.Check {
    /// A check as every document renders it: counts as `[events, exposures]`, rates and bounds as
    /// fractions, `daysToDecision` null when it cannot be estimated.
    public var jsonValue: JSONValue {
        [
            "segment": .string(segment), "metric": .string(kind.rawValue),
            "candidate": [.integer(candidate.events), .integer(candidate.total)],
            "baseline": [.integer(baseline.events), .integer(baseline.total)],
            "difference": Health.number(difference), "lowerBound": Health.number(lower),
            "upperBound": Health.number(upper), "tolerance": Health.number(tolerance),
            "verdict": .string(verdict.rawValue), "daysToDecision": Health.number(daysToDecision),
        ]
    }
}

extension SampleRatio.Check {
    public var jsonValue: JSONValue {
        [
            "segment": .string(segment), "sessions": [.integer(candidate), .integer(baseline)],
            "planned": Health.number(planned), "observed": Health.number(observed),
            "verdict": .string(verdict.rawValue), "side": side.map { .string($0.rawValue) } ?? .null,
            "logEvidence": Health.number(logEvidence),
        ]
    }
}

extension Health.Standing {
    public var jsonValue: JSONValue {
        func pair(_ kind: MetricKind) -> JSONValue {
            exposures(kind).map { [.integer($0.candidate), .integer($0.baseline)] } ?? .null
        }
        return [
            "segment": .string(segment), "verdict": .string(verdict.rawValue), "held": .bool(mismatch),
            "sessions": pair(.crash), "lookups": pair(.fallback),
            "daysToDecision": Health.number(daysToDecision),
        ]
    }
}

extension Health.Report {
    /// The whole verdict of `candidate` against `baseline` in `locale`, in the versioned form.
    public func jsonValue(locale: String, candidate: PackID, baseline: PackID) -> JSONValue {
        [
            "format": .integer(Health.jsonFormat), "locale": .string(locale),
            "candidate": .string(candidate.description), "baseline": .string(baseline.description),
            "verdict": .string(verdict.rawValue), "held": .bool(!mismatches.isEmpty),
            "alphaPerCheck": Health.number(alphaPerCheck),
            "checks": .array(checks.map(\.jsonValue)),
            "segments": .array(standings.map(\.jsonValue)),
            "sampleRatios": .array(sampleRatios.map(\.jsonValue)),
        ]
    }
}

/// Evidence read back from a rollback manifest, whichever format wrote it.
public struct HealthEvidence: Equatable, Sendable {
    public struct Check: Equatable, Sendable {
        public let segment: String
        public let metric: String
        public let candidate: MetricCounts
        public let baseline: MetricCounts
        /// Format 1 did not keep it; it is computed again from the counts.
        public let difference: Double?
        public let lowerBound: Double?
        /// Not in format 1.
        public let upperBound: Double?
        public let tolerance: Double?
        public let verdict: String
    }

    public let format: Int
    public let verdict: String
    public let checks: [Check]
    /// Segments held by a sample ratio mismatch (format 2 on).
    public let held: [String]

    /// nil for `"none"` (a revert without metrics), a format newer than this build reads, or a
    /// document that is not evidence.
    public static func read(_ value: JSONValue) -> HealthEvidence? {
        guard let object = value.objectValue, let verdict = object["verdict"]?.stringValue else { return nil }
        let format = object["format"].map { $0.integerValue ?? 0 } ?? 1
        guard (1...Health.jsonFormat).contains(format), let checks = object["checks"]?.arrayValue else { return nil }
        var read: [Check] = []
        for check in checks {
            guard let check = readCheck(check) else { return nil }
            read.append(check)
        }
        let held = (object["segments"]?.arrayValue ?? []).compactMap { segment -> String? in
            guard segment.objectValue?["held"]?.boolValue == true else { return nil }
            return segment.objectValue?["segment"]?.stringValue
        }
        return HealthEvidence(format: format, verdict: verdict, checks: read, held: held)
    }

    static func readCheck(_ value: JSONValue) -> Check? {
        guard let o = value.objectValue, let segment = o["segment"]?.stringValue,
            let metric = o["metric"]?.stringValue, let verdict = o["verdict"]?.stringValue,
            let candidate = counts(o["candidate"]), let baseline = counts(o["baseline"])
        else { return nil }
        func fraction(_ name: String) -> Double? {
            if case .number(let n) = o[name] { return n.value }
            return nil
        }
        let difference =
            fraction("difference")
            ?? candidate.rate.flatMap { c in baseline.rate.map { c - $0 } }
        return Check(
            segment: segment, metric: metric, candidate: candidate, baseline: baseline, difference: difference,
            lowerBound: fraction("lowerBound"), upperBound: fraction("upperBound"), tolerance: fraction("tolerance"),
            verdict: verdict)
    }

    /// `[events, exposures]`.
    static func counts(_ value: JSONValue?) -> MetricCounts? {
        guard let pair = value?.arrayValue, pair.count == 2, let events = pair[0].integerValue,
            let total = pair[1].integerValue, events >= 0, total >= events
        else { return nil }
        return MetricCounts(total: total, events: events)
    }
}

extension HealthEvidence.Check {
    /// A check as evidence of the current format keeps it.
    public init(_ check: Health.Check) {
        self.init(
            segment: check.segment, metric: check.kind.rawValue, candidate: check.candidate,
            baseline: check.baseline, difference: check.difference, lowerBound: check.lower, upperBound: check.upper,
            tolerance: check.tolerance, verdict: check.verdict.rawValue)
    }
}
