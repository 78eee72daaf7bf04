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

    /// A refusal of the whole catalog: the error a person reads, and the catalog as far as it was
    /// read, so that what was left out is listed even then (docs/import.md, "All or nothing").
    public struct Refusal: Error {
        /// A `RolloutError`, or an `ImportRefusal` the command line words.
        public let error: any Error
        /// Only the locales asked for, with every string and file left out so far, in listing order.
        public let catalog: CatalogImport
    }

    /// The lint rules a string fails on its own, so leaving that string out is the fix
    /// (docs/pack-format.md, "Rules"). Rules about a pack against history (removed, required or
    /// protected keys) are not: leaving a string out cannot satisfy them, and they still refuse.
    public static let perStringRules: Set<String> = [
        "bad-key", "value-too-long", "control-character", "executable-content", "secret", "message-syntax",
        "placeholders",
    ]

    /// The per-string rules that judge a string against another locale's: placeholder parity
    /// compares a key with the first locale down its fallback chain that has it.
    public static let comparedRules: Set<String> = ["placeholders"]

    /// How many times `--skip-invalid` lints again after leaving strings out.
    public static let lintRounds = 8

    /// The packs `catalog` makes. `lint` returns the errors lint finds in a batch of packs (as
    /// `pack add` would, against the stored packs); it is asked only with `skipInvalid`.
    /// Throws `Refusal`: a usage error for a locale with no minAppVersion to take, bad input when no
    /// locale has a string left or when packs would fall back to a source locale with no pack.
    public static func build(
        _ catalog: CatalogImport, request: Request, stored: Stored, lint: ([MadePack]) throws -> [LintFinding]
    ) throws -> Result {
        var catalog = catalog
        // The development language: named, or the catalog's, or the English the catalog has.
        let source =
            request.sourceLocale ?? catalog.sourceLocale ?? ["en-US", "en"].first { catalog.strings[$0] != nil }
            ?? "en-US"
        let read = Set(catalog.strings.keys)
        if !request.locales.isEmpty {
            catalog.strings = catalog.strings.filter { request.locales.contains($0.key) }
            catalog.skipped = catalog.skipped.filter { request.locales.contains($0.locale) }
        }
        catalog.leaveOut(bundleOnly: stored.policy.bundleOnlyKeys)
        do {
            var made = try packs(catalog, source: source, request: request, stored: stored)
            if request.skipInvalid {
                made = try leaveOutRefused(&catalog, made, source: source, request: request, stored: stored, lint: lint)
            }
            guard !made.packs.isEmpty else { throw nothingToImport(catalog, read: read, request: request) }
            try checkSourceHasPack(made.packs, catalog, read: read, source: source, request: request, stored: stored)
            return Result(catalog: sorted(catalog), sourceLocale: source, packs: made.packs, emptyLocales: made.empty)
        } catch let error as RolloutError {
            throw Refusal(error: error, catalog: sorted(catalog))
        } catch let refusal as ImportRefusal {
            throw Refusal(error: refusal, catalog: sorted(catalog))
        }
    }

    /// `--skip-invalid`: leaves out each string lint refuses on its own, and lints again, since
    /// leaving a string out changes what another locale's is compared with; until only problems of
    /// whole packs are left, or `lintRounds` rounds.
    static func leaveOutRefused(
        _ catalog: inout CatalogImport, _ made: (packs: [MadePack], empty: [String]), source: String,
        request: Request, stored: Stored, lint: ([MadePack]) throws -> [LintFinding]
    ) throws -> (packs: [MadePack], empty: [String]) {
        var made = made
        for _ in 0..<lintRounds {
            let refused = try lint(made.packs).filter { $0.key != nil && perStringRules.contains($0.rule) }
            let now = judgedAgainstKept(refused, packs: made.packs, defaultLocale: stored.policy.defaultLocale)
            guard !now.isEmpty else { break }
            for finding in now {
                catalog.strings[finding.pack.locale]?[finding.key!] = nil
                catalog.skip(finding.pack.locale, finding.key!, "lint \(finding.rule): \(finding.message)")
            }
            made = try packs(catalog, source: source, request: request, stored: stored)
        }
        return made
    }

    /// The findings of one round to act on: every string refused on its own, and a string refused
    /// against another locale's only when that string is kept. A pt-BR string compared with a pt
    /// string that is itself refused this round waits: once pt's is left out, the next round
    /// compares it with what is kept further down the chain (the source's), and judges it again.
    static func judgedAgainstKept(_ refused: [LintFinding], packs: [MadePack], defaultLocale: String) -> [LintFinding] {
        var refusedLocales: [String: Set<String>] = [:]
        for finding in refused { refusedLocales[finding.key!, default: []].insert(finding.pack.locale) }
        let catalog = MemoryCatalog(packs.map(\.parsed.pack))
        let now = refused.filter { finding in
            let key = finding.key!
            let locale = finding.pack.locale
            guard comparedRules.contains(finding.rule), refusedLocales[key]!.count > 1 else { return true }
            let chain =
                (try? FallbackChain.locales(for: locale, defaultLocale: defaultLocale, catalog: catalog)) ?? []
            // What lint compared it with: the first locale down the chain whose pack has the key.
            let reference = chain.first { other in
                other != locale && (try? catalog.newestPack(of: other))?.strings[key] != nil
            }
            return reference.map { !refusedLocales[key]!.contains($0) } ?? true
        }
        // Each chain has a first refused string, so a round with findings always acts on one.
        return now.isEmpty ? refused : now
    }

    /// No pack: because `--locale` matched no locale, because every string was left out, or because
    /// the catalog has none. The first line says which, and what gets past it.
    static func nothingToImport(_ catalog: CatalogImport, read: Set<String>, request: Request) -> any Error {
        let name = request.catalogName
        if !request.locales.isEmpty, catalog.strings.isEmpty {
            return ImportRefusal.localesMatchNone(catalog: name, asked: request.locales.sorted(), has: read.sorted())
        }
        guard !catalog.skipped.isEmpty else { return ImportRefusal.catalogHasNoStrings(catalog: name) }
        let examples = sorted(catalog).skipped.prefix(3).map { "\($0.locale) \($0.key): \($0.reason)" }
        return RolloutError.badInput(
            "\(name): no locale has a string to import: all \(catalog.skipped.count) were left out, each for its reason (fix those in the catalog; \(examples.joined(separator: "; ")))"
        )
    }

    /// Packs that fall back to the source locale need its pack, imported or stored: lint refuses a
    /// fallback to a locale with none. Refused here, with the fix in the first line.
    static func checkSourceHasPack(
        _ packs: [MadePack], _ catalog: CatalogImport, read: Set<String>, source: String, request: Request,
        stored: Stored
    ) throws {
        let dependent = packs.map(\.parsed.pack).filter { $0.fallbackLocale == source }.map(\.locale)
        guard !dependent.isEmpty, !packs.contains(where: { $0.parsed.pack.locale == source }),
            !stored.locales.contains(source)
        else { return }
        let name = request.catalogName
        if !read.contains(source) {
            throw ImportRefusal.sourceLocaleNotInCatalog(
                catalog: name, source: source, has: read.sorted(), dependents: dependent)
        }
        if catalog.strings[source] == nil {
            throw ImportRefusal.sourceLocaleNotImported(catalog: name, source: source, dependents: dependent)
        }
        throw ImportRefusal.sourceLocaleLeftOut(catalog: name, source: source, dependents: dependent)
    }

    /// The catalog with what was left out in one order, whatever order it was found in (readers
    /// walk dictionaries; lint rounds add more): by locale, key and reason; files by path and reason.
    static func sorted(_ catalog: CatalogImport) -> CatalogImport {
        var catalog = catalog
        catalog.skipped.sort { ($0.locale, $0.key, $0.reason) < ($1.locale, $1.key, $1.reason) }
        catalog.skippedFiles.sort { $0.order < $1.order }
        return catalog
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
                throw ImportRefusal.noMinAppVersion(locale: locale)
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
    /// the source locale. The source declares none, and nor does a less specific form of it (en for
    /// the source en-US): a device steps from a locale to its less specific forms by itself, and
    /// takes their fallback when the locale declares none, so en -> en-US would be the loop
    /// en-US -> en -> en-US that lint refuses. So every chain is acyclic and ends at the source or
    /// (for a less specific form of it) at the policy's default locale, which every chain ends with.
    public static func fallbackLocale(of locale: String, source: String, known: (String) -> Bool) -> String? {
        if locale == source || ((try? LocaleTag.parse(source))?.truncationParents ?? []).contains(locale) {
            return nil
        }
        let language = String(locale.split(separator: "-").first ?? "")
        if language != locale && known(language) { return language }
        return source
    }
}
