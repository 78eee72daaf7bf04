import Foundation
import XCTest

/// Storage: rollout packs its own loose objects (`rollout gc`, and on its own after enough writes)
/// without losing or changing anything, even while other processes write.
final class GCTests: XCTestCase {
    func testGCPacksTheLooseObjectsOf40PackAddsAndEveryPackReadsBackTheSame() throws {
        let w = try Workspace()
        try w.initWithExamples()
        for version in 19..<59 {
            let added = try w.rollout(
                "pack", "add", try w.packVariant(of: "tr-TR@18", version: version),
                env: ["ROLLOUT_PACK_THRESHOLD": "1000000"])
            XCTAssertEqual(added.status, 0, added.output)
        }
        let before = try looseCount(w)
        XCTAssertGreaterThan(before, 40 * 6, "each pack add writes two blobs, four trees and a commit")
        let archiveBefore = try w.git("archive", "--format=tar", "main").stdout

        let gc = try w.rollout("gc", "--json")
        XCTAssertEqual(gc.status, 0, gc.output)

        XCTAssertLessThan(try looseCount(w), before / 10, "the loose objects went into the pack")
        let fsck = try w.git("fsck", "--full", "--strict", "--no-dangling")
        XCTAssertEqual(fsck.status, 0, fsck.output)
        XCTAssertEqual(
            try w.git("archive", "--format=tar", "main").stdout, archiveBefore,
            "every stored file reads back byte for byte")
        XCTAssertEqual(try w.rollout("verify").status, 0)
        XCTAssertEqual(try w.rollout("pack", "show", "tr-TR@58").status, 0)
    }

