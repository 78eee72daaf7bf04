import Foundation
import RolloutCrypto
import RolloutModel
import XCTest

@testable import RolloutClient

extension ClientWorld {
    var keysDirectory: String { w.scratch.path("keys") }

    /// `rollout keys rotate`: a new publishing key, the old one retired now; publish signs with the new one.
    func rotatePublishingKey(
        root: String = "root.key", overlap: String = "0s", file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let version = try XCTUnwrap(try w.json(try w.rollout("keys", "list", "--json"))["version"] as? Int) + 1
        var arguments = ["keys", "rotate", "--root", "\(keysDirectory)/\(root)"]
        if overlap != "0s" { arguments += ["--overlap", overlap] }
        let result = try w.rollout(arguments)
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
        signingKey = "\(keysDirectory)/publish-\(version).key"
        XCTAssertTrue(FileManager.default.fileExists(atPath: signingKey), signingKey, file: file, line: line)
    }

    func revoke(_ publicKey: String, reason: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let id = try XCTUnwrap(Ed25519.PublicKey(publicKey)).keyID
        try rollout(
            "keys", "revoke", id, "--root", "\(keysDirectory)/root.key", "--reason", reason, file: file, line: line)
    }

    /// The key list the repository holds now, as the next publish puts it on the site.
    func siteKeys(_ site: String = "site") throws -> KeyList {
        try KeyList.parse(
            [UInt8](Data(contentsOf: URL(fileURLWithPath: w.scratch.path("\(site)/keys.json")))), source: "keys.json")
    }

    func siteSequence(_ site: String = "site") throws -> Int {
        try SiteIndex.parse(
            [UInt8](Data(contentsOf: URL(fileURLWithPath: w.scratch.path("\(site)/index.json")))), source: "index.json"
        ).sequence
    }

    /// What the device holds on disk, read as its next start reads it.
    func storedState(_ device: String = "phone") -> DeviceState? {
        DeviceState(FileManager.default.contents(atPath: cache(device).path + "/state.json").map { [UInt8]($0) })
    }

    /// The key ids whose signatures vouch for the manifest stored with a slot's pack (none: a
    /// legacy `.sig`, or no slot).
    func slotSigners(_ name: String, _ device: String = "phone") -> [String] {
        guard let bytes = FileManager.default.contents(atPath: cache(device).path + "/" + name),
            let slot = PackSlot([UInt8](bytes)),
            let set = try? SignatureSet.parse(slot.signature, source: name)
        else { return [] }
        return set.entries.map(\.keyID)
    }

    /// Serves `files` (site path to bytes) in place of the published ones: an attacker's CDN.
    func serve(_ files: [String: [UInt8]]) {
        for (path, bytes) in files { transport.alter(path, { _ in bytes }) }
    }

    func files(_ site: String, _ paths: [String]) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for path in paths {
            files[path] = [UInt8](try Data(contentsOf: URL(fileURLWithPath: w.scratch.path("\(site)/\(path)"))))
        }
        return files
    }
}

/// The device on a key list (docs/client.md, "Keys and expiry"; docs/keys.md): what it accepts,
/// what it refuses, and that what it learned holds after the app is started again.
final class ClientTrustTests: XCTestCase {
    static let signedFiles = [
        "keys.json", "keys.json.sigs", "index.json", "index.json.sigs", "manifests/tr-TR.json",
        "manifests/tr-TR.json.sigs",
        "manifests/tr.json", "manifests/tr.json.sigs", "manifests/en-US.json", "manifests/en-US.json.sigs",
    ]

    func testANewPublishingKeyReachesDevicesWithoutAnAppUpdate() async throws {
        let world = try ClientWorld(signing: .keyList)
        let client = world.client()
        await client.refreshAndActivate()
        XCTAssertEqual(client.status.keysVersion, 1)
        XCTAssertEqual(
            world.slotSigners("packs/tr-TR/active"), [try XCTUnwrap(Ed25519.PublicKey(world.publicKey)).keyID])

        try world.rotatePublishingKey()
        try world.promoteEighteen()
        let result = await client.refresh()
        XCTAssertEqual(result, .staged(staged: [PackID("tr-TR@18")], dropped: []))
        let newKey = try XCTUnwrap(Ed25519.PublicKey(ClientWorld.publicKey(of: world.signingKey))).keyID

        let relaunched = world.client()
        XCTAssertEqual(relaunched.activePack, PackID("tr-TR@18"))
        XCTAssertEqual(relaunched.status.keysVersion, 2, "the rotated list is kept across launches")
        XCTAssertEqual(world.slotSigners("packs/tr-TR/active"), [newKey])
        XCTAssertEqual(
            relaunched.status.packs["tr-TR"]?.previous, PackID("tr-TR@17"),
            "the retired key still vouches for the pack it delivered: expiry stops new sites, not cached packs")
        world.transport.setOffline(true)
        XCTAssertEqual(world.client().activePack, PackID("tr-TR@18"))
    }

    /// What someone holding publishing key 1 can serve: a site it signed while it was valid, with
    /// tr-TR@18 (published to `leaked-site`; the repository reverts it).
    private func siteSignedByKeyOne(_ world: ClientWorld) throws -> [String: [UInt8]] {
        try world.rollout("promote", "tr-TR@18", "--to", "100%", "--force", "--reason", "the attacker's change")
        try world.publish("leaked-site")
        try world.rollout("revert", "tr-TR", "--reason", "not ours")
        return try world.files("leaked-site", ClientTrustTests.signedFiles)
    }

