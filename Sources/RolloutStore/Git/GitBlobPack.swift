import CGit2
import CZlib
import RolloutCrypto
import RolloutModel

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Blobs written straight into one new pack and its index, for a change whose blobs are many
/// megabytes (metrics ingest's rollups; docs/pack-format.md, "Packing"). Written loose, such blobs
/// were deflated once, then read back and searched for deltas by the automatic packing after the
/// write: three quarters of an aggregated ingest. Handed to libgit2's indexer, each blob was
/// deflated, inflated again and hashed twice more. Here each blob is hashed once (OpenSSL's
/// SHA-1, the object id git computes) and deflated once, at libgit2's loose-object level, into a
/// pack with no deltas; the .idx (version 2) is written from the ids, offsets and CRC-32s already
/// known. Both files are written under a temporary name (`pack_git2_*`, which `rollout gc`
/// removes when a killed write left one), fsynced and renamed into place, the pack first, so a
/// reader sees no pack or a whole one. BlobPackWriterTests holds the result to `git fsck` and
/// `git verify-pack`.
public final class BlobPackWriter {
    struct Entry {
        let id: [UInt8]
        let offset: Int
        let crc: UInt32
    }

    private let repository: GitRepository
    /// With nothing to write (a dry run), blobs are only hashed.
    private let hashOnly: Bool
    private var file: PackTemporaryFile?
    private var entries: [Entry] = []
    private var known = Set<ObjectID>()
    private var stream = z_stream()
    private var deflating = false
    private var chunk: [UInt8]

    /// libgit2 writes loose objects at zlib's fastest level; a rollup's repeated keys compress well at it.
    static let compressionLevel: Int32 = 1
    static let chunkSize = 1 << 20

    init(repository: GitRepository, hashOnly: Bool) {
        self.repository = repository
        self.hashOnly = hashOnly
        chunk = hashOnly ? [] : [UInt8](repeating: 0, count: BlobPackWriter.chunkSize)
    }

    deinit {
        if deflating { deflateEnd(&stream) }
        file?.discard()
    }

    /// Adds one blob and returns its id, as `git hash-object` computes it. The same bytes twice
    /// are stored once.
    public func add(_ bytes: [UInt8]) throws -> ObjectID {
        let id = ObjectID(blob: bytes)
        let digest = id.bytes
        guard !hashOnly, known.insert(id).inserted else { return id }
        if file == nil { file = try PackTemporaryFile(repository: repository) }
        try startDeflate()
        let offset = file!.written
        var crc = UInt32(crc32(0, nil, 0))
        let entryHeader = BlobPackWriter.entryHeader(size: bytes.count)
        crc = entryHeader.withUnsafeBufferPointer { UInt32(crc32(UInt(crc), $0.baseAddress, UInt32($0.count))) }
        try file!.append(entryHeader)
        try deflate(bytes, crc: &crc)
        entries.append(Entry(id: digest, offset: offset, crc: crc))
        return id
    }

    /// Ends the pack with its SHA-1, writes its index, and puts both in place; the blobs are
    /// readable from then on. Returns the pack's name; nil for a dry run or for no blobs.
    @discardableResult
    public func finish() throws -> String? {
        guard let file else { return nil }
        try file.append(BlobPackWriter.bigEndian(UInt32(entries.count)), at: 8)
        let packDigest = try file.digest()
        try file.append(packDigest)
        let index = BlobPackWriter.index(entries, packDigest: packDigest)
        let name = Hex.encode(packDigest)
        try file.install(index: index, name: name)
        self.file = nil
        try repository.refreshObjects()
        return name
    }

    private func startDeflate() throws {
        if deflating {
            guard deflateReset(&stream) == Z_OK else { throw RolloutError.internal("zlib could not reset") }
        } else {
            guard rollout_deflate_init(&stream, BlobPackWriter.compressionLevel) == Z_OK else {
                throw RolloutError.internal("zlib could not start a deflate stream")
            }
            deflating = true
        }
    }