    /// Ingest writes its rollups as a pack of their own; `gc` repacks them without a delta search
    /// (docs/pack-format.md, "Packing"): every other object goes into one pack, every rollup into
    /// a second, stored whole, and each ingest's pack is gone.
    func testGCPacksRollupsWithoutDeltasAndReplacesEachIngestsPack() throws {
        let w = try Workspace()
        try w.initWithExamples()
        for file in ["crashes-healthy.csv", "fallbacks-healthy.csv"] {
            let kind = file.hasPrefix("crash") ? "crash" : "fallback"
            let ingested = try w.rollout("metrics", "ingest", "--kind", kind, MetricsIngestTests.examples + "/" + file)
            XCTAssertEqual(ingested.status, 0, ingested.output)
        }
        XCTAssertEqual(try packFiles(w).count, 2, "one pack per ingest, none merged by the writes")
        let shown = try w.rollout("metrics", "show", "tr-TR", "--json").stdout
        let archiveBefore = try w.git("archive", "--format=tar", "main").stdout

        XCTAssertEqual(try w.rollout("gc").status, 0)
        let packs = try packFiles(w)
        XCTAssertEqual(packs.count, 2, "everything else, and the rollups: \(packs)")
        let rollups = try w.git("ls-tree", "-r", "main", "metrics/crash", "metrics/fallback").stdout
            .split(separator: "\n").map { String($0.split(separator: " ")[2].prefix(40)) }
        XCTAssertEqual(rollups.count, 8)
        var deltas = ""
        for pack in packs {
            deltas += try w.git("verify-pack", "-v", w.repository + "/objects/pack/" + pack).stdout
        }
        for rollup in rollups {
            let line = try XCTUnwrap(deltas.split(separator: "\n").first { $0.hasPrefix(rollup) }, rollup)
            XCTAssertEqual(
                line.split(separator: " ", omittingEmptySubsequences: true).count, 5, "stored whole: \(line)")
        }
        try w.assertFsckClean()
        XCTAssertEqual(try w.git("archive", "--format=tar", "main").stdout, archiveBefore)
        XCTAssertEqual(try w.rollout("metrics", "show", "tr-TR", "--json").stdout, shown)
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    func testWritesPackOnTheirOwnOnceLooseObjectsPassTheThreshold() throws {
        let w = try Workspace()
        try w.initWithExamples()
        for version in 19..<59 {
            XCTAssertEqual(
                try w.rollout(
                    "pack", "add", try w.packVariant(of: "tr-TR@18", version: version),
                    env: ["ROLLOUT_PACK_THRESHOLD": "50"]
                ).status, 0)
        }
        let packs = try packFiles(w)
        XCTAssertTrue(
            (1...3).contains(packs.count), "writes packed their loose objects, and small packs merged: \(packs)")
        let counts = try w.git("count-objects", "-v").stdout
        XCTAssertLessThanOrEqual(try looseCount(w), 50, counts)
        try w.assertFsckClean()
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    func testAFailedAutomaticPackIsAWarningAndTheWriteStillLands() throws {
        let w = try Workspace()
        try w.initWithExamples()
        // objects/pack as a file: libgit2 reads the loose objects as before but cannot write a pack.
        let packDirectory = w.repository + "/objects/pack"
        try FileManager.default.removeItem(atPath: packDirectory)
        FileManager.default.createFile(atPath: packDirectory, contents: Data())
        let added = try w.rollout(
            "pack", "add", try w.packVariant(of: "tr-TR@18", version: 19), env: ["ROLLOUT_PACK_THRESHOLD": "0"])
        XCTAssertEqual(added.status, 0, added.output)
        XCTAssertTrue(
            added.stderr.contains("warning: the change landed, but packing the repository's loose objects failed"),
            added.stderr)
        XCTAssertTrue(added.stderr.contains("run rollout gc"), added.stderr)
        XCTAssertEqual(try w.rollout("pack", "show", "tr-TR@19").status, 0, "the pack was stored")

        try FileManager.default.removeItem(atPath: packDirectory)
        try FileManager.default.createDirectory(atPath: packDirectory, withIntermediateDirectories: false)
        XCTAssertEqual(try w.rollout("gc").status, 0)
        try w.assertFsckClean()
    }

    func testAGCLockLeftByACrashBlocksNothingAndAHeldOneMakesGCTryAgain() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let lock = w.repository + "/rollout-gc.lock"
        FileManager.default.createFile(atPath: lock, contents: Data("12345\n".utf8))
        XCTAssertEqual(try w.rollout("gc").status, 0, "a lock file no process holds is not a lock")

        let descriptor = open(lock, O_RDWR)
        XCTAssertEqual(flock(descriptor, LOCK_EX | LOCK_NB), 0)
        let busy = try w.rollout("gc")
        XCTAssertEqual(busy.status, 75, busy.output)
        XCTAssertTrue(busy.stderr.contains("another rollout process is packing this repository"), busy.stderr)
        let added = try w.rollout(
            "pack", "add", try w.packVariant(of: "tr-TR@18", version: 19), env: ["ROLLOUT_PACK_THRESHOLD": "0"])
        XCTAssertEqual(added.status, 0, "a write whose automatic pack finds gc busy just lands: \(added.output)")
        XCTAssertFalse(added.stderr.contains("warning"), added.stderr)
        close(descriptor)
        XCTAssertEqual(try w.rollout("gc").status, 0)
    }

    func testGCPrunesUnreachableLooseObjectsOnlyOnceTheyAreTwoWeeksOld() throws {
        let w = try Workspace()
        try w.initWithExamples()
        // Objects of writes that never landed (a lost race, a killed process): no ref reaches them.
        let old = try hashObject(w, "abandoned three weeks ago")
        let fresh = try hashObject(w, "a writer's, its ref not moved yet")
        let oldPath = w.repository + "/objects/" + old.prefix(2) + "/" + old.dropFirst(2)
        let threeWeeksAgo = Date().addingTimeInterval(-21 * 86_400)
        try FileManager.default.setAttributes([.modificationDate: threeWeeksAgo], ofItemAtPath: oldPath)

        let gc = try w.json(try w.rollout("gc", "--json"))
        XCTAssertEqual(gc["pruned"] as? Int, 1, "\(gc)")
        XCTAssertNotEqual(try w.git("cat-file", "-e", old).status, 0, "the old unreachable object is gone")
        XCTAssertEqual(try w.git("cat-file", "-e", fresh).status, 0, "the fresh one stays")
        XCTAssertEqual(try looseCount(w), 1, "only the fresh unreachable object is still loose")
        try w.assertFsckClean()
    }

    /// An ingest refused after it wrote its rollups' pack (here by signing: the key is missing) leaves
    /// a pack no ref reaches. `gc` removes it as it prunes unreachable loose objects, once it is two
    /// weeks old and not before (docs/pack-format.md, "Packing"), and the same file ingests afterwards.
    func testGCPrunesTheRefusedIngestsPackOnlyOnceItIsTwoWeeksOld() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("gc").status, 0)
        let before = Set(try packFiles(w))
        let file = MetricsIngestTests.examples + "/crashes-healthy.csv"
        let settings = [
            ("gpg.format", "ssh"), ("user.signingKey", w.scratch.path("no-such-key")), ("commit.gpgSign", "true"),
        ]
        for (key, value) in settings {
            XCTAssertEqual(try w.git("config", "--global", key, value).status, 0)
        }
        let tip = try w.stateTip()
        let refused = try w.rollout("metrics", "ingest", "--kind", "crash", file)
        XCTAssertEqual(refused.status, 69, refused.output)
        XCTAssertEqual(try w.stateTip(), tip)
        let orphan = try XCTUnwrap(Set(try packFiles(w)).subtracting(before).first, "the refused ingest's pack")
        XCTAssertEqual(try w.git("config", "--global", "--unset", "commit.gpgSign").status, 0)

