import Foundation
import XCTest

/// `--dry-run` of publish, policy set and the keys commands (`PackRepository.dryRun`): each leaves
/// every file of the repository, the working directory and the site as it was, and shows what the
/// real run then does.
final class DryRunTests: XCTestCase {
    /// Every file and folder under `root` (the repository, the working directory, the site, HOME),
    /// by path: a dry run must leave all of it byte for byte as it was.
    private func everything(_ w: Workspace) -> [String: Data] {
        var files: [String: Data] = [:]
        guard let walk = FileManager.default.enumerator(atPath: w.root) else { return files }
        while let path = walk.nextObject() as? String {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: w.root + "/" + path, isDirectory: &isDirectory)
            files[path] =
                isDirectory.boolValue
                ? Data("(folder)".utf8) : FileManager.default.contents(atPath: w.root + "/" + path)
        }
        return files
    }

    /// The paths added, removed or changed between two `everything` readings, sorted.
    private func changed(_ before: [String: Data], _ after: [String: Data]) -> [String] {
        Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
    }

    /// Runs `arguments` with --dry-run, asserting it succeeds, ends with the promise, and changes no file.
    /// (promote's staged dry run ends with its table, as it always did.)
    private func dryRun(
        _ w: Workspace, _ arguments: [String], endsWithPromise: Bool = true, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> RunResult {
        let before = everything(w)
        let dry = try w.rollout(arguments + ["--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.output, file: file, line: line)
        XCTAssertEqual(
            dry.stdout.hasSuffix("Nothing was written.\n"), endsWithPromise, dry.stdout, file: file, line: line)
        XCTAssertEqual(changed(before, everything(w)), [], "\(arguments) --dry-run wrote", file: file, line: line)
        let json = try w.rollout(arguments + ["--dry-run", "--json"])
        XCTAssertEqual(json.status, 0, json.output, file: file, line: line)
        XCTAssertEqual(try w.json(json)["dryRun"] as? Bool, true, file: file, line: line)
        XCTAssertEqual(
            changed(before, everything(w)), [], "\(arguments) --dry-run --json wrote", file: file, line: line)
        return dry
    }

    /// The commit message lines a dry run says it would record (`It would record this commit:`).
    private func wouldRecord(_ dry: RunResult) -> [String] {
        let lines = dry.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "It would record this commit:") else { return [] }
        return lines[(start + 1)...].prefix { $0.hasPrefix("  ") || $0.isEmpty }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    /// The message of the commit at the tip, line by line, as `wouldRecord` reads a dry run's.
    private func tipMessage(_ w: Workspace) throws -> [String] {
        try w.git("log", "-1", "--format=%B", "refs/heads/main").stdout.trimmingCharacters(in: .newlines)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    private func staged() throws -> Workspace {
        let w = try Workspace()
        w.environment["ROLLOUT_NOW"] = "2026-11-30T09:00:00Z"
        w.environment["ROLLOUT_ACTOR"] = "Ayşe Demir <ayse@example.com>"
        try w.initWithExamples()
        for id in ["en-US@1", "tr@1", "tr-TR@17"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR").status, 0)
        XCTAssertEqual(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key")).status, 0)
        return w
    }

    /// publish --dry-run into a new directory creates none and lists every file; after a revert, into
    /// the published site, it lists the files that change and the blocked pack that goes. Each time
    /// the real publish then writes and removes exactly those files and records the commit shown.
    func testAPublishDryRunListsTheFilesThePublishWritesAndTouchesNeitherSiteNorRepository() throws {
        let w = try staged()
        let publish = ["publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("signing.key")]
        for round in 1...2 {
            let dry = try dryRun(w, publish)
            XCTAssertTrue(dry.stdout.hasPrefix("Dry run: publishing 3 locale(s) to "), dry.stdout)
            XCTAssertEqual(round == 1, !FileManager.default.fileExists(atPath: w.scratch.path("site")))
            let preview = try w.json(try w.rollout(publish + ["--dry-run", "--json"]))
            let paths = { (key: String) in
                ((preview[key] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String }
            }
            let real = try w.json(try w.rollout(publish + ["--json"]))
            XCTAssertEqual(Set(paths("added") + paths("changed")), Set(real["written"] as? [String] ?? []))
            XCTAssertEqual(paths("removed"), real["removed"] as? [String] ?? [])
            XCTAssertEqual(preview["indexSequence"] as? Int, real["indexSequence"] as? Int)
            XCTAssertEqual(wouldRecord(dry), try tipMessage(w))
            if round == 1 {
                XCTAssertTrue(paths("changed").isEmpty && !paths("added").isEmpty, "\(preview)")
                XCTAssertEqual(try w.rollout("revert", "tr-TR", "--reason", "crash spike").status, 0)
            } else {
                XCTAssertTrue(paths("changed").contains("index.json"), "\(preview)")
                XCTAssertTrue(paths("added").isEmpty, "\(preview)")
                XCTAssertEqual(paths("removed").count, 1, "the blocked tr-TR@18 leaves the site: \(preview)")
            }
        }
    }

    /// policy set --dry-run names the fields that change and the served packs the new policy's rules
    /// refuse; the real run then records the commit it showed.
    func testAPolicySetDryRunShowsTheFieldsAndTheServedPacksItRefuses() throws {
        let w = try staged()
        // A served pack over 1 KiB, for a smaller limits.maxPackBytes below.
        let long = "\"strings\": {\"promo.long\": \"" + String(repeating: "uzun ", count: 160) + "\","
        let large = try w.packVariant(of: "vi-VN@3", version: 4, replacing: [("\"strings\": {", long)])
        XCTAssertEqual(try w.rollout("pack", "add", large).status, 0)
        XCTAssertEqual(try w.rollout("promote", "vi-VN@4", "--to", "100%").status, 0)
        let policy = try w.scratch.write(
            "policy.json",
            #"{"policyVersion": 1, "requiredKeys": ["home.title", "no.such.key"], "defaultLocale": "tr-TR"}"#)
        let dry = try dryRun(w, ["policy", "set", policy, "--reason", "stricter"])
        XCTAssertTrue(dry.stdout.hasPrefix("Dry run: policy set would change 2 field(s):\n"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("defaultLocale  \"en-US\"  \"tr-TR\""), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("tr-TR@18 required-key no.such.key"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("writing policy.json"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("site-sequence"), "a new default locale moves the site's sequence")
        let json = try w.json(try w.rollout("policy", "set", policy, "--dry-run", "--json"))
        let refused = (json["refusedServed"] as? [[String: Any]] ?? []).compactMap { $0["pack"] as? String }
        XCTAssertEqual(Set(refused), ["en-US@1", "tr@1", "tr-TR@17", "tr-TR@18", "vi-VN@4"])
        // A stored pack over a smaller limits.maxPackBytes is named by its stored size.
        let small = try w.scratch.write("small.json", #"{"policyVersion": 1, "limits": {"maxPackBytes": 1024}}"#)
        let tooLarge = try w.rollout("policy", "set", small, "--dry-run")
        XCTAssertTrue(tooLarge.stdout.contains("  vi-VN@4 max-pack-bytes: the stored pack is 1 KiB"), tooLarge.stdout)
        XCTAssertFalse(tooLarge.stdout.contains("tr@1 max-pack-bytes"), "tr@1 is under 1 KiB: \(tooLarge.stdout)")

        XCTAssertEqual(try w.rollout("policy", "set", policy, "--reason", "stricter").status, 0)
        XCTAssertEqual(wouldRecord(dry), try tipMessage(w))
        let again = try dryRun(w, ["policy", "set", policy])
        XCTAssertEqual(
            again.stdout,
            "Dry run: the policy is already identical: nothing to do.\nIt would record no commit.\nNothing was written.\n"
        )
    }

    /// keys init, rotate, revoke and rotate-root with --dry-run make every check, write no key file
    /// (not even --out's folder) and no commit, and name the version and event the real run records.
    func testEveryKeysDryRunWritesNoKeyAndNoCommit() throws {
        let w = try staged()
        let keys = w.scratch.path("keys")
        let initDry = try dryRun(w, ["keys", "init", "--out", keys])
        XCTAssertTrue(initDry.stdout.hasPrefix("Dry run: would commit key list version 1.\n"), initDry.stdout)
        XCTAssertTrue(wouldRecord(initDry).contains("Rollout-Key-Event: init"), initDry.stdout)
        XCTAssertEqual(try w.rollout("keys", "init", "--out", keys).status, 0)
        XCTAssertEqual(wouldRecord(initDry).prefix(4), try tipMessage(w).prefix(4), "summary, action, version, event")

        let root = ["--root", keys + "/root.key"]
        let publishing = try XCTUnwrap(
            (try w.json(try w.rollout("keys", "list", "--json"))["keys"] as? [[String: Any]])?
                .first { $0["role"] as? String == "publishing" }?["id"] as? String)
        let changes: [(arguments: [String], event: String)] = [
            (["keys", "rotate"] + root, "rotate"),
            (["keys", "revoke", publishing, "--reason", "laptop lost"] + root, "revoke"),
            (["keys", "rotate-root", "--out", keys + "/root-2.key"] + root, "rotate-root"),
        ]
        for change in changes {
            let dry = try dryRun(w, change.arguments)
            XCTAssertTrue(dry.stdout.hasPrefix("Dry run: would commit key list version 2"), dry.stdout)
            XCTAssertEqual(
                Array(wouldRecord(dry).prefix(5)),
                [
                    "keys \(change.event): key list version 2", "", "Rollout-Action: keys", "Rollout-Keys-Version: 2",
                    "Rollout-Key-Event: \(change.event)",
                ])
        }
        // A refusal is the real run's: a --root that is not a root, nothing written.
        let before = everything(w)
        let refused = try w.rollout("keys", "rotate", "--root", w.scratch.path("signing.key"), "--dry-run")
        XCTAssertEqual(refused.status, 65, refused.output)
        XCTAssertEqual(changed(before, everything(w)), [])
        // A revocation makes no new key: its dry run shows the very commit the real run records.
        let revoke = ["keys", "revoke", publishing, "--reason", "laptop lost"] + root
        let revokeDry = try dryRun(w, revoke)
        XCTAssertEqual(try w.rollout(revoke).status, 0)
        XCTAssertEqual(wouldRecord(revokeDry), try tipMessage(w))
    }

    /// pack import --dry-run goes through the same stop: it lints, stores nothing, and names the
    /// packs the real import then adds.
    func testAnImportDryRunAddsNothingAndNamesWhatTheImportAdds() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        _ = try w.scratch.write("locales/en/translation.json", #"{"greet": "Hello {{name}}", "bye": "Bye"}"#)
        _ = try w.scratch.write("locales/tr/translation.json", #"{"greet": "Merhaba {{name}}", "bye": "Hoşça kal"}"#)
        let arguments = [
            "pack", "import", w.scratch.path("locales"), "--content-version", "1", "--min-app-version", "4.0",
            "--source-locale", "en",
        ]
        let dry = try dryRun(w, arguments, endsWithPromise: false)
        let real = try w.rollout(arguments)
        XCTAssertEqual(real.status, 0, real.output)
        let added = { (text: String, verb: String) in
            text.split(separator: "\n").filter { $0.hasPrefix(verb) }.map {
                $0.dropFirst(verb.count).prefix { $0 != " " }
            }
        }
        XCTAssertEqual(added(dry.stdout, "would add "), ["en@1", "tr@1"])
        XCTAssertEqual(added(real.stdout, "added "), added(dry.stdout, "would add "))
    }

    /// A dry run in a clone with a remote fetches nothing: the clone, its remote-tracking refs and
    /// the server stay as they were, and it judges the clone's own state (here behind the remote),
    /// which `rollout sync` would bring up to date.
    func testADryRunInACloneFetchesNothing() throws {
        let w = try Workspace()
        let server = w.scratch.path("server/shared.git")
        XCTAssertEqual(try w.rollout("init", server).status, 0)
        XCTAssertEqual(try w.rollout(["--repo", server, "pack", "add"] + Fixtures.allExamplePacks).status, 0)
        for name in ["a", "b"] { XCTAssertEqual(try w.rollout("clone", server, w.scratch.path(name)).status, 0) }
        let completed = try w.rollout("--repo", w.scratch.path("b"), "promote", "tr-TR@17", "--to", "100%")
        XCTAssertEqual(completed.status, 0, completed.output)

        let stale = ["--repo", w.scratch.path("a"), "promote", "tr-TR@17", "--to", "100%"]
        let dry = try dryRun(w, stale, endsWithPromise: false)
        XCTAssertTrue(
            dry.stdout.hasPrefix("Dry run: tr-TR@17 would become the baseline of tr-TR. Nothing was written.\n"),
            dry.stdout)
        let real = try w.rollout(stale)
        XCTAssertEqual(real.status, 0, real.output)
        XCTAssertEqual(
            real.stdout, "tr-TR@17 is already at that share there: nothing to do.\n",
            "the real run fetches first and finds it done")
    }

    /// A dry run announces nothing: with a webhook that hears every event (docs/notifications.md),
    /// the dry runs of promote, revert and publish deliver nothing and queue nothing, while the real
    /// runs after them are delivered.
    func testADryRunAnnouncesNothing() throws {
        let w = try staged()
        let receiver = try WebhookReceiver(directory: w.scratch.path("hooks"))
        let policy = try w.scratch.write(
            "notify.json",
            #"{"notify": {"hooks": [{"name": "audit", "format": "json", "url": "\#(receiver.url("json"))", "secretEnv": "HOOK_SECRET"}]}}"#
        )
        w.environment["HOOK_SECRET"] = "correct horse battery staple"
        XCTAssertEqual(try w.rollout("policy", "set", policy).status, 0)
        let site = ["publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("signing.key")]
        _ = try dryRun(w, ["promote", "tr-TR@18", "--to", "5%", "--reason", "fewer"], endsWithPromise: false)
        _ = try dryRun(w, ["revert", "tr-TR", "--reason", "crash spike"])
        _ = try dryRun(w, site)
        XCTAssertEqual(receiver.received(at: "/json").count, 0, "a dry run was announced")
        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--reason", "crash spike").status, 0)
        XCTAssertEqual(try w.rollout(site).status, 0)
        XCTAssertEqual(
            receiver.received(at: "/json").compactMap { $0.json["event"] as? String }, ["revert", "publish"])
    }

    /// promote and revert --dry-run go through the same stop: nothing written, the real promote writes
    /// the plan the dry run showed, the real revert the rollback manifest.
    /// testers add and remove (docs/targeting.md, "Testers first"): the dry run writes nothing, and
    /// the commit it shows is the one the real run records, plan of the staged locale included.
    func testTestersDryRunsShowTheCommitTheRealRunsRecord() throws {
        let w = try staged()
        XCTAssertEqual(try w.rollout("testers", "add", "qa", "--install-id", "qa-1").status, 0)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "testers:qa").status, 0)
        for change in [
            ["testers", "add", "qa", "--install-id", "qa-2"], ["testers", "remove", "qa", "--install-id", "qa-1"],
        ] {
            let dry = try dryRun(w, change)
            XCTAssertTrue(dry.stdout.contains("plans/tr-TR.json"), dry.stdout)
            let real = try w.rollout(change)
            XCTAssertEqual(real.status, 0, real.output)
            XCTAssertEqual(wouldRecord(dry), try tipMessage(w), "\(change)")
        }
    }

    func testPromoteAndRevertDryRunsShowWhatTheRealRunsWrite() throws {
        let w = try staged()
        let promote = ["promote", "tr-TR@18", "--to", "5%", "--reason", "fewer devices while we look"]
        _ = try dryRun(w, promote, endsWithPromise: false)
        let dry = try w.json(try w.rollout(promote + ["--dry-run", "--json"]))
        let real = try w.json(try w.rollout(promote + ["--json"]))
        XCTAssertEqual(real["dryRun"] as? Bool, false)
        XCTAssertEqual(
            try JSONSerialization.data(withJSONObject: dry["plan"] as Any, options: .sortedKeys),
            try JSONSerialization.data(withJSONObject: real["plan"] as Any, options: .sortedKeys))

        // revert --dry-run too: the rollback manifest it shows is the one the revert writes.
        let revert = ["revert", "tr-TR", "--reason", "crash spike"]
        _ = try dryRun(w, revert)
        let wouldRevert = try w.json(try w.rollout(revert + ["--dry-run", "--json"]))
        let reverted = try w.json(try w.rollout(revert + ["--json"]))
        XCTAssertEqual(
            try JSONSerialization.data(withJSONObject: wouldRevert["rollback"] as Any, options: .sortedKeys),
            try JSONSerialization.data(withJSONObject: reverted["rollback"] as Any, options: .sortedKeys))
        XCTAssertEqual((reverted["rollback"] as? [String: Any])?["id"] as? String, "tr-TR/1")
    }
}
