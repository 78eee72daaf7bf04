import Foundation
import RolloutCrypto
import RolloutModel
import XCTest

@testable import RolloutClient

/// A published site served from a directory, as a CDN would serve it: the client's requests for
/// https://cdn.example.com/site/PATH read SITE/PATH. It can go offline, hang, or alter a file.
/// `@unchecked Sendable`: `lock` guards every stored property while devices fetch; the test reads
/// `fetched` only once they are done.
final class SiteTransport: RolloutTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var root: String
    private var offline = false
    private var hanging = false
    private var alterations: [String: @Sendable ([UInt8]) -> [UInt8]] = [:]
    private(set) var fetched: [String] = []

    init(root: String) { self.root = root }

    func serve(_ root: String) { lock.withLock { self.root = root } }
    func setOffline(_ value: Bool) { lock.withLock { offline = value } }
    func setHanging(_ value: Bool) { lock.withLock { hanging = value } }
    func alter(_ path: String, _ change: (@Sendable ([UInt8]) -> [UInt8])?) {
        lock.withLock { alterations[path] = change }
    }
    func clearLog() { lock.withLock { fetched = [] } }

    func fetch(_ url: URL, limit: Int) async throws -> Data {
        let path = String(url.path.dropFirst("/site/".count))
        let (root, offline, hanging, alteration) = lock.withLock {
            () -> (String, Bool, Bool, (@Sendable ([UInt8]) -> [UInt8])?) in
            fetched.append(path)
            return (self.root, self.offline, self.hanging, alterations[path])
        }
        if hanging {
            // A server that accepts the connection and never answers, and ignores cancellation.
            while true { try? await Task.sleep(nanoseconds: 50_000_000) }
        }
        if offline { throw URLError(.notConnectedToInternet) }
        guard let data = FileManager.default.contents(atPath: root + "/" + path) else {
            throw URLError(.fileDoesNotExist)
        }
        return alteration.map { Data($0([UInt8](data))) } ?? data
    }
}

/// A repository with en-US@1, tr@1 and tr-TR@17 as baselines, a signing key and a published site.
/// `.pinnedKey`: one key from `rollout keys generate`, pinned by the app (the site's `.sig` files);
/// `.keyList`: `rollout keys init` (a root key the app builds in, publishing key 1), the site signed
/// with `.sigs` and its index expiring (docs/client.md, "Keys and expiry").
/// `@unchecked Sendable`: confined to its test, which changes the keys and minimums between rounds,
/// never while devices made from it refresh at once (ClientFleetTests); those only read them.
final class ClientWorld: @unchecked Sendable {
    enum Signing { case pinnedKey, keyList }

    static let manifestURL = URL(string: "https://cdn.example.com/site/index.json")!
    /// What the app bundles, with its own spellings so a test can tell bundled text from a pack's.
    static let bundled: [String: [String: String]] = [
        "en-US": [
            "home.title": "Welcome (bundled)", "home.banner": "Sale (bundled)", "checkout.retry": "Try again (bundled)",
            "only.bundled": "From the app",
        ],
        "tr-TR": [
            "home.title": "Hoş geldin (paket içi)", "checkout.retry": "Tekrar dene (paket içi)",
            "home.banner": "İndirim (paket içi)",
        ],
    ]

    let w: Workspace
    let signing: Signing
    /// The pinned key (`.pinnedKey`), or the publishing key the repository's list started with.
    let publicKey: String
    /// The root keys the app builds in (`.keyList`).
    var rootKeys: [String] = []
    /// The private key `publish` signs with (`.keyList`: changed by a rotation).
    var signingKey: String
    /// The app's built-in minimum index sequence.
    var minimumIndexSequence = 0
    /// The app's built-in minimum key list version (`.keyList`).
    var minimumKeysVersion = 0
    let transport: SiteTransport

