import RolloutModel

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// The C library's read(2): inside CSVReader, `read` is its own method.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// One record's fields, borrowed from the reader's buffer: valid only during the call that receives it.
public struct CSVRecord {
    @usableFromInline let base: UnsafePointer<UInt8>
    /// start0, end0, start1, end1, ... as offsets from `base`.
    @usableFromInline let bounds: UnsafePointer<Int>
    public let count: Int

    @inlinable @inline(__always)
    public subscript(index: Int) -> UnsafeBufferPointer<UInt8> {
        let start = bounds[2 &* index]
        return UnsafeBufferPointer(start: base + start, count: bounds[2 &* index &+ 1] &- start)
    }
}

/// Receives each record of a file. Generic rather than a closure, so the reader's loop and the
/// receiver's code are compiled together.
public protocol CSVRecordSink {
    mutating func record(_ fields: CSVRecord, line: Int) throws
}

/// A streaming RFC 4180 reader over raw bytes, or over the text of gzip data (`GzipReader`):
/// constant memory whatever the file size. Fields may be quoted (`"a ""b"", c"`), records end in LF
/// or CRLF, a UTF-8 byte order mark at the start is skipped. NUL bytes, an unclosed quote, and
/// records longer than `maximumRecordBytes` are errors that name the line.
///
/// Records without a quote (nearly all of a metrics export) are never copied: their fields are
/// ranges of the read buffer. A record with a quote is decoded into a scratch buffer.
public struct CSVReader {
    public struct Failure: Error, Equatable {
        public let line: Int
        public let message: String
    }

    public static let maximumRecordBytes = 1 << 20
    public static let chunk = 1 << 20

    /// Reads `path` with `chunk`-byte reads, handing `sink` each record and the line it starts on,
    /// and `onChunk` each chunk of the file's bytes as read. A file that starts with gzip's magic
    /// bytes (1f 8b), whatever its name, is inflated as it is read; `onChunk` still sees the file's
    /// own (compressed) bytes. A zip, bzip2, xz... file is a `GzipReader.Failure` that says what it
    /// is. Returns the number of bytes of the file read.
    @discardableResult
    public static func read<Sink: CSVRecordSink>(
        path: String, chunk: Int = CSVReader.chunk, gzipLimits: GzipLimits = .default, sink: inout Sink,
        onChunk: (UnsafeRawBufferPointer) -> Void = { _ in }
    ) throws -> Int {
        // O_NONBLOCK: a named pipe opens at once (then is refused) instead of waiting for a writer.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw RolloutError.fileFailure("read", path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw RolloutError.fileFailure("read", path, errno: errno) }
        if let refusal = RolloutError.notARegularFile(path, mode: info.st_mode, describedAs: "metrics file") {
            throw refusal
        }
        var first = [UInt8](repeating: 0, count: GzipReader.sniffBytes)
        let peeked = first.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard peeked >= 0 else { throw RolloutError.fileFailure("read", path, errno: errno) }
        var total = 0
        try first.withUnsafeBytes { first in
            try tokenize(
                start: UnsafeRawBufferPointer(rebasing: first.prefix(peeked)), chunk: chunk, gzipLimits: gzipLimits,
                sink: &sink
            ) {
                into, count in
                while true {
                    let n = systemRead(fd, into, count)
                    if n > 0 {
                        onChunk(UnsafeRawBufferPointer(start: into, count: n))
                        total += n
                    }
                    if n >= 0 { return n }
                    if errno != EINTR { throw RolloutError.fileFailure("read", path, errno: errno) }
                }
            }
        }
        return total
    }

    /// Parses bytes already in memory, plain or gzip, `chunk` bytes of text at a time and gzip data
    /// `gzipBlock` bytes at a time (for tests and small inputs).
    public static func parse<Sink: CSVRecordSink>(
        _ bytes: [UInt8], chunk: Int = CSVReader.chunk, gzipBlock: Int = CSVReader.chunk,
        gzipLimits: GzipLimits = .default, sink: inout Sink
    ) throws {
        var offset = 0
        try bytes.withUnsafeBufferPointer { source in
            try tokenize(
                start: UnsafeRawBufferPointer(source), chunk: chunk, gzipBlock: gzipBlock, gzipLimits: gzipLimits,
                sink: &sink
            ) {
                into, count in
                let n = min(count, source.count - offset)
                if n > 0 { into.update(from: source.baseAddress! + offset, count: n) }
                offset += n
                return n
            }
        }
    }

