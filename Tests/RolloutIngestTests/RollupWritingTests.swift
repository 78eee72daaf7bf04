import Foundation
import RolloutModel
import XCTest

@testable import RolloutIngest

/// Ingest writes a new rollup straight from its sorted sums (`RollupKeyTexts`); every other writer
/// goes through `MetricRollup.storedBytes`. The two must give the same bytes for the same counts,
/// whatever the ids' order of first appearance, and both must read back as the counts written.
final class RollupWritingTests: XCTestCase {
    private let directory = NSTemporaryDirectory() + "RollupWritingTests-\(getpid())"

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Sums random rows over spellings that sort differently as parts than as ids (1 before 17 and 9,
    /// but `17|` before `1|`; 4.1 before 4.1.2 before 4.10), spilling with a small table, then writes
    /// each rollup both ways.
    private func check(seed: UInt64, regions: [String], memory: Int) throws {
        var random = GroupSumsTests.Generator(state: seed)
        var values = GroupValues()
        let versions = [17, 1, 9, 100, 10, 2].shuffled(using: &random)
        let packs =
            versions.map { PackID(locale: "tr-TR", contentVersion: $0) } + [PackID(locale: "en", contentVersion: 1)]
        let packIds = try packs.map { try values.packIndex($0) }
        let dayIds = try (0..<3).map { try values.dayIndex(20_400 + $0) }
        let regionIds = try regions.shuffled(using: &random).map { try values.regionIndex($0) }
        let apps = ["4.1", "4.10", "4.1.2", "10", "4", "4.9.9", "5"].shuffled(using: &random)
        let appIds = try apps.map { try values.appIndex($0) }
        var sums = try GroupSums(memory: memory, directory: directory)
        for _ in 0..<2_000 {
            let pack = Int.random(in: 0..<packs.count, using: &random)
            let total = Int.random(in: 0...1_000_000_000_000, using: &random)
            try sums.add(
                high: GroupKey.high(
                    locale: values.packLocales[pack], day: dayIds.randomElement(using: &random)!, pack: packIds[pack]),
                low: GroupKey.low(
                    region: regionIds.randomElement(using: &random)!, app: appIds.randomElement(using: &random)!),
                total: total, events: Int.random(in: 0...total, using: &random))
        }
        let grouped = try sums.finish(values: values)
        let texts = RollupKeyTexts(values)
        XCTAssertEqual(texts.plain, !regions.contains { $0.contains("\"") || $0.contains("|") })
        for group in grouped.groups {
            let direct = try texts.rollup(group, of: grouped, kind: .fallback, source: "0123456789ab")
            var model = MetricRollup(kind: .fallback, locale: group.locale, day: group.day)
            try grouped.forEach(in: group) { key, counts in
                model.counts[key] = counts
                model.sources[key] = "0123456789ab"
            }
            XCTAssertEqual(
                String(decoding: direct, as: UTF8.self), String(decoding: model.storedBytes, as: UTF8.self),
                "seed \(seed): the same bytes both ways")
            XCTAssertEqual(try MetricRollup.parse(direct, source: "test"), model, "seed \(seed): reads back as written")
            XCTAssertEqual(
                try MetricRollup.parse(JSONWriter.pretty(model.jsonValue), source: "pretty"), model,
                "a rollup written before issue 36 reads as the same counts")
        }
    }

    func testTheDirectWriterGivesTheBytesOfTheModelsWriter() throws {
        for seed in 1...6 as ClosedRange<UInt64> {
            try check(
                seed: seed, regions: ["TR", "DE", "CY", "US", "T", "TRX"],
                memory: seed.isMultiple(of: 2) ? 512 : 1 << 20)
        }
    }

    func testAPartJSONMustEscapeTakesTheModelsWriter() throws {
        try check(seed: 7, regions: ["TR", "A\"B", "C\\D"], memory: 1 << 20)
        var values = GroupValues()
        _ = try values.regionIndex("A|B")
        XCTAssertFalse(RollupKeyTexts(values).plain, "a | would make the ranks lie")
    }

    /// The stored form, byte for byte (docs/metrics.md, "Rollups").
    func testTheStoredFormIsOneCountALine() throws {
        var rollup = MetricRollup(kind: .crash, locale: "tr-TR", day: 20_785)
        for (version, region, app, total, events) in [(18, "TR", "4.9", 2_500, 2), (17, "CY", "4.9", 5_000, 10)] {
            let key = MetricRollup.Key(contentVersion: version, region: region, appVersion: app)
            rollup.counts[key] = MetricCounts(total: total, events: events)
            rollup.sources[key] = "759c754d8def"
        }
        XCTAssertEqual(
            String(decoding: rollup.storedBytes, as: UTF8.self),
            """
            {"columns":["sessions","crashes"],"counts":{
            "17|CY|4.9":[5000,10,"759c754d8def"],
            "18|TR|4.9":[2500,2,"759c754d8def"]
            },"date":"2026-11-28","kind":"crash","locale":"tr-TR"}

            """)
    }
}
