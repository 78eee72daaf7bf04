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

    package static var completion: ValueCompletion { .words(health.map(\.rawValue)) }
}
