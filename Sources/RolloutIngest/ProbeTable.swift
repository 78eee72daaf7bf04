/// The open-addressing core of the spelling tables (`ShortSpellings`, `SpellingTable`): a
/// power-of-two array of entries, linear probing from the low bits of the hash, doubled when half
/// full. An entry knows whether it is the empty one and its hash (to move it when the table grows);
/// what makes an entry match is the caller's: a compare of words for a short spelling, of bytes in
/// an arena for a long one.
protocol ProbeEntry {
    static var empty: Self { get }
    var isEmpty: Bool { get }
    var hash: UInt64 { get }
}

struct ProbeTable<Entry: ProbeEntry> {
    enum Probe {
        case found(Entry)
        /// The empty slot where an entry of that hash goes.
        case absent(slot: Int)
    }

    private var entries = [Entry](repeating: .empty, count: 64)
    private(set) var count = 0

    /// The first entry from `hash`'s home slot on that `matches`, or the empty slot that ends the probe.
    /// `matches` must be false for the empty entry: it is asked first, as a lookup nearly always
    /// finds its entry in the home slot.
    @inline(__always)
    func find(hash: UInt64, where matches: (Entry) -> Bool) -> Probe {
        entries.withUnsafeBufferPointer { entries in
            let mask = entries.count &- 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let entry = entries[slot]
                if matches(entry) { return .found(entry) }
                if entry.isEmpty { return .absent(slot: slot) }
                slot = (slot &+ 1) & mask
            }
        }
    }

    /// Puts `entry` in `slot`, which `find` gave for its hash, and doubles the table if that made it
    /// more than half full.
    mutating func insert(_ entry: Entry, at slot: Int) {
        entries[slot] = entry
        count += 1
        guard count * 2 > entries.count else { return }
        let old = entries
        entries = [Entry](repeating: .empty, count: old.count * 2)
        let mask = entries.count - 1
        for entry in old where !entry.isEmpty {
            var slot = Int(truncatingIfNeeded: entry.hash) & mask
            while !entries[slot].isEmpty { slot = (slot + 1) & mask }
            entries[slot] = entry
        }
    }
}
