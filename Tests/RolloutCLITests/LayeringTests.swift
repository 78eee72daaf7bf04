import Foundation
import XCTest

/// The layers of docs/architecture.md ("Layers and targets"), kept honest by one rule: a target
/// imports only the modules its Package.swift entry declares (or the platform's own). The rule reads
/// Package.swift itself, and holds the page's table to it (every target, its dependencies, each
/// below what it depends on), so the list a newcomer reads cannot drift from the one the build reads;
/// the parsing is deliberately plain because Package.swift is ours and written one target per call.
/// That no other target reaches libgit2 is the compiler's to keep: `GitRepository` is internal to
/// RolloutStore.
final class LayeringTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Modules of the toolchain and the operating system, which no target declares.
    private static let platformModules: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Dispatch",
        "Glibc", "Musl", "Darwin", "Android", "WinSDK", "CryptoKit", "XCTest",
    ]

    func testEveryTargetImportsOnlyWhatPackageSwiftDeclaresForIt() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let targets = Self.targets(in: manifest)
        XCTAssertTrue(targets.contains { $0.name == "RolloutCLI" }, "Package.swift was read: \(targets.map(\.name))")
        var problems: [String] = []
        for target in targets {
            let allowed = target.dependencies.union(Self.platformModules).union([target.name])
            for (file, module) in try Self.imports(under: Self.root.appendingPathComponent(target.directory))
            where !allowed.contains(module) {
                problems.append("\(file) imports \(module), which Package.swift does not declare for \(target.name)")
            }
        }
        XCTAssertEqual(
            problems, [], "declare the dependency in Package.swift (and docs/architecture.md), or drop the import")
    }

    /// docs/architecture.md ("Layers and targets") lists every target of Package.swift with the same
    /// dependencies, each below the targets it depends on: the table a newcomer reads is the manifest.
    func testTheArchitecturePageListsEveryTargetWithItsDependencies() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let rows = Self.layerRows(in: page)
        XCTAssertTrue(rows.contains { $0.name == "RolloutCLI" }, "the table was read: \(rows.map(\.name))")
        var problems: [String] = []
        for target in Self.targets(in: manifest) {
            guard let row = rows.firstIndex(where: { $0.name == target.name }) else {
                problems.append("\(target.name) has no row")
                continue
            }
            if rows[row].dependencies != target.dependencies {
                problems.append(
                    "\(target.name): the page lists \(rows[row].dependencies.sorted()), Package.swift declares \(target.dependencies.sorted())"
                )
            }
            for dependency in target.dependencies where !rows[..<row].contains(where: { $0.name == dependency }) {
                problems.append("\(target.name) is listed above \(dependency), which it depends on")
            }
        }
        XCTAssertEqual(problems, [], "docs/architecture.md, Layers and targets")
    }

    func testTheRuleSeesAnUndeclaredImportAndIgnoresCodeInStrings() {
        let targets = Self.targets(
            in: """
                .target(name: "A", dependencies: [.target(name: "C", condition: .when(platforms: [.linux]))]),
                .executableTarget(
                    name: "B",
                    dependencies: ["A"], path: "bench/b"),
                """)
        XCTAssertEqual(targets.map(\.name), ["A", "B"])
        XCTAssertEqual(targets.map(\.dependencies), [["C"], ["A"]])
        XCTAssertEqual(targets.map(\.directory), ["Sources/A", "bench/b"])
        let source =
            "import A\n@testable import B\n#if canImport(Glibc)\nimport Glibc\n#endif\nlet s = \"\"\"\n    import sys\n    \"\"\"\n"
        XCTAssertEqual(Self.importedModules(source), ["A", "B", "Glibc"])
    }

    // MARK: - Reading Package.swift and sources

    struct DeclaredTarget {
        let name: String
        let directory: String
        let dependencies: Set<String>
    }

    /// Every `.target(`, `.testTarget(` and `.executableTarget(` call that starts a line: its name,
    /// its directory (`path:`, else Sources/NAME or Tests/NAME) and the quoted names in `dependencies: [...]`.
    static func targets(in manifest: String) -> [DeclaredTarget] {
        let kinds = [".target(": "Sources/", ".executableTarget(": "Sources/", ".testTarget(": "Tests/"]
        var targets: [DeclaredTarget] = []
        var rest = Substring(manifest)
        while let line = rest.firstIndex(where: { !$0.isWhitespace }) {
            rest = rest[line...]
            if let kind = kinds.first(where: { rest.hasPrefix($0.key) }) {
                let call = balanced(rest.dropFirst(kind.key.count - 1), open: "(", close: ")")
                if let name = quoted(after: "name:", in: call) {
                    let dependencies = call.range(of: "dependencies:").map {
                        quotedNames(in: balanced(call[$0.upperBound...].drop { $0 != "[" }, open: "[", close: "]"))
                    }
                    targets.append(
                        DeclaredTarget(
                            name: name, directory: quoted(after: "path:", in: call) ?? kind.value + name,
                            dependencies: Set(dependencies ?? [])))
                }
            }
            guard let end = rest.firstIndex(of: "\n") else { break }
            rest = rest[rest.index(after: end)...]
        }
        return targets
    }

    /// `text` from its first character (`open`) to the matching `close`.
    static func balanced(_ text: Substring, open: Character, close: Character) -> Substring {
        var depth = 0
        for index in text.indices {
            if text[index] == open { depth += 1 }
            if text[index] == close { depth -= 1 }
            if depth == 0 { return text[...index] }
        }
        return text
    }

    /// The rows of the table under "## Layers and targets": each target's name and the names in
    /// backquotes of its "depends on" cell, up to a `;` or ` (` (what follows is a plugin or a note, such
    /// as why RolloutCLI does not depend on RolloutClient).
    static func layerRows(in page: String) -> [(name: String, dependencies: Set<String>)] {
        let section = page.components(separatedBy: "\n## Layers and targets\n").dropFirst().first ?? ""
        return section.split(separator: "\n").prefix { !$0.hasPrefix("#") }.filter { $0.hasPrefix("| `") }.compactMap {
            line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count > 4, let name = quotedNames(in: cells[1], quote: "`").first else { return nil }
            let listed = cells[3].prefix { $0 != ";" }
            let beforeNote = listed.range(of: " (").map { listed[..<$0.lowerBound] } ?? listed
            return (name, Set(quotedNames(in: beforeNote, quote: "`")))
        }
    }

    static func quotedNames(in text: Substring, quote: Character = "\"") -> [String] {
        text.split(separator: quote, omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
    }

    static func quoted(after label: String, in text: Substring) -> String? {
        guard let range = text.range(of: label + " \"") else { return nil }
        return text[range.upperBound...].prefix { $0 != "\"" }.description
    }

    static func swiftFiles(under directory: URL) throws -> [(String, String)] {
        guard let walk = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            return []
        }
        return try walk.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.map { file in
            (String(file.path.dropFirst(root.path.count + 1)), try String(contentsOf: file, encoding: .utf8))
        }.sorted { $0.0 < $1.0 }
    }

    static func imports(under directory: URL) throws -> [(String, String)] {
        try swiftFiles(under: directory).flatMap { file, text in importedModules(text).map { (file, $0) } }
    }

    /// The module of every `import` line, skipping lines inside multi-line string literals (tests
    /// hold Python and Swift programs there).
    static func importedModules(_ source: String) -> [String] {
        var inString = false
        var modules: [String] = []
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let quotes = line.components(separatedBy: "\"\"\"").count - 1
            defer { if quotes % 2 == 1 { inString.toggle() } }
            guard !inString else { continue }
            let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
            guard let index = words.firstIndex(of: "import"), words[..<index].allSatisfy(Self.accessWords.contains),
                let module = words.dropFirst(index + 1).first(where: { !Self.importKinds.contains($0) })
            else { continue }
            modules.append(String(module.prefix { $0 != "." }))
        }
        return modules
    }

    /// What may stand before `import`: an access level (after attributes such as `@testable`).
    private static let accessWords: Set<Substring> = ["public", "package", "internal", "private", "fileprivate"]
    /// What may stand after it, before the module: `import struct Foundation.URL`.
    private static let importKinds: Set<Substring> = [
        "struct", "class", "enum", "protocol", "typealias", "func", "let", "var",
    ]
}