    init(baselines: [String] = ["en-US@1", "tr@1", "tr-TR@17", "vi-VN@3"], signing: Signing = .pinnedKey) throws {
        w = try Workspace()
        self.signing = signing
        try w.initWithExamples()
        for id in baselines { XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0) }
        switch signing {
        case .pinnedKey:
            let keys = try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key"), "--json"))
            publicKey = try XCTUnwrap(keys["publicKey"] as? String)
            signingKey = w.scratch.path("signing.key")
        case .keyList:
            let result = try w.rollout("keys", "init", "--out", w.scratch.path("keys"))
            XCTAssertEqual(result.status, 0, result.output)
            rootKeys = [try ClientWorld.publicKey(of: w.scratch.path("keys/root.key"))]
            signingKey = w.scratch.path("keys/publish-1.key")
            publicKey = try ClientWorld.publicKey(of: signingKey)
        }
        transport = SiteTransport(root: w.scratch.path("site"))
        try publish()
    }

    /// The public key of a private key file `rollout keys` wrote.
    static func publicKey(of file: String) throws -> String {
        try Ed25519.PrivateKey.pem(String(contentsOfFile: file, encoding: .utf8)).publicKey.description
    }

    func publish(_ site: String = "site", _ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let result = try w.rollout(["publish", "--out", w.scratch.path(site), "--key", signingKey] + extra)
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
    }

    func rollout(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try w.rollout(arguments)
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
    }

    /// tr-TR@18 promoted to everyone and published.
    func promoteEighteen(file: StaticString = #filePath, line: UInt = #line) throws {
        try rollout("promote", "tr-TR@18", "--to", "100%", "--force", "--reason", "typo fix", file: file, line: line)
        try publish(file: file, line: line)
    }

    /// A device that took tr-TR@17, then tr-TR@18 (so 17 is its previous pack).
    func deviceOnEighteen(_ device: String = "phone") async throws -> RolloutClient {
        let client = self.client(device)
        await client.refreshAndActivate()
        try promoteEighteen()
        await client.refreshAndActivate()
        XCTAssertEqual(client.activePack, PackID("tr-TR@18"))
        return client
    }

    /// The device "phone" starts from a copy of the cache at `base`, refreshes and activates, and
    /// dies after `cut` units of writing. True when it finished before the cut.
    func dyingRefresh(from base: String, cut: Int) async throws -> Bool {
        let device = cache("phone").path
        try? FileManager.default.removeItem(atPath: device)
        try FileManager.default.copyItem(atPath: base, toPath: device)
        let dying = client()
        dying.storageBudget = cut
        await dying.refreshAndActivate()
        return (dying.storageBudget ?? 0) > 0
    }

    func cache(_ device: String) -> URL { URL(fileURLWithPath: w.scratch.path("devices/\(device)")) }

    func client(
        _ device: String = "phone", locale: String = "tr-TR", region: String = "TR", app: String = "4.8.1",
        installID: String? = nil,
        timeout: TimeInterval = 15, schemaVersions: Set<Int>? = nil, now: Date? = nil
    ) -> RolloutClient {
        var options = RolloutClient.Options()
        if let now { options.now = { now } }
        options.transport = transport
        options.installID = installID ?? "install-\(device)"
        options.timeout = timeout
        // Tests refresh many times a minute; the interval has tests of its own (RefreshPolicyTests).
        options.minimumRefreshInterval = 0
        if let schemaVersions { options.schemaVersions = schemaVersions }
        return client(device, options: options, app: app, region: region, locale: locale)
    }

    /// The app on `device`, built with this world's keys: pinned, or the root keys (and the
    /// built-in minimum sequence and key list version).
    func client(
        _ device: String, options: RolloutClient.Options, app: String = "4.8.1", region: String = "TR",
        locale: String = "tr-TR"
    )
        -> RolloutClient
    {
        var options = options
        options.minimumIndexSequence = minimumIndexSequence
        switch signing {
        case .pinnedKey:
            return RolloutClient(
                bundled: ClientWorld.bundled, cacheDirectory: cache(device), manifestURL: ClientWorld.manifestURL,
                publicKey: publicKey,
                appVersion: app, region: region, locale: locale, options: options)
        case .keyList:
            return RolloutClient(
                bundled: ClientWorld.bundled, cacheDirectory: cache(device), manifestURL: ClientWorld.manifestURL,
                trust: RolloutClient.Trust(rootKeys: rootKeys, minimumKeysVersion: minimumKeysVersion), appVersion: app,
                region: region, locale: locale, options: options)
        }
    }
}

