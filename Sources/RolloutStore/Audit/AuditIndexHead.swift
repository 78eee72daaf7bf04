import Foundation

/// The log index's `HEAD` (docs/audit.md, "The index"): what the index covers and how long each of
/// its files was after the update that recorded it.
extension AuditLog {
    /// The index format: an index in any other format (or missing its changes file) is rebuilt.
    static let format = "rollout-log-index-4"

    /// What the index covers: every change from `floorSeq` (commit `floor`) up to `tipSeq` (commit
    /// `tip`), and the length of each file after the update that recorded this.
    struct Coverage {
        /// Made when the index is started: an index thrown away and started again by another process
        /// while a query reads it has another, and the query starts over.
        var generation: String
        var tip: String
        var tipSeq: Int
        var floor: String
        var floorSeq: Int
        var sizes: [String: Int] = [:]
        /// Down to the first commit: nothing older to index.
        var complete: Bool { floorSeq <= 1 }
    }

    /// `HEAD`: `<format> <tip> <tipSeq> <floor> <floorSeq> <generation>`, then `<file> <length>` for
    /// each index file; nil when missing, in another format, or without the changes file it describes.
    func readHead() -> Coverage? {
        guard let text = try? String(contentsOfFile: directory + "/HEAD", encoding: .utf8),
            FileManager.default.fileExists(atPath: directory + "/changes.jsonl")
        else { return nil }
        return Coverage(head: text)
    }

    /// One atomic write: what the index covers and the length of every file that holds it. Any
    /// failure makes the index unavailable, not the query.
    func writeHead(_ coverage: Coverage) throws {
        let path = directory + "/HEAD"
        do {
            try LocalFile.replace(path, with: Array(coverage.head.utf8), name: path, mode: 0o644, durable: false)
        } catch {
            throw IndexUnavailable()
        }
    }

    /// The length of an index file now (0 when it is missing).
    func length(of file: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + file))?[.size] as? Int) ?? 0
    }

    /// The first of `files` (every file `sizes` records, when nil) that is now shorter than `sizes`
    /// records: deleted or cut since the index wrote it. A file `sizes` does not list reads as empty.
    func shortenedFile(among files: [String]? = nil, sizes: [String: Int]) -> String? {
        (files ?? Array(sizes.keys)).first { length(of: $0) < sizes[$0] ?? 0 }
    }
}

extension AuditLog.Coverage {
    /// Reads `HEAD`'s text; nil in another format or with a line it does not understand.
    init?(head text: String) {
        let lines = text.split(separator: "\n")
        guard let first = lines.first else { return nil }
        let parts = first.split(separator: " ")
        guard parts.count == 6, parts[0] == AuditLog.format, parts[1].count == 40, parts[3].count == 40,
            let tipSeq = Int(parts[2]), let floorSeq = Int(parts[4]), floorSeq >= 1, floorSeq <= tipSeq
        else { return nil }
        self.init(
            generation: String(parts[5]), tip: String(parts[1]), tipSeq: tipSeq, floor: String(parts[3]),
            floorSeq: floorSeq)
        for line in lines.dropFirst() {
            let item = line.split(separator: " ")
            guard item.count == 2, let size = Int(item[1]) else { return nil }
            sizes[String(item[0])] = size
        }
    }

    /// `HEAD`'s text: the files sorted by name.
    var head: String {
        let first = "\(AuditLog.format) \(tip) \(tipSeq) \(floor) \(floorSeq) \(generation)\n"
        return first + sizes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
    }
}
