import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// Regressions found by reading issue 15's client as an iOS team and an attacker would: the
/// crash-loop guard's confirmation, an earlier round kept whole when a later one fails, the start-up
/// rollback announced, redirects under the URL rule, and the loopback test (docs/client.md).
final class ClientReviewTests: XCTestCase {
    /// A second markLaunchSucceeded() in one process (a root view appearing again) must not vouch
    /// for a pack activated after the launch began: it has not been through a start.
    func testOnlyTheFirstMarkLaunchSucceededOfALaunchConfirmsAndOnlyWhatItBeganWith() async throws {
        let world = try ClientWorld()
        let app = try await world.deviceWithEighteenPending()
        app.activatePending()
        XCTAssertEqual(app.activePack, PackID("tr-TR@18"))
        app.markLaunchSucceeded()
        XCTAssertEqual(app.launchStatus.awaitingSuccess, [PackID("tr-TR@18")], "18 never went through a start")
        for _ in 0..<2 { _ = world.launch() }  // 18 crashes every start
        let next = world.launch()
        XCTAssertEqual(next.activePack, PackID("tr-TR@17"), "the crash loop is rolled back")
        XCTAssertEqual(next.launchStatus.rolledBack, [PackID("tr-TR@18")])
    }

    /// A pack that once reached a first screen is not put on trial again when a revert brings it
    /// back: two background starts must not mark the baseline failed.
    func testAPackConfirmedOnceIsNotOnTrialWhenItComesBack() async throws {
        let world = try ClientWorld()
        let app = try await world.deviceWithEighteenPending()
        let second = world.launch()  // starts on 18
        second.markLaunchSucceeded()
        XCTAssertEqual(second.launchStatus.awaitingSuccess, [])
        try world.rollout("revert", "tr-TR", "--reason", "typo")
        try world.publish()
        _ = await second.refresh(force: true)
        XCTAssertEqual(second.activePack, PackID("tr-TR@17"), "the revert brings 17 back at once")
        XCTAssertEqual(second.launchStatus.awaitingSuccess, [], "17 was confirmed before")
        for _ in 0..<3 { _ = world.launch() }  // launches with no first screen
        XCTAssertEqual(world.launch().activePack, PackID("tr-TR@17"))
        _ = app
    }