    /// The team rotates and revokes publishing key 1. A device that saw the revocation drops what
    /// only key 1 vouched for, takes it again as key 2 signed it, and refuses a site signed by key 1,
    /// now and after it starts again.
    func testARevokedKeysNewSiteIsRefusedByADeviceThatSawTheRevocation() async throws {
        let world = try ClientWorld(signing: .keyList)
        let firstKey = try XCTUnwrap(Ed25519.PublicKey(world.publicKey)).keyID
        let client = world.client()
        await client.refreshAndActivate()
        let keyOneSite = try siteSignedByKeyOne(world)

        try world.rotatePublishingKey()
        try world.revoke(world.publicKey, reason: "laptop lost")
        try world.publish()
        let accepted = await client.refresh()
        guard case .staged(let staged, let dropped) = accepted else { return XCTFail("\(accepted)") }
        XCTAssertEqual(
            Set(dropped), [PackID("tr-TR@17"), PackID("tr@1"), PackID("en-US@1")],
            "every pack only key 1 vouched for goes at once")
        XCTAssertEqual(
            Set(staged), [PackID("tr-TR@17"), PackID("tr@1"), PackID("en-US@1")], "and comes back, vouched for by key 2"
        )
        XCTAssertEqual(client.activePack, PackID("tr-TR@17"), "at once: its locale had nothing left on screen")
        XCTAssertEqual(client.status.keysVersion, 3)

        // Key 1's site, served with today's key list.
        var attack = keyOneSite
        attack.merge(try world.files("site", ["keys.json", "keys.json.sigs"])) { $1 }
        world.serve(attack)
        for (label, device) in [("running", client), ("relaunched", world.client())] {
            guard case .failed(let why) = await device.refresh() else {
                return XCTFail("\(label): a revoked key's site must be refused")
            }
            XCTAssertEqual(why.reason, .revokedKey, label)
            XCTAssertTrue(
                why.message.contains("revoked publishing key") && why.message.contains("laptop lost"),
                "\(label): \(why)")
            XCTAssertEqual(device.activePack, PackID("tr-TR@17"), label)
            XCTAssertEqual(device.pendingPacks, [], label)
        }
        world.transport.setOffline(true)
        let relaunched = world.client()
        XCTAssertEqual(relaunched.status.keysVersion, 3)
        XCTAssertEqual(relaunched.activePack, PackID("tr-TR@17"))
        for slot in ["active", "previous", "pending"] {
            XCTAssertFalse(
                world.slotSigners("packs/tr-TR/\(slot)").contains(firstKey),
                "\(slot): nothing only key 1 vouched for is kept")
        }
    }

    /// The active pack came with a key that is then revoked, the previous one with the key that
    /// stays: the previous pack is back at once, and the active one returns, signed by the key that
    /// stays, when the app activates it.
    func testARevokedKeysActivePackGivesWayToThePreviousOneAtOnce() async throws {
        let world = try ClientWorld(signing: .keyList)
        let keyOne = world.signingKey
        try world.rotatePublishingKey(overlap: "30d")
        let keyTwo = world.signingKey
        try world.publish()
        let client = world.client()
        await client.refreshAndActivate()
        world.signingKey = keyOne
        try world.promoteEighteen()
        await client.refreshAndActivate()
        XCTAssertEqual(client.activePack, PackID("tr-TR@18"))
        XCTAssertEqual(client.status.packs["tr-TR"]?.previous, PackID("tr-TR@17"))

        world.signingKey = keyTwo
        try world.revoke(try ClientWorld.publicKey(of: keyOne), reason: "laptop lost")
        try world.publish()
        let result = await client.refresh()
        guard case .staged(let staged, let dropped) = result else { return XCTFail("\(result)") }
        XCTAssertTrue(dropped.contains(PackID("tr-TR@18")), "\(dropped)")
        XCTAssertTrue(staged.contains(PackID("tr-TR@18")), "\(staged)")
        XCTAssertEqual(
            client.activePack, PackID("tr-TR@17"), "the previous pack, which the key that stays vouched for, at once")
        world.transport.setOffline(true)
        let relaunched = world.client()
        XCTAssertEqual(relaunched.activePack, PackID("tr-TR@18"), "the pack signed again by key 2, at the next start")
        XCTAssertEqual(
            world.slotSigners("packs/tr-TR/active"),
            [try XCTUnwrap(Ed25519.PublicKey(ClientWorld.publicKey(of: keyTwo))).keyID])
    }

    /// A publishing key leaks and is revoked. The attacker serves a site it signed with the key list
    /// it was valid under (a replay) or with the current one (the key is revoked): both refused, by
    /// the device before and after it starts again, and by a device that never ran before.
    func testALeakedThenRevokedKeysSiteIsRefused() async throws {
        let world = try ClientWorld(signing: .keyList)
        let leaked = try siteSignedByKeyOne(world)
        try world.rotatePublishingKey()
        try world.revoke(world.publicKey, reason: "leaked")
        try world.publish()
        let client = world.client()
        await client.refreshAndActivate()
        XCTAssertEqual(client.status.keysVersion, 3)

        world.serve(leaked)
        for (label, device) in [("running", client), ("relaunched", world.client())] {
            guard case .failed(let why) = await device.refresh() else {
                return XCTFail("\(label): a replayed key list must be refused")
            }
            XCTAssertEqual(why.reason, .keysReplayed, label)
            XCTAssertTrue(why.message.contains("keys.json: version 1 is older than version 3"), "\(label): \(why)")
            XCTAssertEqual(device.activePack, PackID("tr-TR@17"), label)
        }
        var withCurrentKeys = leaked
        withCurrentKeys.merge(try world.files("site", ["keys.json", "keys.json.sigs"])) { $1 }
        world.serve(withCurrentKeys)
        for (label, device) in [("running", client), ("relaunched", world.client()), ("new", world.client("new"))] {
            guard case .failed(let why) = await device.refresh() else {
                return XCTFail("\(label): a revoked key's site must be refused")
            }
            XCTAssertEqual(why.reason, .revokedKey, label)
            XCTAssertTrue(
                why.message.contains("revoked publishing key") && why.message.contains("(leaked)"), "\(label): \(why)")
            XCTAssertEqual(device.pendingPacks, [], label)
        }
        world.transport.setOffline(true)
        let relaunched = world.client()
        XCTAssertEqual(relaunched.activePack, PackID("tr-TR@17"))
        XCTAssertEqual(relaunched.status.keysVersion, 3)
        XCTAssertNil(world.client("new").activePack)
    }

