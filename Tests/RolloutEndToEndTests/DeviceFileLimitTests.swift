import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// Issue 31, item 3 and the device's minor item: `verify-site` reads each file of a site up to the
/// limit a device reads it to (`SiteSizeLimits`, the one table) and no further, at the limit and
/// one byte past it; a redirect loop and an unreachable `http://[::1]:PORT` are refused with their
/// reason and a sentence of the client's own, not the platform's raw error text.
final class DeviceFileLimitTests: XCTestCase {
    /// `path` of the site in `world`, extended with spaces to `size` bytes; returns its bytes before.
    @discardableResult
    private func grow(_ world: ClientWorld, _ path: String, to size: Int) throws -> Data {
        let url = URL(fileURLWithPath: world.w.scratch.path("site/\(path)"))
        let before = try Data(contentsOf: url)
        try (before + Data(repeating: 0x20, count: size - before.count)).write(to: url)
        return before
    }

    private func verifySite(_ world: ClientWorld, _ trust: [String]) throws -> (status: Int32, problems: [String]) {
        let result = try world.w.rollout(["verify-site", world.w.scratch.path("site"), "--json"] + trust)
        let problems = try world.w.json(result)["problems"] as? [String] ?? []
        return (result.status, problems)
    }

    /// Each file at its limit is read (and refused for what it is, a signature that does not
    /// verify, exit 1; or, JSON `.sigs` with spaces after it, accepted, exit 0: `atLimit`); one
    /// byte more is refused as too large, naming the file and the limit, with exit 1 (verify-site's
    /// "problems").
    private func checkLimit(
        _ world: ClientWorld, _ path: String, limit: Int, trust: [String], atLimit status: Int32 = 1,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let tooLarge = SiteSizeLimits.tooLarge(path, limit: limit)
        let original = try grow(world, path, to: limit)
        let atLimit = try verifySite(world, trust)
        XCTAssertEqual(atLimit.status, status, "\(path) at its limit: \(atLimit.problems)", file: file, line: line)
        XCTAssertFalse(
            atLimit.problems.contains { $0.contains(tooLarge) }, "\(path) at its limit: \(atLimit.problems)",
            file: file, line: line)
        try grow(world, path, to: limit + 1)
        let past = try verifySite(world, trust)
        XCTAssertEqual(past.status, 1, "\(path) one byte past its limit", file: file, line: line)
        XCTAssertTrue(
            past.problems.contains("\(tooLarge): devices refuse it (too-large)"), "\(path): \(past.problems)",
            file: file, line: line)
        try original.write(to: URL(fileURLWithPath: world.w.scratch.path("site/\(path)")))
        XCTAssertEqual(try verifySite(world, trust).problems, [], "\(path) restored", file: file, line: line)
    }

