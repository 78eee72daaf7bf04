/// What changed between two packs: keys added, removed and changed, and header fields.
public struct PackDiff: Equatable, Sendable {
    public struct Change: Equatable, Sendable {
        public let key: String
        public let from: String
        public let to: String
    }

    public let from: PackID
    public let to: PackID
    public let added: [(key: String, value: String)]
    public let removed: [(key: String, value: String)]
    public let changed: [Change]
    /// Header fields that differ, by name: (old, new); absent values are nil.
    public let fields: [(name: String, from: String?, to: String?)]

    public init(from old: Pack, to new: Pack) {
        from = old.id
        to = new.id
        // Keys and values compare byte for byte (Swift's == would merge canonically equivalent keys).
        let oldByBytes = Dictionary(old.strings.map { (Array($0.key.utf8), $0.value) }, uniquingKeysWith: { a, _ in a })
        let newByBytes = Dictionary(new.strings.map { (Array($0.key.utf8), $0.value) }, uniquingKeysWith: { a, _ in a })
        added = new.strings.filter { oldByBytes[Array($0.key.utf8)] == nil }.map { ($0.key, $0.value) }.sorted {
            $0.0 < $1.0
        }
        removed = old.strings.filter { newByBytes[Array($0.key.utf8)] == nil }.map { ($0.key, $0.value) }.sorted {
            $0.0 < $1.0
        }
        changed = new.strings.keys.sorted().compactMap { key in
            guard let before = oldByBytes[Array(key.utf8)], !before.isSameText(as: new.strings[key]) else { return nil }
            return Change(key: key, from: before, to: new.strings[key]!)
        }
        var fields: [(String, String?, String?)] = []
        if old.minAppVersion.description != new.minAppVersion.description {
            fields.append(("minAppVersion", old.minAppVersion.description, new.minAppVersion.description))
        }
        if old.fallbackLocale != new.fallbackLocale {
            fields.append(("fallbackLocale", old.fallbackLocale, new.fallbackLocale))
        }
        if old.schemaVersion != new.schemaVersion {
            fields.append(("schemaVersion", "\(old.schemaVersion)", "\(new.schemaVersion)"))
        }
        self.fields = fields
    }

    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty && fields.isEmpty }

    public static func == (lhs: PackDiff, rhs: PackDiff) -> Bool { lhs.jsonValue == rhs.jsonValue }

    public var jsonValue: JSONValue {
        func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        return [
            "from": .string(from.description),
            "to": .string(to.description),
            "added": .object(Dictionary(uniqueKeysWithValues: added.map { ($0.key, JSONValue.string($0.value)) })),
            "removed": .object(Dictionary(uniqueKeysWithValues: removed.map { ($0.key, JSONValue.string($0.value)) })),
            "changed": .object(
                Dictionary(
                    uniqueKeysWithValues: changed.map {
                        ($0.key, ["from": .string($0.from), "to": .string($0.to)] as JSONValue)
                    })),
            "fields": .object(
                Dictionary(
                    uniqueKeysWithValues: fields.map {
                        ($0.name, ["from": optional($0.from), "to": optional($0.to)] as JSONValue)
                    })),
        ]
    }
}
