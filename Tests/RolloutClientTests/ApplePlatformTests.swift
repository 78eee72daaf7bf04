import Foundation
import RolloutCrypto
import RolloutModel
import XCTest

/// What can be proven on Linux about the Apple builds (docs/client.md "Apple platforms"): the
/// CryptoKit branch of RolloutCrypto compiles and gives the same bytes as the OpenSSL one, the model
/// and the client build against it with no C library, and no file names a platform module outside
/// the `#if canImport` branch that makes it exist.
final class ApplePlatformTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// RolloutCrypto compiled against Tests/AppleStandIns/CryptoKit.swift (CryptoKit's public
    /// signatures, over OpenSSL) with no OpenSSL module on the search path, so that only its
    /// `#if canImport(CryptoKit)` branch can compile; RolloutModel built on it; RolloutClient's module
    /// and symbol graph, with the Darwin branch of its platform imports taken (Tests/AppleStandIns/
    /// Darwin.swift) and its URLSession code checked against Apple's declarations (Tests/AppleStandIns/
    /// FoundationNetworking.swift); and the vector runner. Built once, in a scratch directory, for the
    /// tests below.
    static let appleBuild = Result(catching: { try buildAgainstTheCryptoKitStandIn() })

    override class func tearDown() {
        if case .success(let directory) = appleBuild { try? FileManager.default.removeItem(atPath: directory) }
        super.tearDown()
    }

    /// The SHA-256, Ed25519, HMAC, pack checksum and bucketing vectors through the CryptoKit branch:
    /// the bytes an iPhone computes are the bytes the server computed.
    func testTheCryptoKitBranchBuildsWithoutOpenSSLAndPassesTheVectors() throws {
        let out = try Self.appleBuild.get()
        // The library calls CryptoKit's types and no OpenSSL function.
        let library = try Data(contentsOf: URL(fileURLWithPath: "\(out)/libRolloutCrypto.a"))
        XCTAssertNotNil(library.range(of: Data("9CryptoKit10Curve25519".utf8)))
        XCTAssertNotNil(library.range(of: Data("9CryptoKit6SHA256".utf8)))
        XCTAssertNil(library.range(of: Data("EVP_".utf8)))
        let report = try Self.run("\(out)/crypto-vectors", [Self.root.appendingPathComponent("Tests/Fixtures").path])
        XCTAssertTrue(report.hasSuffix(" checks, 0 failed\n"), report)
        XCTAssertGreaterThanOrEqual(Int(report.split(separator: " ").first ?? "") ?? 0, 60, report)
    }

    /// `make docs` in miniature: the DocC catalog converts with RolloutClient's symbol graph, every
    /// link resolving (a renamed method breaks it here first).
    func testTheDocCCatalogBuildsWithEveryLinkResolved() throws {
        let out = try Self.appleBuild.get()
        let docc = try XCTUnwrap(Self.findTool("docc"), "docc is not on PATH (it ships with the Swift toolchain)")
        try Self.run(
            docc,
            [
                "convert", Self.root.appendingPathComponent("Sources/RolloutClient/RolloutClient.docc").path,
                "--additional-symbol-graph-dir", "\(out)/symbol-graphs", "--output-path",
                "\(out)/RolloutClient.doccarchive",
                "--fallback-display-name", "RolloutClient", "--fallback-bundle-identifier", "rollout.RolloutClient",
                "--warnings-as-errors",
            ])
        for page in [
            "rolloutclient", "rolloutclient/gettingstarted", "rolloutclient/rolloutclient/string(_:_:fallback:)",
        ] {
            XCTAssertTrue(
                FileManager.default.fileExists(
                    atPath: "\(out)/RolloutClient.doccarchive/documentation/\(page)/index.html"), page)
        }
    }

    static func buildAgainstTheCryptoKitStandIn() throws -> String {
        guard let swiftc = findTool("swiftc") else {
            throw CommandFailed(description: "swiftc is not on PATH: the Apple-branch build cannot run")
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("rollout-apple-\(UUID().uuidString)")
            .path
        for folder in ["symbol-graphs", "darwin", "networking"] {
            try FileManager.default.createDirectory(atPath: "\(out)/\(folder)", withIntermediateDirectories: true)
        }
        let root = Self.root.path

        func module(_ name: String, _ sources: [String], extra: [String] = []) -> [String] {
            ["-parse-as-library", "-emit-module", "-wmo", "-module-name", name, "-I", out] + extra + sources
                + ["-emit-module-path", "\(out)/\(name).swiftmodule"]
        }
        func library(_ name: String, _ sources: [String], extra: [String] = []) -> [String] {
            module(name, sources, extra: extra) + ["-emit-library", "-static", "-o", "\(out)/lib\(name).a"]
        }
        // Built resilient, as Apple's frameworks are; the OpenSSL it runs on stays an internal import.
        try run(
            swiftc,
            library(
                "CryptoKit", ["\(root)/Tests/AppleStandIns/CryptoKit.swift"],
                extra: ["-enable-library-evolution", "-suppress-warnings", "-I", "\(root)/Sources/CCrypto"]))
        let darwin = try start(
            swiftc,
            ["-parse-as-library", "-emit-module", "-module-name", "Darwin", "\(root)/Tests/AppleStandIns/Darwin.swift"]
                + ["-emit-module-path", "\(out)/darwin/Darwin.swiftmodule"])
        let networking = try start(
            swiftc,
            ["-parse-as-library", "-emit-module", "-module-name", "FoundationNetworking"]
                + ["\(root)/Tests/AppleStandIns/FoundationNetworking.swift"]
                + ["-emit-module-path", "\(out)/networking/FoundationNetworking.swiftmodule"])
        try run(swiftc, library("RolloutCrypto", try swiftFiles("Sources/RolloutCrypto")))
        try run(swiftc, library("RolloutModel", try swiftFiles("Sources/RolloutModel")))
        try finish(darwin)
        try finish(networking)
        // With Darwin's branch of every platform #if taken, and Apple's URLSession declarations.
        let client = try start(
            swiftc,
            module("RolloutClient", try swiftFiles("Sources/RolloutClient"), extra: clientSearchPaths(out))
                + ["-emit-symbol-graph", "-emit-symbol-graph-dir", "\(out)/symbol-graphs"])
        try run(
            swiftc,
            ["-module-name", "CryptoVectors", "-I", out, "\(root)/Tests/AppleStandIns/main.swift", "-L", out]
                + ["-lRolloutModel", "-lRolloutCrypto", "-lCryptoKit", "-lcrypto", "-o", "\(out)/crypto-vectors"])
        try finish(client)
        return out
    }

    /// Where RolloutClient's Apple build finds Darwin and FoundationNetworking: the stand-ins, ahead of
    /// the toolchain's own modules (a search path given with -I is looked in first).
    static func clientSearchPaths(_ out: String) -> [String] { ["-I", "\(out)/darwin", "-I", "\(out)/networking"] }

    /// A delegate method that nearly matches URLSession's (what compiles on Apple platforms with at
    /// most a warning, and is then never called: the redirect rule or the size limit silently gone)
    /// fails the Apple build. Each near-miss is made in a copy of the client's sources, which the
    /// toolchain's own FoundationNetworking accepts (its delegate methods have defaults, as Apple's
    /// are optional): only the stand-in catches it.
    func testANearMissDelegateMethodFailsTheAppleBuild() throws {
        let out = try Self.appleBuild.get()
        let swiftc = try XCTUnwrap(Self.findTool("swiftc"))
        let transport = Self.root.appendingPathComponent("Sources/RolloutClient/Transport.swift").path
        let source = try String(contentsOfFile: transport, encoding: .utf8)
        let nearMisses = [
            (
                "willPerformHTTPRedirection response: HTTPURLResponse",
                "willPerformHTTPRedirection response: URLResponse"
            ),
            (
                "completionHandler: @escaping @Sendable (URLRequest?) -> Void",
                "completion completionHandler: @escaping @Sendable (URLRequest?) -> Void"
            ),
            ("dataTask: URLSessionDataTask, didReceive data: Data", "dataTask: URLSessionTask, didReceive data: Data"),
        ]
        for (exact, nearMiss) in nearMisses {
            XCTAssertEqual(source.components(separatedBy: exact).count, 2, "Transport.swift no longer has \(exact)")
            let copy = "\(out)/near-miss-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: copy) }
            var files: [String] = []
            for file in try Self.swiftFiles("Sources/RolloutClient") {
                let name = "\(copy)/\((file as NSString).lastPathComponent)"
                let text = try String(contentsOfFile: file, encoding: .utf8)
                try (file == transport ? text.replacingOccurrences(of: exact, with: nearMiss) : text)
                    .write(toFile: name, atomically: true, encoding: .utf8)
                files.append(name)
            }
            let typecheck = ["-parse-as-library", "-typecheck", "-module-name", "RolloutClient", "-I", out]
            try Self.run(swiftc, typecheck + ["-I", "\(out)/darwin", "-suppress-warnings"] + files)
            let build = try Self.start(swiftc, typecheck + Self.clientSearchPaths(out) + files)
            do {
                let output = try Self.finish(build)
                XCTFail("\(nearMiss): the Apple build passed\n\(output)")
            } catch let failed as CommandFailed {
                // Refused for the conformance (not conformance), or for the one requirement (labels).
                XCTAssertTrue(
                    failed.description.contains("protocol 'URLSession"), "\(nearMiss): \(failed.description)")
            }
        }
    }

    /// The same Ed25519 and SHA-256 vectors on the OpenSSL branch, the one this build uses: the two
    /// backends agree because both match the RFCs.
    func testTheOpenSSLBranchPassesTheSameVectors() throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("Tests/Fixtures/crypto-vectors.json"))
        let vectors = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for vector in try XCTUnwrap(vectors["sha256"] as? [[String: Any]]) {
            let text = Array(try XCTUnwrap(vector["text"] as? String).utf8)
            let input = (0..<text.count * (try XCTUnwrap(vector["repeat"] as? Int))).map { text[$0 % text.count] }
            XCTAssertEqual(SHA256.hex(input), vector["digest"] as? String, "\(vector["name"] ?? "")")
        }
        let signed = try XCTUnwrap(vectors["ed25519"] as? [[String: String]])
        XCTAssertEqual(signed.count, 3)
        for vector in signed {
            let key = try XCTUnwrap(Ed25519.PublicKey(raw: Self.bytes(hex: vector["publicKey"] ?? "")))
            let message = Self.bytes(hex: vector["message"] ?? "")
            var signature = Self.bytes(hex: vector["signature"] ?? "")
            XCTAssertTrue(key.verify(signature, for: message), vector["name"] ?? "")
            signature[40] ^= 0x01
            XCTAssertFalse(key.verify(signature, for: message), vector["name"] ?? "")
        }
    }

    /// Every `Glibc`, `Darwin` or `Musl` in Sources/ (an import or a qualified name) sits inside an
    /// `#if canImport` branch for that module, and a chain that imports Glibc also has Darwin and
    /// Musl branches: a file that builds on Linux then builds on Apple platforms and on musl.
    func testPlatformModulesAppearOnlyInsideTheirCanImportBranches() throws {
        var problems: [String] = []
        var files = 0
        let sources = Self.root.appendingPathComponent("Sources")
        let walker = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path))
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            files += 1
            let text = try String(contentsOf: sources.appendingPathComponent(relative), encoding: .utf8)
            problems += PlatformGuards.problems(in: text).map { "Sources/\(relative):\($0)" }
        }
        XCTAssertGreaterThan(files, 50)
        XCTAssertEqual(problems, [])
    }

    /// The checker itself: it must catch what this issue fixed, and not be fooled by comments,
    /// strings or negated conditions.
    func testThePlatformGuardCheckerFindsUnguardedUses() {
        XCTAssertEqual(
            PlatformGuards.problems(
                in: """
                    import Foundation
                    #if canImport(Glibc)
                    import Glibc
                    #endif
                    func f() { _ = Glibc.write(1, nil, 0) }
                    """),
            [
                "2: an #if chain with canImport(Glibc) has no canImport(Darwin) branch",
                "2: an #if chain with canImport(Glibc) has no canImport(Musl) branch",
                "5: Glibc outside an #if canImport(Glibc) branch",
            ])
        XCTAssertEqual(
            PlatformGuards.problems(
                in: """
                    #if canImport(Darwin)
                    import Glibc
                    #elseif !canImport(Musl)
                    let m = Musl.errno
                    #else
                    let d = Darwin.errno
                    #endif
                    """),
            [
                "2: Glibc outside an #if canImport(Glibc) branch", "4: Musl outside an #if canImport(Musl) branch",
                "6: Darwin outside an #if canImport(Darwin) branch",
            ])
        XCTAssertEqual(
            PlatformGuards.problems(
                in: #"""
                    // Glibc.write in a comment /* and Darwin in a block /* nested */ comment */
                    let s = "Glibc.rename is a string", t = """
                      Musl in a multi-line string
                      """
                    #if canImport(Darwin)
                    import Darwin
                    #elseif canImport(Glibc)
                    #if DEBUG
                    let f = Glibc.fsync
                    #endif
                    #elseif canImport(Musl)
                    import Musl
                    #endif
                    """#),
            [])
    }

    // MARK: - Helpers

    static func swiftFiles(_ folder: String) throws -> [String] {
        let base = root.appendingPathComponent(folder).path
        let walker = try XCTUnwrap(FileManager.default.enumerator(atPath: base))
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { "\(base)/\($0)" }
    }

    static func findTool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).compactMap {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)
        }
    }

    struct Running {
        let process: Process
        let output: Pipe
        let command: String
    }

    static func start(_ program: String, _ arguments: [String]) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return Running(process: process, output: output, command: ([program] + arguments).joined(separator: " "))
    }

    @discardableResult
    static func finish(_ running: Running) throws -> String {
        let text = String(decoding: running.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        running.process.waitUntilExit()
        guard running.process.terminationStatus == 0 else {
            throw CommandFailed(description: "exit \(running.process.terminationStatus): \(running.command)\n\(text)")
        }
        return text
    }

    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> String {
        try finish(try start(program, arguments))
    }
}

struct CommandFailed: Error, CustomStringConvertible {
    let description: String
}
