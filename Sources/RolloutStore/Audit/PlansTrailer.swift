import RolloutModel

/// `Rollout-Plans`: what a change did to the plans, written into its commit by rollout (docs/audit.md,
/// "The Rollout-Plans trailer"). Each plan file the commit wrote, by locale: its blob before (`-`
/// for a new plan) and after, and the regions in which some device gets something else after the
/// change (an assigned region code, or `*` for devices in regions no rule names); `none` when the
/// commit changed no plan. The log index is built from these alone, without reading a tree or a
/// plan; `rollout verify` and the server's hook check every one against the commit's plans.
public struct PlansTrailer: Equatable, Sendable {
    public struct Item: Equatable, Sendable {
        public let locale: String
        /// The plan's blob before the change; nil for a new plan.
        public let before: String?
        public let after: String
        public let regions: [String]
    }

    /// Sorted by locale, one item each.
    public let items: [Item]

    /// The token for devices in regions no rule names, and the index file its changes go in.
    public static let otherRegions = "*"

    init(items: [Item]) {
        self.items = items.sorted { $0.locale.utf8.lexicographicallyPrecedes($1.locale.utf8) }
    }

    /// The trailer's value, as written.
    public var value: String {
        guard !items.isEmpty else { return "none" }
        return items.map { item in
            ([item.locale, item.before ?? "-", item.after] + item.regions).joined(separator: " ")
        }.joined(separator: "; ")
    }

    /// The trailer read back; nil for any value rollout would not write exactly so (an id that is not
    /// 40 lowercase hex digits, regions out of order, a locale twice, another spacing): such a commit
    /// is read as one without the trailer, from its trees. Read on bytes: the log index reads one per
    /// change of the history.
    public init?(value: String) {
        guard value != "none" else {
            self.init(items: [])
            return
        }
        var items: [Item] = []
        var reader = Reader(bytes: Array(value.utf8))
        repeat {
            guard let locale = reader.word(), PlansTrailer.isLocale(locale),
                items.last.map({ $0.locale.utf8.lexicographicallyPrecedes(locale.utf8) }) ?? true,
                reader.take(" "), let before = reader.word(), before == "-" || PlansTrailer.isBlob(before),
                reader.take(" "), let after = reader.word(), PlansTrailer.isBlob(after)
            else { return nil }
            var regions: [String] = []
            while reader.take(" ") {
                guard let region = reader.word(), PlansTrailer.isRegion(region),
                    regions.last.map({ $0.utf8.lexicographicallyPrecedes(region.utf8) }) ?? true
                else { return nil }
                regions.append(region)
            }
            items.append(Item(locale: locale, before: before == "-" ? nil : before, after: after, regions: regions))
        } while reader.take(";") && reader.take(" ")
        guard reader.atEnd else { return nil }
        self.init(items: items)
    }

