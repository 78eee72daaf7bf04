import Foundation
import XCTest

/// pack add, list, show, diff, lint and checksum on real repositories.
final class PackCommandTests: XCTestCase {
    func testAddListShowAndDiffTheExamplePacks() throws {
        let w = try Workspace()
        try w.initWithExamples()

        let list = try w.rollout("pack", "list")
        XCTAssertEqual(list.status, 0, list.output)
        let ids = list.stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: " ")[0]) }
        XCTAssertEqual(ids, ["en-US@1", "tr@1", "tr-TR@17", "tr-TR@18", "vi-VN@3"])

        let trTR = try w.json(try w.rollout("pack", "list", "tr-TR", "--json"))
        let packs = try XCTUnwrap(trTR["packs"] as? [[String: Any]])
        XCTAssertEqual(packs.map { $0["pack"] as? String }, ["tr-TR@17", "tr-TR@18"])
        XCTAssertEqual(packs.map { $0["keys"] as? Int }, [14, 15])
        XCTAssertEqual(packs.map { $0["minAppVersion"] as? String }, ["4.8.0", "4.8.0"])
        XCTAssertEqual(
            packs.map { $0["addedBy"] as? String },
            ["Test Runner <test@example.com>", "Test Runner <test@example.com>"])

        let show = try w.rollout("pack", "show", "tr-TR@18", "--strings")
        XCTAssertEqual(show.status, 0, show.output)
        XCTAssertTrue(show.stdout.contains("fallbackLocale  tr"), show.stdout)
        XCTAssertTrue(show.stdout.contains("Hoş geldin"), show.stdout)
        let fileChecksum = try XCTUnwrap(
            (try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("tr-TR@18"))))
                as? [String: Any])?["checksum"] as? String)
        XCTAssertTrue(show.stdout.contains(fileChecksum), "show prints the checksum the file declares")

        let diff = try w.json(try w.rollout("pack", "diff", "tr-TR@17", "tr-TR@18", "--json"))
        XCTAssertEqual((diff["added"] as? [String: String])?.keys.sorted(), ["home.banner"])
        XCTAssertEqual((diff["removed"] as? [String: String])?.count, 0)
        let changed = try XCTUnwrap(diff["changed"] as? [String: [String: String]])
        XCTAssertEqual(changed["home.title"], ["from": "Hoş gledin", "to": "Hoş geldin"])
        XCTAssertEqual(changed.count, 1)
        let text = try w.rollout("pack", "diff", "tr-TR@17", "tr-TR@18")
        XCTAssertTrue(text.stdout.contains("1 added, 0 removed, 1 changed"), text.stdout)
    }

    func testTheStoredPackIsTheCanonicalFileAndGitShowsIt() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let stored = try w.git("show", "main:packs/tr-TR/0/18.json").stdout
        // The examples are written in the stored layout by `pack checksum --write`: same bytes.
        XCTAssertEqual(stored, try String(contentsOfFile: Fixtures.examplePack("tr-TR@18"), encoding: .utf8))
    }

    func testReAddingAnIdenticalPackIsANoOpThatSaysSo() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let before = try w.stateTip()
        // Same content, different formatting and no checksum: still the same pack.
        var object = try XCTUnwrap(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("tr-TR@18")))) as? [String: Any])
        object["checksum"] = nil
        let reformatted = try w.scratch.write("again.json", try JSONSerialization.data(withJSONObject: object))
        let result = try w.rollout("pack", "add", reformatted)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(
            result.stdout.contains("unchanged tr-TR@18: identical to the stored pack, nothing to do"), result.stdout)
        XCTAssertEqual(try w.stateTip(), before)
    }

    func testADifferentPackUnderAnExistingIdIsRefusedAndNothingChanges() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let before = try w.stateTip()
        let file = Fixtures.directory + "/hostile/same-id-different-content.json"
        let result = try w.rollout("pack", "add", file)
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertTrue(result.stderr.contains("tr-TR@18 already exists with different content"), result.stderr)
        XCTAssertTrue(result.stderr.contains("immutable"), result.stderr)
        XCTAssertEqual(try w.stateTip(), before)
        XCTAssertTrue(try w.git("show", "main:packs/tr-TR/0/18.json").stdout.contains("Hoş geldin"))
    }

    func testABatchIsAllOrNothing() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let before = try w.stateTip()
        let packs = Fixtures.allExamplePacks + [Fixtures.directory + "/hostile/dropped-version-placeholder.json"]
        let result = try w.rollout(["pack", "add"] + packs)
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertTrue(result.stderr.contains("nothing was stored"), result.stderr)
        XCTAssertEqual(try w.stateTip(), before)
        XCTAssertTrue(try w.rollout("pack", "list").stdout.contains("No packs yet"))
    }

    func testOrderInsideABatchDoesNotMatter() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        // tr-TR needs tr which needs en-US: given in reverse, the batch still resolves its own chain.
        let result = try w.rollout(["pack", "add"] + Fixtures.allExamplePacks.reversed())
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(try w.git("rev-list", "--count", "main").stdout, "2\n", "one commit for the whole batch")
    }

    func testProtectedKeysNeedAnApproverWhoIsRecorded() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let file = Fixtures.directory + "/hostile/protected-key-changed.json"
        let refused = try w.rollout("pack", "add", file)
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertTrue(refused.stderr.contains("--approved-by"), refused.stderr)

        let approved = try w.rollout("pack", "add", file, "--approved-by", "Legal <legal@example.com>")
        XCTAssertEqual(approved.status, 0, approved.output)
        XCTAssertEqual(
            try w.git("log", "-1", "--format=%(trailers:key=Rollout-Approved-By,valueonly)").stdout.trimmingCharacters(
                in: .whitespacesAndNewlines),
            "Legal <legal@example.com>")
        XCTAssertEqual(
            try w.json(try w.rollout("pack", "show", "tr-TR@19", "--json"))["approvedBy"] as? String,
            "Legal <legal@example.com>")
    }

    func testRemovedKeysNeedExplicitConsent() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let file = Fixtures.directory + "/hostile/removed-keys.json"
        XCTAssertEqual(try w.rollout("pack", "add", file).status, 65)
        let allowed = try w.rollout("pack", "add", file, "--allow-removed-keys", "--reason", "screens retired")
        XCTAssertEqual(allowed.status, 0, allowed.output)
        let diff = try w.json(try w.rollout("pack", "diff", "tr-TR@18", "tr-TR@19", "--json"))
        XCTAssertEqual((diff["removed"] as? [String: String])?.keys.sorted(), ["error.offline", "settings.language"])
    }

    func testLintWithoutARepositoryChecksTheFileAlone() throws {
        let w = try Workspace()
        let empty = w.scratch.path("no-repo")
        let ok = try w.rollout(["pack", "lint"] + Fixtures.allExamplePacks, in: empty)
        XCTAssertEqual(ok.status, 0, ok.output)
        XCTAssertTrue(ok.stdout.contains("lint passed"), ok.stdout)

        let bad = try w.rollout("pack", "lint", Fixtures.directory + "/hostile/script-tag.json", in: empty)
        XCTAssertEqual(bad.status, 1, "lint saying no is exit 1: \(bad.output)")
        XCTAssertTrue(bad.stdout.contains("executable-content"), bad.stdout)
    }

    func testLintInsideARepositoryUsesItsHistoryAndWritesNothing() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let before = try w.stateTip()
        let lint = try w.rollout(
            "pack", "lint", Fixtures.directory + "/hostile/content-version-backwards.json", "--json")
        XCTAssertEqual(lint.status, 1, lint.output)
        let report = try w.json(lint)
        XCTAssertEqual(report["ok"] as? Bool, false)
        let rules = (report["findings"] as? [[String: Any]])?.compactMap { $0["rule"] as? String }
        XCTAssertEqual(rules, ["content-version"])
        XCTAssertEqual(try w.stateTip(), before)

        let malformed = try w.rollout("pack", "lint", Fixtures.directory + "/hostile/duplicate-string-key.json")
        XCTAssertEqual(malformed.status, 65, "a file that is not a well-formed pack is bad input: \(malformed.output)")
    }

    func testChecksumComputesAndWritesTheCanonicalForm() throws {
        let w = try Workspace()
        let source = try w.scratch.write(
            "vi.json",
            """
            {"strings": {"b": "hai", "a": "một"}, "minAppVersion": "4.2", "contentVersion": 1,
             "schemaVersion": 2, "locale": "vi-VN"}
            """)
        let computed = try w.rollout("pack", "checksum", source)
        XCTAssertEqual(computed.status, 0, computed.output)
        let checksum = String(computed.stdout.split(separator: " ")[0])
        XCTAssertTrue(checksum.hasPrefix("sha256:") && checksum.count == 71, checksum)

        XCTAssertEqual(try w.rollout("pack", "checksum", "--write", source).status, 0)
        let written = try String(contentsOfFile: source, encoding: .utf8)
        XCTAssertTrue(written.hasPrefix("{\n  \"checksum\": \"\(checksum)\",\n  \"contentVersion\": 1,"), written)
        // The written file now verifies on its own.
        XCTAssertEqual(try w.rollout("pack", "lint", source, in: w.scratch.path("elsewhere")).status, 0)
    }

    func testTypeErrorsQuoteWhatTheFileSays() throws {
        let w = try Workspace()
        let big = try w.scratch.write(
            "big.json",
            #"{"locale":"tr","schemaVersion":2,"contentVersion":99999999999999999999,"minAppVersion":"4","strings":{"a":"b"}}"#
        )
        XCTAssertTrue(
            try w.rollout("pack", "lint", big).stderr.contains(
                "\"contentVersion\" must be between 1 and 1000000000, found 99999999999999999999"))
        let fraction = try w.scratch.write(
            "one.json",
            #"{"locale":"tr","schemaVersion":2,"contentVersion":1.0,"minAppVersion":"4","strings":{"a":"b"}}"#)
        XCTAssertTrue(try w.rollout("pack", "lint", fraction).stderr.contains("found the number 1.0"))
    }

    func testMissingPacksAndFilesAreExit66() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let show = try w.rollout("pack", "show", "tr-TR@99")
        XCTAssertEqual(show.status, 66, show.output)
        XCTAssertTrue(show.stderr.contains("tr-TR has versions 17, 18"), show.stderr)
        XCTAssertEqual(try w.rollout("pack", "diff", "tr-TR@17", "de-DE@1").status, 66)
        XCTAssertEqual(try w.rollout("pack", "list", "de-DE").status, 66)
        let file = try w.rollout("pack", "add", w.scratch.path("nope.json"))
        XCTAssertEqual(file.status, 66, file.output)
        XCTAssertTrue(file.stderr.contains("nope.json: no such pack file"), file.stderr)
        let badID = try w.rollout("pack", "show", "tr-TR-18")
        XCTAssertEqual(badID.status, 64, badID.output)
        XCTAssertTrue(badID.stderr.contains("LOCALE@VERSION"), badID.stderr)
    }
}
