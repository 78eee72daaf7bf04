import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// The size limits (docs/client.md, "Size limits"): a file over its limit is refused with
/// `too-large` before it is held in memory, through the default transport against a real HTTP
/// server on loopback, and the device keeps the packs it has.
final class SizeLimitTests: XCTestCase {
    /// A server on loopback serving `directory`, `/status/CODE` (an empty response with that
    /// status), and `/endless`: a 200 with no length whose body never ends.
    private func siteServer(directory: String) throws -> LoopbackServer {
        let script = """
            import functools, http.server, sys
            class Handler(http.server.SimpleHTTPRequestHandler):
                def do_GET(self):
                    if self.path.startswith("/status/"):
                        self.send_response(int(self.path[len("/status/"):]))
                        self.send_header("Content-Length", "0")
                        return self.end_headers()
                    if self.path != "/endless":
                        return super().do_GET()
                    self.send_response(200)
                    self.end_headers()
                    try:
                        while True:
                            self.wfile.write(b" " * 65536)
                    except OSError:
                        pass
                def log_message(self, *args):
                    pass
            server = http.server.ThreadingHTTPServer(
                ("127.0.0.1", 0), functools.partial(Handler, directory=sys.argv[1]))
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        return try LoopbackServer(script: script, arguments: [directory])
    }

    private func device(_ world: ClientWorld, _ server: LoopbackServer) -> RolloutClient {
        var options = RolloutClient.Options()
        options.installID = "install-phone"
        options.timeout = 10
        options.minimumRefreshInterval = 0
        return RolloutClient(
            bundled: ClientWorld.bundled, cacheDirectory: world.cache("phone"), manifestURL: server.url("index.json"),
            publicKey: world.publicKey, appVersion: "4.8.1", region: "TR", locale: "tr-TR", options: options)
    }

    /// Appends `count` spaces to `path` of the site (JSON still, but not the bytes that were signed).
    private func grow(_ world: ClientWorld, _ path: String, to size: Int) throws {
        let file = world.w.scratch.path("site/\(path)")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes.append(Data(repeating: 0x20, count: size - bytes.count))
        try bytes.write(to: URL(fileURLWithPath: file))
    }

    func testAnIndexOverItsLimitIsRefusedTooLargeAndTheDeviceKeepsItsPacks() async throws {
        let world = try ClientWorld()
        let server = try siteServer(directory: world.w.scratch.path("site"))
        defer { server.stop() }
        let client = device(world, server)
        await client.refreshAndActivate()
        XCTAssertEqual(client.activePack, PackID("tr-TR@17"))

        let index = try Data(contentsOf: URL(fileURLWithPath: world.w.scratch.path("site/index.json")))
        try grow(world, "index.json", to: RolloutClient.SizeLimits.index + 1)
        guard case .failed(let failure) = await client.refresh(force: true) else {
            return XCTFail("an index of the limit + 1 bytes must be refused")
        }
        XCTAssertEqual(failure.reason, .tooLarge, failure.message)
        XCTAssertTrue(failure.message.contains("index.json"), failure.message)
        XCTAssertEqual(client.activePack, PackID("tr-TR@17"), "the device keeps its packs")
        XCTAssertEqual(client.string("home.title"), "Hoş gledin")

        // At the limit exactly, the index is read: and refused for what it is, not for its size.
        try index.write(to: URL(fileURLWithPath: world.w.scratch.path("site/index.json")))
        try grow(world, "index.json", to: RolloutClient.SizeLimits.index)
        guard case .failed(let atLimit) = await client.refresh(force: true) else { return XCTFail("not signed") }
        XCTAssertEqual(atLimit.reason, .badSignature, atLimit.message)
        XCTAssertEqual(world.client("relaunched").activePack, nil, "another device never had a pack")
        XCTAssertEqual(device(world, server).activePack, PackID("tr-TR@17"), "nor did a relaunch lose it")
    }

    func testAPackLongerThanItsManifestSaysIsRefusedTooLarge() async throws {
        let world = try ClientWorld()
        let server = try siteServer(directory: world.w.scratch.path("site"))
        defer { server.stop() }
        let client = device(world, server)
        await client.refreshAndActivate()
        try world.promoteEighteen()
        let manifest = try LocaleManifest.parse(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: world.w.scratch.path("site/manifests/tr-TR.json")))),
            source: "m")
        let entry = try XCTUnwrap(manifest.packs[18])
        let pack = try Data(contentsOf: URL(fileURLWithPath: world.w.scratch.path("site/\(entry.url)")))
        XCTAssertEqual(pack.count, entry.bytes)
        try grow(world, entry.url, to: entry.bytes + 1)

        guard case .partial(let staged, _, let failures) = await client.refresh(force: true) else {
            return XCTFail("a pack one byte over its manifest's size must be refused")
        }
        XCTAssertEqual(staged, [])
        XCTAssertEqual(failures.map(\.reason), [.tooLarge], "\(failures)")
        XCTAssertTrue(failures[0].message.hasPrefix("tr-TR@18: "), failures[0].message)
        XCTAssertEqual(client.pendingPacks, [])
        XCTAssertEqual(client.activatePending(), [])
        XCTAssertEqual(client.activePack, PackID("tr-TR@17"), "the device keeps its pack")

        // The same bytes without the extra one: staged, so the byte was all that was wrong.
        try pack.write(to: URL(fileURLWithPath: world.w.scratch.path("site/\(entry.url)")))
        let whole = await client.refresh(force: true)
        XCTAssertEqual(whole, .staged(staged: [PackID("tr-TR@18")], dropped: []))
    }

    /// The transport itself: a stated length over the limit is refused before the body, a body
    /// with no length is read up to one byte past the limit and no further (the endless one ends),
    /// and a file is measured before it is read.
    func testTheTransportReadsAtMostOneBytePastTheLimit() async throws {
        let world = try ClientWorld()
        let server = try siteServer(directory: world.w.scratch.path("site"))
        defer { server.stop() }
        let transport = URLSessionTransport()
        let index = try Data(contentsOf: URL(fileURLWithPath: world.w.scratch.path("site/index.json")))

        let exact = try await transport.fetch(server.url("index.json"), limit: index.count)
        XCTAssertEqual(exact, index)
        await assertRefusedTooLarge { try await transport.fetch(server.url("index.json"), limit: index.count - 1) }
        let began = Date()
        await assertRefusedTooLarge { try await transport.fetch(server.url("endless"), limit: 100_000) }
        XCTAssertLessThan(Date().timeIntervalSince(began), 5, "an endless body ends at the limit")

        let file = URL(fileURLWithPath: world.w.scratch.path("site/index.json"))
        let read = try await transport.fetch(file, limit: index.count)
        XCTAssertEqual(read, index)
        await assertRefusedTooLarge { try await transport.fetch(file, limit: index.count - 1) }
    }

    /// Each answer but a 200 is a reason of its own: 404 and 410 are `not-found`, a redirect the
    /// rule did not follow `redirect-refused` (ClientReviewTests), any other `http-status`.
    func testAnHTTPStatusButTwoHundredIsTheReasonItMeans() async throws {
        let world = try ClientWorld()
        let server = try siteServer(directory: world.w.scratch.path("site"))
        defer { server.stop() }
        let transport = URLSessionTransport()
        for (status, reason) in [
            (404, RolloutClient.FailureReason.notFound), (410, .notFound), (500, .httpStatus), (503, .httpStatus),
            (204, .httpStatus),
        ] {
            do {
                _ = try await transport.fetch(server.url("status/\(status)"), limit: 1000)
                XCTFail("HTTP \(status) gave data")
            } catch {
                XCTAssertEqual((error as? TransportError)?.reason, reason, "HTTP \(status): \(error)")
                XCTAssertTrue("\(error)".contains("HTTP \(status)"), "\(error)")
            }
        }
    }

    private func assertRefusedTooLarge(
        _ fetch: () async throws -> Data, file: StaticString = #filePath, line: UInt = #line
    ) async {
        do {
            let data = try await fetch()
            XCTFail("read \(data.count) bytes", file: file, line: line)
        } catch {
            XCTAssertEqual((error as? TransportError)?.reason, .tooLarge, "\(error)", file: file, line: line)
        }
    }
}
