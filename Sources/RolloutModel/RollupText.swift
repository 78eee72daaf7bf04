/// The bytes a rollup is stored as (docs/metrics.md, "Rollups"): JSON with its keys in order,
/// one count a line, so that `git show` and `git diff` read it and any JSON parser does:
///
///     {"columns":["sessions","crashes"],"counts":{
///     "17|CY|4.9":[5000,10,"759c754d8def"],
///     "18|TR|4.9":[2500,2,"759c754d8def"]
///     },"date":"2026-11-28","kind":"crash","locale":"tr-TR"}
///
/// Counts are in byte order of their key, the order `JSONWriter` sorts ASCII keys in, so that the
/// same counts are always the same bytes (and the same blob), whoever writes them. Ingest writes a
/// new rollup straight from its sorted sums through `appendCount`; every other writer goes through
/// `MetricRollup.storedBytes`. Rollups written by earlier versions are pretty JSON (one value a line);
/// both are read alike, and rewriting one writes it in this form.
public struct RollupTextWriter {
    public private(set) var bytes: [UInt8] = []
    private var counts = 0
    private let footer: [UInt8]

    public init(kind: MetricKind, locale: String, date: String, expectedCounts: Int = 0) {
        bytes.reserveCapacity(96 + expectedCounts * 40)
        bytes += Array(#"{"columns":["#.utf8)
        JSONWriter.writeString(kind.columns.total, into: &bytes)
        bytes.append(UInt8(ascii: ","))
        JSONWriter.writeString(kind.columns.events, into: &bytes)
        bytes += Array(#"],"counts":{"#.utf8)
        var end = Array("\n},\"date\":".utf8)
        JSONWriter.writeString(date, into: &end)
        end += Array(#","kind":"#.utf8)
        JSONWriter.writeString(kind.rawValue, into: &end)
        end += Array(#","locale":"#.utf8)
        JSONWriter.writeString(locale, into: &end)
        end += Array("}\n".utf8)
        footer = end
    }

    /// One count, its key given as the JSON string's contents (`quotedKey`, already escaped:
    /// `quoted`), in key order: the caller sorts.
    @inline(__always)
    public mutating func appendCount(
        quotedKey: UnsafeBufferPointer<UInt8>, total: Int, events: Int, quotedSource: UnsafeBufferPointer<UInt8>
    ) {
        beginCount()
        bytes.append(contentsOf: quotedKey)
        endCount(total: total, events: events, quotedSource: quotedSource)
    }

    /// The same for a key given as its three parts, VERSION|REGION|APP, each already quoted.
    @inline(__always)
    public mutating func appendCount(
        version: UnsafeBufferPointer<UInt8>, region: UnsafeBufferPointer<UInt8>, app: UnsafeBufferPointer<UInt8>,
        total: Int, events: Int, quotedSource: UnsafeBufferPointer<UInt8>
    ) {
        beginCount()
        bytes.append(contentsOf: version)
        bytes.append(UInt8(ascii: "|"))
        bytes.append(contentsOf: region)
        bytes.append(UInt8(ascii: "|"))
        bytes.append(contentsOf: app)
        endCount(total: total, events: events, quotedSource: quotedSource)
    }

    /// `\n"` before the first count, `,\n"` before the others (one byte at a time: an array
    /// literal here would be allocated for every count).
    @inline(__always)
    private mutating func beginCount() {
        if counts > 0 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(0x0A)
        bytes.append(UInt8(ascii: "\""))
    }

    /// `":[TOTAL,EVENTS,"SOURCE"]`.
    @inline(__always)
    private mutating func endCount(total: Int, events: Int, quotedSource: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: "["))
        RollupTextWriter.appendDecimal(total, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        RollupTextWriter.appendDecimal(events, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: quotedSource)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: "]"))
        counts += 1
    }

    public mutating func finish() -> [UInt8] {
        bytes += footer
        return bytes
    }

    /// The JSON string contents of `text`, escaped as `JSONWriter` escapes every string rollout
    /// writes, without the quotes around it.
    public static func quoted(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.writeString(text, into: &out)
        return Array(out.dropFirst().dropLast())
    }

    /// `value` in decimal; counts are whole numbers (negative only in a damaged rollup read back).
    @inline(__always)
    static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            repeat {
                digits[count] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 0x30
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[index]) }
        }
    }
}

extension MetricRollup {
    /// The bytes this rollup is stored as (`RollupTextWriter`), its counts in byte order of their keys.
    public var storedBytes: [UInt8] {
        let ordered = counts.keys.map { (text: RollupTextWriter.quoted($0.text), key: $0) }
            .sorted { $0.text.lexicographicallyPrecedes($1.text) }
        var writer = RollupTextWriter(kind: kind, locale: locale, date: date, expectedCounts: ordered.count)
        for (text, key) in ordered {
            let value = counts[key]!
            let source = RollupTextWriter.quoted(sources[key] ?? "")
            text.withUnsafeBufferPointer { keyBytes in
                source.withUnsafeBufferPointer { sourceBytes in
                    writer.appendCount(
                        quotedKey: keyBytes, total: value.total, events: value.events, quotedSource: sourceBytes)
                }
            }
        }
        return writer.finish()
    }
}
