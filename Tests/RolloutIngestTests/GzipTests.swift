import Foundation
import XCTest

@testable import RolloutIngest

/// Gzip exports read as a stream (docs/metrics.md, "Gzip input"): the same records and line numbers
/// as the text they hold, whatever the sizes the reader works in, and a clear failure for a file that
/// is cut short or damaged.
final class GzipTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// `text` compressed by the gzip command, as an export tool would write it.
    private func gzip(_ text: String, level: Int = 6) throws -> [UInt8] { try gzip(Array(text.utf8), level: level) }

    private func gzip(_ bytes: [UInt8], level: Int = 6) throws -> [UInt8] {
        let input = directory.appendingPathComponent(UUID().uuidString)
        try Data(bytes).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-c", "-n", "-\(level)", input.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let compressed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return Array(compressed)
    }

    private struct Parsed: Equatable {
        var records: [[String]] = []
        var lines: [Int] = []
    }

    private func parse(_ bytes: [UInt8], chunk: Int = CSVReader.chunk, gzipBlock: Int = CSVReader.chunk) throws
        -> Parsed
    {
        var parsed = Parsed()
        try CSVReader.parse(bytes, chunk: chunk, gzipBlock: gzipBlock) { fields, line in
            parsed.records.append(fields.map { String(decoding: $0, as: UTF8.self) })
            parsed.lines.append(line)
        }
        return parsed
    }

    private func gzipFailure(_ bytes: [UInt8], gzipBlock: Int = CSVReader.chunk) -> GzipReader.Failure? {
        do {
            _ = try parse(bytes, gzipBlock: gzipBlock)
            return nil
        } catch let failure as GzipReader.Failure {
            return failure
        } catch {
            XCTFail("expected a gzip failure, got \(error)")
            return nil
        }
    }

    private let export =
        "date,locale,pack,region,app_version,sessions,crashes\r\n"
        + "2026-11-25,tr-TR,tr-TR@18,TR,4.8.1,1000,3\r\n"
        + "2026-11-25,tr-TR,tr-TR@18,\"TR\",4.8.1,20,1\n"
        + "\n"
        + "2026-11-26,tr-TR,tr-TR@17,\"T\nR\",4.9,5,0\r\n"
        + "2026-11-26,de-DE,de-DE@3,DE,4.9,7,1"

    func testAGzipFileGivesTheRecordsAndLinesOfItsText() throws {
        let plain = try parse(Array(export.utf8))
        XCTAssertEqual(plain.records.count, 5)
        XCTAssertEqual(
            try parse(try gzip(export)), plain, "CRLF, quotes, a blank line and no final newline, inside gzip")
        XCTAssertEqual(
            try parse(try gzip("\u{FEFF}" + export)), plain, "a byte order mark at the start of the text is skipped")
        XCTAssertEqual(try parse(try gzip(export, level: 1)), plain)
        XCTAssertEqual(try parse(try gzip(export, level: 9)), plain)
    }

    /// `cat a.gz b.gz > c.gz` is how sharded exports are joined: c.gz holds the text of a then b,
    /// even when a's last line has no line feed.
    func testConcatenatedMembersReadAsTheirTextsJoined() throws {
        let parts = [
            String(export.prefix(60)), "", String(export.dropFirst(60).prefix(50)), String(export.dropFirst(110)),
        ]
        let joined = try parts.flatMap { try gzip($0) }
        XCTAssertEqual(try parse(joined), try parse(Array(export.utf8)))
        XCTAssertEqual(try parse(try gzip("a,b\n1,") + gzip("2\n")).records, [["a", "b"], ["1", "2"]])
    }

    /// The reader inflates in blocks of compressed input into the tokenizer's chunks: every pairing
    /// of small sizes, so that members, records and CRLFs straddle every boundary.
    func testEveryBlockAndChunkSizeGivesTheSameRecords() throws {
        let compressed = try gzip(String(export.prefix(90))) + gzip(String(export.dropFirst(90)))
        let expected = try parse(Array(export.utf8))
        for block in 1...24 {
            for chunk in 1...24 {
                XCTAssertEqual(
                    try parse(compressed, chunk: chunk, gzipBlock: block), expected,
                    "gzip block \(block), chunk \(chunk)")
            }
        }
    }

    func testAnEmptyGzipFileHoldsNoRecords() throws {
        XCTAssertEqual(try parse(try gzip("")), Parsed())
        XCTAssertEqual(try parse(try gzip("") + gzip("a\n") + gzip("")).records, [["a"]])
    }

    func testATruncatedFileFailsWhereverItIsCut() throws {
        let compressed = try gzip(export) + gzip(export)
        let firstMember = try gzip(export).count
        for length in 2..<compressed.count where length != firstMember {
            let failure = gzipFailure(Array(compressed.prefix(length)), gzipBlock: 7)
            XCTAssertTrue(
                failure?.message.contains("the file is truncated") == true,
                "cut at \(length): \(String(describing: failure))")
        }
        XCTAssertEqual(
            try parse(Array(compressed.prefix(firstMember))).records.count, 5, "cut between members: one whole member")
    }

    func testCorruptDataFailsAndSaysWhere() throws {
        var compressed = try gzip(export)
        let crc = compressed.count - 8
        compressed[crc] ^= 0xFF
        XCTAssertEqual(
            gzipFailure(compressed)?.message,
            "the gzip data is corrupt at byte \(crc + 4) of the file (zlib: incorrect data check)")

        var header = try gzip(export)
        header[2] = 9  // the compression method: only 8 (deflate) exists
        XCTAssertTrue(gzipFailure(header)?.message.contains("corrupt") == true)

        // Whatever follows a member must be another one: trailing bytes are not ignored.
        let trailing = try gzip(export) + Array("2026-11-27,tr-TR,tr-TR@18,TR,4.8.1,1,1\n".utf8)
        XCTAssertTrue(gzipFailure(trailing)?.message.contains("the bytes after it are not gzip") == true)

        // Damage inside the deflate data is found, whichever byte it hits.
        let body = try gzip(String(repeating: export, count: 50))
        var found = 0
        for offset in stride(from: 10, to: body.count - 8, by: 3) {
            var damaged = body
            damaged[offset] ^= 0x5A
            if gzipFailure(damaged) != nil { found += 1 }
        }
        XCTAssertEqual(
            found, (body.count - 8 - 10 + 2) / 3, "every damaged byte is noticed (by the block structure or the CRC)")
    }

    /// Exports saved as .csv.gz in another format: said what they are, not read as text whose
    /// first line holds a NUL byte. Text that merely starts like one of them is still text.
    func testAnotherFormatIsNamedByItsFirstBytes() throws {
        var tar = [UInt8](repeating: 0, count: 512)
        tar.replaceSubrange(0..<5, with: Array("c.csv".utf8))
        tar.replaceSubrange(257..<263, with: Array("ustar\0".utf8))
        let formats: [(String, [UInt8])] = [
            ("a zip archive", [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00]),
            ("bzip2 data", Array("BZh9".utf8) + [0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0x00]),
            ("xz data", [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00, 0x04]),
            ("zstd data", [0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x00]),
            ("zlib data", [0x78, 0x9C, 0x4B, 0x4C, 0x02, 0x00]),
            ("a tar archive", tar),
        ]
        for (what, bytes) in formats {
            XCTAssertEqual(gzipFailure(bytes)?.message.hasPrefix("the file is \(what)"), true, what)
        }
        XCTAssertEqual(
            gzipFailure(try gzip(tar))?.message,
            "the gzip data holds a tar archive, not CSV text: extract the CSV from it and ingest that")
        XCTAssertEqual(
            gzipFailure(try gzip(try gzip(export)))?.message,
            "the file was compressed twice: the text inside its gzip data is gzip data again; decompress it once (gzip -dc) and ingest the result"
        )
        XCTAssertEqual(try parse(Array("BZh,x\n1,2\n".utf8)).records, [["BZh", "x"], ["1", "2"]])
        XCTAssertEqual(try parse(Array("xylo,PK\n1,2\n".utf8)).records, [["xylo", "PK"], ["1", "2"]])
        let ustar = "h\n" + String(repeating: "x", count: 255) + "ustar,1\n"
        XCTAssertEqual(try parse(Array(ustar.utf8)).records.count, 2, "\"ustar\" at byte 257 of a text is text")
    }

    /// Bytes appended after the last member (padding, a stray newline): the message says where the
    /// gzip data ends instead of calling the data corrupt.
    func testBytesAfterTheLastMemberSayWhereTheDataEnds() throws {
        let compressed = try gzip(export)
        for tail in [[UInt8](repeating: 0, count: 512), [0x0A], Array("garbage".utf8)] {
            XCTAssertEqual(
                gzipFailure(compressed + tail)?.message,
                "the gzip data ends at byte \(compressed.count) of the file and the bytes after it are not gzip; if they are padding, the first \(compressed.count) bytes hold the whole export",
                "\(tail.count) bytes after the member")
        }
    }

    /// Rows checked in a gzip file are reported at the line of the text: lines are counted after
    /// inflating.
    func testLineNumbersCountDecompressedLines() throws {
        let text = "a,b\n1,2\n\"x\ny\",3\n4,\"open\n5,6\n"
        let plain = Array(text.utf8)
        var plainFailure: CSVReader.Failure?
        do { _ = try parse(plain) } catch let f as CSVReader.Failure { plainFailure = f }
        XCTAssertEqual(plainFailure?.line, 5)
        do {
            _ = try parse(try gzip(text), chunk: 3, gzipBlock: 5)
            XCTFail("an unclosed quote inside gzip")
        } catch let f as CSVReader.Failure {
            XCTAssertEqual(f, plainFailure)
        }
    }

    /// Constant memory: text many times the size of every buffer streams through them.
    func testAStreamFarLargerThanAnyBuffer() throws {
        let row = "2026-11-25,tr-TR,tr-TR@18,TR,4.8.1,1000,3\n"
        let rows = 400_000
        let text = Array(("h\n" + String(repeating: row, count: rows)).utf8)
        XCTAssertGreaterThan(text.count, 8 * (CSVReader.maximumRecordBytes + CSVReader.chunk))
        let compressed = try gzip(text)
        XCTAssertLessThan(compressed.count, text.count / 100)
        struct Count: CSVRecordSink {
            var records = 0
            var lastLine = 0
            mutating func record(_ fields: CSVRecord, line: Int) throws {
                records += 1
                lastLine = line
            }
        }
        var count = Count()
        // One row repeated expands hundreds of times, past the default limit of a real export's
        // ratio (GzipExpansionLimitTests): this test is about buffers, so the limit is lifted.
        let unlimited = GzipLimits(maximumText: 1 << 40, maximumRatio: 1_000_000)
        try CSVReader.parse(compressed, gzipBlock: 4096, gzipLimits: unlimited, sink: &count)
        XCTAssertEqual(count.records, rows + 1)
        XCTAssertEqual(count.lastLine, rows + 1)
    }

    /// Provenance hashes the file as given: `read` hands over the compressed bytes, and counts them.
    func testReadingAFileSeesItsCompressedBytes() throws {
        let compressed = try gzip(export)
        let path = directory.appendingPathComponent("export.csv").path
        try Data(compressed).write(to: URL(fileURLWithPath: path))
        struct Count: CSVRecordSink {
            var records = 0
            mutating func record(_ fields: CSVRecord, line: Int) throws { records += 1 }
        }
        var count = Count()
        var seen: [UInt8] = []
        let bytes = try CSVReader.read(path: path, chunk: 16, sink: &count) { seen += $0 }
        XCTAssertEqual(count.records, 5, "gzip is recognised by its first bytes, not by the name")
        XCTAssertEqual(seen, compressed)
        XCTAssertEqual(bytes, compressed.count)
    }
}
