import RolloutModel

/// What a metrics file counts: `crash`, `fallback` or `outcome-METRIC` (docs/experiments.md).
extension MetricKind: ArgumentValue {
    package static func argument(_ text: String, flag: String) throws -> MetricKind {
        guard let kind = MetricKind(rawValue: text) else {
            throw RolloutError.usage(
                "\(flag) \"\(text)\" is not crash, fallback or outcome-METRIC (a metric name of lowercase letters, digits and _)"
            )
        }
        return kind
    }

    package static var completion: ValueCompletion { .metricKinds(orEveryOutcome: false) }
}

/// What `rollout metrics ingest --kind` reads a file as: one kind, or `outcome`, an outcome CSV as
/// each `outcome-METRIC` kind its metric column names (docs/metrics.md, "Outcome CSVs").
package enum IngestKind: ArgumentValue, Equatable {
    case one(MetricKind)
    case everyOutcome

    package static let everyOutcomeName = "outcome"

    package static func argument(_ text: String, flag: String) throws -> IngestKind {
        if text == everyOutcomeName { return .everyOutcome }
        guard let kind = MetricKind(rawValue: text) else {
            throw RolloutError.usage(
                "\(flag) \"\(text)\" is not crash, fallback, outcome (every metric of an outcome CSV) or outcome-METRIC "
                    + "(a metric name of lowercase letters, digits and _)")
        }
        return .one(kind)
    }

    package static var completion: ValueCompletion { .metricKinds(orEveryOutcome: true) }
}

/// An experiment's guardrail (`experiment start --guardrail`): a kind health judges, crash or
/// fallback (docs/experiments.md, "Guardrails"). Outcome kinds are metrics, never guardrails.
package struct Guardrail: ArgumentValue {
    package let kind: MetricKind

    package static func argument(_ text: String, flag: String) throws -> Guardrail {
        guard let kind = MetricKind(rawValue: text), MetricKind.health.contains(kind) else {
            let kinds = MetricKind.health.map(\.rawValue).joined(separator: " or ")
            throw RolloutError.usage("\(flag) \"\(text)\" is not a guardrail: \(kinds)")
        }
        return Guardrail(kind: kind)
    }

    package static var completion: ValueCompletion { .words(MetricKind.health.map(\.rawValue)) }
}