extension RolloutClient {
    func refreshAndActivate() async {
        _ = await refresh()
        activatePending()
    }
}

extension PackID {
    init(_ text: String) { self = try! PackID.parse(text) }
}

/// The device side of the seed's cases: start-up, refresh, activation, fallback, tampering,
/// rollback on the device, and a process killed mid-write.
final class ClientTests: XCTestCase {
    func testStartUpUsesBundledStringsAndNeverWaitsForTheNetwork() async throws {
        let world = try ClientWorld()
        world.transport.setHanging(true)
        let began = Date()
        let client = world.client(timeout: 0.3)
        XCTAssertEqual(client.string("home.title"), "Hoş geldin (paket içi)")
        XCTAssertEqual(client.string("home.banner"), "İndirim (paket içi)")
        XCTAssertEqual(
            client.string("only.bundled"), "From the app",
            "a key the Turkish bundle lacks comes from the default locale's")
        XCTAssertLessThan(Date().timeIntervalSince(began), 0.3, "the first string does not wait for the network")
        let result = await client.refresh()
        guard case .failed(let why) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(why.reason, .timedOut)
        XCTAssertTrue(why.message.contains("timed out"), why.message)
        XCTAssertNil(client.activePack)
        XCTAssertEqual(client.string("home.title"), "Hoş geldin (paket içi)")
    }

    func testRefreshStagesVerifiedPacksThatActivateOnlyWhenTheAppSays() async throws {
        let world = try ClientWorld()
        let client = world.client()
        let result = await client.refresh()
        XCTAssertEqual(result, .staged(staged: [PackID("tr-TR@17"), PackID("tr@1"), PackID("en-US@1")], dropped: []))
        XCTAssertEqual(client.string("home.title"), "Hoş geldin (paket içi)", "staged is not active")
        XCTAssertEqual(Set(client.pendingPacks), [PackID("en-US@1"), PackID("tr-TR@17"), PackID("tr@1")])
        XCTAssertEqual(Set(client.activatePending()), [PackID("en-US@1"), PackID("tr-TR@17"), PackID("tr@1")])
        XCTAssertEqual(client.string("home.title"), "Hoş gledin", "tr-TR@17, typo and all")
        XCTAssertEqual(
            client.string("home.banner"), "İndirim (paket içi)",
            "tr-TR@17 lacks it and the app bundles it in Turkish: the own locale's bundled text comes before the next locale (docs/client.md, Lookup)"
        )
        XCTAssertEqual(client.string("only.bundled"), "From the app")
        let refreshed1 = await client.refresh()
        XCTAssertEqual(refreshed1, .upToDate(dropped: []), "nothing new: nothing downloaded")

        // The next launch, offline: the cached packs at once.
        world.transport.setOffline(true)
        let relaunched = world.client()
        XCTAssertEqual(relaunched.activePack, PackID("tr-TR@17"))
        XCTAssertEqual(relaunched.string("home.title"), "Hoş gledin")
        guard case .failed(let offline) = await relaunched.refresh() else {
            return XCTFail("offline must fail quietly")
        }
        XCTAssertEqual(offline.reason, .unreachable, offline.message)
        XCTAssertEqual(relaunched.string("home.title"), "Hoş gledin", "offline keeps the current pack")
    }

