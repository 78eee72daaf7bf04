#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import RolloutModel
import RolloutStore

/// The per-row work of `metrics ingest`: the header, validation, and the sums, on borrowed bytes.
///
/// Dates, packs, regions and app versions repeat on nearly every row of an export, so each distinct
/// spelling of each is parsed and validated once (`SpellingTable`) and becomes a small integer (an
/// id in `GroupValues`); a row's group is those ids packed into two words (`GroupKey`), summed in a
/// table of fixed size that spills sorted runs to disk when full (`GroupSums`). Nothing is
/// allocated per row. Memory follows the number of distinct values of each column, never the
/// number of groups or the size of the file.
struct RowReader: CSVRecordSink {
    struct Columns {
        let date: Int
        let locale: Int?
        let pack: Int
        let region: Int
        let app: Int
        let total: Int
        let events: Int
        let count: Int
    }

    let request: MetricsIngest.Request
    let snapshot: Snapshot
    let totalName: String
    let eventsName: String
    var columns: Columns?
    var rows = 0
    var bad: [(line: Int, message: String)] = []
    var badCount = 0
    var values = GroupValues()
    var sums: GroupSums

    /// Each column's distinct spellings and what each means.
    var dates = Column()
    var packs = Column()
    var regions = Column()
    var apps = Column()
    var problems: [String] = []
    var knownPacks: [String: Set<Int>] = [:]
    /// Per pack (its index in `values`): how much its exposures may still add up to, and what this
    /// file has added so far. Exposures bound events, so this keeps every sum of the pack's counts
    /// a reader computes within the one range (MetricCounts.maximum).
    var packRoom: [Int] = []
    var packAdded: [Int] = []
    var storedTotals: [String: MetricTotals] = [:]

    init(request: MetricsIngest.Request, snapshot: Snapshot) throws {
        self.request = request
        self.snapshot = snapshot
        (totalName, eventsName) = request.kind.columns
        sums = try GroupSums(memory: request.memory, directory: request.temporaryDirectory)
    }

    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Counts an invalid row; its message is kept only while fewer than `shownBadRows` are.
    mutating func reject(_ line: Int, _ message: String) {
        badCount += 1
        // A row's message is one line of output: a newline inside a quoted field must not fake another.
        if bad.count < MetricsIngest.shownBadRows { bad.append((line, message.oneLine)) }
    }

    /// The meaning of an invalid spelling whose message is never shown: it is found once the list
    /// of shown rows is full, and that list only grows, so no row will need it.
    static let unshown = -Int32.max

    /// The meaning of an invalid spelling. Once the shown rows are full, no message is built or
    /// kept: past `SpellingTable.limit` a column stops remembering, and a file of distinct
    /// invalid values would otherwise add one message per row.
    mutating func problem(_ message: @autoclosure () -> String) -> Int32 {
        guard bad.count < MetricsIngest.shownBadRows else { return RowReader.unshown }
        problems.append(message().oneLine)
        return -Int32(problems.count)
    }

    /// Why a spelling with a negative meaning is invalid.
    func problem(of meaning: Int32) -> String { meaning == RowReader.unshown ? "" : problems[Int(-meaning - 1)] }

    mutating func record(_ fields: CSVRecord, line: Int) throws {
        do {
            try row(fields, line: line)
        } catch let tooMany as GroupValues.TooMany {
            throw RolloutError.badInput("\(request.name):\(line): \(tooMany.message); nothing was ingested")
        }
    }

    @inline(__always)
    mutating func row(_ fields: CSVRecord, line: Int) throws {
        guard let columns else { return try readHeader(fields, line: line) }
        rows &+= 1
        guard fields.count == columns.count else { return reject(line, "\(fields.count) fields, the header has \(columns.count)") }

        let dateBytes = fields[columns.date]
        var day: Int32
        switch dates.find(dateBytes) {
        case .known(let meaning): day = meaning
        case .unknown:
            day = try dayMeaning(dateBytes)
            dates.remember(dateBytes, meaning: day)
        }
        guard day >= 0 else { return reject(line, problem(of: day)) }

        let packBytes = fields[columns.pack]
        let localeBytes = columns.locale.map { fields[$0] }
        var pack: Int32
        switch packs.find(packBytes, localeBytes) {
        case .known(let meaning): pack = meaning
        case .unknown:
            pack = try packMeaning(packBytes, locale: localeBytes)
            packs.remember(packBytes, localeBytes, meaning: pack)
        }
        guard pack >= 0 else { return reject(line, problem(of: pack)) }

        let regionBytes = fields[columns.region]
        var region: Int32
        switch regions.find(regionBytes) {
        case .known(let meaning): region = meaning
        case .unknown:
            region = try regionMeaning(regionBytes)
            regions.remember(regionBytes, meaning: region)
        }
        guard region >= 0 else { return reject(line, problem(of: region)) }

        let appBytes = fields[columns.app]
        var app: Int32
        switch apps.find(appBytes) {
        case .known(let meaning): app = meaning
        case .unknown:
            app = try appMeaning(appBytes)
            apps.remember(appBytes, meaning: app)
        }
        guard app >= 0 else { return reject(line, problem(of: app)) }

        guard let total = MetricsIngest.parseCount(fields[columns.total]) else {
            return reject(line, "\(totalName) \"\(RowReader.text(fields[columns.total]))\" is not a whole number of 0 or more")
        }
        guard let events = MetricsIngest.parseCount(fields[columns.events]) else {
            return reject(line, "\(eventsName) \"\(RowReader.text(fields[columns.events]))\" is not a whole number of 0 or more")
        }
        guard events <= total else { return reject(line, "\(eventsName) \(events) > \(totalName) \(total)") }
        guard total <= packRoom[Int(pack)] &- packAdded[Int(pack)] else { return reject(line, outOfRange(pack: pack)) }
        packAdded[Int(pack)] &+= total
        try sums.add(
            high: GroupKey.high(locale: values.packLocales[Int(pack)], day: day, pack: pack), low: GroupKey.low(region: region, app: app),
            total: total, events: events)
    }

