import XCTest

@testable import RolloutIngest

/// The radix sort of the table's groups puts them in the same order as comparing keys, whatever
/// the widths of the ids.
final class KeySortTests: XCTestCase {
    /// `count` distinct keys whose ids are below the given limits, shuffled.
    private func entries(
        _ count: Int, locales: Int, days: Int, packs: Int, regions: Int, apps: Int, seed: UInt64
    ) -> [GroupEntry] {
        var random = GroupSumsTests.Generator(state: seed)
        var keys = Set<[UInt64]>()
        var made: [GroupEntry] = []
        while made.count < count {
            let high = GroupKey.high(
                locale: Int32.random(in: 0..<Int32(locales), using: &random),
                day: Int32.random(in: 0..<Int32(days), using: &random),
                pack: Int32.random(in: 0..<Int32(packs), using: &random))
            let low = GroupKey.low(
                region: Int32.random(in: 0..<Int32(regions), using: &random),
                app: Int32.random(in: 0..<Int32(apps), using: &random))
            guard keys.insert([high, low]).inserted else { continue }
            made.append(GroupEntry(high: high, low: low, total: made.count, events: 0))
        }
        return made
    }

    private func assertSortsLikeComparing(_ unsorted: [GroupEntry], line: UInt = #line) {
        var sorted = unsorted
        sorted.withUnsafeMutableBufferPointer { KeySort.sort($0) }
        let expected = unsorted.sorted(by: GroupEntry.before)
        XCTAssertEqual(sorted.map(\.high), expected.map(\.high), line: line)
        XCTAssertEqual(sorted.map(\.low), expected.map(\.low), line: line)
        XCTAssertEqual(sorted.map(\.total), expected.map(\.total), "each key keeps its sums", line: line)
    }

    func testSmallIdsSortInFewPasses() {
        // 26 bits: three passes of 9 bits.
        assertSortsLikeComparing(entries(50_000, locales: 8, days: 30, packs: 16, regions: 200, apps: 40, seed: 1))
    }

    func testADigitEveryKeySharesIsSkipped() {
        // One locale, day and pack: only the region and the app version order the keys.
        assertSortsLikeComparing(entries(5_000, locales: 1, days: 1, packs: 1, regions: 250, apps: 60, seed: 2))
    }

    func testWideIdsSortInManyPasses() {
        assertSortsLikeComparing(
            entries(20_000, locales: 3_000, days: 3_000_000, packs: 1 << 20, regions: 700, apps: 1 << 20, seed: 3))
    }

    func testKeysOverSixtyFourBitsFallBackToComparing() {
        assertSortsLikeComparing(
            entries(
                3_000, locales: 60_000, days: 4_000_000, packs: 60_000_000, regions: 1 << 30, apps: 1 << 30, seed: 4))
    }

    func testFewEntriesSortByComparing() {
        assertSortsLikeComparing(entries(100, locales: 2, days: 3, packs: 4, regions: 5, apps: 6, seed: 5))
    }
}