    /// The default transport, URLSession, against a real HTTP server on loopback serving the site.
    func testRefreshOverHTTPWithURLSession() async throws {
        let world = try ClientWorld()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = [
            "python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory",
            world.w.scratch.path("site"),
        ]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            // SIGKILL: a child spawned from the test's threads inherits their blocked SIGTERM. And not
            // waitUntilExit: it waits on a run loop that an async test's thread does not run.
            kill(server.processIdentifier, SIGKILL)
            for _ in 0..<100 where server.isRunning { usleep(20_000) }
        }
        // "Serving HTTP on 127.0.0.1 port 43817 (http://127.0.0.1:43817/) ..."
        var banner = ""
        while !banner.contains("\n") {
            banner += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        }
        let port = try XCTUnwrap(
            banner.split(separator: " ").firstIndex(of: "port").map { banner.split(separator: " ")[$0 + 1] }, banner)

        var options = RolloutClient.Options()
        options.installID = "http-device"
        options.timeout = 10
        let client = RolloutClient(
            bundled: ClientWorld.bundled, cacheDirectory: world.cache("http"),
            manifestURL: URL(string: "http://127.0.0.1:\(port)/index.json")!,
            publicKey: world.publicKey, appVersion: "4.8.1", region: "TR", locale: "tr-TR", options: options)
        let result = await client.refresh()
        XCTAssertEqual(result, .staged(staged: [PackID("tr-TR@17"), PackID("tr@1"), PackID("en-US@1")], dropped: []))
        client.activatePending()
        XCTAssertEqual(client.string("home.title"), "Hoş gledin")
        let missing = RolloutClient(
            bundled: ClientWorld.bundled, cacheDirectory: world.cache("http404"),
            manifestURL: URL(string: "http://127.0.0.1:\(port)/nothing/index.json")!,
            publicKey: world.publicKey, appVersion: "4.8.1", region: "TR", locale: "tr-TR", options: options)
        guard case .failed(let why) = await missing.refresh() else { return XCTFail("a 404 must fail quietly") }
        XCTAssertEqual(why.reason, .notFound)
        XCTAssertTrue(why.message.contains("404"), why.message)
    }

    func testAPendingPackBecomesActiveAtTheNextStart() async throws {
        let world = try ClientWorld()
        _ = await world.client().refresh()
        let relaunched = world.client()
        XCTAssertEqual(relaunched.activePack, PackID("tr-TR@17"))
        XCTAssertEqual(relaunched.pendingPacks, [])
    }

    func testPlaceholdersAndKeysThatExistNowhere() async throws {
        let world = try ClientWorld()
        let client = world.client()
        await client.refreshAndActivate()
        XCTAssertEqual(client.string("profile.greeting", ["name": "Ada"]), "Merhaba, Ada!")
        XCTAssertEqual(client.string("cart.items", ["1": "3"]), "Sepetinde 3 ürün var")
        XCTAssertEqual(client.string("files.count", ["count": "2"]), "2 dosya")
        XCTAssertEqual(client.string("no.such.key", fallback: "Devam"), "Devam")
        XCTAssertEqual(client.string("no.such.key"), "…", "never empty, never the key name")
    }

    func testTheLocaleChangesAndStringsAreReadAgain() async throws {
        let world = try ClientWorld()
        let client = world.client()
        await client.refreshAndActivate()
        XCTAssertEqual(client.string("home.title"), "Hoş gledin")
        let english =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("en-US@1")))) as! [String: Any]
        client.setLocale("vi-VN")
        XCTAssertEqual(
            client.string("home.title"), (english["strings"] as! [String: String])["home.title"],
            "no Vietnamese yet: the next locale of its chain, en-US@1, at once")
        let refreshed2 = await client.refresh()
        XCTAssertEqual(refreshed2, .staged(staged: [PackID("vi-VN@3")], dropped: []), "en-US@1 is already active")
        client.activatePending()
        let vietnamese =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("vi-VN@3")))) as! [String: Any]
        XCTAssertEqual(client.string("home.title"), (vietnamese["strings"] as! [String: String])["home.title"])
        world.transport.setOffline(true)
        client.setLocale("tr-TR")
        XCTAssertEqual(client.string("home.title"), "Hoş gledin", "back to Turkish from the cache, without the network")
        XCTAssertEqual(
            world.client(locale: "vi-VN").activePack, PackID("vi-VN@3"),
            "and both locales' packs at the next start, offline")
    }

    func testAPackForANewerSchemaIsRefused() async throws {
        let world = try ClientWorld()
        // An app build that understands schema 1 only meets today's schema 2 packs.
        let old = world.client(schemaVersions: [1])
        guard case .partial(let staged, _, let failures) = await old.refresh() else {
            return XCTFail("a newer schema must be refused")
        }
        XCTAssertEqual(staged, [])
        XCTAssertEqual(failures.count, 3, "\(failures)")
        XCTAssertTrue(
            failures.allSatisfy { $0.reason == .unsupportedSchema && $0.message.contains("schemaVersion 2") },
            "\(failures)")
        XCTAssertEqual(old.pendingPacks, [])
        XCTAssertEqual(old.string("home.title"), "Hoş geldin (paket içi)")
    }

    func testAnEmptyOrAlteredDownloadIsRefusedAndTheLastGoodPackStays() async throws {
        let world = try ClientWorld()
        let client = world.client()
        await client.refreshAndActivate()
        try world.promoteEighteen()
        let manifest = try LocaleManifest.parse(
            [UInt8](Data(contentsOf: URL(fileURLWithPath: world.w.scratch.path("site/manifests/tr-TR.json")))),
            source: "m")
        let packURL = try XCTUnwrap(manifest.packs[18]).url

        let cases: [(String, String, @Sendable ([UInt8]) -> [UInt8])] = [
            ("empty pack file", packURL, { _ in [] }),
            (
                "one byte of the pack", packURL,
                {
                    var b = $0
                    b[b.count / 2] ^= 0x01
                    return b
                }
            ),
            (
                "one byte of the manifest", "manifests/tr-TR.json",
                {
                    var b = $0
                    b[b.count / 3] ^= 0x01
                    return b
                }
            ),
            (
                "one byte of the manifest's signature", "manifests/tr-TR.json.sig",
                {
                    var b = $0
                    b[4] = b[4] == 0x41 ? 0x42 : 0x41
                    return b
                }
            ),
            (
                "one byte of the index", "index.json",
                {
                    var b = $0
                    b[b.count / 2] ^= 0x01
                    return b
                }
            ),
        ]
        for (label, path, change) in cases {
            world.transport.alter(path, change)
            let result = await client.refresh()
            switch result {
            case .failed: break
            case .partial(let staged, let dropped, _) where staged.isEmpty && dropped.isEmpty: break
            default: return XCTFail("\(label): \(result)")
            }
            XCTAssertEqual(client.pendingPacks, [], label)
            XCTAssertEqual(client.string("home.title"), "Hoş gledin", "\(label): the last good pack stays")
            world.transport.alter(path, nil)
        }
        let refreshed3 = await client.refresh()
        XCTAssertEqual(refreshed3, .staged(staged: [PackID("tr-TR@18")], dropped: []))
        client.activatePending()
        XCTAssertEqual(client.string("home.title"), "Hoş geldin")
    }

    func testAReplayedOlderSiteIsRefused() async throws {
        let world = try ClientWorld()
        try FileManager.default.copyItem(atPath: world.w.scratch.path("site"), toPath: world.w.scratch.path("old-site"))
        try world.promoteEighteen()
        let client = world.client()
        await client.refreshAndActivate()
        XCTAssertEqual(client.activePack, PackID("tr-TR@18"))
        world.transport.serve(world.w.scratch.path("old-site"))
        guard case .failed(let why) = await client.refresh() else { return XCTFail("an older index must be refused") }
        XCTAssertEqual(why.reason, .indexReplayed)
        XCTAssertTrue(why.message.contains("older"), why.message)
        XCTAssertEqual(client.pendingPacks, [], "the old site's tr-TR@17 is not staged")
        XCTAssertEqual(client.string("home.title"), "Hoş geldin")
        let relaunched = world.client()
        guard case .failed = await relaunched.refresh() else {
            return XCTFail("the sequence seen is remembered across launches")
        }
        XCTAssertEqual(relaunched.activePack, PackID("tr-TR@18"))
        // A device that never saw the new site takes the old one: replay protection is per device.
        let refreshed4 = await world.client("fresh").refresh()
        XCTAssertEqual(
            refreshed4, .staged(staged: [PackID("tr-TR@17"), PackID("tr@1"), PackID("en-US@1")], dropped: []))
    }

    func testARevertDropsTheBlockedPackAtOnceAndItNeverComesBack() async throws {
        let world = try ClientWorld()
        let client = try await world.deviceOnEighteen()
        XCTAssertEqual(client.activePack, PackID("tr-TR@18"))
        let slot18 = try XCTUnwrap(
            FileManager.default.contents(atPath: world.cache("phone").path + "/packs/tr-TR/active"))

        try world.rollout("revert", "tr-TR", "--reason", "crash spike")
        try world.publish()
        // Offline, the device cannot know yet.
        world.transport.setOffline(true)
        XCTAssertEqual(world.client().activePack, PackID("tr-TR@18"))
        world.transport.setOffline(false)
        let relaunched = world.client()
        world.transport.clearLog()
        let result = await relaunched.refresh()
        XCTAssertEqual(result, .staged(staged: [PackID("tr-TR@17")], dropped: [PackID("tr-TR@18")]))
        XCTAssertFalse(
            world.transport.fetched.contains { $0.hasPrefix("packs/") },
            "tr-TR@17 came from the cache: \(world.transport.fetched)")
        XCTAssertEqual(
            relaunched.activePack, PackID("tr-TR@17"),
            "a blocked pack goes at once, without waiting for activatePending")
        XCTAssertEqual(relaunched.string("home.title"), "Hoş gledin")

        // A copy of the blocked pack still in the cache (a backup restored, a stale file) is never used.
        try Data(slot18).write(to: URL(fileURLWithPath: world.cache("phone").path + "/packs/tr-TR/pending"))
        world.transport.setOffline(true)
        let offline = world.client()
        XCTAssertEqual(offline.activePack, PackID("tr-TR@17"))
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: world.cache("phone").path + "/packs/tr-TR/pending"),
            "deleted from the cache")
    }

    func testTheKillSwitchTakesEveryPackOfTheLocaleAwayAndTheyStayAway() async throws {
        let world = try ClientWorld()
        let client = try await world.deviceOnEighteen()
        XCTAssertEqual(client.activePack, PackID("tr-TR@18"), "with tr-TR@17 kept as the previous pack")

        try world.rollout("revert", "tr-TR", "--to", "bundled", "--reason", "the translations are wrong everywhere")
        try world.publish()
        let result = await client.refresh()
        XCTAssertEqual(result, .upToDate(dropped: [PackID("tr-TR@18")]))
        XCTAssertNil(client.activePack)
        XCTAssertEqual(client.string("home.title"), "Hoş geldin (paket içi)", "the bundled strings at once")
        XCTAssertEqual(
            client.string("home.banner"), "İndirim (paket içi)", "the kill switch ends the chain: not tr@1 nor en-US@1")
        let files = try FileManager.default.contentsOfDirectory(atPath: world.cache("phone").path + "/packs/tr-TR")
        XCTAssertEqual(files, [], "previous and pending are gone too")
        world.transport.setOffline(true)
        XCTAssertNil(world.client().activePack, "and nothing comes back at the next start")
    }

    func testADamagedCachedPackIsNotUsed() async throws {
        let world = try ClientWorld()
        let client = try await world.deviceOnEighteen()
        world.transport.setOffline(true)
        let path = world.cache("phone").path + "/packs/tr-TR/active"
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        bytes[bytes.count - 40] ^= 0x20  // one bit of the pack's text
        try bytes.write(to: URL(fileURLWithPath: path))
        let relaunched = world.client()
        XCTAssertEqual(relaunched.activePack, PackID("tr-TR@17"), "the damaged tr-TR@18 gives way to the previous pack")
        XCTAssertEqual(relaunched.string("home.title"), "Hoş gledin")
    }

    func testAPackTheAppMarksFailedIsNeverActivatedAgain() async throws {
        let world = try ClientWorld()
        let client = try await world.deviceOnEighteen()
        XCTAssertEqual(client.activePack, PackID("tr-TR@18"))

        XCTAssertEqual(client.markActivePackFailed(), PackID("tr-TR@18"))
        XCTAssertEqual(client.activePack, PackID("tr-TR@17"), "the last good pack returns at once")
        XCTAssertEqual(client.string("home.title"), "Hoş gledin")
        let refreshed5 = await client.refresh()
        XCTAssertEqual(refreshed5, .upToDate(dropped: []), "the manifest still offers 18: not downloaded again")
        XCTAssertEqual(client.activatePending(), [])
        XCTAssertEqual(world.client().activePack, PackID("tr-TR@17"), "and not at the next start either")
        XCTAssertEqual(client.markActivePackFailed(), PackID("tr-TR@17"))
        XCTAssertNil(client.activePack, "no good tr-TR pack left")
        XCTAssertEqual(
            client.string("home.title"), "Hoş geldin (paket içi)",
            "no tr-TR pack: the app's bundled Turkish, before tr@1")
    }

    /// The process dies at every byte of a refresh that downloads tr-TR@18 (the pack file, the
    /// device state) and at every rename of its activation. Each time the app starts again on
    /// tr-TR@17 or tr-TR@18, whole, and the next refresh finishes the job.
    func testKilledAtEveryByteOfADownloadTheDeviceStartsOnAWholePack() async throws {
        let world = try ClientWorld()
        let base = try await world.deviceBeforeEighteen()
        let cuts = try await world.killedDuringTheDownloadOfEighteen(from: base, cuts: 0..., checkEvery: 211)
        XCTAssertGreaterThan(cuts, 1000, "the pack and the state were cut at every byte")
    }

    /// The process dies at every byte of the state file that records a revert's block (and every
    /// 37th unit after it, through the drop and the restaging of the previous pack): whatever the
    /// cut, once the device has recorded the block, tr-TR@18 is never active again.
    func testKilledWhileAcceptingARevertTheBlockedPackNeverReturns() async throws {
        try await ClientWorld().killedWhileAcceptingARevert(stateStep: 1)
    }
}

