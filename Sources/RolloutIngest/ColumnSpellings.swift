#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One column's distinct spellings and their meanings. Past `SpellingTable.limit` spellings (a
/// file of garbage under --skip-invalid), nothing more is remembered: each new spelling is worked
/// out again every time it appears.
///
/// Nearly every spelling is short (a date is 10 bytes, a pack 8, a region 2), so those are kept as
/// words (`ShortSpellings`): a lookup is a few loads, a multiply and a compare of four words. Longer
/// ones go to `SpellingTable`, which compares bytes. Both are a `ProbeTable` underneath.
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
            guard let meaning = short.find(key) else { return .unknown }
            return .known(meaning)
        }
        switch long.find(bytes, more) {
        case .found(let id): return .known(longMeanings[id])
        case .absent: return .unknown
        }
    }

    /// Remembers a spelling `find` did not know.
    mutating func remember(
        _ bytes: UnsafeBufferPointer<UInt8>, _ more: UnsafeBufferPointer<UInt8>? = nil, meaning: Int32
    ) {
        guard short.count + long.count < SpellingTable.limit else { return }
        if let key = ShortSpellings.Key(bytes, more) { return short.insert(key, meaning: meaning) }
        guard case .absent(let slot) = long.find(bytes, more) else { return }
        long.insert(bytes, more, at: slot)
        longMeanings.append(meaning)
    }
}

/// Spellings of at most 16 bytes (each of two columns, for a pair), as four words and their
/// lengths, with their meanings.
struct ShortSpellings {
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

    /// A key and its meaning; the key of tag 0 marks an empty slot.
    private struct Entry: ProbeEntry {
        var key: Key
        var meaning: Int32

        static let empty = Entry(key: Key.empty, meaning: 0)
        var isEmpty: Bool { key.tag == 0 }
        var hash: UInt64 { key.hash }
    }

    private var table = ProbeTable<Entry>()

    var count: Int { table.count }

    @inline(__always)
    func find(_ key: Key) -> Int32? {
        switch table.find(hash: key.hash, where: { $0.key == key }) {
        case .found(let entry): return entry.meaning
        case .absent: return nil
        }
    }

    mutating func insert(_ key: Key, meaning: Int32) {
        guard case .absent(let slot) = table.find(hash: key.hash, where: { $0.key == key }) else { return }
        table.insert(Entry(key: key, meaning: meaning), at: slot)
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

/// Dense ids for the distinct byte strings of one column, over one byte arena. A spelling made of
/// two columns is stored as the first, a NUL (which the reader never lets through), and the second.
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

    /// A spelling's id and the hash of its bytes; id -1 marks an empty slot.
    private struct Entry: ProbeEntry {
        let id: Int32
        let hash: UInt64

        static let empty = Entry(id: -1, hash: 0)
        var isEmpty: Bool { id < 0 }
    }

    private var table = ProbeTable<Entry>()
    /// Spelling i is arena[ends[i - 1]..<ends[i]] (from 0 for the first).
    private var ends: [Int] = []
    private var arena: [UInt8] = []

    var count: Int { ends.count }

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
        let probe = arena.withUnsafeBufferPointer { arena in
            table.find(hash: h) { entry in
                guard entry.hash == h, !entry.isEmpty else { return false }
                let id = Int(entry.id)
                let start = id == 0 ? 0 : ends[id &- 1]
                guard ends[id] &- start == length else { return false }
                if length == 0 { return true }
                let stored = arena.baseAddress! + start
                return SpellingTable.equal(stored, bytes)
                    && (more.map { stored[bytes.count] == 0 && SpellingTable.equal(stored + bytes.count + 1, $0) }
                        ?? true)
            }
        }
        switch probe {
        case .found(let entry): return .found(Int(entry.id))
        case .absent(let slot): return .absent(Slot(index: slot, hash: h))
        }
    }

    /// Adds the spelling (absent, at `slot` as `find` said) as the next id.
    mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, _ more: UnsafeBufferPointer<UInt8>?, at slot: Slot) {
        table.insert(Entry(id: Int32(ends.count), hash: slot.hash), at: slot.index)
        arena.append(contentsOf: bytes)
        if let more {
            arena.append(0)
            arena.append(contentsOf: more)
        }
        ends.append(arena.count)
    }
}
