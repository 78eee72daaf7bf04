import RolloutModel

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// How a group's five ids (locale, date, pack, region, app version: each an index into
/// `GroupValues`) are packed into two words. Sorting by (high, low) puts each rollup file's groups
/// (one locale and date) next to each other, because the locale and the date are the top bits.
///
/// high: locale + 1 (16 bits; 0 marks an empty table slot) | date (22 bits) | pack (26 bits)
/// low:  region (32 bits) | app version (32 bits)
enum GroupKey {
    /// Distinct values one file may hold. Dates from 0001-01-01 to 9999-12-31 are 3,652,059, under
    /// 2^22; regions are ISO codes (under 700); so only locales and packs have a limit a file could
    /// in principle reach, and each needs a pack the repository holds.
    static let locales = (1 << 16) - 1
    static let days = 1 << 22
    static let packs = 1 << 26
    static let regions = 1 << 32
    static let apps = 1 << 32

    static let rollupShift: UInt64 = 26

    @inline(__always)
    static func high(locale: Int32, day: Int32, pack: Int32) -> UInt64 {
        (UInt64(locale) &+ 1) << 48 | UInt64(day) << 26 | UInt64(pack)
    }

    @inline(__always)
    static func low(region: Int32, app: Int32) -> UInt64 { UInt64(region) << 32 | UInt64(app) }

    static func locale(_ high: UInt64) -> Int { Int(high >> 48) - 1 }
    static func day(_ high: UInt64) -> Int { Int(high >> 26 & (1 << 22 - 1)) }
    static func pack(_ high: UInt64) -> Int { Int(high & (1 << 26 - 1)) }
    static func region(_ low: UInt64) -> Int { Int(low >> 32) }
    static func app(_ low: UInt64) -> Int { Int(low & 0xFFFF_FFFF) }
}

/// One group and its sums; 32 bytes, as stored in the table and in spilled runs.
struct GroupEntry {
    var high: UInt64
    var low: UInt64
    var total: Int
    var events: Int

    @inline(__always)
    static func before(_ a: GroupEntry, _ b: GroupEntry) -> Bool { a.high != b.high ? a.high < b.high : a.low < b.low }

    @inline(__always)
    func sameKey(_ other: GroupEntry) -> Bool { high == other.high && low == other.low }
}

/// The sums of (total, events) per group, in a fixed amount of memory whatever the number of groups
/// or their order in the file.
///
/// An open-addressing table of `GroupEntry` sized to the memory budget sums rows as they come. When
/// it is three quarters full, its groups are sorted by key and appended to an unlinked temporary
/// file as one run, and the table starts empty again. At the end the runs are merged (k-way, equal
/// keys summed) into one sorted run. A file whose groups fit the table, such as an export written
/// day by day, never touches the disk. The sums cannot overflow: the reader keeps each pack's total
/// within MetricCounts.maximum, and a group's total and events are parts of its pack's total.
struct GroupSums {
    /// Bytes for the table, and for the merge's buffers.
    static let defaultMemory = 32 << 20
    /// Entries read or written at once from a run.
    static let bufferEntries = 2048
    /// Rows whose slots are loaded together (see `add`).
    static let batchEntries = 32

    /// Counts of the work done, for the profile (ROLLOUT_INGEST_PROFILE).
    struct Statistics {
        var runs = 0
        var spilledEntries = 0
        var mergePasses = 0
        var mergedEntries = 0
    }

    private let table: Table
    private let capacity: Int
    private let limit: Int
    private let memory: Int
    private let directory: String
    private var count = 0
    /// Rows waiting in `table.batch`.
    private var batched = 0
    private var spill: SpillFile?
    private var runs: [SpillFile.Run] = []
    private(set) var statistics = Statistics()

    /// `memory` bytes for the table (at least 16 entries); spilled runs go to an unlinked file in `directory`.
    init(memory: Int = GroupSums.defaultMemory, directory: String) throws {
        capacity = max(16, memory / MemoryLayout<GroupEntry>.stride)
        limit = capacity / 4 * 3
        self.memory = memory
        self.directory = directory
        table = try Table(capacity: capacity)
    }