extension ClientWorld {
    /// A device (its cache at the returned path) on tr-TR@17, with tr-TR@18 published since.
    func deviceBeforeEighteen() async throws -> String {
        await client("base").refreshAndActivate()
        try promoteEighteen()
        return cache("base").path
    }

    /// The units (bytes, renames, removals) a refresh and activation from the cache at `base` writes.
    func unitsWritten(from base: String) async throws -> Int {
        let device = cache("phone").path
        try? FileManager.default.removeItem(atPath: device)
        try FileManager.default.copyItem(atPath: base, toPath: device)
        let measuring = client()
        measuring.storageBudget = 1 << 40
        await measuring.refreshAndActivate()
        return (1 << 40) - (measuring.storageBudget ?? 0)
    }

    /// Kills the refresh and activation of tr-TR@18 from the cache at `base` at each of `cuts` until
    /// one finishes: each time the app starts again on tr-TR@17 or tr-TR@18, whole, without temporary
    /// files, and (every `checkEvery`-th cut, and the last) the next refresh finishes the job.
    /// Returns how many cuts were made.
    func killedDuringTheDownloadOfEighteen<Cuts: Sequence>(
        from base: String, cuts: Cuts, checkEvery: Int, file: StaticString = #filePath, line: UInt = #line
    ) async throws -> Int where Cuts.Element == Int {
        let device = cache("phone").path
        var made = 0
        for cut in cuts {
            let finished = try await dyingRefresh(from: base, cut: cut)
            let reopened = client()
            let title = reopened.string("home.title")
            XCTAssertTrue(
                title == "Hoş gledin" || title == "Hoş geldin", "cut at \(cut): \(title)", file: file, line: line)
            XCTAssertTrue(
                [PackID("tr-TR@17"), PackID("tr-TR@18")].contains(reopened.activePack),
                "cut at \(cut): \(String(describing: reopened.activePack))",
                file: file, line: line)
            let leftovers = try FileManager.default.subpathsOfDirectory(atPath: device).filter { $0.contains(".tmp-") }
            XCTAssertEqual(leftovers, [], "cut at \(cut): temporary files are cleared at start", file: file, line: line)
            if made % checkEvery == 0 || finished {
                _ = await reopened.refresh()
                reopened.activatePending()
                XCTAssertEqual(
                    reopened.activePack, PackID("tr-TR@18"), "cut at \(cut): the next refresh finishes the job",
                    file: file, line: line)
            }
            made += 1
            if finished { break }
        }
        return made
    }

