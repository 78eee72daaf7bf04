import Foundation
import RolloutModel

/// Everything `string(_:)` reads, frozen: the writers build a new one and swap it in whole, so a
/// reader never waits for a refresh, a rename or a state write (docs/client.md, Threading and
/// caching rules).
final class LookupSnapshot: Sendable {
    /// The device's locale: it formats only text that came from no pack and no bundle (the app's
    /// `fallback`); every other text is formatted in the locale it came from (`textLocale`).
    let locale: String
    /// The locales a key is looked up in, in order (docs/client.md, Lookup).
    let chain: [String]
    /// The strings of the active pack of each locale that has one.
    let packs: [String: [String: String]]
    /// The active pack of the device's own locale: the one counters are attributed to.
    let ownPack: PackID?
    /// The active pack of each locale that has one.
    let activePacks: [String: PackID]

    /// The experiment variant the device is in, for its own locale (docs/client.md, "Experiments").
    let experiment: ExperimentAssignment?

    /// The app's bundled strings of each locale of the chain and of the default locale.
    let bundled: [String: [String: String]]
    /// The locale of the bundle each of those tables is (`en` for `en-US` when the app ships
    /// `en.lproj` only): the locale its text is formatted in.
    let bundledLocales: [String: String]

    init(
        locale: String, chain: [String], active: [String: Pack], bundled: [String: [String: String]] = [:],
        bundledLocales: [String: String] = [:], experiment: ExperimentAssignment? = nil
    ) {
        self.experiment = experiment
        self.bundled = bundled
        self.bundledLocales = bundledLocales
        self.locale = locale
        self.chain = chain
        self.packs = active.mapValues(\.strings)
        self.ownPack = active[locale]?.id
        self.activePacks = active.mapValues(\.id)
    }

    static let empty = LookupSnapshot(locale: "", chain: [], active: [:])

    /// The locale text found for `candidate` is in, and so formatted in (plural rules, decimal
    /// separator): a pack's own locale, or the locale of the bundle a bundled table came from. Lookup
    /// mixes languages on purpose (a uk-UA device shows the en-US text it lacks), so the device's
    /// locale would choose the wrong plural form ("21 file" in English by Ukrainian rules).
    func textLocale(of candidate: String, fromPack: Bool) -> String {
        fromPack ? candidate : bundledLocales[candidate] ?? candidate
    }
}

/// One reference, read and replaced under a lock held for the copy of a pointer only (a class, so
/// the copy is one retain). `@unchecked Sendable`: `lock` guards `value`.
final class SnapshotCell: @unchecked Sendable {
    private let lock = NSLock()
    private var value: LookupSnapshot

    init(_ value: LookupSnapshot) { self.value = value }

    var current: LookupSnapshot {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func replace(_ next: LookupSnapshot) {
        lock.lock()
        value = next
        lock.unlock()
    }
}
