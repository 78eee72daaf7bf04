import RolloutModel
import XCTest

@testable import RolloutStore

/// The log index reads the trailers of every commit in the history; the byte fast path for ASCII
/// lines must read exactly what the Character path reads.
final class TrailerFastPathTests: XCTestCase {
    func testTrailersOfRandomMessagesAreWhatTheCharacterPathReads() {
        var generator = SplitMix64(seed: 23)
        let pieces = [
            "Rollout-", "Rollout-Action", ":", " ", "\t", "promote", "Rollout-Reason: ", "é", "-\u{301}", ":\u{301}",
            "\r", "\n",
            "\n", "\n", "Rollout-Pack: tr-TR@5", "  ", "x", "Rollout", "\u{0B}", "🇹🇷", "\u{85}",
        ]
        for _ in 0..<5_000 {
            let message = (0..<Int(generator.next() % 24)).map { _ in
                pieces[Int(generator.next() % UInt64(pieces.count))]
            }.joined()
            let fast = Change.trailers(of: message)
            let slow = TrailerFastPathTests.characterTrailers(of: message)
            XCTAssertEqual(fast.map(\.name), slow.map(\.name), message.debugDescription)
            XCTAssertEqual(fast.map(\.value), slow.map(\.value), message.debugDescription)
        }
    }

    /// How trailers were read before the ASCII fast path: by Characters throughout.
    static func characterTrailers(of message: String) -> [(name: String, value: String)] {
        message.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("Rollout-"), let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[line.index(line.startIndex, offsetBy: 8)..<colon]
            return (String(name), String(line[line.index(after: colon)...]).trimmingSpaces)
        }
    }
}
