import Foundation
import RolloutCrypto
import RolloutModel
import XCTest

/// publish under a key list and verify-site as a device that built root keys in (docs/keys.md):
/// the whole chain checked, and each way it can fail named.
final class PublishTrustTests: XCTestCase {
    static let start = "2026-12-01T09:00:00Z"

    /// A repository with staged packs and a key list made by `rollout keys init` at `start`.
    private func world(keysInit extra: [String] = []) throws -> Workspace {
        let w = try Workspace()
        w.environment["ROLLOUT_NOW"] = Self.start
        try w.initWithExamples()
        for id in ["en-US@1", "tr@1", "tr-TR@17", "vi-VN@3"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--reason", "typo fix").status, 0)
        let made = try w.rollout(["keys", "init", "--out", w.scratch.path("keys")] + extra)
        XCTAssertEqual(made.status, 0, made.output)
        return w
    }

    private func key(_ w: Workspace, _ name: String) throws -> Ed25519.PrivateKey {
        try Ed25519.PrivateKey.pem(try String(contentsOfFile: w.scratch.path("keys/\(name)"), encoding: .utf8))
    }

    /// The root key as the app builds it in: ed25519:BASE64.
    private func root(_ w: Workspace, _ name: String = "root.key") throws -> String {
        try key(w, name).publicKey.description
    }

    @discardableResult
    private func publish(
        _ w: Workspace, key: String = "publish-1.key", _ extra: [String] = [], env: [String: String] = [:]
    ) throws -> RunResult {
        try w.rollout(
            ["publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("keys/\(key)")] + extra, env: env)
    }

    private func verify(_ w: Workspace, roots: [String], _ extra: [String] = [], env: [String: String] = [:]) throws
        -> RunResult
    {
        try w.rollout(
            ["verify-site", w.scratch.path("site")] + roots.flatMap { ["--root-key", $0] } + extra, env: env)
    }

    private func assertRefused(
        _ result: RunResult, _ expected: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(result.status, 1, result.output, file: file, line: line)
        XCTAssertTrue(
            result.stdout.contains(expected), "expected \"\(expected)\" in:\n\(result.stdout)", file: file, line: line)
    }

    /// Every file of the site with its bytes.
    private func contents(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: directory))
        while let path = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files[path] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path))
            }
        }
        return files
    }

    private func write(_ w: Workspace, _ path: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: w.scratch.path("site/" + path)))
    }

    private func read(_ w: Workspace, _ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: w.scratch.path("site/" + path))))
    }

    func testASiteOnAKeyListCarriesItsChainAndVerifiesFromTheRootKey() throws {
        let w = try world()
        let published = try publish(w, ["--json"])
        XCTAssertEqual(published.status, 0, published.output)
        let publishing = try key(w, "publish-1.key").publicKey
        let report = try w.json(published)
        XCTAssertEqual(report["keysVersion"] as? Int, 1)
        XCTAssertEqual(report["publishingKey"] as? String, publishing.keyID)
        XCTAssertEqual(report["indexExpires"] as? String, "2026-12-08T09:00:00Z", "a week by default")

        // The files docs/manifest.md lists, in its write order: manifests, key lists, the index last.
        let written = try XCTUnwrap(report["written"] as? [String])
        for path in [
            "keys.json", "keys.json.sigs", "keys/1.json", "keys/1.json.sigs", "index.json", "index.json.sig",
            "index.json.sigs",
            "manifests/tr-TR.json.sig", "manifests/tr-TR.json.sigs",
        ] {
            XCTAssertTrue(written.contains(path), "\(path) in \(written)")
        }
        let position = { (path: String) in written.firstIndex(of: path)! }
        XCTAssertLessThan(position("manifests/vi-VN.json.sigs"), position("keys/1.json"))
        XCTAssertLessThan(position("keys/1.json.sigs"), position("keys.json"))
        XCTAssertLessThan(position("keys.json.sigs"), position("index.json"))
        XCTAssertEqual(written.suffix(3), ["index.json", "index.json.sig", "index.json.sigs"])
        XCTAssertEqual(
            try read(w, "keys.json"),
            [UInt8](try XCTUnwrap(w.git("show", "main:keys/1.json").stdout.data(using: .utf8))))
        let sigs = try SignatureSet.parse(try read(w, "index.json.sigs"), source: "index.json.sigs")
        XCTAssertEqual(sigs.entries.map(\.keyID), [publishing.keyID])

        let rootKey = try root(w)
        let rootID = try XCTUnwrap(Ed25519.PublicKey(rootKey)).keyID
        let result = try verify(w, roots: [rootKey])
        XCTAssertEqual(result.status, 0, result.output)
        let sequence = try XCTUnwrap(report["indexSequence"] as? Int)
        XCTAssertTrue(
            result.stdout.contains(
                "trust: roots \(rootID) (1 of 1) -> keys.json version 1 -> publishing key \(publishing.keyID) (expires 2027-12-01T09:00:00Z) -> index sequence \(sequence) (expires 2026-12-08T09:00:00Z)"
            ),
            result.stdout)
        let json = try w.json(try verify(w, roots: [rootKey], ["--json"]))
        let trust = try XCTUnwrap(json["trust"] as? [String: Any])
        XCTAssertEqual(trust["roots"] as? [String], [rootID])
        XCTAssertEqual(trust["keysVersion"] as? Int, 1)
        XCTAssertEqual(trust["publishingKey"] as? String, publishing.keyID)
        XCTAssertEqual(trust["indexExpires"] as? String, "2026-12-08T09:00:00Z")

        // Apps that pin one key still read the site: the .sig is by --key.
        XCTAssertEqual(
            try w.rollout("verify-site", w.scratch.path("site"), "--public-key", publishing.description).status, 0)
        let both = try w.rollout(
            "verify-site", w.scratch.path("site"), "--public-key", publishing.description, "--root-key", rootKey)
        XCTAssertEqual(both.status, 64, both.output)
        XCTAssertEqual(try verify(w, roots: [rootKey], ["--threshold", "2"]).status, 64)
    }

    func testAnExpiredIndexIsRefusedAndPublishingTheSameStateAgainRefreshesIt() throws {
        let w = try world()
        XCTAssertEqual(try publish(w).status, 0)
        let tip = try w.stateTip()
        let rootKey = try root(w)
        let later = ["ROLLOUT_NOW": "2026-12-09T09:00:00Z"]
        assertRefused(
            try verify(w, roots: [rootKey], env: later),
            "index.json: expired at 2026-12-08T09:00:00Z (now 2026-12-09T09:00:00Z)")

        let before = try read(w, "index.json")
        let again = try publish(w, ["--expires", "12h", "--json"], env: later)
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertEqual(try w.json(again)["indexExpires"] as? String, "2026-12-09T21:00:00Z")
        XCTAssertNotEqual(try read(w, "index.json"), before, "same sequence, new expiry: new bytes")
        XCTAssertEqual(
            try SiteIndex.parse(try read(w, "index.json"), source: "index.json").sequence,
            try SiteIndex.parse(before, source: "index.json").sequence)
        XCTAssertEqual(try w.stateTip(), tip, "a refresh of the same state records nothing")
        XCTAssertEqual(try verify(w, roots: [rootKey], env: later).status, 0)
    }

    func testAnExpiredPublishingKeyIsRefusedAndWarnedOfBefore() throws {
        let w = try world(keysInit: ["--expires", "10d"])
        let publishing = try key(w, "publish-1.key").publicKey.keyID
        let published = try publish(w, ["--expires", "30d"])
        XCTAssertEqual(published.status, 0, published.output)
        XCTAssertTrue(
            published.stderr.contains("warning: publishing key \(publishing) expires at 2026-12-11T09:00:00Z"),
            published.stderr)
        let later = ["ROLLOUT_NOW": "2026-12-12T09:00:00Z"]
        assertRefused(
            try verify(w, roots: [try root(w)], env: later),
            "index.json: signed by publishing key \(publishing), which expired at 2026-12-11T09:00:00Z")
        let site = try contents(w.scratch.path("site"))
        let refused = try publish(w, env: later)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains(
                "--key is key \(publishing), a publishing key that expired at 2026-12-11T09:00:00Z"), refused.stderr)
        XCTAssertEqual(try contents(w.scratch.path("site")), site)
    }

    func testASiteSignedByARevokedKeyIsRefused() throws {
        let w = try world()
        let leaked = try key(w, "publish-1.key")
        XCTAssertEqual(try w.rollout("keys", "rotate", "--root", w.scratch.path("keys/root.key")).status, 0)
        let revoked = try w.rollout(
            "keys", "revoke", leaked.publicKey.keyID, "--root", w.scratch.path("keys/root.key"), "--reason",
            "laptop lost")
        XCTAssertEqual(revoked.status, 0, revoked.output)
        XCTAssertEqual(try publish(w, key: "publish-2.key").status, 0)
        XCTAssertEqual(try verify(w, roots: [try root(w)]).status, 0)

        // Whoever holds the leaked key re-signs the current site with it.
        for path in ["index.json", "manifests/tr-TR.json"] {
            try write(w, path + ".sigs", SignatureSet.signing(try read(w, path), with: [leaked]).bytes)
        }
        assertRefused(
            try verify(w, roots: [try root(w)]),
            "index.json: signed by \(leaked.publicKey.keyID), a revoked publishing key (laptop lost)")

        let refused = try publish(w, key: "publish-1.key")
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("--key is key \(leaked.publicKey.keyID), which key list version 3 revoked"),
            refused.stderr)
        XCTAssertTrue(refused.stderr.contains("laptop lost"), refused.stderr)
    }

    func testTheWrongRootAReplayATamperedManifestAndAMissingKeyListAreEachNamed() throws {
        let w = try world()
        XCTAssertEqual(try publish(w).status, 0)
        let rootKey = try root(w)
        let stranger = try Ed25519.PrivateKey.generate().publicKey
        assertRefused(
            try verify(w, roots: [stranger.description]),
            "keys.json: signed by 0 of the root keys this device trusts (\(stranger.keyID))")
        assertRefused(
            try verify(w, roots: [rootKey], ["--min-sequence", "999"]),
            "older than 999, the minimum built into this app")

        let manifest = try read(w, "manifests/tr-TR.json")
        var tampered = manifest
        tampered[tampered.count / 2] ^= 0x01
        try write(w, "manifests/tr-TR.json", tampered)
        assertRefused(
            try verify(w, roots: [rootKey]),
            "manifests/tr-TR.json: no valid signature by a publishing key of the key list")
        try write(w, "manifests/tr-TR.json", manifest)
        XCTAssertEqual(try verify(w, roots: [rootKey]).status, 0)

        try FileManager.default.removeItem(atPath: w.scratch.path("site/keys.json"))
        assertRefused(try verify(w, roots: [rootKey]), "keys.json: missing")
    }

    func testAfterARotationTheNewKeyPublishesAndTheOldOneIsRefused() throws {
        let w = try world()
        XCTAssertEqual(try publish(w).status, 0)
        let rotated = try w.rollout("keys", "rotate", "--root", w.scratch.path("keys/root.key"))
        XCTAssertEqual(rotated.status, 0, rotated.output)
        // The repository moved on: a site still on version 1 is reported.
        assertRefused(
            try verify(w, roots: [try root(w)]),
            "keys.json: version 1, but the repository's newest key list is version 2: publish again")

        let old = try publish(w)
        XCTAssertEqual(old.status, 65, "retired at once (no --overlap): \(old.output)")
        let published = try publish(w, key: "publish-2.key")
        XCTAssertEqual(published.status, 0, published.output)
        let result = try verify(w, roots: [try root(w)])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(
            result.stdout.contains(
                "-> keys.json version 2 -> publishing key \(try key(w, "publish-2.key").publicKey.keyID)"),
            result.stdout)
    }

    func testAfterARootRotationAppsWithTheOldRootAndWithTheNewOneBothVerify() throws {
        let w = try world()
        let oldRoot = try root(w)
        let rotated = try w.rollout(
            "keys", "rotate-root", "--root", w.scratch.path("keys/root.key"), "--out", w.scratch.path("keys/root-2.key")
        )
        XCTAssertEqual(rotated.status, 0, rotated.output)
        // A list signed by the new root alone: an app with the old root must walk keys/2.json to it.
        let again = try w.rollout("keys", "rotate", "--root", w.scratch.path("keys/root-2.key"))
        XCTAssertEqual(again.status, 0, again.output)
        let published = try publish(w, key: "publish-3.key")
        XCTAssertEqual(published.status, 0, published.output)
        for path in ["keys/1.json", "keys/2.json", "keys/2.json.sigs"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: w.scratch.path("site/" + path)), path)
        }

        let walked = try verify(w, roots: [oldRoot])
        XCTAssertEqual(walked.status, 0, walked.output)
        XCTAssertTrue(walked.stdout.contains("-> keys/1.json -> keys/2.json -> keys.json version 3 ->"), walked.stdout)
        let newRoot = try root(w, "root-2.key")
        let direct = try verify(w, roots: [newRoot])
        XCTAssertEqual(direct.status, 0, direct.output)
        XCTAssertTrue(direct.stdout.contains("(1 of 1) -> keys.json version 3 ->"), direct.stdout)

        // A site that lost a root change breaks apps with the old root, so it is refused whichever
        // roots verify it.
        try FileManager.default.removeItem(atPath: w.scratch.path("site/keys/2.json"))
        assertRefused(try verify(w, roots: [oldRoot]), "keys/2.json (or its .sigs): missing")
        assertRefused(try verify(w, roots: [newRoot]), "keys/2.json (or its .sigs): missing")
    }

    func testEveryRootChangeListIsCheckedEvenWhenTheRootsNeedNoWalk() throws {
        let w = try world()
        XCTAssertEqual(try publish(w).status, 0)
        let rootKey = try root(w)
        let first = try read(w, "keys/1.json")
        // A CDN sync that dropped keys/: no walk is needed with this root, but older apps need it.
        try FileManager.default.removeItem(atPath: w.scratch.path("site/keys/1.json.sigs"))
        assertRefused(try verify(w, roots: [rootKey]), "keys/1.json (or its .sigs): missing")
        try publish(w)
        XCTAssertEqual(try verify(w, roots: [rootKey]).status, 0)

        try write(w, "keys/1.json", Array("{}".utf8))
        assertRefused(try verify(w, roots: [rootKey]), "keys/1.json: ")
        XCTAssertEqual(
            try w.rollout("keys", "rotate", "--root", w.scratch.path("keys/root.key"), "--overlap", "30d").status, 0)
        XCTAssertEqual(try publish(w).status, 0)
        try write(w, "keys/1.json", try read(w, "keys.json"))
        let wrong = try verify(w, roots: [rootKey])
        assertRefused(wrong, "keys/1.json: holds key list version 2, not 1")
        XCTAssertTrue(
            wrong.stdout.contains("keys/1.json (or its .sigs): not the repository's key list version 1: publish again"),
            wrong.stdout)
        try write(w, "keys/1.json", first)
        XCTAssertEqual(try verify(w, roots: [rootKey]).status, 0)
    }

    func testTheTrustLineNamesOnlyTheRootChangesWalked() throws {
        let w = try world()
        let rotated = try w.rollout(
            "keys", "rotate-root", "--root", w.scratch.path("keys/root.key"), "--out", w.scratch.path("keys/root-2.key")
        )
        XCTAssertEqual(rotated.status, 0, rotated.output)
        let again = try w.rollout(
            "keys", "rotate-root", "--root", w.scratch.path("keys/root-2.key"), "--out",
            w.scratch.path("keys/root-3.key"))
        XCTAssertEqual(again.status, 0, again.output)
        // Version 4 is signed by the third root alone.
        XCTAssertEqual(try w.rollout("keys", "rotate", "--root", w.scratch.path("keys/root-3.key")).status, 0)
        XCTAssertEqual(try publish(w, key: "publish-4.key").status, 0)
        // An app built with the second root cannot check keys/1.json (signed by the first root
        // only) and does not need it: it walks keys/2.json and keys/3.json.
        let middle = try verify(w, roots: [try root(w, "root-2.key")])
        XCTAssertEqual(middle.status, 0, middle.output)
        XCTAssertTrue(
            middle.stdout.contains("(1 of 1) -> keys/2.json -> keys/3.json -> keys.json version 4 ->"), middle.stdout)
        let json = try w.json(try verify(w, roots: [try root(w, "root-2.key")], ["--json"]))
        XCTAssertEqual((json["trust"] as? [String: Any])?["rotations"] as? [Int], [2, 3])
    }

    func testAMinimumKeysVersionRefusesAnOlderKeyList() throws {
        let w = try world()
        XCTAssertEqual(try publish(w).status, 0)
        let rootKey = try root(w)
        XCTAssertEqual(try verify(w, roots: [rootKey], ["--min-keys-version", "1"]).status, 0)
        assertRefused(
            try verify(w, roots: [rootKey], ["--min-keys-version", "2"]),
            "keys.json: version 1 is older than version 2, the minimum built into this app")
        let pinned = try w.rollout(
            "verify-site", w.scratch.path("site"), "--public-key", try key(w, "publish-1.key").publicKey.description,
            "--min-keys-version", "1")
        XCTAssertEqual(pinned.status, 64, pinned.output)
        XCTAssertTrue(pinned.stderr.contains("--min-keys-version goes with --root-key"), pinned.stderr)
    }

    func testAPinnedDeviceNamesAReplayTheWayTheClientDoes() throws {
        let w = try world()
        XCTAssertEqual(try publish(w).status, 0)
        let pinned = try key(w, "publish-1.key").publicKey.description
        assertRefused(
            try w.rollout("verify-site", w.scratch.path("site"), "--public-key", pinned, "--min-sequence", "999"),
            "older than 999, already accepted: a stale cache or a replay")
    }

    func testAKeyTheListDoesNotVouchForPublishesNothing() throws {
        let w = try world()
        XCTAssertEqual(try publish(w).status, 0)
        let site = try contents(w.scratch.path("site"))
        let tip = try w.stateTip()
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", w.scratch.path("keys/other.key")).status, 0)
        let other = try key(w, "other.key").publicKey.keyID
        let refused = try publish(w, key: "other.key")
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(
            refused.stderr.contains(
                "--key is key \(other), which key list version 1 does not list as a publishing key"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("Nothing was written"), refused.stderr)
        let byRoot = try publish(w, key: "root.key")
        XCTAssertEqual(byRoot.status, 65, byRoot.output)
        XCTAssertTrue(byRoot.stderr.contains("a root key of key list version 1"), byRoot.stderr)
        XCTAssertEqual(try contents(w.scratch.path("site")), site)
        XCTAssertEqual(try w.stateTip(), tip)

        // Into a new directory, the refusal leaves nothing behind either.
        let fresh = try w.rollout(
            "publish", "--out", w.scratch.path("fresh"), "--key", w.scratch.path("keys/other.key"))
        XCTAssertEqual(fresh.status, 65, fresh.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: w.scratch.path("fresh")))
    }

    /// Devices that accepted a key list refuse an older one: a repository whose list is behind the
    /// site's (a clone rewound, the publish record gone) must not take it back.
    func testASiteKeyListIsNeverTakenBack() throws {
        let w = try world()
        let first = try w.stateTip()
        XCTAssertEqual(
            try w.rollout("keys", "rotate", "--root", w.scratch.path("keys/root.key"), "--overlap", "30d").status, 0)
        XCTAssertEqual(try publish(w, key: "publish-2.key").status, 0)
        XCTAssertEqual(try w.git("update-ref", "refs/heads/main", first).status, 0)
        try FileManager.default.removeItem(atPath: w.scratch.path("site/.rollout-publish.json"))
        let site = try contents(w.scratch.path("site"))
        let refused = try publish(w)
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(
            refused.stderr.contains("holds key list version 2, newer than this repository's version 1"), refused.stderr)
        XCTAssertEqual(try contents(w.scratch.path("site")), site)
    }

    func testRootKeysWithAThresholdVerify() throws {
        let w = try world(keysInit: ["--roots", "3", "--threshold", "2"])
        XCTAssertEqual(try publish(w).status, 0)
        let roots = try (1...3).map { try root(w, "root-\($0).key") }
        let result = try verify(w, roots: roots, ["--threshold", "2"])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.contains("(2 of 3) -> keys.json version 1"), result.stdout)
        XCTAssertEqual(
            try verify(w, roots: Array(roots.prefix(1))).status, 0, "the list is signed by enough of its own roots")
    }

    func testTheLegacySignatureIsByTheKeyAppsPinOrReported() throws {
        let w = try Workspace()
        w.environment["ROLLOUT_NOW"] = Self.start
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        // The key a live app pins, adopted as the first publishing key.
        let pinned =
            try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("pinned.key"), "--json"))["publicKey"]
            as? String
        let made = try w.rollout(
            "keys", "init", "--out", w.scratch.path("keys"), "--adopt", w.scratch.path("pinned.key"))
        XCTAssertEqual(made.status, 0, made.output)
        XCTAssertEqual(
            try w.rollout("keys", "rotate", "--root", w.scratch.path("keys/root.key"), "--overlap", "30d").status, 0)
        let published = try publish(w, key: "publish-2.key", ["--legacy-key", w.scratch.path("pinned.key")])
        XCTAssertEqual(published.status, 0, published.output)
        XCTAssertEqual(try verify(w, roots: [try root(w)]).status, 0)
        XCTAssertEqual(
            try w.rollout("verify-site", w.scratch.path("site"), "--public-key", try XCTUnwrap(pinned)).status, 0)

        XCTAssertEqual(try w.rollout("keys", "generate", "--out", w.scratch.path("unlisted.key")).status, 0)
        XCTAssertEqual(
            try publish(w, key: "publish-2.key", ["--legacy-key", w.scratch.path("unlisted.key")]).status, 0)
        assertRefused(
            try verify(w, roots: [try root(w)]),
            "index.json.sig: not a signature by a publishing key of keys.json version 2")
    }

    func testARepositoryWithoutAKeyListPublishesOnlyTheLegacySignature() throws {
        let w = try Workspace()
        w.environment["ROLLOUT_NOW"] = Self.start
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let publicKey =
            try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("k.pem"), "--json"))["publicKey"]
            as? String
        XCTAssertEqual(
            try w.rollout("publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("k.pem")).status, 0)
        let files = try contents(w.scratch.path("site")).keys
        XCTAssertFalse(files.contains { $0.hasSuffix(".sigs") || $0.hasPrefix("keys") }, "\(files.sorted())")
        XCTAssertNil(
            try SiteIndex.parse(try read(w, "index.json"), source: "index.json").expires, "no expiry unless asked")
        assertRefused(try verify(w, roots: [try XCTUnwrap(publicKey)]), "keys.json: missing")

        let expiring = try w.rollout(
            "publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("k.pem"), "--expires", "12h")
        XCTAssertEqual(expiring.status, 0, expiring.output)
        XCTAssertEqual(
            try SiteIndex.parse(try read(w, "index.json"), source: "index.json").expires?.description,
            "2026-12-01T21:00:00Z")
        XCTAssertEqual(
            try w.rollout("verify-site", w.scratch.path("site"), "--public-key", try XCTUnwrap(publicKey)).status, 0)
        let late = try w.rollout(
            "verify-site", w.scratch.path("site"), "--public-key", try XCTUnwrap(publicKey),
            env: ["ROLLOUT_NOW": "2026-12-02T09:00:00Z"])
        assertRefused(late, "index.json: expired at 2026-12-01T21:00:00Z")
        XCTAssertEqual(
            try w.rollout(
                "publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("k.pem"), "--expires", "7x"
            ).status, 64)

        // Without a key list --legacy-key would sign the .sig files and --key nothing at all.
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", w.scratch.path("other.pem")).status, 0)
        let before = try contents(w.scratch.path("site"))
        let both = try w.rollout(
            "publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("k.pem"), "--legacy-key",
            w.scratch.path("other.pem"))
        XCTAssertEqual(both.status, 64, both.output)
        XCTAssertTrue(both.stderr.contains("--legacy-key") && both.stderr.contains("--key"), both.stderr)
        XCTAssertEqual(try contents(w.scratch.path("site")), before, "nothing written")
    }
}
