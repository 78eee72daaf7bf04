// libFuzzer target: the streaming metrics CSV reader (RolloutIngest CSVReader.parse). Build and run
// with fuzz/run.sh; docs/reliability.md, "Fuzzing".
//
// The first input byte picks the read size (1 to 50 bytes, or one of 64 ... 4096); the rest is the
// file. Invariants checked on every input:
//   chunking   reading with that chunk size gives exactly the records, fields, line numbers and
//              final error (CSVReader.Failure with its line and message) that reading the whole
//              input in one chunk gives. Any difference is a bug in the buffer handling.
//   errors     the reader throws only CSVReader.Failure (no other error reaches the caller).
//   records    no delivered field contains a NUL byte; line numbers never decrease.
//   roundtrip  the records, written back with every field quoted and quotes doubled, read back
//              to the same records.
import RolloutIngest
import RolloutModel

private struct Collect: CSVRecordSink {
    var records: [[[UInt8]]] = []
    var lines: [Int] = []
    mutating func record(_ fields: CSVRecord, line: Int) throws {
        records.append((0..<fields.count).map { Array(fields[$0]) })
        lines.append(line)
    }
}

private enum Outcome: Equatable {
    case ok
    case failure(CSVReader.Failure)
}

private func read(_ body: [UInt8], chunk: Int) -> (Collect, Outcome) {
    var sink = Collect()
    do {
        try CSVReader.parse(body, chunk: chunk, sink: &sink)
        return (sink, .ok)
    } catch let failure as CSVReader.Failure {
        return (sink, .failure(failure))
    } catch {
        require(false, "CSVReader threw a \(type(of: error)): \(error)")
        return (sink, .ok)
    }
}

private let largeChunks = [64, 100, 127, 128, 129, 255, 256, 511, 512, 1000, 4096]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let selector = Int(data[0])
    let chunk = selector < 200 ? 1 + selector % 50 : largeChunks[(selector - 200) % largeChunks.count]
    let body = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))

    let (whole, wholeOutcome) = read(body, chunk: body.count + 1)
    let (chunked, chunkedOutcome) = read(body, chunk: chunk)

    require(
        chunkedOutcome == wholeOutcome,
        "chunk \(chunk) ends in \(chunkedOutcome), one chunk in \(wholeOutcome), for \(show(body))")
    require(chunked.records == whole.records, "chunk \(chunk) gives other records than one chunk for \(show(body))")
    require(
        chunked.lines == whole.lines,
        "chunk \(chunk) gives lines \(chunked.lines), one chunk \(whole.lines), for \(show(body))")
    require(
        zip(whole.lines, whole.lines.dropFirst()).allSatisfy { $0 < $1 }, "line numbers \(whole.lines) do not increase")
    for record in whole.records {
        require(!record.isEmpty, "a record with no fields")
        require(record.allSatisfy { !$0.contains(0) }, "a field with a NUL byte")
    }

    // Written back with every field quoted: the same records.
    var written: [UInt8] = []
    for record in whole.records {
        for (index, field) in record.enumerated() {
            if index > 0 { written.append(UInt8(ascii: ",")) }
            written.append(UInt8(ascii: "\""))
            for byte in field {
                if byte == UInt8(ascii: "\"") { written.append(byte) }
                written.append(byte)
            }
            written.append(UInt8(ascii: "\""))
        }
        written.append(0x0A)
    }
    let (reread, rereadOutcome) = read(written, chunk: chunk)
    require(rereadOutcome == .ok, "the records written back fail: \(rereadOutcome) for \(show(written))")
    require(reread.records == whole.records, "the records written back read differently: \(show(written))")
    return 0
}
