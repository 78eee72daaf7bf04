import Foundation

/// Checks a page against a real run of its commands, and rewrites its outputs from one (docs/architecture.md,
/// "Docs are tests"). A page's sections run at the same time, each in its own directory and shell.
public enum Transcripts {
    /// A command whose output differs from what the page shows.
    public struct Mismatch: Sendable, CustomStringConvertible {
        public var path: String
        public var command: TranscriptPage.Command
        public var actual: [String]

        public var description: String {
            "\(path):\(command.line): $ \(command.text.split(separator: "\n").first ?? "")\n"
                + Self.diff(expected: command.expected, actual: actual)
        }

        /// The page's lines against the run's, `-` for the page, `+` for the run, LCS-aligned.
        static func diff(expected: [String], actual: [String]) -> String {
            let n = expected.count
            let m = actual.count
            var table = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
            for i in stride(from: n - 1, through: 0, by: -1) {
                for j in stride(from: m - 1, through: 0, by: -1) {
                    table[i][j] =
                        Placeholder.matches(expected: expected[i], actual: actual[j])
                        ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
                }
            }
            var lines: [String] = []
            var i = 0
            var j = 0
            while i < n || j < m {
                if i < n, j < m, Placeholder.matches(expected: expected[i], actual: actual[j]) {
                    lines.append("   " + expected[i])
                    i += 1
                    j += 1
                } else if j < m && (i == n || table[i][j + 1] >= table[i + 1][j]) {
                    lines.append(" + " + actual[j])
                    j += 1
                } else {
                    lines.append(" - " + expected[i])
                    i += 1
                }
            }
            return lines.joined(separator: "\n")
        }
    }

    /// The page at `path`, relative to `root` (named by that relative path in every message).
    public static func load(_ path: String, root: String = ".") throws -> TranscriptPage {
        let file = path.hasPrefix("/") ? path : root + "/" + path
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        return try TranscriptPage(path: path, text: String(decoding: data, as: UTF8.self))
    }

    /// Every command of the page whose run does not print what the page shows.
    public static func check(_ page: TranscriptPage, in environment: TranscriptEnvironment) throws -> [Mismatch] {
        let outputs = try run(page, in: environment)
        var mismatches: [Mismatch] = []
        for (section, results) in zip(page.sections, outputs) {
            let commands = section.flatMap(\.commands)
            for (command, actual) in zip(commands, results) where !matches(command.expected, actual) {
                mismatches.append(Mismatch(path: page.path, command: command, actual: actual))
            }
        }
        return mismatches
    }

    /// The page's text with every command's output as two runs print it, placeholders where they differ
    /// in a value of a placeholder's shape. Commands, prose and other blocks are kept byte for byte.
    public static func update(_ page: TranscriptPage, in environment: TranscriptEnvironment) throws -> String {
        let runs = try concurrentMap([0, 1]) { _ in try run(page, in: environment) }
        var lines = page.lines
        var replacements: [(TranscriptPage.Command, String, [String])] = []
        for (index, section) in page.sections.enumerated() {
            let blocks = section.flatMap { block in block.commands.map { (block.indent, $0) } }
            for ((indent, command), (first, second)) in zip(blocks, zip(runs[0][index], runs[1][index])) {
                replacements.append((command, indent, try template(first, second, command: command, path: page.path)))
            }
        }
        for (command, indent, output) in replacements.reversed() {
            lines.replaceSubrange(command.outputLines, with: output.map { $0.isEmpty ? $0 : indent + $0 })
        }
        let text = lines.joined(separator: "\n") + "\n"
        let reread = try TranscriptPage(path: page.path, text: text)
        guard reread.commandCount == page.commandCount else {
            throw TranscriptError.run(
                page.path, "an output line starts with `$ ` or closes the block, so the page would read differently")
        }
        return text
    }

    /// What each section's commands printed, section by section.
    public static func run(_ page: TranscriptPage, in environment: TranscriptEnvironment) throws -> [[[String]]] {
        let shell = TranscriptShell(environment: environment)
        return try concurrentMap(page.sections) { section in
            try shell.run(section.flatMap(\.commands), path: page.path)
        }
    }

    /// Whether a run's output is what the page shows, placeholders standing for values of their shape.
    public static func matches(_ expected: [String], _ actual: [String]) -> Bool {
        expected.count == actual.count
            && zip(expected, actual).allSatisfy { Placeholder.matches(expected: $0, actual: $1) }
    }

    private static func template(_ first: [String], _ second: [String], command: TranscriptPage.Command, path: String)
        throws -> [String]
    {
        guard first.count == second.count else {
            throw TranscriptError.varies(
                path, command.line, "\(first.count) lines", "\(second.count) lines")
        }
        return try zip(first, second).map { a, b in
            guard let line = Placeholder.template(a, b) else { throw TranscriptError.varies(path, command.line, a, b) }
            return line
        }
    }

    /// `transform` over every element at once, results in order, the first error thrown.
    public static func concurrentMap<T: Sendable, R>(_ items: [T], _ transform: @Sendable (T) throws -> R) throws -> [R]
    {
        let results = Results<R>(count: items.count)
        DispatchQueue.concurrentPerform(iterations: items.count) { index in
            results.set(index, Result { try transform(items[index]) })
        }
        return try results.values()
    }

    /// Written by one iteration each, read after all have finished; the lock orders the writes.
    /// `@unchecked Sendable`: `lock` guards `slots`.
    private final class Results<R>: @unchecked Sendable {
        private let lock = NSLock()
        private var slots: [Result<R, Error>?]

        init(count: Int) { slots = Array(repeating: nil, count: count) }

        func set(_ index: Int, _ result: Result<R, Error>) {
            lock.lock()
            slots[index] = result
            lock.unlock()
        }

        func values() throws -> [R] {
            lock.lock()
            defer { lock.unlock() }
            return try slots.map { try $0!.get() }
        }
    }
}

/// The pages that are transcripts: the README and every page of docs/.
public enum TranscriptPages {
    /// Their paths relative to the repository's root.
    public static func all(in root: String) -> [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root + "/docs")) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }
}