    // What a spelling means: an index into the column's distinct values in `values` (0 or more), or
    // -1 - the index in `problems` of the message that says why it is invalid (or `unshown`).

    mutating func dayMeaning(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Int32 {
        guard let day = MetricsIngest.parseDay(bytes) else { return problem("date \"\(RowReader.text(bytes))\" is not YYYY-MM-DD") }
        return try values.dayIndex(day)
    }

    mutating func packMeaning(_ packBytes: UnsafeBufferPointer<UInt8>, locale localeBytes: UnsafeBufferPointer<UInt8>?) throws -> Int32 {
        switch MetricsIngest.resolvePack(RowReader.text(packBytes).trimmingSpaces, localeText: localeBytes.map { RowReader.text($0).trimmingSpaces }) {
        case .failure(let problem):
            return self.problem(problem.message)
        case .success(let (locale, version)):
            if knownPacks[locale] == nil { knownPacks[locale] = Set((try? snapshot.contentVersions(of: locale)) ?? []) }
            guard knownPacks[locale]!.contains(version) else { return problem("unknown pack \(locale)@\(version): the repository does not hold it") }
            let index = try values.packIndex(PackID(locale: locale, contentVersion: version))
            if Int(index) == packRoom.count {
                if storedTotals[locale] == nil { storedTotals[locale] = try MetricsLayout.totals(request.kind, locale: locale, in: snapshot) }
                packRoom.append(MetricCounts.maximum - storedTotals[locale]!.total(of: version))
                packAdded.append(0)
            }
            return index
        }
    }

    func outOfRange(pack: Int32) -> String {
        let id = values.packs[Int(pack)]
        let stored = storedTotals[id.locale]?.total(of: id.contentVersion) ?? 0
        return "the \(totalName) of \(id) would add up past \(MetricCounts.maximum), the most rollout counts exactly"
            + (stored > 0 ? " (\(stored) already stored)" : "") + "; split the export or check its counts"
    }

    mutating func regionMeaning(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Int32 {
        let text = RowReader.text(bytes).trimmingSpaces
        guard let region = (try? Region.parse(text)).flatMap({ $0 == Region.any ? nil : $0 }) else {
            return problem("region \"\(text)\" is not an ISO 3166-1 alpha-2 code")
        }
        return try values.regionIndex(region)
    }

    mutating func appMeaning(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Int32 {
        let text = RowReader.text(bytes).trimmingSpaces
        guard let version = AppVersion(text)?.normalized else { return problem("app_version \"\(text)\" is not a numeric version") }
        return try values.appIndex(version)
    }

    mutating func readHeader(_ fields: CSVRecord, line: Int) throws {
        let found = (0..<fields.count).map { RowReader.text(fields[$0]).trimmingSpaces.lowercased() }
        var index: [String: Int] = [:]
        for (i, name) in found.enumerated() where index[name] == nil { index[name] = i }
        func column(_ canonical: String) -> Int? { index[(request.mapping[canonical] ?? canonical).lowercased()] }
        let required = ["date", "pack", "region", "app_version", totalName, eventsName]
        let missing = required.filter { column($0) == nil }
        if !missing.isEmpty {
            let described = missing.map { name in request.mapping[name].map { "\(name) (mapped to \($0))" } ?? name }
            throw RolloutError.badInput(
                "\(request.name):\(line): the header lacks \(described.joined(separator: ", ")) (found: \(found.joined(separator: ", "))); a \(request.kind.rawValue) CSV needs date, locale, pack, region, app_version, \(totalName), \(eventsName); --map NAME=COLUMN renames")
        }
        columns = Columns(
            date: column("date")!, locale: column("locale"), pack: column("pack")!, region: column("region")!, app: column("app_version")!,
            total: column(totalName)!, events: column(eventsName)!, count: found.count)
    }
}

/// One column's distinct spellings and their meanings. Past `SpellingTable.limit` spellings (a
/// file of garbage under --skip-invalid), nothing more is remembered: each new spelling is worked
/// out again every time it appears.
///
/// Nearly every spelling is short (a date is 10 bytes, a pack 8, a region 2), so those are kept as
/// words (`ShortSpellings`): a lookup is a few loads, a multiply and a compare of four words. Longer
/// ones go to `SpellingTable`, which compares bytes.
struct Column {
    enum Lookup {
        case known(Int32)
        case unknown
    }

    private var short = ShortSpellings()
    private var long = SpellingTable()
    private var longMeanings: [Int32] = []

    /// `bytes`, or `bytes` and `more` (two columns that together make one spelling).
    @inline(__always)
    func find(_ bytes: UnsafeBufferPointer<UInt8>, _ more: UnsafeBufferPointer<UInt8>? = nil) -> Lookup {
        if let key = ShortSpellings.Key(bytes, more) {
            let meaning = short.find(key)
            return meaning == ShortSpellings.absent ? .unknown : .known(meaning)
        }
        switch long.find(bytes, more) {
        case .found(let id): return .known(longMeanings[id])
        case .absent: return .unknown
        }
    }

    /// Remembers a spelling `find` did not know.
    mutating func remember(_ bytes: UnsafeBufferPointer<UInt8>, _ more: UnsafeBufferPointer<UInt8>? = nil, meaning: Int32) {
        guard short.count + long.count < SpellingTable.limit else { return }
        if let key = ShortSpellings.Key(bytes, more) { return short.insert(key, meaning: meaning) }
        guard case .absent(let slot) = long.find(bytes, more) else { return }
        long.insert(bytes, more, at: slot)
        longMeanings.append(meaning)
    }
}

/// Spellings of at most 16 bytes (each of two columns, for a pair), as four words and their
/// lengths, in an open-addressing table.
struct ShortSpellings {
    /// What `find` returns for a spelling it does not hold (meanings are at least -2^31 + 1).
    static let absent = Int32.min

    struct Key: Equatable {
        var a: UInt64
        var b: UInt64
        var c: UInt64
        var d: UInt64
        /// 1 + each length, and whether there is a second column; never 0.
        var tag: UInt64

        @inline(__always)
        init?(_ bytes: UnsafeBufferPointer<UInt8>, _ more: UnsafeBufferPointer<UInt8>?) {
            guard bytes.count <= 16 else { return nil }
            (a, b) = Key.words(bytes)
            if let more {
                guard more.count <= 16 else { return nil }
                (c, d) = Key.words(more)
                tag = 1 | UInt64(bytes.count) << 8 | UInt64(more.count) << 16 | 1 << 24
            } else {
                (c, d) = (0, 0)
                tag = 1 | UInt64(bytes.count) << 8
            }
        }

        /// Up to 16 bytes as two words, loading only bytes of the field (overlapping loads: for a
        /// given length, the words still hold every byte once in a fixed place).
        @inline(__always)
        static func words(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
            let n = bytes.count
            guard n > 0, let base = bytes.baseAddress else { return (0, 0) }
            let raw = UnsafeRawPointer(base)
            if n >= 8 {
                let first = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
                let last = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self))
                return (first, last >> (8 &* (16 &- UInt64(n))))
            }
            if n >= 4 {
                let first = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
                let last = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)))
                return (first | last << 32, 0)
            }
            return (UInt64(base[0]) | UInt64(base[n >> 1]) << 8 | UInt64(base[n &- 1]) << 16, 0)
        }

        @inline(__always)
        var hash: UInt64 {
            var h = (a ^ tag) &* 0x9E37_79B9_7F4A_7C15
            h = (h ^ b) &* 0xBF58_476D_1CE4_E5B9
            h = (h ^ c ^ d &* 0x94D0_49BB_1331_11EB) &* 0x9E37_79B9_7F4A_7C15
            return h ^ h >> 32
        }
    }

    private struct Entry {
        var key: Key
        var meaning: Int32
    }

    private var entries = [Entry](repeating: Entry(key: Key.empty, meaning: 0), count: 64)
    private(set) var count = 0

    @inline(__always)
    func find(_ key: Key) -> Int32 {
        entries.withUnsafeBufferPointer { entries in
            let mask = entries.count &- 1
            var slot = Int(truncatingIfNeeded: key.hash) & mask
            while true {
                let entry = entries[slot]
                if entry.key == key { return entry.meaning }
                if entry.key.tag == 0 { return ShortSpellings.absent }
                slot = (slot &+ 1) & mask
            }
        }
    }

    mutating func insert(_ key: Key, meaning: Int32) {
        if (count + 1) * 2 > entries.count {
            let old = entries
            entries = [Entry](repeating: Entry(key: Key.empty, meaning: 0), count: entries.count * 2)
            for entry in old where entry.key.tag != 0 { place(entry) }
        }
        place(Entry(key: key, meaning: meaning))
        count += 1
    }

    private mutating func place(_ entry: Entry) {
        let mask = entries.count - 1
        var slot = Int(truncatingIfNeeded: entry.key.hash) & mask
        while entries[slot].key.tag != 0 { slot = (slot + 1) & mask }
        entries[slot] = entry
    }
}