    @inline(__always)
    private func home(_ high: UInt64, _ low: UInt64) -> Int {
        let h = (high ^ (low &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: (h ^ h >> 29).multipliedFullWidth(by: UInt64(capacity)).high)
    }

    /// Adds one row's counts to its group; spills the table when it is full. Rows wait in a batch of
    /// `batchEntries`, whose slots are then loaded together: in a file of one row a group, nearly
    /// every row's slot is a cache miss, and misses one after another cost one memory latency
    /// each, where misses issued together overlap.
    @inline(__always)
    mutating func add(high: UInt64, low: UInt64, total: Int, events: Int) throws {
        table.batch[batched] = GroupEntry(high: high, low: low, total: total, events: events)
        batched &+= 1
        if batched == GroupSums.batchEntries { try flush() }
    }

    /// Adds the waiting rows: first every row's home slot is computed and loaded (loads that do not
    /// depend on each other, so they overlap), then each row is probed for, now from the cache.
    private mutating func flush() throws {
        let batch = table.batch
        let slots = table.slots
        let base = table.base
        var loaded: UInt64 = 0
        for i in 0..<batched {
            let slot = home(batch[i].high, batch[i].low)
            slots[i] = slot
            loaded &+= base[slot].high
        }
        // Kept, so that the loads are not optimized away.
        table.loaded = loaded
        for i in 0..<batched { try insert(batch[i], from: slots[i]) }
        batched = 0
    }

    @inline(__always)
    private mutating func insert(_ row: GroupEntry, from home: Int) throws {
        let base = table.base
        var slot = home
        while true {
            let entry = base + slot
            if entry.pointee.high == row.high && entry.pointee.low == row.low {
                entry.pointee.total &+= row.total
                entry.pointee.events &+= row.events
                return
            }
            if entry.pointee.high == 0 {
                entry.pointee = row
                count &+= 1
                if count >= limit { try spillTable() }
                return
            }
            slot &+= 1
            if slot == capacity { slot = 0 }
        }
    }

    /// Moves the table's groups to its front; returns how many there are.
    private func gatherTable() -> Int {
        let base = table.base
        var filled = 0
        for slot in 0..<capacity where base[slot].high != 0 {
            base[filled] = base[slot]
            filled += 1
        }
        return filled
    }

    /// Moves the table's groups to its front, sorted by key; returns how many there are.
    private func sortTable() -> Int {
        let filled = gatherTable()
        KeySort.sort(UnsafeMutableBufferPointer(start: table.base, count: filled))
        return filled
    }

    private mutating func spillTable() throws {
        let filled = gatherTable()
        if spill == nil { spill = try SpillFile(directory: directory) }
        let writer = RunWriter(file: spill!, packed: true)
        try KeySort.inOrder(UnsafeMutableBufferPointer(start: table.base, count: filled), words: try table.words(limit))
        {
            try writer.add($0)
        }
        runs.append(try writer.finish())
        statistics.runs += 1
        statistics.spilledEntries += filled
        try table.clear()
        count = 0
    }

    /// The sums, sorted by key and grouped by rollup file. Consumes the table: call it once.
    mutating func finish(values: GroupValues) throws -> GroupedSums {
        try flush()
        guard let spill else {
            let filled = sortTable()
            table.release(after: filled)
            return try GroupedSums(values: values, source: .memory(table, count: filled))
        }
        if count > 0 { try spillTable() }
        table.release()
        // Each input run and the output get a buffer; more runs than the memory allows are merged
        // in passes, each pass's output a run appended to the same file.
        let fanIn = max(2, memory / (GroupSums.bufferEntries * MemoryLayout<GroupEntry>.stride) - 1)
        var pending = runs
        runs = []
        while pending.count > fanIn {
            let writer = RunWriter(file: spill, packed: true)
            try spill.merge(Array(pending.prefix(fanIn))) { try writer.add($0) }
            pending = Array(pending.dropFirst(fanIn)) + [try writer.finish()]
            statistics.mergePasses += 1
        }
        let writer = RunWriter(file: spill, packed: false)
        try spill.merge(pending) { try writer.add($0) }
        let merged = try writer.finish()
        statistics.mergePasses += 1
        statistics.mergedEntries = merged.count
        return try GroupedSums(values: values, source: .file(spill, merged))
    }

    /// The table's memory: mapped when needed, so that a small file touches only the pages it uses.
    final class Table {
        private(set) var base: UnsafeMutablePointer<GroupEntry>
        private let bytes: Int
        private var mapped = true
        /// The rows waiting to be added, and their home slots (see `GroupSums.add`).
        let batch = UnsafeMutablePointer<GroupEntry>.allocate(capacity: GroupSums.batchEntries)
        let slots = UnsafeMutablePointer<Int>.allocate(capacity: GroupSums.batchEntries)
        var loaded: UInt64 = 0

        init(capacity: Int) throws {
            bytes = capacity * MemoryLayout<GroupEntry>.stride
            base = try Table.map(bytes)
        }

        private static func map(_ bytes: Int) throws -> UnsafeMutablePointer<GroupEntry> {
            try mapZeros(bytes, as: GroupEntry.self, large: false)
        }

        /// `bytes` of anonymous memory, which reads as zeros (every slot of a table starts empty:
        /// high == 0). `large`: large pages where the system allows them, for memory that will be
        /// touched all over (a row's slot is anywhere in a full table, and with 4 KiB pages nearly
        /// every one also misses the TLB); not for a table a small file touches in a few places,
        /// which would then hold a 2 MiB page for each.
        static func mapZeros<T>(_ bytes: Int, as: T.Type, large: Bool = true) throws -> UnsafeMutablePointer<T> {
            let memory = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            guard let memory, memory != MAP_FAILED else {
                throw RolloutError.cannotReserve(bytes, errno: errno)
            }
            #if os(Linux)
                if large && bytes >= 4 << 20 { madvise(memory, bytes, MADV_HUGEPAGE) }
            #endif
            return memory.bindMemory(to: T.self, capacity: bytes / MemoryLayout<T>.stride)
        }

        /// The words `KeySort` orders a spilled run with (2 x `count`), mapped at the first spill and
        /// kept until the table is released.
        func words(_ count: Int) throws -> UnsafeMutablePointer<UInt64> {
            if let order { return order.words }
            let words = try Table.mapZeros(2 * count * MemoryLayout<UInt64>.stride, as: UInt64.self)
            order = (words, 2 * count * MemoryLayout<UInt64>.stride)
            return words
        }
        private var order: (words: UnsafeMutablePointer<UInt64>, bytes: Int)?

        /// Every slot empty again. A table that spilled fills again: the first time, it is mapped
        /// again on large pages; after that the pages are kept, as writing zeros costs less than
        /// pages given back and taken again.
        func clear() throws {
            guard large else {
                munmap(base, bytes)
                mapped = false
                base = try Table.mapZeros(bytes, as: GroupEntry.self)
                mapped = true
                large = true
                return
            }
            memset(base, 0, bytes)
        }
        private var large = false

        /// Gives back the pages past the first `count` entries: the commit that follows builds
        /// rollups, and a file whose groups were spread over the whole table touched all of it.
        func release(after count: Int) {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let used = (count * MemoryLayout<GroupEntry>.stride + page - 1) / page * page
            guard mapped, used < bytes else { return }
            #if os(Linux)
                madvise(UnsafeMutableRawPointer(base) + used, bytes - used, MADV_DONTNEED)
            #endif
        }

        func release() {
            if let order { munmap(order.words, order.bytes) }
            order = nil
            guard mapped else { return }
            munmap(base, bytes)
            mapped = false
        }

        deinit {
            release()
            batch.deallocate()
            slots.deallocate()
        }
    }
}

extension RolloutError {
    static func cannotReserve(_ bytes: Int, errno code: Int32) -> RolloutError {
        .io(
            "cannot reserve \(bytes) bytes of memory for summing the file: \(RolloutError.cause(errno: code)); "
                + "a smaller ROLLOUT_INGEST_MEMORY uses less")
    }
}
