import XCTest

/// Messages that say what is really wrong (issue 12, item 7), each a regression test.
final class PreciseMessageTests: XCTestCase {
    func testADeletedStateRefIsNamedNotReadAsNothingPromoted() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let tip = try w.stateTip()
        XCTAssertEqual(try w.git("update-ref", "-d", "refs/heads/main").status, 0)
        for arguments in [
            ["status"], ["status", "tr-TR"], ["log"], ["pack", "list"], ["promote", "tr-TR@18", "--to", "10%"],
        ] {
            let result = try w.rollout(arguments)
            XCTAssertEqual(result.status, 66, "\(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains("has no refs/heads/main"), "\(arguments): \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains("update-ref refs/heads/main \(tip)"),
                "names the last position from the reflog: \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("rollout verify"), result.stderr)
        }
        XCTAssertNotEqual(
            try w.git("rev-parse", "--verify", "-q", "refs/heads/main").status, 0,
            "a refused promote did not start a new history")
        // The way back the message names works.
        XCTAssertEqual(try w.git("update-ref", "refs/heads/main", tip).status, 0)
        let status = try w.rollout("status", "tr-TR")
        XCTAssertEqual(status.status, 0, status.output)
        XCTAssertTrue(status.stdout.contains("tr-TR@17"), status.stdout)
    }

    func testLeadingZerosInAShareAreNotOver100Percent() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let result = try w.rollout("promote", "tr-TR@18", "--to", "00010%", "--force", "--reason", "leading zeros")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.contains("to 10%"), result.stdout)
    }

    func testRepoNamingAFileSaysItIsNotADirectory() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let file = try w.scratch.write("work/notes.txt", "x")
        let result = try w.rollout("status", "--repo", file)
        XCTAssertEqual(result.status, 66, result.output)
        XCTAssertTrue(result.stderr.contains("is a file, not a directory"), result.stderr)
        XCTAssertFalse(result.stderr.contains("does not exist"), result.stderr)
    }

    func testARepositoryOfANewerFormatSaysToUpgrade() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.git("config", "rollout.format", "3").status, 0)
        let result = try w.rollout("status", "--repo", w.repository)
        XCTAssertEqual(result.status, 66, result.output)
        XCTAssertTrue(result.stderr.contains("made by a newer rollout (rollout.format=3)"), result.stderr)
        XCTAssertTrue(
            result.stderr.contains("reads formats up to 2") && result.stderr.contains("upgrade"), result.stderr)
    }

    func testAFormat1RepositoryIsReadAndItsFirstWriteMarksItFormat2SoRolloutsFromBeforeShardingRefuseIt() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.git("config", "rollout.format", "1").status, 0)
        XCTAssertEqual(try w.rollout("status").status, 0)
        XCTAssertEqual(try w.git("config", "rollout.format").stdout, "1\n", "reading changes nothing")
        let added = try w.rollout("pack", "add", try w.packVariant(of: "tr-TR@18", version: 1017))
        XCTAssertEqual(added.status, 0, added.output)
        // A rollout from before sharding reads 1 only and says "made by a newer rollout" to anything higher.
        XCTAssertEqual(try w.git("config", "rollout.format").stdout, "2\n")
    }

    func testAFallbackCycleIsPrintedInOrder() throws {
        let w = try Workspace()
        try w.initWithExamples()
        var pack =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("tr@1"))))
            as! [String: Any]
        pack.removeValue(forKey: "checksum")
        pack["locale"] = "es"
        pack["fallbackLocale"] = "es-ES"
        try w.scratch.write("work/es.json", try JSONSerialization.data(withJSONObject: pack))
        pack["locale"] = "es-ES"
        pack.removeValue(forKey: "fallbackLocale")
        try w.scratch.write("work/es-ES.json", try JSONSerialization.data(withJSONObject: pack))
        let result = try w.rollout("pack", "lint", "es.json", "es-ES.json")
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.stdout.contains("es@1: fallback chain has a cycle: es -> es-ES -> es"), result.stdout)
        XCTAssertTrue(
            result.stdout.contains("es-ES@1: fallback chain has a cycle: es-ES -> es -> es-ES"), result.stdout)
    }

    func testYearZeroIsRefusedAsDocumented() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        try w.scratch.write(
            "work/zero.csv",
            "date,locale,pack,region,app_version,sessions,crashes\n0000-01-01,tr-TR,tr-TR@17,TR,4.8.1,10,1\n")
        let tip = try w.stateTip()
        let result = try w.rollout("metrics", "ingest", "--kind", "crash", "zero.csv")
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertTrue(result.stderr.contains("zero.csv:2: date \"0000-01-01\" is not YYYY-MM-DD"), result.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
        try w.scratch.write(
            "work/one.csv",
            "date,locale,pack,region,app_version,sessions,crashes\n0001-01-01,tr-TR,tr-TR@17,TR,4.8.1,10,1\n")
        // Issue 31: a real date, but outside the policy's date window (docs/metrics.md, "The date window").
        let old = try w.rollout("metrics", "ingest", "--kind", "crash", "one.csv")
        XCTAssertEqual(old.status, 65, old.output)
        XCTAssertTrue(old.stderr.contains("one.csv:2: date 0001-01-01 is before"), old.stderr)
    }

    func testARepeatedVariantIsNotALocale() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let result = try w.rollout("status", "de-1996-1996")
        XCTAssertEqual(result.status, 64, result.output)
        XCTAssertTrue(result.stderr.contains("has the variant 1996 twice"), result.stderr)
    }
}
