import Foundation
import RolloutModel
import XCTest

/// Health, guard and the report on a long history (docs/performance.md, "health, guard and report on
/// a year of metrics"): they parse only the rollups that hold the staged pack and those of the newest
/// week, so months of older rollups must change no answer.
final class HealthHistoryTests: XCTestCase {
    /// Crash or fallback rows: per date, region and app version, the baseline's and (when given) the
    /// candidate's counts, the candidate getting a tenth of the exposures.
    static func csv(_ kind: String, dates: [String], regions: [String], apps: [String], candidate: Bool) -> String {
        var text =
            kind == "crash"
            ? "date,locale,pack,region,app_version,sessions,crashes\n"
            : "date,locale,pack,region,app_version,lookups,fallbacks\n"
        for (d, date) in dates.enumerated() {
            for (r, region) in regions.enumerated() {
                for (a, app) in apps.enumerated() {
                    let total = 20_000 + 1_000 * ((d * 7 + r * 3 + a) % 11)
                    let rate = kind == "crash" ? 2 : 15
                    let arms =
                        candidate
                        ? [("tr-TR@17", total - total / 10), ("tr-TR@18", total / 10)] : [("tr-TR@17", total)]
                    for (pack, n) in arms {
                        text += "\(date),tr-TR,\(pack),\(region),\(app),\(n),\(n * rate / 1_000 + (d + a) % 3)\n"
                    }
                }
            }
        }
        return text
    }

    static func dates(_ month: Int, _ days: ClosedRange<Int>) -> [String] {
        days.map { String(format: "2026-%02d-%02d", month, $0) }
    }

    /// tr-TR@17 completed on September 1st, tr-TR@18 staged at 10% in TR and DE on November 20th with
    /// both packs measured from then on; with `history`, also two months of rollups before it that
    /// hold only tr-TR@17 (some in a region and an app version the newest week does not name).
    func workspace(history: Bool) throws -> Workspace {
        let w = try Workspace()
        try w.initWithExamples()
        let early = ["ROLLOUT_NOW": "2026-09-01T00:00:00Z"]
        XCTAssertEqual(try w.rollout(["promote", "tr-TR@17", "--to", "100%"], env: early).status, 0)
        let staged = try w.rollout(
            ["promote", "tr-TR@18", "--to", "10%", "--region", "TR,DE"], env: ["ROLLOUT_NOW": "2026-11-20T00:00:00Z"])
        XCTAssertEqual(staged.status, 0, staged.output)
        var files: [(String, String)] = []
        if history {
            let old = Self.dates(9, 1...30) + Self.dates(10, 1...31)
            for kind in ["crash", "fallback"] {
                files.append(
                    (
                        kind,
                        Self.csv(
                            kind, dates: old, regions: ["TR", "DE", "FR"], apps: ["4.7.2", "4.8.1"], candidate: false)
                    ))
            }
        }
        let recent = Self.dates(11, 20...28)
        for kind in ["crash", "fallback"] {
            files.append(
                (kind, Self.csv(kind, dates: recent, regions: ["TR", "DE"], apps: ["4.8.1", "4.9"], candidate: true)))
        }
        for (n, (kind, text)) in files.enumerated() {
            let path = try w.scratch.write("export-\(n).csv", text)
            let ingested = try w.rollout("metrics", "ingest", "--kind", kind, path)
            XCTAssertEqual(ingested.status, 0, ingested.output)
        }
        return w
    }

    func testMonthsOfRollupsWithoutTheStagedPackChangeNoAnswer() throws {
        let long = try workspace(history: true)
        let short = try workspace(history: false)
        let now = ["ROLLOUT_NOW": "2026-11-29T09:00:00Z"]
        let health = try long.rollout(["health", "tr-TR", "--json"], env: now)
        XCTAssertEqual(try long.json(health)["verdict"] as? String, "healthy", health.output)
        try assertSameAnswers(long, short, now: now)
        // The first reader remembered which rollups name which packs: a second reads fewer and answers the same.
        XCTAssertTrue(FileManager.default.fileExists(atPath: long.repository + "/rollout/rollup-packs"))
        XCTAssertEqual(try long.rollout(["health", "tr-TR", "--json"], env: now).stdout, health.stdout)
        // The older rollups are there and read where they count: tr-TR@17's totals include them.
        let shown = try long.rollout("metrics", "show", "tr-TR")
        XCTAssertTrue(shown.stdout.contains("FR"), shown.stdout)
    }

