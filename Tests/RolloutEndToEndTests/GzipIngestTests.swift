import Foundation
import RolloutCrypto
import XCTest

/// `rollout metrics ingest` on gzip exports (docs/metrics.md, "Gzip input"): the same rollups as the
/// plain file, whatever the file is called; a damaged file is refused by name and changes nothing.
final class GzipIngestTests: XCTestCase {
    private static let examples = MetricsIngestTests.examples

    /// `text` compressed by the gzip command, as an export tool would write it.
    private func gzip(_ text: String, in w: Workspace) throws -> Data {
        let input = try w.scratch.write("gzip-input-\(UUID().uuidString)", text)
        let output = w.scratch.path("gzip-output-\(UUID().uuidString)")
        // Into a file: RunResult's output is text.
        let shell = try Processes.run("/bin/sh", ["-c", "gzip -c -n \"$0\" > \"$1\"", input, output], in: w.root, environment: w.environment)
        XCTAssertEqual(shell.status, 0, shell.stderr)
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    private func example(_ name: String) throws -> String { try String(contentsOfFile: Self.examples + "/" + name, encoding: .utf8) }

    /// The same exports, gzipped (one of them as two members joined by `cat`), give exactly the
    /// rollups of the plain files; provenance records the digest and size of the file as given.
    func testAGzipExportGivesTheRollupsOfThePlainFile() throws {
        let plain = try Workspace()
        try plain.initWithExamples()
        let zipped = try Workspace()
        try zipped.initWithExamples()

        let crashes = try example("crashes-spike-TR-4.8.csv")
        let fallbacks = try example("fallbacks-healthy.csv")
        let crashesGz = try gzip(crashes, in: zipped)
        let half = fallbacks.index(fallbacks.startIndex, offsetBy: fallbacks.count / 2)
        let fallbacksGz = try gzip(String(fallbacks[..<half]), in: zipped) + gzip(String(fallbacks[half...]), in: zipped)

        for (kind, file) in [("crash", "crashes-spike-TR-4.8.csv"), ("fallback", "fallbacks-healthy.csv")] {
            let result = try plain.rollout("metrics", "ingest", "--kind", kind, Self.examples + "/" + file)
            XCTAssertEqual(result.status, 0, result.output)
        }
        let crashPath = try zipped.scratch.write("crashes.csv.gz", crashesGz)
        let fallbackPath = try zipped.scratch.write("fallbacks.csv.gz", fallbacksGz)
        let ingested = try zipped.rollout("metrics", "ingest", "--kind", "crash", crashPath, "--json")
        XCTAssertEqual(ingested.status, 0, ingested.output)
        let fallbackIngest = try zipped.rollout("metrics", "ingest", "--kind", "fallback", fallbackPath)
        XCTAssertEqual(fallbackIngest.status, 0, fallbackIngest.output)

        for arguments in [["metrics", "show", "tr-TR", "--json"], ["metrics", "show", "tr-TR", "--segment", "TR/4.8", "--json"]] {
            let expected = try plain.rollout(arguments)
            XCTAssertEqual(expected.status, 0, expected.output)
            XCTAssertEqual(try zipped.rollout(arguments).stdout, expected.stdout, "\(arguments)")
        }
        func rollups(_ w: Workspace) throws -> String { try w.git("ls-tree", "-r", "--name-only", "main", "metrics/crash", "metrics/fallback").stdout }
        XCTAssertEqual(try rollups(zipped), try rollups(plain))

        // Provenance: the digest and size of the compressed file, as `sha256sum` would say.
        let digest = try XCTUnwrap((try zipped.json(ingested)["files"] as? [[String: Any]])?.first?["digest"] as? String)
        XCTAssertEqual(digest, "sha256:" + SHA256.hex(crashesGz))
        let record = try zipped.git("show", "main:metrics/ingests/\(digest.dropFirst(7)).crash.json").stdout
        XCTAssertTrue(record.contains("\"bytes\": \(crashesGz.count),"), record)
        XCTAssertTrue(record.contains("\"rows\": 32,"), record)

        // The same .gz again is "already ingested"; retracting it by its path finds the same digest.
        let tip = try zipped.stateTip()
        let again = try zipped.rollout("metrics", "ingest", "--kind", "crash", crashPath)
        XCTAssertTrue(again.stdout.contains("already ingested"), again.output)
        XCTAssertEqual(try zipped.stateTip(), tip)
        let retracted = try zipped.rollout("metrics", "retract", crashPath, "--reason", "test")
        XCTAssertEqual(retracted.status, 0, retracted.output)
        let verified = try zipped.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output)
    }

    /// Gzip is recognised by its first bytes, not its name: an export saved as .csv that is gzip is
    /// read, and a plain file named .gz is read as text.
    func testGzipIsRecognisedByItsContentNotItsName() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let crashes = try example("crashes-spike-TR-4.8.csv")
        let named = try w.scratch.write("export.csv", try gzip(crashes, in: w))
        let result = try w.rollout("metrics", "ingest", "--kind", "crash", named)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.contains("32 rows ingested"), result.stdout)
        let fallbacks = try w.scratch.write("fallbacks.csv.gz", try example("fallbacks-healthy.csv"))
        let plain = try w.rollout("metrics", "ingest", "--kind", "fallback", fallbacks)
        XCTAssertEqual(plain.status, 0, plain.output)
        XCTAssertTrue(plain.stdout.contains("32 rows ingested"), plain.stdout)
    }

    /// A cut-short or damaged download, an empty export and a bad row inside gzip: exit 65, the file
    /// (and for a row, the line of the decompressed text) named, the repository as it was.
    func testADamagedGzipFileIsRefusedByNameAndChangesNothing() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let tip = try w.stateTip()
        let compressed = try gzip(try example("crashes-spike-TR-4.8.csv"), in: w)
        var corrupt = compressed
        corrupt[corrupt.count - 6] ^= 0xFF
        let badRow = "date,locale,pack,region,app_version,sessions,crashes\r\n2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,100,1\r\n"
            + "2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,10,11\r\n"
        let cases: [(String, Data, String)] = [
            ("cut.csv.gz", compressed.prefix(compressed.count / 2), "cut.csv.gz: the gzip data ends early"),
            ("crc.csv.gz", corrupt, "crc.csv.gz: the gzip data is corrupt at byte \(compressed.count - 4) of the file (zlib: incorrect data check)"),
            ("empty.csv.gz", try gzip("", in: w), "empty.csv.gz: empty file"),
            ("row.csv.gz", try gzip(badRow, in: w), "row.csv.gz:3: crashes 11 > sessions 10"),
        ]
        for (name, data, message) in cases {
            let path = try w.scratch.write(name, data)
            let result = try w.rollout("metrics", "ingest", "--kind", "crash", path)
            XCTAssertEqual(result.status, 65, "\(name): \(result.output)")
            XCTAssertTrue(result.stderr.contains(message), "\(name): expected \(message) in \(result.stderr)")
            XCTAssertEqual(try w.stateTip(), tip, "\(name) changed the repository")
        }
    }
}
