import RolloutModel

/// What `rollout pack import` makes of a catalog it has read (docs/import.md): the source locale,
/// which locales make a pack, each pack's minAppVersion and fallback locale, and with
/// `--skip-invalid` which strings lint leaves out.
///
/// Values in, values out: what the repository holds is handed in as `Stored`, and lint, which
/// compares with the stored packs, is asked through a closure, so every decision is reached
/// without a repository. Storing the packs is `PackOperations.add`'s job, as for `pack add`.
public enum PackImport {
    /// The options of `pack import` that decide the packs.
    public struct Request: Sendable {
        /// PATH as it was given: each pack is named "PATH (locale)" in messages.
        public var catalogName: String
        public var contentVersion: Int
        /// `--min-app-version`.
        public var minAppVersion: AppVersion?
        /// `--source-locale`.
        public var sourceLocale: String?
        /// `--locale`: only these locales (none: every locale).
        public var locales: Set<String>
        public var skipInvalid: Bool

        public init(
            catalogName: String, contentVersion: Int, minAppVersion: AppVersion? = nil, sourceLocale: String? = nil,
            locales: Set<String> = [], skipInvalid: Bool = false
        ) {
            self.catalogName = catalogName
            self.contentVersion = contentVersion
            self.minAppVersion = minAppVersion
            self.sourceLocale = sourceLocale
            self.locales = locales
            self.skipInvalid = skipInvalid
        }
    }

    /// What the repository already holds that the packs depend on.
    public struct Stored {
        /// Its bundle-only keys and its pack size limit.
        public var policy: Policy
        /// Every locale with a stored pack.
        public var locales: Set<String>
        /// The minAppVersion of the newest stored pack of a locale (nil: none). Asked only without
        /// `--min-app-version`, for each locale that makes a pack.
        public var newestMinAppVersion: (String) throws -> AppVersion?

        public init(policy: Policy, locales: Set<String>, newestMinAppVersion: @escaping (String) throws -> AppVersion?)
        {
            self.policy = policy
            self.locales = locales
            self.newestMinAppVersion = newestMinAppVersion
        }
    }

    /// One pack made, parsed as `pack add` parses a file, with the name its messages give it.
    public struct MadePack: Sendable {
        public let source: String
        public let parsed: ParsedPack
    }

    public struct Result: Sendable {
        /// The catalog as imported: only the locales asked for, without what was left out, and with
        /// every string and file left out listed (nothing is dropped silently).
        public var catalog: CatalogImport
        /// The development language: `--source-locale`, else the catalog's, else its English.
        public var sourceLocale: String
        /// One pack per locale with strings left, in locale order.
        public var packs: [MadePack]
        /// Locales left with no string: they make no pack.
        public var emptyLocales: [String]
    }

    /// The lint rules a string fails on its own, so leaving that string out is the fix
    /// (docs/pack-format.md, "Rules"). Rules about a pack against history (removed, required or
    /// protected keys) are not: leaving a string out cannot satisfy them, and they still refuse.
    public static let perStringRules: Set<String> = [
        "bad-key", "value-too-long", "control-character", "executable-content", "secret", "message-syntax",
        "placeholders",
    ]

    /// How many times `--skip-invalid` lints again after leaving strings out.
    static let lintRounds = 8

    /// The packs `catalog` makes. `lint` returns the errors lint finds in a batch of packs (as
    /// `pack add` would, against the stored packs); it is asked only with `skipInvalid`.
    /// Throws a usage error for a locale with no minAppVersion to take, and bad input when no
    /// locale has a string left.
    public static func build(
        _ catalog: CatalogImport, request: Request, stored: Stored, lint: ([MadePack]) throws -> [LintFinding]
    ) throws -> Result {
        var catalog = catalog
        // The development language: named, or the catalog's, or the English the catalog has.
        let source =
            request.sourceLocale ?? catalog.sourceLocale ?? ["en-US", "en"].first { catalog.strings[$0] != nil }
            ?? "en-US"
        if !request.locales.isEmpty {
            catalog.strings = catalog.strings.filter { request.locales.contains($0.key) }
            catalog.skipped = catalog.skipped.filter { request.locales.contains($0.locale) }
        }
        catalog.leaveOut(bundleOnly: stored.policy.bundleOnlyKeys)
        var made = try packs(catalog, source: source, request: request, stored: stored)
        if request.skipInvalid {
            // Leaving a string out can change what lint says of another locale's (the fallback
            // chain compares them): lint again until only problems of whole packs are left.
            for _ in 0..<lintRounds {
                let refused = try lint(made.packs).filter { $0.key != nil && perStringRules.contains($0.rule) }
                guard !refused.isEmpty else { break }
                for finding in refused {
                    catalog.strings[finding.pack.locale]?[finding.key!] = nil
                    catalog.skip(finding.pack.locale, finding.key!, "lint \(finding.rule): \(finding.message)")
                }
                made = try packs(catalog, source: source, request: request, stored: stored)
            }
        }
        guard !made.packs.isEmpty else {
            let examples = catalog.skipped.prefix(3).map { "\($0.locale) \($0.key): \($0.reason)" }.joined(
                separator: "; ")
            let leftOut = catalog.skipped.isEmpty ? "" : " (\(catalog.skipped.count) left out: \(examples))"
            throw RolloutError.badInput("\(request.catalogName): no locale has a string to import\(leftOut)")
        }
        return Result(catalog: catalog, sourceLocale: source, packs: made.packs, emptyLocales: made.empty)
    }

    /// One pack per locale of `catalog` that has strings left, and the locales that have none.
    static func packs(
        _ catalog: CatalogImport, source: String, request: Request, stored: Stored
    ) throws -> (packs: [MadePack], empty: [String]) {
        var packs: [MadePack] = []
        var empty: [String] = []
        // The locales that still make a pack: a regional locale falls back to its language only then.
        let imported = Set(catalog.strings.filter { !$0.value.isEmpty }.keys)
        for locale in catalog.strings.keys.sorted() {
            let strings = catalog.strings[locale]!
            if strings.isEmpty {
                empty.append(locale)
                continue
            }
            guard let minApp = try request.minAppVersion ?? stored.newestMinAppVersion(locale) else {
                throw RolloutError.usage(
                    "\(locale) has no stored pack to take minAppVersion from: give --min-app-version V (the oldest app version these strings suit)"
                )
            }
            let fallback = fallbackLocale(of: locale, source: source) {
                imported.contains($0) || stored.locales.contains($0)
            }
            let pack = Pack(
                locale: locale, contentVersion: request.contentVersion, minAppVersion: minApp, fallbackLocale: fallback,
                strings: strings)
            let name = "\(request.catalogName) (\(locale))"
            let parsed = try PackParser.parse(
                pack.storedBytes, source: name, maximumBytes: stored.policy.limits.maxPackBytes)
            packs.append(MadePack(source: name, parsed: parsed))
        }
        return (packs, empty)
    }

    /// The language of a regional locale when `known` (imported too, or stored): tr-TR -> tr; else
    /// the source locale, which itself has none.
    public static func fallbackLocale(of locale: String, source: String, known: (String) -> Bool) -> String? {
        let language = String(locale.split(separator: "-").first ?? "")
        if language != locale && known(language) { return language }
        return locale == source ? nil : source
    }
}
