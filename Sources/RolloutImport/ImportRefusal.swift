import RolloutModel

/// What `rollout import` refuses, as data (`Refusal`): the command line words each case with the
/// flag that gets past it (`--max-catalog-bytes`, `--locale`, `--source-locale`...). `catalog` is the
/// name the catalog is reported by; `dependents` the locales that fall back to the source locale.
public enum ImportRefusal: Refusal {
    /// The catalog file at `path` is `bytes` long, over the `limit` it may be.
    case catalogTooLarge(path: String, bytes: Int, limit: Int)
    /// No locale asked for (`asked`) is in the catalog, which has `has` (both sorted).
    case localesMatchNone(catalog: String, asked: [String], has: [String])
    /// The catalog has no string at all (nothing left out either): likely the wrong file or format.
    case catalogHasNoStrings(catalog: String)
    /// The source locale is not in the catalog (which has `has`) and has no stored pack.
    case sourceLocaleNotInCatalog(catalog: String, source: String, has: [String], dependents: [String])
    /// The source locale is in the catalog but was not asked for, and has no stored pack.
    case sourceLocaleNotImported(catalog: String, source: String, dependents: [String])
    /// Every string of the source locale was left out, and it has no stored pack.
    case sourceLocaleLeftOut(catalog: String, source: String, dependents: [String])
    /// A locale with no stored pack needs a minAppVersion named.
    case noMinAppVersion(locale: String)

    public var kind: RolloutError.Kind {
        if case .noMinAppVersion = self { return .usage }
        return .badInput
    }
}
