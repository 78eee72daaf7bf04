import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// The log index against its model: whatever happened to the index (built a little at a time as
/// queries reach back, brought up to date after new changes, killed in the middle of a write, cut,
/// deleted, or left behind by a rewritten history), every query answers exactly what a walk of the
/// history without any index answers (docs/audit.md, "The index").
final class AuditIndexModelTests: XCTestCase {
    let actor = try! Actor.parse("Tester <tester@example.com>", from: "test")
    static let locales = ["tr-TR", "de-DE", "vi-VN"]
    static let regions = ["TR", "DE", "VN", "US"]
    static let ranges = [">=4.8", "4.8.x", "<4.9", "*"]

    /// A few fixed seeds here; scripts/audit-index-model.sh runs many more (AUDIT_MODEL_SEEDS,
    /// AUDIT_MODEL_STEPS).
    func testEveryAnswerIsTheHistorysWhateverHappenedToTheIndex() throws {
        let environment = ProcessInfo.processInfo.environment
        let seeds = UInt64(environment["AUDIT_MODEL_SEEDS"] ?? "") ?? 4
        let steps = Int(environment["AUDIT_MODEL_STEPS"] ?? "") ?? 100
        let first = UInt64(environment["AUDIT_MODEL_FIRST_SEED"] ?? "") ?? 1
        for seed in first..<(first + seeds) {
            try run(seed: seed, steps: steps)
        }
    }

