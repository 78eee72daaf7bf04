import XCTest

@testable import RolloutIngest

/// The table under both spelling memos: every entry put in is found again by its hash and its own
/// match, through collisions and the doublings that move entries, and nothing else is.
final class ProbeTableTests: XCTestCase {
    struct Entry: ProbeEntry {
        let value: Int
        let hash: UInt64

        static let empty = Entry(value: -1, hash: 0)
        var isEmpty: Bool { value < 0 }
    }

    func testEntriesSurviveCollisionsAndGrowth() {
        // Hashes of few distinct values: most entries share a home slot and probe past each other.
        func hash(_ value: Int) -> UInt64 { UInt64(value % 7) &* 0x9E37_79B9_7F4A_7C15 }
        var table = ProbeTable<Entry>()
        for value in 0..<1_000 {
            guard case .absent(let slot) = table.find(hash: hash(value), where: { $0.value == value }) else {
                return XCTFail("\(value) found before it was put in")
            }
            table.insert(Entry(value: value, hash: hash(value)), at: slot)
            XCTAssertEqual(table.count, value + 1)
        }
        for value in 0..<1_000 {
            guard case .found(let entry) = table.find(hash: hash(value), where: { $0.value == value }) else {
                return XCTFail("\(value) lost")
            }
            XCTAssertEqual(entry.value, value)
        }
        guard case .absent = table.find(hash: hash(1_000), where: { $0.value == 1_000 }) else {
            return XCTFail("a value never put in was found")
        }
    }
}
