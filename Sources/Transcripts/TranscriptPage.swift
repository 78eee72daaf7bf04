import Foundation

/// A Markdown page read as transcripts (docs/architecture.md, "Docs are tests"): every ```console block is
/// a run of `$ COMMAND` lines, each followed by its output, and the page's blocks run in order in one shell.
/// A line `<!-- transcript: new directory -->` between blocks starts a fresh directory and shell.
public struct TranscriptPage: Sendable {
    public var path: String
    /// The page's lines, without their line ends.
    public var lines: [String]
    /// The runs of the page: the first starts at the top, each later one at a new-directory line.
    public var sections: [[Block]]

    public struct Block: Sendable {
        /// The 1-based line of the opening fence.
        public var fenceLine: Int
        /// The fence's indentation, stripped from the block's lines and put back on update.
        public var indent: String
        public var commands: [Command]
    }

    public struct Command: Sendable {
        /// The command as bash reads it: its lines joined by newlines, without the `$ ` of the first.
        public var text: String
        /// The 1-based line of its `$ `.
        public var line: Int
        /// The page's output lines, indentation stripped; `[exit N]` last when it exits non-zero.
        public var expected: [String]
        /// 0-based indexes into `lines`: where the expected output sits (empty range after the command).
        public var outputLines: Range<Int>
    }

    public static let newDirectoryMarker = "<!-- transcript: new directory -->"
    /// Fences for shell code that would look runnable but is not checked: refused, so a reader never
    /// meets an unchecked command block.
    public static let refusedFences: Set<String> = ["sh", "bash", "shell", "zsh", "shell-session"]

    public var blockCount: Int { sections.reduce(0) { $0 + $1.count } }
    public var commandCount: Int { sections.reduce(0) { $0 + $1.reduce(0) { $0 + $1.commands.count } } }

    public init(path: String, text: String, completeness: (String) -> Bool = BashSyntax.isComplete) throws {
        self.path = path
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        self.lines = lines
        sections = [[]]
        var index = 0
        while index < lines.count {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            if trimmed == Self.newDirectoryMarker {
                if !(sections.last?.isEmpty ?? true) { sections.append([]) }
                index += 1
                continue
            }
            guard trimmed.hasPrefix("```") else {
                index += 1
                continue
            }
            let close = try Self.closingFence(after: index, in: lines, path: path)
            let info = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces).lowercased()
            let language = String(info.prefix { !$0.isWhitespace && $0 != "{" })
            if Self.refusedFences.contains(language) {
                throw TranscriptError.format(
                    path, index + 1,
                    "a ```\(language) block is not checked: use ```console for commands a reader runs (each line "
                        + "`$ COMMAND`, then its output) or ```text for anything not meant to run")
            }
            if language == "console" {
                let indent = String(lines[index].prefix { $0 == " " })
                let commands = try Self.commands(
                    in: (index + 1)..<close, lines: lines, indent: indent, path: path, completeness: completeness)
                sections[sections.count - 1].append(Block(fenceLine: index + 1, indent: indent, commands: commands))
            }
            index = close + 1
        }
        if sections.last?.isEmpty == true && sections.count > 1 { sections.removeLast() }
    }

    private static func closingFence(after open: Int, in lines: [String], path: String) throws -> Int {
        let fence = String(lines[open].trimmingCharacters(in: .whitespaces).prefix { $0 == "`" })
        var index = open + 1
        while index < lines.count {
            if lines[index].trimmingCharacters(in: .whitespaces) == fence { return index }
            index += 1
        }
        throw TranscriptError.format(path, open + 1, "the code block is never closed")
    }

    private static func commands(
        in body: Range<Int>, lines: [String], indent: String, path: String, completeness: (String) -> Bool
    ) throws -> [Command] {
        func unindented(_ index: Int) -> String {
            lines[index].hasPrefix(indent) ? String(lines[index].dropFirst(indent.count)) : lines[index]
        }
        var commands: [Command] = []
        var index = body.lowerBound
        while index < body.upperBound {
            let line = unindented(index)
            guard line.hasPrefix("$ ") || line == "$" else {
                if commands.isEmpty {
                    if line.trimmingCharacters(in: .whitespaces).isEmpty {
                        index += 1
                        continue
                    }
                    throw TranscriptError.format(
                        path, index + 1, "a console block starts with a command (`$ COMMAND`), not output")
                }
                index += 1
                continue
            }
            let start = index
            var text = String(line.dropFirst(2))
            index += 1
            while !completeness(text) && index < body.upperBound {
                text += "\n" + unindented(index)
                index += 1
            }
            if !completeness(text) {
                throw TranscriptError.format(path, start + 1, "the command is not complete when the block ends")
            }
            let outputStart = index
            while index < body.upperBound && !unindented(index).hasPrefix("$ ") && unindented(index) != "$" {
                index += 1
            }
            var expected = (outputStart..<index).map { unindented($0) }
            var outputEnd = index
            while let last = expected.last, last.trimmingCharacters(in: .whitespaces).isEmpty {
                expected.removeLast()
                outputEnd -= 1
            }
            commands.append(
                Command(
                    text: text, line: start + 1, expected: expected.map(trimmingTrailingSpace),
                    outputLines: outputStart..<outputEnd))
        }
        return commands
    }
}

public enum TranscriptError: Error, CustomStringConvertible, Equatable {
    /// The page is not a transcript as docs/architecture.md describes it: PATH, 1-based line, what is wrong.
    case format(String, Int, String)
    /// The outputs of two runs differ in a way no placeholder covers: PATH, line of the command, the two lines.
    case varies(String, Int, String, String)
    /// A page could not be run at all.
    case run(String, String)

    public var description: String {
        switch self {
        case .format(let path, let line, let message): return "\(path):\(line): \(message)"
        case .varies(let path, let line, let first, let second):
            return "\(path):\(line): the output varies between runs in a way no placeholder covers "
                + "(\(Placeholder.names)); make the page or the command deterministic:\n  run 1: \(first)\n  run 2: \(second)"
        case .run(let path, let message): return "\(path): \(message)"
        }
    }
}

/// Whether bash would read more lines to finish a command: an open quote, heredoc, brace or `if`, or a
/// trailing backslash. Asked of bash itself (`bash -n`), so the page follows the shell's grammar exactly.
public enum BashSyntax {
    public static func isComplete(_ command: String) -> Bool {
        if command.hasSuffix("\\") { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-n", "-c", command]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return true }
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        return !["unexpected EOF", "unexpected end of file", "delimited by end-of-file"].contains {
            text.contains($0)
        }
    }
}

/// A line as a page can show it: editors and Markdown drop spaces at line ends, so neither side keeps them.
func trimmingTrailingSpace(_ line: String) -> String {
    var line = Substring(line)
    while let last = line.last, last == " " || last == "\t" || last == "\r" { line.removeLast() }
    return String(line)
}