    /// Words of a trailer value: runs of bytes up to a space or a semicolon.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var atEnd: Bool { position == bytes.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
            position += 1
            return true
        }

        /// The next word, or nil when there is none here.
        mutating func word() -> String? {
            let start = position
            while position < bytes.count, bytes[position] != 0x20, bytes[position] != 0x3B { position += 1 }
            return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
        }
    }

    /// The trailer for a commit whose plan files changed as `changed` says (`locale`, blob before,
    /// blob after), each plan read by `plan`; nil when one cannot be read as a plan or its locale
    /// cannot be written in the trailer (the commit is then recorded without it).
    static func of(
        _ changed: [(locale: String, before: ObjectID?, after: ObjectID)], plan: (ObjectID) throws -> Plan?
    ) rethrows -> PlansTrailer? {
        var items: [Item] = []
        for change in changed {
            guard isLocale(change.locale), let after = try plan(change.after) else { return nil }
            let before: Plan
            if let id = change.before {
                guard let read = try plan(id) else { return nil }
                before = read
            } else {
                before = Plan(locale: change.locale)
            }
            items.append(
                Item(
                    locale: change.locale, before: change.before?.hex, after: change.after.hex,
                    regions: regions(from: before, to: after)))
        }
        return PlansTrailer(items: items)
    }

    /// The regions a change of plan from `before` to `after` altered, as tokens: each assigned region
    /// code whose devices get something else, and `*` for devices in any other region. The one rule
    /// both the trailer and the index's pointer files (`region-<R>.idx`, `region-_other.idx`) follow.
    public static func regions(from before: Plan, to after: Plan) -> [String] {
        let labels = SegmentShares.regionsChanged(from: before, to: after)
        return Set(labels.map { Region.assigned.contains($0) ? $0 : otherRegions }).sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        }
    }

    /// The locale of a plan file the log records: a blob directly in `plans/` named `<locale>.json`.
    static func locale(ofPlanFile name: Substring) -> String? {
        name.hasSuffix(".json") ? String(name.dropLast(5)) : nil
    }

    /// The same for a path in the repository: `plans/<locale>.json`, and nothing deeper.
    static func locale(ofPlanPath path: String) -> String? {
        let directory = StateLayout.plansDirectory + "/"
        let name = path.dropFirst(directory.count)
        return path.hasPrefix(directory) && !name.contains("/") ? locale(ofPlanFile: name) : nil
    }

    private static func isLocale(_ word: String) -> Bool {
        !word.isEmpty && word != "none"
            && word.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }

    private static func isBlob(_ word: String) -> Bool {
        word.utf8.count == 40 && word.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func isRegion(_ word: String) -> Bool {
        word == otherRegions || Region.assigned.contains(word)
    }
}

extension PlansTrailer {
    /// The trailer a commit carries, when it carries one rollout can read (nil: none, or not as
    /// rollout writes it).
    static func of(_ trailers: [(name: String, value: String)]) -> PlansTrailer? {
        let values = trailers.values(.plans)
        guard values.count == 1 else { return nil }
        return PlansTrailer(value: values[0])
    }
}

extension Change {
    /// Records `trailer` in the commit message, before `Rollout-Actor`; an approval's message (the
    /// proposal's) has its proposal's replaced, as the approval applies it on main's tip.
    mutating func record(_ trailer: PlansTrailer?) {
        let prefix = "Rollout-\(Trailer.plans.rawValue):"
        if var approving {
            var lines = approving.message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let kept = lines.firstIndex { $0.hasPrefix(prefix) }
            lines.removeAll { $0.hasPrefix(prefix) }
            if let trailer {
                let actor = lines.lastIndex { $0.hasPrefix("Rollout-\(Trailer.actor.rawValue):") } ?? lines.count
                lines.insert("\(prefix) \(trailer.value)", at: min(kept ?? actor, actor))
            }
            approving.message = lines.joined(separator: "\n")
            self.approving = approving
            return
        }
        trailers.removeAll { $0.name == .plans }
        if let trailer { trailers.append((.plans, trailer.value)) }
    }
}

extension PackRepository {
    /// The `Rollout-Plans` trailer of `change` applied on `snapshot`, where `ids` are the blob ids
    /// of `change.writes` (written, or only hashed in a dry run); nil when a plan it writes cannot
    /// be read as one.
    func plansTrailer(for change: Change, writtenAs ids: [ObjectID], on snapshot: Snapshot) throws -> PlansTrailer? {
        var after: [String: (id: ObjectID, bytes: [UInt8]?)] = [:]
        for (write, id) in zip(change.writes, ids) { after[write.path] = (id, write.bytes) }
        for blob in change.blobs { after[blob.path] = (blob.blob, nil) }
        var changed: [(locale: String, before: ObjectID?, after: ObjectID)] = []
        var written: [ObjectID: [UInt8]] = [:]
        for (path, new) in after {
            guard let locale = PlansTrailer.locale(ofPlanPath: path) else { continue }
            let before = try snapshot.tree.flatMap { try git.treeEntry($0, path: path) }
            if let before, before.isTree { return nil }
            guard before?.id != new.id else { continue }
            changed.append((locale, before?.id, new.id))
            if let bytes = new.bytes { written[new.id] = bytes }
        }
        return try PlansTrailer.of(changed) { id in
            let bytes = try written[id] ?? git.readBlob(id)
            return try? Plan.parse(bytes, source: id.hex)
        }
    }
}
