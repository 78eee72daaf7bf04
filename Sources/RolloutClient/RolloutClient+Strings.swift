import Foundation
import RolloutModel

extension RolloutClient {
    /// Publishes what `string(_:)` reads from the device's memory now. Call with `lock` held.
    func publish() {
        let chain = chain(for: locale)
        // Each locale's bundled table resolved once here (`en-US` reads `en.lproj`), not per lookup.
        var tables: [String: [String: String]] = [:]
        var tableLocales: [String: String] = [:]
        for name in chain + [options.defaultLocale] {
            tables[name] = bundled.table(for: name)
            tableLocales[name] = bundledLocale(for: name)
        }
        snapshot.replace(
            LookupSnapshot(
                locale: locale, chain: chain, active: active.mapValues { $0.shown(state.bundleOnly[$0.pack.locale]) },
                bundled: tables, bundledLocales: tableLocales,
                experiment: state.experiment.flatMap { $0.locale == locale ? $0 : nil }))
    }

    /// The locale of the table `bundled.table(for: locale)` reads (`en` for `en-US` with only
    /// `en.lproj`), nil when it reads none: the language its text is written in.
    func bundledLocale(for locale: String) -> String? {
        if bundled[locale] != nil { return locale }
        return (try? LocaleTag.parse(locale))?.truncationParents.first { bundled[$0] != nil }
    }

    /// The locales a key is looked up in, in order, before the default locale's bundled strings:
    /// the device's own locale first, then the chain the last index gives it (`SiteIndex.chain(for:)`,
    /// docs/manifest.md "The chain of a device"), or until the first refresh, its language and the
    /// default. The own locale comes first even when the index does not list it, so that an app
    /// that bundles a language the site does not publish shows it before another language's pack.
    func chain(for locale: String) -> [String] {
        var chain: [String]
        if state.indexSequence > 0 || !state.chains.isEmpty {
            chain = SiteIndex.chain(
                for: locale, chains: state.chains, fallbackChains: state.fallbackChains,
                defaultLocale: state.defaultLocale ?? options.defaultLocale)
        } else {
            chain = [locale]
            chain += (try? LocaleTag.parse(locale))?.truncationParents ?? []
            chain.append(options.defaultLocale)
        }
        chain.removeAll { $0 == locale }
        return [locale] + chain.reduce(into: [String]()) { kept, next in if !kept.contains(next) { kept.append(next) } }
    }

    /// The text for `key`: for each locale of the chain, its active pack and then the app's
    /// bundled strings of that same locale, before the next locale; then the default locale's
    /// bundled strings; then `fallback`. So a screen stays in one language while the app bundles
    /// it. Never empty and never the key: a key the app does not bundle at all and has no fallback
    /// for shows "…". Reads one immutable snapshot: never waits on disk, network or a refresh.
    public func string(_ key: String, _ arguments: [String: String] = [:], fallback: String? = nil) -> String {
        let view = snapshot.current
        // The text and the locale it is in, which formats it (`LookupSnapshot.textLocale`).
        var found: (text: String, locale: String)?
        var fromOwnPack = false
        for candidate in view.chain {
            if let value = view.packs[candidate]?[key], !value.isEmpty {
                found = (value, view.textLocale(of: candidate, fromPack: true))
                fromOwnPack = candidate == view.locale
                break
            }
            if let value = view.bundled[candidate]?[key], !value.isEmpty {
                found = (value, view.textLocale(of: candidate, fromPack: false))
                break
            }
        }
        if found == nil, let value = view.bundled[options.defaultLocale]?[key], !value.isEmpty {
            found = (value, view.textLocale(of: options.defaultLocale, fromPack: false))
        }
        // A fallback is any text that did not come from the own locale's pack, the own locale's
        // bundled text included: the counter measures the pack (docs/client.md, Counters).
        if let own = view.ownPack { countLookup(own, fellBack: !fromOwnPack) }
        // One set lookup for every other key: only a varied key goes further.
        if let experiment = view.experiment, experiment.keys.contains(key) { countExposure(experiment) }
        // The app's own fallback is in no known locale: the device's formats it.
        let text = found?.text ?? fallback.flatMap { $0.isEmpty ? nil : $0 } ?? "…"
        let formatted = MessageFormat.format(text, arguments, language: found?.locale ?? view.locale)
        return formatted.isEmpty ? text : formatted
    }

    /// Switches the device's locale; the next `string` reads the new chain. A refresh fetches the
    /// new locale's packs.
    public func setLocale(_ newLocale: String) {
        let changed = lock.withLock { () -> Bool in
            guard newLocale != locale else { return false }
            locale = newLocale
            publish()
            return true
        }
        if changed { announce([Change(reason: .localeChanged, packs: [], locale: newLocale)]) }
    }

    public var currentLocale: String { snapshot.current.locale }

    /// The active pack of each locale that has one.
    public var activePacks: [PackID] { snapshot.current.activePacks.values.sorted() }

    /// The pack in use for the device's own locale, if any (nil: bundled strings).
    public var activePack: PackID? { snapshot.current.ownPack }

    /// Packs a refresh round verified and committed, waiting for `activatePending()`.
    public var pendingPacks: [PackID] {
        storage.children("packs").compactMap { committedPending($0)?.id }.sorted()
    }
}
