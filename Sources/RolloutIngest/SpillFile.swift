import RolloutModel

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs of sorted `GroupEntry`s in one temporary file, unlinked as soon as it is made: it goes away
/// when the file descriptor is closed, however the process ends.
///
/// The runs the table spills, and those a merge pass writes for another, are packed
/// (`PackedEntries`, about a quarter of their 32 bytes an entry): a file of a few rows a group
/// spills nearly every group it has, so these bytes are most of what ingest writes and reads back.
/// The last merge's run, which `GroupedSums` reads by position, is plain entries.
final class SpillFile {
    struct Run {
        /// In bytes.
        let offset: Int
        /// In entries.
        let count: Int
        /// Its length in bytes.
        let bytes: Int
        /// Packed (`PackedEntries`), or plain `GroupEntry`s.
        let packed: Bool
    }

    let fd: Int32
    let directory: String
    private(set) var end = 0

    init(directory: String) throws {
        self.directory = directory
        var template = Array((directory + "/rollout-ingest-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw RolloutError.fileFailure("create a temporary file in", directory, errno: errno) }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        self.fd = fd
    }

    deinit { close(fd) }

    func failure(_ operation: String) -> RolloutError {
        RolloutError.fileFailure(operation, "the ingest's temporary file in \(directory)", errno: errno)
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

    /// Reads `count` bytes at `offset` of the file.
    func read(at offset: Int, count bytes: Int, into buffer: UnsafeMutableRawPointer) throws {
        var done = 0
        while done < bytes {
            let n = pread(fd, buffer + done, bytes - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("read")
            }
            guard n > 0 else { throw RolloutError.internal("the ingest's temporary file in \(directory) ended early") }
            done += n
        }
    }

    /// Reads `count` entries starting `index` entries into a plain `run`.
    func read(_ run: Run, from index: Int, count: Int, into buffer: UnsafeMutablePointer<GroupEntry>) throws {
        precondition(!run.packed, "a packed run is read only in order, by a merge")
        let stride = MemoryLayout<GroupEntry>.stride
        try read(at: run.offset + index * stride, count: count * stride, into: UnsafeMutableRawPointer(buffer))
    }

    /// Hands `emit` the entries of `runs` in key order, the entries of one key summed.
    func merge(_ runs: [Run], emit: (GroupEntry) throws -> Void) throws {
        var cursors = runs.filter { $0.count > 0 }.map { Cursor(run: $0) }
        defer { for cursor in cursors { cursor.buffer.deallocate() } }
        for i in cursors.indices { _ = try cursors[i].advance(self) }
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

    /// A packed run read in order, a buffer at a time.
    struct Cursor {
        let run: Run
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: SpillFile.bufferBytes)
        /// Bytes of the run read into the buffer so far.
        var read = 0
        var filled = 0
        var position = 0
        var decoded = 0
        var unpacker = PackedEntries()
        private(set) var current = GroupEntry(high: 0, low: 0, total: 0, events: 0)

        init(run: Run) {
            precondition(run.packed, "a merge reads packed runs")
            self.run = run
        }

        /// Moves to the next entry (the first, on the first call); false at the end of the run.
        @inline(__always)
        mutating func advance(_ file: SpillFile) throws -> Bool {
            guard decoded < run.count else { return false }
            if filled &- position < PackedEntries.maximumBytes && read < run.bytes { try refill(file) }
            current = unpacker.decode(buffer, at: &position)
            decoded &+= 1
            return true
        }

        /// Keeps the bytes not decoded yet and reads what follows them.
        mutating func refill(_ file: SpillFile) throws {
            let rest = filled - position
            if rest > 0 { memmove(buffer, buffer + position, rest) }
            let count = min(SpillFile.bufferBytes - rest, run.bytes - read)
            try file.read(at: run.offset + read, count: count, into: buffer + rest)
            read += count
            filled = rest + count
            position = 0
        }
    }

    /// Bytes a cursor or a writer holds.
    static let bufferBytes = GroupSums.bufferEntries * MemoryLayout<GroupEntry>.stride
}

/// Sorted entries as bytes: each key as its difference from the key before it (the high word's, or
/// when that is 0 the low word's), and the sums, each a LEB128 number. Keys that follow each other
/// in a sorted run differ in a few low bits, sums are small: an entry takes 6 to 10 bytes.
struct PackedEntries {
    /// The most bytes one entry takes: four numbers of at most 10 bytes.
    static let maximumBytes = 40

    private var high: UInt64 = 0
    private var low: UInt64 = 0

    @inline(__always)
    private static func put(_ value: UInt64, _ out: UnsafeMutablePointer<UInt8>, _ at: inout Int) {
        var value = value
        while value >= 0x80 {
            out[at] = UInt8(truncatingIfNeeded: value) | 0x80
            value &>>= 7
            at &+= 1
        }
        out[at] = UInt8(truncatingIfNeeded: value)
        at &+= 1
    }

    @inline(__always)
    private static func take(_ bytes: UnsafePointer<UInt8>, _ at: inout Int) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = bytes[at]
            at &+= 1
            value |= UInt64(byte & 0x7F) &<< shift
            if byte < 0x80 { return value }
            shift &+= 7
        }
    }

    /// Writes `entry`, whose key follows the last one's, at `out + at`; moves `at` past it.
    @inline(__always)
    mutating func encode(_ entry: GroupEntry, into out: UnsafeMutablePointer<UInt8>, at: inout Int) {
        let step = entry.high &- high
        PackedEntries.put(step, out, &at)
        PackedEntries.put(step == 0 ? entry.low &- low : entry.low, out, &at)
        PackedEntries.put(UInt64(truncatingIfNeeded: entry.total), out, &at)
        PackedEntries.put(UInt64(truncatingIfNeeded: entry.events), out, &at)
        (high, low) = (entry.high, entry.low)
    }

    /// Reads the entry at `bytes + at`; moves `at` past it.
    @inline(__always)
    mutating func decode(_ bytes: UnsafePointer<UInt8>, at: inout Int) -> GroupEntry {
        let step = PackedEntries.take(bytes, &at)
        let lowPart = PackedEntries.take(bytes, &at)
        high &+= step
        low = step == 0 ? low &+ lowPart : lowPart
        let total = Int(truncatingIfNeeded: PackedEntries.take(bytes, &at))
        let events = Int(truncatingIfNeeded: PackedEntries.take(bytes, &at))
        return GroupEntry(high: high, low: low, total: total, events: events)
    }
}

/// Appends entries to a spill file as one run, packed or plain, a buffer at a time.
final class RunWriter {
    let file: SpillFile
    let packed: Bool
    let start: Int
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: SpillFile.bufferBytes)
    var packer = PackedEntries()
    var buffered = 0
    var count = 0

    init(file: SpillFile, packed: Bool) {
        self.file = file
        self.packed = packed
        start = file.end
    }

    deinit { buffer.deallocate() }

    @inline(__always)
    func add(_ entry: GroupEntry) throws {
        let room = packed ? PackedEntries.maximumBytes : MemoryLayout<GroupEntry>.stride
        if buffered + room > SpillFile.bufferBytes { try flush() }
        if packed {
            packer.encode(entry, into: buffer, at: &buffered)
        } else {
            UnsafeMutableRawPointer(buffer + buffered).storeBytes(of: entry, as: GroupEntry.self)
            buffered += MemoryLayout<GroupEntry>.stride
        }
        count += 1
    }

    func flush() throws {
        try file.write(UnsafeRawBufferPointer(start: buffer, count: buffered))
        buffered = 0
    }

    func finish() throws -> SpillFile.Run {
        try flush()
        return SpillFile.Run(offset: start, count: count, bytes: file.end - start, packed: packed)
    }
}
