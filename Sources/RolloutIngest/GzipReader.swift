import CZlib
import RolloutModel

/// How far gzip data may expand (docs/metrics.md, "Gzip input"): a few kilobytes of deflate
/// can hold gigabytes of text (a decompression bomb), which would be inflated and scanned in full
/// before the file is found to hold no rows. Checked after every read, so a bomb is refused
/// after inflating a little more than `ratioFrom` bytes, in a fraction of a second.
public struct GzipLimits: Equatable, Sendable {
    /// The most text the data may expand to, in bytes.
    public var maximumText: Int
    /// The most bytes of text per byte of gzip data, once the text passes `ratioFrom` bytes.
    public var maximumRatio: Int
    /// Below this much text the ratio is not checked: a small file may well be all repetition.
    public var ratioFrom: Int

    /// 64 GiB of text; 200 bytes of text per byte of gzip (CSV exports compress 4 to 20 times,
    /// deflate at most 1,032 times), from 1 MiB of text on.
    public static let `default` = GzipLimits(maximumText: 64 << 30, maximumRatio: 200, ratioFrom: 1 << 20)

    public init(maximumText: Int, maximumRatio: Int, ratioFrom: Int = 1 << 20) {
        self.maximumText = maximumText
        self.maximumRatio = maximumRatio
        self.ratioFrom = ratioFrom
    }
}

/// Inflates gzip data as it is read, into the caller's buffer: the CSV tokenizer's read buffer, so
/// the decompressed text is never copied and never stored (docs/metrics.md, "Gzip input").
///
/// The data may hold several members one after the other, as `cat a.gz b.gz` makes them: their
/// texts follow each other. Data that ends inside a member, or that zlib cannot inflate (a bad
/// header, block or CRC, or bytes after a member that are not another member), is a `Failure`; so is
/// text that is itself compressed (gzip of gzip, a .tar.gz).
final class GzipReader {
    /// What went wrong with the gzip data, or what the file is instead of text or gzip, in a person's
    /// words; the caller names the file.
    struct Failure: Error, Equatable {
        let message: String
    }

    /// The data expands past `GzipLimits`: the caller refuses the file with the flag that raises the
    /// limit (`IngestRefusal`).
    enum Overflow: Error, Equatable {
        /// More than `limit` bytes of text: refused after `text`.
        case text(Int, limit: Int)
        /// More than `limit` bytes of text per byte of data: `text` bytes from the first `consumed`.
        case ratio(text: Int, consumed: Int, limit: Int)
    }

    /// The first two bytes of every gzip member (RFC 1952).
    static func isGzip(_ first: UnsafeRawBufferPointer) -> Bool {
        first.count >= 2 && first[0] == 0x1F && first[1] == 0x8B
    }

    /// How many first bytes `otherFormat` looks at: a GNU tar header's magic ends at byte 265.
    static let sniffBytes = 265

