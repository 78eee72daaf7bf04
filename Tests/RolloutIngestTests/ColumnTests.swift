import XCTest

@testable import RolloutIngest

/// The per-file memo of spellings: a spelling is known exactly when the same bytes (in the same
/// columns) were remembered, whatever its length, and short and long spellings never mix.
final class ColumnTests: XCTestCase {
    func testSpellingsAreKnownByTheirExactBytes() throws {
        var random = GroupSumsTests.Generator(state: 17)
        var column = Column()
        var pairs = Column()
        var model: [[UInt8]: Int32] = [:]
        var pairModel: [[UInt8]: Int32] = [:]
        // Few distinct bytes, so that spellings share prefixes, suffixes and lengths.
        func spelling() -> [UInt8] {
            (0..<Int.random(in: 0...20, using: &random)).map { _ in UInt8.random(in: 0x2C...0x2F, using: &random) }
        }
        for meaning in 0..<Int32(3_000) {
            let bytes = spelling()
            let more = spelling()
            // A pair is keyed as first NUL second, which no field holds (the reader refuses NUL).
            let pairKey = bytes + [0] + more
            bytes.withUnsafeBufferPointer { b in
                more.withUnsafeBufferPointer { m in
                    switch column.find(b) {
                    case .known(let found): XCTAssertEqual(found, model[bytes], "\(bytes)")
                    case .unknown:
                        XCTAssertNil(model[bytes], "\(bytes)")
                        column.remember(b, meaning: meaning)
                        model[bytes] = meaning
                    }
                    switch pairs.find(b, m) {
                    case .known(let found): XCTAssertEqual(found, pairModel[pairKey], "\(bytes) \(more)")
                    case .unknown:
                        XCTAssertNil(pairModel[pairKey], "\(bytes) \(more)")
                        pairs.remember(b, m, meaning: meaning)
                        pairModel[pairKey] = meaning
                    }
                }
            }
        }
        XCTAssertGreaterThan(model.count, 500)
    }
}
