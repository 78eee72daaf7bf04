import XCTest

@testable import RolloutModel

/// The columns health, guard and the report read rollups into (RollupEntries.swift, issue 36): the
/// same entries `MetricRollup.parse` reads from every form a rollup is stored in, and its message for
/// anything it refuses.
final class RollupEntriesTests: XCTestCase {
    /// `rollup`'s entries as (version, region, app version, counts), in the byte order of their keys.
    static func flat(_ rollup: MetricRollup) -> [String] {
        rollup.counts.keys.sorted { $0.text.utf8.lexicographicallyPrecedes($1.text.utf8) }.map { key in
            "\(key.contentVersion) \(key.region) \(key.appVersion) \(rollup.counts[key]!)"
        }
    }

    static func flat(_ entries: RollupEntries, _ cells: RollupCells) -> [String] {
        (0..<entries.count).map { index in
            let cell = Int(entries.cells[index])
            return
                "\(entries.versions[index]) \(cells.regions[cell]) \(cells.appVersions[cell]) \(entries.counts[index])"
        }
    }

    func testEveryStoredFormReadsAsTheGenericParserReadsIt() throws {
        var cells = RollupCells()
        for seed in 0..<6 as Range<UInt64> {
            let rollup = RollupScannerTests.rollup([0, 1, 50, 2_000, 7, 300][Int(seed)], seed: seed)
            // The compact form ingest writes, the pretty one of earlier versions, and the same
            // entries in another order (valid JSON, read by the generic parser).
            let compact = RollupScannerTests.compact(rollup)
            let text = String(decoding: compact, as: UTF8.self)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let reversed = ([lines[0]] + lines[1..<(lines.count - 2)].reversed() + lines.suffix(2)).map {
                $0.hasSuffix(",") ? $0.dropLast() : $0
            }
            let shuffled =
                reversed.count > 4
                ? reversed[0] + "\n" + reversed[1..<(reversed.count - 2)].joined(separator: ",\n") + "\n"
                    + reversed.suffix(2).joined(separator: "\n")
                : text
            for bytes in [compact, JSONWriter.pretty(rollup.jsonValue), Array(shuffled.utf8)] {
                let entries = try RollupEntries.parse(bytes, source: "r.json", cells: &cells)
                XCTAssertEqual(Self.flat(entries, cells), Self.flat(rollup), "seed \(seed)")
                XCTAssertEqual(
                    [entries.kind.rawValue, entries.locale, "\(entries.day)"],
                    [rollup.kind.rawValue, rollup.locale, "\(rollup.day)"])
            }
        }
        // Every distinct region and app version was made into a cell once, across all the rollups.
        let named = Set((0..<cells.count).map { "\(cells.regions[$0])|\(cells.appVersions[$0])" })
        XCTAssertEqual(named.count, cells.count)
    }

    /// Out of order keys are the generic parser's: it reads them, or refuses a key written twice with its message.
    func testWhatTheScannerLeavesIsReadOrRefusedAsParseDoes() throws {
        let head = #"{"columns":["sessions","crashes"],"counts":{"#
        let tail = #"},"date":"2026-11-28","kind":"crash","locale":"tr-TR"}"#
        for counts in [
            #""18|TR|4.9":[5,1,"759c754d8def"],"17|TR|4.9":[6,1,"759c754d8def"]"#,  // out of order
            #""18|TR|4.9":[5,1,"759c754d8def"],"18|TR|4.9":[6,1,"759c754d8def"]"#,  // a key twice
            #""18|T\u0052|4.9":[5,1,"759c754d8def"]"#,  // an escape
            #""18|TR|4.9":[9007199254740992,1,"759c754d8def"]"#,  // out of range
            #""18|TR":[5,1,"759c754d8def"]"#,  // two parts
            #""18|TR|4.9":[5,1,"a"],"18|TR|5.0":[5,1,"b"]"#,  // in order
        ] {
            let bytes = Array((head + counts + tail).utf8)
            var cells = RollupCells()
            let expected = Result { Self.flat(try MetricRollup.parse(bytes, source: "metrics/crash/tr-TR/x.json")) }
            let read = Result {
                Self.flat(try RollupEntries.parse(bytes, source: "metrics/crash/tr-TR/x.json", cells: &cells), cells)
            }
            XCTAssertEqual("\(read)", "\(expected)", counts)
        }
    }

    /// Thousands of distinct cells (the table grows several times) keep their ids, and cells whose bytes
    /// differ only after a shared start stay apart.
    func testManyCellsKeepDistinctIDs() {
        var cells = RollupCells()
        var ids: [String: Int32] = [:]
        for region in 0..<120 {
            for app in 0..<40 {
                let (r, a) = ("R\(region)", "4.\(app).1")
                ids["\(r)|\(a)"] = cells.id(region: r, appVersion: a)
            }
        }
        XCTAssertEqual(cells.count, 4_800)
        XCTAssertEqual(Set(ids.values).count, 4_800)
        for (text, id) in ids {
            let parts = text.split(separator: "|").map(String.init)
            XCTAssertEqual(cells.id(region: parts[0], appVersion: parts[1]), id, text)
            XCTAssertEqual([cells.regions[Int(id)], cells.appVersions[Int(id)]], parts)
        }
        XCTAssertNotEqual(cells.id(region: "R1", appVersion: "4.1"), cells.id(region: "R1", appVersion: "4.1.1"))
        XCTAssertNotEqual(cells.id(region: "R1|4", appVersion: "1"), cells.id(region: "R1", appVersion: "4|1"))
    }
}
