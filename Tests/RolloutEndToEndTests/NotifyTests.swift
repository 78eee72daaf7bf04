import Foundation
import RolloutModel
import XCTest

/// Webhooks (docs/notifications.md) against a real HTTP server on loopback: what each hook receives,
/// its signature checked by the receiver's own HMAC, a refused delivery queued and sent again, a
/// revert that lands while the receiver hangs, guard's automatic revert announced, and a bad
/// notify section refused naming its field.
final class NotifyTests: XCTestCase {
    static let secret = "correct horse battery staple"

    /// A policy with a Slack hook at /slack (reverts and keys near expiry) and a signed json hook at /json (every event).
    func policy(_ receiver: WebhookReceiver, timeout: Int = 5) -> String {
        """
        {
          "notify": {
            "timeoutSeconds": \(timeout),
            "reportURL": "https://reports.example.com/{locale}.html?commit={commit}",
            "hooks": [
              { "name": "release-channel", "format": "slack", "url": "\(receiver.url("slack"))", "events": ["revert", "key-expiring"] },
              { "name": "audit", "format": "json", "url": "\(receiver.url("json"))", "secretEnv": "HOOK_SECRET" }
            ]
          }
        }
        """
    }

    func workspace(_ receiver: (Workspace) throws -> WebhookReceiver, process: Bool = false, timeout: Int = 5) throws
        -> (Workspace, WebhookReceiver)
    {
        let w = try Workspace(process: process)
        w.environment["HOOK_SECRET"] = Self.secret
        try w.initWithExamples()
        let hooks = try receiver(w)
        let file = try w.scratch.write("policy.json", policy(hooks, timeout: timeout))
        let set = try w.rollout("policy", "set", file)
        XCTAssertEqual(set.status, 0, set.output)
        return (w, hooks)
    }

    func testPromoteAndRevertAreSignedAndCarryTheCommitSegmentsAndReport() throws {
        let (w, receiver) = try workspace { try WebhookReceiver(directory: $0.scratch.path("hooks")) }
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let promoted = try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR")
        XCTAssertEqual(promoted.status, 0, promoted.output)
        XCTAssertEqual(promoted.stderr, "", "a delivered notification prints nothing")
        let tip = try w.stateTip()

        let json = receiver.received(at: "/json")
        XCTAssertEqual(json.map { $0.json["event"] as? String }, ["complete", "promote"])
        XCTAssertTrue(receiver.received(at: "/slack").isEmpty, "the Slack hook does not hear promote")
        let last = try XCTUnwrap(json.last)
        XCTAssertEqual(
            last.header("X-Rollout-Signature-256"), "sha256=" + (try pythonHMAC(secret: Self.secret, body: last.body)),
            "the signature is HMAC-SHA256 of the raw body")
        XCTAssertNotEqual(
            last.header("X-Rollout-Signature-256"), "sha256=" + (try pythonHMAC(secret: "another", body: last.body)))
        XCTAssertEqual(last.header("X-Rollout-Event"), "promote")
        XCTAssertEqual(last.header("X-Rollout-Delivery"), last.json["deliveryId"] as? String)
        XCTAssertNotNil(last.header("X-Rollout-Timestamp").flatMap(Int.init))
        XCTAssertEqual(last.json["commit"] as? String, tip)
        XCTAssertEqual(last.json["pack"] as? String, "tr-TR@18")
        XCTAssertEqual(last.json["report"] as? String, "https://reports.example.com/tr-TR.html?commit=\(tip)")
        let segments = try XCTUnwrap(last.json["segments"] as? [[String: String]])
        XCTAssertTrue(
            segments.contains(["segment": "TR >=4.8.0", "devices": "tr-TR@17 90%, tr-TR@18 10%"]), "\(segments)")

        let reverted = try w.rollout("revert", "tr-TR", "--reason", "typo in checkout")
        XCTAssertEqual(reverted.status, 0, reverted.output)
        let slack = try XCTUnwrap(receiver.received(at: "/slack").last)
        XCTAssertNil(slack.header("X-Rollout-Signature-256"), "a Slack hook without a secret is not signed")
        XCTAssertEqual(slack.json["text"] as? String, "reverted tr-TR: tr-TR@18 blocked")
        let blocks = try XCTUnwrap(slack.json["blocks"] as? [[String: Any]])
        XCTAssertTrue(slack.body.contains("tr-TR@17 100%"), slack.body)
        XCTAssertTrue(slack.body.contains("why: typo in checkout"), slack.body)
        XCTAssertEqual(blocks.count, 4, "title, segments, context, report link")
        XCTAssertEqual(receiver.received(at: "/json").last?.json["reason"] as? String, "typo in checkout")
    }

