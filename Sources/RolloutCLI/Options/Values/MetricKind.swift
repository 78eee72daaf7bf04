import RolloutModel

/// What a metrics file counts: `crash` or `fallback`.
extension MetricKind: ArgumentValue {
    package static func argument(_ text: String, flag: String) throws -> MetricKind {
        guard let kind = MetricKind(rawValue: text) else {
            throw RolloutError.usage("\(flag) \"\(text)\" is neither crash nor fallback")
        }
        return kind
    }

    package static var completion: ValueCompletion { .words(allCases.map(\.rawValue)) }
}