        let young = try w.json(try w.rollout("gc", "--json"))
        XCTAssertEqual(young["packsPruned"] as? Int, 0, "\(young)")
        XCTAssertTrue(try packFiles(w).contains(orphan), "a pack younger than two weeks stays")
        // Every pack two weeks old, the ones gc is about to write again with the same objects (so the
        // same names) among them: only the orphan goes.
        for pack in try packFiles(w) {
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-15 * 86_400)],
                ofItemAtPath: w.repository + "/objects/pack/" + pack)
        }
        let old = try w.json(try w.rollout("gc", "--json"))
        XCTAssertEqual(old["packsPruned"] as? Int, 1, "\(old)")
        XCTAssertFalse(try packFiles(w).contains(orphan))
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: w.repository + "/objects/pack/" + orphan.dropLast(5) + ".idx"))
        try w.assertFsckClean()
        XCTAssertEqual(try w.rollout("verify").status, 0)
        let ingested = try w.rollout("metrics", "ingest", "--kind", "crash", file)
        XCTAssertEqual(ingested.status, 0, ingested.output)
        XCTAssertEqual(try w.rollout("metrics", "show", "tr-TR").status, 0)
    }

    func testGCKeepsAnnotatedTagsAndBlobsAndTreesARefNamesEvenWhenOld() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(
            try w.git("-c", "user.name=R", "-c", "user.email=r@example.com", "tag", "-a", "v1", "-m", "release", "main")
                .status, 0)
        let tag = try w.git("rev-parse", "refs/tags/v1").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let blob = try hashObject(w, "kept by refs/keep/blob alone")
        XCTAssertEqual(try w.git("update-ref", "refs/keep/blob", blob).status, 0)
        let tree = try w.git("rev-parse", "main^{tree}").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let treeOnly = try Processes.run(
            "/bin/sh",
            ["-c", "printf '100644 blob \(blob)\\tonly-here.txt\\n' | git --git-dir '\(w.repository)' mktree"],
            in: w.root,
            environment: w.environment
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(try w.git("update-ref", "refs/keep/tree", treeOnly).status, 0)
        let threeWeeksAgo = Date().addingTimeInterval(-21 * 86_400)
        for id in [tag, blob, tree, treeOnly] {
            try? FileManager.default.setAttributes(
                [.modificationDate: threeWeeksAgo],
                ofItemAtPath: w.repository + "/objects/" + id.prefix(2) + "/" + id.dropFirst(2))
        }

        let gc = try w.json(try w.rollout("gc", "--json"))
        XCTAssertEqual(gc["pruned"] as? Int, 0, "\(gc)")
        let fsck = try w.git("fsck", "--full", "--strict")
        XCTAssertEqual(fsck.status, 0, fsck.output)
        XCTAssertFalse(fsck.output.contains("missing"), fsck.output)
        XCTAssertEqual(try w.git("cat-file", "-t", tag).stdout, "tag\n")
        XCTAssertEqual(try w.git("cat-file", "blob", blob).stdout, "kept by refs/keep/blob alone")
        XCTAssertEqual(
            try w.git("cat-file", "-p", "refs/keep/tree:only-here.txt").stdout, "kept by refs/keep/blob alone")
        XCTAssertEqual(try looseCount(w), 0, "every object a ref names went into the pack")
        // And again: what a pack holds is neither lost nor copied into the next one.
        XCTAssertEqual(try w.rollout("gc").status, 0)
        XCTAssertEqual(try w.git("fsck", "--full", "--strict").status, 0)
    }

    func testGCLeavesAFanOutDirectoryChangedInTheLastMinutesAndRemovesAnOldEmptyOne() throws {
        let w = try Workspace()
        try w.initWithExamples()
        // Two fan-out directories no object of the repository is in (the commits' ids vary with the clock).
        let unused = (0..<256).map { w.repository + "/objects/" + String(format: "%02x", $0) }.filter {
            !FileManager.default.fileExists(atPath: $0)
        }
        let fresh = unused[0]
        let old = unused[1]
        for directory in [fresh, old] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: old)
        XCTAssertEqual(try w.rollout("gc").status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: fresh), "a writer such as git fetch may have just made it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: old), "empty and quiet for an hour")
        try w.assertFsckClean()
    }

    func testGCRemovesAReplacedPackWithTheReverseIndexAndBitmapGitWroteBesideIt() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let repack = try w.git("-c", "pack.writeReverseIndex=true", "repack", "-a", "-d", "--write-bitmap-index")
        XCTAssertEqual(repack.status, 0, repack.output)
        let gitPack = try XCTUnwrap(try packFiles(w).first).dropLast(".pack".count)
        let written = try FileManager.default.contentsOfDirectory(atPath: w.repository + "/objects/pack").filter {
            $0.hasPrefix(gitPack + ".")
        }
        XCTAssertTrue(written.contains(gitPack + ".bitmap") && written.contains(gitPack + ".rev"), "\(written)")
        XCTAssertEqual(try w.rollout("pack", "add", try w.packVariant(of: "tr-TR@18", version: 19)).status, 0)

        XCTAssertEqual(try w.rollout("gc").status, 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: w.repository + "/objects/pack")
        XCTAssertEqual(left.filter { $0.hasPrefix(gitPack + ".") }, [], "git's pack is replaced with all its files")
        XCTAssertEqual(try w.git("fsck", "--full", "--strict").status, 0)
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    func testHelpGCStatesTheAutomaticThresholdInBytesItReallyIs() throws {
        let w = try Workspace()
        let help = try w.rollout("help", "gc")
        XCTAssertEqual(help.status, 0, help.output)
        XCTAssertTrue(help.stdout.contains("2000 objects or 1000 KiB are"), help.stdout)
        XCTAssertFalse(help.stdout.contains("0 MiB"), help.stdout)
    }

    func testGCRacingConcurrentPackAddsLosesNothing() throws {
        let w = try Workspace(process: true)  // writers, collectors and readers in processes at once
        try w.initWithExamples()
        // Each writer adds its own locale, version after version (a locale's versions only go up).
        let locales = ["de-DE", "fr-FR", "es-ES", "it-IT"]
        let writers = locales.count
        let versionsEach = 12
        let files = try locales.map { locale in
            try (1...versionsEach).map { version in
                try w.scratch.write(
                    "\(locale)@\(version).json",
                    """
                    {"locale": "\(locale)", "schemaVersion": 2, "contentVersion": \(version), "minAppVersion": "4.0",
                     "fallbackLocale": "en-US", "strings": {"home.title": "\(locale) title \(version)"}}
                    """)
            }
        }
        let run = w.rollout
        let paths = files
        let collectors = 2
        let readers = 2
        let outcomes = simultaneously(writers + collectors + readers) { index -> [(status: Int32, output: String)] in
            if index < writers {
                return paths[index].map {
                    (try? run(["pack", "add", $0], nil, ["ROLLOUT_PACK_THRESHOLD": "30"])).map {
                        ($0.status, $0.output)
                    } ?? (-1, "")
                }
            }
            if index < writers + collectors {
                // Over and over: a busy one says so (75) and changes nothing.
                return (0..<8).map { _ in (try? run(["gc"], nil, [:])).map { ($0.status, $0.output) } ?? (-1, "") }
            }
            // Readers of packs, records and history while objects move from loose to packs and packs merge.
            return (0..<6).flatMap { _ in
                [["pack", "show", "tr-TR@18", "--strings"], ["pack", "list"], ["log", "--limit", "5"]].map {
                    arguments in
                    (try? run(arguments, nil, [:])).map { ($0.status, $0.output) } ?? (-1, "")
                }
            }
        }
        for (index, runs) in outcomes.enumerated() {
            for run in runs
            where !(run.status == 0 || (index >= writers && index < writers + collectors && run.status == 75)) {
                XCTFail("process \(index) exited \(run.status): \(run.output)")
            }
        }
        let listing = try w.json(try w.rollout("pack", "list", "--json"))
        let ids = Set((listing["packs"] as? [[String: Any]] ?? []).compactMap { $0["pack"] as? String })
        for locale in locales {
            for version in 1...versionsEach {
                XCTAssertTrue(ids.contains("\(locale)@\(version)"), "\(locale)@\(version) was lost")
            }
        }
        let fsck = try w.git("fsck", "--full", "--strict", "--no-dangling")
        XCTAssertEqual(fsck.status, 0, fsck.output)
        XCTAssertEqual(try w.rollout("verify").status, 0)
    }

    /// Writes `text` as a loose blob no ref reaches; returns its id.
    private func hashObject(_ w: Workspace, _ text: String) throws -> String {
        let file = try w.scratch.write("object-\(UUID().uuidString)", text)
        return try w.git("hash-object", "-w", file).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func packFiles(_ w: Workspace) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: w.repository + "/objects/pack").filter {
            $0.hasSuffix(".pack")
        }
    }

    /// `git count-objects -v`'s `count:` (loose objects).
    private func looseCount(_ w: Workspace) throws -> Int {
        let lines = try w.git("count-objects", "-v").stdout.split(separator: "\n")
        let count = lines.first { $0.hasPrefix("count: ") }.flatMap { Int($0.dropFirst("count: ".count)) }
        return try XCTUnwrap(count)
    }
}
