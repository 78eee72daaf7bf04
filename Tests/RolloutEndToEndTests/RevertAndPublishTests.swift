import Foundation
import RolloutCrypto
import RolloutModel
import XCTest

/// revert, rollback manifests, keys, publish and verify-site on real repositories and real sites.
final class RevertAndPublishTests: XCTestCase {
    /// A repository with tr-TR@17 as baseline and tr-TR@18 at 10% in TR on >=4.8, plus a signing key.
    private func staged() throws -> (Workspace, publicKey: String) {
        let w = try Workspace()
        try w.initWithExamples()
        for id in ["en-US@1", "tr@1", "tr-TR@17", "vi-VN@3"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
        XCTAssertEqual(
            try w.rollout(
                "promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--app-version", ">=4.8", "--reason", "typo fix"
            ).status, 0)
        let keys = try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key"), "--json"))
        return (w, try XCTUnwrap(keys["publicKey"] as? String))
    }

    private func publish(_ w: Workspace, _ site: String = "site") throws -> [String: Any] {
        let result = try w.rollout(
            "publish", "--out", w.scratch.path(site), "--key", w.scratch.path("signing.key"), "--json")
        XCTAssertEqual(result.status, 0, result.output)
        return try w.json(result)
    }

    /// What a device does: verify the signature, then resolve from the manifest alone.
    private func manifest(_ w: Workspace, _ locale: String, publicKey: String, site: String = "site") throws
        -> LocaleManifest
    {
        let path = w.scratch.path("\(site)/manifests/\(locale).json")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let signature = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + ".sig")))
        XCTAssertTrue(
            DetachedSignature.verify(signature, over: bytes, with: try XCTUnwrap(Ed25519.PublicKey(publicKey))))
        return try LocaleManifest.parse(bytes, source: path)
    }

    /// Every file of the repository, by path: what a dry run must leave exactly as it was.
    private func repositoryFiles(_ w: Workspace) -> [String: Data] {
        var files: [String: Data] = [:]
        guard let walk = FileManager.default.enumerator(atPath: w.repository) else { return files }
        while let path = walk.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: w.repository + "/" + path) { files[path] = data }
        }
        return files
    }

    /// `revert --dry-run` shows the segments and the block the revert would make, and leaves the
    /// repository byte-identical; the revert that follows changes exactly those segments.
    func testARevertDryRunShowsTheRevertAndWritesNothing() throws {
        let (w, _) = try staged()
        let before = repositoryFiles(w)
        let dry = try w.rollout("revert", "tr-TR", "--reason", "crash spike", "--dry-run")
        XCTAssertEqual(dry.status, 0, dry.output)
        let lines = dry.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "Dry run: reverting tr-TR would change:")
        XCTAssertEqual(Array(lines.suffix(2)), ["would block: tr-TR@18", "Nothing was written."])
        XCTAssertEqual(repositoryFiles(w), before, "a dry run wrote to the repository")
        let json = try w.json(try w.rollout("revert", "tr-TR", "--dry-run", "--json"))
        XCTAssertEqual(json["dryRun"] as? Bool, true)
        XCTAssertEqual((json["rollback"] as? [String: Any])?["id"] as? String, "tr-TR/1")
        XCTAssertEqual(repositoryFiles(w), before, "a dry run with --json wrote to the repository")

        let real = try w.rollout("revert", "tr-TR", "--reason", "crash spike")
        XCTAssertEqual(real.status, 0, real.output)
        let table = { (text: String) in
            text.split(separator: "\n").filter { $0.hasPrefix("TR ") || $0.hasPrefix("SEGMENT") }
        }
        XCTAssertEqual(table(real.stdout), table(dry.stdout))
        XCTAssertFalse(table(dry.stdout).isEmpty)
    }

    func testAfterARevertEveryDeviceResolvesToThePreviousPack() throws {
        let (w, key) = try staged()
        _ = try publish(w)
        let before = try manifest(w, "tr-TR", publicKey: key)
        var ids = InstallIDGenerator(seed: 99)
        let regions = Region.assigned.sorted()
        let versions = ["4.0", "4.7.9", "4.8", "4.8.1", "4.9", "5.0", "10.2"].map { AppVersion($0)! }
        let devices = (0..<100_000).map { i in (regions[i % regions.count], versions[i % versions.count], ids.next()) }
        let reachedBefore = devices.filter {
            Resolution.outcome(before.plan, region: $0.0, appVersion: $0.1, installID: $0.2) == .pack(18)
        }.count
        XCTAssertGreaterThan(reachedBefore, 0, "the staged pack reached some devices before the revert")

        let revert = try w.rollout("revert", "tr-TR", "--reason", "crash spike on 4.8", "--json")
        XCTAssertEqual(revert.status, 0, revert.output)
        let published = try publish(w)
        let after = try manifest(w, "tr-TR", publicKey: key)
        XCTAssertGreaterThan(after.sequence, before.sequence)
        XCTAssertEqual(
            published["indexSequence"] as? Int,
            try XCTUnwrap(try w.json(revert)["rollback"] as? [String: Any])["manifestSequence"].map { _ in
                published["indexSequence"] as? Int
            } ?? nil)
        for (region, version, id) in devices {
            let outcome = Resolution.outcome(after.plan, region: region, appVersion: version, installID: id)
            let expected: Resolution.Outcome = version >= AppVersion("4.8.0")! ? .pack(17) : .bundled
            XCTAssertEqual(outcome, expected, "\(region) \(version) \(id)")
            if outcome != expected { break }
        }
        XCTAssertNil(after.packs[18], "a blocked pack is not listed")
        XCTAssertTrue(after.plan.isBlocked(18))
        let files = try FileManager.default.contentsOfDirectory(atPath: w.scratch.path("site/packs/tr-TR"))
        XCTAssertFalse(files.contains { $0.hasPrefix("18.") }, "\(files)")
        XCTAssertEqual(try w.rollout("verify-site", w.scratch.path("site"), "--public-key", key).status, 0)

        // The rollback manifest: stored, listed, immutable evidence of the decision.
        let document = try XCTUnwrap(try w.json(revert)["rollback"] as? [String: Any])
        XCTAssertEqual(document["id"] as? String, "tr-TR/1")
        XCTAssertEqual(document["reason"] as? String, "crash spike on 4.8")
        XCTAssertEqual(document["blocked"] as? [String], ["tr-TR@18"])
        XCTAssertEqual(document["evidence"] as? String, "none")
        XCTAssertEqual(document["manifestSequence"] as? Int, after.sequence)
        let segments = try XCTUnwrap(document["segments"] as? [[String: Any]])
        XCTAssertEqual(segments.count, 1)
        XCTAssertEqual(segments[0]["regions"] as? String, "TR")
        let stored = try w.git("show", "main:rollbacks/tr-TR/1.json").stdout
        XCTAssertEqual(try w.rollout("rollbacks", "tr-TR/1").stdout, stored)
        XCTAssertTrue(try w.rollout("rollbacks").stdout.contains("tr-TR/1"))
        // The revert, then the publish that recorded it reaching devices.
        let trailers = try w.git(
            "log", "-1", "main~1",
            "--format=%(trailers:key=Rollout-Action,key=Rollout-Blocked,key=Rollout-Rollback,valueonly,separator=|)"
        ).stdout
        XCTAssertEqual(
            try w.git("log", "-1", "--format=%(trailers:key=Rollout-Action,valueonly)").stdout.trimmingCharacters(
                in: .whitespacesAndNewlines), "publish")
        XCTAssertEqual(trailers.trimmingCharacters(in: .whitespacesAndNewlines), "revert|tr-TR@18|tr-TR/1")
        // And the blocked version can never be promoted again.
        let again = try w.rollout("promote", "tr-TR@18", "--to", "1%")
        XCTAssertEqual(again.status, 1, again.output)
        XCTAssertTrue(again.stderr.contains("blocked"), again.stderr)
    }

    func testAScopedRevertMovesOnlyThatSegment() throws {
        let (w, key) = try staged()
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "100%", "--region", "DE", "--force", "--reason", "test")
                .status, 0)
        XCTAssertEqual(
            try w.rollout("revert", "tr-TR", "--segment", "TR/4.8", "--reason", "crashes on 4.8 only").status, 0)
        _ = try publish(w)
        let plan = try manifest(w, "tr-TR", publicKey: key).plan
        var ids = InstallIDGenerator(seed: 5)
        var tr49 = 0
        for _ in 0..<2_000 {
            let id = ids.next()
            XCTAssertEqual(
                Resolution.outcome(plan, region: "TR", appVersion: AppVersion("4.8.3"), installID: id), .pack(17),
                "TR/4.8 went back")
            XCTAssertEqual(
                Resolution.outcome(plan, region: "DE", appVersion: AppVersion("4.8.3"), installID: id), .pack(18),
                "DE/4.8 kept it")
            if Resolution.outcome(plan, region: "TR", appVersion: AppVersion("4.9"), installID: id) == .pack(18) {
                tr49 += 1
            }
        }
        XCTAssertEqual(Double(tr49) / 2_000, 0.10, accuracy: 0.03, "TR on 4.9 keeps its 10%")
        XCTAssertFalse(plan.isBlocked(18), "other segments still receive it, so it is not blocked")
        XCTAssertEqual(try w.rollout("verify-site", w.scratch.path("site"), "--public-key", key).status, 0)
        XCTAssertTrue(try w.rollout("log", "--segment", "TR/4.8").stdout.contains("revert tr-TR in TR/4.8.x"))
        XCTAssertFalse(try w.rollout("log", "--segment", "DE/4.8", "--limit", "1").stdout.contains("revert"))
    }

    func testRevertEdgeCasesChangeNothingTheyShouldNot() throws {
        let (w, _) = try staged()
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--reason", "first").status, 0)
        // Reverting again: nothing staged now, so the baseline tr-TR@17 would go back, but it is the only one.
        let tip = try w.stateTip()
        let twice = try w.rollout("revert", "tr-TR")
        XCTAssertEqual(twice.status, 1, twice.output)
        XCTAssertTrue(twice.stderr.contains("the only good baseline"), twice.stderr)
        XCTAssertTrue(twice.stderr.contains("--to bundled"), twice.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
        let cases: [([String], Int32, String)] = [
            (["revert", "de-DE"], 66, "no locale de-DE"),
            (["revert", "tr-TR", "--to", "sixteen"], 64, "\"sixteen\""),
            (["revert", "tr-TR", "--to", "99"], 66, "no pack tr-TR@99"),
            (["revert", "tr-TR", "--to", "18"], 1, "tr-TR@18 is blocked"),
            (["revert", "tr-TR", "--segment", "TR/4.8"], 1, "nothing is staged"),
            (["revert", "tr-TR", "--segment", "TR/4.8", "--to", "17"], 64, "cannot be combined"),
            (["revert", "tr-TR", "--no-block"], 64, "--reason"),
            (["revert", "tr"], 1, "the only good baseline"),
        ]
        for (arguments, status, message) in cases {
            let result = try w.rollout(arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): expected \(message) in \(result.stderr)")
            XCTAssertEqual(try w.stateTip(), tip, "\(arguments) changed the state")
        }
        // Going back to the baseline it already has is a no-op that says so.
        let same = try w.rollout("revert", "tr-TR", "--to", "17")
        XCTAssertEqual(same.status, 0, same.output)
        XCTAssertTrue(same.stdout.contains("Nothing to revert"), same.stdout)
        XCTAssertEqual(try w.stateTip(), tip)
    }

    func testTheKillSwitchAndAnExplicitTarget() throws {
        let (w, key) = try staged()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "100%", "--force", "--reason", "test").status, 0)
        // tr-TR@18 is now the baseline and tr-TR@17 the last known good: an explicit --to 17.
        let back = try w.rollout("revert", "tr-TR", "--to", "17", "--reason", "wording")
        XCTAssertEqual(back.status, 0, back.output)
        XCTAssertTrue(back.stdout.contains("blocked: tr-TR@18"), back.stdout)
        let kill = try w.rollout("revert", "tr-TR", "--to", "bundled", "--reason", "OTA channel suspect", "--no-block")
        XCTAssertEqual(kill.status, 0, kill.output)
        _ = try publish(w)
        let plan = try manifest(w, "tr-TR", publicKey: key).plan
        XCTAssertTrue(plan.bundledOnly)
        XCTAssertEqual(Resolution.outcome(plan, region: "TR", appVersion: AppVersion("4.9"), installID: "x"), .bundled)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@17", "--to", "5%").status, 1, "nothing can be staged under the kill switch")
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0, "completing a pack turns it off")
        XCTAssertEqual(
            try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"].flatMap {
                ($0 as? [String: Any])?["bundledOnly"] as? Bool
            }, false)
    }

    func testPublishingIsDeterministicAndIncremental() throws {
        let (w, key) = try staged()
        let first = try publish(w)
        let second = try publish(w)
        XCTAssertEqual(second["written"] as? [String], [], "nothing changed, nothing rewritten")
        XCTAssertEqual(second["indexSequence"] as? Int, first["indexSequence"] as? Int)
        _ = try publish(w, "elsewhere")
        for file in ["index.json", "manifests/tr-TR.json", "manifests/tr-TR.json.sig"] {
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: w.scratch.path("site/" + file))),
                try Data(contentsOf: URL(fileURLWithPath: w.scratch.path("elsewhere/" + file))),
                "\(file): same state, same bytes")
        }
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "50%", "--force", "--reason", "test").status, 0)
        let third = try publish(w)
        XCTAssertEqual(
            Set(third["written"] as? [String] ?? []),
            ["manifests/tr-TR.json", "manifests/tr-TR.json.sig", "index.json", "index.json.sig"])
        XCTAssertGreaterThan(third["indexSequence"] as? Int ?? 0, first["indexSequence"] as? Int ?? 0)
        let index = try SiteIndex.parse(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: w.scratch.path("site/index.json")))), source: "index")
        XCTAssertEqual(index.locales["tr-TR"]?.chain, ["tr-TR", "tr", "en-US"])
        XCTAssertEqual(try w.rollout("verify-site", w.scratch.path("site"), "--public-key", key).status, 0)
        // A site published before the last change is stale: verify-site says so.
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "60%", "--force", "--reason", "test").status, 0)
        let stale = try w.rollout("verify-site", w.scratch.path("site"), "--public-key", key)
        XCTAssertEqual(stale.status, 1, stale.output)
        XCTAssertTrue(stale.stdout.contains("the site is stale"), stale.stdout)
    }

    func testOneChangedByteAnywhereIsRejectedNamingTheFile() throws {
        let (w, key) = try staged()
        _ = try publish(w)
        let site = w.scratch.path("site")
        let pack = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: site + "/packs/tr-TR").first { $0.hasPrefix("17.") })
        for file in [
            "index.json", "index.json.sig", "manifests/tr-TR.json", "manifests/en-US.json.sig", "packs/tr-TR/\(pack)",
        ] {
            let path = site + "/" + file
            let original = try Data(contentsOf: URL(fileURLWithPath: path))
            var tampered = [UInt8](original)
            tampered[tampered.count / 2] ^= 0x01
            try Data(tampered).write(to: URL(fileURLWithPath: path))
            let result = try w.rollout("verify-site", site, "--public-key", key)
            XCTAssertEqual(result.status, 1, "\(file): \(result.output)")
            XCTAssertTrue(
                result.stdout.contains(file.replacingOccurrences(of: ".sig", with: "")), "\(file): \(result.stdout)")
            try original.write(to: URL(fileURLWithPath: path))
        }
        XCTAssertEqual(try w.rollout("verify-site", site, "--public-key", key).status, 0)
        // Another key: every signature fails.
        let other =
            try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("other.key"), "--json"))["publicKey"]
            as? String
        XCTAssertEqual(try w.rollout("verify-site", site, "--public-key", try XCTUnwrap(other)).status, 1)
        XCTAssertEqual(try w.rollout("verify-site", site, "--public-key", "ed25519:short").status, 64)
    }

    func testKeysAreNeverOverwrittenAndArePrivate() throws {
        let w = try Workspace()
        let path = w.scratch.path("k.pem")
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", path).status, 0)
        let mode = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o077, 0, "no access for group or others")
        XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let again = try w.rollout("keys", "generate", "--out", path)
        XCTAssertEqual(again.status, 64, again.output)
        try w.scratch.write("not-a-key.pem", "hello")
        XCTAssertEqual(try w.rollout("init").status, 0)
        let bad = try w.rollout("publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("not-a-key.pem"))
        XCTAssertEqual(bad.status, 65, bad.output)
        XCTAssertTrue(bad.stderr.contains("not-a-key.pem"), bad.stderr)
    }
}
