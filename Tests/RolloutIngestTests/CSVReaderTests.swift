import Foundation
import XCTest

@testable import RolloutIngest

/// RFC 4180 as analytics exports write it, and every way a file can be broken.
final class CSVReaderTests: XCTestCase {
    private func records(_ text: String) throws -> [[String]] {
        var out: [[String]] = []
        try CSVReader.parse(Array(text.utf8)) { fields, _ in
            out.append(fields.map { String(decoding: $0, as: UTF8.self) })
        }
        return out
    }

    private func failure(_ bytes: [UInt8]) -> CSVReader.Failure? {
        do {
            try CSVReader.parse(bytes) { _, _ in }
            return nil
        } catch let f as CSVReader.Failure {
            return f
        } catch {
            return nil
        }
    }

    func testQuotingLineEndingsAndBOM() throws {
        XCTAssertEqual(try records("a,b\n1,2\n"), [["a", "b"], ["1", "2"]])
        XCTAssertEqual(try records("a,b\r\n1,2\r\n"), [["a", "b"], ["1", "2"]], "CRLF")
        XCTAssertEqual(try records("\u{FEFF}a,b\n1,2"), [["a", "b"], ["1", "2"]], "BOM, no final newline")
        XCTAssertEqual(try records("\"x, \"\"y\"\"\",2\n"), [["x, \"y\"", "2"]])
        XCTAssertEqual(try records("\"two\nlines\",2\r\n"), [["two\nlines", "2"]])
        XCTAssertEqual(try records("a,,c\n,\n"), [["a", "", "c"], ["", ""]])
        XCTAssertEqual(try records("a\n\n\nb\n"), [["a"], ["b"]], "blank lines are not records")
    }

    func testLineNumbersCountPhysicalLines() throws {
        var lines: [Int] = []
        try CSVReader.parse(Array("h\n\"a\nb\"\nc\n".utf8)) { _, line in lines.append(line) }
        XCTAssertEqual(lines, [1, 2, 4])
    }

    func testBrokenInputNamesTheLine() {
        XCTAssertEqual(failure(Array("a,b\n\"open,2\n3,4\n".utf8))?.message, "a quoted field is never closed")
        XCTAssertEqual(failure(Array("a,b\n\"open,2\n3,4\n".utf8))?.line, 2)
        XCTAssertEqual(failure(Array("a,b\n1,x\"y\n".utf8))?.line, 2)
        XCTAssertEqual(failure(Array("a,b\n\"q\"x,2\n".utf8))?.message, "text after a closing quote")
        XCTAssertEqual(failure(Array("a,b\n1,2\n3,\u{0}\n".utf8))?.line, 3)
        let long = Array("a\n".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: CSVReader.maximumRecordBytes + 10)
        XCTAssertEqual(failure(long)?.line, 2)
        XCTAssertTrue(failure(long)?.message.contains("longer than 1 MiB") == true)
    }

    /// The reader hands over fields without copying them and keeps an unfinished record across
    /// reads: every chunk size, including one byte at a time, must give the records and line
    /// numbers of a plain reading of RFC 4180.
    func testEveryChunkSizeGivesTheSameRecords() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "tr-TR@18", "4.8.1", "", " ", "\"q, \"\"x\"\"\"", "\"two\nlines\"", "\"\"", "12", "\r"]
        for _ in 0..<200 {
            var text = Int.random(in: 0..<5, using: &generator) == 0 ? "\u{FEFF}" : ""
            for _ in 0..<Int.random(in: 0..<8, using: &generator) {
                let fields = (0..<Int.random(in: 1..<5, using: &generator)).map { _ in
                    pieces.randomElement(using: &generator)!
                }
                .map { $0 == "\r" ? "" : $0 }
                text += fields.joined(separator: ",") + (Bool.random(using: &generator) ? "\r\n" : "\n")
                if Int.random(in: 0..<6, using: &generator) == 0 { text += "\n" }
            }
            if Bool.random(using: &generator) && text.hasSuffix("\n") { text.removeLast() }
            let bytes = Array(text.utf8)
            let expected = Reference.records(bytes)
            for chunk in [1, 2, 3, 5, 7, 64, CSVReader.chunk] {
                var got: [[String]] = []
                var lines: [Int] = []
                try CSVReader.parse(bytes, chunk: chunk) { fields, line in
                    got.append(fields.map { String(decoding: $0, as: UTF8.self) })
                    lines.append(line)
                }
                XCTAssertEqual(got, expected.map(\.fields), "chunk \(chunk): \(text.debugDescription)")
                XCTAssertEqual(lines, expected.map(\.line), "chunk \(chunk): \(text.debugDescription)")
            }
        }
    }

    func testReadsAFileAcrossManyReads() throws {
        let path = NSTemporaryDirectory() + "csv-\(UInt64.random(in: 0...UInt64.max)).csv"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var text = "date,region\r\n"
        for i in 0..<5000 {
            text += i % 97 == 0 ? "\"2026-11-\(i % 28 + 1)\",\"T\nR\"\r\n" : "2026-11-\(i % 28 + 1),TR\r\n"
        }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        struct Count: CSVRecordSink {
            var records = 0
            var lastLine = 0
            var multiLine = 0
            mutating func record(_ fields: CSVRecord, line: Int) throws {
                records += 1
                lastLine = line
                if fields[1].contains(0x0A) { multiLine += 1 }
                XCTAssertEqual(fields.count, 2)
            }
        }
        var sink = Count()
        let read = try CSVReader.read(path: path, chunk: 4093, sink: &sink)
        XCTAssertEqual(read, text.utf8.count)
        XCTAssertEqual(sink.records, 5001)
        XCTAssertEqual(sink.multiLine, 52)
        XCTAssertEqual(sink.lastLine, 5001 + 52, "a quoted line feed is a physical line")
    }
}

/// RFC 4180 read the plain way, one byte at a time into strings: what the reader must agree with.
private enum Reference {
    static func records(_ input: [UInt8]) -> [(fields: [String], line: Int)] {
        var bytes = input[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        var out: [(fields: [String], line: Int)] = []
        var fields: [[UInt8]] = [[]]
        var quoted = false
        var wasQuoted = false
        var line = 1
        var start = 1
        var iterator = bytes.makeIterator()
        var pending: UInt8? = nil
        func end() {
            if !wasQuoted, fields[fields.count - 1].last == 0x0D { fields[fields.count - 1].removeLast() }
            if fields.count > 1 || !fields[0].isEmpty {
                out.append((fields.map { String(decoding: $0, as: UTF8.self) }, start))
            }
            fields = [[]]
            wasQuoted = false
        }
        while let byte = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if byte == 0x22 {
                    let next = iterator.next()
                    if next == 0x22 {
                        fields[fields.count - 1].append(0x22)
                    } else {
                        quoted = false
                        pending = next
                    }
                    if next == nil { break }
                } else {
                    if byte == 0x0A { line += 1 }
                    fields[fields.count - 1].append(byte)
                }
                continue
            }
            switch byte {
            case 0x22:
                quoted = true
                wasQuoted = true
            case 0x2C:
                fields.append([])
                wasQuoted = false
            case 0x0A:
                end()
                line += 1
                start = line
            case 0x0D where wasQuoted: break
            default: fields[fields.count - 1].append(byte)
            }
        }
        end()
        return out
    }
}
