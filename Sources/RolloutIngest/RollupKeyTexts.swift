import RolloutModel

/// A file's rollups written straight from its sorted sums (`GroupedSums`), with no `MetricRollup`
/// in between: the key text of every distinct pack, region and app version is made once per file,
/// with its rank in the byte order of whole keys, so one rollup's counts sort as integers.
///
/// Why ranks give the byte order of `VERSION|REGION|APP`: no part holds `|`, so of two different
/// versions neither `V1|` nor `V2|` is a prefix of the other, and the first byte where they differ
/// decides the order of the whole keys; the same holds for regions (`R|`); the app version is
/// last, compared as it is. Sorting by (rank of `V|`, rank of `R|`, rank of `A`) is
/// therefore sorting by the key's bytes, which `MetricRollup.storedBytes` does; the tests hold
/// the two writers to the same bytes. A part that needs escaping in JSON (or holds `|`) turns the
/// shortcut off for the file: `rollup` then goes through `MetricRollup`.
struct RollupKeyTexts {
    /// Every part's bytes one after another (versions, regions, apps), and where each starts and
    /// ends: the writer reads them without touching an array per count.
    let arena: [UInt8]
    let versionSpans: [Range<Int>]
    let regionSpans: [Range<Int>]
    let appSpans: [Range<Int>]
    let versionRanks: [UInt32]
    let regionRanks: [UInt32]
    let appRanks: [UInt32]
    /// Every part is plain: no byte JSON escapes, no `|`.
    let plain: Bool

    init(_ values: GroupValues) {
        let versions = values.packs.map { Array(String($0.contentVersion).utf8) }
        let regions = values.regions.map { Array($0.utf8) }
        let apps = values.apps.map { Array($0.utf8) }
        let separator = UInt8(ascii: "|")
        var arena: [UInt8] = []
        func spans(_ texts: [[UInt8]]) -> [Range<Int>] {
            texts.map { text in
                arena += text
                return (arena.count - text.count)..<arena.count
            }
        }
        versionSpans = spans(versions)
        regionSpans = spans(regions)
        appSpans = spans(apps)
        self.arena = arena
        versionRanks = RollupKeyTexts.ranks(versions.map { $0 + [separator] })
        regionRanks = RollupKeyTexts.ranks(regions.map { $0 + [separator] })
        appRanks = RollupKeyTexts.ranks(apps)
        plain = [versions, regions, apps].allSatisfy { texts in
            texts.allSatisfy { text in text.allSatisfy { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != separator } }
        }
    }

    /// Each text's rank among the distinct texts, in byte order; equal texts share a rank.
    static func ranks(_ texts: [[UInt8]]) -> [UInt32] {
        let order = texts.indices.sorted { texts[$0].lexicographicallyPrecedes(texts[$1]) }
        var ranks = [UInt32](repeating: 0, count: texts.count)
        var rank: UInt32 = 0
        for (position, index) in order.enumerated() {
            if position > 0 && texts[index] != texts[order[position - 1]] { rank += 1 }
            ranks[index] = rank
        }
        return ranks
    }

    /// The stored bytes of `group`'s rollup when nothing is stored for its date yet.
    func rollup(_ group: GroupedSums.Group, of sums: GroupedSums, kind: MetricKind, source: String) throws -> [UInt8] {
        guard plain else {
            var rollup = MetricRollup(kind: kind, locale: group.locale, day: group.day)
            try sums.forEach(in: group) { key, counts in
                rollup.counts[key] = counts
                rollup.sources[key] = source
            }
            return rollup.storedBytes
        }
        var entries: [GroupEntry] = []
        entries.reserveCapacity(group.count)
        try sums.forEachChunk(in: group) { entries.append(contentsOf: $0) }
        // (rank of version, rank of region) and (rank of app version, position): unique keys, so
        // the position only carries the entry along.
        var order: [(UInt64, UInt64)] = entries.indices.map { index in
            let entry = entries[index]
            let low = entry.low
            return (
                UInt64(versionRanks[GroupKey.pack(entry.high)]) << 32 | UInt64(regionRanks[GroupKey.region(low)]),
                UInt64(appRanks[GroupKey.app(low)]) << 32 | UInt64(index)
            )
        }
        order.sort { $0 < $1 }
        var writer = RollupTextWriter(
            kind: kind, locale: group.locale, date: MetricsIngest.dateText(group.day), expectedCounts: entries.count)
        let quotedSource = RollupTextWriter.quoted(source)
        arena.withUnsafeBufferPointer { parts in
            quotedSource.withUnsafeBufferPointer { sourceBytes in
                for (_, second) in order {
                    let entry = entries[Int(second & 0xFFFF_FFFF)]
                    writer.appendCount(
                        version: UnsafeBufferPointer(rebasing: parts[versionSpans[GroupKey.pack(entry.high)]]),
                        region: UnsafeBufferPointer(rebasing: parts[regionSpans[GroupKey.region(entry.low)]]),
                        app: UnsafeBufferPointer(rebasing: parts[appSpans[GroupKey.app(entry.low)]]),
                        total: entry.total, events: entry.events, quotedSource: sourceBytes)
                }
            }
        }
        return writer.finish()
    }
}