    func testVerifySiteReadsEachFileOfAPinnedSiteUpToItsLimit() throws {
        let world = try ClientWorld()
        let trust = ["--public-key", world.publicKey]
        XCTAssertEqual(try verifySite(world, trust).problems, [])
        try checkLimit(world, SiteLayout.index, limit: SiteSizeLimits.index, trust: trust)
        try checkLimit(world, "index.json.sig", limit: SiteSizeLimits.signature, trust: trust)
        try checkLimit(world, SiteLayout.manifest("tr-TR"), limit: SiteSizeLimits.manifest, trust: trust)
        let manifest = try LocaleManifest.parse(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: world.w.scratch.path("site/manifests/tr-TR.json")))),
            source: "m")
        let entry = try XCTUnwrap(manifest.packs[17])
        // A pack's limit is the size its manifest entry states: at it, the bytes are the pack's own.
        try grow(world, entry.url, to: entry.bytes + 1)
        let past = try verifySite(world, trust)
        XCTAssertEqual(past.status, 1)
        XCTAssertEqual(
            past.problems, [SiteSizeLimits.tooLarge(entry.url, limit: entry.bytes) + ": devices refuse it (too-large)"])
    }

    func testVerifySiteReadsTheKeyListAndSigsUpToTheirLimits() throws {
        let world = try ClientWorld(signing: .keyList)
        let trust = world.rootKeys.flatMap { ["--root-key", $0] }
        XCTAssertEqual(try verifySite(world, trust).problems, [])
        try checkLimit(world, SiteLayout.keys, limit: SiteSizeLimits.keyList, trust: trust)
        try checkLimit(world, "index.json.sigs", limit: SiteSizeLimits.signature, trust: trust, atLimit: 0)
        try checkLimit(world, "manifests/tr.json.sigs", limit: SiteSizeLimits.signature, trust: trust, atLimit: 0)
    }

    /// A device on a key list, over a real HTTP server: `keys.json` and the `.sigs` files at their
    /// limits are read, one byte more is `too-large`, and the device keeps its packs.
    func testADeviceOnAKeyListReadsKeysAndSigsUpToTheirLimitsOverHTTP() async throws {
        let world = try ClientWorld(signing: .keyList)
        let server = try LoopbackServer(
            script: """
                import functools, http.server, sys
                class H(http.server.SimpleHTTPRequestHandler):
                    def log_message(self, *args): pass
                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(H, directory=sys.argv[1]))
                print(server.server_address[1], flush=True)
                server.serve_forever()
                """, arguments: [world.w.scratch.path("site")])
        defer { server.stop() }
        var options = RolloutClient.Options()
        options.installID = "install-phone"
        options.minimumRefreshInterval = 0
        let client = RolloutClient(
            bundled: ClientWorld.bundled, cacheDirectory: world.cache("phone"), manifestURL: server.url("index.json"),
            trust: RolloutClient.Trust(rootKeys: world.rootKeys), appVersion: "4.8.1", region: "TR", locale: "tr-TR",
            options: options)
        await client.refreshAndActivate()
        XCTAssertEqual(client.activePack, PackID("tr-TR@17"))
        for (path, limit) in [
            (SiteLayout.keys, SiteSizeLimits.keyList), ("keys.json.sigs", SiteSizeLimits.signature),
            ("index.json.sigs", SiteSizeLimits.signature),
        ] {
            let original = try grow(world, path, to: limit)
            // At its limit the file is read: JSON with spaces after it (the device holds this key
            // list version already, and the .sigs still verify).
            let read = await client.refresh(force: true)
            XCTAssertEqual(read, .upToDate(dropped: []), "\(path) at its limit")
            try grow(world, path, to: limit + 1)
            guard case .failed(let failure) = await client.refresh(force: true) else {
                return XCTFail("\(path) one byte past its limit was read")
            }
            XCTAssertEqual(failure.reason, .tooLarge, "\(path): \(failure)")
            XCTAssertEqual(failure.message, SiteSizeLimits.tooLarge(server.url(path).absoluteString, limit: limit))
            XCTAssertEqual(client.activePack, PackID("tr-TR@17"), "the device keeps its pack")
            try original.write(to: URL(fileURLWithPath: world.w.scratch.path("site/\(path)")))
        }
    }

    func testTheLimitOfEachSiteFileIsItsKinds() {
        XCTAssertEqual(SiteSizeLimits.limit(of: "index.json"), SiteSizeLimits.index)
        XCTAssertEqual(SiteSizeLimits.limit(of: "index.json.sig"), SiteSizeLimits.signature)
        XCTAssertEqual(SiteSizeLimits.limit(of: "keys.json.sigs"), SiteSizeLimits.signature)
        XCTAssertEqual(SiteSizeLimits.limit(of: "keys.json"), SiteSizeLimits.keyList)
        XCTAssertEqual(SiteSizeLimits.limit(of: "keys/3.json"), SiteSizeLimits.keyList)
        XCTAssertEqual(SiteSizeLimits.limit(of: "manifests/tr-TR.json"), SiteSizeLimits.manifest)
        XCTAssertEqual(SiteSizeLimits.limit(of: "packs/tr-TR/17.0123456789abcdef.json"), SiteSizeLimits.pack)
        XCTAssertEqual(SiteSizeLimits.pack(stated: 977), 977)
        XCTAssertEqual(SiteSizeLimits.pack(stated: -1), 0)
        XCTAssertEqual(SiteSizeLimits.pack(stated: .max), SiteSizeLimits.pack)
        XCTAssertEqual(RolloutClient.SizeLimits.index, SiteSizeLimits.index, "the client's table is the one table")
    }

    // MARK: - The device's error text

    /// A server whose every path redirects to itself.
    private func loopServer() throws -> LoopbackServer {
        try LoopbackServer(
            script: """
                import http.server
                class H(http.server.BaseHTTPRequestHandler):
                    def do_GET(self):
                        self.send_response(302); self.send_header("Location", self.path)
                        self.send_header("Content-Length", "0"); self.end_headers()
                    def log_message(self, *args): pass
                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
                print(server.server_address[1], flush=True)
                server.serve_forever()
                """, arguments: [])
    }

    /// A loopback port nothing listens on (bound, then closed).
    private func closedPort(ipv6: Bool) throws -> Int {
        let server = try LoopbackServer(
            script: """
                import socket
                s = socket.socket(socket.AF_INET6 if \(ipv6 ? "True" : "False") else socket.AF_INET)
                s.bind(("::1" if \(ipv6 ? "True" : "False") else "127.0.0.1", 0))
                print(s.getsockname()[1], flush=True)
                s.close()
                """, arguments: [])
        server.stop()
        return server.port
    }

    private func refusal(_ url: URL) async -> TransportError? {
        do {
            _ = try await URLSessionTransport().fetch(url, limit: 1000)
            return nil
        } catch {
            return error as? TransportError
        }
    }

    private func assertNoRawText(_ message: String, file: StaticString = #filePath, line: UInt = #line) {
        for raw in ["NSURLErrorDomain", "The operation could not be completed", "Couldn't connect", "Error Domain"] {
            XCTAssertFalse(message.contains(raw), message, file: file, line: line)
        }
    }

    func testARedirectLoopIsRedirectRefusedInASentence() async throws {
        let server = try loopServer()
        defer { server.stop() }
        let url = server.url("index.json")
        let error = await refusal(url)
        XCTAssertEqual(error?.reason, .redirectRefused)
        XCTAssertEqual(
            error?.message, "\(url): more than 16 redirects (a redirect loop?): the device stops following them")
    }

    func testNothingListeningIsUnreachableInASentence() async throws {
        let port = try closedPort(ipv6: false)
        let url = URL(string: "http://127.0.0.1:\(port)/index.json")!
        let error = await refusal(url)
        XCTAssertEqual(error?.reason, .unreachable)
        XCTAssertEqual(error?.message, "\(url): nothing accepts connections at 127.0.0.1:\(port) (connection refused)")
    }

    func testTheIPv6LoopbackIsUnreachableInASentence() async throws {
        let port = try closedPort(ipv6: true)
        let url = URL(string: "http://[::1]:\(port)/index.json")!
        let error = await refusal(url)
        XCTAssertEqual(error?.reason, .unreachable)
        let message = error?.message ?? ""
        assertNoRawText(message)
        #if canImport(FoundationNetworking)
            // swift-corelibs-foundation's URLSession fetches no IPv6 literal (its issue 5496).
            XCTAssertEqual(
                message,
                "\(url): this platform's URLSession cannot connect to an IPv6 address written in a URL; name the host instead (localhost for ::1)"
            )
        #else
            XCTAssertEqual(message, "\(url): nothing accepts connections at [::1]:\(port) (connection refused)")
        #endif
    }

    /// `rollout device refresh`, as the issue ran it: the sentence and the reason code, exit 1.
    func testRolloutDeviceRefreshPrintsTheSentences() throws {
        let world = try DeviceWorld()
        let server = try loopServer()
        defer { server.stop() }
        let port = try closedPort(ipv6: true)
        for (site, reason) in [
            (server.url("").absoluteString, "redirect-refused"), ("http://[::1]:\(port)/", "unreachable"),
        ] {
            let result = try world.w.rollout([
                "device", "--state", world.w.scratch.path("devices/p"), "--site", site, "--public-key",
                world.publicKey, "--locale", "tr-TR", "--region", "TR", "--app-version", "4.8.1", "refresh", "--force",
            ])
            XCTAssertEqual(result.status, 1, result.output)
            XCTAssertTrue(result.output.contains("[\(reason)]"), result.output)
            assertNoRawText(result.output)
        }
    }
}
