import Foundation

/// Random access to a changes file by byte offset.
final class ChangesFile {
    let path: String
    private let fd: Int32

    init(path: String) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// The line starting at `offset`, or nil past the end.
    func line(at offset: Int) -> Substring? {
        guard fd >= 0 else { return nil }
        var bytes: [UInt8] = []
        var position = offset
        while true {
            let chunk = readBlock(fd, size: 4096, at: position)
            guard !chunk.isEmpty else { break }
            if let newline = chunk.firstIndex(of: 0x0A) {
                bytes += chunk[..<newline]
                break
            }
            bytes += chunk
            position += chunk.count
        }
        return bytes.isEmpty ? nil : lineText(bytes)
    }
}

/// Walks one index newest first across both families: a pointer file (`<seq> <offset>` lines) or,
/// with no pointer file, the changes files themselves. `later/` is read from its end (its changes are
/// oldest first), then the first family from its start (newest first), each only up to the length
/// the index recorded, so lines another process is appending are not read half-written.
final class FamilyCursor {
    private let later: ReverseLineReader
    private let first: ForwardLineReader
    private let files: IndexFamily.Files
    private let pointers: String?

    /// `sizes`: the lengths `HEAD` records; `later/` is read back from there, never from what an
    /// update killed before `HEAD` covered it left after it.
    init(_ files: IndexFamily.Files, pointers: String?, sizes: [String: Int]) {
        self.files = files
        self.pointers = pointers
        let name = pointers ?? "changes.jsonl"
        let laterName = IndexFamily.later.prefix + name
        later = ReverseLineReader(path: files.directory + "/" + laterName, end: sizes[laterName] ?? 0)
        first = ForwardLineReader(path: files.directory + "/" + name)
        first.limit = sizes[name] ?? 0
    }

    /// Reads the first family up to the length `sizes` records for it (it grows as the index does).
    func read(upTo sizes: [String: Int]) {
        first.limit = sizes[pointers ?? "changes.jsonl"] ?? 0
    }

    /// The next change below `below` and not below `floor` (skipping duplicates a killed update left,
    /// lines that do not parse, and anything newer than the query's start).
    func next(below: Int, floor: Int) -> (sequence: Int, line: Substring)? {
        while let line = later.next() {
            if let found = resolve(line, in: files.later, below: below, floor: floor) { return found }
        }
        while let line = first.next() {
            if let found = resolve(line, in: files.first, below: below, floor: floor) { return found }
        }
        return nil
    }

    private func resolve(_ line: Substring, in changes: ChangesFile, below: Int, floor: Int) -> (
        sequence: Int, line: Substring
    )? {
        // Not a Range, which would trap were `floor` ever above `below`.
        func wanted(_ sequence: Int) -> Bool { sequence < below && sequence >= floor }
        guard pointers != nil else {
            guard let sequence = FamilyCursor.sequence(of: line), wanted(sequence) else { return nil }
            return (sequence, line)
        }
        let parts = line.split(separator: " ")
        guard parts.count == 2, let sequence = Int(parts[0]), let offset = Int(parts[1]), wanted(sequence),
            let change = changes.line(at: offset), FamilyCursor.sequence(of: change) == sequence
        else { return nil }
        return (sequence, change)
    }

    /// The `seq` of a change line, read without parsing the whole line (canonical JSON puts it last
    /// among the short members; a full parse follows for the lines that are used).
    static func sequence(of line: Substring) -> Int? {
        let bytes = line.utf8
        let key = FamilyCursor.seqKey
        var start = bytes.startIndex
        while let quote = bytes[start...].firstIndex(of: key[0]) {
            if bytes[quote...].starts(with: key) {
                let digits = bytes[bytes.index(quote, offsetBy: key.count)...].prefix { (0x30...0x39).contains($0) }
                return digits.isEmpty || digits.count > 18 ? nil : digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            }
            start = bytes.index(after: quote)
        }
        return nil
    }

    private static let seqKey = Array("\"seq\":".utf8)
}

/// Reads a file's lines from the last before `end` to the first, a block at a time.
final class ReverseLineReader {
    private var fd: Int32
    private var offset: Int
    private var pending: [UInt8] = []
    private static let block = 64 * 1024

    init(path: String, end: Int) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        offset = fd >= 0 ? min(end, Int(lseek(fd, 0, SEEK_END))) : 0
    }

    deinit { if fd >= 0 { close(fd) } }

    func next() -> Substring? {
        while true {
            if let newline = pending.lastIndex(of: 0x0A) {
                let line = pending[(newline + 1)...]
                defer { pending.removeSubrange(newline...) }
                if line.isEmpty { continue }
                return lineText(line)
            }
            guard offset > 0 else {
                defer { pending = [] }
                return pending.isEmpty ? nil : lineText(pending)
            }
            let size = min(ReverseLineReader.block, offset)
            offset -= size
            pending = readBlock(fd, size: size, at: offset) + pending
        }
    }
}

/// Reads a file's lines from the first, a block at a time, up to `limit` bytes; raising the limit
/// later goes on where it stopped.
final class ForwardLineReader {
    private let path: String
    private var fd: Int32 = -1
    private var offset = 0
    private var pending: [UInt8] = []
    private var start = 0
    var limit = 0
    private static let block = 64 * 1024

    /// The file is opened when there is something to read: a pointer file no change has written yet
    /// may be created when the index grows back.
    init(path: String) {
        self.path = path
    }

    deinit { if fd >= 0 { close(fd) } }

    func next() -> Substring? {
        while true {
            if let newline = pending[start...].firstIndex(of: 0x0A) {
                let line = pending[start..<newline]
                start = newline + 1
                if line.isEmpty { continue }
                return lineText(line)
            }
            if fd < 0 && offset < limit { fd = open(path, O_RDONLY | O_CLOEXEC) }
            guard fd >= 0, offset < limit else {
                // What is left before the limit has no newline yet: the index never records a length
                // inside a line, so it is a torn line, and it is skipped.
                return nil
            }
            let chunk = readBlock(fd, size: min(ForwardLineReader.block, limit - offset), at: offset)
            guard !chunk.isEmpty else { return nil }
            offset += chunk.count
            pending = Array(pending[start...]) + chunk
            start = 0
        }
    }
}

/// Up to `size` bytes of `fd` from `offset`; empty at the end of the file or when the read fails.
private func readBlock(_ fd: Int32, size: Int, at offset: Int) -> [UInt8] {
    var chunk = [UInt8](repeating: 0, count: size)
    let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, size, off_t(offset)) }
    chunk.removeSubrange(max(0, n)...)
    return chunk
}

/// A line's bytes as text.
private func lineText<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Substring {
    Substring(String(decoding: bytes, as: UTF8.self))
}
