import Foundation
import XCTest

/// Packs are stored in shards of 1,000 versions (`packs/tr-TR/1/1017.json`), and a repository made
/// before sharding, with every version flat in `packs/<locale>/`, keeps working without moving
/// (docs/pack-format.md, "Where packs are stored").
final class ShardingTests: XCTestCase {
    func testARepositoryWithTheOldFlatLayoutKeepsWorkingForAddPromotePublishAndVerify() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("pack", "add", try w.packVariant(of: "tr-TR@18", version: 19)).status, 0)
        try flattenHistory(w)
        XCTAssertEqual(
            try files(w, "packs/tr-TR"),
            ["17.json", "17.meta.json", "18.json", "18.meta.json", "19.json", "19.meta.json"], "made flat by git")
        let before = try w.rollout("verify")
        XCTAssertEqual(before.status, 0, "a flat repository is intact: \(before.output)")

        let added = try w.rollout(
            "pack", "add", try w.packVariant(of: "tr-TR@18", version: 20, replacing: [("Hoş geldin", "Merhaba")]))
        XCTAssertEqual(added.status, 0, added.output)
        XCTAssertEqual(
            try files(w, "packs/tr-TR"),
            ["0", "17.json", "17.meta.json", "18.json", "18.meta.json", "19.json", "19.meta.json"],
            "old versions stay where they are")
        XCTAssertEqual(try files(w, "packs/tr-TR/0"), ["20.json", "20.meta.json"], "a new version goes into its shard")
        let listed = try w.json(try w.rollout("pack", "list", "--json"))
        let ids = (listed["packs"] as? [[String: Any]] ?? []).compactMap { $0["pack"] as? String }
        XCTAssertTrue(Set(["tr-TR@17", "tr-TR@18", "tr-TR@19", "tr-TR@20"]).isSubset(of: ids), "\(ids)")
        XCTAssertEqual(try w.rollout("pack", "show", "tr-TR@18").status, 0, "a flat version reads")
        let taken = try w.rollout(
            "pack", "add", try w.packVariant(of: "tr-TR@18", version: 19, replacing: [("Hoş geldin", "Selam")]))
        XCTAssertEqual(taken.status, 65, "a flat version still counts: 19 is taken: \(taken.output)")
        let diff = try w.rollout("pack", "diff", "tr-TR@19", "tr-TR@20")
        XCTAssertEqual(diff.status, 0, diff.output)
        XCTAssertTrue(diff.stdout.contains("Merhaba"), "a flat and a sharded version compare: \(diff.output)")

        for id in ["en-US@1", "tr@1", "tr-TR@18", "vi-VN@3"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0, id)
        }
        XCTAssertEqual(try w.rollout("promote", "tr-TR@20", "--to", "10%", "--reason", "sharded over flat").status, 0)
        _ = try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key"), "--json")
        let published = try w.rollout(
            "publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("signing.key"))
        XCTAssertEqual(published.status, 0, published.output)
        let site = try FileManager.default.contentsOfDirectory(atPath: w.scratch.path("site/packs/tr-TR")).sorted()
        XCTAssertTrue(
            site.contains { $0.hasPrefix("18.") } && site.contains { $0.hasPrefix("20.") },
            "site paths name versions, never shards: \(site)")
        let verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output)
    }

    func testVersionsAcrossAShardBoundaryAreOneHistory() throws {
        let w = try Workspace()
        try w.initWithExamples()
        for version in [998, 999, 1000, 1001] {
            let added = try w.rollout(
                "pack", "add",
                try w.packVariant(
                    of: "tr-TR@18", version: version, replacing: [("Hoş geldin", "Hoş geldin \(version)")]))
            XCTAssertEqual(added.status, 0, added.output)
        }
        XCTAssertEqual(try files(w, "packs/tr-TR"), ["0", "1"])
        XCTAssertEqual(
            try files(w, "packs/tr-TR/0"),
            [
                "17.json", "17.meta.json", "18.json", "18.meta.json", "998.json", "998.meta.json", "999.json",
                "999.meta.json",
            ])
        XCTAssertEqual(try files(w, "packs/tr-TR/1"), ["1000.json", "1000.meta.json", "1001.json", "1001.meta.json"])
        let refused = try w.rollout("pack", "add", try w.packVariant(of: "tr-TR@18", version: 500))
        XCTAssertEqual(refused.status, 65, "1001 in shard 1 is the newest, whatever shard 0 holds: \(refused.output)")
        let diff = try w.rollout("pack", "diff", "tr-TR@999", "tr-TR@1000")
        XCTAssertEqual(diff.status, 0, diff.output)
        XCTAssertTrue(diff.stdout.contains("Hoş geldin 1000"), diff.output)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@1001", "--to", "100%").status, 0)
        let verified = try w.rollout("verify")
        XCTAssertEqual(verified.status, 0, verified.output)
    }

    func testVerifyRefusesAPackInTheWrongShard() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("pack", "add", try w.packVariant(of: "tr-TR@18", version: 1000)).status, 0)
        // Moved by hand from shard 1 to shard 0, where a reader looking for tr-TR@1000 never looks.
        let index = w.scratch.path("moved-index")
        try script(
            w, index: index,
            """
            git read-tree main
            for name in 1000.json 1000.meta.json; do
              blob=$(git rev-parse "main:packs/tr-TR/1/$name")
              printf '0 %040d\tpacks/tr-TR/1/%s\n100644 %s\tpacks/tr-TR/0/%s\n' 0 "$name" "$blob" "$name" | git update-index --index-info
            done
            commit=$(git log -1 --format=%B main | git commit-tree "$(git write-tree)" -p main)
            git update-ref -m moved refs/heads/main "$commit"
            """)
        let result = try w.rollout("verify", "--json")
        XCTAssertEqual(result.status, 1, result.output)
        let problems = (try w.json(result)["problems"] as? [[String: Any]] ?? []).map {
            "\($0["path"] as? String ?? "-") \($0["message"] as? String ?? "")"
        }
        XCTAssertTrue(
            problems.contains(
                "packs/tr-TR/0/1000.json is in the wrong shard: tr-TR@1000 belongs in packs/tr-TR/1/1000.json"),
            "\(problems)")
        XCTAssertTrue(
            problems.contains { $0.hasPrefix("packs/tr-TR/0/1000.json added in the wrong shard") }, "\(problems)")
    }

    func testADamagedFlatVersionIsNamedWhereItReallyIs() throws {
        let w = try Workspace()
        try w.initWithExamples()
        try flattenHistory(w)
        try script(
            w, index: w.scratch.path("damage-index"),
            """
            git read-tree main
            blob=$(printf 'not a pack' | git hash-object -w --stdin)
            printf '100644 %s\tpacks/tr-TR/18.json\n' "$blob" | git update-index --index-info
            commit=$(git log -1 --format=%B main | git commit-tree "$(git write-tree)" -p main)
            git update-ref -m damaged refs/heads/main "$commit"
            """)
        let result = try w.rollout("pack", "show", "tr-TR@18")
        XCTAssertNotEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stderr.contains("packs/tr-TR/18.json"), result.stderr)
        XCTAssertFalse(
            result.stderr.contains("packs/tr-TR/0/"),
            "not the shard, which a flat repository never had: \(result.stderr)")
    }

    /// Rewrites every commit with `packs/<locale>/<shard>/<file>` moved to `packs/<locale>/<file>`,
    /// messages, authors and dates kept, and a reflog that records the rewritten commits: a repository
    /// as a rollout from before sharding made it.
    private func flattenHistory(_ w: Workspace) throws {
        try script(
            w, index: w.scratch.path("flat-index"),
            """
            parent=
            commits=$(git rev-list --reverse main)
            rm -f "$GIT_DIR/logs/refs/heads/main"
            for c in $commits; do
              git read-tree --empty
              git ls-tree -r --full-tree "$c" | sed -E 's#\\tpacks/([^/]+)/[0-9]+/#\\tpacks/\\1/#' | git update-index --index-info
              export GIT_AUTHOR_NAME="$(git log -1 --format=%an "$c")" GIT_AUTHOR_EMAIL="$(git log -1 --format=%ae "$c")" GIT_AUTHOR_DATE="$(git log -1 --format=%aI "$c")"
              export GIT_COMMITTER_NAME="$(git log -1 --format=%cn "$c")" GIT_COMMITTER_EMAIL="$(git log -1 --format=%ce "$c")" GIT_COMMITTER_DATE="$(git log -1 --format=%cI "$c")"
              new=$(git log -1 --format=%B "$c" | git commit-tree "$(git write-tree)" ${parent:+-p "$parent"})
              git update-ref -m "$(git log -1 --format=%s "$c")" refs/heads/main "$new"
              parent=$new
            done
            """)
    }

    /// Runs a bash script with the repository as GIT_DIR and its own index file.
    private func script(_ w: Workspace, index: String, _ text: String) throws {
        var environment = w.environment
        environment["GIT_DIR"] = w.repository
        environment["GIT_INDEX_FILE"] = index
        for role in ["AUTHOR", "COMMITTER"] {
            environment["GIT_\(role)_NAME"] = "Someone"
            environment["GIT_\(role)_EMAIL"] = "someone@example.com"
        }
        let result = try Processes.run(
            "/bin/bash", ["-euo", "pipefail", "-c", text], in: w.root, environment: environment)
        XCTAssertEqual(result.status, 0, result.output)
    }

    /// Names in the directory `path` of the state tree, sorted.
    private func files(_ w: Workspace, _ path: String) throws -> [String] {
        try w.git("ls-tree", "--name-only", "main:" + path).stdout.split(separator: "\n").map(String.init).sorted()
    }
}
