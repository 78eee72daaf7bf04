import RolloutModel

/// One change to the state: the files it writes or removes and the commit message that records it.
/// Trailers are the machine-readable audit record (`Rollout-Action: pack-add`); see docs/architecture.md.
public struct Change {
    public var summary: String
    /// The trailers before `Rollout-Actor`, which `message(actor:)` adds; `Action` comes first.
    public var trailers: [(name: Trailer, value: String)]
    public var writes: [(path: String, bytes: [UInt8])]
    /// Files whose blobs the operation already wrote (to hold one large file in memory at a time).
    public var blobs: [(path: String, blob: ObjectID)]
    public var removals: [String]
    /// An approval (`rollout approve`): the proposal, made the commit's second parent, and the
    /// message recorded instead of `message(actor:)`: the proposal's, with the approval trailers.
    public var approving: (proposal: ObjectID, message: String)? = nil

    public init(
        summary: String, trailers: [(name: Trailer, value: String)] = [], writes: [(path: String, bytes: [UInt8])] = [],
        blobs: [(path: String, blob: ObjectID)] = [], removals: [String] = []
    ) {
        self.summary = summary
        self.trailers = trailers
        self.writes = writes
        self.blobs = blobs
        self.removals = removals
    }

    /// The commit message: summary, a blank line, then one `Rollout-Name: value` trailer per line.
    /// Values are folded onto one line so a reason with a newline cannot forge another trailer.
    public func message(actor: String) -> String {
        if let approving { return approving.message }
        var lines = [Change.oneLine(summary), ""]
        var all = trailers
        all.append((.actor, actor))
        for (name, value) in all {
            lines.append("Rollout-\(name.rawValue): \(Change.oneLine(value))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0.isNewline }).joined(separator: " ").trimmingSpaces
    }

    /// Parses the `Rollout-*` trailers of a commit message back into (name, value) pairs. Names stay
    /// strings: a commit written by a newer rollout may carry a trailer this build has no `Trailer` for.
    public static func trailers(of message: String) -> [(name: String, value: String)] {
        // The log index reads every commit's trailers: most messages are read on their bytes.
        if let read = message.utf8.withContiguousStorageIfAvailable(asciiTrailers), let trailers = read {
            return trailers
        }
        // Without a CR, "\n" is always a grapheme of its own, so splitting the UTF-8 bytes gives the
        // same lines as splitting Characters, several times faster.
        let lines: [Substring] =
            message.utf8.contains(0x0D)
            ? message.split(separator: "\n") : message.utf8.split(separator: 0x0A).map { Substring($0) }
        return lines.compactMap { line in
            // Every line rollout writes is ASCII, where each byte is a Character (CR LF, the one
            // exception, is not in `line`): the same test on bytes, without grapheme breaking.
            if line.utf8.allSatisfy({ $0 < 0x80 }) { return asciiTrailer(line.utf8) }
            guard line.hasPrefix("Rollout-"), let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[line.index(line.startIndex, offsetBy: 8)..<colon]
            let value = String(line[line.index(after: colon)...]).trimmingSpaces
            return (String(name), value)
        }
    }

    private static let trailerPrefix = Array("Rollout-".utf8)

    /// The trailers of a message with no CR whose `Rollout-` lines are ASCII, read straight off its
    /// bytes, exactly as `asciiTrailer` reads each line; nil for any other message.
    private static func asciiTrailers(in bytes: UnsafeBufferPointer<UInt8>) -> [(name: String, value: String)]? {
        guard !bytes.contains(0x0D) else { return nil }
        var trailers: [(name: String, value: String)] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
            start = end + 1
            guard line.starts(with: trailerPrefix) else { continue }
            guard line.allSatisfy({ $0 < 0x80 }) else { return nil }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            var from = colon + 1
            var to = line.count
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
            while from < to && isSpace(line[from]) { from += 1 }
            while to > from && isSpace(line[to - 1]) { to -= 1 }
            trailers.append(
                (
                    String(decoding: UnsafeBufferPointer(rebasing: line[8..<colon]), as: UTF8.self),
                    String(decoding: UnsafeBufferPointer(rebasing: line[from..<to]), as: UTF8.self)
                ))
        }
        return trailers
    }

    private static func asciiTrailer(_ line: Substring.UTF8View) -> (name: String, value: String)? {
        guard line.starts(with: trailerPrefix), let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        // The ASCII characters `trimmingSpaces` removes: tab, LF, VT, FF, CR and space.
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var value = line[line.index(after: colon)...]
        while let first = value.first, isSpace(first) { value = value.dropFirst() }
        while let last = value.last, isSpace(last) { value = value.dropLast() }
        return (
            String(decoding: line[line.index(line.startIndex, offsetBy: 8)..<colon], as: UTF8.self),
            String(decoding: value, as: UTF8.self)
        )
    }
}
