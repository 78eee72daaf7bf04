import Foundation
import RolloutCrypto
import RolloutModel
import XCTest

/// The key lifecycle (docs/keys.md) against inputs its authors did not write: key files that are
/// not Ed25519 private keys, roots given twice, a stale clone publishing, times at the end of the
/// calendar, hand-edited site files. Each refusal names the file or flag, exits with the code the
/// command's help gives, and leaves the repository, the key directory and the site as they were.
final class HostileKeysTests: XCTestCase {
    static let now = "2026-12-01T09:00:00Z"

    /// A repository with the example packs, en-US promoted, and key list version 1 in `keys/`.
    private func world(now: String = HostileKeysTests.now, keysInit extra: [String] = [], process: Bool = false) throws
        -> Workspace
    {
        let w = try Workspace(process: process)
        w.environment["ROLLOUT_NOW"] = now
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "en-US@1", "--to", "100%").status, 0)
        let made = try w.rollout(["keys", "init", "--out", w.scratch.path("keys")] + extra)
        XCTAssertEqual(made.status, 0, made.output)
        return w
    }

    private func keyPath(_ w: Workspace, _ name: String) -> String { w.scratch.path("keys/" + name) }

    private func publicKey(_ path: String) throws -> Ed25519.PublicKey {
        try Ed25519.PrivateKey.pem(try String(contentsOfFile: path, encoding: .utf8)).publicKey
    }

    /// What must not move when a command is refused: the state commit, the key directory, the site.
    private struct Fingerprint: Equatable {
        let tip: String
        let keys: [String]
        let site: [String: Data]
    }

    private func fingerprint(_ w: Workspace, site: String? = nil) throws -> Fingerprint {
        let keys = ((try? FileManager.default.contentsOfDirectory(atPath: w.scratch.path("keys"))) ?? []).sorted()
        return Fingerprint(tip: try w.stateTip(), keys: keys, site: site.map(contents) ?? [:])
    }

    private func contents(_ directory: String) -> [String: Data] {
        var files: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return files }
        while let path = enumerator.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: directory + "/" + path) { files[path] = data }
        }
        return files
    }

    private func openssl(_ arguments: String..., in w: Workspace) throws {
        let result = try Processes.run("/usr/bin/env", ["openssl"] + arguments, in: w.root, environment: w.environment)
        XCTAssertEqual(result.status, 0, "openssl \(arguments): \(result.output)")
    }

    private func assertRefused(
        _ result: RunResult, status: Int32, naming words: [String], file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(result.status, status, result.output, file: file, line: line)
        for word in words {
            XCTAssertTrue(
                result.stderr.contains(word), "expected \"\(word)\" in: \(result.stderr)", file: file, line: line)
        }
    }

    // MARK: key files that are not what --root expects

    func testKeyFilesThatAreNotEd25519PrivateKeysAreRefusedByNameAndChangeNothing() throws {
        let w = try world()
        let bad = w.scratch.path("bad")
        try FileManager.default.createDirectory(atPath: bad + "/a-directory", withIntermediateDirectories: true)
        try openssl("pkey", "-in", keyPath(w, "root.key"), "-pubout", "-out", bad + "/public.pem", in: w)
        try openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", bad + "/rsa.pem", in: w)
        try openssl(
            "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", bad + "/p256.pem", in: w)
        try openssl("genpkey", "-algorithm", "X25519", "-out", bad + "/x25519.pem", in: w)
        try openssl("genpkey", "-algorithm", "ed25519", "-out", bad + "/stranger.pem", in: w)
        try w.scratch.write("bad/empty", "")
        try FileManager.default.createSymbolicLink(atPath: bad + "/zero", withDestinationPath: "/dev/zero")
        let before = try fingerprint(w)
        let cases: [(String, Int32, String)] = [
            ("public.pem", 65, "not a PEM private key"), ("rsa.pem", 65, "not an Ed25519 key"),
            ("p256.pem", 65, "not an Ed25519 key"),
            ("x25519.pem", 65, "not an Ed25519 key"), ("empty", 65, "not a PEM private key"),
            ("a-directory", 64, "is a directory"),
            ("zero", 66, "is a device"), ("missing.pem", 66, "no such key file"),
            ("stranger.pem", 65, "is not a root key of key list version 1"),
        ]
        for (name, status, why) in cases {
            for command in [
                ["rotate"], ["revoke", "00000000", "--reason", "x"],
                ["rotate-root", "--out", w.scratch.path("new-root.key")],
            ] {
                let result = try w.rollout(["keys"] + command + ["--root", bad + "/" + name])
                assertRefused(result, status: status, naming: [bad + "/" + name, why])
                XCTAssertEqual(try fingerprint(w), before, "\(command) --root \(name)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: w.scratch.path("new-root.key")), name)
            }
        }
    }

    func testARootKeyFileWithWindowsLineEndingsSigns() throws {
        let w = try world()
        let pem = try String(contentsOfFile: keyPath(w, "root.key"), encoding: .utf8)
        try w.scratch.write("root-crlf.key", pem.replacingOccurrences(of: "\n", with: "\r\n"))
        let rotated = try w.rollout(
            "keys", "rotate", "--root", w.scratch.path("root-crlf.key"), "--out", keyPath(w, "publish-2.key"))
        XCTAssertEqual(rotated.status, 0, rotated.output)
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    func testTheSameRootGivenTwiceOrCopiedCountsOnceTowardsTheThreshold() throws {
        let w = try world(keysInit: ["--roots", "3", "--threshold", "2"])
        let root1 = keyPath(w, "root-1.key")
        let copy = w.scratch.path("copy-of-root-1.key")
        try FileManager.default.copyItem(atPath: root1, toPath: copy)
        let before = try fingerprint(w)
        for second in [root1, copy, w.scratch.path("keys/../keys/root-1.key")] {
            let result = try w.rollout("keys", "rotate", "--root", root1, "--root", second)
            assertRefused(result, status: 65, naming: ["needs 2 of its 3 root keys", "--root gave 1"])
            XCTAssertEqual(try fingerprint(w), before)
        }
        XCTAssertEqual(try w.rollout("keys", "rotate", "--root", root1, "--root", keyPath(w, "root-3.key")).status, 0)
    }

    func testAThresholdAboveTheRootsIsRefusedBeforeAnyKeyIsWritten() throws {
        let w = try Workspace()
        w.environment["ROLLOUT_NOW"] = Self.now
        try w.initWithExamples()
        let result = try w.rollout("keys", "init", "--out", w.scratch.path("keys"), "--roots", "2", "--threshold", "3")
        assertRefused(result, status: 64, naming: ["--threshold 3", "--roots is 2"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: w.scratch.path("keys")))
        XCTAssertEqual(try w.rollout("keys", "list").status, 66)

        let v = try world(keysInit: ["--roots", "2"])
        let before = try fingerprint(v)
        let rotated = try v.rollout(
            "keys", "rotate-root", "--root", keyPath(v, "root-1.key"), "--out", keyPath(v, "root-3.key"), "--threshold",
            "5")
        assertRefused(rotated, status: 65, naming: ["needs 5 root signature(s) but lists 1 root key(s)"])
        XCTAssertEqual(try fingerprint(v), before)
    }

    func testAKeptRootWithoutItsPrivateKeyCannotMeetTheNewThreshold() throws {
        let w = try world(keysInit: ["--roots", "2", "--threshold", "1"])
        let kept = try publicKey(keyPath(w, "root-2.key")).keyID
        let before = try fingerprint(w)
        let result = try w.rollout(
            "keys", "rotate-root", "--root", keyPath(w, "root-1.key"), "--out", keyPath(w, "root-3.key"), "--keep",
            kept, "--threshold", "2")
        assertRefused(result, status: 65, naming: ["keys/2.json", "signed by 1 of the root keys it lists, 2 needed"])
        XCTAssertEqual(try fingerprint(w), before)
        let signed = try w.rollout(
            "keys", "rotate-root", "--root", keyPath(w, "root-1.key"), "--root", keyPath(w, "root-2.key"), "--out",
            keyPath(w, "root-3.key"),
            "--keep", kept, "--threshold", "2")
        XCTAssertEqual(signed.status, 0, signed.output)
    }

    func testRevokingTheOnlyPublishingKeyLeavesNothingToPublishWith() throws {
        let w = try world()
        let site = w.scratch.path("site")
        XCTAssertEqual(try w.rollout("publish", "--out", site, "--key", keyPath(w, "publish-1.key")).status, 0)
        let id = try publicKey(keyPath(w, "publish-1.key")).keyID
        let revoked = try w.rollout("keys", "revoke", id, "--root", keyPath(w, "root.key"), "--reason", "laptop lost")
        XCTAssertEqual(revoked.status, 0, revoked.output)
        XCTAssertTrue(revoked.stdout.contains("No publishing key is left"), revoked.stdout)
        let before = try fingerprint(w, site: site)
        let again = try w.rollout("publish", "--out", site, "--key", keyPath(w, "publish-1.key"))
        assertRefused(again, status: 65, naming: [id, "revoked", "laptop lost", "Nothing was written"])
        XCTAssertEqual(try fingerprint(w, site: site), before)
    }

    func testAnEncryptedKeyIsNamedAsSuchAndNeverPromptsForAPassphrase() throws {
        let w = try world()
        let encrypted = w.scratch.path("encrypted.key")
        try openssl("genpkey", "-algorithm", "ed25519", "-aes256", "-pass", "pass:secret", "-out", encrypted, in: w)
        let before = try fingerprint(w)
        // No terminal to prompt on, and stdin closed: OpenSSL's default callback would ask for a passphrase.
        let rotated = try w.rollout("keys", "rotate", "--root", encrypted)
        assertRefused(rotated, status: 65, naming: ["encrypted.key", "encrypted with a passphrase", "openssl pkey"])
        XCTAssertFalse(rotated.output.contains("pass phrase"), rotated.output)
        XCTAssertEqual(try fingerprint(w), before)
    }

    func testARevocationReasonEveryDeviceWouldDownloadForGoodIsKeptShort() throws {
        let w = try world()
        let id = try publicKey(keyPath(w, "publish-1.key")).keyID
        let before = try fingerprint(w)
        let long = try w.rollout(
            "keys", "revoke", id, "--root", keyPath(w, "root.key"), "--reason", String(repeating: "x", count: 10_000))
        assertRefused(long, status: 64, naming: ["--reason is 10000 bytes", "at most 200"])
        XCTAssertEqual(try fingerprint(w), before)
    }

    func testControlCharactersInARevocationReasonAreShownEscaped() throws {
        let w = try world()
        let id = try publicKey(keyPath(w, "publish-1.key")).keyID
        let reason = "evil\u{1B}]0;pwned\u{07}\u{1B}[31mRED\nsecond line"
        let revoked = try w.rollout("keys", "revoke", id, "--root", keyPath(w, "root.key"), "--reason", reason)
        XCTAssertEqual(revoked.status, 0, revoked.output)
        let listed = try w.rollout("keys", "list")
        for output in [revoked.stdout, listed.stdout] {
            XCTAssertFalse(output.contains("\u{1B}"), output)
            XCTAssertFalse(output.contains("\u{07}"), output)
        }
        XCTAssertTrue(
            listed.stdout.contains("RED second line"), "the newline is folded into one line: \(listed.stdout)")
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }
    // MARK: a stale or diverged clone publishing

    /// Two clones of one repository, each at key list version 1; `work` publishes the site.
    private func clones() throws -> (Workspace, clone: String) {
        let w = try world()
        let clone = w.scratch.path("clone")
        try FileManager.default.createDirectory(atPath: clone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: w.repository, toPath: clone + "/.rollout")
        return (w, clone)
    }

    func testASiteWhoseKeyListIsNewerThanTheRepositoryIsNotTakenBack() throws {
        let (w, clone) = try clones()
        let site = w.scratch.path("site")
        XCTAssertEqual(
            try w.rollout("keys", "rotate", "--root", keyPath(w, "root.key"), "--out", keyPath(w, "publish-2.key"))
                .status, 0)
        XCTAssertEqual(try w.rollout("publish", "--out", site, "--key", keyPath(w, "publish-2.key")).status, 0)
        // The stale clone still lists publish-1 as active; the site's record is lost (a CDN copy).
        try FileManager.default.removeItem(atPath: site + "/.rollout-publish.json")
        let before = contents(site)
        let stale = try w.rollout("publish", "--out", site, "--key", keyPath(w, "publish-1.key"), in: clone)
        assertRefused(
            stale, status: 1,
            naming: ["holds key list version 2, newer than this repository's version 1", "Nothing was written"])
        XCTAssertEqual(contents(site), before)
    }

    func testADivergedCloneDoesNotReplaceTheSiteKeyListOfTheSameVersion() throws {
        let (w, clone) = try clones()
        let site = w.scratch.path("site")
        XCTAssertEqual(
            try w.rollout("keys", "rotate", "--root", keyPath(w, "root.key"), "--out", keyPath(w, "publish-2.key"))
                .status, 0)
        XCTAssertEqual(try w.rollout("publish", "--out", site, "--key", keyPath(w, "publish-2.key")).status, 0)
        // The clone makes its own version 2; devices that took the site's version 2 would refuse it
        // (keys-conflict) on every refresh from then on.
        let forked = try w.rollout(
            "keys", "rotate", "--root", keyPath(w, "root.key"), "--out", keyPath(w, "publish-2b.key"), in: clone)
        XCTAssertEqual(forked.status, 0, forked.output)
        try FileManager.default.removeItem(atPath: site + "/.rollout-publish.json")
        let before = contents(site)
        let cloneTip = try w.git("rev-parse", "main", repository: clone + "/.rollout").stdout
        let result = try w.rollout("publish", "--out", site, "--key", keyPath(w, "publish-2b.key"), in: clone)
        assertRefused(
            result, status: 1,
            naming: ["keys.json is another key list with version 2", "keys-conflict", "Nothing was written"])
        XCTAssertEqual(contents(site), before)
        XCTAssertEqual(try w.git("rev-parse", "main", repository: clone + "/.rollout").stdout, cloneTip)
        let root = try publicKey(keyPath(w, "root.key")).description
        XCTAssertEqual(try w.rollout("verify-site", site, "--root-key", root).status, 0)
    }

    // MARK: the clock at its edges

    func testAnIndexExpiringAtTheEndOfTheCalendarIsRefusedNotWrittenUnreadable() throws {
        let w = try world(now: "9999-12-31T00:00:00Z", keysInit: ["--expires", "12h"])
        let site = w.scratch.path("site")
        let before = try fingerprint(w)
        for extra in [[], ["--expires", "1d"]] {
            let result = try w.rollout(["publish", "--out", site, "--key", keyPath(w, "publish-1.key")] + extra)
            assertRefused(result, status: 64, naming: ["--expires", "past 9999-12-31T23:59:59Z"])
            XCTAssertFalse(FileManager.default.fileExists(atPath: site + "/index.json"))
            XCTAssertEqual(try fingerprint(w), before)
        }
        let fits = try w.rollout("publish", "--out", site, "--key", keyPath(w, "publish-1.key"), "--expires", "30m")
        XCTAssertEqual(fits.status, 0, fits.output)
        let root = try publicKey(keyPath(w, "root.key")).description
        let verified = try w.rollout("verify-site", site, "--root-key", root)
        XCTAssertEqual(verified.status, 0, verified.output)
    }

    func testAKeyExpiringAfterTheEndOfTheCalendarIsRefusedByTheFlagItComesFrom() throws {
        let w = try Workspace()
        w.environment["ROLLOUT_NOW"] = "9999-06-01T00:00:00Z"
        try w.initWithExamples()
        let made = try w.rollout("keys", "init", "--out", w.scratch.path("keys"))
        assertRefused(made, status: 64, naming: ["--expires 365 days", "past 9999-12-31T23:59:59Z"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: w.scratch.path("keys")))
        XCTAssertEqual(try w.rollout("keys", "init", "--out", w.scratch.path("keys"), "--expires", "4w").status, 0)
        let before = try fingerprint(w)
        let rotated = try w.rollout("keys", "rotate", "--root", keyPath(w, "root.key"), "--expires", "52w")
        assertRefused(rotated, status: 64, naming: ["--expires 52 weeks", "past 9999-12-31T23:59:59Z"])
        XCTAssertEqual(try fingerprint(w), before)
    }

    func testAnIndexOrKeyExpiringExactlyNowIsExpiredEverywhere() throws {
        let w = try world()
        let site = w.scratch.path("site")
        XCTAssertEqual(
            try w.rollout("publish", "--out", site, "--key", keyPath(w, "publish-1.key"), "--expires", "30m").status, 0)
        let root = try publicKey(keyPath(w, "root.key")).description
        let atExpiry = try w.rollout(
            ["verify-site", site, "--root-key", root], env: ["ROLLOUT_NOW": "2026-12-01T09:30:00Z"])
        XCTAssertEqual(atExpiry.status, 1, atExpiry.output)
        XCTAssertTrue(atExpiry.stdout.contains("index.json: expired at 2026-12-01T09:30:00Z"), atExpiry.stdout)
        XCTAssertEqual(
            try w.rollout(["verify-site", site, "--root-key", root], env: ["ROLLOUT_NOW": "2026-12-01T09:29:59Z"])
                .status, 0)

        // rotate with no overlap retires the old key at this very second: publish refuses it now.
        XCTAssertEqual(
            try w.rollout("keys", "rotate", "--root", keyPath(w, "root.key"), "--out", keyPath(w, "publish-2.key"))
                .status, 0)
        let old = try w.rollout("publish", "--out", site, "--key", keyPath(w, "publish-1.key"))
        assertRefused(old, status: 65, naming: ["expired at 2026-12-01T09:00:00Z (now 2026-12-01T09:00:00Z)"])
    }
    // MARK: a site edited by hand

    /// A published site under a key list, and the root key an app builds in.
    private func publishedSite(process: Bool = false) throws -> (Workspace, site: String, root: String) {
        let w = try world(process: process)
        let site = w.scratch.path("site")
        let published = try w.rollout("publish", "--out", site, "--key", keyPath(w, "publish-1.key"))
        XCTAssertEqual(published.status, 0, published.output)
        return (w, site, try publicKey(keyPath(w, "root.key")).description)
    }

    private func edit(_ path: String, _ change: (inout [String: Any]) -> Void) throws {
        var object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        change(&object)
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
    }

    func testHandEditedKeyListsAndSignaturesAreEachRefusedByNameAndTheSiteLeftAlone() throws {
        let (w, site, root) = try publishedSite()
        let pristine = contents(site)
        let sigs = site + "/keys.json.sigs"
        let cases: [(String, () throws -> Void, String)] = [
            (
                "an unknown member",
                { try self.edit(site + "/keys.json") { $0["mirrors"] = ["https://evil.example"] } },
                "keys.json: signed by 0 of the root keys this device trusts"
            ),
            (
                "a member given twice",
                {
                    var text = try String(contentsOfFile: site + "/keys.json", encoding: .utf8)
                    text.removeLast()
                    try (text + ",\"version\":99}").write(
                        toFile: site + "/keys.json", atomically: true, encoding: .utf8)
                }, "duplicate key \"version\""
            ),
            (
                "1000 root changes", { try self.edit(site + "/keys.json") { $0["rootChanges"] = Array(1...1000) } },
                "keys.json: lists 1000 root changes; a device walks at most 64"
            ),
            (
                "a time in the future", { try self.edit(site + "/keys.json") { $0["time"] = "2099-01-01T00:00:00Z" } },
                "keys.json: signed by 0 of the root keys this device trusts"
            ),
            (
                "the signatures of another file",
                {
                    try FileManager.default.removeItem(atPath: sigs)
                    try FileManager.default.copyItem(atPath: site + "/index.json.sigs", toPath: sigs)
                },
                // Not "a publishing key, which may not sign this file": that signature is over another file.
                "keys.json: signed by 0 of the root keys this device trusts"
            ),
            (
                "17 signatures",
                {
                    try self.edit(sigs) {
                        $0["signatures"] = Array(repeating: ($0["signatures"] as! [Any])[0], count: 17)
                    }
                },
                "keys.json.sigs: holds 17 signatures; at most 16 are read"
            ),
            (
                "a key id in upper case",
                {
                    try self.edit(sigs) { object in
                        var entries = object["signatures"] as! [[String: Any]]
                        entries[0]["keyid"] = (entries[0]["keyid"] as! String).uppercased()
                        object["signatures"] = entries
                    }
                }, "is not a key id (16 lowercase hex digits)"
            ),
            (
                "keys.json a symlink to /dev/zero",
                {
                    try FileManager.default.removeItem(atPath: site + "/keys.json")
                    try FileManager.default.createSymbolicLink(
                        atPath: site + "/keys.json", withDestinationPath: "/dev/zero")
                },
                "keys.json"
            ),
        ]
        for (name, damage, expected) in cases {
            try damage()
            let damaged = contents(site)
            let result = try w.rollout("verify-site", site, "--root-key", root)
            XCTAssertEqual(result.status, 1, "\(name): \(result.output)")
            XCTAssertTrue(result.stdout.contains(expected), "\(name): expected \"\(expected)\" in \(result.stdout)")
            XCTAssertEqual(contents(site), damaged, "verify-site changes nothing (\(name))")
            try FileManager.default.removeItem(atPath: site)
            try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
            for (path, data) in pristine {
                try FileManager.default.createDirectory(
                    atPath: (site + "/" + path as NSString).deletingLastPathComponent, withIntermediateDirectories: true
                )
                try data.write(to: URL(fileURLWithPath: site + "/" + path))
            }
        }
        XCTAssertEqual(try w.rollout("verify-site", site, "--root-key", root).status, 0)
    }

    func testVerifySiteTakesOneKindOfTrustAndSaysWhatASiteOfTheOtherKindLacks() throws {
        let (w, site, root) = try publishedSite()
        let both = try w.rollout("verify-site", site, "--root-key", root, "--public-key", root)
        assertRefused(both, status: 64, naming: ["--public-key and --root-key are alternatives"])
        // The legacy .sig of a key-list site is by the publishing key, not by a root.
        let asPinned = try w.rollout("verify-site", site, "--public-key", root)
        XCTAssertEqual(asPinned.status, 1, asPinned.output)
        XCTAssertTrue(asPinned.stdout.contains("index.json.sig does not verify with \(root)"), asPinned.stdout)
        let publishing = try publicKey(keyPath(w, "publish-1.key")).description
        XCTAssertEqual(try w.rollout("verify-site", site, "--public-key", publishing).status, 0)
        let tooMany = try w.rollout("verify-site", site, "--root-key", root, "--root-key", root, "--threshold", "2")
        assertRefused(tooMany, status: 64, naming: ["--threshold 2 needs at least 2 different --root-key"])

        let v = try Workspace()
        v.environment["ROLLOUT_NOW"] = Self.now
        try v.initWithExamples()
        XCTAssertEqual(try v.rollout("promote", "en-US@1", "--to", "100%").status, 0)
        XCTAssertEqual(try v.rollout("keys", "generate", "--out", v.scratch.path("pin.key")).status, 0)
        let pinnedSite = v.scratch.path("site")
        XCTAssertEqual(try v.rollout("publish", "--out", pinnedSite, "--key", v.scratch.path("pin.key")).status, 0)
        let pin = try publicKey(v.scratch.path("pin.key")).description
        let asRoots = try v.rollout("verify-site", pinnedSite, "--root-key", pin)
        XCTAssertEqual(asRoots.status, 1, asRoots.output)
        XCTAssertTrue(
            asRoots.stdout.contains("keys.json: a device on root keys trusts nothing on this site without it"),
            asRoots.stdout)
        XCTAssertEqual(try v.rollout("verify-site", pinnedSite, "--public-key", pin).status, 0)
    }

    func testTwoPublishesRacingWithDifferentExpiriesLeaveOneWholeSite() throws {
        let (w, site, root) = try publishedSite(process: true)  // two processes at once
        let key = keyPath(w, "publish-1.key")
        let results = simultaneously(2) { index in
            try! w.rollout("publish", "--out", site, "--key", key, "--expires", index == 0 ? "1h" : "30d")
        }
        for result in results { XCTAssertEqual(result.status, 0, result.output) }
        let index = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: site + "/index.json")))
                as? [String: Any])
        XCTAssertTrue(
            ["2026-12-01T10:00:00Z", "2026-12-31T09:00:00Z"].contains(index["expires"] as? String ?? ""), "\(index)")
        let verified = try w.rollout("verify-site", site, "--root-key", root)
        XCTAssertEqual(verified.status, 0, verified.output)
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }
    // MARK: a full disk

    func testKeyChangesOnAFullDiskExit74AndLeaveTheRepositoryAndTheKeysAsTheyWere() throws {
        for mechanism in FullDisk.available {
            let w = try Workspace()
            w.environment["ROLLOUT_NOW"] = Self.now
            let disk = try FullDisk(mechanism, workspace: w)
            defer { disk.release() }
            try w.initWithExamples()
            let keys = w.work + "/keys"
            XCTAssertEqual(try w.rollout("keys", "init", "--out", keys, "--roots", "2").status, 0)
            let publishing = try publicKey(keys + "/publish-1.key").keyID
            let listing = { ((try? FileManager.default.contentsOfDirectory(atPath: keys)) ?? []).sorted() }
            let tip = try w.stateTip()
            let before = listing()

            try disk.fill()
            let attempts: [[String]] = [
                ["keys", "rotate", "--root", keys + "/root-1.key"],
                ["keys", "revoke", publishing, "--root", keys + "/root-1.key", "--reason", "laptop lost"],
                [
                    "keys", "rotate-root", "--root", keys + "/root-1.key", "--out", keys + "/root-3.key", "--keep",
                    try publicKey(keys + "/root-2.key").keyID,
                ],
            ]
            for arguments in attempts {
                let result = try disk.rollout(arguments)
                XCTAssertEqual(result.status, 74, "\(mechanism) \(arguments): \(result.output)")
                XCTAssertTrue(result.stderr.contains(disk.cause), "\(mechanism): names the cause: \(result.stderr)")
                XCTAssertEqual(try w.stateTip(), tip, "\(mechanism) \(arguments) moved the state")
                XCTAssertEqual(listing(), before, "\(mechanism) \(arguments) left a key file")
            }
            try disk.free()
            XCTAssertEqual(try w.rollout("verify").status, 0)
            for arguments in attempts {
                let retried = try w.rollout(arguments)
                XCTAssertEqual(retried.status, 0, "\(mechanism) retry of \(arguments): \(retried.output)")
            }
            XCTAssertEqual(try w.rollout("verify").status, 0)
        }
    }
    func testARotationOnAMachineWhoseClockIsBehindRetiresTheOldKeyAsItWasMade() throws {
        let w = try world()
        let old = try publicKey(keyPath(w, "publish-1.key")).keyID
        // The offline root machine's clock is a day behind the one that made version 1.
        let rotated = try w.rollout(
            ["keys", "rotate", "--root", keyPath(w, "root.key"), "--out", keyPath(w, "publish-2.key")],
            env: ["ROLLOUT_NOW": "2026-11-30T09:00:00Z"])
        XCTAssertEqual(rotated.status, 0, rotated.output)
        let listed = try w.json(try w.rollout("keys", "list", "--json"))
        let rows = try XCTUnwrap(listed["keys"] as? [[String: Any]])
        let retired = try XCTUnwrap(rows.first { $0["id"] as? String == old })
        XCTAssertEqual(retired["expires"] as? String, "2026-12-01T09:00:00Z", "retired when it was made, not before")
        XCTAssertEqual(retired["status"] as? String, "retired (expired)")
        XCTAssertEqual(try w.rollout("verify").status, 0)
        let site = w.scratch.path("site")
        XCTAssertEqual(try w.rollout("publish", "--out", site, "--key", keyPath(w, "publish-2.key")).status, 0)
        assertRefused(
            try w.rollout("publish", "--out", site, "--key", keyPath(w, "publish-1.key")), status: 65,
            naming: [old, "expired"])
    }
}