    func run(seed: UInt64, steps: Int) throws {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        func below(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

        let path = NSTemporaryDirectory() + "audit-model-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var clock = 1_800_000_000
        func now() -> Timestamp {
            clock += 60
            return Timestamp(seconds: Int64(clock))
        }
        let (repository, _) = try PackRepository.create(
            at: path, files: [("README.md", Array("hello\n".utf8))], actor: actor, time: now())
        repository.packThreshold = .max
        let index = repository.path + "/rollout/log-index"

        // A random plan: a baseline, and up to three rules with random targeting and shares.
        func plan(_ locale: String, _ version: Int) throws -> Plan {
            let ref = Plan.PackRef(contentVersion: version, minAppVersion: AppVersion("4.0")!)
            let rules = try (0..<below(4)).map { _ in
                Plan.Rule(
                    pack: Plan.PackRef(contentVersion: version + 1, minAppVersion: AppVersion("4.0")!),
                    regions: below(3) == 0 ? [] : [pick(AuditIndexModelTests.regions)],
                    versions: try VersionRange.parse(pick(AuditIndexModelTests.ranges)),
                    share: try Percent.parse(pick(["5%", "10%", "50%", "100%"])), salt: "s\(below(3))")
            }
            return Plan(locale: locale, baseline: below(5) == 0 ? nil : ref, rules: rules, sequence: version)
        }
        var version = 1
        // A commit made without rollout (plain git, or a rollout from before `Rollout-Plans`): the
        // log index reads its plan changes from its trees.
        func commitWithoutRollout(_ change: Change) throws {
            let tip = try repository.stateTip()
            let ids = try change.writes.map { try repository.git.writeBlob($0.bytes) }
            let tree = try repository.git.updatedTree(
                base: try repository.git.commit(tip).tree,
                upserts: zip(change.writes, ids).map { (path: $0.path, blob: $1) }, removals: [])
            let time = now()
            let commit = try repository.git.createCommit(
                tree: tree, parents: [tip], message: change.message(actor: actor.description),
                author: GitSignature(name: actor.name, email: actor.email, time: time.seconds))
            XCTAssertTrue(
                try repository.git.compareAndSwap(StateLayout.stateRef, to: commit, expected: tip, message: "plain git")
            )
        }
        // One commit: a plan change (as rollout writes, as an older rollout wrote, or two at once by
        // hand), a publish, or a change that touches no plan. Histories mix the commits the index
        // reads from `Rollout-Plans` with those it reads from trees.
        func commit() throws {
            version += 1
            let kind = below(6)
            var writes: [(path: String, bytes: [UInt8])] = []
            var trailers: [(name: Trailer, value: String)] = [(.action, "promote")]
            var summary = "change \(version)"
            switch kind {
            case 0:
                trailers = [(.action, "publish"), (.destination, "site")]
                summary = "publish index sequence \(version) to \(pick(["s3://a", "s3://b"]))"
                writes = [("site-sequence", Array("\(version)\n".utf8))]
            case 1:
                trailers = [(.action, "metrics-ingest")]
                writes = [("metrics/\(version).json", Array("{}\n".utf8))]
            case 2:
                for locale in AuditIndexModelTests.locales.shuffled().prefix(2) {
                    writes.append((StateLayout.plan(locale), JSONWriter.pretty(try plan(locale, version).jsonValue)))
                }
            default:
                let locale = pick(AuditIndexModelTests.locales)
                trailers.append((.locale, locale))
                trailers.append((.pack, "\(locale)@\(version)"))
                writes = [(StateLayout.plan(locale), JSONWriter.pretty(try plan(locale, version).jsonValue))]
            }
            let change = Change(summary: summary, trailers: trailers, writes: writes)
            if kind == 2 || below(3) == 0 {
                try commitWithoutRollout(change)
            } else {
                XCTAssertNotNil(try repository.apply(actor: actor, time: now) { _ in (change, ()) }.commit)
            }
        }

        func query() throws -> AuditLog.Query {
            var query = AuditLog.Query()
            switch below(5) {
            case 0, 1:
                query.segment = (
                    pick(AuditIndexModelTests.regions + [Region.any, "FR"]),
                    try VersionRange.parse(pick(["=4.8", "4.9.x", "=4.2", "*"]))
                )
                if below(4) == 0 { query.locale = pick(AuditIndexModelTests.locales) }
            case 2: query.locale = pick(AuditIndexModelTests.locales)
            case 3:
                query.pack = PackID(locale: pick(AuditIndexModelTests.locales), contentVersion: 1 + below(version + 1))
            default: break
            }
            query.limit = pick([nil, 1, 2, 5, 20] as [Int?])
            return query
        }

        for _ in 0..<(3 + below(30)) { try commit() }
        var damaged = false
        for step in 0..<steps {
            let kind = below(12)
            switch kind {
            case 0, 1, 2:
                for _ in 0...below(5) { try commit() }
            case 3:
                // Killed in the middle of an update: some appends land, one lands half, the rest never.
                let killed = AuditLog(repository: repository)
                killed.appendsBeforeKill = below(12)
                killed.firstReach = 1 + below(6)
                _ = try killed.query(try query())
            case 4 where FileManager.default.fileExists(atPath: index):
                // A file cut short, deleted, or with garbage after what the index wrote.
                let files = try FileManager.default.subpathsOfDirectory(atPath: index).filter {
                    $0.hasSuffix(".idx") || $0.hasSuffix(".jsonl")
                }
                if let file = files.isEmpty ? nil : pick(files) {
                    let full = index + "/" + file
                    switch below(3) {
                    case 0:
                        try FileManager.default.removeItem(atPath: full)
                        damaged = true
                    case 1:
                        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: full))
                        try handle.truncate(atOffset: UInt64(below(Int(try handle.seekToEnd()) + 1)))
                        try handle.close()
                        damaged = true
                    default:
                        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: full))
                        try handle.seekToEnd()
                        try handle.write(contentsOf: Data("12 not-a-pointer\n99999 0\n{\"seq\":3".utf8))
                        try handle.close()
                    }
                    if file.hasSuffix("changes.jsonl") { damaged = true }
                }
            case 5 where FileManager.default.fileExists(atPath: index + "/HEAD") && below(3) == 0:
                // HEAD edited: its oldest indexed commit moved to another commit of the history, or its
                // position changed (answers must stay the history's; a warning may say so).
                var parts = try String(contentsOfFile: index + "/HEAD", encoding: .utf8).split(separator: " ").map(
                    String.init)
                if parts.count == 6 {
                    let chain = try repository.git.firstParentChain(from: try repository.stateTip(), until: nil).ids
                    if below(2) == 0 {
                        parts[3] = pick(chain).hex
                    } else {
                        parts[4] = String(max(1, (Int(parts[4]) ?? 1) + pick([-2, -1, 1, 2])))
                    }
                    try parts.joined(separator: " ").write(toFile: index + "/HEAD", atomically: false, encoding: .utf8)
                    damaged = true
                }
            case 5:
                // History rewritten: main goes back a few commits, then on with other changes.
                let chain = try repository.git.firstParentChain(from: try repository.stateTip(), until: nil).ids
                if chain.count > 3 {
                    let back = chain[1 + below(min(chain.count - 2, 8))]
                    XCTAssertTrue(
                        try repository.git.compareAndSwap(
                            StateLayout.stateRef, to: back, expected: chain[0], message: "reset"))
                    for _ in 0..<below(3) { try commit() }
                }
            default:
                let asked = try query()
                let log = AuditLog(repository: repository)
                log.firstReach = 1 + below(6)
                let answer = try log.query(asked)
                let truth = try AuditLog(repository: repository).walkingQuery(asked)
                let context =
                    "seed \(seed) step \(step): \(asked.segment.map { "\($0.region)/\($0.versions)" } ?? "-") \(asked.locale ?? "-") \(asked.pack?.description ?? "-") limit \(asked.limit.map(String.init) ?? "none")"
                XCTAssertEqual(answer.entries.map(\.commit), truth.entries.map(\.commit), context)
                XCTAssertEqual(answer.entries.map(\.sequence), truth.entries.map(\.sequence), context)
                XCTAssertEqual(answer.truncated, truth.truncated, context)
                // Damage is found when a query reads the damaged file or updates the index: until then
                // a warning may come; never without damage.
                if !damaged { XCTAssertEqual(answer.warnings, [], context) }
                if !answer.warnings.isEmpty { damaged = false }
                if answer.entries.map(\.commit) != truth.entries.map(\.commit) {
                    return
                }
            }
        }
    }
}
