import Foundation
import XCTest

/// `rollout init`, discovery and the git repository underneath, as a user and an auditor meet them.
final class RepositoryTests: XCTestCase {
    func testInitMakesABareRepositoryThatPlainGitReadsAndFsckAccepts() throws {
        let w = try Workspace()
        let result = try w.rollout("init")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.contains(w.repository), result.stdout)

        XCTAssertEqual(try w.git("rev-parse", "--is-bare-repository").stdout, "true\n")
        XCTAssertEqual(try w.git("config", "rollout.format").stdout, "2\n")
        let log = try w.git("log", "--format=%an <%ae>|%s|%(trailers:key=Rollout-Action,valueonly)")
        XCTAssertEqual(log.status, 0, log.output)
        XCTAssertTrue(log.stdout.hasPrefix("Test Runner <test@example.com>|init: new pack repository|init"), log.stdout)
        let policy = try w.git("show", "main:policy.json")
        XCTAssertTrue(policy.stdout.contains("\"protectedKeys\""), policy.output)
        XCTAssertTrue(try w.git("show", "main:README.md").stdout.contains("rollout"))
        try w.assertFsckClean()
    }

    func testInitIntoANamedDirectoryAndRefusingANonEmptyOne() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init", w.scratch.path("packs.git")).status, 0)
        XCTAssertEqual(
            try w.git("rev-parse", "--is-bare-repository", repository: w.scratch.path("packs.git")).stdout, "true\n")

        try w.scratch.write("occupied/notes.txt", "mine")
        let refused = try w.rollout("init", w.scratch.path("occupied"))
        XCTAssertEqual(refused.status, 64, refused.output)
        XCTAssertTrue(refused.stderr.contains("not empty"), refused.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: w.scratch.path("occupied")), ["notes.txt"])
    }

    func testInitWithABadPolicyFileCreatesNothing() throws {
        let w = try Workspace()
        try w.scratch.write("policy.json", #"{"defaultLocale": "en-US", "protectedkeys": ["legal.*"]}"#)
        let result = try w.rollout("init", "--policy", w.scratch.path("policy.json"))
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertTrue(result.stderr.contains("unknown field \"protectedkeys\""), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: w.repository))
    }

    func testDiscoveryWalksUpFromASubdirectoryLikeGit() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let deep = w.scratch.path("work/app/ios/Sources")
        let list = try w.rollout("pack", "list", in: deep)
        XCTAssertEqual(list.status, 0, list.output)
        XCTAssertTrue(list.stdout.contains("tr-TR@18"), list.stdout)
    }

    func testRepoFlagAndEnvironmentOverrideDiscovery() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let other = w.scratch.path("other.git")
        XCTAssertEqual(try w.rollout("init", other).status, 0)

        // The working directory's repository has packs; the other one has none.
        XCTAssertTrue(try w.rollout("pack", "list").stdout.contains("tr-TR@18"))
        XCTAssertTrue(try w.rollout("pack", "list", env: ["ROLLOUT_REPO": other]).stdout.contains("No packs yet"))
        XCTAssertTrue(try w.rollout("pack", "list", "--repo", other).stdout.contains("No packs yet"))
        // --repo wins over ROLLOUT_REPO.
        XCTAssertTrue(
            try w.rollout("pack", "list", "--repo", w.repository, env: ["ROLLOUT_REPO": other]).stdout.contains(
                "tr-TR@18"))
    }

    func testNoRepositoryIsExit66WithTheNextStep() throws {
        let w = try Workspace()
        let result = try w.rollout("pack", "list", in: w.scratch.path("empty"))
        XCTAssertEqual(result.status, 66, result.output)
        XCTAssertTrue(result.stderr.contains("rollout init"), result.stderr)

        let named = try w.rollout("pack", "list", "--repo", w.scratch.path("nowhere"))
        XCTAssertEqual(named.status, 66, named.output)
        XCTAssertTrue(named.stderr.contains("nowhere"), named.stderr)

        // A plain git repository is not a rollout repository.
        XCTAssertEqual(
            try Processes.run(
                "/usr/bin/env", ["git", "init", "-q", "--bare", w.scratch.path("plain.git")], in: w.root,
                environment: w.environment
            ).status, 0)
        let plain = try w.rollout("pack", "list", "--repo", w.scratch.path("plain.git"))
        XCTAssertEqual(plain.status, 66, plain.output)
        XCTAssertTrue(plain.stderr.contains("not a rollout repository"), plain.stderr)
        // Not even when the user's global git config carries the marker.
        try w.scratch.write("home/.gitconfig", "[rollout]\n\tformat = 1\n")
        XCTAssertEqual(try w.rollout("pack", "list", "--repo", w.scratch.path("plain.git")).status, 66)
    }

    func testActorComesFromFlagThenEnvironmentThenGitConfig() throws {
        let w = try Workspace()
        w.environment["ROLLOUT_ACTOR"] = nil
        try w.scratch.write("home/.gitconfig", "[user]\n\tname = Config Person\n\temail = config@example.com\n")
        XCTAssertEqual(try w.rollout("init").status, 0)
        XCTAssertEqual(try w.rollout("pack", "add", Fixtures.examplePack("en-US@1")).status, 0)
        XCTAssertEqual(
            try w.rollout(
                "pack", "add", Fixtures.examplePack("tr@1"), env: ["ROLLOUT_ACTOR": "Env Person <env@example.com>"]
            ).status, 0)
        XCTAssertEqual(
            try w.rollout(
                "pack", "add", Fixtures.examplePack("vi-VN@3"), "--actor", "Flag Person <flag@example.com>",
                env: ["ROLLOUT_ACTOR": "Env Person <env@example.com>"]
            ).status, 0)

        let actors = try w.git("log", "--format=%(trailers:key=Rollout-Actor,valueonly,separator=)|%an|%ae").stdout
            .split(separator: "\n").filter { !$0.isEmpty }
        XCTAssertEqual(
            actors,
            [
                "Flag Person <flag@example.com>|Flag Person|flag@example.com",
                "Env Person <env@example.com>|Env Person|env@example.com",
                "Config Person <config@example.com>|Config Person|config@example.com",
                "Config Person <config@example.com>|Config Person|config@example.com",
            ])
        let record = try w.json(try w.rollout("pack", "show", "vi-VN@3", "--json"))
        XCTAssertEqual(record["addedBy"] as? String, "Flag Person <flag@example.com>")
    }

    func testEveryChangeIsOneCommitWithTrailersAndAReasonCannotForgeOne() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let added = try w.rollout(
            "pack", "add", Fixtures.examplePack("en-US@1"), "--reason", "first\nRollout-Action: forged")
        XCTAssertEqual(added.status, 0, added.output)
        let message = try w.git("log", "-1", "--format=%B").stdout
        XCTAssertTrue(message.contains("Rollout-Action: pack-add\n"), message)
        XCTAssertTrue(message.contains("Rollout-Pack: en-US@1\n"), message)
        XCTAssertTrue(message.contains("Rollout-Reason: first Rollout-Action: forged\n"), message)
        let actions = try w.git("log", "-1", "--format=%(trailers:key=Rollout-Action,valueonly)").stdout
        XCTAssertEqual(actions.trimmingCharacters(in: .whitespacesAndNewlines), "pack-add")
        XCTAssertEqual(try w.git("rev-list", "--count", "main").stdout, "2\n")
    }

    func testRolloutNowFixesTheRecordedTime() throws {
        let w = try Workspace()
        w.environment["ROLLOUT_NOW"] = "2026-11-28T09:30:00Z"
        try w.initWithExamples()
        XCTAssertEqual(
            try w.git("log", "-1", "--format=%ad", "--date=iso-strict-local").stdout, "2026-11-28T09:30:00+00:00\n")
        let record = try w.json(try w.rollout("pack", "show", "tr-TR@18", "--json"))
        XCTAssertEqual(record["addedAt"] as? String, "2026-11-28T09:30:00Z")

        let bad = try w.rollout("pack", "add", Fixtures.examplePack("tr-TR@18"), env: ["ROLLOUT_NOW": "yesterday"])
        XCTAssertEqual(bad.status, 64, bad.output)
        XCTAssertTrue(bad.stderr.contains("ROLLOUT_NOW=yesterday"), bad.stderr)
    }

    func testPolicyShowAndSetAreValidatedAndRecorded() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let before = try w.stateTip()
        try w.scratch.write("broken.json", #"{"limits": {"maxKeys": "many"}}"#)
        let broken = try w.rollout("policy", "set", w.scratch.path("broken.json"))
        XCTAssertEqual(broken.status, 65, broken.output)
        XCTAssertTrue(broken.stderr.contains("maxKeys"), broken.stderr)
        XCTAssertEqual(try w.stateTip(), before)

        try w.scratch.write(
            "policy.json",
            #"{"defaultLocale": "en-US", "requiredKeys": ["update.title"], "protectedKeys": ["legal.*"]}"#)
        let set = try w.rollout("policy", "set", w.scratch.path("policy.json"), "--reason", "update card is mandatory")
        XCTAssertEqual(set.status, 0, set.output)
        XCTAssertNotEqual(try w.stateTip(), before)
        let shown = try w.json(try w.rollout("policy", "show", "--json"))
        XCTAssertEqual(shown["requiredKeys"] as? [String], ["update.title"])
        XCTAssertEqual(
            try w.git("log", "-1", "--format=%(trailers:key=Rollout-Action,valueonly)").stdout.trimmingCharacters(
                in: .whitespacesAndNewlines), "policy-set")

        let again = try w.rollout("policy", "set", w.scratch.path("policy.json"))
        XCTAssertEqual(again.status, 0)
        XCTAssertTrue(again.stdout.contains("nothing to do"), again.stdout)
    }
}

final class LockTests: XCTestCase {
    /// A writer killed while holding the ref lock leaves `main.lock`; the next writer must say so and how to fix it.
    func testAStaleRefLockIsReportedWithTheCommandThatClearsIt() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let before = try w.stateTip()
        let lock = w.repository + "/refs/heads/main.lock"
        XCTAssertTrue(FileManager.default.createFile(atPath: lock, contents: Data()))
        let blocked = try w.rollout("pack", "add", Fixtures.examplePack("en-US@1"))
        XCTAssertEqual(blocked.status, 75, blocked.output)
        XCTAssertTrue(blocked.stderr.contains("rm \(lock)"), blocked.stderr)
        XCTAssertEqual(try w.stateTip(), before)

        try FileManager.default.removeItem(atPath: lock)
        XCTAssertEqual(try w.rollout("pack", "add", Fixtures.examplePack("en-US@1")).status, 0)
    }
}