    /// A promote to a tester group moves no share: its notification names the group, and the
    /// widening after it names the share (docs/targeting.md, "Testers first").
    func testAPromoteToTestersIsAnnouncedByItsGroup() throws {
        let (w, receiver) = try workspace { try WebhookReceiver(directory: $0.scratch.path("hooks")) }
        for step in [
            ["promote", "tr-TR@17", "--to", "100%"], ["testers", "add", "qa", "--install-id", "qa-1"],
            ["promote", "tr-TR@18", "--to", "testers:qa"], ["promote", "tr-TR@18", "--to", "1%"],
        ] {
            XCTAssertEqual(try w.rollout(step).status, 0, "\(step)")
        }
        let titles = receiver.received(at: "/json").map { $0.json["title"] as? String ?? "" }
        XCTAssertEqual(titles.suffix(2), ["tr-TR@18 promoted to testers:qa", "tr-TR@18 promoted to 1%"])
    }

    /// An experiment's start and stop are announced (docs/experiments.md), and guard's stop for harm is
    /// a revert that names the experiment.
    func testAnExperimentsStartStopAndGuardsStopAreAnnounced() throws {
        let (w, receiver) = try workspace { try WebhookReceiver(directory: $0.scratch.path("hooks")) }
        w.environment["ROLLOUT_NOW"] = "2026-12-01T09:00:00Z"
        for step in [
            ["promote", "tr-TR@17", "--to", "100%"],
            [
                "experiment", "start", "t1", "--variants", "tr-TR@17,tr-TR@18", "--metric", "checkout", "--reason",
                "why",
            ],
            ["experiment", "stop", "t1", "--reason", "enough"],
            ["experiment", "start", "t2", "--variants", "tr-TR@17,tr-TR@18", "--region", "TR", "--metric", "checkout"],
        ] {
            XCTAssertEqual(try w.rollout(step).status, 0, "\(step)")
        }
        let json = receiver.received(at: "/json").suffix(3)
        XCTAssertEqual(json.map { $0.json["event"] as? String }, ["experiment", "experiment", "experiment"])
        XCTAssertEqual(
            json.map { $0.json["title"] as? String ?? "" },
            [
                "experiment t1 started on tr-TR: tr-TR@17 50%, tr-TR@18 50%",
                "experiment t1 on tr-TR stopped: stopped",
                "experiment t2 started on tr-TR: tr-TR@17 50%, tr-TR@18 50%",
            ])
        XCTAssertEqual((json.dropFirst().first?.json["details"] as? [String: Any])?["outcome"] as? String, "stopped")
        w.environment["ROLLOUT_NOW"] = "2026-12-04T09:00:00Z"
        var crashes = "date,locale,pack,region,app_version,sessions,crashes\n"
        for day in 1...3 {
            crashes += "2026-12-0\(day),tr-TR,tr-TR@17,TR,4.8.1,20000,40\n"
            crashes += "2026-12-0\(day),tr-TR,tr-TR@18,TR,4.8.1,20000,200\n"
        }
        let file = try w.scratch.write("crashes.csv", crashes)
        XCTAssertEqual(try w.rollout("metrics", "ingest", file, "--kind", "crash").status, 0)
        let guarded = try w.rollout("guard", "--auto-revert")
        XCTAssertEqual(guarded.status, 0, guarded.output)
        let slack = try XCTUnwrap(receiver.received(at: "/slack").last)
        XCTAssertTrue(
            (slack.json["text"] as? String ?? "").hasPrefix("guard stopped experiment t2 on tr-TR"), slack.body)
        let revert = try XCTUnwrap(receiver.received(at: "/json").last)
        XCTAssertEqual(revert.json["event"] as? String, "revert")
        XCTAssertEqual((revert.json["details"] as? [String: Any])?["experiment"] as? String, "t2")
    }