    /// The site stops being refreshed (or something serves an old copy): past the index's expiry the
    /// device refuses it, even with new packs in it, keeps its packs, and says it is stale, across
    /// launches; a publish with a later expiry ends it.
    func testAnExpiredIndexIsRefusedWhileTheDeviceKeepsItsPacks() async throws {
        let world = try ClientWorld(signing: .keyList)
        let client = world.client()
        await client.refreshAndActivate()
        XCTAssertFalse(client.status.isStale)
        let expires = try XCTUnwrap(client.status.indexExpires)
        XCTAssertEqual(expires.timeIntervalSinceNow, 7 * 86_400, accuracy: 120, "publish's default: 7 days")

        try world.rollout("promote", "tr-TR@18", "--to", "100%", "--force", "--reason", "typo fix")
        try world.publish("site", ["--expires", "1h"])
        let later = Date().addingTimeInterval(8 * 86_400)
        let stale = world.client(now: later)
        XCTAssertTrue(stale.status.isStale, "the index it accepted expired")
        XCTAssertEqual(stale.activePack, PackID("tr-TR@17"))
        guard case .failed(let why) = await stale.refresh() else { return XCTFail("an expired index must be refused") }
        XCTAssertEqual(why.reason, .indexExpired)
        XCTAssertTrue(why.message.contains("index.json: expired at"), why.message)
        XCTAssertEqual(stale.pendingPacks, [], "tr-TR@18 is not staged")

        world.transport.setOffline(true)
        let relaunched = world.client(now: later)
        XCTAssertEqual(relaunched.activePack, PackID("tr-TR@17"), "the packs stay in use")
        XCTAssertEqual(relaunched.string("home.title"), "Hoş gledin")
        XCTAssertTrue(relaunched.status.isStale)
        XCTAssertEqual(relaunched.status.indexExpires, expires)
        world.transport.setOffline(false)

        try world.publish("site", ["--expires", "30d"])
        let refreshed = await relaunched.refresh()
        XCTAssertEqual(refreshed, .staged(staged: [PackID("tr-TR@18")], dropped: []))
        XCTAssertFalse(world.client(now: later).status.isStale, "fresh again, across a launch")
        XCTAssertEqual(world.client(now: later).activePack, PackID("tr-TR@18"))
    }

    /// An app built with the minimum sequence of the site it shipped with: a fresh install shown an
    /// older copy of the site (with a pack blocked since) refuses it, and takes the current one.
    func testAFreshInstallWithABuiltInMinimumSequenceRefusesAnOldSite() async throws {
        let world = try ClientWorld(signing: .keyList)
        try FileManager.default.copyItem(atPath: world.w.scratch.path("site"), toPath: world.w.scratch.path("old-site"))
        try world.promoteEighteen()
        world.minimumIndexSequence = try world.siteSequence()
        XCTAssertGreaterThan(world.minimumIndexSequence, try world.siteSequence("old-site"))

        world.transport.serve(world.w.scratch.path("old-site"))
        let fresh = world.client()
        guard case .failed(let why) = await fresh.refresh() else {
            return XCTFail("an older site than the app must be refused")
        }
        XCTAssertEqual(why.reason, .belowMinimumSequence)
        XCTAssertTrue(why.message.contains("the minimum built into this app"), why.message)
        XCTAssertEqual(fresh.pendingPacks, [])
        let relaunched = world.client()
        XCTAssertNil(relaunched.activePack)
        XCTAssertEqual(relaunched.status.indexSequence, 0)
        guard case .failed = await relaunched.refresh() else { return XCTFail("and again after a relaunch") }

        world.transport.serve(world.w.scratch.path("site"))
        await relaunched.refreshAndActivate()
        XCTAssertEqual(world.client().activePack, PackID("tr-TR@18"))
        XCTAssertEqual(world.client().status.indexSequence, world.minimumIndexSequence)
    }

