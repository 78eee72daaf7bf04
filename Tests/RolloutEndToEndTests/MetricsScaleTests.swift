import Foundation
import XCTest

/// `metrics ingest` on exports shaped the way real ones are: rows in any order (shards
/// concatenated), many groups, many distinct app versions; and when the groups outgrow the memory
/// budget (forced small with ROLLOUT_INGEST_MEMORY), the same rollups from runs spilled to disk,
/// which never outlive the command (docs/metrics.md, "Streaming and memory").
final class MetricsScaleTests: XCTestCase {
    static let header = "date,locale,pack,region,app_version,sessions,crashes\n"

    /// Every pack the examples hold x 6 dates x 4 regions x 12 app versions, each key on 3 rows, day
    /// by day; app versions x.y.0 are sometimes spelled x.y (one key either way).
    static func dayOrderedRows() -> [String] {
        let packs = [
            ("en-US", "en-US@1"), ("tr", "tr@1"), ("tr-TR", "tr-TR@17"), ("tr-TR", "tr-TR@18"), ("vi-VN", "vi-VN@3"),
        ]
        var rows: [String] = []
        for day in 20...25 {
            for shard in 0..<3 {
                for (p, (locale, pack)) in packs.enumerated() {
                    for region in ["TR", "US", "VN", "DE"] {
                        for minor in 0..<4 {
                            for patch in 0..<3 {
                                let version = patch == 0 && shard == 1 ? "4.\(minor)" : "4.\(minor).\(patch)"
                                let sessions = 100 + day * 7 + shard * 13 + p * 31 + minor * 5 + patch
                                rows.append(
                                    "2026-11-\(day),\(locale),\(pack),\(region),\(version),\(sessions),\((sessions * 3) % 17)\n"
                                )
                            }
                        }
                    }
                }
            }
        }
        return rows
    }

