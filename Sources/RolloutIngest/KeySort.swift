#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Sorts `GroupEntry`s by key (high, then low), as the table's groups are sorted before each spill
/// and at the end.
///
/// A comparison sort of a full table (786,432 entries) took most of the time a file of one row a
/// group spends past its rows (docs/performance.md, "Reading at one row a group"). The key's five
/// ids are small in practice (8 locales, 30 dates, 16 packs, 200 regions, 40 app versions need 26
/// bits), so the key is squeezed into part of a word, each id in as many bits as its largest value
/// in these entries needs, in the key's order: comparing squeezed keys compares keys. Below it,
/// each word holds its entry's position. A least-significant-digit radix sort of the words (a few
/// passes of at most 11 bits over the key's bits) orders the positions; the entries are then moved
/// to their places in cycles, with no second copy of the table: the words take 16 bytes an entry
/// while sorting (half of the 32 a copy of the entries would), and are given back after. Keys that
/// do not fit a word beside their positions, and few entries, go to the comparison sort.
enum KeySort {
    static let digitBits = 11

    /// Sorts `entries` in place.
    static func sort(_ entries: UnsafeMutableBufferPointer<GroupEntry>) {
        withOrder(entries) { order, mask in
            if let order { permute(entries, order: order, positionMask: mask) }
        }
    }

    /// Hands `body` the entries in key order, leaving them where they are (a spill encodes them as
    /// it goes: gathering them by position costs loads that do not wait for each other, where
    /// moving them in place follows one cycle, a miss at a time).
    /// `words`, when given, holds at least 2 x entries.count words: a table that spills again and
    /// again keeps them, rather than having zeroed pages mapped for every run.
    static func inOrder(
        _ entries: UnsafeMutableBufferPointer<GroupEntry>, words: UnsafeMutablePointer<UInt64>? = nil,
        _ body: (GroupEntry) throws -> Void
    ) rethrows {
        try withOrder(entries, words: words) { order, mask in
            guard let order else {
                for entry in entries { try body(entry) }
                return
            }
            let base = entries.baseAddress!
            for i in 0..<entries.count { try body(base[Int(order[i] & mask)]) }
        }
    }

    /// Hands `body` the words whose low bits (the mask) are the positions of the entries in key
    /// order; or nil, having sorted the entries in place by comparing.
    private static func withOrder(
        _ entries: UnsafeMutableBufferPointer<GroupEntry>, words given: UnsafeMutablePointer<UInt64>? = nil,
        _ body: (UnsafeMutablePointer<UInt64>?, UInt64) throws -> Void
    ) rethrows {
        let n = entries.count
        let positionBits = Int.bitWidth - max(1, n - 1).leadingZeroBitCount
        guard n > 1024, let squeeze = Squeeze(entries), squeeze.bits > 0, squeeze.bits + positionBits <= 64,
            let words = given ?? (try? GroupSums.Table.mapZeros(2 * n * MemoryLayout<UInt64>.stride, as: UInt64.self))
        else {
            var compared = entries
            compared.sort(by: GroupEntry.before)
            return try body(nil, 0)
        }
        defer { if given == nil { munmap(words, 2 * n * MemoryLayout<UInt64>.stride) } }
        for i in 0..<n { words[i] = squeeze.word(entries[i]) &<< UInt64(positionBits) | UInt64(i) }
        radix(words, scratch: words + n, count: n, from: positionBits, bits: squeeze.bits)
        try body(words, UInt64(1) &<< UInt64(positionBits) &- 1)
    }

    /// Sorts `words` by their bits [from, from + bits), stably; `scratch` holds as many words.
    private static func radix(
        _ words: UnsafeMutablePointer<UInt64>, scratch: UnsafeMutablePointer<UInt64>, count n: Int, from: Int,
        bits keyBits: Int
    ) {
        let passes = (keyBits + digitBits - 1) / digitBits
        let bits = (keyBits + passes - 1) / passes
        let buckets = 1 << bits
        let mask = UInt64(buckets - 1)
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: passes * buckets)
        defer { counts.deallocate() }
        counts.initialize(repeating: 0, count: passes * buckets)
        for i in 0..<n {
            for pass in 0..<passes { counts[pass * buckets + Int(words[i] &>> UInt64(from + pass * bits) & mask)] += 1 }
        }
        var source = words
        var target = scratch
        for pass in 0..<passes {
            let shift = UInt64(from + pass * bits)
            let offsets = counts + pass * buckets
            // A digit every word shares orders nothing.
            if offsets[Int(source[0] &>> shift & mask)] == n { continue }
            var next = 0
            for bucket in 0..<buckets {
                let size = offsets[bucket]
                offsets[bucket] = next
                next += size
            }
            for i in 0..<n {
                let word = source[i]
                let digit = Int(word &>> shift & mask)
                target[offsets[digit]] = word
                offsets[digit] += 1
            }
            swap(&source, &target)
        }
        if source != words { words.update(from: source, count: n) }
    }

    /// Puts the entry at position `order[i] & positionMask` at i, for every i, following each cycle
    /// of the permutation once. A word whose position is its own index is done (or never moves).
    private static func permute(
        _ entries: UnsafeMutableBufferPointer<GroupEntry>, order: UnsafeMutablePointer<UInt64>, positionMask: UInt64
    ) {
        let base = entries.baseAddress!
        for start in 0..<entries.count where Int(order[start] & positionMask) != start {
            let saved = base[start]
            var at = start
            while true {
                let from = Int(order[at] & positionMask)
                order[at] = UInt64(at)
                if from == start {
                    base[at] = saved
                    break
                }
                base[at] = base[from]
                at = from
            }
        }
    }

    /// The key's five ids in one word: each shifted to its place and, as the ids fill their low
    /// bits, nothing lost. Nil when they need more than 64 bits.
    struct Squeeze {
        let localeShift: UInt64
        let dayShift: UInt64
        let packShift: UInt64
        let regionShift: UInt64
        let bits: Int

        init?(_ entries: UnsafeMutableBufferPointer<GroupEntry>) {
            var high: UInt64 = 0
            var low: UInt64 = 0
            for entry in entries {
                high |= entry.high
                low |= entry.low
            }
            func width(_ value: Int) -> Int { Int.bitWidth - value.leadingZeroBitCount }
            let apps = width(GroupKey.app(low))
            let regions = width(GroupKey.region(low))
            let packs = width(GroupKey.pack(high))
            let days = width(GroupKey.day(high))
            // The locale field holds locale + 1.
            let locales = width(Int(high >> 48))
            bits = apps + regions + packs + days + locales
            guard bits <= 64 else { return nil }
            regionShift = UInt64(apps)
            packShift = regionShift + UInt64(regions)
            dayShift = packShift + UInt64(packs)
            localeShift = dayShift + UInt64(days)
        }

        @inline(__always)
        func word(_ entry: GroupEntry) -> UInt64 {
            (entry.high &>> 48) &<< localeShift | (entry.high &>> 26 & (1 << 22 - 1)) &<< dayShift
                | (entry.high & (1 << 26 - 1)) &<< packShift | (entry.low &>> 32) &<< regionShift
                | (entry.low & 0xFFFF_FFFF)
        }
    }
}
