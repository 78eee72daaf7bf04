import Foundation
import XCTest

/// Inputs and situations that once broke a repository, a site or an auditor's terminal.
final class HardeningTests: XCTestCase {
    private func promoted(_ w: Workspace) throws {
        try w.initWithExamples()
        for id in ["en-US@1", "tr@1", "tr-TR@17", "vi-VN@3"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
    }

    func testAnActorGitCannotRecordIsRefusedBeforeAnythingIsWritten() throws {
        let w = try Workspace()
        try promoted(w)
        let tip = try w.stateTip()
        for actor in ["a\nb", "<a@b> <c@d>", "Jane <j@x> extra", "Esc\u{1B}[2K <e@x>"] {
            let result = try w.rollout("promote", "tr-TR@18", "--to", "5%", "--actor", actor)
            XCTAssertEqual(result.status, 64, "\(actor.debugDescription): \(result.output)")
            XCTAssertEqual(try w.stateTip(), tip)
        }
        XCTAssertEqual(try w.rollout("status", env: ["ROLLOUT_ACTOR": "x\ny"]).status, 0, "reading needs no actor")
        XCTAssertEqual(
            try w.rollout("pack", "add", Fixtures.examplePack("en-US@1"), env: ["ROLLOUT_NOW": "1969-12-31T00:00:00Z"])
                .status, 64)
        try w.assertFsckClean()
    }

    func testTheKillSwitchHasAWayBackToTheLastKnownGoodPack() throws {
        let w = try Workspace()
        try promoted(w)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "100%").status, 0)
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--to", "bundled", "--reason", "kill").status, 0)
        let back = try w.rollout("revert", "tr-TR", "--to", "17", "--reason", "back to the last good one")
        XCTAssertEqual(back.status, 0, back.output)
        let resolved = try w.rollout(
            "resolve", "--locale", "tr-TR", "--region", "TR", "--app-version", "4.9", "--install-id", "x")
        XCTAssertTrue(resolved.stdout.contains("tr-TR: tr-TR@17"), resolved.stdout)
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--to", "vi-VN@17").status, 64, "a version of another locale")
    }

    func testAddingAPackChangesNothingDevicesSeeUntilItIsPromoted() throws {
        let w = try Workspace()
        try promoted(w)
        let vi4 = try w.scratch.write(
            "vi-VN@4.json",
            try String(contentsOfFile: Fixtures.examplePack("vi-VN@3"), encoding: .utf8)
                .replacingOccurrences(of: "\"contentVersion\": 3", with: "\"contentVersion\": 4")
                .replacingOccurrences(of: "\"fallbackLocale\": \"en-US\"", with: "\"fallbackLocale\": \"tr\"")
                .split(separator: "\n").filter { !$0.contains("\"checksum\"") }.joined(separator: "\n"))
        XCTAssertEqual(try w.rollout("pack", "add", vi4).status, 0)
        let resolved = try w.rollout(
            "resolve", "--locale", "vi-VN", "--region", "VN", "--app-version", "4.9", "--install-id", "x")
        XCTAssertTrue(resolved.stdout.contains("vi-VN, then en-US (in each"), resolved.stdout)
    }

    func testTheKillSwitchEndsTheChainAndAWayBackKeepsOnlyOlderBaselines() throws {
        let w = try Workspace()
        try promoted(w)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "100%").status, 0)
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--to", "bundled", "--no-block", "--reason", "kill").status, 0)
        let killed = try w.rollout(
            "resolve", "--locale", "tr-TR", "--region", "TR", "--app-version", "4.9", "--install-id", "x")
        XCTAssertTrue(
            killed.stdout.contains(
                "A key is looked up in tr-TR (in each, the pack, then the app's bundled strings of that locale)"),
            killed.stdout)
        XCTAssertTrue(try w.rollout("status").stdout.contains("bundled (kill switch)"))
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let plan = try XCTUnwrap(try w.json(try w.rollout("status", "tr-TR", "--json"))["plan"] as? [String: Any])
        XCTAssertEqual(
            (plan["previousBaselines"] as? [[String: Any]])?.compactMap { $0["contentVersion"] as? Int }, [],
            "18 is newer than 17: it is not a last known good to go back to")
        let logged = try XCTUnwrap(
            (try w.json(try w.rollout("log", "--limit", "1", "--json"))["changes"] as? [[String: Any]])?.first)
        XCTAssertEqual(((logged["plans"] as? [[String: Any]])?.first?["sequence"] as? Int), plan["sequence"] as? Int)
    }

    func testADeletedIndexFileIsRebuiltNotTrusted() throws {
        let w = try Workspace()
        try promoted(w)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR").status, 0)
        let full = try w.rollout("log", "--segment", "TR/4.8", "--json").stdout
        XCTAssertTrue(full.contains("complete tr-TR@17"))
        for file in ["region-_other.idx", "region-TR.idx"] {
            try FileManager.default.removeItem(atPath: w.repository + "/rollout/log-index/" + file)
            XCTAssertEqual(try w.rollout("log", "--segment", "TR/4.8", "--json").stdout, full, file)
        }
        // Deleted, then a new change in that region before anyone reads: still every change.
        try FileManager.default.removeItem(atPath: w.repository + "/rollout/log-index/region-TR.idx")
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "20%", "--force", "--reason", "test").status, 0)
        let after = try XCTUnwrap(
            try w.json(try w.rollout("log", "--segment", "TR/4.8", "--json"))["changes"] as? [[String: Any]])
        XCTAssertEqual(
            after.compactMap { $0["summary"] as? String }.filter { $0.hasPrefix("promote tr-TR@18") }.count, 2,
            "\(after)")
    }

    func testANewDefaultLocaleMovesThePublishedSequence() throws {
        let w = try Workspace()
        try promoted(w)
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", w.scratch.path("k.pem")).status, 0)
        let first = try w.json(
            try w.rollout("publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("k.pem"), "--json"))
        try w.scratch.write("policy.json", #"{"defaultLocale": "tr"}"#)
        XCTAssertEqual(try w.rollout("policy", "set", w.scratch.path("policy.json")).status, 0)
        let second = try w.json(
            try w.rollout("publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("k.pem"), "--json"))
        XCTAssertGreaterThan(second["indexSequence"] as? Int ?? 0, first["indexSequence"] as? Int ?? 0)
    }

    func testSignatureFilesMustBeExactlyWhatPublishWrote() throws {
        let w = try Workspace()
        try promoted(w)
        let key = try XCTUnwrap(
            try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("k.pem"), "--json"))["publicKey"]
                as? String)
        XCTAssertEqual(
            try w.rollout("publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("k.pem")).status, 0)
        let sig = w.scratch.path("site/manifests/tr-TR.json.sig")
        let original = try Data(contentsOf: URL(fileURLWithPath: sig))
        var text = [UInt8](original)
        // The character before "==" carries bits the padding discards: changing them keeps the decoded bytes.
        let last = text.count - 4
        text[last] = text[last] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        for variant in [Data(text), original.dropLast()] {
            try variant.write(to: URL(fileURLWithPath: sig))
            let result = try w.rollout("verify-site", w.scratch.path("site"), "--public-key", key)
            XCTAssertEqual(result.status, 1, result.output)
            XCTAssertTrue(result.stdout.contains("manifests/tr-TR.json"), result.stdout)
        }
        try original.write(to: URL(fileURLWithPath: sig))
        XCTAssertEqual(try w.rollout("verify-site", w.scratch.path("site"), "--public-key", key).status, 0)
        // A site older than what a device accepted, or missing a planned locale, is refused.
        let replay = try w.rollout("verify-site", w.scratch.path("site"), "--public-key", key, "--min-sequence", "99")
        XCTAssertEqual(replay.status, 1, replay.output)
        XCTAssertTrue(
            replay.stdout.contains("older than 99, already accepted: a stale cache or a replay"), replay.stdout)
        let planned = try w.scratch.write(
            "de.json",
            """
            {"locale": "de-DE", "schemaVersion": 2, "contentVersion": 1, "minAppVersion": "4.0", "fallbackLocale": "en-US",
             "strings": {"home.title": "Willkommen", "update.body": "Version {{version}} ist da"}}
            """)
        XCTAssertEqual(try w.rollout("pack", "add", planned).status, 0)
        XCTAssertEqual(try w.rollout("promote", "de-DE@1", "--to", "100%").status, 0)
        let stale = try w.rollout("verify-site", w.scratch.path("site"), "--public-key", key)
        XCTAssertEqual(stale.status, 1, stale.output)
        XCTAssertTrue(stale.stdout.contains("does not list de-DE"), stale.stdout)
    }

    func testTheLogShowsWhatTheHistorySaysEvenIfItsCacheIsEdited() throws {
        let w = try Workspace()
        try promoted(w)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%", "--reason", "typo fix").status, 0)
        XCTAssertTrue(try w.rollout("log", "--limit", "1").stdout.contains("typo fix"))
        let changes = w.repository + "/rollout/log-index/changes.jsonl"
        let forged = try String(contentsOfFile: changes, encoding: .utf8).replacingOccurrences(
            of: "typo fix", with: "approved by CTO")
        try forged.write(toFile: changes, atomically: true, encoding: .utf8)
        let log = try w.rollout("log", "--limit", "1")
        XCTAssertTrue(log.stdout.contains("typo fix"), log.stdout)
        XCTAssertFalse(log.stdout.contains("approved by CTO"), log.stdout)
    }

    func testTheLogWorksWhereItsIndexCannotBeWritten() throws {
        let w = try Workspace()
        try promoted(w)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--reason", "typo fix").status, 0)
        let indexed = try w.rollout("log", "--segment", "TR/4.8", "--json").stdout
        // Where the index lives is now a file: it cannot be created, as on a read-only mount.
        try FileManager.default.removeItem(atPath: w.repository + "/rollout")
        XCTAssertTrue(
            FileManager.default.createFile(atPath: w.repository + "/rollout", contents: Data("not a directory".utf8)))
        let walked = try w.rollout("log", "--segment", "TR/4.8", "--json")
        XCTAssertEqual(walked.status, 0, walked.output)
        XCTAssertEqual(walked.stdout, indexed)
    }

    func testEscapeSequencesNeverReachTheTerminal() throws {
        let w = try Workspace()
        try promoted(w)
        XCTAssertEqual(
            try w.rollout("promote", "tr-TR@18", "--to", "10%", "--reason", "ok\u{1B}[2K\u{1B}[1Ahidden").status, 0)
        for arguments in [["log"], ["status", "tr-TR"], ["log", "--segment", "*/4.8"]] {
            let output = try w.rollout(arguments).stdout
            XCTAssertFalse(output.contains("\u{1B}"), "\(arguments): \(output.debugDescription)")
        }
        XCTAssertTrue(
            try w.rollout("log", "--json").stdout.contains("\\u001b[2K"), "JSON keeps the exact text, escaped")
    }

    func testAScopedRevertCanBeUndoneByTargetingTheSegmentAgain() throws {
        let w = try Workspace()
        try promoted(w)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "100%", "--region", "TR").status, 0)
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--segment", "TR/4.8", "--reason", "seg").status, 0)
        XCTAssertTrue(try w.rollout("status", "tr-TR").stdout.contains("withdrawn       TR/4.8.x"))
        let again = try w.rollout(
            "promote", "tr-TR@18", "--to", "100%", "--region", "TR", "--app-version", "4.8.x", "--reason", "fixed",
            "--force")
        XCTAssertEqual(again.status, 0, again.output)
        let resolved = try w.rollout(
            "resolve", "--locale", "tr-TR", "--region", "TR", "--app-version", "4.8.1", "--install-id", "x")
        XCTAssertTrue(resolved.stdout.contains("tr-TR: tr-TR@18"), resolved.stdout)
    }

    func testAKeyRewrittenInAnotherNormalisationFormIsARemovedKey() throws {
        let w = try Workspace()
        try w.initWithExamples()
        func pack(_ version: Int, key: String) throws -> String {
            try w.scratch.write(
                "vi-\(version).json",
                """
                {"locale": "vi-VN", "schemaVersion": 2, "contentVersion": \(version), "minAppVersion": "4.2", "fallbackLocale": "en-US",
                 "strings": {"\(key)": "x", "home.title": "Chào"}}
                """)
        }
        XCTAssertEqual(
            try w.rollout(
                "pack", "add", try pack(4, key: "ba\u{15F}l\u{131}k"), "--allow-removed-keys", "--approved-by", "Legal"
            ).status, 0)
        let refused = try w.rollout("pack", "add", try pack(5, key: "bas\u{327}l\u{131}k"))
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("1 key(s) removed since vi-VN@4"), refused.stderr)
    }

    func testAHugeMixWeightIsBadInputNotACrash() throws {
        let w = try Workspace()
        try promoted(w)
        let mix = try w.scratch.write("mix.csv", "region,app_version,weight\nTR,4.8.1,1e308\n")
        let result = try w.rollout("simulate", "tr-TR", "--mix", mix, "--json")
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertTrue(result.stderr.contains("mix.csv:2"), result.stderr)
    }
}
