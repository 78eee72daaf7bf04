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
        let shell = try Processes.run(
            "/bin/sh", ["-c", "gzip -c -n \"$0\" > \"$1\"", input, output], in: w.root, environment: w.environment)
        XCTAssertEqual(shell.status, 0, shell.stderr)
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    /// Writes `text` (a file in `w`'s scratch directory) in the shapes of `pythonShapes`, each to
    /// `DIRECTORY/NAME.csv.gz`; returns the directory.
    private func shapes(of text: String, in w: Workspace) throws -> String {
        let input = try w.scratch.write("shapes-input-\(UUID().uuidString)", text)
        let directory = w.scratch.path("shapes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let python = try Processes.run(
            "/usr/bin/env", ["python3", "-c", Self.pythonShapes, input, directory], in: w.root,
            environment: w.environment)
        XCTAssertEqual(python.status, 0, python.output)
        return directory
    }

    /// Gzip as other tools write it, and other formats exports arrive in under a .csv.gz name.
    private static let pythonShapes = #"""
        import bz2, gzip, io, lzma, struct, sys, tarfile, zipfile, zlib
        text = open(sys.argv[1], 'rb').read()
        def write(name, data): open(sys.argv[2] + '/' + name + '.csv.gz', 'wb').write(data)
        def member(data, extra=b'', name=b'', comment=b'', hcrc=False):
            flags = (4 if extra else 0) | (8 if name else 0) | (16 if comment else 0) | (2 if hcrc else 0)
            header = bytes([0x1F, 0x8B, 8, flags]) + struct.pack('<I', 1764633600) + bytes([0, 3])
            if extra: header += struct.pack('<H', len(extra)) + extra
            if name: header += name + b'\0'
            if comment: header += comment + b'\0'
            if hcrc: header += struct.pack('<H', zlib.crc32(header) & 0xFFFF)
            deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
            return header + deflate.compress(data) + deflate.flush() + struct.pack('<II', zlib.crc32(data), len(data))
        # Good: each holds `text`.
        write('python', gzip.compress(text, mtime=0))
        write('headers', member(text, extra=b'AB\x02\x00xy', name=b'crashes.csv', comment=b'nightly export', hcrc=True))
        # BGZF (bgzip): members of at most 64 KiB with a BC extra field, then an empty one.
        bgzf = lambda data: member(data, extra=b'BC\x02\x00\x00\x00')
        write('bgzf', b''.join(bgzf(text[i:i + 100]) for i in range(0, len(text), 100)) + bgzf(b''))
        write('emptymember', member(text[:500]) + member(b'') + member(text[500:]))
        # Bad: another format, or gzip wrapped around one.
        zipped = io.BytesIO()
        with zipfile.ZipFile(zipped, 'w', zipfile.ZIP_DEFLATED) as archive: archive.writestr('crashes.csv', text)
        write('zip', zipped.getvalue())
        write('bzip2', bz2.compress(text))
        write('xz', lzma.compress(text))
        write('zlib', zlib.compress(text))
        tarred = io.BytesIO()
        with tarfile.open(fileobj=tarred, mode='w:gz') as archive:
            info = tarfile.TarInfo('crashes.csv'); info.size = len(text); archive.addfile(info, io.BytesIO(text))
        write('tar', tarred.getvalue())
        write('twice', gzip.compress(gzip.compress(text)))
        write('padded', gzip.compress(text) + bytes(512))
        """#

    private func example(_ name: String) throws -> String {
        try String(contentsOfFile: Self.examples + "/" + name, encoding: .utf8)
    }

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
        let fallbacksGz =
            try gzip(String(fallbacks[..<half]), in: zipped) + gzip(String(fallbacks[half...]), in: zipped)

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

        for arguments in [
            ["metrics", "show", "tr-TR", "--json"], ["metrics", "show", "tr-TR", "--segment", "TR/4.8", "--json"],
        ] {
            let expected = try plain.rollout(arguments)
            XCTAssertEqual(expected.status, 0, expected.output)
            XCTAssertEqual(try zipped.rollout(arguments).stdout, expected.stdout, "\(arguments)")
        }
        func rollups(_ w: Workspace) throws -> String {
            try w.git("ls-tree", "-r", "--name-only", "main", "metrics/crash", "metrics/fallback").stdout
        }
        XCTAssertEqual(try rollups(zipped), try rollups(plain))

        // Provenance: the digest and size of the compressed file, as `sha256sum` would say.
        let digest = try XCTUnwrap(
            (try zipped.json(ingested)["files"] as? [[String: Any]])?.first?["digest"] as? String)
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
        let badRow =
            "date,locale,pack,region,app_version,sessions,crashes\r\n2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,100,1\r\n"
            + "2026-11-28,tr-TR,tr-TR@18,TR,4.8.1,10,11\r\n"
        let cases: [(String, Data, String)] = [
            ("cut.csv.gz", compressed.prefix(compressed.count / 2), "cut.csv.gz: the gzip data ends early"),
            (
                "crc.csv.gz", corrupt,
                "crc.csv.gz: the gzip data is corrupt at byte \(compressed.count - 4) of the file (zlib: incorrect data check)"
            ),
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

    /// Gzip written by other tools than the gzip command (Python, bgzip's BGZF blocks with their
    /// final empty member, a header with a name, comment, extra field and header CRC, an empty
    /// member between two) gives the rollups of the plain file.
    func testGzipFromOtherToolsGivesTheRollupsOfThePlainFile() throws {
        let crashes = try example("crashes-spike-TR-4.8.csv")
        let plain = try Workspace()
        try plain.initWithExamples()
        XCTAssertEqual(
            try plain.rollout("metrics", "ingest", "--kind", "crash", Self.examples + "/crashes-spike-TR-4.8.csv")
                .status, 0)
        let expected = try plain.rollout("metrics", "show", "tr-TR", "--json").stdout

        let w = try Workspace()
        try w.initWithExamples()
        let directory = try shapes(of: crashes, in: w)
        for shape in ["python", "headers", "bgzf", "emptymember"] {
            let path = directory + "/\(shape).csv.gz"
            let ingested = try w.rollout("metrics", "ingest", "--kind", "crash", path)
            XCTAssertEqual(ingested.status, 0, "\(shape): \(ingested.output)")
            XCTAssertEqual(try w.rollout("metrics", "show", "tr-TR", "--json").stdout, expected, shape)
            XCTAssertEqual(try w.rollout("metrics", "retract", path, "--reason", "next shape").status, 0, shape)
        }
    }

    /// A zip, bzip2, xz or zlib file named .csv.gz, a .tar.gz, a file gzipped twice, a gzip file with
    /// padding after it: exit 65, the file named with what it is and what to do, nothing written.
    func testAFileInAnotherFormatIsRefusedSayingWhatItIs() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let tip = try w.stateTip()
        let directory = try shapes(of: try example("crashes-spike-TR-4.8.csv"), in: w)
        let cases = [
            (
                "zip",
                "zip.csv.gz: the file is a zip archive, not CSV text or gzip: extract the CSV from it and ingest that; nothing was ingested"
            ),
            ("bzip2", "bzip2.csv.gz: the file is bzip2 data, not CSV text or gzip: decompress it (bunzip2)"),
            ("xz", "xz.csv.gz: the file is xz data, not CSV text or gzip: decompress it (unxz)"),
            ("zlib", "zlib.csv.gz: the file is zlib data (deflate without gzip's header), not CSV text or gzip"),
            (
                "tar",
                "tar.csv.gz: the gzip data holds a tar archive, not CSV text: extract the CSV from it and ingest that"
            ),
            ("twice", "twice.csv.gz: the file was compressed twice"),
            ("padded", "padded.csv.gz: the gzip data ends at byte "),
        ]
        for (shape, message) in cases {
            let result = try w.rollout("metrics", "ingest", "--kind", "crash", directory + "/\(shape).csv.gz")
            XCTAssertEqual(result.status, 65, "\(shape): \(result.output)")
            XCTAssertTrue(result.stderr.contains(message), "\(shape): expected \(message) in \(result.stderr)")
            XCTAssertEqual(try w.stateTip(), tip, "\(shape) changed the repository")
        }
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }
}
