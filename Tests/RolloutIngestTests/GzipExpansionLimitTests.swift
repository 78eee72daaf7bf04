import CZlib
import Foundation
import XCTest

@testable import RolloutIngest

/// Issue 31, item 9: how far gzip data may expand (`GzipLimits`, docs/metrics.md, "Gzip input"),
/// at each limit and one byte past it.
final class GzipExpansionLimitTests: XCTestCase {
    /// `text` as one gzip member, by zlib at level 9.
    private func gzip(_ text: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        XCTAssertEqual(
            deflateInit2_(
                &stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)
            ),
            Z_OK)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(text.count))) + 64)
        var input = text
        let produced = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                XCTAssertEqual(deflate(&stream, Z_FINISH), Z_STREAM_END)
                return target.count - Int(stream.avail_out)
            }
        }
        deflateEnd(&stream)
        return Array(output.prefix(produced))
    }

    /// A header line then line feeds, `bytes` of text in all.
    private func text(_ bytes: Int) -> [UInt8] {
        let header = Array("date,sessions\n".utf8)
        return header + [UInt8](repeating: 0x0A, count: bytes - header.count)
    }

    /// Which limit refused the data (the command line words it, with the flag that raises it).
    private func failure(_ bytes: [UInt8], _ limits: GzipLimits) -> GzipReader.Overflow? {
        do {
            try CSVReader.parse(bytes, gzipLimits: limits) { _, _ in }
            return nil
        } catch let overflow as GzipReader.Overflow {
            return overflow
        } catch {
            XCTFail("\(error)")
            return nil
        }
    }

    func testTheTextLimitAtTheLimitAndOnePast() {
        let compressed = gzip(text(3 << 19))
        let ratioOff = GzipLimits(maximumText: 3 << 19, maximumRatio: 1_000_000, ratioFrom: 0)
        XCTAssertNil(failure(compressed, ratioOff), "exactly the limit")
        var smaller = ratioOff
        smaller.maximumText -= 1
        guard case .text(let text, let limit)? = failure(compressed, smaller) else {
            return XCTFail("not refused for its text")
        }
        XCTAssertEqual(limit, smaller.maximumText)
        XCTAssertGreaterThan(text, limit)
    }

    func testTheRatioLimitAtTheLimitAndOnePast() {
        let compressed = gzip(text(2 << 20))
        let ratio = (2 << 20) / compressed.count
        let at = GzipLimits(maximumText: 1 << 40, maximumRatio: ratio + 1, ratioFrom: 1 << 20)
        XCTAssertNil(failure(compressed, at), "a ratio of \(ratio) under a limit of \(ratio + 1)")
        let past = GzipLimits(maximumText: 1 << 40, maximumRatio: ratio - 1, ratioFrom: 1 << 20)
        guard case .ratio(_, _, let limit)? = failure(compressed, past) else {
            return XCTFail("not refused for its ratio")
        }
        XCTAssertEqual(limit, ratio - 1)
        // Under `ratioFrom` bytes of text the ratio is not checked: a small file may be all repetition.
        let from = GzipLimits(maximumText: 1 << 40, maximumRatio: 2, ratioFrom: 4 << 20)
        XCTAssertNil(failure(compressed, from))
        // The default lets a real export through (CSV compresses 4 to 20 times).
        // 256 KiB of random rows, repeated: deflate sees back 32 KiB only, so the repetition does not
        // help it, and the ratio is that of random rows.
        var block: [UInt8] = []
        var state: UInt64 = 31
        func random(_ range: Range<Int>) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return range.lowerBound + Int((state >> 33) % UInt64(range.count))
        }
        while block.count < 256 << 10 {
            block += Array(
                "2026-11-\(10 + random(0..<20)),tr-TR,tr-TR@18,TR,4.8.\(random(0..<9)),\(random(0..<100_000)),\(random(0..<300))\n"
                    .utf8)
        }
        var export = Array("date,locale,pack,region,app_version,sessions,crashes\n".utf8)
        for _ in 0..<16 { export += block }
        XCTAssertNil(failure(gzip(export), .default))
    }
}
