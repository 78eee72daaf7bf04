import CZlib

/// Inflates gzip data as it is read, into the caller's buffer: the CSV tokenizer's read buffer, so
/// the decompressed text is never copied and never stored (docs/metrics.md, "Gzip input").
///
/// The data may hold several members one after the other, as `cat a.gz b.gz` makes them: their
/// texts follow each other. Data that ends inside a member, or that zlib cannot inflate (a bad
/// header, block or CRC, or bytes after a member that are not another member), is a `Failure`.
final class GzipReader {
    /// What went wrong with the gzip data, in a person's words; the caller names the file.
    struct Failure: Error, Equatable {
        let message: String
    }

    /// The first two bytes of every gzip member (RFC 1952).
    static func isGzip(_ first: UnsafeRawBufferPointer) -> Bool { first.count >= 2 && first[0] == 0x1F && first[1] == 0x8B }

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

    /// `blockBytes`: how much compressed data to ask `input` for at once.
    init(blockBytes: Int = 1 << 20) {
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
        if !started {
            // Here rather than in init, so that init cannot fail and deinit always has a stream to end.
            guard rollout_inflate_init_gzip(stream) == Z_OK else { throw Failure(message: "zlib could not start (out of memory?)") }
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
                // A member ends; whatever follows must be another one (or nothing).
                inflateReset(stream)
                betweenMembers = true
            case Z_BUF_ERROR where !endOfInput:
                continue
            case Z_BUF_ERROR:
                let produced = bytesOut + count - Int(stream.pointee.avail_out)
                throw Failure(message: "the gzip data ends early, after \(produced) bytes of text: the file is truncated")
            case Z_MEM_ERROR:
                throw Failure(message: "zlib ran out of memory")
            default:
                let offset = bytesIn - Int(stream.pointee.avail_in)
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "unreadable data"
                throw Failure(message: "the gzip data is corrupt at byte \(offset) of the file (zlib: \(reason))")
            }
        }
        return count - Int(stream.pointee.avail_out)
    }
}