    /// Runs the tokenizer over a file's bytes, which `raw` reads in order: straight into the
    /// tokenizer's buffer, or through a `GzipReader` that inflates into that buffer, as the file's
    /// `start` (its first `GzipReader.sniffBytes` bytes, or all of a shorter file) says.
    static func tokenize<Sink: CSVRecordSink>(
        start: UnsafeRawBufferPointer, chunk: Int, gzipBlock: Int = CSVReader.chunk,
        gzipLimits: GzipLimits = .default, sink: inout Sink,
        raw: (UnsafeMutablePointer<UInt8>, Int) throws -> Int
    ) throws {
        if let other = GzipReader.otherFormat(start) { throw GzipReader.Failure.notText(other) }
        let tokenizer = Tokenizer(chunk: chunk)
        guard GzipReader.isGzip(start) else { return try tokenizer.run(sink: &sink, fill: raw) }
        let gzip = GzipReader(blockBytes: gzipBlock, limits: gzipLimits)
        try tokenizer.run(sink: &sink) { into, count in try gzip.read(into: into, count: count, input: raw) }
    }

    /// The same, handing each record to a closure as an array of fields (for tests).
    public static func parse(
        _ bytes: [UInt8], chunk: Int = CSVReader.chunk, gzipBlock: Int = CSVReader.chunk,
        gzipLimits: GzipLimits = .default, record: ([ArraySlice<UInt8>], Int) throws -> Void
    ) throws {
        try withoutActuallyEscaping(record) { record in
            struct Collect: CSVRecordSink {
                let record: ([ArraySlice<UInt8>], Int) throws -> Void
                mutating func record(_ fields: CSVRecord, line: Int) throws {
                    try record((0..<fields.count).map { Array(fields[$0])[...] }, line)
                }
            }
            var sink = Collect(record: record)
            try parse(bytes, chunk: chunk, gzipBlock: gzipBlock, gzipLimits: gzipLimits, sink: &sink)
        }
    }

    enum QuoteState { case fieldStart, unquoted, quoted, quoteInQuoted, carriageReturnAfterQuote }

    /// Owns the read buffer, the scratch buffer for quoted records, and the field bounds.
    final class Tokenizer {
        let chunk: Int
        let capacity: Int
        let buffer: UnsafeMutablePointer<UInt8>
        var scratch: UnsafeMutablePointer<UInt8>?
        var bounds: UnsafeMutablePointer<Int>
        var boundsCapacity = 64
        /// The line the next record starts on.
        var line = 1

        init(chunk: Int) {
            self.chunk = max(1, chunk)
            capacity = CSVReader.maximumRecordBytes + self.chunk + 1
            buffer = .allocate(capacity: capacity)
            bounds = .allocate(capacity: boundsCapacity)
        }

        deinit {
            buffer.deallocate()
            scratch?.deallocate()
            bounds.deallocate()
        }

        func growBounds() {
            let grown = UnsafeMutablePointer<Int>.allocate(capacity: boundsCapacity * 2)
            grown.update(from: bounds, count: boundsCapacity)
            bounds.deallocate()
            bounds = grown
            boundsCapacity *= 2
        }

        func tooLong(_ line: Int) -> Failure {
            Failure(
                line: line,
                message: "the record starting on this line is longer than \(CSVReader.maximumRecordBytes >> 20) MiB; "
                    + "a metrics row is a few dozen bytes")
        }

        /// Reads the text with `fill` (which writes at most the count it is given and returns how
        /// many bytes it wrote, 0 at the end) and hands `sink` its records.
        func run<Sink: CSVRecordSink>(sink: inout Sink, fill: (UnsafeMutablePointer<UInt8>, Int) throws -> Int) throws {
            var filled = 0
            var start = 0
            var endOfFile = false
            var checkedBOM = false
            while true {
                let n = try fill(buffer + filled, min(chunk, capacity - filled))
                if n == 0 {
                    endOfFile = true
                } else {
                    filled += n
                }
                if !checkedBOM {
                    guard filled >= 3 || endOfFile else { continue }
                    if filled >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { start = 3 }
                    checkedBOM = true
                }
                start = try records(from: start, to: filled, endOfFile: endOfFile, sink: &sink)
                if endOfFile { return }
                // Keep the unfinished record and read the rest of it after it.
                let rest = filled - start
                if rest > CSVReader.maximumRecordBytes { throw tooLong(line) }
                if start > 0 && rest > 0 { memmove(buffer, buffer + start, rest) }
                filled = rest
                start = 0
            }
        }

