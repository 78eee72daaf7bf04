import RolloutModel

/// What `rollout report` refuses, as data (`Refusal`): the command line words it with the command
/// that gets past it.
public enum ReportRefusal: Refusal {
    /// The locale has packs but nothing was ever promoted: there is no rollout to report on.
    case nothingPromoted(locale: String)

    public var kind: RolloutError.Kind { .checkFailed }
}
