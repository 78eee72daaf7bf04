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
    mutating func add(_ line: [UInt8], sequence: Int, pointers files: [String]) {
        lineStarts.append(changes.count)
        changes.append(contentsOf: line)
        for file in files { pointers[file, default: []].append((sequence, lineStarts.count - 1)) }
    }

    /// Appends everything to `family`'s files (changes first, then the pointers to them); returns each
    /// file's length afterwards, by its name in the index directory.
    /// `appendsBeforeKill`: see `AuditLog.appendsBeforeKill`.
    func flush(to directory: String, family: IndexFamily, appendsBeforeKill: inout Int?) throws -> [String: Int] {
        guard !changes.isEmpty else { return [:] }
        let folder = directory + "/" + family.prefix
        if family.prefix != "" && !FileManager.default.fileExists(atPath: folder) {
            guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil
            else {
                throw AuditLog.IndexUnavailable()
            }
        }
        var sizes: [String: Int] = [:]
        let base = try append(changes, to: folder + "changes.jsonl", appendsBeforeKill: &appendsBeforeKill)
        sizes[family.prefix + "changes.jsonl"] = base + changes.count
        for (file, items) in pointers {
            var text = ""
            for item in items { text += "\(item.sequence) \(base + lineStarts[item.line])\n" }
            let bytes = Array(text.utf8)
            sizes[family.prefix + file] =
                try append(bytes, to: folder + file, appendsBeforeKill: &appendsBeforeKill) + bytes.count
        }
        return sizes
    }

    /// Appends, first finishing any line a killed update left half-written; returns where `bytes` start.
    /// A write that fails (a full disk) cuts the file back to where it was and makes the index
    /// unavailable for this query.
    private func append(_ bytes: [UInt8], to path: String, appendsBeforeKill: inout Int?) throws -> Int {
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
        if let left = appendsBeforeKill {
            appendsBeforeKill = left - 1
            if left == 0 {
                appendsBeforeKill = nil
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
