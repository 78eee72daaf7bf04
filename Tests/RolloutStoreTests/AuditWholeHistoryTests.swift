import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// Whole-history questions (`log --limit 0`, `--since`, `--until`) read every plan a query returns
/// through the fast plan reader, and read objects without re-hashing them (docs/audit.md, "A fresh
/// clone"). Their rows must be exactly the rows of the old path: a walk of the history, objects
/// re-hashed, every plan read by `Plan.parse`. Fixed seeds over histories of three shapes: plans as
/// rollout writes them, hand edits in another JSON form (an escape sends a plan to `Plan.parse`),
/// and a mix with publishes and changes that touch no plan.
final class AuditWholeHistoryTests: XCTestCase {
    let actor = try! Actor.parse("Tester <tester@example.com>", from: "test")
    static let locales = ["tr-TR", "de-DE", "vi-VN", "tr"]
    static let regions = ["TR", "DE", "VN", "US"]
    static let ranges = [">=4.8", "4.8.x", "<4.9", "*", ">=4.8 <5"]

    enum Shape: CaseIterable {
        case asRolloutWrites
        case handEditsInAnotherForm
        case mixed
    }

    func testWholeHistoryRowsAreTheOldPathsRows() throws {
        for (offset, shape) in Shape.allCases.enumerated() {
            for seed in 1...2 {
                try compare(seed: UInt64(10 * offset + seed), shape: shape, changes: 40, queries: 15)
            }
        }
    }

    private struct Random {
        var state: UInt64
        mutating func below(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    private func compare(seed: UInt64, shape: Shape, changes: Int, queries: Int) throws {
        var random = Random(state: seed &* 0x9E37_79B9_7F4A_7C15)
        let path = NSTemporaryDirectory() + "audit-whole-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var clock = 1_800_000_000
        func now() -> Timestamp {
            clock += 600
            return Timestamp(seconds: Int64(clock))
        }
        let (repository, _) = try PackRepository.create(
            at: path, files: [("README.md", Array("hello\n".utf8))], actor: actor, time: now())
        repository.packThreshold = .max
        for version in 2..<(changes + 2) {
            let change = try makeChange(version: version, shape: shape, random: &random)
            XCTAssertNotNil(try repository.apply(actor: actor, time: now) { _ in (change, ()) }.commit)
        }
        for number in 0..<queries {
            let asked = try query(&random, from: 1_800_000_000, to: clock)
            let log = AuditLog(repository: repository)
            log.firstReach = 1 + random.below(8)
            // Chunks of a few lines, so an answer crosses many (`PlanPrefetch`).
            log.prefetchChunk = 1 + random.below(5)
            let answer = try log.query(asked)
            let old = AuditLog(repository: repository)
            old.strictPlansOnly = true
            let truth = try old.walkingQuery(asked)
            let context = "seed \(seed) \(shape) query \(number)"
            XCTAssertEqual(answer.entries.map { rows($0, asked) }, truth.entries.map { rows($0, asked) }, context)
            XCTAssertEqual(answer.truncated, truth.truncated, context)
            XCTAssertEqual(answer.warnings, [], context)
        }
    }

    /// One commit of the history in `shape`.
    private func makeChange(version: Int, shape: Shape, random: inout Random) throws -> Change {
        let kind = shape == .mixed ? random.below(5) : 4
        switch kind {
        case 0:
            return Change(
                summary: "publish index sequence \(version) to \(random.pick(["s3://a", "s3://b"]))",
                trailers: [(.action, "publish"), (.destination, "site")],
                writes: [("site-sequence", Array("\(version)\n".utf8))])
        case 1:
            return Change(
                summary: "ingest \(version)", trailers: [(.action, "metrics-ingest")],
                writes: [("metrics/\(version).json", Array("{}\n".utf8))])
        default:
            let count = shape == .asRolloutWrites ? 1 : 1 + random.below(2)
            var writes: [(path: String, bytes: [UInt8])] = []
            for locale in AuditWholeHistoryTests.locales.shuffled().prefix(count) {
                var bytes = JSONWriter.pretty(try plan(locale, version, &random).jsonValue)
                if shape != .asRolloutWrites && random.below(2) == 0 { bytes = escapingSalts(bytes) }
                writes.append((StateLayout.plan(locale), bytes))
            }
            let locale = String(writes[0].path.dropFirst("plans/".count).dropLast(".json".count))
            return Change(
                summary: "promote \(locale)@\(version)",
                trailers: [(.action, "promote"), (.locale, locale), (.pack, "\(locale)@\(version)")], writes: writes)
        }
    }

    /// A random plan: a baseline, and up to three rules with random targeting and shares.
    private func plan(_ locale: String, _ version: Int, _ random: inout Random) throws -> Plan {
        let ref = Plan.PackRef(contentVersion: version, minAppVersion: AppVersion("4.0")!)
        let rules = try (0..<random.below(4)).map { _ in
            Plan.Rule(
                pack: Plan.PackRef(contentVersion: version + 1, minAppVersion: AppVersion("4.0")!),
                regions: random.below(3) == 0 ? [] : [random.pick(AuditWholeHistoryTests.regions)],
                versions: try VersionRange.parse(random.pick(AuditWholeHistoryTests.ranges)),
                share: try Percent.parse(random.pick(["5%", "10%", "50%", "100%"])), salt: "s\(random.below(3))")
        }
        return Plan(locale: locale, baseline: random.below(5) == 0 ? nil : ref, rules: rules, sequence: version)
    }

    /// The same plan with each salt's first letter written as a JSON escape: valid, the same plan, and
    /// not a form the fast reader takes, so `Plan.parse` reads it.
    private func escapingSalts(_ bytes: [UInt8]) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        return Array(text.replacingOccurrences(of: "\": \"s", with: "\": \"\\u0073").utf8)
    }

