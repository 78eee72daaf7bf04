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

/// The counters, in shards behind locks of their own, each held for one dictionary update:
/// `string` counts every lookup without touching the writers' lock, and readers on different
/// threads rarely meet on a shard (a reader preempted while holding one does not stall the others).
/// The day is formatted once per UTC day and shard, not per call.
final class Tally: @unchecked Sendable {
    private final class Shard: @unchecked Sendable {
        let lock = NSLock()
        var counters = Counters()
        var day: (start: Int64, text: String) = (-1, "")

        func dayText(_ date: Date) -> String {
            let raw = date.timeIntervalSince1970
            let seconds = raw.isFinite ? Int64(max(0, min(raw, 253_402_300_799))) : 0
            let start = seconds - seconds % 86_400
            if start != day.start { day = (start, String(Timestamp(seconds: start).description.prefix(10))) }
            return day.text
        }
    }

    private let shards = (0..<16).map { _ in Shard() }

    private func withShard(_ body: (Shard) -> Void) {
        let shard = shards[Int(UInt(bitPattern: ObjectIdentifier(Thread.current).hashValue) % UInt(shards.count))]
        shard.lock.lock()
        defer { shard.lock.unlock() }
        body(shard)
    }

    func lookup(pack: PackID, at date: Date, fellBack: Bool) {
        withShard { $0.counters.lookup(pack: pack, day: $0.dayText(date), fellBack: fellBack) }
    }

    func session(pack: PackID, at date: Date) {
        withShard { $0.counters.session(pack: pack, day: $0.dayText(date)) }
    }

    func crash(pack: PackID, at date: Date) {
        withShard { $0.counters.crash(pack: pack, day: $0.dayText(date)) }
    }

    /// Every shard's counts, summed.
    var merged: Counters {
        var total = Counters()
        for shard in shards {
            shard.lock.lock()
            total.add(shard.counters)
            shard.lock.unlock()
        }
        return total
    }

    func csv(_ kind: MetricKind, region: String, appVersion: String) -> String {
        merged.csv(kind, region: region, appVersion: appVersion)
    }

    func reset() {
        for shard in shards {
            shard.lock.lock()
            shard.counters = Counters()
            shard.lock.unlock()
        }
    }
}