    /// The root key is replaced (`keys rotate-root`), then the publishing key under the new root. A
    /// device built with the old root walks keys/2.json to the new one; an app built with the new
    /// root reads keys.json alone; after a relaunch both refuse a key list signed by the old root only.
    func testARotatedRootIsWalkedByOldAppsAndBuiltIntoNewOnes() async throws {
        let world = try ClientWorld(signing: .keyList)
        let oldApp = world.client()
        await oldApp.refreshAndActivate()
        try world.rollout(
            "keys", "rotate-root", "--root", "\(world.keysDirectory)/root.key", "--out",
            "\(world.keysDirectory)/root-2.key")
        try world.rotatePublishingKey(root: "root-2.key")
        try world.promoteEighteen()
        XCTAssertEqual(try world.siteKeys().version, 3)
        XCTAssertEqual(try world.siteKeys().rootChanges, [1, 2])

        world.transport.clearLog()
        let walked = await oldApp.refresh()
        XCTAssertEqual(walked, .staged(staged: [PackID("tr-TR@18")], dropped: []))
        XCTAssertTrue(world.transport.fetched.contains("keys/2.json"), "\(world.transport.fetched)")
        XCTAssertEqual(world.client().status.keysVersion, 3, "the new roots are kept across launches")

        let newRoot = try ClientWorld.publicKey(of: "\(world.keysDirectory)/root-2.key")
        world.rootKeys = [newRoot]
        world.transport.clearLog()
        await world.client("new-app").refreshAndActivate()
        XCTAssertFalse(
            world.transport.fetched.contains("keys/2.json"), "signed by the roots it built in: nothing to walk")
        XCTAssertEqual(world.client("new-app").activePack, PackID("tr-TR@18"))

        // Whoever kept the old root signs a list of their own: version 4, the old root its only root.
        let oldRoot = try Ed25519.PrivateKey.pem(
            String(contentsOfFile: "\(world.keysDirectory)/root.key", encoding: .utf8))
        var forged = try world.siteKeys()
        forged.version = 4
        forged.roots = KeyList.Roots(keys: [oldRoot.publicKey], threshold: 1)
        forged.rootChanges = [1, 2, 4]
        let bytes = forged.bytes
        world.serve([
            "keys.json": bytes,
            "keys.json.sigs": SignatureSet([.init(keyID: oldRoot.publicKey.keyID, signature: oldRoot.sign(bytes))])
                .bytes,
        ])
        for device in ["phone", "new-app"] {
            let relaunched = world.client(device)
            guard case .failed(let why) = await relaunched.refresh() else {
                return XCTFail("\(device): the old root's list must be refused")
            }
            XCTAssertEqual(why.reason, .notSignedByTrustedRoots, device)
            XCTAssertTrue(
                why.message.contains("keys.json: signed by 0 of the root keys this device trusts"), "\(device): \(why)")
            XCTAssertEqual(world.client(device).status.keysVersion, 3, device)
            XCTAssertEqual(world.client(device).activePack, PackID("tr-TR@18"), device)
        }
    }

