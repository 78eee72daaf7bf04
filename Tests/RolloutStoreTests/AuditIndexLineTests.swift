import RolloutModel
import XCTest

@testable import RolloutStore

/// An index written by this build must hold the same bytes as one written before the index lines
/// were written member by member: indexes already on disk stay valid, and index files stay
/// canonical JSON (docs/audit.md).
final class AuditIndexLineTests: XCTestCase {
    func testIndexLinesAreTheCanonicalJSONOfTheChange() throws {
        var file: [UInt8] = []
        var expected: [UInt8] = []
        for entry in AuditIndexLineTests.randomEntries(2_000) {
            file += entry.indexLine()
            expected += AuditIndexLineTests.canonicalLine(entry)
        }
        XCTAssertEqual(String(decoding: file, as: UTF8.self), String(decoding: expected, as: UTF8.self))
        XCTAssertEqual(file, expected)
    }

    /// The byte reader of index lines reads every line exactly as the strict parser does, or leaves
    /// it to it: lines as written (most of them plain ASCII), and the same lines spaced out,
    /// reordered, cut or with a member added.
    func testTheFastReaderReadsEveryLineAsTheStrictParserDoes() {
        var fast = 0
        let plain = AuditIndexLineTests.randomEntries(200, texts: ["promote tr-TR to 10%", "", "tr-TR", "de-DE@7"])
        for entry in plain {
            let line = Array(entry.indexLine().dropLast())
            XCTAssertNotNil(line.withUnsafeBufferPointer(IndexLineFields.readWritten), "\(entry.sequence)")
        }
        for (n, entry) in (AuditIndexLineTests.randomEntries(2_000) + plain).enumerated() {
            let line = entry.indexLine().dropLast()
            let text = String(decoding: line, as: UTF8.self)
            let variants = [
                Array(line), Array(text.replacingOccurrences(of: ",", with: ", ").utf8),
                Array(text.replacingOccurrences(of: "{\"action\"", with: "{\"x\":1,\"action\"").utf8),
                Array(line.prefix(n % line.count)),
                Array(text.replacingOccurrences(of: "\"seq\":", with: "\"seq\":0").utf8),
            ]
            for bytes in variants {
                let strict = IndexLineFields.read(bytes)
                guard let read = bytes.withUnsafeBufferPointer(IndexLineFields.readWritten) else { continue }
                XCTAssertEqual(read, strict, String(decoding: bytes, as: UTF8.self))
                fast += 1
            }
        }
        XCTAssertGreaterThan(fast, 200)
    }

    /// Random changes, their texts chosen to need escapes, non-ASCII and odd numbers now and then.
    static func randomEntries(_ count: Int, texts plainTexts: [String]? = nil) -> [AuditEntry] {
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
        let chosen = plainTexts ?? texts
        func text() -> String { chosen[below(chosen.count)] }
        return (1...count).map { sequence in
            let changes = (0..<below(3)).map { _ in
                AuditEntry.PlanChange(
                    locale: text(), before: Plan(locale: "x"), after: Plan(locale: "x"),
                    beforeBlob: below(2) == 0 ? nil : String(repeating: "0f", count: 20),
                    afterBlob: String(repeating: "9c", count: 20))
            }
            return AuditEntry(
                sequence: sequence * (1 + below(1_000)), commit: String(repeating: "5e", count: 20),
                time: Timestamp(seconds: Int64(below(2_000_000_000)) - 1_000_000), actor: text(), action: text(),
                summary: text(),
                reason: below(2) == 0 ? nil : text(), locales: (0..<below(3)).map { _ in text() },
                packs: (0..<below(3)).map { _ in text() },
                planChanges: changes)
        }
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
