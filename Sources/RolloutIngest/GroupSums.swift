#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import RolloutModel

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

    /// Adds one row's counts to its group; spills the table when it is full.
    @inline(__always)
    mutating func add(high: UInt64, low: UInt64, total: Int, events: Int) throws {
        let base = table.base
        var slot = home(high, low)
        while true {
            let entry = base + slot
            if entry.pointee.high == high && entry.pointee.low == low {
                entry.pointee.total &+= total
                entry.pointee.events &+= events
                return
            }
            if entry.pointee.high == 0 {
                entry.pointee = GroupEntry(high: high, low: low, total: total, events: events)
                count &+= 1
                if count >= limit { try spillTable() }
                return
            }
            slot &+= 1
            if slot == capacity { slot = 0 }
        }
    }

    /// Moves the table's groups to its front, sorted by key; returns how many there are.
    private func sortTable() -> Int {
        let base = table.base
        var filled = 0
        for slot in 0..<capacity where base[slot].high != 0 {
            base[filled] = base[slot]
            filled += 1
        }
        var entries = UnsafeMutableBufferPointer(start: base, count: filled)
        entries.sort(by: GroupEntry.before)
        return filled
    }

    private mutating func spillTable() throws {
        let filled = sortTable()
        if spill == nil { spill = try SpillFile(directory: directory) }
        runs.append(try spill!.append(UnsafeBufferPointer(start: table.base, count: filled)))
        statistics.runs += 1
        statistics.spilledEntries += filled
        try table.clear()
        count = 0
    }

    /// The sums, sorted by key and grouped by rollup file. Consumes the table: call it once.
    mutating func finish(values: GroupValues) throws -> GroupedSums {
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
            let writer = RunWriter(file: spill)
            try spill.merge(Array(pending.prefix(fanIn))) { try writer.add($0) }
            pending = Array(pending.dropFirst(fanIn)) + [try writer.finish()]
            statistics.mergePasses += 1
        }
        let writer = RunWriter(file: spill)
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

        init(capacity: Int) throws {
            bytes = capacity * MemoryLayout<GroupEntry>.stride
            base = try Table.map(bytes)
        }

        private static func map(_ bytes: Int) throws -> UnsafeMutablePointer<GroupEntry> {
            // Anonymous pages read as zeros: every slot starts empty (high == 0).
            let memory = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            guard let memory, memory != MAP_FAILED else {
                throw RolloutError.io("cannot reserve \(bytes) bytes of memory for summing the file: \(RolloutError.cause(errno: errno)); a smaller ROLLOUT_INGEST_MEMORY uses less")
            }
            return memory.bindMemory(to: GroupEntry.self, capacity: bytes / MemoryLayout<GroupEntry>.stride)
        }

        /// Every slot empty again, and the pages given back until they are used.
        func clear() throws {
            munmap(base, bytes)
            mapped = false
            base = try Table.map(bytes)
            mapped = true
        }

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
            guard mapped else { return }
            munmap(base, bytes)
            mapped = false
        }

        deinit { release() }
    }
}

/// Runs of sorted `GroupEntry`s in one temporary file, unlinked as soon as it is made: it goes away
/// when the file descriptor is closed, however the process ends.
final class SpillFile {
    struct Run {
        /// In bytes.
        let offset: Int
        /// In entries.
        let count: Int
    }

    let fd: Int32
    let directory: String
    private(set) var end = 0

