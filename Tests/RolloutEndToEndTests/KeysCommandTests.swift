import Foundation
import RolloutCrypto
import RolloutModel
import XCTest

/// `rollout keys` on real repositories (docs/keys.md, "Operations"): every key list version is a
/// commit devices would accept, private keys land only in files of mode 0600 outside the
/// repository, and a refused command leaves the repository and the key directory as they were.
final class KeysCommandTests: XCTestCase {
    static let now = "2026-12-01T09:00:00Z"

    func workspace() throws -> Workspace {
        let w = try Workspace()
        w.environment["ROLLOUT_NOW"] = Self.now
        XCTAssertEqual(try w.rollout("init").status, 0)
        return w
    }

    /// A repository with key list version 1 made by `keys init --out keys` (in the scratch directory).
    func initialized(_ extra: [String] = []) throws -> (Workspace, [String: Any]) {
        let w = try workspace()
        let result = try w.rollout(["keys", "init", "--out", w.scratch.path("keys"), "--json"] + extra)
        XCTAssertEqual(result.status, 0, result.output)
        return (w, try w.json(result))
    }

    func key(_ w: Workspace, _ name: String) -> String { w.scratch.path("keys/" + name) }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func keyFiles(_ w: Workspace) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: w.scratch.path("keys"))) ?? []).sorted()
    }

    func listed(_ w: Workspace) throws -> [String: Any] {
        let result = try w.rollout("keys", "list", "--json")
        XCTAssertEqual(result.status, 0, result.output)
        return try w.json(result)
    }

    func rows(_ list: [String: Any]) -> [[String: Any]] { list["keys"] as? [[String: Any]] ?? [] }

    func trailers(_ w: Workspace) throws -> [String] {
        try w.git("log", "-1", "--format=%B", "main").stdout.split(separator: "\n").map(String.init).filter {
            $0.hasPrefix("Rollout-")
        }
    }

    func assertVerifies(_ w: Workspace, file: StaticString = #filePath, line: UInt = #line) throws {
        let verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output, file: file, line: line)
    }

    func testInitWritesARootAndAPublishingKeyAndCommitsVersion1() throws {
        let (w, made) = try initialized()
        XCTAssertEqual(keyFiles(w), ["publish-1.key", "root.key"])
        for name in keyFiles(w) { XCTAssertEqual(try mode(key(w, name)), 0o600, name) }
        let roots = try XCTUnwrap(made["roots"] as? [[String: Any]])
        XCTAssertEqual(roots.count, 1)
        let rootKey = try XCTUnwrap(roots[0]["publicKey"] as? String)
        XCTAssertTrue(rootKey.hasPrefix("ed25519:"), rootKey)
        let publishing = try XCTUnwrap(made["publishing"] as? [String: Any])
        XCTAssertEqual(
            publishing["expires"] as? String, "2027-12-01T09:00:00Z", "a publishing key is valid 365 days by default")

        let list = try listed(w)
        XCTAssertEqual(list["version"] as? Int, 1)
        XCTAssertEqual(list["threshold"] as? Int, 1)
        XCTAssertEqual(rows(list).map { $0["role"] as? String }, ["root", "publishing"])
        XCTAssertEqual(
            rows(list).map { $0["id"] as? String }, [roots[0]["id"] as? String, publishing["id"] as? String])
        XCTAssertEqual(rows(list).map { $0["status"] as? String }, ["active", "active"])
        XCTAssertEqual(
            try trailers(w).prefix(3), ["Rollout-Action: keys", "Rollout-Keys-Version: 1", "Rollout-Key-Event: init"])
        XCTAssertEqual(try w.git("ls-tree", "--name-only", "main", "keys/").stdout, "keys/1.json\nkeys/1.json.sigs\n")
        let text = try w.rollout("keys", "list")
        XCTAssertTrue(text.stdout.contains("Key list version 1"), text.stdout)
        XCTAssertTrue(text.stdout.contains("ID  "), text.stdout)
        try assertVerifies(w)
    }

    func testInitWithSeveralRootsAndAnAdoptedPublishingKey() throws {
        let w = try workspace()
        let pinned = try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("pinned.key"), "--json"))
        let result = try w.rollout(
            "keys", "init", "--out", w.scratch.path("keys"), "--roots", "3", "--threshold", "2", "--adopt",
            w.scratch.path("pinned.key"), "--expires", "2w",
            "--json")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(keyFiles(w), ["root-1.key", "root-2.key", "root-3.key"], "an adopted key is not copied")
        let made = try w.json(result)
        XCTAssertEqual(made["threshold"] as? Int, 2)
        let publishing = try XCTUnwrap(made["publishing"] as? [String: Any])
        XCTAssertEqual(
            publishing["publicKey"] as? String, pinned["publicKey"] as? String, "the key the live app pins signs on")
        XCTAssertEqual(publishing["expires"] as? String, "2026-12-15T09:00:00Z")
        XCTAssertEqual(try listed(w)["threshold"] as? Int, 2)
        try assertVerifies(w)
    }

    func testRotateRetiresTheOldPublishingKeyAndCommitsVersion2() throws {
        let (w, made) = try initialized()
        let old = try XCTUnwrap((made["publishing"] as? [String: Any])?["id"] as? String)
        let result = try w.rollout("keys", "rotate", "--root", key(w, "root.key"), "--json")
        XCTAssertEqual(result.status, 0, result.output)
        let rotated = try w.json(result)
        let new = try XCTUnwrap((rotated["publishing"] as? [String: Any])?["id"] as? String)
        XCTAssertEqual(
            keyFiles(w), ["publish-1.key", "publish-2.key", "root.key"],
            "the new key goes beside the root key, named by the version")
        XCTAssertEqual(try mode(key(w, "publish-2.key")), 0o600)

        let list = try listed(w)
        XCTAssertEqual(list["version"] as? Int, 2)
        let byID = Dictionary(uniqueKeysWithValues: rows(list).map { ($0["id"] as! String, $0) })
        XCTAssertEqual(byID[old]?["expires"] as? String, Self.now, "overlap 0 retires the old key now")
        XCTAssertEqual(
            byID[old]?["status"] as? String, "retired (expired)", "still listed, so what it signed stays valid")
        XCTAssertEqual(byID[new]?["status"] as? String, "active")
        XCTAssertEqual(
            try trailers(w),
            [
                "Rollout-Action: keys", "Rollout-Keys-Version: 2", "Rollout-Key-Event: rotate", "Rollout-Key: \(new)",
                "Rollout-Plans: none", "Rollout-Actor: Test Runner <test@example.com>",
            ])
        try assertVerifies(w)
    }

    func testRotateWithAnOverlapAndAnOutFile() throws {
        let (w, made) = try initialized()
        let old = try XCTUnwrap((made["publishing"] as? [String: Any])?["id"] as? String)
        let out = w.scratch.path("ci/publish.key")
        try FileManager.default.createDirectory(atPath: w.scratch.path("ci"), withIntermediateDirectories: true)
        let result = try w.rollout(
            "keys", "rotate", "--root", key(w, "root.key"), "--out", out, "--overlap", "3d", "--expires", "90d")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(try mode(out), 0o600)
        let byID = Dictionary(uniqueKeysWithValues: rows(try listed(w)).map { ($0["id"] as! String, $0) })
        XCTAssertEqual(byID[old]?["expires"] as? String, "2026-12-04T09:00:00Z")
        XCTAssertEqual(byID[old]?["status"] as? String, "expires in 3 days")
        XCTAssertEqual(
            byID.values.first { $0["id"] as? String != old && $0["role"] as? String == "publishing" }?["expires"]
                as? String, "2027-03-01T09:00:00Z")
    }

    func testRevokeByAPrefixRecordsTheReasonForGood() throws {
        let (w, made) = try initialized()
        let old = try XCTUnwrap((made["publishing"] as? [String: Any])?["id"] as? String)
        XCTAssertEqual(try w.rollout("keys", "rotate", "--root", key(w, "root.key")).status, 0)
        let result = try w.rollout(
            "keys", "revoke", String(old.prefix(8)), "--root", key(w, "root.key"), "--reason", "laptop lost")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.contains("\(old) revoked (laptop lost)"), result.stdout)
        let list = try listed(w)
        XCTAssertEqual(list["version"] as? Int, 3)
        let revoked = try XCTUnwrap(rows(list).first { $0["id"] as? String == old })
        XCTAssertEqual(revoked["role"] as? String, "revoked")
        XCTAssertEqual(revoked["status"] as? String, "revoked: laptop lost")
        XCTAssertEqual(revoked["revoked"] as? String, Self.now)
        let trailers = try trailers(w)
        XCTAssertTrue(trailers.contains("Rollout-Key-Event: revoke"), "\(trailers)")
        XCTAssertTrue(trailers.contains("Rollout-Key: \(old)"), "\(trailers)")
        XCTAssertTrue(trailers.contains("Rollout-Reason: laptop lost"), "\(trailers)")
        XCTAssertTrue(try w.rollout("keys", "list").stdout.contains("revoked: laptop lost"))
        try assertVerifies(w)
    }

    func testRotateRootToTwoRootsWithAThresholdOfTwo() throws {
        let (w, made) = try initialized()
        let oldRoot = try XCTUnwrap((made["roots"] as? [[String: Any]])?.first?["id"] as? String)
        let result = try w.rollout(
            "keys", "rotate-root", "--root", key(w, "root.key"), "--out", key(w, "root-a.key"), "--out",
            key(w, "root-b.key"), "--threshold", "2",
            "--json")
        XCTAssertEqual(result.status, 0, result.output)
        let rotated = try w.json(result)
        XCTAssertEqual(rotated["rootChanges"] as? [Int], [1, 2])
        XCTAssertEqual(try mode(key(w, "root-a.key")), 0o600)
        XCTAssertEqual(try mode(key(w, "root-b.key")), 0o600)
        let list = try listed(w)
        XCTAssertEqual(list["threshold"] as? Int, 2)
        let roots = rows(list).filter { $0["role"] as? String == "root" }.compactMap { $0["id"] as? String }
        XCTAssertEqual(roots.count, 2)
        XCTAssertFalse(roots.contains(oldRoot), "the old root is replaced")
        XCTAssertTrue(try trailers(w).contains("Rollout-Key-Event: rotate-root"))

        // From now on the old root alone signs nothing, and one of two new roots is too few.
        let byOld = try w.rollout("keys", "rotate", "--root", key(w, "root.key"))
        XCTAssertEqual(byOld.status, 65, byOld.output)
        XCTAssertTrue(
            byOld.stderr.contains("--root \(key(w, "root.key")) is not a root key of key list version 2"), byOld.stderr)
        let byOne = try w.rollout("keys", "rotate", "--root", key(w, "root-a.key"))
        XCTAssertEqual(byOne.status, 65, byOne.output)
        XCTAssertTrue(byOne.stderr.contains("needs 2 of its 2 root keys"), byOne.stderr)
        let byBoth = try w.rollout("keys", "rotate", "--root", key(w, "root-a.key"), "--root", key(w, "root-b.key"))
        XCTAssertEqual(byBoth.status, 0, byBoth.output)
        XCTAssertEqual(try listed(w)["version"] as? Int, 3)
        try assertVerifies(w)
    }

    func testRotateRootKeepingOneRoot() throws {
        let (w, made) = try initialized(["--roots", "2"])
        let roots = try XCTUnwrap(made["roots"] as? [[String: Any]])
        let kept = try XCTUnwrap(roots.first { $0["file"] as? String == key(w, "root-1.key") }?["id"] as? String)
        let result = try w.rollout(
            "keys", "rotate-root", "--root", key(w, "root-1.key"), "--out", key(w, "root-3.key"), "--keep",
            String(kept.prefix(10)), "--threshold", "2")
        XCTAssertEqual(result.status, 0, result.output)
        let now = Set(rows(try listed(w)).filter { $0["role"] as? String == "root" }.compactMap { $0["id"] as? String })
        XCTAssertTrue(now.contains(kept), "\(now)")
        XCTAssertEqual(now.count, 2, "root-2 is replaced by root-3")
        try assertVerifies(w)
    }

    /// What a refused command leaves: the same state commit and the same key files, byte for byte.
    func assertUnchanged(
        _ w: Workspace, _ result: RunResult, status: Int32, says text: String, since before: (String, [String: Data]),
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(result.status, status, result.output, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(text), "expected \"\(text)\" in: \(result.stderr)", file: file, line: line)
        XCTAssertEqual(try w.stateTip(), before.0, "no commit", file: file, line: line)
        XCTAssertEqual(try snapshotKeys(w), before.1, "no key file written or changed", file: file, line: line)
    }

    func snapshotKeys(_ w: Workspace) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in keyFiles(w) { files[name] = try Data(contentsOf: URL(fileURLWithPath: key(w, name))) }
        return files
    }

    func testRefusedCommandsLeaveTheRepositoryAndTheKeysAsTheyWere() throws {
        let (w, made) = try initialized()
        let before = (try w.stateTip(), try snapshotKeys(w))
        let publishing = try XCTUnwrap((made["publishing"] as? [String: Any])?["id"] as? String)

        try assertUnchanged(
            w, try w.rollout("keys", "rotate", "--root", key(w, "publish-1.key")), status: 65,
            says: "--root \(key(w, "publish-1.key")) is not a root key of key list version 1 (it is a publishing key)",
            since: before)
        let stranger = w.scratch.path("stranger.key")
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", stranger).status, 0)
        try assertUnchanged(
            w, try w.rollout("keys", "revoke", publishing, "--root", stranger, "--reason", "test"), status: 65,
            says: "--root \(stranger) is not a root key", since: before)
        try assertUnchanged(
            w, try w.rollout("keys", "revoke", "0123456789abcdef", "--root", key(w, "root.key"), "--reason", "test"),
            status: 65,
            says: "no key of key list version 1 has the id 0123456789abcdef", since: before)
        try assertUnchanged(
            w, try w.rollout("keys", "revoke", "0123", "--root", key(w, "root.key"), "--reason", "test"), status: 64,
            says: "a unique start of at least 8", since: before)
        try assertUnchanged(
            w, try w.rollout("keys", "init", "--out", w.scratch.path("keys")), status: 65,
            says: "already has a key list (version 1)", since: before)
        try assertUnchanged(
            w, try w.rollout("keys", "init", "--out", w.scratch.path("other")), status: 65,
            says: "already has a key list", since: before)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: w.scratch.path("other")), "a refused init makes no directory")
        try assertUnchanged(
            w, try w.rollout("keys", "rotate", "--root", key(w, "root.key"), "--out", key(w, "publish-1.key")),
            status: 64,
            says: "\(key(w, "publish-1.key")) already exists; rollout never overwrites a key", since: before)
        try assertUnchanged(
            w, try w.rollout("keys", "rotate", "--root", key(w, "missing.key")), status: 66,
            says: "\(key(w, "missing.key")): no such key file", since: before)
        try assertUnchanged(w, try w.rollout("keys", "rotate"), status: 64, says: "needs --root FILE", since: before)
        try assertUnchanged(
            w, try w.rollout("keys", "rotate", "--root", key(w, "root.key"), "--expires", "7 days"), status: 64,
            says: "--expires \"7 days\" is not a duration",
            since: before)
        try assertUnchanged(
            w, try w.rollout("keys", "revoke", publishing, "--root", key(w, "root.key")), status: 64,
            says: "needs --reason TEXT", since: before)
        try assertUnchanged(
            w,
            try w.rollout(
                "keys", "rotate-root", "--root", key(w, "root.key"), "--out", key(w, "new-root.key"), "--threshold", "2"
            ), status: 65,
            says: "needs 2 root signature(s) but lists 1 root key(s)", since: before)
        try assertUnchanged(
            w, try w.rollout("keys", "rotate-root", "--root", key(w, "root.key"), "--out", key(w, "root.key")),
            status: 64,
            says: "already exists", since: before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: key(w, "new-root.key")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: key(w, "publish-2.key")))
        try assertVerifies(w)
    }

    /// The new key is written only after the list passed every check, and removed again when the
    /// commit itself fails (here: a lock a crashed process left on the state ref).
    func testACommitThatFailsTakesTheNewKeyFileWithIt() throws {
        let (w, _) = try initialized()
        let before = (try w.stateTip(), try snapshotKeys(w))
        let lock = w.repository + "/refs/heads/main.lock"
        try Data().write(to: URL(fileURLWithPath: lock))
        let result = try w.rollout("keys", "rotate", "--root", key(w, "root.key"))
        try assertUnchanged(w, result, status: 75, says: "stayed locked", since: before)
        try FileManager.default.removeItem(atPath: lock)
        let retried = try w.rollout("keys", "rotate", "--root", key(w, "root.key"))
        XCTAssertEqual(retried.status, 0, retried.output)
        XCTAssertEqual(keyFiles(w), ["publish-1.key", "publish-2.key", "root.key"])
    }

    func testCommandsOnARepositoryWithoutAKeyListSayHowToStart() throws {
        let w = try workspace()
        let tip = try w.stateTip()
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", w.scratch.path("root.key")).status, 0)
        for arguments in [
            ["keys", "list"], ["keys", "rotate", "--root", w.scratch.path("root.key")],
            ["keys", "revoke", "0123456789abcdef", "--root", w.scratch.path("root.key"), "--reason", "x"],
        ] {
            let result = try w.rollout(arguments)
            XCTAssertEqual(result.status, 66, "\(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains("run rollout keys init"), result.stderr)
        }
        XCTAssertEqual(try w.stateTip(), tip)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: w.scratch.root).filter { $0.hasSuffix(".key") },
            ["root.key"])
    }

    /// A key list version rewritten in place (here: its publishing key swapped for the attacker's
    /// and the signatures kept) is reported by verify as a changed file and a broken chain.
    func testVerifyReportsAKeyListChangedByACommitOutsideRollout() throws {
        let (w, _) = try initialized()
        var list = try KeyList.parse(Array(try w.git("show", "main:keys/1.json").stdout.utf8), source: "keys/1.json")
        let attacker = try Ed25519.PrivateKey.generate().publicKey
        list.publishing = [
            attacker.keyID: KeyList.PublishingKey(publicKey: attacker, created: list.time, expires: list.time)
        ]
        try PlainGit.commit(
            w, files: ["keys/1.json": String(decoding: list.bytes, as: UTF8.self)],
            message:
                "keys rotate\n\nRollout-Action: keys\nRollout-Keys-Version: 1\nRollout-Key-Event: rotate\nRollout-Actor: Mallory\n"
        )
        let result = try w.rollout("verify")
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(
            result.stdout.contains("keys/1.json: changed content; it may never change once written"), result.stdout)
        XCTAssertTrue(result.stdout.contains("keys/1.json: breaks the key chain"), result.stdout)
    }

    /// A version added with every trailer right but signed by a key that is not a root: the chain
    /// check (the device's own) finds it.
    func testVerifyReportsAKeyListTheRootsDidNotSign() throws {
        let (w, _) = try initialized()
        var list = try KeyList.parse(Array(try w.git("show", "main:keys/1.json").stdout.utf8), source: "keys/1.json")
        let stranger = try Ed25519.PrivateKey.generate()
        list.version = 2
        list.roots = KeyList.Roots(keys: [stranger.publicKey], threshold: 1)
        let signatures = SignatureSet.signing(list.bytes, with: [stranger])
        try PlainGit.commit(
            w,
            files: [
                "keys/2.json": String(decoding: list.bytes, as: UTF8.self),
                "keys/2.json.sigs": String(decoding: signatures.bytes, as: UTF8.self),
            ],
            message:
                "keys rotate-root\n\nRollout-Action: keys\nRollout-Keys-Version: 2\nRollout-Key-Event: rotate-root\nRollout-Actor: Mallory\n"
        )
        let result = try w.rollout("verify", "--json")
        XCTAssertEqual(result.status, 1, result.output)
        let problems = try XCTUnwrap(try w.json(result)["problems"] as? [[String: Any]])
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertEqual(problems.first?["path"] as? String, "keys/2.json")
        let message = problems.first?["message"] as? String ?? ""
        XCTAssertTrue(
            message.contains("breaks the key chain: keys/2.json: signed by 0 of the root keys this device trusts"),
            message)
    }

    func testVerifyReportsAMissingVersionAndAKeysCommitTouchingOtherFiles() throws {
        let (w, _) = try initialized()
        let one = try w.git("show", "main:keys/1.json").stdout
        try PlainGit.commit(
            w, files: ["keys/3.json": one, "policy-notes.txt": "x"],
            message:
                "keys\n\nRollout-Action: keys\nRollout-Keys-Version: 3\nRollout-Key-Event: rotate\nRollout-Actor: Mallory\n"
        )
        let result = try w.rollout("verify")
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.stdout.contains("policy-notes.txt: a keys commit may not touch this file"), result.stdout)
        XCTAssertTrue(
            result.stdout.contains("keys/3.json: a keys commit must add exactly key list version 3 and its signatures"),
            result.stdout)
        XCTAssertTrue(
            result.stdout.contains("keys: holds key list versions 1, 3; they must run 1, 2, 3"), result.stdout)
    }

    func testHelpDocumentsEveryFlagAndCompletionOffersTheCommands() throws {
        let w = try workspace()
        let help: [String: [String]] = [
            "init": ["--out DIR", "--roots N", "--threshold T", "--expires DURATION", "--adopt FILE"],
            "rotate": ["--root FILE", "--out FILE", "--expires DURATION", "--overlap DURATION"],
            "revoke": ["KEYID", "--root FILE", "--reason TEXT"],
            "rotate-root": ["--root FILE", "--out FILE", "--keep KEYID", "--threshold T"],
            "list": ["ROLE", "STATUS"],
            "generate": ["--out FILE"],
        ]
        for (command, words) in help {
            let result = try w.rollout("help", "keys", command)
            XCTAssertEqual(result.status, 0, result.output)
            for word in words {
                XCTAssertTrue(
                    result.stdout.contains(word), "rollout help keys \(command) lacks \(word):\n\(result.stdout)")
            }
            if command != "generate" && command != "list" {
                // An ambiguous key id prefix is a usage error (64), said where the exit codes are.
                let usageLine = result.stdout.split(separator: "\n").first { $0.hasPrefix("  64  usage") } ?? ""
                XCTAssertTrue(usageLine.contains("prefix several keys start with"), result.stdout)
            }
        }
        let candidates = try w.rollout("__complete", "keys", "").stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(candidates, ["generate", "init", "list", "revoke", "rotate", "rotate-root"])
        XCTAssertEqual(
            try w.rollout("__complete", "keys", "rotate", "--overlap", "").stdout, "30m\n12h\n7d\n2w\n365d\n")
    }

    /// Every key list change says which version new app versions build in as their minimum
    /// (RolloutClient.Trust minimumKeysVersion), so a fresh install refuses a list from before it.
    func testEachChangeAndTheListNameTheMinimumKeysVersionToBuildIn() throws {
        let w = try workspace()
        let made = try w.rollout("keys", "init", "--out", w.scratch.path("keys"))
        XCTAssertTrue(made.stdout.contains("Build into new app versions: minimum keys version 1\n"), made.stdout)
        let rotated = try w.json(try w.rollout("keys", "rotate", "--root", key(w, "root.key"), "--json"))
        XCTAssertEqual(rotated["minimumKeysVersion"] as? Int, 2)
        let old = try XCTUnwrap(
            rows(try listed(w)).first { $0["status"] as? String == "retired (expired)" }?["id"] as? String)
        let revoked = try w.rollout("keys", "revoke", old, "--root", key(w, "root.key"), "--reason", "laptop lost")
        XCTAssertTrue(revoked.stdout.contains("Build into new app versions: minimum keys version 3\n"), revoked.stdout)
        let rooted = try w.rollout(
            "keys", "rotate-root", "--root", key(w, "root.key"), "--out", key(w, "root-2.key"), "--json")
        XCTAssertEqual(try w.json(rooted)["minimumKeysVersion"] as? Int, 4, rooted.output)
        XCTAssertTrue(
            try w.rollout("keys", "list").stdout.contains("Build into new app versions: minimum keys version 4\n"))
        XCTAssertEqual(try listed(w)["minimumKeysVersion"] as? Int, 4)
    }

    func testDurationsAndCountsAreReadOneWayEverywhere() throws {
        let (w, _) = try initialized()
        let expires = try w.rollout("keys", "rotate", "--root", key(w, "root.key"), "--expires", "7 days")
        XCTAssertEqual(expires.status, 64, expires.output)
        XCTAssertTrue(
            expires.stderr.contains(
                "--expires \"7 days\" is not a duration: give a whole number and a unit, such as 30m"), expires.stderr)
        let out = w.scratch.path("site")
        let published = try w.rollout("publish", "--out", out, "--key", key(w, "publish-1.key"), "--expires", "7 days")
        XCTAssertEqual(published.status, 64, published.output)
        XCTAssertTrue(
            published.stderr.contains(
                "--expires \"7 days\" is not a duration: give a whole number and a unit, such as 30m"), published.stderr
        )
        let roots = try w.rollout("keys", "init", "--out", w.scratch.path("other"), "--roots", "17")
        XCTAssertTrue(roots.stderr.contains("--roots \"17\" must be a whole number from 1 to 16"), roots.stderr)
        let rootKey = try Ed25519.PrivateKey.generate().publicKey.description
        let minimum = try w.rollout(
            "verify-site", w.scratch.path("keys"), "--root-key", rootKey, "--min-keys-version", "x")
        XCTAssertEqual(minimum.status, 64, minimum.output)
        XCTAssertTrue(
            minimum.stderr.contains("--min-keys-version \"x\" must be a whole number of at least 0"), minimum.stderr)
    }
}
