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
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
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
            let n = pread(
                fd, UnsafeMutableRawPointer(buffer) + done, bytes - done, off_t(run.offset + index * stride + done))
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