        // Long: the hot loop, whole so that its state stays in locals (see the doc comment).
        /// Hands `sink` every complete record in buffer[start..<end] (and at the end of the file, the
        /// last one without its line feed); returns where the unfinished record starts.
        /// One piece because it is the hot loop of ingest: its state stays in locals and its two helpers
        /// are closures over them; methods would move that state back into the class, checked for
        /// exclusive access on every field.
        @inline(__always) func records<Sink: CSVRecordSink>(
            from start: Int, to end: Int, endOfFile: Bool, sink: inout Sink
        ) throws -> Int {
            // The hot state in locals: a class's stored properties are checked for exclusive access
            // on every use.
            let buffer = self.buffer
            var bounds = self.bounds
            var boundsCapacity = self.boundsCapacity
            var line = self.line
            defer { self.line = line }
            var recordStart = start
            @inline(__always) func mark(_ field: Int, _ from: Int, _ to: Int) {
                if 2 &* field &+ 2 > boundsCapacity {
                    growBounds()
                    bounds = self.bounds
                    boundsCapacity = self.boundsCapacity
                }
                bounds[2 &* field] = from &- recordStart
                bounds[2 &* field &+ 1] = to &- recordStart
            }
            /// The record's last field ends at `end` (its line feed, or the end of the file), without
            /// the CR of a CRLF; a line with nothing on it is not a record.
            @inline(__always) func finish(_ fields: Int, _ fieldStart: Int, at end: Int) throws {
                var fieldEnd = end
                if fieldEnd > fieldStart && buffer[fieldEnd &- 1] == 0x0D { fieldEnd &-= 1 }
                if end &- recordStart > CSVReader.maximumRecordBytes { throw tooLong(line) }
                mark(fields, fieldStart, fieldEnd)
                if fields > 0 || fieldEnd > fieldStart {
                    try sink.record(
                        CSVRecord(base: buffer + recordStart, bounds: bounds, count: fields &+ 1), line: line)
                }
                line &+= 1
            }
            try {
                records: while recordStart < end {
                    var i = recordStart
                    var fieldStart = i
                    var fields = 0
                    while true {
                        i = Tokenizer.nextSpecial(buffer, from: i, to: end)
                        if i == end { break }
                        // Comparisons, not a switch: a jump table here costs a mispredicted
                        // indirect branch per field.
                        let byte = buffer[i]
                        if byte == 0x2C {
                            mark(fields, fieldStart, i)
                            fields &+= 1
                            i &+= 1
                            fieldStart = i
                        } else if byte == 0x0A {
                            try finish(fields, fieldStart, at: i)
                            recordStart = i &+ 1
                            continue records
                        } else if byte == 0x22 {
                            self.line = line
                            let next = try quotedRecord(from: recordStart, to: end, endOfFile: endOfFile, sink: &sink)
                            line = self.line
                            bounds = self.bounds
                            boundsCapacity = self.boundsCapacity
                            guard let next else { return }
                            recordStart = next
                            continue records
                        } else {
                            throw Failure.nulByte(line: line)
                        }
                    }
                    // No line feed before the end of what was read.
                    guard endOfFile else { return }
                    try finish(fields, fieldStart, at: end)
                    recordStart = end
                }
            }()
            return recordStart
        }

