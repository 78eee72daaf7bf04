import Foundation
import RolloutCLI
import RolloutDevice
import XCTest

struct RunResult {
    let status: Int32
    let stdout: String
    let stderr: String

    var output: String { stdout + stderr }
}

/// A temporary directory that disappears with the test.
final class Scratch {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("rollout-e2e-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func path(_ relative: String) -> String { root + "/" + relative }

    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String { try write(relative, Data(text.utf8)) }

    @discardableResult
    func write(_ relative: String, _ data: Data) throws -> String {
        let full = path(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: full))
        return full
    }
}

enum Fixtures {
    /// Tests/Fixtures in the source tree.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path
    /// examples/packs in the source tree: the packs the README and the quickstart use.
    static let examplePacks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples/packs").path

    static func examplePack(_ name: String) -> String { examplePacks + "/" + name + ".json" }
    static var allExamplePacks: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: examplePacks)) ?? []).filter { $0.hasSuffix(".json") }
            .sorted()
            .map { examplePacks + "/" + $0 }
    }
}

/// Runs real processes: the built `rollout` binary and git.
enum Processes {
    /// The products directory holds both the test bundle and the `rollout` executable.
    static let rolloutBinary: String = {
        if let explicit = ProcessInfo.processInfo.environment["ROLLOUT_BIN"] { return explicit }
        let candidates = [
            Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        for directory in candidates {
            let binary = directory.appendingPathComponent("rollout").path
            if FileManager.default.isExecutableFile(atPath: binary) { return binary }
        }
        fatalError("cannot find the rollout binary next to the tests; set ROLLOUT_BIN")
    }()

    /// The environment every test starts from: no user config, no inherited repository, a fixed actor.
    static func baseEnvironment(home: String) -> [String: String] {
        var env: [String: String] = [:]
        for key in ["PATH", "LANG", "LC_ALL", "TMPDIR", "LLVM_PROFILE_FILE"] {
            if let value = ProcessInfo.processInfo.environment[key] { env[key] = value }
        }
        env["HOME"] = home
        env["XDG_CONFIG_HOME"] = home + "/.config"
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["ROLLOUT_ACTOR"] = "Test Runner <test@example.com>"
        return env
    }

    static func run(_ executable: String, _ arguments: [String], in directory: String, environment: [String: String])
        throws -> RunResult
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = environment
        // Files, not pipes: a child that writes a lot can never block on a full pipe.
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)")
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("err-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return RunResult(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

/// Runs rollout's commands inside the test process through `RolloutCLI.run`, the seam the binary's
/// `main` calls: what a process would print, without starting one.
enum InProcess {
    /// `rollout ARGUMENTS` in `directory` with `environment`, as the binary runs it when neither
    /// stream is a terminal: progress and warnings first, in the order written, then the result's
    /// stderr. `rollout device` runs here too (the table rollout-device uses), never by exec, which
    /// would replace the test process.
    static func run(_ arguments: [String], in directory: String, environment: [String: String]) -> RunResult {
        let diagnostics = Diagnostics()
        var context = CommandContext.live()
        context.environment = environment
        context.workingDirectory = directory
        context.stdinIsTerminal = false
        context.stdoutIsTerminal = false
        context.stderrIsTerminal = false
        context.diagnostics = { diagnostics.append($0) }
        context.standardInput = { [] }
        let result = RolloutCLI.run(arguments, context: context, commands: RolloutDevice.commands)
        HelpListsExitCode.check(arguments, status: result.exitCode, command: result.command)
        return RunResult(status: result.exitCode, stdout: result.stdout, stderr: diagnostics.text + result.stderr)
    }

    /// What a command wrote to stderr. `@unchecked Sendable`: `lock` guards `written`.
    private final class Diagnostics: @unchecked Sendable {
        private let lock = NSLock()
        private var written = ""

        func append(_ text: String) { lock.withLock { written += text } }
        var text: String { lock.withLock { written } }
    }
}

/// A scratch directory with helpers to drive `rollout` and git in it.
/// `@unchecked Sendable`: confined to its test, which sets `environment` before it runs commands on
/// several threads at once (`simultaneously`); those only read it.
final class Workspace: @unchecked Sendable {
    let scratch: Scratch
    var environment: [String: String]
    /// Whether `rollout(...)` starts the built binary (true) or runs the command in this process.
    /// Tests about the process itself (exit status as a shell sees it, streams, signals, several
    /// processes at once, the binary's start-up) say `Workspace(process: true)`.
    let process: Bool

    init(process: Bool = false) throws {
        scratch = try Scratch()
        self.process = process
        try FileManager.default.createDirectory(atPath: scratch.path("home"), withIntermediateDirectories: true)
        environment = Processes.baseEnvironment(home: scratch.path("home"))
    }

    var root: String { scratch.root }
    /// The repository `init()` (no argument) makes.
    var repository: String { scratch.path("work/.rollout") }
    var work: String { scratch.path("work") }

    @discardableResult
    func rollout(_ arguments: String..., in directory: String? = nil, env: [String: String] = [:]) throws -> RunResult {
        try rollout(arguments, in: directory, env: env)
    }

    @discardableResult
    func rollout(_ arguments: [String], in directory: String? = nil, env: [String: String] = [:]) throws -> RunResult {
        let cwd = directory ?? work
        try FileManager.default.createDirectory(atPath: cwd, withIntermediateDirectories: true)
        let environment = environment.merging(env) { $1 }
        guard process else { return InProcess.run(arguments, in: cwd, environment: environment) }
        let result = try Processes.run(Processes.rolloutBinary, arguments, in: cwd, environment: environment)
        HelpListsExitCode.check(arguments, status: result.status, command: RolloutCLI.command(namedBy: arguments))
        return result
    }

    /// Runs git with the repository as GIT_DIR.
    func git(_ arguments: String..., repository: String? = nil) throws -> RunResult {
        try Processes.run(
            "/usr/bin/env", ["git", "--git-dir", repository ?? self.repository] + arguments, in: root,
            environment: environment)
    }

    /// `rollout init` then `pack add` of every example pack, asserting both worked.
    func initWithExamples(file: StaticString = #filePath, line: UInt = #line) throws {
        let created = try rollout("init")
        XCTAssertEqual(created.status, 0, created.output, file: file, line: line)
        let added = try rollout(["pack", "add"] + Fixtures.allExamplePacks)
        XCTAssertEqual(added.status, 0, added.output, file: file, line: line)
    }

    /// A new version of an example pack, written to the scratch directory without its checksum
    /// (pack add computes it): `contentVersion` set to `version`, each `changes` pair replaced.
    func packVariant(of name: String, version: Int, replacing changes: [(String, String)] = []) throws -> String {
        let id = name.split(separator: "@")[0]
        var text = try String(contentsOfFile: Fixtures.examplePack(name), encoding: .utf8)
            .replacingOccurrences(
                of: "\"contentVersion\": \(name.split(separator: "@")[1])", with: "\"contentVersion\": \(version)")
        for (old, new) in changes { text = text.replacingOccurrences(of: old, with: new) }
        return try scratch.write(
            "\(id)@\(version).json",
            text.split(separator: "\n").filter { !$0.contains("\"checksum\"") }.joined(separator: "\n"))
    }

    /// The commit the state ref points at.
    func stateTip() throws -> String {
        try git("rev-parse", "refs/heads/main").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func json(_ result: RunResult, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return try XCTUnwrap(object, "stdout is not a JSON object: \(result.output)", file: file, line: line)
    }

    func assertFsckClean(file: StaticString = #filePath, line: UInt = #line) throws {
        let fsck = try git("fsck", "--strict", "--no-dangling")
        XCTAssertEqual(fsck.status, 0, fsck.output, file: file, line: line)
        XCTAssertFalse(fsck.output.contains("error"), fsck.output, file: file, line: line)
    }
}

/// Runs `body` for 0..<count on that many threads at once (not limited to the core count, so
/// processes really overlap), and returns the results in index order.
func simultaneously<T>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    let results = ConcurrentResults<T>()
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread.detachNewThread {
            let value = body(index)
            results.lock.lock()
            results.values[index] = value
            results.lock.unlock()
            group.leave()
        }
    }
    group.wait()
    return (0..<count).map { results.values[$0]! }
}

/// `simultaneously`'s results. `@unchecked Sendable`: `lock` guards `values` while the bodies run; they
/// are read only after the group is waited on.
private final class ConcurrentResults<T>: @unchecked Sendable {
    let lock = NSLock()
    var values: [Int: T] = [:]
}
