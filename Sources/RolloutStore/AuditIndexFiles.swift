import Foundation

/// The two sets of files of the log index (docs/audit.md, "The index"). `first`: the files the index
/// was first built in, at the top of the index directory, holding changes newest first from where the
/// first query found the tip down to the floor, and grown at their end as older changes are needed.
/// `later`: the same files under `later/`, holding the changes made since, oldest first.
enum IndexFamily {
    case first
    case later

    /// Prepended to a file's name.
    var prefix: String {
        switch self {
        case .first: ""
        case .later: "later/"
        }
    }

    /// The changes files of both, opened once for a query.
    struct Files {
        let directory: String
        let first: ChangesFile
        let later: ChangesFile

        init(directory: String) {
            self.directory = directory
            first = ChangesFile(path: directory + "/changes.jsonl")
            later = ChangesFile(path: directory + "/" + IndexFamily.later.prefix + "changes.jsonl")
        }
    }
}

/// Index lines waiting to be appended: the change lines, and for each pointer file its `<seq> <n>`
/// lines, where n is the change's position in this batch until `flush` turns it into a byte offset.
struct Batch {
    var changes: [UInt8] = []
    var lineStarts: [Int] = []
    var pointers: [String: [(sequence: Int, line: Int)]] = [:]
    /// Tests only: after this many more appends, the next one writes half its bytes and fails, as
    /// when the process is killed in the middle of an update (AuditIndexModelTests).
    nonisolated(unsafe) static var appendsBeforeKill: Int?

    mutating func add(_ line: [UInt8], sequence: Int, pointers files: [String]) {
        lineStarts.append(changes.count)
        changes.append(contentsOf: line)
        for file in files { pointers[file, default: []].append((sequence, lineStarts.count - 1)) }
    }

    /// Appends everything to `family`'s files (changes first, then the pointers to them); returns each
    /// file's length afterwards, by its name in the index directory.
    func flush(to directory: String, family: IndexFamily) throws -> [String: Int] {
        guard !changes.isEmpty else { return [:] }
        let folder = directory + "/" + family.prefix
        if family.prefix != "" && !FileManager.default.fileExists(atPath: folder) {
            guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil else {
                throw AuditLog.IndexUnavailable()
            }
        }
        var sizes: [String: Int] = [:]
        let base = try append(changes, to: folder + "changes.jsonl")
        sizes[family.prefix + "changes.jsonl"] = base + changes.count
        for (file, items) in pointers {
            var text = ""
            for item in items { text += "\(item.sequence) \(base + lineStarts[item.line])\n" }
            let bytes = Array(text.utf8)
            sizes[family.prefix + file] = try append(bytes, to: folder + file) + bytes.count
        }
        return sizes
    }

    /// Appends, first finishing any line a killed update left half-written; returns where `bytes` start.
    /// A write that fails (a full disk) cuts the file back to where it was and makes the index
    /// unavailable for this query.
    private func append(_ bytes: [UInt8], to path: String) throws -> Int {
        let fd = open(path, O_CREAT | O_RDWR | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AuditLog.IndexUnavailable() }
        defer { close(fd) }
        let original = Int(lseek(fd, 0, SEEK_END))
        var size = original
        var data = bytes
        if size > 0 {
            var last: UInt8 = 0
            _ = pread(fd, &last, 1, off_t(size - 1))
            if last != 0x0A {
                data.insert(0x0A, at: 0)
                size += 1
            }
        }
        if let left = Batch.appendsBeforeKill {
            Batch.appendsBeforeKill = left - 1
            if left == 0 {
                Batch.appendsBeforeKill = nil
                data.removeLast(data.count / 2)
                _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                throw AuditLog.IndexUnavailable()
            }
        }
        var written = 0
        while written < data.count {
            let n = data[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                _ = ftruncate(fd, off_t(original))
                throw AuditLog.IndexUnavailable()
            }
            written += n
        }
        return size
    }
}

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
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 4096, off_t(position)) }
            guard n > 0 else { break }
            if let newline = chunk[..<n].firstIndex(of: 0x0A) {
                bytes += chunk[..<newline]
                break
            }
            bytes += chunk[..<n]
            position += n
        }
        return bytes.isEmpty ? nil : Substring(String(decoding: bytes, as: UTF8.self))
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

    private func resolve(_ line: Substring, in changes: ChangesFile, below: Int, floor: Int) -> (sequence: Int, line: Substring)? {
        guard pointers != nil else {
            guard let sequence = FamilyCursor.sequence(of: line), sequence < below, sequence >= floor else { return nil }
            return (sequence, line)
        }
        let parts = line.split(separator: " ")
        guard parts.count == 2, let sequence = Int(parts[0]), let offset = Int(parts[1]), sequence < below, sequence >= floor,
            let change = changes.line(at: offset), FamilyCursor.sequence(of: change) == sequence
        else { return nil }
        return (sequence, change)
    }

    /// The `seq` of a change line, read without parsing the whole line (canonical JSON puts it last
    /// among the short members; a full parse follows for the lines that are used).
    static func sequence(of line: Substring) -> Int? {
        guard let range = line.range(of: "\"seq\":") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }
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
                return Substring(String(decoding: line, as: UTF8.self))
            }
            guard offset > 0 else {
                defer { pending = [] }
                return pending.isEmpty ? nil : Substring(String(decoding: pending, as: UTF8.self))
            }
            let size = min(ReverseLineReader.block, offset)
            offset -= size
            var chunk = [UInt8](repeating: 0, count: size)
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, size, off_t(offset)) }
            chunk.removeSubrange(max(0, n)...)
            pending = chunk + pending
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
                return Substring(String(decoding: line, as: UTF8.self))
            }
            if fd < 0 && offset < limit { fd = open(path, O_RDONLY | O_CLOEXEC) }
            guard fd >= 0, offset < limit else {
                // What is left before the limit has no newline yet: the index never records a length
                // inside a line, so it is a torn line, and it is skipped.
                return nil
            }
            let size = min(ForwardLineReader.block, limit - offset)
            var chunk = [UInt8](repeating: 0, count: size)
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, size, off_t(offset)) }
            guard n > 0 else { return nil }
            offset += n
            pending = Array(pending[start...]) + chunk[..<n]
            start = 0
        }
    }
}
