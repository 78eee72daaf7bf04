import RolloutModel

/// A file's sums, sorted by key, grouped by rollup file (one locale and date) and read back one
/// rollup at a time: from the table when nothing was spilled, else from the merged run on disk.
final class GroupedSums {
    enum Source {
        case memory(GroupSums.Table, count: Int)
        case file(SpillFile, SpillFile.Run)
    }

    struct Group {
        let locale: String
        let day: Int
        /// The group's entries are [start, start + count) of the sorted run.
        let start: Int
        let count: Int
    }

    let values: GroupValues
    let source: Source
    /// In order of locale, then date.
    let groups: [Group]
    /// Distinct keys.
    let count: Int

    init(values: GroupValues, source: Source) throws {
        self.values = values
        self.source = source
        let total: Int
        switch source {
        case .memory(_, let count): total = count
        case .file(_, let run): total = run.count
        }
        count = total
        // Runs of one (locale, date): the top bits of the key.
        var found: [(rollup: UInt64, start: Int, count: Int)] = []
        var index = 0
        try GroupedSums.chunks(of: source, from: 0, count: total) { entries in
            for entry in entries {
                let rollup = entry.high >> GroupKey.rollupShift
                if let last = found.last, last.rollup == rollup {
                    found[found.count - 1].count += 1
                } else {
                    found.append((rollup, index, 1))
                }
                index += 1
            }
        }
        groups = found.map { group in
            let high = group.rollup << GroupKey.rollupShift
            return Group(
                locale: values.locales[GroupKey.locale(high)], day: values.days[GroupKey.day(high)], start: group.start,
                count: group.count)
        }
        .sorted { ($0.locale, $0.day) < ($1.locale, $1.day) }
    }

    /// Hands `body` the entries [start, start + count) of the sorted run, a buffer at a time.
    private static func chunks(
        of source: Source, from start: Int, count: Int, _ body: (UnsafeBufferPointer<GroupEntry>) throws -> Void
    ) throws {
        switch source {
        case .memory(let table, _):
            try body(UnsafeBufferPointer(start: table.base + start, count: count))
        case .file(let file, let run):
            let buffer = UnsafeMutablePointer<GroupEntry>.allocate(capacity: GroupSums.bufferEntries)
            defer { buffer.deallocate() }
            var done = 0
            while done < count {
                let n = min(GroupSums.bufferEntries, count - done)
                try file.read(run, from: start + done, count: n, into: buffer)
                try body(UnsafeBufferPointer(start: buffer, count: n))
                done += n
            }
        }
    }

    /// The entries of `group`, in key order of ids, a buffer at a time.
    func forEachChunk(in group: Group, _ body: (UnsafeBufferPointer<GroupEntry>) throws -> Void) throws {
        try GroupedSums.chunks(of: source, from: group.start, count: group.count, body)
    }

    /// Each key of `group` with its counts.
    func forEach(in group: Group, _ body: (MetricRollup.Key, MetricCounts) throws -> Void) throws {
        try GroupedSums.chunks(of: source, from: group.start, count: group.count) { entries in
            for entry in entries {
                try body(
                    values.key(low: entry.low, pack: GroupKey.pack(entry.high)),
                    MetricCounts(total: entry.total, events: entry.events))
            }
        }
    }

    /// The locales and dates that have sums (not merely a valid spelling somewhere).
    var locales: [String] { Array(Set(groups.map(\.locale))).sorted() }
    var days: [Int] { Array(Set(groups.map(\.day))).sorted() }
}
