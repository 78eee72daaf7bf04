/// A rollup's entries as columns, for the readers that go through every entry of many rollups
/// (health, guard, the report): `guard` on a year of metrics reads every staged locale's, millions of
/// entries, and a `MetricRollup` costs two dictionary entries and three strings each (issue 36). A
/// key's region and app version are one cell, an id in the `RollupCells` the reader passes to every
/// rollup it reads, so each distinct `REGION|APP` is made into strings once per run.
public struct RollupEntries: Sendable {
    public let kind: MetricKind
    public let locale: String
    /// Days since 1970-01-01.
    public let day: Int
    /// Entry `i` is (`versions[i]`, `cells[i]`, `counts[i]`), in the byte order of the keys.
    public private(set) var versions: [Int] = []
    public private(set) var cells: [Int32] = []
    public private(set) var counts: [MetricCounts] = []

    public var count: Int { versions.count }

    /// Reads a stored rollup as `MetricRollup.parse` does: the same entries, and the same error for
    /// anything it refuses. The scanner reads a rollup whose keys are in byte order, as every writer
    /// stores them (so no key can be there twice); anything else is parsed into a `MetricRollup` first.
    public static func parse(_ bytes: [UInt8], source: String, cells: inout RollupCells) throws -> RollupEntries {
        let scanned = bytes.withUnsafeBufferPointer { buffer -> RollupEntries? in
            var scanner = RollupScanner(buffer)
            // The sink holds the only reference to the cells while it adds to them, so they are not copied.
            var sink = RollupScanner.ColumnSink(bytes: buffer, cells: cells)
            cells = RollupCells()
            let head = scanner.rollup(checkingRange: true, into: &sink)
            cells = sink.cells
            guard let head else { return nil }
            var entries = RollupEntries(kind: head.kind, locale: head.locale, day: head.day)
            (entries.versions, entries.cells, entries.counts) = (sink.versions, sink.cellIDs, sink.counts)
            return entries
        }
        if let scanned { return scanned }
        return RollupEntries(try MetricRollup.parse(bytes, source: source), cells: &cells)
    }

    /// The entries of `rollup`, in the byte order of their keys.
    public init(_ rollup: MetricRollup, cells: inout RollupCells) {
        self.init(kind: rollup.kind, locale: rollup.locale, day: rollup.day)
        for key in rollup.counts.keys.sorted(by: { $0.text.utf8.lexicographicallyPrecedes($1.text.utf8) }) {
            versions.append(key.contentVersion)
            self.cells.append(cells.id(region: key.region, appVersion: key.appVersion))
            counts.append(rollup.counts[key]!)
        }
    }

    init(kind: MetricKind, locale: String, day: Int) {
        self.kind = kind
        self.locale = locale
        self.day = day
    }

    /// Whether an entry is of content version `version`.
    public func holds(_ version: Int) -> Bool { versions.contains(version) }
}

/// The distinct `REGION|APP` of the keys a reader has seen, each with an id, found by its bytes
/// without making a string (an open-addressing table of FNV-1a hashes).
public struct RollupCells: Sendable {
    public private(set) var regions: [String] = []
    public private(set) var appVersions: [String] = []
    /// Each cell's `REGION|APP` bytes, one after another; `ends[id]` is where cell `id`'s end.
    private var arena: [UInt8] = []
    private var ends: [Int] = []
    private var hashes: [UInt64] = []
    /// Where each cell's `|` is, so that a region and app version given apart (`id(region:appVersion:)`)
    /// are never taken for another pair with the same bytes.
    private var separators: [Int] = []
    /// Cell id + 1 per slot, 0 for an empty one; the count is a power of two, at most half full.
    private var slots: [Int32] = []

    public init() {}

    public var count: Int { regions.count }

    /// The id of `region|appVersion`.
    public mutating func id(region: String, appVersion: String) -> Int32 {
        let bytes = Array(region.utf8) + [UInt8(ascii: "|")] + Array(appVersion.utf8)
        return bytes.withUnsafeBufferPointer { id(of: $0, separator: region.utf8.count) }
    }

    /// The id of the cell whose bytes are `text`, with its `|` at `separator`: an existing one, or a new one.
    mutating func id(of text: UnsafeBufferPointer<UInt8>, separator: Int) -> Int32 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        if slots.isEmpty { grow() }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let id = Int(slots[slot] - 1)
            if hashes[id] == hash, separators[id] == separator, matches(id, text) { return Int32(id) }
            slot = (slot + 1) & mask
        }
        let id = Int32(regions.count)
        slots[slot] = id + 1
        hashes.append(hash)
        separators.append(separator)
        arena.append(contentsOf: text)
        ends.append(arena.count)
        regions.append(String(decoding: UnsafeBufferPointer(rebasing: text[..<separator]), as: UTF8.self))
        appVersions.append(String(decoding: UnsafeBufferPointer(rebasing: text[(separator + 1)...]), as: UTF8.self))
        if regions.count * 2 > slots.count { grow() }
        return id
    }

    private func matches(_ id: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = id == 0 ? 0 : ends[id - 1]
        return ends[id] - start == text.count && arena[start..<ends[id]].elementsEqual(text)
    }

    private mutating func grow() {
        slots = [Int32](repeating: 0, count: max(1024, slots.count * 2))
        let mask = slots.count - 1
        for id in hashes.indices {
            var slot = Int(truncatingIfNeeded: hashes[id]) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(id + 1)
        }
    }
}

extension RollupScanner {
    /// The sink of `RollupEntries`: the columns, each key after the one before in byte order (else
    /// it gives up, so a key read twice is the generic parser's to report).
    struct ColumnSink: Sink {
        let bytes: UnsafeBufferPointer<UInt8>
        var cells: RollupCells
        var versions: [Int] = []
        var cellIDs: [Int32] = []
        var counts: [MetricCounts] = []
        var previous: Range<Int>?

        init(bytes: UnsafeBufferPointer<UInt8>, cells: RollupCells) {
            self.bytes = bytes
            self.cells = cells
        }

        mutating func reserve(_ capacity: Int) {
            versions.reserveCapacity(capacity)
            cellIDs.reserveCapacity(capacity)
            counts.reserveCapacity(capacity)
        }

        mutating func add(
            version: Int, key: Range<Int>, cell: Range<Int>, separator: Int, counts entry: MetricCounts,
            source: Range<Int>
        ) -> Bool {
            if let previous, !bytes[previous].lexicographicallyPrecedes(bytes[key]) { return false }
            previous = key
            versions.append(version)
            cellIDs.append(
                cells.id(of: UnsafeBufferPointer(rebasing: bytes[cell]), separator: separator - cell.lowerBound))
            counts.append(entry)
            return true
        }
    }
}
