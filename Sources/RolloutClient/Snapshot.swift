import Foundation
import RolloutModel

/// Everything `string(_:)` reads, frozen: the writers build a new one and swap it in whole, so a
/// reader never waits for a refresh, a rename or a state write (docs/client.md, Threading and
/// caching rules).
final class LookupSnapshot: Sendable {
    /// The device's locale, and the language whose plural rules format its strings.
    let locale: String
    let language: String
    /// The locales a key is looked up in, in order (docs/client.md, Lookup).
    let chain: [String]
    /// The strings of the active pack of each locale that has one.
    let packs: [String: [String: String]]
    /// The active pack of the device's own locale: the one counters are attributed to.
    let ownPack: PackID?
    /// The active pack of each locale that has one.
    let activePacks: [String: PackID]

    /// The app's bundled strings of each locale of the chain and of the default locale.
    let bundled: [String: [String: String]]

    init(locale: String, chain: [String], active: [String: Pack], bundled: [String: [String: String]] = [:]) {
        self.bundled = bundled
        self.locale = locale
        // A locale that is not canonical BCP 47 goes whole to the plural rules and number formats,
        // which resolve such spellings themselves (`PluralRules(locale:)`).
        self.language = (try? LocaleTag.parse(locale))?.language ?? locale
        self.chain = chain
        self.packs = active.mapValues(\.strings)
        self.ownPack = active[locale]?.id
        self.activePacks = active.mapValues(\.id)
    }

    static let empty = LookupSnapshot(locale: "", chain: [], active: [:])
}

/// One reference, read and replaced under a lock held for the copy of a pointer only (a class, so
/// the copy is one retain).
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
