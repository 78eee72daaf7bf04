import Foundation
import Transcripts

// `transcripts check|update|play [PAGE...] [--bin DIR] [--keep DIR]` (docs/architecture.md, "Docs are tests").
// `make docs-update` runs `transcripts update`; the test suite checks every page through the same library.
let usage = """
    usage: transcripts check [PAGE...]    run every console block and compare it with the page (default: README.md, docs/*.md)
           transcripts update [PAGE...]   rewrite the pages' outputs from two real runs (placeholders where they differ)
           transcripts play PAGE          run the page and print each command and what it printed
    options: --bin DIR   the built rollout (default: this program's folder)
             --keep DIR  play: keep the last section's directory there (the report it wrote, for one)
    """
var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(index...(index + 1)) }
    return arguments[index + 1]
}
// Absolute: the pages run in scratch directories, where a relative PATH entry would name nothing.
let binDirectory =
    option("--bin").map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    .deletingLastPathComponent().path
let keep = option("--keep")
guard let action = arguments.first, ["check", "update", "play"].contains(action) else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(64)
}
let root = FileManager.default.currentDirectoryPath
var environment = TranscriptEnvironment.repository(root, binDirectory: binDirectory)
environment.keepWork = keep
let pages = arguments.count > 1 ? Array(arguments.dropFirst()) : TranscriptPages.all(in: root)

do {
    switch action {
    case "update":
        let loaded = try pages.map { try Transcripts.load($0) }
        let texts = try Transcripts.concurrentMap(loaded) { [environment] in
            try Transcripts.update($0, in: environment)
        }
        for (page, text) in zip(loaded, texts) {
            try text.write(toFile: page.path, atomically: true, encoding: .utf8)
            print("\(page.path): \(page.blockCount) blocks, \(page.commandCount) commands written from a run")
        }
    case "play":
        var differ = 0
        for path in pages {
            let page = try Transcripts.load(path)
            let outputs = try Transcripts.run(page, in: environment)
            for (section, results) in zip(page.sections, outputs) {
                for (command, output) in zip(section.flatMap(\.commands), results) {
                    print("\u{1B}[1m$ \(command.text)\u{1B}[0m")
                    // The kept directory by its name, where a check would write [dir].
                    let shown = keep.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? "[dir]"
                    output.forEach { print($0.replacingOccurrences(of: "[dir]", with: shown)) }
                    if !Transcripts.matches(command.expected, output) {
                        differ += 1
                        print("\u{1B}[31m(not what \(path):\(command.line) shows)\u{1B}[0m")
                    }
                }
            }
        }
        if differ > 0 {
            print(
                "\(differ) command(s) printed something else than the page shows: make docs-update, then review the diff"
            )
            exit(1)
        }
    default:
        let loaded = try pages.map { try Transcripts.load($0) }
        let results = try Transcripts.concurrentMap(loaded) { [environment] in
            try Transcripts.check($0, in: environment)
        }
        let mismatches = results.flatMap { $0 }
        mismatches.forEach { print($0, terminator: "\n\n") }
        let blocks = loaded.reduce(0) { $0 + $1.blockCount }
        let commands = loaded.reduce(0) { $0 + $1.commandCount }
        print(
            "\(loaded.count) pages, \(blocks) console blocks, \(commands) commands: "
                + (mismatches.isEmpty ? "every output as the page shows it" : "\(mismatches.count) differ"))
        exit(mismatches.isEmpty ? 0 : 1)
    }
} catch {
    FileHandle.standardError.write(Data("transcripts: \(error)\n".utf8))
    exit(1)
}