    /// The rollback a start makes is posted to observers registered before the client exists.
    func testARollbackAtStartIsPosted() async throws {
        let world = try ClientWorld()
        _ = try await world.deviceWithEighteenPending()
        _ = world.launch()
        _ = world.launch()
        let seen = NoticeLog()
        let token = NotificationCenter.default.addObserver(
            forName: RolloutClient.stringsDidChangeNotification, object: nil, queue: nil
        ) {
            if let change = $0.userInfo?[RolloutClient.changeKey] as? RolloutClient.Change { seen.append(change) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let third = world.launch()
        XCTAssertEqual(third.activePack, PackID("tr-TR@17"))
        XCTAssertEqual(seen.all.map(\.reason), [.rolledBack])
        XCTAssertEqual(seen.all.first?.packs, [PackID("tr-TR@18")])
    }

    /// Publish A replaces tr-TR and tr together; before the app activates it, publish B moves tr-TR
    /// on and its download fails. Round B stages nothing, and A's pending packs stay whole: never
    /// tr-TR@17 beside tr@2, a mix no publish made.
    func testAFailedRoundLeavesAnEarlierCommittedRoundWhole() async throws {
        let world = try ClientWorld()
        let client = world.client()
        await client.refreshAndActivate()
        try world.rollout("pack", "add", try world.w.packVariant(of: "tr@1", version: 2))
        try world.rollout("promote", "tr@2", "--to", "100%", "--force", "--reason", "A")
        try world.promoteEighteen()
        let a = await client.refresh(force: true)
        XCTAssertEqual(a, .staged(staged: [PackID("tr-TR@18"), PackID("tr@2")], dropped: []))
        try world.rollout("pack", "add", try world.w.packVariant(of: "tr-TR@18", version: 19))
        try world.rollout("promote", "tr-TR@19", "--to", "100%", "--force", "--reason", "B")
        try world.publish()
        let manifest = try LocaleManifest.parse(
            [UInt8](Data(contentsOf: URL(fileURLWithPath: world.w.scratch.path("site/manifests/tr-TR.json")))),
            source: "tr-TR.json")
        world.transport.alter(try XCTUnwrap(manifest.packs[19]).url) { _ in [] }
        guard case .partial(let staged, _, _) = await client.refresh(force: true) else {
            return XCTFail("19 cannot be downloaded")
        }
        XCTAssertEqual(staged, [])
        XCTAssertEqual(Set(client.activatePending()), [PackID("tr-TR@18"), PackID("tr@2")], "round A, whole")
        // When 19 can be downloaded, the next round replaces 18 as a whole round does.
        world.transport.alter(try XCTUnwrap(manifest.packs[19]).url, nil)
        let c = await client.refresh(force: true)
        XCTAssertEqual(c, .staged(staged: [PackID("tr-TR@19")], dropped: []))
    }

    /// A redirect is followed only where the device would go itself: another loopback URL yes; plain
    /// http to another host never (the request does not leave); a file never read. (Foundation on
    /// Linux turns a `file:` Location into a path on the same server; Apple's gives a file URL,
    /// which the rule refuses.)
    func testRedirectsFollowTheURLRule() async throws {
        let server = try RedirectServer()
        defer { server.stop() }
        let transport = URLSessionTransport()
        let followed = try await transport.fetch(URL(string: "http://127.0.0.1:\(server.port)/to-self")!, limit: 100)
        XCTAssertEqual(String(decoding: followed, as: UTF8.self), "the site")
        let began = Date()
        do {
            _ = try await transport.fetch(URL(string: "http://127.0.0.1:\(server.port)/to-test-net")!, limit: 100)
            XCTFail("followed to plain http on another host")
        } catch {
            XCTAssertTrue("\(error)".contains("HTTP 302"), "the redirect itself is the answer: \(error)")
            XCTAssertEqual((error as? TransportError)?.reason, .redirectRefused)
        }
        XCTAssertLessThan(Date().timeIntervalSince(began), 3, "no connection to 192.0.2.2 was tried")
        let file = (try? Data(contentsOf: URL(fileURLWithPath: "/etc/hostname"))) ?? Data()
        let fromFile = try? await transport.fetch(
            URL(string: "http://127.0.0.1:\(server.port)/to-file")!, limit: 100_000)
        XCTAssertNotEqual(fromFile, file, "a redirect never reads a file of the device")
        XCTAssertEqual(Array(server.requests().prefix(4)), ["/to-self", "/site", "/to-test-net", "/to-file"])
    }

    /// Loopback as the system reads an address without a lookup.
    func testLoopbackMeansALiteralLoopbackAddress() {
        for host in [
            "127.0.0.1", "127.9.8.7", "localhost", "LOCALHOST", "::1", "[::1]", "127.0.0.0", "127.255.255.255",
        ] {
            XCTAssertTrue(isLoopback(host), host)
        }
        for host in [
            "127.0.0.08", "127.1", "0x7f.0.0.1", "127.0.0.1.evil.com", "127.0.0.256", "127.0.0.", "128.0.0.1",
            "localhost.", "::ffff:127.0.0.1", "evil.com",
        ] {
            XCTAssertFalse(isLoopback(host), host)
        }
        XCTAssertNotNil(refusal(ofRedirectTo: URL(fileURLWithPath: "/etc/hostname")))
        XCTAssertNil(refusal(ofRedirectTo: URL(string: "https://cdn.example.com/index.json")!))
    }
}

/// A loopback HTTP server (python3's http.server) whose paths redirect: /to-self to its own /site,
/// /to-test-net to plain http on TEST-NET-1 (192.0.2.2, routed nowhere), /to-file to a file URL.
final class RedirectServer {
    private let server: LoopbackServer
    private let log: URL

    var port: Int { server.port }

    init() throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("redirects-\(UUID().uuidString).log")
        let script = """
            import http.server, sys
            log = open(sys.argv[1], "a", buffering=1)
            class H(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    log.write(self.path + "\\n")
                    port = self.server.server_address[1]
                    targets = {"/to-self": f"http://127.0.0.1:{port}/site", "/to-test-net": "http://192.0.2.2:9/index.json", "/to-file": "file:///etc/hostname"}
                    if self.path in targets:
                        self.send_response(302); self.send_header("Location", targets[self.path]); self.send_header("Content-Length", "0"); self.end_headers()
                    else:
                        body = b"the site"
                        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
                def log_message(self, *args): pass
            server = http.server.HTTPServer(("127.0.0.1", 0), H)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        server = try LoopbackServer(script: script, arguments: [log.path])
    }

    func requests() -> [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: log)
    }
}