    /// Rollups in the form rollout wrote before issue 36 (pretty JSON, one member a line, docs/metrics.md
    /// "Rollups") are read as they are, not migrated: a repository whose rollups were all rewritten in
    /// that form by plain git gives the same health, guard, status, report charts and metrics show as
    /// the one rollout writes today, before and after one more ingest merges into one of them.
    func testRollupsInTheFormOfEarlierVersionsGiveTheSameAnswers() throws {
        let today = try workspace(history: false)
        let older = try workspace(history: false)
        let paths = try older.git("ls-tree", "-r", "--name-only", "main", "metrics/crash", "metrics/fallback").stdout
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(paths.count, 18)
        var files: [String: String] = [:]
        for path in paths {
            let stored = try older.git("cat-file", "blob", "main:\(path)").stdout
            let rollup = try MetricRollup.parse(Array(stored.utf8), source: path)
            files[path] = String(decoding: JSONWriter.pretty(rollup.jsonValue), as: UTF8.self)
            XCTAssertNotEqual(files[path], stored, path)
        }
        try PlainGit.commit(older, files: files, message: "rollups as an earlier version wrote them")
        let now = ["ROLLOUT_NOW": "2026-11-29T09:00:00Z"]
        try assertSameAnswers(today, older, now: now, also: [["metrics", "show", "tr-TR"]], "as stored")
        // One more region on a date both repositories hold: ingest merges it into the stored rollup.
        let more = Self.csv("crash", dates: ["2026-11-28"], regions: ["FR"], apps: ["4.8.1"], candidate: true)
        for w in [today, older] {
            let ingested = try w.rollout("metrics", "ingest", "--kind", "crash", try w.scratch.write("more.csv", more))
            XCTAssertEqual(ingested.status, 0, ingested.output)
        }
        try assertSameAnswers(today, older, now: now, also: [["metrics", "show", "tr-TR"]], "after an ingest")
    }

    /// Health reads rollups without libgit2's re-hash and hashes them itself (docs/performance.md,
    /// "guard under 2 s"): a rollup whose bytes on disk are another's (a valid object, the wrong id)
    /// still stops it, exit 65 naming the blob and `rollout verify`, as every damaged object does.
    func testARollupWhoseBytesAreAnothersStopsHealthAsDamage() throws {
        let w = try workspace(history: false)
        let packs = w.repository + "/objects/pack"
        let moved = w.scratch.path("packs")
        try FileManager.default.moveItem(atPath: packs, toPath: moved)
        try FileManager.default.createDirectory(atPath: packs, withIntermediateDirectories: false)
        for pack in try FileManager.default.contentsOfDirectory(atPath: moved) where pack.hasSuffix(".pack") {
            let unpacked = try Processes.run(
                "/bin/sh", ["-c", "git --git-dir \"$0\" unpack-objects -q < \"$1\"", w.repository, moved + "/" + pack],
                in: w.root, environment: w.environment)
            XCTAssertEqual(unpacked.status, 0, unpacked.output)
        }
        func loose(_ spec: String) throws -> (id: String, path: String) {
            let id = try w.git("rev-parse", spec).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return (id, w.repository + "/objects/" + id.prefix(2) + "/" + id.dropFirst(2))
        }
        let now = ["ROLLOUT_NOW": "2026-11-29T09:00:00Z"]
        XCTAssertEqual(try w.rollout(["health", "tr-TR"], env: now).status, 0)
        let newest = try loose("main:metrics/crash/tr-TR/2026-11-28.json")
        let other = try loose("main:metrics/crash/tr-TR/2026-11-27.json")
        chmod(newest.path, 0o644)
        try FileManager.default.removeItem(atPath: newest.path)
        try FileManager.default.copyItem(atPath: other.path, toPath: newest.path)
        let health = try w.rollout(["health", "tr-TR"], env: now)
        XCTAssertEqual(health.status, 65, health.output)
        XCTAssertTrue(health.stderr.contains(String(newest.id.prefix(12))), health.stderr)
        XCTAssertTrue(health.stderr.contains("rollout verify"), health.stderr)
    }

    /// `health`, `guard --json` and `status` print the same in `a` and `b` (but for the salts, seeded by
    /// the commit before each stage, which two histories do not share), as do `also`, and the
    /// report's charts of the metrics are the same (its timeline of changes differs, by the ingests).
    func assertSameAnswers(
        _ a: Workspace, _ b: Workspace, now: [String: String], also: [[String]] = [], _ step: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        func unsalted(_ text: String) -> String {
            text.replacingOccurrences(of: "\\b[0-9a-f]{16}\\b", with: "SALT", options: .regularExpression)
        }
        for arguments in [
            ["health", "tr-TR", "--json"], ["health", "tr-TR"], ["guard", "--json"], ["status", "tr-TR"],
        ]
            + also
        {
            let (x, y) = (try a.rollout(arguments, env: now), try b.rollout(arguments, env: now))
            XCTAssertEqual(x.status, y.status, "\(step) \(arguments): \(x.output)", file: file, line: line)
            XCTAssertEqual(unsalted(x.stdout), unsalted(y.stdout), "\(step) \(arguments)", file: file, line: line)
        }
        let charts = try [a, b].map { w in
            let written = try w.rollout(["report", "tr-TR", "--out", w.scratch.path("r.html")], env: now)
            XCTAssertEqual(written.status, 0, written.output, file: file, line: line)
            return try String(contentsOfFile: w.scratch.path("r.html"), encoding: .utf8).components(separatedBy: "<svg")
                .dropFirst().map { $0.components(separatedBy: "</svg>")[0] }.filter { !$0.contains("timeline-chart") }
        }
        XCTAssertFalse(charts[0].isEmpty, step, file: file, line: line)
        XCTAssertEqual(charts[0], charts[1], step, file: file, line: line)
    }
}