    /// Publishing key 1 leaks; the team revokes it (key list version 3) and builds that version into
    /// the next app. The attacker serves the key list from before the revocation, with an index key 1
    /// signed at a sequence above the app's built-in minimum: a fresh install of that app refuses it,
    /// also after a relaunch, and then takes the team's site. An app built without the minimum takes
    /// the old list (the limitation docs/keys.md states).
    func testAFreshInstallWithABuiltInMinimumKeysVersionRefusesAListFromBeforeARevocation() async throws {
        let world = try ClientWorld(signing: .keyList)
        _ = try siteSignedByKeyOne(world)
        try world.rotatePublishingKey()
        try world.revoke(world.publicKey, reason: "leaked")
        try world.publish()
        let minimum = try world.siteKeys().version
        XCTAssertEqual(minimum, 3)
        XCTAssertEqual(
            try world.siteKeys("leaked-site").version, 1, "the leaked site carries the list from before the revocation")
        world.minimumIndexSequence = try world.siteSequence()

        let keyOne = try Ed25519.PrivateKey.pem(
            String(contentsOfFile: "\(world.keysDirectory)/publish-1.key", encoding: .utf8))
        var index = try XCTUnwrap(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: world.w.scratch.path("leaked-site/index.json"))))
                as? [String: Any])
        index["sequence"] = world.minimumIndexSequence + 100
        let indexBytes = [UInt8](try JSONSerialization.data(withJSONObject: index, options: [.sortedKeys]))
        world.transport.serve(world.w.scratch.path("leaked-site"))
        world.serve([
            "index.json": indexBytes,
            "index.json.sigs": SignatureSet([.init(keyID: keyOne.publicKey.keyID, signature: keyOne.sign(indexBytes))])
                .bytes,
        ])

        let unprotected = world.client("built-without-minimum")
        guard case .staged = await unprotected.refresh() else {
            return XCTFail("without a minimum, the old list is taken")
        }
        XCTAssertEqual(unprotected.status.keysVersion, 1)

        world.minimumKeysVersion = minimum
        for label in ["fresh", "relaunched"] {
            let device = world.client("fresh")
            guard case .failed(let why) = await device.refresh() else {
                return XCTFail("\(label): a list older than the app must be refused")
            }
            XCTAssertEqual(why.reason, .belowMinimumKeysVersion, label)
            XCTAssertTrue(
                why.message.contains(
                    "keys.json: version 1 is older than version 3, the minimum built into this app: an old key list"),
                "\(label): \(why)")
            XCTAssertEqual(
                TrustFailure.keysBelowMinimum(file: "keys.json", version: 1, minimum: 3).code,
                "below-minimum-keys-version")
            XCTAssertEqual(device.pendingPacks, [], label)
            XCTAssertNil(device.status.keysVersion, label)
            XCTAssertEqual(device.status.indexSequence, 0, label)
        }
        // The device that took the old list updates to the app built with the minimum: the pack it
        // staged from the forged site is vouched for only by a list below the minimum, and never shown.
        XCTAssertFalse(unprotected.pendingPacks.isEmpty)
        let updated = world.client("built-without-minimum")
        XCTAssertNil(updated.activePack, "a list below the app's minimum vouches for no cached pack")
        XCTAssertEqual(updated.pendingPacks, [])

        world.transport.alter("index.json", nil)
        world.transport.alter("index.json.sigs", nil)
        world.transport.serve(world.w.scratch.path("site"))
        await world.client("fresh").refreshAndActivate()
        XCTAssertEqual(world.client("fresh").status.keysVersion, 3)
        XCTAssertEqual(world.client("fresh").activePack, PackID("tr-TR@17"))
    }

    /// The root key leaks. The team runs `keys rotate-root` and ships an app built with the new root
    /// alone. A device that accepted the old list under the old app, and never fetched the rotation,
    /// refuses after the app update a list the leaked root alone signed with a higher version (it
    /// trusts the roots its app builds in, not the leaked ones it learnt), after a relaunch too; and
    /// it takes the team's list.
    func testAnAppUpdateWithANewRootStopsTrustingTheLeakedRootTheDeviceLearnt() async throws {
        let world = try ClientWorld(signing: .keyList)
        await world.client().refreshAndActivate()
        let oldRoot = try Ed25519.PrivateKey.pem(
            String(contentsOfFile: "\(world.keysDirectory)/root.key", encoding: .utf8))
        XCTAssertEqual(
            world.storedState()?.anchoredTo?.ids, [oldRoot.publicKey.keyID], "the roots the old app built in, recorded")

        try world.rollout(
            "keys", "rotate-root", "--root", "\(world.keysDirectory)/root.key", "--out",
            "\(world.keysDirectory)/root-2.key")
        try world.publish()
        let newRoot = try XCTUnwrap(
            Ed25519.PublicKey(try ClientWorld.publicKey(of: "\(world.keysDirectory)/root-2.key")))
        world.rootKeys = [newRoot.description]

        // Whoever holds the old root signs the list the device holds, with a higher version.
        var forged = try XCTUnwrap(world.storedState()?.keyList)
        XCTAssertEqual(forged.version, 1)
        forged.version = 9
        let bytes = forged.bytes
        world.serve([
            "keys.json": bytes,
            "keys.json.sigs": SignatureSet([.init(keyID: oldRoot.publicKey.keyID, signature: oldRoot.sign(bytes))])
                .bytes,
        ])
        for label in ["updated", "relaunched"] {
            let updated = world.client()
            guard case .failed(let why) = await updated.refresh() else {
                return XCTFail("\(label): the leaked root's list must be refused")
            }
            XCTAssertEqual(why.reason, .notSignedByTrustedRoots, label)
            XCTAssertTrue(
                why.message.contains("keys.json: signed by 0 of the root keys this device trusts (\(newRoot.keyID))"),
                "\(label): \(why)")
            XCTAssertEqual(updated.status.keysVersion, 1, label)
            XCTAssertEqual(updated.activePack, PackID("tr-TR@17"), label)
        }

        world.transport.alter("keys.json", nil)
        world.transport.alter("keys.json.sigs", nil)
        let result = await world.client().refresh()
        XCTAssertEqual(result, .upToDate(dropped: []))
        XCTAssertEqual(world.client().status.keysVersion, 2)
        XCTAssertEqual(world.storedState()?.anchoredTo?.ids, [newRoot.keyID])
        XCTAssertEqual(world.client().activePack, PackID("tr-TR@17"))
    }

    /// A CDN that puts whitespace before each `.sigs` (a valid JSON document still): the packs it
    /// delivered are vouched for by their `.sigs` after a relaunch too, not read as a legacy `.sig`.
    func testSignaturesWithLeadingWhitespaceVouchForTheCachedPacksAfterARelaunch() async throws {
        let world = try ClientWorld(signing: .keyList)
        for path in ClientTrustTests.signedFiles where path.hasSuffix(".sigs") {
            world.transport.alter(path) { Array(" \n".utf8) + $0 }
        }
        let client = world.client()
        await client.refreshAndActivate()
        XCTAssertEqual(client.activePack, PackID("tr-TR@17"))
        world.transport.setOffline(true)
        XCTAssertEqual(world.client().activePack, PackID("tr-TR@17"), "the cached slot's .sigs still vouches for it")
    }

    /// The process dies right after saving a key list that revokes publishing key 1, at the first
    /// removal of a slot key 1 vouched for: the app running until then no longer shows those packs,
    /// the next start refuses the slots left behind, and a refresh fetches them again as key 2 signed them.
    func testARemovalThatFailsAfterARevocationStillTakesTheRevokedKeysPacksOutOfUse() async throws {
        let world = try ClientWorld(signing: .keyList)
        await world.client().refreshAndActivate()
        let base = world.w.scratch.path("base")
        try FileManager.default.copyItem(atPath: world.cache("phone").path, toPath: base)
        try world.rotatePublishingKey()
        try world.revoke(world.publicKey, reason: "leaked")
        try world.publish()

        func dying(_ cut: Int) async throws -> RolloutClient {
            let device = world.cache("phone").path
            try? FileManager.default.removeItem(atPath: device)
            try FileManager.default.copyItem(atPath: base, toPath: device)
            let client = world.client()
            client.storageBudget = cut
            _ = await client.refresh()
            return client
        }
        // The smallest cut that saves the new list: its rename takes the last unit, the first removal fails.
        var low = 1
        var high = 1 << 16
        while low < high {
            let mid = (low + high) / 2
            _ = try await dying(mid)
            if world.storedState()?.keyList?.version == 3 { high = mid } else { low = mid + 1 }
        }
        let client = try await dying(low)
        XCTAssertEqual(world.storedState()?.keyList?.version, 3)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: world.cache("phone").path + "/packs/tr-TR/active"),
            "the removals failed")
        XCTAssertEqual(client.activePack, nil, "the saved list no longer vouches for tr-TR@17")
        XCTAssertEqual(client.activePacks, [])
        XCTAssertEqual(client.string("home.title"), "Hoş geldin (paket içi)")

        world.transport.setOffline(true)
        XCTAssertNil(world.client().activePack)
        world.transport.setOffline(false)
        await world.client().refreshAndActivate()
        XCTAssertEqual(world.client().activePack, PackID("tr-TR@17"))
        XCTAssertEqual(
            world.slotSigners("packs/tr-TR/active"),
            [try XCTUnwrap(Ed25519.PublicKey(ClientWorld.publicKey(of: world.signingKey))).keyID])
    }

    /// An app that pinned a key moves to a key list (docs/client.md, "Moving an app from a pinned
    /// key"): the team adopts the pinned key as publishing key 1, the next app version builds in the
    /// root key and the old key as `pinnedKey`. The packs the old version cached stay in use at once,
    /// stay after the device takes the list, and go only when the list revokes that key.
    func testAnAppThatPinnedAKeyMovesToTheKeyListAndKeepsItsPacks() async throws {
        let world = try ClientWorld()
        await world.client().refreshAndActivate()
        XCTAssertEqual(world.client().activePack, PackID("tr-TR@17"))

        try world.rollout("keys", "init", "--out", world.keysDirectory, "--adopt", world.signingKey)
        try world.publish()
        let pinnedApp = world.client("old-app")
        await pinnedApp.refreshAndActivate()
        XCTAssertEqual(
            pinnedApp.activePack, PackID("tr-TR@17"), "a site on a key list still serves apps that pin the key")
        XCTAssertNil(pinnedApp.status.keysVersion)

        let root = try ClientWorld.publicKey(of: "\(world.keysDirectory)/root.key")
        func updatedApp() -> RolloutClient {
            var options = RolloutClient.Options()
            options.transport = world.transport
            options.installID = "install-phone"
            options.minimumRefreshInterval = 0
            return RolloutClient(
                bundled: ClientWorld.bundled, cacheDirectory: world.cache("phone"),
                manifestURL: ClientWorld.manifestURL,
                trust: RolloutClient.Trust(rootKeys: [root], pinnedKey: world.publicKey), appVersion: "4.8.1",
                region: "TR", locale: "tr-TR",
                options: options)
        }
        world.transport.setOffline(true)
        XCTAssertEqual(
            updatedApp().activePack, PackID("tr-TR@17"),
            "before any refresh: the pinned key vouches for the cached packs")
        world.transport.setOffline(false)
        world.transport.clearLog()
        let updated = updatedApp()
        let result = await updated.refresh()
        XCTAssertEqual(result, .upToDate(dropped: []), "publishing key 1 is the pinned key: nothing to fetch again")
        XCTAssertFalse(world.transport.fetched.contains { $0.hasPrefix("packs/") }, "\(world.transport.fetched)")
        XCTAssertEqual(updated.status.keysVersion, 1)
        world.transport.setOffline(true)
        XCTAssertEqual(updatedApp().activePack, PackID("tr-TR@17"), "and after a relaunch, on the list")
        world.transport.setOffline(false)

        try world.rotatePublishingKey()
        try world.revoke(world.publicKey, reason: "retired with the old app")
        try world.publish()
        let revoked = await updatedApp().refresh()
        guard case .staged(let staged, let dropped) = revoked else { return XCTFail("\(revoked)") }
        XCTAssertEqual(
            Set(dropped), [PackID("tr-TR@17"), PackID("tr@1"), PackID("en-US@1")],
            "the revoked key vouched for them all")
        XCTAssertEqual(Set(staged), Set(dropped), "fetched again, vouched for by key 2")
        world.transport.setOffline(true)
        let relaunched = updatedApp()
        XCTAssertEqual(relaunched.activePack, PackID("tr-TR@17"))
        XCTAssertEqual(relaunched.status.keysVersion, 3)
        XCTAssertEqual(
            world.slotSigners("packs/tr-TR/active"),
            [try XCTUnwrap(Ed25519.PublicKey(ClientWorld.publicKey(of: world.signingKey))).keyID])
    }

    /// The key list in state.json is damaged (a disk error, a bad backup): the device holds none. The
    /// packs it vouched for are not used, and the next refresh takes the list again from the roots
    /// the app built in.
    func testADamagedKeyListInTheStateIsNone() async throws {
        let world = try ClientWorld(signing: .keyList)
        await world.client().refreshAndActivate()
        let path = world.cache("phone").path + "/state.json"
        var state = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        XCTAssertNotNil(state["keyList"] as? String)
        state["keyList"] = (state["keyList"] as! String).replacingOccurrences(
            of: "\"version\":1", with: "\"version\":0")
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: path))

        world.transport.setOffline(true)
        let damaged = world.client()
        XCTAssertNil(damaged.status.keysVersion)
        XCTAssertNil(damaged.activePack, "no list: nothing vouches for the packs")
        XCTAssertEqual(damaged.status.indexSequence, try world.siteSequence(), "the rest of the state is read")
        world.transport.setOffline(false)
        await damaged.refreshAndActivate()
        XCTAssertEqual(world.client().status.keysVersion, 1)
        XCTAssertEqual(world.client().activePack, PackID("tr-TR@17"))
    }

    /// Keys an app cannot use (not a key, no roots, a threshold the roots cannot meet) verify
    /// nothing: every refresh fails and says why, and the app runs on its bundled strings.
    func testTrustThatCannotBeUsedVerifiesNothing() async throws {
        let world = try ClientWorld(signing: .keyList)
        let cases: [(RolloutClient.Trust, String)] = [
            (RolloutClient.Trust(rootKeys: ["ed25519:nope"]), "is not ed25519:BASE64"),
            (RolloutClient.Trust(rootKeys: []), "needs 1 of 0"),
            (RolloutClient.Trust(rootKeys: world.rootKeys, threshold: 2), "needs 2 of 1"),
            (RolloutClient.Trust(rootKeys: world.rootKeys, threshold: 0), "needs 0 of 1"),
            (RolloutClient.Trust(rootKeys: world.rootKeys, pinnedKey: "pinned"), "pinned key"),
        ]
        for (trust, why) in cases {
            var options = RolloutClient.Options()
            options.transport = world.transport
            let client = RolloutClient(
                bundled: ClientWorld.bundled, cacheDirectory: world.cache("unusable"),
                manifestURL: ClientWorld.manifestURL, trust: trust,
                appVersion: "4.8.1", region: "TR", locale: "tr-TR", options: options)
            guard case .failed(let reason) = await client.refresh(force: true) else {
                return XCTFail("\(trust) must verify nothing")
            }
            XCTAssertEqual(reason.reason, .misconfigured, "\(trust)")
            XCTAssertTrue(reason.message.contains(why), "\(trust): \(reason)")
            XCTAssertEqual(client.string("home.title"), "Hoş geldin (paket içi)")
        }
    }

    /// Every case of Tests/Fixtures/conformance/trust.json (docs/conformance.md) through the client
    /// itself: the site's files served, the app built with the case's roots, threshold, minimum
    /// sequence and minimum key list version, the key list it holds (with the roots it was accepted
    /// under) and index sequence put in its state, its clock at the case's
    /// `now`. A refused case fails the refresh with that check's reason; an accepted one gets past the
    /// index (to the manifest, which a trust case does not have). Either way the device holds the
    /// key list version the case expects, after a relaunch too.
    func testEveryTrustVectorIsDecidedByTheClientAsTheVectorsSay() async throws {
        let vectors = try XCTUnwrap(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Fixtures.directory + "/conformance/trust.json")))
                as? [String: Any])
        let cases = try XCTUnwrap(vectors["cases"] as? [[String: Any]])
        XCTAssertGreaterThan(cases.count, 25)
        // The sentence each refusal's description has (TrustFailure.description); "damaged" names the file.
        let phrases = [
            "not-signed-by-trusted-roots": "of the root keys this device trusts",
            "not-signed-by-own-roots": "of the root keys it lists",
            "keys-replayed": "a replayed key list", "keys-conflict": "another key list with version",
            "revocation-dropped": "a revocation is for good",
            "revoked-key": "a revoked publishing key", "expired-key": "which expired at",
            "wrong-role": "which may not sign this file",
            "unknown-key": "no valid signature by a publishing key", "index-expired": "a frozen or replayed site",
            "index-without-expiry": "has no \"expires\"", "index-replayed": "a stale cache or a replay",
            "below-minimum-sequence": "the minimum built into this app: an old copy of the site",
            "below-minimum-keys-version": "the minimum built into this app: an old key list",
            "root-change-unrecorded": "without recording the change",
        ]
        let scratch = try Scratch()
        for (n, c) in cases.enumerated() {
            let name = try XCTUnwrap(c["name"] as? String)
            let device = try XCTUnwrap(c["device"] as? [String: Any])
            let site = scratch.path("site-\(n)")
            for (path, base64) in try XCTUnwrap(c["site"] as? [String: String]) {
                try FileManager.default.createDirectory(
                    atPath: (site + "/" + path as NSString).deletingLastPathComponent, withIntermediateDirectories: true
                )
                try Data(try XCTUnwrap(Base64.decode(base64), name)).write(to: URL(fileURLWithPath: site + "/" + path))
            }
            let cache = URL(fileURLWithPath: scratch.path("device-\(n)"))
            var state = DeviceState()
            state.indexSequence = device["acceptedIndexSequence"] as? Int ?? 0
            if let held = device["keyList"] as? String {
                state.keyList = try KeyList.parse(try XCTUnwrap(Base64.decode(held)), source: "the held keys.json")
            }
            // The built-in roots of the app that accepted the held list (null or absent: not recorded).
            if let anchoredTo = (c["anchoredTo"] ?? device["anchoredTo"]) as? [String: Any] {
                let keys = try XCTUnwrap(anchoredTo["keys"] as? [String: String], name).values.map {
                    Ed25519.PublicKey($0)
                }
                state.anchoredTo = KeyList.Roots(
                    keys: try keys.map { try XCTUnwrap($0, name) },
                    threshold: try XCTUnwrap(anchoredTo["threshold"] as? Int, name))
            }
            let minimumKeysVersion = (c["minimumKeysVersion"] ?? device["minimumKeysVersion"]) as? Int ?? 0
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            try Data(state.bytes).write(to: cache.appendingPathComponent(DeviceState.file))
            let now = try XCTUnwrap(ISO8601DateFormatter().date(from: try XCTUnwrap(c["now"] as? String)), name)
            let transport = SiteTransport(root: site)
            func app() -> RolloutClient {
                var options = RolloutClient.Options()
                options.transport = transport
                options.now = { now }
                options.minimumRefreshInterval = 0
                options.minimumIndexSequence = device["minimumIndexSequence"] as? Int ?? 0
                let trust = RolloutClient.Trust(
                    rootKeys: device["rootKeys"] as? [String] ?? [], threshold: device["threshold"] as? Int ?? 1,
                    minimumKeysVersion: minimumKeysVersion)
                return RolloutClient(
                    bundled: [:], cacheDirectory: cache, manifestURL: ClientWorld.manifestURL, trust: trust,
                    appVersion: "1.0", region: "US",
                    locale: "en-US", options: options)
            }
            let result = await app().refresh()
            guard case .failed(let reason) = result else {
                XCTFail("\(name): \(result)")
                continue
            }
            let expected = try XCTUnwrap(c["expected"] as? [String: Any], name)
            if let accepted = expected["accepted"] as? [String: Any] {
                XCTAssertEqual(
                    transport.fetched.last, "manifests/en-US.json",
                    "\(name): accepted through the index, then \(reason)")
                XCTAssertEqual(app().status.keysVersion, accepted["keysVersion"] as? Int, name)
            } else {
                let code = try XCTUnwrap(expected["refused"] as? String, name)
                // The typed reason is the vector's code; the sentence is the one TrustFailure writes.
                XCTAssertEqual(reason.reason.code, code, "\(name): \(reason.message)")
                if let phrase = phrases[code] {
                    XCTAssertTrue(reason.message.contains(phrase), "\(name): \(code) expected, got \(reason)")
                } else {
                    XCTAssertEqual(code, "damaged", name)
                    XCTAssertFalse(
                        phrases.values.contains { reason.message.contains($0) },
                        "\(name): damaged expected, got \(reason)")
                }
                XCTAssertEqual(
                    app().status.keysVersion, expected["keysVersion"] as? Int, "\(name): the key list held afterwards")
            }
        }
    }

    // MARK: - The kill sweeps, with the key list in the state

    /// `ClientTests.testKilledAtEveryByteOfADownloadTheDeviceStartsOnAWholePack` on a key list: every
    /// 37th unit, and every unit near the end of each write (a full sweep takes minutes).
    func testKilledDuringADownloadOnAKeyListTheDeviceStartsOnAWholePack() async throws {
        let world = try ClientWorld(signing: .keyList)
        let base = try await world.deviceBeforeEighteen()
        let total = try await world.unitsWritten(from: base)
        let slot = try XCTUnwrap(
            FileManager.default.contents(atPath: world.cache("phone").path + "/packs/tr-TR/active")
        ).count
        let state = try XCTUnwrap(FileManager.default.contents(atPath: world.cache("phone").path + "/state.json")).count
        // The writes: the state (index accepted), tr-TR@18's pending slot, the state (committed), two
        // renames, the state (activated), each with its rename. The state's size varies by a few bytes.
        let ends = [state, state + 1 + slot, 2 * state + 2 + slot, total - state - 1, total - 1]
        let cuts = KillSweep.cuts(
            total: total,
            boundaries: ends.flatMap { [$0 - 12, $0 - 6, $0, $0 + 6, $0 + 12] }.filter { (0...total).contains($0) })
        let made = try await world.killedDuringTheDownloadOfEighteen(from: base, cuts: cuts, checkEvery: 5)
        XCTAssertEqual(made, cuts.count)
        XCTAssertGreaterThan(total, 3 * state, "\(total) units")
    }

    /// `ClientTests.testKilledWhileAcceptingARevertTheBlockedPackNeverReturns` on a key list: every
    /// 5th byte of the state that records the block.
    func testKilledWhileAcceptingARevertOnAKeyListTheBlockedPackNeverReturns() async throws {
        try await ClientWorld(signing: .keyList).killedWhileAcceptingARevert(stateStep: 5)
    }

    /// `CrashLoopTests.testKilledAlongTheRollbackTheNextStartFinishesIt` on a key list.
    func testKilledAlongTheRollbackOnAKeyListTheNextStartFinishesIt() async throws {
        try await ClientWorld(signing: .keyList).killedAlongTheRollback()
    }

    /// The process dies along a refresh that accepts a key list revoking publishing key 1 (the state
    /// that records it, the slots it drops, the packs fetched again as key 2 signed them, their
    /// activation). After each cut the device holds the old list or the new one; holding the new
    /// one, it never starts on a pack only key 1 vouched for; and the next refresh finishes the job.
    /// A full sweep takes minutes: every unit near the list's write, every 97th after.
    func testKilledWhileAcceptingARevocationTheRevokedKeysPacksAreNeverUsed() async throws {
        let world = try ClientWorld(signing: .keyList)
        let revoked = try XCTUnwrap(Ed25519.PublicKey(world.publicKey)).keyID
        await world.client("base").refreshAndActivate()
        try world.rotatePublishingKey()
        try world.revoke(world.publicKey, reason: "laptop lost")
        try world.publish()
        let base = world.cache("base").path
        let total = try await world.unitsWritten(from: base)
        // The first write is the state that records the list (`listSaved` bytes, then its rename),
        // then the removal of the three slots key 1 vouched for: every unit there; every 97th of the
        // downloads and activations that follow.
        var saved = try XCTUnwrap(world.storedState("base"))
        saved.keyList = try world.siteKeys()
        let listSaved = saved.bytes.count
        let cuts = Set(max(0, listSaved - 40)...min(total, listSaved + 6))
            .union(stride(from: 0, through: total, by: 97)).union([total + 1]).sorted()
        let device = world.cache("phone").path
        var sawBoth = (old: false, new: false)
        for cut in cuts {
            try FileManager.default.removeItem(atPath: device)
            try FileManager.default.copyItem(atPath: base, toPath: device)
            let dying = world.client()
            dying.storageBudget = cut
            await dying.refreshAndActivate()

            world.transport.setOffline(true)
            let reopened = world.client()
            world.transport.setOffline(false)
            let held = world.storedState()?.keyList?.version
            XCTAssertTrue(held == 1 || held == 3, "cut at \(cut): holds version \(String(describing: held))")
            XCTAssertEqual(
                held == 3, cut > listSaved, "cut at \(cut): the list is the first write, whole or not at all")
            if held == 3 {
                sawBoth.new = true
                for locale in reopened.status.packs.keys.sorted() where reopened.status.packs[locale]?.active != nil {
                    let signers = world.slotSigners("packs/\(locale)/active")
                    XCTAssertFalse(
                        signers.isEmpty || signers.contains(revoked),
                        "cut at \(cut): \(locale) starts on a pack vouched for by \(signers)")
                }
            } else {
                sawBoth.old = true
                XCTAssertEqual(
                    reopened.activePack, PackID("tr-TR@17"), "cut at \(cut): nothing recorded, nothing changed")
            }
            let leftovers = try FileManager.default.subpathsOfDirectory(atPath: device).filter { $0.contains(".tmp-") }
            XCTAssertEqual(leftovers, [], "cut at \(cut)")
            await reopened.refreshAndActivate()
            XCTAssertEqual(reopened.activePack, PackID("tr-TR@17"), "cut at \(cut): the next refresh finishes the job")
            XCTAssertEqual(reopened.status.keysVersion, 3, "cut at \(cut)")
            XCTAssertFalse(world.slotSigners("packs/tr-TR/active").contains(revoked), "cut at \(cut)")
        }
        XCTAssertTrue(sawBoth.old && sawBoth.new, "cuts before and after the list was saved")
    }
}
