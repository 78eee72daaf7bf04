import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// A transport that never answers but notices when its request is cancelled.
/// `@unchecked Sendable`: `lock` guards `cancellations`.
final class HangingTransport: RolloutTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var cancellations = 0
    var cancelled: Int { lock.withLock { cancellations } }

    func fetch(_ url: URL, limit: Int) async throws -> Data {
        try await withTaskCancellationHandler {
            while !Task.isCancelled { try? await Task.sleep(nanoseconds: 10_000_000) }
            throw CancellationError()
        } onCancel: {
            lock.withLock { cancellations += 1 }
        }
    }
}

/// Issue 15's device-side rules: the lookup order that keeps a screen in one language, the refresh
/// policy (interval, URLs, time-outs that cancel, rounds that stage all or nothing), observation
/// and status (docs/client.md).
final class ClientRoundTests: XCTestCase {
    // MARK: Lookup order

    /// The seed's "a new key missing from the remote pack is resolved from the local bundle".
    func testAKeyMissingFromTheTurkishPackShowsTheBundledTurkishNotTheEnglishPack() async throws {
        let world = try ClientWorld()
        let day = Date(timeIntervalSince1970: 1_764_288_000)
        let client = world.client(now: day)
        await client.refreshAndActivate()
        XCTAssertEqual(client.activePacks, [PackID("en-US@1"), PackID("tr@1"), PackID("tr-TR@17")])
        XCTAssertEqual(
            client.string("home.banner"), "İndirim (paket içi)",
            "tr-TR@17 lacks it, the app bundles it in Turkish, en-US@1 has it")
        XCTAssertEqual(client.string("home.title"), "Hoş gledin", "the pack comes before the bundle of its own locale")
        XCTAssertEqual(client.string("only.bundled"), "From the app", "nowhere in Turkish: the default locale's bundle")
        // The fallback counter measures the pack: the Turkish bundle served home.banner, not tr-TR@17.
        XCTAssertEqual(
            client.metricsCSV(.fallback).split(separator: "\n").last, "2025-11-28,tr-TR,tr-TR@17,TR,4.8.1,3,2")

        client.setLocale("vi-VN")
        let english =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("en-US@1")))) as! [String: Any]
        XCTAssertEqual(
            client.string("home.banner"), (english["strings"] as! [String: String])["home.banner"],
            "no Vietnamese anywhere: en-US@1 before the bundled English")
    }

    // MARK: Refresh policy

    func testTheMinimumRefreshIntervalHoldsAcrossLaunchesAndForceIgnoresIt() async throws {
        let world = try ClientWorld()
        var now = Date(timeIntervalSince1970: 1_764_288_000)
        func client() -> RolloutClient {
            var options = RolloutClient.Options()
            options.transport = world.transport
            options.installID = "install-phone"
            options.minimumRefreshInterval = 3600
            let fixed = now
            options.now = { fixed }
            return RolloutClient(
                bundled: ClientWorld.bundled, cacheDirectory: world.cache("phone"),
                manifestURL: ClientWorld.manifestURL, publicKey: world.publicKey,
                appVersion: "4.8.1", region: "TR", locale: "tr-TR", options: options)
        }
        let first = await client().refresh()
        XCTAssertEqual(first, .staged(staged: [PackID("tr-TR@17"), PackID("tr@1"), PackID("en-US@1")], dropped: []))
        now += 600
        world.transport.clearLog()
        let relaunched = client()
        let early = await relaunched.refresh()
        XCTAssertEqual(early, .tooSoon(retryAfter: 3000), "ten minutes after the last round, and after a relaunch")
        XCTAssertEqual(world.transport.fetched, [], "no request at all")
        XCTAssertEqual(relaunched.status.lastRefresh, Date(timeIntervalSince1970: 1_764_288_000))
        let forced = await relaunched.refresh(force: true)
        XCTAssertEqual(forced, .upToDate(dropped: []))
        XCTAssertEqual(world.transport.fetched.first, "index.json")
        now += 3600
        let later = await client().refresh()
        XCTAssertEqual(later, .upToDate(dropped: []), "an hour after the forced round")

        // A round that failed (offline) does not start the interval: the next call tries again.
        world.transport.setOffline(true)
        now += 3600
        guard case .failed(let offline) = await client().refresh() else { return XCTFail("offline") }
        XCTAssertEqual(offline.reason, .unreachable)
        world.transport.setOffline(false)
        let retried = await client().refresh()
        XCTAssertEqual(retried, .upToDate(dropped: []))
    }

    func testOnlyHTTPSOrLoopbackHTTPOrAFileIsFetched() async throws {
        let world = try ClientWorld()
        func client(_ url: String, _ device: String, transport: (any RolloutTransport)? = nil) -> RolloutClient {
            var options = RolloutClient.Options()
            options.transport = transport ?? world.transport
            options.installID = "install-\(device)"
            return RolloutClient(
                bundled: ClientWorld.bundled, cacheDirectory: world.cache(device), manifestURL: URL(string: url)!,
                publicKey: world.publicKey,
                appVersion: "4.8.1", region: "TR", locale: "tr-TR", options: options)
        }
        for refused in [
            "http://cdn.example.com/site/index.json", "http://128.0.0.1/site/index.json",
            "ftp://cdn.example.com/site/index.json",
        ] {
            world.transport.clearLog()
            guard case .failed(let why) = await client(refused, "refused").refresh() else { return XCTFail(refused) }
            XCTAssertEqual(why.reason, .insecureURL)
            XCTAssertTrue(why.message.contains(refused) && why.message.contains("https"), why.message)
            XCTAssertEqual(world.transport.fetched, [], "\(refused): never requested")
        }
        for (n, allowed) in [
            "http://127.0.0.1/site/index.json", "http://127.9.8.7/site/index.json", "http://localhost/site/index.json",
            "http://[::1]/site/index.json",
        ].enumerated() {
            let result = await client(allowed, "loopback-\(n)").refresh()
            XCTAssertEqual(
                result, .staged(staged: [PackID("tr-TR@17"), PackID("tr@1"), PackID("en-US@1")], dropped: []), allowed)
        }
        // A site in a directory, through the default transport.
        let site = URL(fileURLWithPath: world.w.scratch.path("site/index.json")).absoluteString
        let local = client(site, "file", transport: URLSessionTransport())
        let result = await local.refresh()
        XCTAssertEqual(result, .staged(staged: [PackID("tr-TR@17"), PackID("tr@1"), PackID("en-US@1")], dropped: []))
    }

    func testTheTimeOutCancelsTheRequest() async throws {
        let world = try ClientWorld()
        let hanging = HangingTransport()
        var options = RolloutClient.Options()
        options.transport = hanging
        options.timeout = 0.2
        let client = RolloutClient(
            bundled: ClientWorld.bundled, cacheDirectory: world.cache("phone"), manifestURL: ClientWorld.manifestURL,
            publicKey: world.publicKey,
            appVersion: "4.8.1", region: "TR", locale: "tr-TR", options: options)
        guard case .failed(let why) = await client.refresh() else { return XCTFail("a request that never answers") }
        XCTAssertEqual(why.reason, .timedOut)
        XCTAssertTrue(why.message.contains("timed out"), why.message)
        for _ in 0..<100 where hanging.cancelled == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        XCTAssertEqual(hanging.cancelled, 1, "the task running the transport was cancelled")
    }

    /// URLSession's task goes with the Swift task: a server on loopback that never answers.
    func testCancellingAURLSessionFetchCancelsTheRequest() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(listener, 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, size) }
        }
        XCTAssertEqual(listen(listener, 4), 0)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &size) }
        }
        let url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/index.json")!

        let began = Date()
        let task = Task { try await URLSessionTransport().fetch(url, limit: 1000) }
        try await Task.sleep(nanoseconds: 200_000_000)
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("a server that never answers gave data")
        } catch {
            XCTAssertEqual((error as? TransportError)?.reason, .cancelled, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(began), 5, "cancelled, not timed out by the session")
    }

    /// A round stages every new pack or none; what the verified manifests forbid goes at once.
    func testARoundStagesEveryPackOrNone() async throws {
        let world = try ClientWorld()
        let client = world.client()
        world.transport.alter("index.json", nil)
        let manifest = try LocaleManifest.parse(
            [UInt8](Data(contentsOf: URL(fileURLWithPath: world.w.scratch.path("site/manifests/en-US.json")))),
            source: "m")
        let english = try XCTUnwrap(manifest.packs[1]).url
        world.transport.alter(english, { _ in [] })
        guard case .partial(let staged, let dropped, let failures) = await client.refresh() else {
            return XCTFail("en-US@1 cannot be fetched")
        }
        XCTAssertEqual(staged, [])
        XCTAssertEqual(dropped, [])
        XCTAssertTrue(
            failures.contains { $0.reason == .packMismatch && $0.message.hasPrefix("en-US@1:") }, "\(failures)")
        // Held back by en-US@1, for its reason.
        XCTAssertTrue(
            failures.contains {
                $0.reason == .packMismatch && $0.message.hasPrefix("tr-TR@17:") && $0.message.contains("not staged")
            }, "\(failures)")
        XCTAssertEqual(client.pendingPacks, [], "tr-TR@17 and tr@1 verified, but not staged without en-US@1")
        XCTAssertEqual(client.activatePending(), [])
        XCTAssertNil(world.client().activePack, "nor at the next start")
        world.transport.alter(english, nil)
        let whole = await client.refresh()
        XCTAssertEqual(whole, .staged(staged: [PackID("tr-TR@17"), PackID("tr@1"), PackID("en-US@1")], dropped: []))
        XCTAssertEqual(client.activatePending(), [PackID("en-US@1"), PackID("tr@1"), PackID("tr-TR@17")])
    }

    func testARevertTakesEffectEvenWhenTheRoundsDownloadFails() async throws {
        let world = try ClientWorld()
        let client = try await world.deviceOnEighteen()
        try FileManager.default.removeItem(atPath: world.cache("phone").path + "/packs/tr-TR/previous")
        try world.rollout("revert", "tr-TR", "--reason", "crash spike")
        try world.publish()
        world.transport.setOffline(false)
        let manifest = try LocaleManifest.parse(
            [UInt8](Data(contentsOf: URL(fileURLWithPath: world.w.scratch.path("site/manifests/tr-TR.json")))),
            source: "m")
        world.transport.alter(try XCTUnwrap(manifest.packs[17]).url, { _ in [] })
        guard case .partial(let staged, let dropped, _) = await client.refresh() else {
            return XCTFail("tr-TR@17 cannot be fetched")
        }
        XCTAssertEqual(staged, [])
        XCTAssertEqual(dropped, [PackID("tr-TR@18")], "the blocked pack is gone at once")
        XCTAssertNil(client.activePack)
        XCTAssertEqual(
            client.string("home.title"), "Hoş geldin (paket içi)", "the app's Turkish until tr-TR@17 arrives")
        world.transport.alter(try XCTUnwrap(manifest.packs[17]).url, nil)
        let next = await client.refresh()
        XCTAssertEqual(next, .staged(staged: [PackID("tr-TR@17")], dropped: []))
        XCTAssertEqual(
            client.activatePending(), [PackID("tr-TR@17")],
            "the bundled Turkish is on screen now: at the next safe moment, as any update")
    }

    // MARK: Observation and status

    func testSubscribersAndTheNotificationSeeEveryChange() async throws {
        let world = try ClientWorld()
        let client = world.client()
        let first = client.changes
        let second = client.changes
        let noticed = NoticeLog()
        let observer = NotificationCenter.default.addObserver(
            forName: RolloutClient.stringsDidChangeNotification, object: client, queue: nil
        ) { note in
            if let change = note.userInfo?[RolloutClient.changeKey] as? RolloutClient.Change { noticed.append(change) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        await client.refreshAndActivate()
        try world.promoteEighteen()
        await client.refreshAndActivate()
        client.setLocale("vi-VN")
        client.setLocale("tr-TR")
        client.markActivePackFailed()
        try world.rollout("revert", "tr-TR", "--to", "bundled", "--reason", "wrong everywhere")
        try world.publish()
        _ = await client.refresh()

        let expected: [RolloutClient.Change] = [
            .init(reason: .activated, packs: [PackID("en-US@1"), PackID("tr@1"), PackID("tr-TR@17")], locale: "tr-TR"),
            .init(reason: .activated, packs: [PackID("tr-TR@18")], locale: "tr-TR"),
            .init(reason: .localeChanged, packs: [], locale: "vi-VN"),
            .init(reason: .localeChanged, packs: [], locale: "tr-TR"),
            .init(reason: .rolledBack, packs: [PackID("tr-TR@18")], locale: "tr-TR"),
            .init(reason: .dropped, packs: [PackID("tr-TR@17")], locale: "tr-TR"),
        ]
        XCTAssertEqual(noticed.all, expected)
        for stream in [first, second] {
            var seen: [RolloutClient.Change] = []
            for await change in stream {
                seen.append(change)
                if seen.count == expected.count { break }
            }
            XCTAssertEqual(seen, expected, "each subscriber sees every change")
        }
    }

    func testStatusShowsTheSlotsAndWhatTheDeviceKnows() async throws {
        let world = try ClientWorld()
        let client = try await world.deviceOnEighteen()
        client.markActivePackFailed()
        try world.rollout("promote", "tr-TR@18", "--to", "100%", "--force", "--reason", "again")
        let status = client.status
        XCTAssertEqual(status.locale, "tr-TR")
        XCTAssertEqual(status.chain, ["tr-TR", "tr", "en-US"])
        XCTAssertEqual(status.packs["tr-TR"], .init(active: PackID("tr-TR@17")))
        XCTAssertEqual(status.packs["tr"], .init(active: PackID("tr@1")))
        XCTAssertEqual(status.failed, [PackID("tr-TR@18")])
        XCTAssertGreaterThan(status.indexSequence, 0)
        XCTAssertNotNil(status.lastRefresh)

        try world.rollout("revert", "tr-TR", "--reason", "crash spike")
        try world.publish()
        let fresh = world.client("other")
        _ = await fresh.refresh()
        XCTAssertEqual(fresh.status.packs["tr-TR"], .init(pending: PackID("tr-TR@17")))
        XCTAssertEqual(fresh.status.blocked["tr-TR"], [18])
    }

    /// Readers on eight threads while refreshes (up to date and changing), activations and locale
    /// flips run: every string is one of the texts the device may show, never empty.
    func testReadersNeverSeeAHalfChangedDevice() async throws {
        let world = try ClientWorld()
        let client = world.client()
        await client.refreshAndActivate()
        let titles: Set<String> = ["Hoş gledin", "Hoş geldin", "Hoş geldin (paket içi)", "Welcome (bundled)"]
        let english =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("en-US@1")))) as! [String: Any]
        let vietnamese =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("vi-VN@3")))) as! [String: Any]
        let allowed = titles.union(
            [english, vietnamese].compactMap { ($0["strings"] as? [String: String])?["home.title"] })
        let stop = NoticeLog()
        let readers = (0..<8).map { _ in
            Task.detached { () -> Set<String> in
                var seen: Set<String> = []
                while stop.all.isEmpty {
                    seen.insert(client.string("home.title"))
                    _ = client.string("files.count", ["count": "2"])
                }
                return seen
            }
        }
        for round in 0..<4 {
            if round == 1 { try world.promoteEighteen() }
            _ = await client.refresh(force: true)
            client.activatePending()
            client.setLocale(round % 2 == 0 ? "vi-VN" : "tr-TR")
        }
        stop.append(.init(reason: .dropped, packs: [], locale: ""))
        var seen: Set<String> = []
        for reader in readers { seen.formUnion(await reader.value) }
        XCTAssertTrue(seen.isSubset(of: allowed), "\(seen.subtracting(allowed))")
        XCTAssertFalse(seen.isEmpty)
    }
}

/// Changes noted from any thread. `@unchecked Sendable`: `lock` guards `changes`.
final class NoticeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var changes: [RolloutClient.Change] = []
    func append(_ change: RolloutClient.Change) { lock.withLock { changes.append(change) } }
    var all: [RolloutClient.Change] { lock.withLock { changes } }
}
