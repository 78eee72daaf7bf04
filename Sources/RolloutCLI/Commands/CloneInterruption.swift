import Foundation
import RolloutStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(Musl)
    import Musl
#endif

/// What `rollout clone` leaves when SIGINT, SIGTERM or SIGHUP stops it: nothing, as git leaves
/// nothing of an interrupted `git clone`. A half-made repository would hold the remote's URL (a
/// token in it, perhaps) and no state, which every later command would take for a damaged one.
/// While the clone runs, the signal stops git, removes what the clone made (the directory, or its
/// contents when it was an empty directory already), and then ends rollout by the same signal,
/// so a shell sees what it sent. A signal after the clone is complete leaves it in place.
///
/// `@unchecked Sendable`: the watching thread and the clone's share it. `lock` guards `complete`;
/// `previous` and `previousMask` are touched only by the clone's thread (`init`, `finish`); the rest
/// are constants.
final class CloneInterruption: @unchecked Sendable {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Where the handler writes the signal's number: the one thing it does (async-signal-safe).
    /// `nonisolated(unsafe)`: a C signal handler captures nothing, so it reads a global, and may take
    /// no lock. The clone's thread sets it before the handlers are installed and resets it after
    /// they are put back; a handler only reads one aligned Int32.
    nonisolated(unsafe) private static var wakeUp: Int32 = -1

    private let path: String
    private let existed: Bool
    private let lock = NSLock()
    private var complete = false
    private var previous: [Int32: sig_t?] = [:]
    private var previousMask = sigset_t()
    private let pipe: (read: Int32, write: Int32)

    /// Watches for the signals until `finish()`.
    init(path: String) {
        self.path = path
        existed = FileManager.default.fileExists(atPath: path)
        pipe = Self.makePipe()
        Self.wakeUp = pipe.write
        // A parent may have started rollout with these blocked (a test runner's threads do).
        var set = sigset_t()
        sigemptyset(&set)
        for number in Self.signals { sigaddset(&set, number) }
        pthread_sigmask(SIG_UNBLOCK, &set, &previousMask)
        let reader = pipe.read
        Thread.detachNewThread { [self] in self.watch(reader) }
        for number in Self.signals {
            previous[number] = signal(number) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                let descriptor = CloneInterruption.wakeUp
                if descriptor >= 0 { _ = write(descriptor, &byte, 1) }
            }
            // A signal rollout was started ignoring (a shell's `&`) stays ignored, as git leaves it.
            if let old = previous[number], let old,
                unsafeBitCast(old, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
            {
                signal(number, SIG_IGN)
                previous[number] = nil
            }
        }
    }

    /// The clone is over, made or refused: signals act as they did before.
    func finish() {
        lock.withLock { complete = true }
        for (number, handler) in previous { signal(number, handler ?? SIG_DFL) }
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        // Never a closed (and perhaps reused) descriptor for a handler another clone in this
        // process left installed.
        if Self.wakeUp == pipe.write { Self.wakeUp = -1 }
        var stop: UInt8 = 0
        _ = write(pipe.write, &stop, 1)
        close(pipe.write)
    }

    /// A pipe whose ends no program rollout starts inherits.
    private static func makePipe() -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        #if canImport(Glibc)
            _ = descriptors.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress!) }
        #elseif canImport(Darwin)
            _ = descriptors.withUnsafeMutableBufferPointer { Darwin.pipe($0.baseAddress!) }
        #elseif canImport(Musl)
            _ = descriptors.withUnsafeMutableBufferPointer { Musl.pipe($0.baseAddress!) }
        #endif
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    /// Waits for a signal's number, or 0 when the clone is over.
    private func watch(_ descriptor: Int32) {
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == -1 && errno == EINTR {}
        close(descriptor)
        if byte != 0 { interrupted(by: Int32(byte)) }
    }

    private func interrupted(by number: Int32) {
        lock.lock()
        if !complete {
            GitProcesses.stopAll()
            removeWhatCloneMade()
            // A process git had started (index-pack) may still have made a directory as it ended.
            usleep(100_000)
            removeWhatCloneMade()
            let note = "rollout: clone interrupted; removed \(existed ? "what it had written in " : "")\(path)\n"
            FileHandle.standardError.write(Data(note.utf8))
        }
        // Ends by the signal itself; the lock stays held, so the clone cannot complete meanwhile.
        signal(number, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(number)
        _exit(128 + number)
    }

    private func removeWhatCloneMade() {
        guard existed else {
            try? FileManager.default.removeItem(atPath: path)
            return
        }
        for item in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            try? FileManager.default.removeItem(atPath: path + "/" + item)
        }
    }
}