    /// A device on tr-TR@18 (tr-TR@17 its previous pack) meets a revert of tr-TR. The process dies
    /// at every `stateStep`-th byte of the state file that records the block (and every 37th unit
    /// after it, through the drop and the restaging of the previous pack): whatever the cut, once
    /// the device has recorded the block, tr-TR@18 is never active again.
    func killedWhileAcceptingARevert(stateStep: Int, file: StaticString = #filePath, line: UInt = #line) async throws {
        let setup = try await deviceOnEighteen("base")
        XCTAssertEqual(setup.activePack, PackID("tr-TR@18"), file: file, line: line)
        try rollout("revert", "tr-TR", "--reason", "crash spike")
        try publish()
        let base = cache("base").path
        let device = cache("phone").path
        let stateBytes = try XCTUnwrap(FileManager.default.contents(atPath: base + "/state.json")).count

        var cut = 0
        var blockedAndActive = 0
        while true {
            let finished = try await dyingRefresh(from: base, cut: cut)
            transport.setOffline(true)
            let reopened = client()
            transport.setOffline(false)
            let state = DeviceState(FileManager.default.contents(atPath: device + "/state.json").map { [UInt8]($0) })
            let knowsTheBlock = state?.blocked["tr-TR"]?.contains(18) == true
            if knowsTheBlock && reopened.activePack == PackID("tr-TR@18") { blockedAndActive += 1 }
            XCTAssertTrue(
                [PackID("tr-TR@17"), PackID("tr-TR@18")].contains(reopened.activePack),
                "cut at \(cut): \(String(describing: reopened.activePack))",
                file: file, line: line)
            if !knowsTheBlock {
                XCTAssertEqual(
                    reopened.activePack, PackID("tr-TR@18"), "cut at \(cut): nothing recorded, nothing changed",
                    file: file, line: line)
            }
            _ = await reopened.refresh()
            reopened.activatePending()
            XCTAssertEqual(
                reopened.activePack, PackID("tr-TR@17"), "cut at \(cut): the next refresh finishes the revert",
                file: file, line: line)
            if finished { break }
            cut += cut < stateBytes + 8 ? stateStep : 37
        }
        XCTAssertEqual(
            blockedAndActive, 0, "a device that recorded the block never starts on the blocked pack", file: file,
            line: line)
        XCTAssertGreaterThan(cut, stateBytes, file: file, line: line)
    }
}
