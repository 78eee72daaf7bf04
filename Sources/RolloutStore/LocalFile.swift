import Foundation
import RolloutModel

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// The C library's read(2): inside LocalFile, `read` is its own method.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// The operator's own files (packs, metrics exports, keys, reports, the site), read and written with
/// POSIX calls so that every failure has an errno, which `RolloutError.fileFailure` turns into what a
/// person reads. `name` is always the path as the person gave it, so messages name it that way.
public enum LocalFile {
    /// `mkdir -p` for an `--out DIR`: each missing folder made with `mode` whatever the umask (which
    /// can only take bits away, so it is set again after mkdir), a folder that exists kept as it
    /// is, a file in the way a usage error, and the cause of a failure from errno. `purpose` says
    /// what the folder is for in the message ("create the site directory").
    public static func makeDirectories(_ directory: String, mode: mode_t, purpose: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StoreRefusal.notADirectory(directory)
            }
            return
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != directory { try makeDirectories(parent, mode: mode, purpose: purpose) }
        guard mkdir(directory, mode) == 0 || errno == EEXIST else {
            throw RolloutError.fileFailure(purpose, directory, errno: errno)
        }
        chmod(directory, mode)
    }

    /// Checks that `path` is a regular file without opening it (opening a named pipe for reading
    /// blocks until something writes to it); returns its size.
    @discardableResult
    public static func requireRegular(_ path: String, name: String, describedAs what: String) throws -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw RolloutError.missing("\(name): no such \(what)") }
            throw RolloutError.fileFailure("read", name, errno: errno)
        }
        try requireRegular(info.st_mode, name: name, describedAs: what)
        return Int(info.st_size)
    }

    static func requireRegular(_ mode: mode_t, name: String, describedAs what: String) throws {
        if let refusal = RolloutError.notARegularFile(name, mode: mode, describedAs: what) { throw refusal }
    }

    /// Opens a regular file for reading; the caller closes the descriptor. O_NONBLOCK keeps a named
    /// pipe swapped in after the check from blocking the open; the type is checked again on the
    /// descriptor itself.
    public static func openForReading(_ path: String, name: String, describedAs what: String) throws -> Int32 {
        try requireRegular(path, name: name, describedAs: what)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw RolloutError.fileFailure("read", name, errno: errno) }
        var info = stat()
        do {
            guard fstat(fd, &info) == 0 else { throw RolloutError.fileFailure("read", name, errno: errno) }
            try requireRegular(info.st_mode, name: name, describedAs: what)
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// The whole file. `limit` sees the size before anything is read.
    public static func read(
        _ path: String, name: String, describedAs what: String, limit: (Int) throws -> Void = { _ in }
    ) throws -> [UInt8] {
        let fd = try openForReading(path, name: name, describedAs: what)
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw RolloutError.fileFailure("read", name, errno: errno) }
        try limit(Int(info.st_size))
        var bytes: [UInt8] = []
        try readChunks(fd, name: name, chunkBytes: 1 << 16) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// Reads `fd` to its end, handing each chunk to `body` (valid only during the call).
    public static func readChunks(
        _ fd: Int32, name: String, chunkBytes: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var buffer = [UInt8](repeating: 0, count: chunkBytes)
        while true {
            let n = buffer.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n == 0 { return }
            if n < 0 {
                if errno == EINTR { continue }
                throw RolloutError.fileFailure("read", name, errno: errno)
            }
            try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }

    /// Replaces `path` with `bytes` atomically: a temporary file beside it is written, flushed to
    /// disk and renamed over it, so a full disk leaves the old file (or none), never a cut one. A
    /// symbolic link is followed (its target is replaced, not the link). A device or named pipe
    /// (`/dev/stdout`, `/dev/full`) is written into, as a shell redirection would, never replaced.
    /// `durable: false` skips the flushes, for caches that are rebuilt if lost.
    public static func replace(
        _ path: String, with bytes: [UInt8], name: String, mode: mode_t = 0o666, durable: Bool = true
    ) throws {
        var target = path
        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                if let resolved = realpath(path, nil) {
                    target = String(cString: resolved)
                    free(resolved)
                }
            case S_IFDIR:
                throw RolloutError.usage("\(name) is a directory; name a file to write")
            default:
                return try writeInPlace(path, bytes, name: name)
            }
        }
        let temporary = try writeTemporary(beside: target, bytes, name: name, mode: mode, durable: durable)
        guard rename(temporary, target) == 0 else {
            let code = errno
            unlink(temporary)
            throw RolloutError.fileFailure("write", name, errno: code)
        }
        if durable { syncDirectory(of: target) }
    }

    /// Writes into an existing device or named pipe. O_NONBLOCK makes a pipe nobody reads fail
    /// (ENXIO) instead of waiting forever; the writes themselves block as usual.
    private static func writeInPlace(_ path: String, _ bytes: [UInt8], name: String) throws {
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw RolloutError.fileFailure("write", name, errno: errno) }
        defer { close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        if let code = writeAll(fd, bytes) { throw RolloutError.fileFailure("write", name, errno: code) }
    }

    /// Writes every byte; returns the errno of a failed write.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n < 0 ? errno : EIO }
            written += n
        }
        return nil
    }

    /// Creates `path` holding `bytes`, never replacing anything there: the bytes go to a temporary
    /// file beside it first, which is then linked into place (link(2) fails if the name exists) and
    /// removed. A full disk or a kill leaves no file at `path`, never an empty or cut one. Returns
    /// false, writing nothing, when `path` already exists.
    public static func create(_ path: String, with bytes: [UInt8], name: String, mode: mode_t) throws -> Bool {
        let temporary = try writeTemporary(beside: path, bytes, name: name, mode: mode)
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return false }
            throw RolloutError.fileFailure("create", name, errno: errno)
        }
        syncDirectory(of: path)
        return true
    }

    /// A new file (O_EXCL, `mode` from the start) in the directory of `path`, holding `bytes` and
    /// flushed to disk unless `durable` is false; removed again if anything fails.
    private static func writeTemporary(
        beside path: String, _ bytes: [UInt8], name: String, mode: mode_t, durable: Bool = true
    ) throws -> String {
        let directory = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        let temporary =
            (directory.isEmpty ? "" : directory + "/") + ".\(base).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw RolloutError.fileFailure("write", name, errno: errno) }
        var failure = writeAll(fd, bytes) ?? 0
        if failure == 0 && durable && fsync(fd) != 0 { failure = errno }
        if close(fd) != 0 && failure == 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            throw RolloutError.fileFailure("write", name, errno: failure)
        }
        return temporary
    }

    /// Makes a rename or link durable; a directory that cannot be opened is left to the file system.
    private static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
