import RolloutModel

/// Sessions, crashes, lookups and fallbacks per day and pack.
struct Counters {
    struct Key: Hashable, Comparable {
        let day: String
        let pack: PackID
        static func < (a: Key, b: Key) -> Bool { (a.day, a.pack) < (b.day, b.pack) }
    }

    private(set) var counts: [Key: [Int]] = [:]  // sessions, crashes, lookups, fallbacks

    mutating func session(pack: PackID, day: String) { counts[Key(day: day, pack: pack), default: [0, 0, 0, 0]][0] += 1 }
    mutating func crash(pack: PackID, day: String) { counts[Key(day: day, pack: pack), default: [0, 0, 0, 0]][1] += 1 }
    mutating func lookup(pack: PackID, day: String, fellBack: Bool) {
        counts[Key(day: day, pack: pack), default: [0, 0, 0, 0]][2] += 1
        if fellBack { counts[Key(day: day, pack: pack), default: [0, 0, 0, 0]][3] += 1 }
    }

    /// Adds another set of counts (the client keeps one per shard, see Tally).
    mutating func add(_ other: Counters) {
        for (key, values) in other.counts {
            counts[key] = zip(counts[key, default: [0, 0, 0, 0]], values).map { $0 + $1 }
        }
    }

    func csv(_ kind: MetricKind, region: String, appVersion: String) -> String {
        let (total, events) = kind.columns
        let (t, e) = kind == .crash ? (0, 1) : (2, 3)
        var text = "date,locale,pack,region,app_version,\(total),\(events)\n"
        for (key, values) in counts.sorted(by: { $0.key < $1.key }) where values[t] > 0 {
            text += "\(key.day),\(key.pack.locale),\(key.pack),\(region),\(appVersion),\(values[t]),\(min(values[e], values[t]))\n"
        }
        return text
    }
}
