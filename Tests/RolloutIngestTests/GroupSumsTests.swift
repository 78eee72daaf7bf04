import Foundation
import RolloutModel
import XCTest

@testable import RolloutIngest

/// The sums of `metrics ingest` against a model (a dictionary), whatever the order of the rows and
/// however often the table spills to disk.
final class GroupSumsTests: XCTestCase {
    /// A small deterministic generator (SplitMix64), so that a failure can be replayed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ z >> 30) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ z >> 27) &* 0x94D0_49BB_1331_11EB
            return z ^ z >> 31
        }
    }

    struct ModelKey: Hashable {
        let locale: String
        let day: Int
        let key: MetricRollup.Key
    }

    private let directory = NSTemporaryDirectory() + "GroupSumsTests-\(getpid())"

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The order and repetition of a file's rows.
    enum Shape {
        /// Each row any group, at random: groups repeat.
        case random
        /// One row per group, in order of date, pack, region, app version: an export written by an
        /// analytics job that already grouped it.
        case aggregated
        /// Random rows, sorted by date: an export written day by day.
        case dayOrdered
    }

    struct Row {
        let pack: Int
        let day: Int
        let region: Int
        let app: Int
        let total: Int
        let events: Int
    }

    /// `rows` rows of `shape` over `packs` packs, 9 days, 5 regions and `apps` app versions (for
    /// `.aggregated`, every group once, however many `rows` says).
    private func rows(
        _ rows: Int, shape: Shape, packs: Int, apps: Int, random: inout Generator
    ) -> [Row] {
        func counts() -> (Int, Int) {
            let total = Int.random(in: 0...1_000, using: &random)
            return (total, Int.random(in: 0...total, using: &random))
        }
        if shape == .aggregated {
            var all: [Row] = []
            for day in 0..<9 {
                for pack in 0..<packs {
                    for region in 0..<5 {
                        for app in 0..<apps {
                            let (total, events) = counts()
                            all.append(
                                Row(pack: pack, day: day, region: region, app: app, total: total, events: events))
                        }
                    }
                }
            }
            return all
        }
        let all = (0..<rows).map { _ in
            let (pack, day) = (Int.random(in: 0..<packs, using: &random), Int.random(in: 0..<9, using: &random))
            let (region, app) = (Int.random(in: 0..<5, using: &random), Int.random(in: 0..<apps, using: &random))
            let (total, events) = counts()
            return Row(pack: pack, day: day, region: region, app: app, total: total, events: events)
        }
        return shape == .dayOrdered ? all.enumerated().sorted { ($0.1.day, $0.0) < ($1.1.day, $1.0) }.map(\.1) : all
    }

    /// Sums `rows` rows of `shape` over a few values of each column with `memory` bytes, and checks
    /// every rollup group against a dictionary: same groups in locale-then-date order, same keys,
    /// same sums.
    private func check(
        rows count: Int, memory: Int, seed: UInt64, apps: Int = 30, shape: Shape = .random,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> GroupSums.Statistics {
        var random = Generator(state: seed)
        var values = GroupValues()
        let packs = [
            PackID(locale: "tr-TR", contentVersion: 18), PackID(locale: "en-US", contentVersion: 1),
            PackID(locale: "tr-TR", contentVersion: 17), PackID(locale: "vi-VN", contentVersion: 3),
        ]
        let packIds = try packs.map { try values.packIndex($0) }
        let dayIds = try (0..<9).map { try values.dayIndex(20_400 + $0 * 3) }
        let regionIds = try ["TR", "DE", "VN", "US", "GB"].map { try values.regionIndex($0) }
        let appIds = try (0..<apps).map { try values.appIndex("4.\($0)") }
        var sums = try GroupSums(memory: memory, directory: directory)
        var model: [ModelKey: MetricCounts] = [:]
        for row in rows(count, shape: shape, packs: packs.count, apps: apps, random: &random) {
            let (pack, day, region, app, total, events) = (
                row.pack, row.day, row.region, row.app, row.total, row.events
            )
            try sums.add(
                high: GroupKey.high(locale: values.packLocales[pack], day: dayIds[day], pack: packIds[pack]),
                low: GroupKey.low(region: regionIds[region], app: appIds[app]), total: total, events: events)
            let key = ModelKey(
                locale: packs[pack].locale, day: values.days[day],
                key: MetricRollup.Key(
                    contentVersion: packs[pack].contentVersion, region: values.regions[region],
                    appVersion: values.apps[app]))
            let before = model[key] ?? MetricCounts(total: 0, events: 0)
            model[key] = MetricCounts(total: before.total + total, events: before.events + events)
        }
        let grouped = try sums.finish(values: values)
        var found: [ModelKey: MetricCounts] = [:]
        var order: [String] = []
        for group in grouped.groups {
            order.append("\(group.locale) \(group.day)")
            try grouped.forEach(in: group) { key, counts in
                XCTAssertNil(
                    found[ModelKey(locale: group.locale, day: group.day, key: key)], "a key appears twice", file: file,
                    line: line)
                found[ModelKey(locale: group.locale, day: group.day, key: key)] = counts
            }
        }
        XCTAssertEqual(found.count, model.count, file: file, line: line)
        XCTAssertTrue(found == model, "sums differ from the model", file: file, line: line)
        XCTAssertEqual(grouped.count, model.count, file: file, line: line)
        let expectedOrder = Set(model.keys.map { "\($0.locale) \($0.day)" }).sorted { a, b in
            let (x, y) = (a.split(separator: " "), b.split(separator: " "))
            return (x[0], Int(x[1])!) < (y[0], Int(y[1])!)
        }
        XCTAssertEqual(
            order, expectedOrder, "one group per rollup file, in order of locale then date", file: file, line: line)
        XCTAssertEqual(grouped.locales, Set(model.keys.map(\.locale)).sorted(), file: file, line: line)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory), [],
            "spilled runs are never visible as files", file: file, line: line)
        return sums.statistics
    }

    func testSumsInMemoryEqualTheModel() throws {
        let work = try check(rows: 20_000, memory: GroupSums.defaultMemory, seed: 1)
        XCTAssertEqual(work.runs, 0, "a file whose groups fit the table never spills")
    }

    func testSpilledRunsMergeToTheModelsSums() throws {
        // 512 bytes: 16 slots, a run every 12 groups, and merges of 2 runs at a time in many passes.
        for seed in 1...5 as ClosedRange<UInt64> {
            let work = try check(rows: 3_000, memory: 512, seed: seed)
            XCTAssertGreaterThan(work.runs, 50)
            XCTAssertGreaterThan(work.mergePasses, 1, "more runs than the memory merges at once take several passes")
        }
    }

    func testRunsMergeWithWhatIsStillInTheTableInOnePass() throws {
        // 72,000 groups against a table that holds 49,152 and merges 31 runs at once: a run, then the
        // rest of the table, merged in one pass.
        let work = try check(rows: 150_000, memory: 2 << 20, seed: 7, apps: 400)
        XCTAssertEqual(work.mergePasses, 1)
        XCTAssertGreaterThanOrEqual(work.runs, 2)
    }

    func testOneRowAGroupSumsToTheModelInMemoryAndSpilled() throws {
        // 9 days x 4 packs x 5 regions x 300 app versions: 54,000 groups, each on one row.
        let kept = try check(rows: 0, memory: GroupSums.defaultMemory, seed: 3, apps: 300, shape: .aggregated)
        XCTAssertEqual(kept.runs, 0)
        // 64 KiB: runs of 1,536 groups, sorted by radix (KeySort) as each has more than 1,024.
        let spilled = try check(rows: 0, memory: 64 << 10, seed: 4, apps: 300, shape: .aggregated)
        XCTAssertGreaterThan(spilled.runs, 30)
        XCTAssertEqual(spilled.spilledEntries, 54_000, "one row a group: every group is spilled once")
    }

    func testRandomRowsAtAboutThreeRowsAGroupSumToTheModel() throws {
        // 150,000 rows over 54,000 groups (about 2.7 rows a group), spilled in runs of 12,288.
        let work = try check(rows: 150_000, memory: 512 << 10, seed: 5, apps: 300)
        XCTAssertGreaterThan(work.runs, 5)
    }

    func testDayOrderedRowsSumToTheModel() throws {
        let kept = try check(rows: 100_000, memory: GroupSums.defaultMemory, seed: 6, apps: 300, shape: .dayOrdered)
        XCTAssertEqual(kept.runs, 0)
        let spilled = try check(rows: 100_000, memory: 128 << 10, seed: 8, apps: 300, shape: .dayOrdered)
        XCTAssertGreaterThan(spilled.runs, 10)
    }

    func testEmptyInputHasNoGroups() throws {
        var sums = try GroupSums(memory: 512, directory: directory)
        let grouped = try sums.finish(values: GroupValues())
        XCTAssertEqual(grouped.count, 0)
        XCTAssertTrue(grouped.groups.isEmpty)
    }

    func testIdsBeyondSixteenBitsKeepTheirOwnGroups() throws {
        var values = GroupValues()
        let pack = try values.packIndex(PackID(locale: "tr-TR", contentVersion: 18))
        let day = try values.dayIndex(20_420)
        let region = try values.regionIndex("TR")
        let count = 70_000
        for i in 0..<count { _ = try values.appIndex("4.\(i)") }
        var sums = try GroupSums(memory: 64 << 10, directory: directory)
        for app in (0..<Int32(count)).reversed() {
            try sums.add(
                high: GroupKey.high(locale: 0, day: day, pack: pack), low: GroupKey.low(region: region, app: app),
                total: Int(app), events: 0)
        }
        let grouped = try sums.finish(values: values)
        XCTAssertEqual(grouped.groups.count, 1)
        var seen = 0
        try grouped.forEach(in: grouped.groups[0]) { key, counts in
            XCTAssertEqual(key.appVersion, "4.\(counts.total)")
            seen += 1
        }
        XCTAssertEqual(seen, count)
    }
}