    /// A fixed shuffle (a linear congruential generator), so a failure replays.
    static func shuffled(_ rows: [String]) -> [String] {
        var rows = rows
        var state: UInt64 = 2026
        for i in stride(from: rows.count - 1, to: 0, by: -1) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            rows.swapAt(i, Int((state >> 33) % UInt64(i + 1)))
        }
        return rows
    }

    /// The rollup files of a repository, without the short digest of the file each count came from.
    func rollups(_ w: Workspace, repository: String) throws -> [String: [String: [Int]]] {
        var found: [String: [String: [Int]]] = [:]
        let listing = try w.git("ls-tree", "-r", "--name-only", "main", "metrics/crash", repository: repository).stdout
        for path in listing.split(separator: "\n") {
            let text = try w.git("show", "main:\(path)", repository: repository).stdout
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let counts = try XCTUnwrap(object["counts"] as? [String: [Any]])
            found[String(path)] = counts.mapValues { $0.prefix(2).compactMap { $0 as? Int } }
        }
        return found
    }

    func show(_ w: Workspace, repository: String) throws -> [String] {
        try ["en-US", "tr", "tr-TR", "vi-VN"].map { locale in
            let shown = try w.rollout("--repo", repository, "metrics", "show", locale, "--json")
            XCTAssertEqual(shown.status, 0, shown.output)
            return shown.stdout
        }
    }

    /// How many sorted runs went to disk, as ROLLOUT_INGEST_PROFILE reports it ("... 12 runs spilled ...").
    func spilledRuns(_ result: RunResult) -> Int? {
        guard let range = result.stderr.range(of: " runs spilled", options: .backwards) else { return nil }
        return Int(result.stderr[..<range.lowerBound].split(separator: " ").last ?? "")
    }

    func copy(_ w: Workspace, to name: String) throws -> String {
        let path = w.scratch.path(name)
        try FileManager.default.copyItem(atPath: w.repository, toPath: path)
        return path
    }

    func testShuffledRowsGiveExactlyTheRollupsOfDayOrderedRows() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let rows = Self.dayOrderedRows()
        let sorted = try w.scratch.write("sorted.csv", Self.header + rows.joined())
        let shuffled = try w.scratch.write("shuffled.csv", Self.header + Self.shuffled(rows).joined())
        let plain = try copy(w, to: "plain.git")
        let spilling = try copy(w, to: "spilling.git")
        let temporary = w.scratch.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)

        let first = try w.rollout("metrics", "ingest", "--kind", "crash", sorted)
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertTrue(first.stdout.contains("\(rows.count) rows ingested into 24 rollup(s)"), first.stdout)
        let second = try w.rollout("--repo", plain, "metrics", "ingest", "--kind", "crash", shuffled)
        XCTAssertEqual(second.status, 0, second.output)
        // 512 bytes of table (16 groups) against 1,440 groups: dozens of runs, merged in passes.
        let third = try w.rollout(
            "--repo", spilling, "metrics", "ingest", "--kind", "crash", shuffled,
            env: ["ROLLOUT_INGEST_MEMORY": "512", "ROLLOUT_INGEST_PROFILE": "1", "TMPDIR": temporary])
        XCTAssertEqual(third.status, 0, third.output)
        XCTAssertGreaterThan(spilledRuns(third) ?? 0, 50, third.stderr)

        let expected = try rollups(w, repository: w.repository)
        XCTAssertEqual(expected.count, 24)
        XCTAssertEqual(expected.values.map(\.count).reduce(0, +), 1_440)
        XCTAssertEqual(try rollups(w, repository: plain), expected, "shuffled rows, the same rollups")
        XCTAssertEqual(try rollups(w, repository: spilling), expected, "spilled and merged, the same rollups")
        let shown = try show(w, repository: w.repository)
        XCTAssertEqual(try show(w, repository: plain), shown)
        XCTAssertEqual(try show(w, repository: spilling), shown)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: temporary), [], "no temporary file outlives the ingest")
    }

    /// An export already grouped (one row a group, 4,800 groups: more than the radix sort's
    /// threshold, and with ROLLOUT_INGEST_MEMORY=65536 more than one run of 1,536) gives exactly
    /// the rollups of the same counts spread over three rows a group in random order.
    func testOneRowAGroupGivesTheRollupsOfThreeRowsAGroupInAnyOrder() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let packs = [
            ("en-US", "en-US@1"), ("tr", "tr@1"), ("tr-TR", "tr-TR@17"), ("tr-TR", "tr-TR@18"), ("vi-VN", "vi-VN@3"),
        ]
        var grouped: [String] = []
        var spread: [String] = []
        for day in 20...25 {
            for (p, (locale, pack)) in packs.enumerated() {
                for (r, region) in ["TR", "US", "VN", "DE"].enumerated() {
                    for app in 0..<40 {
                        let key = "2026-11-\(day),\(locale),\(pack),\(region),4.\(app / 4).\(app % 4)"
                        let parts = (0..<3).map { 50 + (day * 7 + p * 31 + r * 11 + app * 3 + $0 * 13) % 400 }
                        grouped.append("\(key),\(parts.reduce(0, +)),\(parts.map { $0 % 7 }.reduce(0, +))\n")
                        spread += parts.map { "\(key),\($0),\($0 % 7)\n" }
                    }
                }
            }
        }
        let one = try w.scratch.write("grouped.csv", Self.header + grouped.joined())
        let three = try w.scratch.write("spread.csv", Self.header + Self.shuffled(spread).joined())
        let spilling = try copy(w, to: "spilling.git")
        let repeated = try copy(w, to: "repeated.git")

        let first = try w.rollout("metrics", "ingest", "--kind", "crash", one, env: ["ROLLOUT_INGEST_PROFILE": "1"])
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertEqual(spilledRuns(first), 0, first.stderr)
        let second = try w.rollout(
            "--repo", spilling, "metrics", "ingest", "--kind", "crash", one,
            env: ["ROLLOUT_INGEST_MEMORY": "65536", "ROLLOUT_INGEST_PROFILE": "1"])
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertGreaterThanOrEqual(spilledRuns(second) ?? 0, 3, second.stderr)
        let third = try w.rollout("--repo", repeated, "metrics", "ingest", "--kind", "crash", three)
        XCTAssertEqual(third.status, 0, third.output)

        let expected = try rollups(w, repository: repeated)
        XCTAssertEqual(expected.values.map(\.count).reduce(0, +), 4_800)
        XCTAssertEqual(try rollups(w, repository: w.repository), expected, "one row a group, in memory")
        XCTAssertEqual(try rollups(w, repository: spilling), expected, "one row a group, spilled and merged")
        XCTAssertEqual(try show(w, repository: spilling), try show(w, repository: repeated))
    }

    /// Ids of dates, packs, regions and app versions are no longer 16 bits: 70,000 app versions in
    /// one file (over 4 dates, so that no rollup passes its own limit) are ingested, and the sums are right.
    func testMoreThan65536DistinctAppVersionsInOneFileAreIngested() throws {
        let w = try Workspace()
        try w.initWithExamples()
        var csv = Self.header
        let count = 70_000
        for i in 0..<count { csv += "2026-11-\(25 + i % 4),tr-TR,tr-TR@18,TR,4.\(i),10,\(i % 2)\n" }
        let file = try w.scratch.write("versions.csv", csv)
        let temporary = w.scratch.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let ingested = try w.rollout(
            "metrics", "ingest", "--kind", "crash", file,
            env: ["ROLLOUT_INGEST_MEMORY": "\(1 << 20)", "ROLLOUT_INGEST_PROFILE": "1", "TMPDIR": temporary])
        XCTAssertEqual(ingested.status, 0, ingested.output)
        XCTAssertTrue(ingested.stdout.contains("\(count) rows ingested into 4 rollup(s) for tr-TR"), ingested.stdout)
        XCTAssertGreaterThan(spilledRuns(ingested) ?? 0, 0, ingested.stderr)
        let found = try rollups(w, repository: w.repository)
        XCTAssertEqual(found.values.map(\.count), [count / 4, count / 4, count / 4, count / 4])
        XCTAssertEqual(found["metrics/crash/tr-TR/2026-11-28.json"]?["18|TR|4.69999"], [10, 1])
        XCTAssertEqual(found["metrics/crash/tr-TR/2026-11-25.json"]?["18|TR|4.65536"], [10, 0])
        XCTAssertEqual(found.values.flatMap { $0.values.map { $0[0] } }.reduce(0, +), 10 * count)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary), [])
    }

    /// One rollup (one kind, locale and date) holds at most 65,536 keys, stored and new together,
    /// because every reader holds a rollup whole (docs/metrics.md, "Streaming and memory"): a file
    /// past it is refused by name before anything is written.
    func testAFileThatWouldGrowOneRollupPast65536KeysIsRefusedAndChangesNothing() throws {
        let w = try Workspace()
        try w.initWithExamples()
        func versions(_ range: Range<Int>, name: String) throws -> String {
            var csv = Self.header
            for i in range { csv += "2026-11-28,tr-TR,tr-TR@18,TR,4.\(i),10,1\n" }
            return try w.scratch.write(name, csv)
        }
        let main = try w.stateTip()
        let alone = try w.rollout("metrics", "ingest", "--kind", "crash", try versions(0..<65_537, name: "alone.csv"))
        XCTAssertEqual(alone.status, 65, alone.output)
        XCTAssertTrue(
            alone.stderr.contains(
                "alone.csv: the crash rollup of tr-TR on 2026-11-28 would hold 65537 keys (0 stored + 65537 in this file), more than 65536"
            ),
            alone.stderr)
        XCTAssertTrue(alone.stderr.contains("nothing was ingested; fold rare app versions together"), alone.stderr)
        XCTAssertEqual(try w.stateTip(), main)

        let first = try w.rollout("metrics", "ingest", "--kind", "crash", try versions(0..<40_000, name: "first.csv"))
        XCTAssertEqual(first.status, 0, first.output)
        let tip = try w.stateTip()
        let more = try w.rollout(
            "metrics", "ingest", "--kind", "crash", try versions(40_000..<65_537, name: "more.csv"))
        XCTAssertEqual(more.status, 65, more.output)
        XCTAssertTrue(more.stderr.contains("would hold 65537 keys (40000 stored + 25537 in this file)"), more.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
    }

    /// A column stops remembering spellings past 65,536; the rows after that still report only
    /// the first 20 messages and a count (no message is kept per row).
    func testAHundredThousandDistinctInvalidValuesReportTheFirst20AndACount() throws {
        let w = try Workspace()
        try w.initWithExamples()
        var csv = Self.header + "2026-11-28,tr-TR,tr-TR@18,TR,4.1,10,1\n"
        let count = 100_000
        for i in 0..<count { csv += "2026-11-28,tr-TR,tr-TR@18,TR,v\(i),10,1\n" }
        let file = try w.scratch.write("garbage.csv", csv)
        let tip = try w.stateTip()
        let refused = try w.rollout("metrics", "ingest", "--kind", "crash", file)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("garbage.csv: \(count) of \(count + 1) rows are invalid; nothing was ingested"),
            refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains("garbage.csv:3: app_version \"v0\" is not a numeric version"), refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains("garbage.csv:22: app_version \"v19\" is not a numeric version"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("\"v20\""), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("... and \(count - 20) more"), refused.stderr)
        XCTAssertEqual(try w.stateTip(), tip)

        let skipped = try w.rollout("metrics", "ingest", "--kind", "crash", "--skip-invalid", file)
        XCTAssertEqual(skipped.status, 0, skipped.output)
        XCTAssertTrue(skipped.stdout.contains("1 rows ingested into 1 rollup(s) for tr-TR"), skipped.stdout)
        XCTAssertEqual(skipped.stdout.components(separatedBy: "  skipped ").count - 1, 20, skipped.stdout)
        XCTAssertTrue(skipped.stdout.contains("... \(count - 20) more skipped"), skipped.stdout)
    }

    func testABadRowInASpillingIngestChangesNothingAndLeavesNoTemporaryFile() throws {
        let w = try Workspace()
        try w.initWithExamples()
        var rows = Self.shuffled(Self.dayOrderedRows())
        rows.insert("2026-11-22,tr-TR,tr-TR@18,TR,4.8.1,10,11\n", at: rows.count / 2)
        let file = try w.scratch.write("bad.csv", Self.header + rows.joined())
        let temporary = w.scratch.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let tip = try w.stateTip()
        let refused = try w.rollout(
            "metrics", "ingest", "--kind", "crash", file,
            env: ["ROLLOUT_INGEST_MEMORY": "512", "ROLLOUT_INGEST_PROFILE": "1", "TMPDIR": temporary])
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("bad.csv:\(rows.count / 2 + 2): crashes 11 > sessions 10"), refused.stderr)
        XCTAssertGreaterThan(spilledRuns(refused) ?? 0, 0, refused.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary), [])

        // Nowhere to spill: refused by name, nothing written.
        let good = try w.scratch.write("good.csv", Self.header + Self.dayOrderedRows().joined())
        let nowhere = try w.rollout(
            "metrics", "ingest", "--kind", "crash", good,
            env: ["ROLLOUT_INGEST_MEMORY": "512", "TMPDIR": w.scratch.path("missing")])
        // A $TMPDIR that does not exist is missing (exit 66), docs/architecture.md "Exit codes".
        XCTAssertEqual(nowhere.status, 66, nowhere.output)
        XCTAssertTrue(
            nowhere.stderr.contains("cannot create a temporary file in \(w.scratch.path("missing"))"), nowhere.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
    }
}
