import RolloutModel
import XCTest

@testable import RolloutStore

/// An index written by this build must hold the same bytes as one written before the index lines
/// were written member by member: indexes already on disk stay valid, and index files stay
/// canonical JSON (docs/audit.md).
final class AuditIndexLineTests: XCTestCase {
    func testIndexLinesAreTheCanonicalJSONOfTheChange() throws {
        var state: UInt64 = 29
        func below(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let texts = [
            "promote tr-TR to 10%", "", "Ayşe <ayse@example.com>", "quote \" and \\ back", "line\nbreak\ttab\u{01}",
            "🇹🇷 Zoë",
            "a\u{301}", "\u{7F}", "publish index sequence 4 to s3://x", "tr-TR", "de-DE@7",
        ]
        func text() -> String { texts[below(texts.count)] }
        var file: [UInt8] = []
        var expected: [UInt8] = []
        for sequence in 1...2_000 {
            let changes = (0..<below(3)).map { _ in
                AuditEntry.PlanChange(
                    locale: text(), before: Plan(locale: "x"), after: Plan(locale: "x"),
                    beforeBlob: below(2) == 0 ? nil : String(repeating: "0f", count: 20),
                    afterBlob: String(repeating: "9c", count: 20))
            }
            let entry = AuditEntry(
                sequence: sequence * (1 + below(1_000)), commit: String(repeating: "5e", count: 20),
                time: Timestamp(seconds: Int64(below(2_000_000_000)) - 1_000_000), actor: text(), action: text(),
                summary: text(),
                reason: below(2) == 0 ? nil : text(), locales: (0..<below(3)).map { _ in text() },
                packs: (0..<below(3)).map { _ in text() },
                planChanges: changes)
            file += entry.indexLine()
            expected += AuditIndexLineTests.canonicalLine(entry)
        }
        XCTAssertEqual(String(decoding: file, as: UTF8.self), String(decoding: expected, as: UTF8.self))
        XCTAssertEqual(file, expected)
    }

    /// How index lines were written before: a dictionary of the members, through `JSONWriter.canonical`.
    static func canonicalLine(_ entry: AuditEntry) -> [UInt8] {
        var object: [String: JSONValue] = [
            "seq": .integer(entry.sequence), "commit": .string(entry.commit), "time": .integer(Int(entry.time.seconds)),
            "actor": .string(entry.actor), "action": .string(entry.action), "summary": .string(entry.summary),
            "locales": .array(entry.locales.map { .string($0) }), "packs": .array(entry.packs.map { .string($0) }),
        ]
        if let reason = entry.reason { object["reason"] = .string(reason) }
        if !entry.planChanges.isEmpty {
            object["plans"] = .array(
                entry.planChanges.map { change in
                    [
                        "locale": .string(change.locale), "before": change.beforeBlob.map { .string($0) } ?? .null,
                        "after": .string(change.afterBlob),
                    ]
                })
        }
        return JSONWriter.canonical(.object(object)) + [0x0A]
    }
}