extension ShortSpellings.Key {
    static let empty = ShortSpellings.Key(a: 0, b: 0, c: 0, d: 0, tag: 0)

    private init(a: UInt64, b: UInt64, c: UInt64, d: UInt64, tag: UInt64) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tag = tag
    }
}

/// Dense ids for the distinct byte strings of one column, in an open-addressing table over one
/// byte arena. A spelling made of two columns is stored as the first, a NUL (which the reader
/// never lets through), and the second.
struct SpellingTable {
    static let limit = 1 << 16

    struct Slot {
        let index: Int
        let hash: UInt64
    }

    enum Lookup {
        case found(Int)
        case absent(Slot)
    }

    private var slots = [Int32](repeating: -1, count: 64)
    private var hashes: [UInt64] = []
    /// Spelling i is arena[ends[i - 1]..<ends[i]] (from 0 for the first).
    private var ends: [Int] = []
    private var arena: [UInt8] = []

    var count: Int { hashes.count }

    /// Eight bytes at a time: a field is a few bytes long, and this runs four times a row.
    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h = (seed ^ UInt64(bytes.count)) &* k
        guard let base = bytes.baseAddress else { return h ^ h >> 32 }
        let raw = UnsafeRawPointer(base)
        let n = bytes.count
        var i = 0
        while i &+ 8 <= n {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* k
            h ^= h >> 31
            i &+= 8
        }
        if i < n {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < n {
                tail |= UInt64(base[i]) << shift
                shift &+= 8
                i &+= 1
            }
            h = (h ^ tail) &* k
        }
        return h ^ h >> 32
    }

    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>, _ more: UnsafeBufferPointer<UInt8>?) -> UInt64 {
        let h = hash(bytes, seed: 0)
        guard let more else { return h }
        return hash(more, seed: h)
    }

    @inline(__always)
    static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = b.count
        guard n > 0 else { return true }
        if n > 16 { return memcmp(a, b.baseAddress!, n) == 0 }
        var i = 0
        while i < n {
            if a[i] != b[i] { return false }
            i &+= 1
        }
        return true
    }

    @inline(__always)
    func find(_ bytes: UnsafeBufferPointer<UInt8>, _ more: UnsafeBufferPointer<UInt8>?) -> Lookup {
        let h = SpellingTable.hash(bytes, more)
        let length = bytes.count &+ (more.map { $0.count &+ 1 } ?? 0)
        let mask = slots.count &- 1
        var slot = Int(truncatingIfNeeded: h) & mask
        return arena.withUnsafeBufferPointer { arena in
            while true {
                let id = Int(slots[slot])
                if id < 0 { return .absent(Slot(index: slot, hash: h)) }
                if hashes[id] == h {
                    let start = id == 0 ? 0 : ends[id &- 1]
                    if ends[id] &- start == length {
                        if length == 0 { return .found(id) }
                        let stored = arena.baseAddress! + start
                        if SpellingTable.equal(stored, bytes)
                            && (more.map { stored[bytes.count] == 0 && SpellingTable.equal(stored + bytes.count + 1, $0) } ?? true)
                        {
                            return .found(id)
                        }
                    }
                }
                slot = (slot &+ 1) & mask
            }
        }
    }

    /// Adds the spelling (absent, at `slot` as `find` said) as the next id.
    mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, _ more: UnsafeBufferPointer<UInt8>?, at slot: Slot) {
        slots[slot.index] = Int32(hashes.count)
        hashes.append(slot.hash)
        arena.append(contentsOf: bytes)
        if let more {
            arena.append(0)
            arena.append(contentsOf: more)
        }
        ends.append(arena.count)
        if hashes.count * 2 > slots.count {
            let mask = slots.count * 2 - 1
            var grown = [Int32](repeating: -1, count: slots.count * 2)
            for (id, h) in hashes.enumerated() {
                var s = Int(truncatingIfNeeded: h) & mask
                while grown[s] >= 0 { s = (s + 1) & mask }
                grown[s] = Int32(id)
            }
            slots = grown
        }
    }
}
