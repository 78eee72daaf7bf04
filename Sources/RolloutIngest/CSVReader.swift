#if canImport(Glibc)
import Glibc
#endif
import RolloutModel

/// A streaming RFC 4180 reader over raw bytes: constant memory whatever the file size. Fields may be
/// quoted (`"a ""b"", c"`), records end in LF or CRLF, a UTF-8 byte order mark at the start is
/// skipped. NUL bytes, an unclosed quote, and records longer than `maximumRecordBytes` are errors
/// that name the line.
public struct CSVReader {
    public struct Failure: Error, Equatable {
        public let line: Int
        public let message: String
    }

    public static let maximumRecordBytes = 1 << 20
    static let chunk = 1 << 20

    /// Reads `path`, calling `record` with each record's fields (valid until the next call) and the
    /// line it started on. Returns the number of bytes read.
    @discardableResult
    public static func read(
        path: String, chunk onChunk: (ArraySlice<UInt8>) -> Void = { _ in }, record: (_ fields: [ArraySlice<UInt8>], _ line: Int) throws -> Void
    ) throws -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RolloutError.missing("\(path): cannot open (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        var parser = Parser()
        var buffer = [UInt8](repeating: 0, count: chunk)
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, chunk) }
            guard n >= 0 else { throw RolloutError.badInput("\(path): read failed (\(String(cString: strerror(errno))))") }
            if n == 0 { break }
            total += n
            onChunk(buffer[0..<n])
            try parser.feed(buffer[0..<n], record: record)
        }
        try parser.finish(record: record)
        return total
    }

    /// Parses bytes already in memory (for tests and small inputs).
    public static func parse(_ bytes: [UInt8], record: (_ fields: [ArraySlice<UInt8>], _ line: Int) throws -> Void) throws {
        var parser = Parser()
        try parser.feed(bytes[...], record: record)
        try parser.finish(record: record)
    }

    /// The state machine over bytes; fields are slices of one record buffer that is reused.
    struct Parser {
        enum State { case fieldStart, unquoted, quoted, quoteInQuoted, carriageReturnAfterQuote }

        var state = State.fieldStart
        var recordBytes: [UInt8] = []
        var fieldStarts: [Int] = [0]
        var fieldEnds: [Int] = []
        var line = 1
        var recordLine = 1
        var checkedBOM = false

        init() { recordBytes.reserveCapacity(4096) }

        mutating func feed(_ bytes: ArraySlice<UInt8>, record: ([ArraySlice<UInt8>], Int) throws -> Void) throws {
            var index = bytes.startIndex
            if !checkedBOM {
                if bytes.count >= 3, bytes[index] == 0xEF, bytes[index + 1] == 0xBB, bytes[index + 2] == 0xBF { index += 3 }
                checkedBOM = true
            }
            while index < bytes.endIndex {
                let byte = bytes[index]
                index += 1
                if byte == 0 { throw Failure(line: line, message: "NUL byte; a metrics CSV is text") }
                switch state {
                case .fieldStart, .unquoted:
                    switch byte {
                    case UInt8(ascii: ","):
                        endField()
                    case 0x0A:
                        if state == .unquoted, recordBytes.last == 0x0D { recordBytes.removeLast() }
                        try endRecord(record)
                    case UInt8(ascii: "\""):
                        guard state == .fieldStart else {
                            throw Failure(line: line, message: "a quote inside an unquoted field; quote the whole field and double the quote (\"\")")
                        }
                        state = .quoted
                    default:
                        recordBytes.append(byte)
                        state = .unquoted
                    }
                case .quoted:
                    if byte == UInt8(ascii: "\"") {
                        state = .quoteInQuoted
                    } else {
                        if byte == 0x0A { line += 1 }
                        recordBytes.append(byte)
                    }
                case .quoteInQuoted:
                    switch byte {
                    case UInt8(ascii: "\""):
                        recordBytes.append(byte)
                        state = .quoted
                    case UInt8(ascii: ","):
                        endField()
                    case 0x0A:
                        try endRecord(record)
                    case 0x0D:
                        state = .carriageReturnAfterQuote
                    default:
                        throw Failure(line: line, message: "text after a closing quote")
                    }
                case .carriageReturnAfterQuote:
                    guard byte == 0x0A else { throw Failure(line: line, message: "text after a closing quote") }
                    try endRecord(record)
                }
                if recordBytes.count + fieldEnds.count > CSVReader.maximumRecordBytes {
                    throw Failure(line: recordLine, message: "the record starting on this line is longer than \(CSVReader.maximumRecordBytes >> 20) MiB; a metrics row is a few dozen bytes")
                }
            }
        }

        mutating func endField() {
            fieldEnds.append(recordBytes.count)
            fieldStarts.append(recordBytes.count)
            state = .fieldStart
        }

        mutating func endRecord(_ record: ([ArraySlice<UInt8>], Int) throws -> Void) throws {
            endField()
            let fields = (0..<fieldEnds.count).map { recordBytes[fieldStarts[$0]..<fieldEnds[$0]] }
            // A line with nothing on it is not a record.
            if !(fields.count == 1 && fields[0].isEmpty) { try record(fields, recordLine) }
            recordBytes.removeAll(keepingCapacity: true)
            fieldStarts = [0]
            fieldEnds.removeAll(keepingCapacity: true)
            line += 1
            recordLine = line
        }

        mutating func finish(record: ([ArraySlice<UInt8>], Int) throws -> Void) throws {
            switch state {
            case .quoted: throw Failure(line: recordLine, message: "a quoted field is never closed")
            case .fieldStart where recordBytes.isEmpty && fieldEnds.isEmpty: return
            default:
                if recordBytes.last == 0x0D { recordBytes.removeLast() }
                try endRecord(record)
            }
        }
    }
}