    private func query(_ random: inout Random, from start: Int, to end: Int) throws -> AuditLog.Query {
        var query = AuditLog.Query()
        switch random.below(4) {
        case 0, 1:
            query.segment = (
                random.pick(AuditWholeHistoryTests.regions + [Region.any, "FR"]),
                try VersionRange.parse(random.pick(["=4.8", "4.9.x", "=4.2", "*", "=5.1"]))
            )
            if random.below(4) == 0 { query.locale = random.pick(AuditWholeHistoryTests.locales) }
        case 2: query.locale = random.pick(AuditWholeHistoryTests.locales)
        default: break
        }
        if random.below(3) == 0 { query.since = Timestamp(seconds: Int64(start + random.below(end - start))) }
        if random.below(3) == 0 { query.until = Timestamp(seconds: Int64(start + random.below(end - start))) }
        query.limit = random.pick([nil, nil, nil, 3, 20] as [Int?])
        return query
    }

    /// What `rollout log` shows of an entry: its fields, its plans, and under --segment the shares.
    private func rows(_ entry: AuditEntry, _ query: AuditLog.Query) -> String {
        var row =
            "\(entry.sequence) \(entry.commit) \(entry.time.seconds) \(entry.action) \(entry.actor) \(entry.summary) "
            + "\(entry.reason ?? "-") \(entry.locales) \(entry.packs)"
        for change in entry.planChanges {
            row += "\n  \(change.locale) \(change.beforeBlob ?? "-") \(change.afterBlob)"
            row += " \(String(decoding: JSONWriter.canonical(change.before.jsonValue), as: UTF8.self))"
            row += " \(String(decoding: JSONWriter.canonical(change.after.jsonValue), as: UTF8.self))"
        }
        if let segment = query.segment {
            for (change, _) in entry.sharesChanged(in: segment.region, versions: segment.versions) {
                for piece in SegmentShares.of(change.after, region: segment.region, versions: segment.versions).pieces {
                    row +=
                        "\n  \(change.locale) \(piece.regions) \(piece.versions): \(piece.describe(locale: change.locale))"
                }
            }
        }
        return row
    }
}
