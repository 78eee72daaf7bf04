import XCTest

@testable import RolloutModel

/// The fast reader of rollups (MetricRollup+Scan.swift) against the generic parser: the same rollup
/// from the compact form and the pretty one, and the generic parser's answer or message whenever the
/// bytes are anything else.
final class RollupScannerTests: XCTestCase {
    /// A rollup of `count` entries from a fixed-seed generator, regions and app versions of every shape ingest stores.
    static func rollup(_ count: Int, seed: UInt64) -> MetricRollup {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var rollup = MetricRollup(kind: seed % 2 == 0 ? .crash : .fallback, locale: "tr-TR", day: 20_785)
        for _ in 0..<count {
            let key = MetricRollup.Key(
                contentVersion: 1 + next(40), region: ["TR", "DE", "CY", "US"][next(4)],
                appVersion: ["4.8", "4.8.1", "4.10.2", "5"][next(4)] + (next(3) == 0 ? ".\(next(9))" : ""))
            let total = next(3) == 0 ? MetricCounts.maximum - next(5) : next(100_000)
            rollup.counts[key] = MetricCounts(total: total, events: next(3) == 0 ? 0 : next(max(1, min(total, 1_000))))
            rollup.sources[key] = ["759c754d8def", "0123456789ab"][next(2)]
        }
        return rollup
    }

    /// The compact form ingest writes (issue 36): one entry a line, no spaces.
    static func compact(_ rollup: MetricRollup) -> [UInt8] {
        let columns = rollup.kind.columns
        let lines = rollup.counts.keys.sorted { $0.text < $1.text }.map { key in
            let c = rollup.counts[key]!
            return "\"\(key.text)\":[\(c.total),\(c.events),\"\(rollup.sources[key]!)\"]"
        }
        return Array(
            ("{\"columns\":[\"\(columns.total)\",\"\(columns.events)\"],\"counts\":{\n" + lines.joined(separator: ",\n")
                + "\n},\"date\":\"\(rollup.date)\",\"kind\":\"\(rollup.kind.rawValue)\",\"locale\":\"\(rollup.locale)\"}\n")
                .utf8)
    }

    func testBothFormsReadAsTheGenericParserReadsThem() throws {
        for seed in 0..<6 as Range<UInt64> {
            let rollup = Self.rollup([0, 1, 50, 2_000, 7, 300][Int(seed)], seed: seed)
            for bytes in [Self.compact(rollup), JSONWriter.pretty(rollup.jsonValue)] {
                let fast = try XCTUnwrap(RollupScanner.parse(bytes, checkingRange: true), "seed \(seed)")
                XCTAssertEqual(fast, rollup)
                XCTAssertEqual(try MetricRollup.parseGenerically(bytes, source: "r.json", checkingRange: true), fast)
            }
        }
    }

    /// Everything the fast reader leaves to the generic parser: `parse` then answers as it does,
    /// the same rollup or the same message.
    func testAnythingElseIsTheGenericParsersAnswer() throws {
        let head = #"{"columns":["sessions","crashes"],"counts":{"#
        let tail = #"},"date":"2026-11-28","kind":"crash","locale":"tr-TR"}"#
        let cases = [
            #""18|T\u0052|4.9":[5,1,"759c754d8def"]"#,  // an escape
            #""18|TR|4.9":[5.0,1,"759c754d8def"]"#,  // a fraction
            #""18|TR|4.9":[5e0,1,"759c754d8def"]"#,  // an exponent
            #""018|TR|4.9":[5,1,"759c754d8def"]"#,  // a version with a leading zero
            #""18|TR|4.9":[5,1,"759c754d8def"],"18|TR|4.9":[6,1,"759c754d8def"]"#,  // a key twice
            #""18|TR|4.9":[9007199254740992,1,"759c754d8def"]"#,  // out of range
            #""18|TR|4.9":[-5,1,"759c754d8def"]"#,  // negative
            #""18|TR":[5,1,"759c754d8def"]"#,  // two parts
            #""x|TR|4.9":[5,1,"759c754d8def"]"#,  // not a version
            #""18|TR|4.9":[5,1]"#,  // no source
            #""18|TÜ|4.9":[5,1,"759c754d8def"]"#,  // not ASCII
        ]
        for entry in cases {
            let bytes = Array((head + entry + tail).utf8)
            XCTAssertNil(RollupScanner.parse(bytes, checkingRange: true), entry)
            XCTAssertEqual(
                Result(catching: { try MetricRollup.parse(bytes, source: "r.json") }).description,
                Result(catching: { try MetricRollup.parseGenerically(bytes, source: "r.json", checkingRange: true) })
                    .description,
                entry)
        }
        for whole in [
            head + tail + "x", "\u{FEFF}" + head + tail,
            head + tail.replacingOccurrences(of: "\"kind\"", with: "\"other\""),
            #"{"extra":1,"# + head.dropFirst() + tail,
            head + "\n" + tail.replacingOccurrences(of: "2026-11-28", with: "2026-13-01"),
        ] {
            XCTAssertNil(RollupScanner.parse(Array(whole.utf8), checkingRange: true), whole)
        }
        let unchecked = Array((head + #""18|TR|4.9":[9007199254740993,1,"759c754d8def"]"# + tail).utf8)
        XCTAssertEqual(
            RollupScanner.parse(unchecked, checkingRange: false)?.counts.values.first?.total, 9_007_199_254_740_993)
    }
}

extension Result where Failure == any Error {
    /// The value, or the error's description: what a reader of the rollup gets.
    fileprivate var description: String {
        switch self {
        case .success(let value): return "\(value)"
        case .failure(let error): return "error: \(error)"
        }
    }
}
