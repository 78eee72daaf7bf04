import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// The C library's write(2) and rename(2), named apart: inside DeviceStorage, `write` and `rename`
// are its own methods.
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    write(fd, bytes.baseAddress, bytes.count)
}
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }

/// The client's cache directory: whole files written beside their final name, flushed, and renamed
/// into place, so that a process killed at any moment leaves either the old file or the new one.
///
///     <cache>/install-id                 the device's install id (bucketing)
///     <cache>/state.json                 index sequence, chains, blocked and failed packs
///     <cache>/packs/<locale>/active      the pack in use, with the signed manifest that vouched for it
///     <cache>/packs/<locale>/pending     verified, waiting for activatePending() or the next start
///     <cache>/packs/<locale>/previous    the last good pack before `active`
///
/// `@unchecked Sendable`: `budget` is its only mutable state, and it is read and changed only by
/// writes, renames and removals, which the client makes under its writers' lock (`RolloutClient.lock`),
/// or in its initializer, before another thread can reach it.
final class DeviceStorage: @unchecked Sendable {
    struct SimulatedCrash: Error {}

    let directory: String
    /// Tests: the number of bytes (and renames and removals, one each) the process may still write
    /// before it "dies": the write in progress stops there and every later one throws.
    var budget: Int?

    init(directory: String) {
        self.directory = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    func path(_ name: String) -> String { "\(directory)/\(name)" }

    func read(_ name: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path(name)) else { return nil }
        return [UInt8](data)
    }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    func children(_ name: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path(name))) ?? []).sorted()
    }

    private func spend(_ units: Int) throws -> Int {
        guard let left = budget else { return units }
        if left <= 0 { throw SimulatedCrash() }
        budget = max(0, left - units)
        return min(left, units)
    }

    /// Writes `bytes` to `name` atomically: a temporary file in the same directory, fsync, rename,
    /// fsync of the directory.
    func write(_ name: String, _ bytes: [UInt8]) throws {
        let final = path(name)
        let folder = (final as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = "\(final).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw RolloutClient.Failure(.storageFailed, "\(temporary): \(String(cString: strerror(errno)))")
        }
        var written = 0
        do {
            defer { close(fd) }
            let allowed = try spend(bytes.count)
            while written < allowed {
                let n = bytes[written..<allowed].withUnsafeBytes { systemWrite(fd, $0) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    throw RolloutClient.Failure(.storageFailed, "\(temporary): \(String(cString: strerror(errno)))")
                }
                written += n
            }
            if allowed < bytes.count { throw SimulatedCrash() }
            guard fsync(fd) == 0 else {
                throw RolloutClient.Failure(.storageFailed, "\(temporary): fsync: \(String(cString: strerror(errno)))")
            }
        } catch let crash as SimulatedCrash {
            throw crash  // a dead process cleans nothing up: the temporary file stays
        } catch {
            unlink(temporary)
            throw error
        }
        _ = try spend(1)
        guard systemRename(temporary, final) == 0 else {
            unlink(temporary)
            throw RolloutClient.Failure(.storageFailed, "\(final): \(String(cString: strerror(errno)))")
        }
        syncDirectory(folder)
    }

    func rename(_ from: String, _ to: String) throws {
        _ = try spend(1)
        guard systemRename(path(from), path(to)) == 0 else {
            throw RolloutClient.Failure(.storageFailed, "\(path(from)): \(String(cString: strerror(errno)))")
        }
        syncDirectory((path(to) as NSString).deletingLastPathComponent)
    }

    func remove(_ name: String) throws {
        guard exists(name) else { return }
        _ = try spend(1)
        unlink(path(name))
    }

    /// What a killed process left behind: temporary files that never got their rename.
    func removeTemporaries() {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return }
        for case let relative as String in walker where (relative as NSString).lastPathComponent.contains(".tmp-") {
            unlink(path(relative))
        }
    }

    private func syncDirectory(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}

/// A pack as the device stores it: the signed manifest that listed it, its signature and the pack's
/// bytes, in one file so that one rename replaces all three.
///
///     rollout-slot/1 <manifest bytes> <signature bytes> <pack bytes>\n<manifest><signature><pack>
struct PackSlot: Equatable {
    static let magic = "rollout-slot/1"

    let manifest: [UInt8]
    let signature: [UInt8]
    let pack: [UInt8]

    var bytes: [UInt8] {
        Array("\(PackSlot.magic) \(manifest.count) \(signature.count) \(pack.count)\n".utf8) + manifest + signature
            + pack
    }

    init(manifest: [UInt8], signature: [UInt8], pack: [UInt8]) {
        self.manifest = manifest
        self.signature = signature
        self.pack = pack
    }

    init?(_ bytes: [UInt8]) {
        guard let newline = bytes.prefix(80).firstIndex(of: 0x0A) else { return nil }
        let header = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ")
        guard header.count == 4, header[0] == PackSlot.magic, let m = Int(header[1]), let s = Int(header[2]),
            let p = Int(header[3]),
            m >= 0, s >= 0, p >= 0, m <= bytes.count, s <= bytes.count, p <= bytes.count,
            bytes.count == newline + 1 + m + s + p
        else { return nil }
        let start = newline + 1
        manifest = Array(bytes[start..<start + m])
        signature = Array(bytes[start + m..<start + m + s])
        pack = Array(bytes[start + m + s..<start + m + s + p])
    }
}