    func testARefusedDeliveryIsQueuedAndSentAgainByRetry() throws {
        let (w, receiver) = try workspace { try WebhookReceiver(directory: $0.scratch.path("hooks")) }
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "10%").status, 0)
        receiver.mode = "fail"
        let reverted = try w.rollout("revert", "tr-TR")
        XCTAssertEqual(reverted.status, 0, "a failed delivery never fails the change: \(reverted.output)")
        XCTAssertTrue(
            reverted.stderr.contains("notification revert tr-TR to hook audit not delivered (HTTP 500); queued"),
            reverted.stderr)
        let status = try w.json(try w.rollout("notify", "status", "--json"))
        let queue = try XCTUnwrap(status["queue"] as? [[String: Any]])
        XCTAssertEqual(Set(queue.compactMap { $0["hook"] as? String }), ["audit", "release-channel"])
        XCTAssertEqual(queue.first?["lastError"] as? String, "HTTP 500")
        XCTAssertEqual(try w.git("status", "--porcelain").stdout, "", "the queue is never part of the history")

        let stillFailing = try w.rollout("notify", "retry")
        XCTAssertEqual(stillFailing.status, 1, stillFailing.output)
        receiver.mode = "ok"
        let retried = try w.rollout("notify", "retry")
        XCTAssertEqual(retried.status, 0, retried.output)
        XCTAssertTrue(retried.stdout.contains("delivered"), retried.stdout)
        let again = try w.json(try w.rollout("notify", "status", "--json"))
        XCTAssertEqual((again["queue"] as? [Any])?.count, 0)
        let reverts = receiver.received(at: "/json").filter { $0.json["event"] as? String == "revert" }
        XCTAssertEqual(reverts.count, 3, "refused twice, then delivered")
        XCTAssertEqual(Set(reverts.map { $0.json["deliveryId"] as? String }).count, 1, "one delivery id throughout")
        let delivered = try XCTUnwrap(reverts.last)
        XCTAssertEqual(
            delivered.header("X-Rollout-Signature-256"),
            "sha256=" + (try pythonHMAC(secret: Self.secret, body: delivered.body)))
        XCTAssertEqual(try w.rollout("notify", "retry").stdout, "Nothing queued.\n")
    }

    /// The built binary: the receiver accepts and never answers; the revert's commit lands, and
    /// rollout exits 0 within the 2-second time-out and the helper's grace.
    func testARevertCompletesWhileTheReceiverHangs() throws {
        let (w, receiver) = try workspace(
            { try WebhookReceiver(directory: $0.scratch.path("hooks")) }, process: true, timeout: 2)
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "10%").status, 0)
        receiver.mode = "hang"
        let before = try w.stateTip()
        let started = Date()
        let reverted = try w.rollout("revert", "tr-TR")
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(reverted.status, 0, reverted.output)
        XCTAssertLessThan(
            seconds, 2 + 3 + 5, "bounded by the time-out, the helper's grace and the revert itself: \(seconds) s")
        XCTAssertGreaterThanOrEqual(seconds, 1.5, "it did wait for the receiver: \(seconds) s")
        XCTAssertNotEqual(try w.stateTip(), before)
        XCTAssertTrue(try w.git("log", "-1", "--format=%s").stdout.hasPrefix("revert tr-TR"))
        XCTAssertTrue(reverted.stderr.contains("timed out after 2 s"), reverted.stderr)
        XCTAssertEqual(receiver.waitFor(3).count, 3, "the requests did arrive (promote to one hook, revert to both)")
    }

    func testGuardsAutomaticRevertIsAnnounced() throws {
        let w = try GuardTests.twoStagedLocales()
        w.environment["HOOK_SECRET"] = Self.secret
        let receiver = try WebhookReceiver(directory: w.scratch.path("hooks"))
        XCTAssertEqual(try w.rollout("policy", "set", try w.scratch.write("policy.json", policy(receiver))).status, 0)
        let guarded = try w.rollout("guard", "--auto-revert")
        XCTAssertEqual(guarded.status, 0, guarded.output)
        let slack = try XCTUnwrap(receiver.received(at: "/slack").last)
        XCTAssertEqual(slack.json["text"] as? String, "guard reverted tr-TR: tr-TR@18 was unhealthy")
        let json = try XCTUnwrap(receiver.received(at: "/json").last)
        XCTAssertEqual(json.json["commit"] as? String, try w.stateTip())
        XCTAssertEqual((json.json["details"] as? [String: Any])?["rollback"] as? String, "tr-TR/1")
        XCTAssertEqual((json.json["details"] as? [String: Any])?["byGuard"] as? Bool, true)
        XCTAssertEqual(
            json.header("X-Rollout-Signature-256"), "sha256=" + (try pythonHMAC(secret: Self.secret, body: json.body)))
        let count = receiver.received.count
        XCTAssertEqual(try w.rollout("guard", "--auto-revert").status, 0)
        XCTAssertEqual(receiver.received.count, count, "nothing new happened: nothing is sent")
    }

    func testTheNextCommandSendsTheQueueAndATestIsNeverQueued() throws {
        let (w, receiver) = try workspace { try WebhookReceiver(directory: $0.scratch.path("hooks")) }
        receiver.mode = "fail"
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "10%").status, 0)
        let test = try w.rollout("notify", "test", "audit")
        XCTAssertEqual(test.status, 1, "a sample that was not delivered: \(test.output)")
        XCTAssertTrue(test.stdout.contains("failed: HTTP 500"), test.stdout)
        let queued = try w.json(try w.rollout("notify", "status", "--json"))["queue"] as? [[String: Any]]
        XCTAssertEqual(queued?.map { $0["hook"] as? String }, ["audit"], "the promote's delivery only, not the test")

        receiver.mode = "ok"
        let widened = try w.rollout("promote", "tr-TR@17", "--to", "20%")
        XCTAssertEqual(widened.status, 0, widened.output)
        XCTAssertEqual(widened.stderr, "")
        let after = try w.json(try w.rollout("notify", "status", "--json"))["queue"] as? [Any]
        XCTAssertEqual(after?.count, 0, "the next command that sends tried the queue too")
        let titles = receiver.received(at: "/json").map { $0.json["title"] as? String ?? "" }
        XCTAssertTrue(titles.contains("tr-TR@17 promoted to 10%"), "\(titles)")
        XCTAssertTrue(titles.contains("tr-TR@17 promoted to 20%"), "\(titles)")
        XCTAssertEqual(try w.rollout("notify", "test", "nope").status, 64)
    }

    func testPublishIsAnnouncedAndSoIsItsKeyNearExpiryOnce() throws {
        let (w, receiver) = try workspace { try WebhookReceiver(directory: $0.scratch.path("hooks")) }
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let keys = try w.rollout("keys", "init", "--out", w.scratch.path("keys"), "--expires", "10d")
        XCTAssertEqual(keys.status, 0, keys.output)
        let site = w.scratch.path("site")
        let key = w.scratch.path("keys/publish-1.key")
        let published = try w.rollout("publish", "--out", site, "--key", key)
        XCTAssertEqual(published.status, 0, published.output)
        let events = receiver.received(at: "/json").map { $0.json["event"] as? String ?? "" }
        // One command's deliveries go out at once, so they arrive in either order.
        XCTAssertEqual(Set(events.suffix(2)), ["publish", "key-expiring"], "\(events)")
        let publish = try XCTUnwrap(receiver.received(at: "/json").first { $0.json["event"] as? String == "publish" })
        XCTAssertEqual(publish.json["commit"] as? String, try w.stateTip(), "the publish record's commit")
        let expiring = try XCTUnwrap(receiver.received(at: "/slack").last)
        XCTAssertTrue((expiring.json["text"] as? String ?? "").contains("expires at"), expiring.body)

        XCTAssertEqual(try w.rollout("publish", "--out", w.scratch.path("site-2"), "--key", key).status, 0)
        let again = receiver.received(at: "/json").map { $0.json["event"] as? String ?? "" }
        XCTAssertEqual(again.filter { $0 == "key-expiring" }.count, 1, "announced once in its window: \(again)")
        XCTAssertEqual(again.filter { $0 == "publish" }.count, 2)

        // guard, from cron, notices the key too: 4 days left is the next announcement (7 days), once.
        let later = Timestamp(seconds: Int64(Date().timeIntervalSince1970) + 6 * 86_400 + 3_600).description
        for _ in 0..<2 { XCTAssertEqual(try w.rollout(["guard"], env: ["ROLLOUT_NOW": later]).status, 0) }
        let guarded = receiver.received(at: "/json").filter { $0.json["event"] as? String == "key-expiring" }
        XCTAssertEqual(guarded.count, 2, "the window, then 7 days left")
        XCTAssertEqual((guarded.last?.json["details"] as? [String: Any])?["daysLeft"] as? Int, 3)
    }

    /// Sets the two-hook policy at `time`, in a workspace made by another test's helper.
    func notifying(_ w: Workspace, at time: String) throws -> WebhookReceiver {
        w.environment["HOOK_SECRET"] = Self.secret
        let receiver = try WebhookReceiver(directory: w.scratch.path("hooks"))
        let set = try w.rollout(
            ["policy", "set", try w.scratch.write("policy.json", policy(receiver))], env: ["ROLLOUT_NOW": time])
        XCTAssertEqual(set.status, 0, set.output)
        return receiver
    }

    func events(_ receiver: WebhookReceiver) -> [String] {
        receiver.received(at: "/json").map { $0.json["event"] as? String ?? "" }
    }

    /// A campaign that goes live at its hour is heard when guard applies it, with the commit that
    /// applied it; one refused when due (its pack was reverted meanwhile) is heard once, not at every
    /// cron run it stays pending.
    func testGuardAnnouncesAScheduledChangeWhenItLandsAndARefusedOneOnce() throws {
        let w = try Workspace()
        w.environment["ROLLOUT_NOW"] = "2026-12-01T08:00:00Z"
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@17", "--to", "100%").status, 0)
        let receiver = try notifying(w, at: "2026-12-01T08:00:00Z")
        for (share, time) in [("10%", "2026-12-02T09:00+03:00"), ("50%", "2026-12-10T09:00+03:00")] {
            let scheduled = try w.rollout("promote", "tr-TR@18", "--to", share, "--region", "TR", "--at", time)
            XCTAssertEqual(scheduled.status, 0, scheduled.output)
        }
        XCTAssertEqual(events(receiver), [], "scheduling is not the change")

        let applied = try w.rollout(["guard"], env: ["ROLLOUT_NOW": "2026-12-02T06:00:00Z"])
        XCTAssertEqual(applied.status, 0, applied.output)
        XCTAssertEqual(events(receiver), ["promote"])
        let live = try XCTUnwrap(receiver.received(at: "/json").last)
        XCTAssertEqual(
            live.json["title"] as? String, "guard applied scheduled change 1 of tr-TR: promote tr-TR@18 to 10% in TR")
        XCTAssertEqual(live.json["commit"] as? String, try w.stateTip(), "the commit that applied it")

        XCTAssertEqual(try w.rollout("revert", "tr-TR", "--reason", "typo in checkout").status, 0)
        for time in ["2026-12-10T06:00:00Z", "2026-12-10T06:05:00Z"] {
            XCTAssertEqual(try w.rollout(["guard"], env: ["ROLLOUT_NOW": time]).status, 1, "refused: it stays pending")
        }
        let held = receiver.received(at: "/json").filter { $0.json["event"] as? String == "hold" }
        XCTAssertEqual(held.count, 1, "announced once while it stays pending")
        XCTAssertEqual(
            held.first?.json["title"] as? String,
            "guard could not apply scheduled change 2 of tr-TR (promote tr-TR@18 to 50% in TR, due 2026-12-10T06:00:00Z): it stays pending"
        )
    }

    func testGuardAnnouncesAHeldRampOnceAndEachStep() throws {
        let w = try SampleRatioHoldTests.staging(["--ramp", "1,5,100", "--every", "12h"], at: "2026-11-25T00:00:00Z")
        let receiver = try notifying(w, at: "2026-11-25T00:00:00Z")
        func guarded(at time: String) throws {
            let result = try w.rollout(["guard"], env: ["ROLLOUT_NOW": time])
            XCTAssertEqual(result.status, 0, result.output)
            XCTAssertEqual(result.stderr, "")
        }
        try guarded(at: "2026-11-25T06:00:00Z")
        XCTAssertEqual(events(receiver), [], "a step not yet due is nothing to announce")
        try guarded(at: "2026-11-25T12:00:00Z")
        XCTAssertEqual(events(receiver), ["hold"])
        let hold = try XCTUnwrap(receiver.received(at: "/json").last)
        XCTAssertEqual(hold.json["title"] as? String, "guard held the ramp of tr-TR@18: not enough data yet")
        try guarded(at: "2026-11-25T13:00:00Z")
        XCTAssertEqual(events(receiver), ["hold"], "the same hold is announced once")
        try w.ingestCrashDay("2026-11-25", share: 0.01)
        try guarded(at: "2026-11-25T14:00:00Z")
        XCTAssertEqual(events(receiver), ["hold", "ramp"])
        let step = try XCTUnwrap(receiver.received(at: "/json").last)
        XCTAssertEqual(step.json["title"] as? String, "guard advanced the ramp of tr-TR@18 to 5%")
        XCTAssertEqual(step.json["commit"] as? String, try w.stateTip())
        let segments = step.json["segments"] as? [[String: String]] ?? []
        XCTAssertTrue(segments.contains { $0["devices"] == "tr-TR@17 95%, tr-TR@18 5%" }, "\(segments)")
    }

    func testGuardAnnouncesASampleRatioMismatchOnce() throws {
        let w = try SampleRatioHoldTests.staging(
            ["--ramp", "2,5,100", "--every", "1d", "--region", "TR"], at: "2026-11-25T00:00:00Z")
        let receiver = try notifying(w, at: "2026-11-25T00:00:00Z")
        for day in ["2026-11-25", "2026-11-26"] {
            try w.ingestCrashDay(day, share: 0.04, segments: SampleRatioHoldTests.inTR, sessions: 400_000)
        }
        for time in ["2026-11-27T00:00:00Z", "2026-11-27T00:10:00Z"] {
            XCTAssertEqual(try w.rollout(["guard"], env: ["ROLLOUT_NOW": time]).status, 1, "held: a person decides")
        }
        XCTAssertEqual(events(receiver), ["sample-ratio-mismatch"], "announced once")
        let slack = receiver.received(at: "/slack")
        XCTAssertTrue(slack.isEmpty, "the Slack hook does not hear it")
        let held = try XCTUnwrap(receiver.received(at: "/json").last)
        XCTAssertEqual(
            (held.json["details"] as? [String: Any])?["segments"] as? [String], ["TR/4.8", "TR/4.9"])
        XCTAssertTrue((held.json["title"] as? String ?? "").contains("sample ratio mismatch in TR/4.8, TR/4.9"))
    }

    func testSecretsAndURLsComeFromFilesAndAMissingOneIsQueued() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let receiver = try WebhookReceiver(directory: w.scratch.path("hooks"))
        let secretFile = try w.scratch.write("secret", "from a file\n")
        let urlFile = try w.scratch.write("hook.url", receiver.url("json") + "\n")
        let policy = """
            {"notify": {"hooks": [
              {"name": "filed", "format": "json", "urlFile": "\(urlFile)", "secretFile": "\(secretFile)"},
              {"name": "unset", "format": "json", "url": "\(receiver.url("other"))", "secretEnv": "NOT_SET_HERE"}
            ]}}
            """
        XCTAssertEqual(try w.rollout("policy", "set", try w.scratch.write("policy.json", policy)).status, 0)
        let status = try w.rollout("notify", "status")
        XCTAssertTrue(status.stdout.contains("from \(urlFile)"), status.stdout)
        XCTAssertTrue(status.stdout.contains("$NOT_SET_HERE (missing here)"), status.stdout)
        let promoted = try w.rollout("promote", "tr-TR@17", "--to", "5%")
        XCTAssertEqual(promoted.status, 0, promoted.output)
        XCTAssertTrue(
            promoted.stderr.contains(
                "to hook unset not delivered (the environment variable NOT_SET_HERE is not set); queued"),
            promoted.stderr)
        let delivered = try XCTUnwrap(receiver.received(at: "/json").last)
        XCTAssertEqual(
            delivered.header("X-Rollout-Signature-256"),
            "sha256=" + (try pythonHMAC(secret: "from a file", body: delivered.body)),
            "the file's trailing newline is not the secret's")
        XCTAssertTrue(
            receiver.received(at: "/other").isEmpty, "nothing unsigned is sent to a hook whose secret is missing")
        let retried = try w.rollout(["notify", "retry"], env: ["NOT_SET_HERE": "now set"])
        XCTAssertEqual(retried.status, 0, retried.output)
        let other = try XCTUnwrap(receiver.received(at: "/other").last)
        XCTAssertEqual(
            other.header("X-Rollout-Signature-256"), "sha256=" + (try pythonHMAC(secret: "now set", body: other.body)))
    }

    /// The built rollout copied alone, without rollout-device beside it: the change stands, and each
    /// delivery is queued with where the helper was looked for.
    func testWithoutRolloutDeviceTheChangeStandsAndDeliveriesAreQueued() throws {
        let (w, receiver) = try workspace { try WebhookReceiver(directory: $0.scratch.path("hooks")) }
        let lone = w.scratch.path("lone/bin/rollout")
        try FileManager.default.createDirectory(atPath: w.scratch.path("lone/bin"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Processes.rolloutBinary, toPath: lone)
        let before = try w.stateTip()
        let promoted = try Processes.run(
            lone, ["promote", "tr-TR@17", "--to", "5%"], in: w.work, environment: w.environment)
        XCTAssertEqual(promoted.status, 0, promoted.output)
        XCTAssertNotEqual(try w.stateTip(), before)
        XCTAssertTrue(
            promoted.stderr.contains(
                "(rollout-device, which posts webhooks, is not at \(w.scratch.path("lone/bin/rollout-device")) nor "),
            promoted.stderr)
        XCTAssertTrue(receiver.received.isEmpty)
        XCTAssertEqual(try w.rollout("notify", "retry").status, 0, "the installed pair delivers it")
        XCTAssertEqual(receiver.received(at: "/json").count, 1)
    }

    func testABadNotifySectionIsRefusedNamingTheFieldAndChangesNothing() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let tip = try w.stateTip()
        let hook = #""name": "ops", "format": "json", "secretEnv": "S""#
        let cases: [(String, String)] = [
            (
                #"{"hooks": [{\#(hook), "url": "http://hooks.example.com/x"}]}"#,
                "notify.hooks[0].url: http:// is allowed only to this machine"
            ),
            (
                #"{"hooks": [{\#(hook), "url": "https://u:p@hooks.example.com/x"}]}"#,
                "notify.hooks[0].url: the URL carries a user name or password"
            ),
            (
                #"{"hooks": [{"name": "ops", "format": "json", "url": "https://h.example.com"}]}"#,
                "notify.hooks[0].secretEnv: a json hook is signed"
            ),
            (
                #"{"hooks": [{\#(hook), "url": "https://h.example.com", "secret": "hunter2"}]}"#,
                "notify.hooks[0]: unknown field \"secret\""
            ),
            (
                #"{"hooks": [{\#(hook), "url": "https://h.example.com", "events": ["deploy"]}]}"#,
                "notify.hooks[0].events: unknown event \"deploy\""
            ),
            (
                #"{"hooks": [{"name": "ops", "format": "json", "url": "https://h.example.com", "secretEnv": "hunter2!"}]}"#,
                "notify.hooks[0].secretEnv: \"hunter2!\" is not an environment variable name"
            ),
            (
                #"{"hooks": [{"name": "ops", "format": "xml", "url": "https://h.example.com"}]}"#,
                "notify.hooks[0].format: \"xml\" must be slack or json"
            ),
            (
                #"{"hooks": [{\#(hook), "url": "https://h.example.com", "secretFile": "secret.txt"}]}"#,
                "notify.hooks[0].secretEnv: give secretEnv or secretFile, not both"
            ),
            (
                #"{"timeoutSeconds": 600, "hooks": [{\#(hook), "url": "https://h.example.com"}]}"#,
                "notify: \"timeoutSeconds\" must be between 1 and 60"
            ),
            (
                #"{"reportURL": "https://r.example.com/{pack}", "hooks": [{\#(hook), "url": "https://h.example.com"}]}"#,
                "notify.reportURL: unknown placeholder {pack}"
            ),
            (#"{"hooks": []}"#, "notify.hooks: must list 1 to 20 hooks"),
            (
                #"{"hooks": [{\#(hook), "url": "https://h.example.com"}, {\#(hook), "url": "https://h.example.com"}]}"#,
                "notify.hooks[1].name: \"ops\" names two hooks"
            ),
        ]
        for (index, (notify, expected)) in cases.enumerated() {
            let file = try w.scratch.write("bad-\(index).json", #"{"notify": \#(notify)}"#)
            let set = try w.rollout("policy", "set", file)
            XCTAssertEqual(set.status, 65, "\(notify): \(set.output)")
            XCTAssertTrue(set.stderr.contains("policy.json") || set.stderr.contains("bad-\(index).json"), set.stderr)
            XCTAssertTrue(set.stderr.contains(expected), "\(notify)\nexpected: \(expected)\ngot: \(set.stderr)")
            XCTAssertEqual(try w.stateTip(), tip, "a refused policy changes nothing")
        }
    }
}