    /// Archives and compressors that are not gzip, recognised by their first bytes (as many as are at
    /// hand, up to `sniffBytes`): what the data is and what to do. Exports saved as `.csv.gz` are
    /// sometimes one of these; read as text they would fail on their first line with "NUL byte".
    static func otherFormat(_ first: UnsafeRawBufferPointer) -> (what: String, todo: String)? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            first.count >= offset + magic.count && (0..<magic.count).allSatisfy { first[offset + $0] == magic[$0] }
        }
        let extract = "extract the CSV from it and ingest that"
        func decompress(_ tool: String) -> String {
            "decompress it (\(tool)) and ingest the text, or compress the text with gzip"
        }
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) { return ("a zip archive", extract) }
        if starts([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) { return ("a 7-Zip archive", extract) }
        // POSIX "ustar\0" or GNU "ustar  \0": the NUL keeps a CSV with "ustar" at byte 257 text.
        if starts(Array("ustar\0".utf8), at: 257) || starts(Array("ustar  \0".utf8), at: 257) {
            return ("a tar archive", extract)
        }
        // "BZh", the block size 1-9, then a block's or the end's magic: "BZh" alone could start a CSV.
        if starts(Array("BZh".utf8)), first.count >= 4, (0x31...0x39).contains(first[3]),
            starts([0x31, 0x41, 0x59, 0x26, 0x53, 0x59], at: 4) || starts([0x17, 0x72, 0x45, 0x38, 0x50, 0x90], at: 4)
        {
            return ("bzip2 data", decompress("bunzip2"))
        }
        if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return ("xz data", decompress("unxz")) }
        if starts([0x28, 0xB5, 0x2F, 0xFD]) { return ("zstd data", decompress("unzstd")) }
        if starts([0x04, 0x22, 0x4D, 0x18]) { return ("lz4 data", decompress("unlz4")) }
        // A zlib header: deflate with a 32 KiB window, no dictionary, and the check byte of level 1
        // or 6-9 (0x01, 0x9C, 0xDA: never text). Levels 2-5 write "x^", which a CSV could start with.
        if starts([0x78]), first.count >= 2, [0x01, 0x9C, 0xDA].contains(first[1]) {
            return ("zlib data (deflate without gzip's header)", decompress("pigz -dz"))
        }
        return nil
    }

    typealias Limits = GzipLimits

    /// Reads the compressed data's next bytes into the pointer, at most the count; 0 at its end.
    typealias Input = (UnsafeMutablePointer<UInt8>, Int) throws -> Int

    private let stream: UnsafeMutablePointer<z_stream>
    private let block: UnsafeMutablePointer<UInt8>
    private let blockBytes: Int
    private var started = false
    private var endOfInput = false
    /// True between two members (and after the last): the data may end here.
    private var betweenMembers = false
    /// Compressed bytes read, and decompressed bytes produced, so far.
    private var bytesIn = 0
    private(set) var bytesOut = 0
    let limits: Limits

    /// `blockBytes`: how much compressed data to ask `input` for at once.
    init(blockBytes: Int = 1 << 20, limits: Limits = .default) {
        self.limits = limits
        self.blockBytes = max(1, blockBytes)
        block = .allocate(capacity: self.blockBytes)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if started { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        block.deallocate()
    }

    /// Inflates into `output`, up to `count` bytes, reading compressed data from `input` as needed.
    /// Returns how many bytes it wrote: fewer than `count` only at the end of the data, 0 after it.
    func read(into output: UnsafeMutablePointer<UInt8>, count: Int, input: Input) throws -> Int {
        let firstText = bytesOut == 0
        if !started {
            // Here rather than in init, so that init cannot fail and deinit always has a stream to end.
            guard rollout_inflate_init_gzip(stream) == Z_OK else {
                throw Failure(message: "zlib could not start (out of memory?)")
            }
            started = true
        }
        stream.pointee.next_out = output
        stream.pointee.avail_out = UInt32(clamping: count)
        defer { bytesOut += count - Int(stream.pointee.avail_out) }
        while stream.pointee.avail_out > 0 {
            if stream.pointee.avail_in == 0 && !endOfInput {
                let n = try input(block, blockBytes)
                if n == 0 {
                    endOfInput = true
                } else {
                    bytesIn += n
                    stream.pointee.next_in = block
                    stream.pointee.avail_in = UInt32(n)
                }
            }
            if stream.pointee.avail_in == 0 && endOfInput && betweenMembers { break }
            // Z_NO_FLUSH: inflate writes as much as the output holds; it keeps no more than its
            // window, however long the member.
            switch inflate(stream, Z_NO_FLUSH) {
            case Z_OK:
                betweenMembers = false
            case Z_STREAM_END:
                // A member ends; whatever follows must be another one (or nothing). zlib would call
                // other bytes a bad header: say what they are while they are at hand (nearly always).
                let available = Int(stream.pointee.avail_in)
                if available > 0, let next = stream.pointee.next_in,
                    next[0] != 0x1F || available >= 2 && next[1] != 0x8B
                {
                    let end = bytesIn - available
                    throw Failure.notGzipAfter(byte: end)
                }
                inflateReset(stream)
                betweenMembers = true
            case Z_BUF_ERROR where !endOfInput:
                continue
            case Z_BUF_ERROR:
                let produced = bytesOut + count - Int(stream.pointee.avail_out)
                throw Failure.truncated(after: produced)
            case Z_MEM_ERROR:
                throw Failure(message: "zlib ran out of memory")
            default:
                let offset = bytesIn - Int(stream.pointee.avail_in)
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "unreadable data"
                throw Failure(message: "the gzip data is corrupt at byte \(offset) of the file (zlib: \(reason))")
            }
        }
        let produced = count - Int(stream.pointee.avail_out)
        if firstText { try checkText(UnsafeRawBufferPointer(start: output, count: produced)) }
        try checkExpansion(text: bytesOut + produced, consumed: bytesIn - Int(stream.pointee.avail_in))
        return produced
    }

    /// Refuses data that has expanded past `limits`: `text` bytes so far from `consumed` bytes of
    /// gzip data.
    func checkExpansion(text: Int, consumed: Int) throws {
        if text > limits.maximumText { throw Overflow.text(text, limit: limits.maximumText) }
        if text > limits.ratioFrom, Double(text) > Double(limits.maximumRatio) * Double(max(1, consumed)) {
            throw Overflow.ratio(text: text, consumed: consumed, limit: limits.maximumRatio)
        }
    }

    /// The text starts as no CSV does: it is compressed again (in practice the first read holds
    /// the first `sniffBytes` bytes, as the tokenizer asks for a whole chunk).
    private func checkText(_ first: UnsafeRawBufferPointer) throws {
        if Self.isGzip(first) {
            throw Failure.compressedTwice
        }
        if let other = Self.otherFormat(first) { throw Failure.holds(other) }
    }
}

extension GzipReader.Failure {
    static func notGzipAfter(byte end: Int) -> Self {
        Self(
            message: "the gzip data ends at byte \(end) of the file and the bytes after it are not gzip; "
                + "if they are padding, the first \(end) bytes hold the whole export")
    }

    static func truncated(after produced: Int) -> Self {
        Self(message: "the gzip data ends early, after \(produced) bytes of text: the file is truncated")
    }

    static let compressedTwice = Self(
        message: "the file was compressed twice: the text inside its gzip data is gzip data again; "
            + "decompress it once (gzip -dc) and ingest the result")

    /// Gzip data whose text is another format (`GzipReader.otherFormat`).
    static func holds(_ other: (what: String, todo: String)) -> Self {
        Self(message: "the gzip data holds \(other.what), not CSV text: \(other.todo)")
    }

    /// A file that is neither text nor gzip (`GzipReader.otherFormat`).
    static func notText(_ other: (what: String, todo: String)) -> Self {
        Self(message: "the file is \(other.what), not CSV text or gzip: \(other.todo)")
    }
}
