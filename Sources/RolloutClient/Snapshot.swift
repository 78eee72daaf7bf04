import Foundation
import RolloutModel

/// Everything `string(_:)` reads, frozen: the writers build a new one and swap it in whole, so a
/// reader never waits for a refresh, a rename or a state write (docs/client.md, Threading and
/// caching rules).
struct LookupSnapshot: Sendable {
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

    init(locale: String, chain: [String], active: [String: Pack]) {
        self.locale = locale
        self.language = String(locale.split(separator: "-").first ?? "")
        self.chain = chain
        self.packs = active.mapValues(\.strings)
        self.ownPack = active[locale]?.id
        self.activePacks = active.mapValues(\.id)
    }

    static let empty = LookupSnapshot(locale: "", chain: [], active: [:])
}

/// One reference, read and replaced under a lock held for the copy of a pointer only.
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

/// The counters behind a lock of their own, held for one dictionary update: `string` counts every
/// lookup without touching the writers' lock. The day is formatted once per UTC day, not per call.
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var counters = Counters()
    private var day: (start: Int64, text: String) = (-1, "")

    private func dayText(_ date: Date) -> String {
        let raw = date.timeIntervalSince1970
        let seconds = raw.isFinite ? Int64(max(0, min(raw, 253_402_300_799))) : 0
        let start = seconds - seconds % 86_400
        if start != day.start { day = (start, String(Timestamp(seconds: start).description.prefix(10))) }
        return day.text
    }

    func lookup(pack: PackID, at date: Date, fellBack: Bool) {
        lock.lock()
        defer { lock.unlock() }
        counters.lookup(pack: pack, day: dayText(date), fellBack: fellBack)
    }

    func session(pack: PackID, at date: Date) {
        lock.lock()
        defer { lock.unlock() }
        counters.session(pack: pack, day: dayText(date))
    }

    func crash(pack: PackID, at date: Date) {
        lock.lock()
        defer { lock.unlock() }
        counters.crash(pack: pack, day: dayText(date))
    }

    func csv(_ kind: MetricKind, region: String, appVersion: String) -> String {
        lock.lock()
        defer { lock.unlock() }
        return counters.csv(kind, region: region, appVersion: appVersion)
    }

    func reset() {
        lock.lock()
        counters = Counters()
        lock.unlock()
    }
}