    /// One zlib stream per object, as the pack format has it.
    private func deflate(_ bytes: [UInt8], crc: inout UInt32) throws {
        try bytes.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(input.count)
            var status = Z_OK
            while status != Z_STREAM_END {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    status = CZlib.deflate(&stream, Z_FINISH)
                    return out.count - Int(stream.avail_out)
                }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw RolloutError.internal("zlib could not deflate a blob (\(status))")
                }
                try chunk.withUnsafeBufferPointer { out in
                    crc = UInt32(crc32(UInt(crc), out.baseAddress, UInt32(produced)))
                    try file!.append(UnsafeBufferPointer(rebasing: out[..<produced]))
                }
            }
        }
    }

    /// An entry's header: type 3 (blob) and the inflated size, four bits, then seven bits a byte.
    static func entryHeader(size: Int) -> [UInt8] {
        var header: [UInt8] = []
        var rest = size >> 4
        var byte = UInt8(3 << 4) | UInt8(size & 0x0F)
        while rest > 0 {
            header.append(byte | 0x80)
            byte = UInt8(rest & 0x7F)
            rest >>= 7
        }
        header.append(byte)
        return header
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// The .idx, version 2 (git's Documentation/gitformat-pack): magic and version, 256 fan-out
    /// counts, the ids in order, their CRC-32s and offsets (an offset past 2^31 - 1 goes in a table
    /// of 8-byte offsets), the pack's SHA-1, then the SHA-1 of all that.
    static func index(_ unsorted: [Entry], packDigest: [UInt8]) -> [UInt8] {
        let entries = unsorted.sorted { $0.id.lexicographicallyPrecedes($1.id) }
        var out: [UInt8] = [0xFF, 0x74, 0x4F, 0x63] + bigEndian(2)
        var fanOut = [UInt32](repeating: 0, count: 256)
        for entry in entries { fanOut[Int(entry.id[0])] += 1 }
        var running: UInt32 = 0
        for count in fanOut {
            running += count
            out += bigEndian(running)
        }
        for entry in entries { out += entry.id }
        for entry in entries { out += bigEndian(entry.crc) }
        var large: [Int] = []
        for entry in entries {
            if entry.offset < 0x8000_0000 {
                out += bigEndian(UInt32(entry.offset))
            } else {
                out += bigEndian(0x8000_0000 | UInt32(large.count))
                large.append(entry.offset)
            }
        }
        for offset in large { out += bigEndian(UInt32(offset >> 32)) + bigEndian(UInt32(offset & 0xFFFF_FFFF)) }
        out += packDigest
        let hasher = SHA1Hasher()
        out.withUnsafeBytes { hasher.update($0) }
        return out + hasher.finalize()
    }
}

/// The pack being written: a temporary file in objects/pack, buffered, fsynced and renamed into
/// place with its .idx by `install`, or unlinked by `discard`.
final class PackTemporaryFile {
    let directory: String
    let path: String
    private let descriptor: Int32
    private var closed = false
    private var buffer: [UInt8] = []
    private(set) var written = 0

    init(repository: GitRepository) throws {
        directory = repository.packDirectory
        var template = Array((directory + "/pack_git2_rollout_XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        path = String(cString: template)
        guard fd >= 0 else { throw PackTemporaryFile.failure("create a pack in", directory) }
        descriptor = fd
        buffer.reserveCapacity(BlobPackWriter.chunkSize * 2)
        // "PACK", version 2, and the object count, filled in by `finish`.
        try append([0x50, 0x41, 0x43, 0x4B, 0, 0, 0, 2, 0, 0, 0, 0])
    }

    func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBufferPointer { try append($0) }
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        written += bytes.count
        if buffer.count >= BlobPackWriter.chunkSize { try flush() }
    }

    /// Overwrites bytes already appended (the header's count).
    func append(_ bytes: [UInt8], at offset: Int) throws {
        try flush()
        let done = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
        guard done == bytes.count else { throw PackTemporaryFile.failure("write", path) }
    }

    private func flush() throws {
        if let code = LocalFile.writeAll(descriptor, buffer) {
            throw RolloutError.fileFailure("write", path, errno: code)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// The SHA-1 of everything written, read back from the file.
    func digest() throws -> [UInt8] {
        try flush()
        let hasher = SHA1Hasher()
        var block = [UInt8](repeating: 0, count: BlobPackWriter.chunkSize)
        var offset = 0
        while offset < written {
            let count = block.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress, min($0.count, written - offset), off_t(offset))
            }
            guard count > 0 else { throw PackTemporaryFile.failure("read back", path) }
            block.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            offset += count
        }
        return hasher.finalize()
    }

    /// Makes the pack durable and read-only, renames it to pack-NAME.pack, then writes `index` as
    /// pack-NAME.idx (readers find a pack by its index). A pack of the same name holds the same objects.
    func install(index: [UInt8], name: String) throws {
        try flush()
        guard fchmod(descriptor, 0o444) == 0, fsync(descriptor) == 0 else {
            throw PackTemporaryFile.failure("write", path)
        }
        close(descriptor)
        closed = true
        let pack = "\(directory)/pack-\(name)"
        guard rename(path, pack + ".pack") == 0 else { throw PackTemporaryFile.failure("rename", path) }
        _ = try LocalFile.create(pack + ".idx", with: index, name: pack + ".idx", mode: 0o444)
    }

    func discard() {
        if !closed { close(descriptor) }
        closed = true
        unlink(path)
    }

    /// Reads `errno`: call it right after the failing call. The one mapping of an errno to what a
    /// person reads (`RolloutError.fileFailure`): a full disk is exit 74 naming the file and the cause.
    static func failure(_ doing: String, _ path: String) -> RolloutError {
        .fileFailure(doing, path, errno: errno)
    }
}

extension ObjectID {
    /// The id git gives a blob of `bytes` (`git hash-object`): the SHA-1 of `blob SIZE\0` and the
    /// bytes, by OpenSSL.
    init(blob bytes: [UInt8]) {
        let hasher = SHA1Hasher()
        Array("blob \(bytes.count)\0".utf8).withUnsafeBytes { hasher.update($0) }
        bytes.withUnsafeBytes { hasher.update($0) }
        self.init(bytes: hasher.finalize())
    }
}