        /// Where the next comma, line feed, quote or NUL is in buffer[from..<to] (or `to`), eight bytes
        /// at a time: in each word, a byte equal to one of them becomes a zero byte, and the lowest
        /// zero byte is found exactly by the borrow trick ((v - 0x01..) & ~v & 0x80..).
        @inline(__always)
        static func nextSpecial(_ buffer: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int) -> Int {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            @inline(__always) func zeros(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
            let raw = UnsafeRawPointer(buffer)
            var i = start
            while i &+ 8 <= end {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let found =
                    zeros(word ^ (ones &* 0x2C)) | zeros(word ^ (ones &* 0x0A)) | zeros(word ^ (ones &* 0x22))
                    | zeros(word)
                if found != 0 { return i &+ found.trailingZeroBitCount >> 3 }
                i &+= 8
            }
            while i < end {
                let byte = buffer[i]
                if byte == 0x2C || byte == 0x0A || byte == 0x22 || byte == 0 { return i }
                i &+= 1
            }
            return end
        }

        // Long: a state machine over one record's bytes (see the doc comment).
        /// The slow path, for a record with a quote in it: decodes the record into the scratch buffer
        /// and hands it on. Returns where the next record starts, or nil if the record is unfinished.
        /// A state machine (`QuoteState`), read best whole: each state's case says what every byte does
        /// in it, and the end of the input is one more transition.
        func quotedRecord<Sink: CSVRecordSink>(from start: Int, to end: Int, endOfFile: Bool, sink: inout Sink) throws
            -> Int?
        {
            if scratch == nil { scratch = .allocate(capacity: CSVReader.maximumRecordBytes + 1) }
            let out = scratch!
            var length = 0
            var fields = 0
            var fieldStart = 0
            var state = QuoteState.fieldStart
            var newlines = 0
            var i = start
            func endField() {
                if 2 &* fields &+ 2 > boundsCapacity { growBounds() }
                bounds[2 &* fields] = fieldStart
                bounds[2 &* fields &+ 1] = length
                fields &+= 1
                fieldStart = length
                state = .fieldStart
            }
            func append(_ byte: UInt8) throws {
                guard length < CSVReader.maximumRecordBytes else { throw tooLong(line) }
                out[length] = byte
                length &+= 1
            }
            func finish(next: Int) throws -> Int {
                endField()
                // A line with nothing on it is not a record.
                if fields > 1 || bounds[1] > bounds[0] {
                    try sink.record(CSVRecord(base: out, bounds: bounds, count: fields), line: line)
                }
                line &+= 1 &+ newlines
                return next
            }
            while i < end {
                let byte = buffer[i]
                i &+= 1
                if i &- start > CSVReader.maximumRecordBytes { throw tooLong(line) }
                if byte == 0 { throw Failure.nulByte(line: line + newlines) }
                switch state {
                case .fieldStart, .unquoted:
                    switch byte {
                    case 0x2C:
                        endField()
                    case 0x0A:
                        if state == .unquoted, length > fieldStart, out[length &- 1] == 0x0D { length &-= 1 }
                        return try finish(next: i)
                    case 0x22:
                        guard state == .fieldStart else {
                            throw Failure.quoteInUnquoted(line: line + newlines)
                        }
                        state = .quoted
                    default:
                        try append(byte)
                        state = .unquoted
                    }
                case .quoted:
                    if byte == 0x22 {
                        state = .quoteInQuoted
                    } else {
                        if byte == 0x0A { newlines &+= 1 }
                        try append(byte)
                    }
                case .quoteInQuoted:
                    switch byte {
                    case 0x22:
                        try append(byte)
                        state = .quoted
                    case 0x2C:
                        endField()
                    case 0x0A:
                        return try finish(next: i)
                    case 0x0D:
                        state = .carriageReturnAfterQuote
                    default:
                        throw Failure.textAfterQuote(line: line + newlines)
                    }
                case .carriageReturnAfterQuote:
                    guard byte == 0x0A else { throw Failure.textAfterQuote(line: line + newlines) }
                    return try finish(next: i)
                }
            }
            guard endOfFile else { return nil }
            switch state {
            case .quoted: throw Failure(line: line, message: "a quoted field is never closed")
            case .carriageReturnAfterQuote: return try finish(next: end)
            default:
                if state == .unquoted, length > fieldStart, out[length &- 1] == 0x0D { length &-= 1 }
                return try finish(next: end)
            }
        }
    }
}

extension CSVReader.Failure {
    static func nulByte(line: Int) -> Self { Self(line: line, message: "NUL byte; a metrics CSV is text") }

    static func quoteInUnquoted(line: Int) -> Self {
        Self(line: line, message: "a quote inside an unquoted field; quote the whole field and double the quote (\"\")")
    }

    static func textAfterQuote(line: Int) -> Self { Self(line: line, message: "text after a closing quote") }
}
