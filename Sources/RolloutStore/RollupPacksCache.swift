import Foundation
import RolloutModel

/// The content versions each rollup blob names, remembered in `<repository>/rollout/rollup-packs`
/// so that health, guard and the report do not inflate a year of rollups again and again to find
/// the few weeks that hold a staged pack (docs/performance.md, "health, guard and report on a year
/// of metrics"). Only a cache, and one that cannot go stale: a blob's id is the hash of its bytes,
/// so the versions it names never change. A file that is missing or damaged (its first line is not
/// the format, or its last does not count the lines between) is ignored and written anew; one that
/// cannot be written is done without.
final class RollupPacksCache {
    static let format = "rollout-rollup-packs-1"
    let path: String
    private var known: [ObjectID: [Int]] = [:]
    private var learned = 0

    /// `file` names the cache: `rollup-packs` (the versions each rollup names), `rollup-totals`
    /// (each version's summed counts in it, as VERSION,TOTAL,EVENTS triples; `MetricsLayout.totals`).
    init(repositoryPath: String, file: String = "rollup-packs") {
        path = (repositoryPath.hasSuffix("/") ? repositoryPath : repositoryPath + "/") + "rollout/" + file
        if let data = FileManager.default.contents(atPath: path) { known = Self.read(data) ?? [:] }
    }

    /// `HEX VERSION,VERSION...` lines between the format and `end N`; nil when damaged.
    static func read(_ data: Data) -> [ObjectID: [Int]]? {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[0] == format, lines[lines.count - 1].isEmpty,
            lines[lines.count - 2] == "end \(lines.count - 3)"
        else { return nil }
        var known: [ObjectID: [Int]] = [:]
        for line in lines[1..<(lines.count - 2)] {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2, let id = ObjectID(hex: String(parts[0])) else { return nil }
            let versions = parts[1].isEmpty ? [] : parts[1].split(separator: ",").compactMap { Int($0) }
            guard versions.map(String.init).joined(separator: ",") == parts[1] else { return nil }
            known[id] = versions
        }
        return known
    }

    func versions(of blob: ObjectID) -> [Int]? { known[blob] }

    func record(_ blob: ObjectID, _ versions: [Int]) {
        guard known[blob] == nil else { return }
        known[blob] = versions
        learned += 1
    }

    /// Writes the file when this process learned something, as `LocalFile.replace` writes a cache
    /// (a temporary file renamed over it, not flushed): a reader sees the old file or the new one,
    /// never half of one. A file that cannot be written is done without.
    func save() {
        guard learned > 0 else { return }
        var text = Self.format + "\n"
        for (id, versions) in known {
            text += id.hex + " " + versions.map(String.init).joined(separator: ",") + "\n"
        }
        text += "end \(known.count)\n"
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try LocalFile.replace(path, with: Array(text.utf8), name: path, durable: false)
            learned = 0
        } catch {
            return
        }
    }
}
