import Foundation
import RolloutCrypto
import RolloutModel
import XCTest

@testable import RolloutClient

/// A device updated to a new build of the app keeps what the old build cached (docs/client.md,
/// Start-up; DeviceStorage's layout): the cache directory below is written byte by byte as builds
/// write it today, not by the code under test, so a change to the format fails here first.
final class DeviceStateFormatTests: XCTestCase {
    /// `state.json` of a device on a pinned key, every member written.
    static let state = """
        {
          "blocked": {
            "tr-TR": [
              16
            ]
          },
          "bundleOnly": {
            "tr-TR": [
              "legal.*"
            ]
          },
          "chains": {
            "tr-TR": [
              "tr-TR",
              "tr",
              "en-US"
            ]
          },
          "counters": [
            {
              "appVersion": "4.8.0",
              "crashes": 1,
              "day": "2026-11-20",
              "fallbacks": 3,
              "lookups": 40,
              "pack": "tr-TR@17",
              "region": "TR",
              "sessions": 2
            }
          ],
          "defaultLocale": "en-US",
          "failed": [
            "tr-TR@15"
          ],
          "fallbackChains": {
            "tr-TR": [
              "tr-TR",
              "tr",
              "en-US"
            ]
          },
          "format": "rollout-device/1",
          "indexExpires": "2026-12-21T09:00:00Z",
          "indexSequence": 3,
          "killed": [],
          "lastRefresh": 1795165200,
          "launch": {
            "armed": true,
            "confirmed": {
              "tr-TR": "tr-TR@17"
            },
            "good": [
              "tr-TR@17"
            ],
            "rollbacks": 1,
            "rolledBack": [
              "tr-TR@15"
            ],
            "trial": {}
          },
          "staged": [
            "tr@1"
          ]
        }

        """

    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollout-state-\(UUID().uuidString)")
        let lookup = try Self.fixture("lookup.json")
        let site = try XCTUnwrap(lookup["site"]?.objectValue)
        func file(_ path: String) throws -> [UInt8] {
            try XCTUnwrap(site[path]?.stringValue.flatMap(Base64.decode), path)
        }
        // `rollout-slot/1 <manifest bytes> <signature bytes> <pack bytes>\n`, then the three.
        func slot(_ locale: String, pack: String) throws -> [UInt8] {
            let manifest = try file("manifests/\(locale).json")
            let signature = try file("manifests/\(locale).json.sig")
            let pack = try file(pack)
            return Array("rollout-slot/1 \(manifest.count) \(signature.count) \(pack.count)\n".utf8) + manifest
                + signature + pack
        }
        try write("state.json", Array(Self.state.utf8))
        try write("install-id", Array("5F0C2A7E-1111-2222-3333-444455556666".utf8))
        try write("packs/tr-TR/active", try slot("tr-TR", pack: "packs/tr-TR/17.71738fca6a352ba2.json"))
        try write("packs/tr/pending", try slot("tr", pack: "packs/tr/1.d490c1670aa67337.json"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func write(_ name: String, _ bytes: [UInt8]) throws {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    private static func fixture(_ name: String) throws -> [String: JSONValue] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/conformance/\(name)")
        return try XCTUnwrap(StrictJSONParser.parse([UInt8](try Data(contentsOf: url))).objectValue, name)
    }

    private func client(countsLaunch: Bool) throws -> RolloutClient {
        var options = RolloutClient.Options()
        options.countsLaunch = countsLaunch
        options.now = { Date(timeIntervalSince1970: 1_795_251_600) }  // 2026-11-21T09:00:00Z
        let publicKey = try XCTUnwrap(try Self.fixture("lookup.json")["publicKey"]?.stringValue)
        return RolloutClient(
            bundled: BundledStrings(["en-US": ["title": "bundled title"]]), cacheDirectory: directory,
            manifestURL: URL(string: "https://cdn.example.com/site/index.json")!, publicKey: publicKey,
            appVersion: "4.8.1",
            region: "TR", locale: "tr-TR", options: options)
    }

    func testStateWrittenTodayReadsBackAndIsWrittenAgainByteForByte() throws {
        let bytes = Array(Self.state.utf8)
        let state = try XCTUnwrap(DeviceState(bytes))
        XCTAssertEqual(String(decoding: state.bytes, as: UTF8.self), Self.state)
        XCTAssertEqual(state.launch.rolledBack, ["tr-TR@15"])
        XCTAssertEqual(state.staged, ["tr@1"])
        XCTAssertEqual(
            state.counters.csv(.crash),
            "date,locale,pack,region,app_version,sessions,crashes\n2026-11-20,tr-TR,tr-TR@17,TR,4.8.0,2,1\n")
    }

    func testACacheWrittenTodayLoadsWithItsPacksAndMemory() throws {
        let device = try client(countsLaunch: false)
        XCTAssertEqual(device.installID, "5F0C2A7E-1111-2222-3333-444455556666")
        XCTAssertEqual(device.activePack, PackID(locale: "tr-TR", contentVersion: 17))
        // Read before any lookup of this process counts one.
        XCTAssertEqual(
            device.metricsCSV(.fallback),
            "date,locale,pack,region,app_version,lookups,fallbacks\n2026-11-20,tr-TR,tr-TR@17,TR,4.8.0,40,3\n")
        XCTAssertEqual(device.string("title"), "tr-TR@17 title")
        XCTAssertEqual(device.pendingPacks, [PackID(locale: "tr", contentVersion: 1)])
        let status = device.status
        XCTAssertEqual(status.chain, ["tr-TR", "tr", "en-US"])
        XCTAssertEqual(status.packs["tr-TR"], .init(active: PackID(locale: "tr-TR", contentVersion: 17)))
        XCTAssertEqual(status.packs["tr"], .init(pending: PackID(locale: "tr", contentVersion: 1)))
        XCTAssertEqual(status.failed, [PackID(locale: "tr-TR", contentVersion: 15)])
        XCTAssertEqual(status.blocked, ["tr-TR": [16]])
        XCTAssertEqual(status.indexSequence, 3)
        XCTAssertEqual(status.lastRefresh, Date(timeIntervalSince1970: 1_795_165_200))
        XCTAssertEqual(status.indexExpires, Date(timeIntervalSince1970: 1_797_843_600))
        XCTAssertFalse(status.isStale)
        XCTAssertTrue(status.launch.armed)
        XCTAssertEqual(status.launch.rolledBack, [PackID(locale: "tr-TR", contentVersion: 15)])
        XCTAssertEqual(status.launch.rollbacks, 1)
        // A client that only looks at the cache writes nothing.
        let written = try Data(contentsOf: directory.appendingPathComponent("state.json"))
        XCTAssertEqual(String(decoding: written, as: UTF8.self), Self.state)
    }

    func testALaunchOnACacheWrittenTodayActivatesWhatTheOldBuildStaged() throws {
        let device = try client(countsLaunch: true)
        XCTAssertEqual(
            device.activePacks, [PackID(locale: "tr", contentVersion: 1), PackID(locale: "tr-TR", contentVersion: 17)])
        XCTAssertEqual(device.pendingPacks, [])
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("packs/tr/pending").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("packs/tr/active").path))
    }
}
