/// A fast reader of the rollups ingest writes, the compact form (one entry a line) and the older
/// pretty one alike: a year of them is millions of entries, too many for the generic parser's
/// tree of values (issue 36). It reads only what a rollup holds when its strings have no escapes
/// and its numbers are plain digits; on anything else (an escape, a fraction, a duplicate key, an
/// unknown member, a count out of range, damage) it gives up and the generic parser reads the
/// bytes, so that every answer and every message stays the generic parser's.
struct RollupScanner: JSONByteCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The rollup, or nil when the generic parser has to read it.
    static func parse(_ bytes: [UInt8], checkingRange: Bool) -> MetricRollup? {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = RollupScanner(buffer)
            var sink = DictionarySink(bytes: buffer)
            guard let head = scanner.rollup(checkingRange: checkingRange, into: &sink) else { return nil }
            return MetricRollup(
                kind: head.kind, locale: head.locale, day: head.day, counts: sink.counts, sources: sink.sources)
        }
    }

    /// What the scanner hands each entry to. `add` returns false to give up (the generic parser then
    /// reads the bytes).
    protocol Sink {
        /// Called once, before the first entry, with about how many entries there are.
        mutating func reserve(_ capacity: Int)
        /// One entry: `key` is the whole `VERSION|REGION|APP`, `cell` its `REGION|APP`, `separator`
        /// the index of the `|` between those two.
        mutating func add(
            version: Int, key: Range<Int>, cell: Range<Int>, separator: Int, counts: MetricCounts, source: Range<Int>
        ) -> Bool
    }

    /// The sink of `MetricRollup`: its two dictionaries; a key read twice gives up.
    struct DictionarySink: Sink {
        let bytes: UnsafeBufferPointer<UInt8>
        var counts: [MetricRollup.Key: MetricCounts] = [:]
        var sources: [MetricRollup.Key: String] = [:]

        mutating func reserve(_ capacity: Int) {
            counts.reserveCapacity(capacity)
            sources.reserveCapacity(capacity)
        }

        mutating func add(
            version: Int, key: Range<Int>, cell: Range<Int>, separator: Int, counts entry: MetricCounts,
            source: Range<Int>
        ) -> Bool {
            let key = MetricRollup.Key(
                contentVersion: version, region: text(cell.lowerBound..<separator),
                appVersion: text((separator + 1)..<cell.upperBound))
            guard counts.updateValue(entry, forKey: key) == nil else { return false }
            sources[key] = text(source)
            return true
        }

        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
    }

    /// The members other than `counts`.
    struct Head {
        let kind: MetricKind
        let locale: String
        let day: Int
    }

    // Long: the one top-level object, member by member, each at most once.
    mutating func rollup<S: Sink>(checkingRange: Bool, into sink: inout S) -> Head? {
        var kind: MetricKind?
        var locale: String?
        var date: Timestamp?
        var counts = false
        var columns = false
        guard take(UInt8(ascii: "{")) else { return nil }
        repeat {
            guard let name = string(), take(UInt8(ascii: ":")) else { return nil }
            switch text(name) {
            case "kind":
                guard kind == nil, let value = string(), let known = MetricKind(rawValue: text(value)) else {
                    return nil
                }
                kind = known
            case "locale":
                guard locale == nil, let value = string() else { return nil }
                locale = text(value)
            case "date":
                guard date == nil, let value = string(), let parsed = Timestamp(iso8601: text(value)) else {
                    return nil
                }
                date = parsed
            case "columns":
                guard !columns, names() else { return nil }
                columns = true
            case "counts":
                guard !counts, entries(checkingRange: checkingRange, into: &sink) else { return nil }
                counts = true
            default:
                return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), atEnd(), let kind, let locale, let date, counts else { return nil }
        return Head(kind: kind, locale: locale, day: Int(date.seconds / 86_400))
    }

    /// The `counts` object: `"VERSION|REGION|APP":[exposures,events,"source"]`, each entry to `sink`.
    mutating func entries<S: Sink>(checkingRange: Bool, into sink: inout S) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        // One entry of the compact form is about 40 bytes: reserving avoids growing the tables.
        sink.reserve(bytes.count / 40)
        repeat {
            guard let name = string(), let (version, cell, separator) = key(name), take(UInt8(ascii: ":")),
                take(UInt8(ascii: "[")), let total = digits(), take(UInt8(ascii: ",")), let events = digits(),
                take(UInt8(ascii: ",")), let source = string(), take(UInt8(ascii: "]"))
            else { return false }
            let entry = MetricCounts(total: total, events: events)
            if checkingRange && !entry.isInRange { return false }
            guard
                sink.add(
                    version: version, key: name, cell: cell, separator: separator, counts: entry, source: source)
            else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// `VERSION|REGION|APP` with VERSION plain digits without a leading zero: the version, the range
    /// of `REGION|APP` and the index of the `|` in it.
    func key(_ range: Range<Int>) -> (version: Int, cell: Range<Int>, separator: Int)? {
        guard let first = bytes[range].firstIndex(of: UInt8(ascii: "|")),
            let second = bytes[(first + 1)..<range.upperBound].firstIndex(of: UInt8(ascii: "|")),
            !bytes[(second + 1)..<range.upperBound].contains(UInt8(ascii: "|")),
            let version = number(range.lowerBound..<first)
        else { return nil }
        return (version, (first + 1)..<range.upperBound, second)
    }

    /// `columns`: an array of strings (what they say is not read, as the generic parser does not).
    mutating func names() -> Bool {
        guard take(UInt8(ascii: "[")) else { return false }
        if take(UInt8(ascii: "]")) { return true }
        repeat {
            guard string() != nil else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]"))
    }

    /// A string of printable ASCII without escapes: the range of its bytes between the quotes.
    mutating func string() -> Range<Int>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return start..<(index - 1)
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    /// A count: plain digits, no sign, fraction, exponent or leading zero, at most 18 of them.
    mutating func digits() -> Int? {
        skipWhitespace()
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        guard let value = number(start..<index) else { return nil }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
            return nil
        }
        return value
    }

    /// The value of 1 to 18 decimal digits without a leading zero (0 itself is one).
    func number(_ range: Range<Int>) -> Int? {
        guard (1...18).contains(range.count), range.count == 1 || bytes[range.lowerBound] != UInt8(ascii: "0") else {
            return nil
        }
        var value = 0
        for byte in bytes[range] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}