    init(directory: String) throws {
        self.directory = directory
        var template = Array((directory + "/rollout-ingest-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw RolloutError.fileFailure("create a temporary file in", directory, errno: errno) }
        unlink(String(cString: template))
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        self.fd = fd
    }

    deinit { close(fd) }

    func failure(_ operation: String) -> RolloutError {
        RolloutError.fileFailure(operation, "the ingest's temporary file in \(directory)", errno: errno)
    }

    func append(_ entries: UnsafeBufferPointer<GroupEntry>) throws -> Run {
        let run = Run(offset: end, count: entries.count)
        try write(UnsafeRawBufferPointer(entries))
        return run
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(end + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("write")
            }
            done += n
        }
        end += bytes.count
    }

    /// Reads `count` entries starting `index` entries into `run`.
    func read(_ run: Run, from index: Int, count: Int, into buffer: UnsafeMutablePointer<GroupEntry>) throws {
        let stride = MemoryLayout<GroupEntry>.stride
        let bytes = count * stride
        var done = 0
        while done < bytes {
            let n = pread(fd, UnsafeMutableRawPointer(buffer) + done, bytes - done, off_t(run.offset + index * stride + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("read")
            }
            guard n > 0 else { throw RolloutError.internal("the ingest's temporary file in \(directory) ended early") }
            done += n
        }
    }

    /// Hands `emit` the entries of `runs` in key order, the entries of one key summed.
    func merge(_ runs: [Run], emit: (GroupEntry) throws -> Void) throws {
        var cursors = runs.filter { $0.count > 0 }.map { Cursor(run: $0) }
        defer { for cursor in cursors { cursor.buffer.deallocate() } }
        for i in cursors.indices { try cursors[i].refill(self) }
        // A binary min-heap of cursor indices, ordered by each cursor's current entry.
        var heap = Array(cursors.indices)
        func less(_ a: Int, _ b: Int) -> Bool { GroupEntry.before(cursors[heap[a]].current, cursors[heap[b]].current) }
        func down(_ start: Int) {
            var i = start
            while true {
                let left = 2 * i + 1
                guard left < heap.count else { return }
                var least = left
                if left + 1 < heap.count && less(left + 1, left) { least = left + 1 }
                guard less(least, i) else { return }
                heap.swapAt(i, least)
                i = least
            }
        }
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { down(i) }
        var pending: GroupEntry?
        while let top = heap.first {
            let entry = cursors[top].current
            if var sum = pending, sum.sameKey(entry) {
                sum.total &+= entry.total
                sum.events &+= entry.events
                pending = sum
            } else {
                if let pending { try emit(pending) }
                pending = entry
            }
            if try cursors[top].advance(self) {
                down(0)
            } else {
                heap.swapAt(0, heap.count - 1)
                heap.removeLast()
                down(0)
            }
        }
        if let pending { try emit(pending) }
    }

    struct Cursor {
        let run: Run
        let buffer = UnsafeMutablePointer<GroupEntry>.allocate(capacity: GroupSums.bufferEntries)
        var loaded = 0
        var filled = 0
        var position = 0

        init(run: Run) { self.run = run }

        var current: GroupEntry { buffer[position] }

        mutating func refill(_ file: SpillFile) throws {
            let count = min(GroupSums.bufferEntries, run.count - loaded)
            try file.read(run, from: loaded, count: count, into: buffer)
            loaded += count
            filled = count
            position = 0
        }

        /// Moves to the next entry; false at the end of the run.
        mutating func advance(_ file: SpillFile) throws -> Bool {
            position += 1
            if position < filled { return true }
            guard loaded < run.count else { return false }
            try refill(file)
            return true
        }
    }
}

/// Appends entries to a spill file as one run, a buffer at a time.
final class RunWriter {
    let file: SpillFile
    let start: Int
    let buffer = UnsafeMutablePointer<GroupEntry>.allocate(capacity: GroupSums.bufferEntries)
    var buffered = 0
    var written = 0

    init(file: SpillFile) {
        self.file = file
        start = file.end
    }

    deinit { buffer.deallocate() }

    func add(_ entry: GroupEntry) throws {
        buffer[buffered] = entry
        buffered += 1
        if buffered == GroupSums.bufferEntries { try flush() }
    }

    func flush() throws {
        try file.write(UnsafeRawBufferPointer(start: buffer, count: buffered * MemoryLayout<GroupEntry>.stride))
        written += buffered
        buffered = 0
    }

    func finish() throws -> SpillFile.Run {
        try flush()
        return SpillFile.Run(offset: start, count: written)
    }
}

/// The distinct values of one file's groups, each with its id (its index in the list).
struct GroupValues {
    struct TooMany: Error {
        let message: String
    }

    private(set) var days: [Int] = []
    private(set) var packs: [PackID] = []
    /// Each pack's locale id.
    private(set) var packLocales: [Int32] = []
    private(set) var locales: [String] = []
    private(set) var regions: [String] = []
    private(set) var apps: [String] = []
    private var dayIndices: [Int: Int32] = [:]
    private var packIndices: [PackID: Int32] = [:]
    private var localeIndices: [String: Int32] = [:]
    private var regionIndices: [String: Int32] = [:]
    private var appIndices: [String: Int32] = [:]

    private static func index<K: Hashable>(_ value: K, _ indices: inout [K: Int32], _ list: inout [K], limit: Int, what: String) throws -> Int32 {
        if let known = indices[value] { return known }
        // Ids are Int32 (the meanings of spellings), and each must fit its field of the key.
        guard list.count < min(limit, Int(Int32.max)) else {
            throw TooMany(message: "more than \(min(limit, Int(Int32.max))) distinct \(what) in one file; split it into smaller files (by date, for example)")
        }
        let index = Int32(list.count)
        list.append(value)
        indices[value] = index
        return index
    }

    mutating func dayIndex(_ day: Int) throws -> Int32 { try GroupValues.index(day, &dayIndices, &days, limit: GroupKey.days, what: "dates") }
    mutating func regionIndex(_ region: String) throws -> Int32 {
        try GroupValues.index(region, &regionIndices, &regions, limit: GroupKey.regions, what: "regions")
    }
    mutating func appIndex(_ version: String) throws -> Int32 { try GroupValues.index(version, &appIndices, &apps, limit: GroupKey.apps, what: "app versions") }
    mutating func packIndex(_ pack: PackID) throws -> Int32 {
        if let known = packIndices[pack] { return known }
        let locale = try GroupValues.index(pack.locale, &localeIndices, &locales, limit: GroupKey.locales, what: "locales")
        let index = try GroupValues.index(pack, &packIndices, &packs, limit: GroupKey.packs, what: "packs")
        packLocales.append(locale)
        return index
    }

    func key(low: UInt64, pack: Int) -> MetricRollup.Key {
        MetricRollup.Key(contentVersion: packs[pack].contentVersion, region: regions[GroupKey.region(low)], appVersion: apps[GroupKey.app(low)])
    }
}

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
            return Group(locale: values.locales[GroupKey.locale(high)], day: values.days[GroupKey.day(high)], start: group.start, count: group.count)
        }
        .sorted { ($0.locale, $0.day) < ($1.locale, $1.day) }
    }

    /// Hands `body` the entries [start, start + count) of the sorted run, a buffer at a time.
    private static func chunks(of source: Source, from start: Int, count: Int, _ body: (UnsafeBufferPointer<GroupEntry>) throws -> Void) throws {
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

    /// Each key of `group` with its counts.
    func forEach(in group: Group, _ body: (MetricRollup.Key, MetricCounts) throws -> Void) throws {
        try GroupedSums.chunks(of: source, from: group.start, count: group.count) { entries in
            for entry in entries {
                try body(values.key(low: entry.low, pack: GroupKey.pack(entry.high)), MetricCounts(total: entry.total, events: entry.events))
            }
        }
    }

    /// The locales and dates that have sums (not merely a valid spelling somewhere).
    var locales: [String] { Array(Set(groups.map(\.locale))).sorted() }
    var days: [Int] { Array(Set(groups.map(\.day))).sorted() }
}
