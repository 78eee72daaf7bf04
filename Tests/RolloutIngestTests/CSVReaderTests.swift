import XCTest
@testable import RolloutIngest

/// RFC 4180 as analytics exports write it, and every way a file can be broken.
final class CSVReaderTests: XCTestCase {
    private func records(_ text: String) throws -> [[String]] {
        var out: [[String]] = []
        try CSVReader.parse(Array(text.utf8)) { fields, _ in out.append(fields.map { String(decoding: $0, as: UTF8.self) }) }
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
}
