import RolloutModel
import XCTest

/// The policy's notify section (docs/notifications.md, "Configuration"): what it accepts, and that a
/// policy without it reads and prints as before.
final class NotifyPolicyTests: XCTestCase {
    func parse(_ notify: String) throws -> Policy {
        try Policy.parse(Array(#"{"notify": \#(notify)}"#.utf8), source: "policy.json")
    }

    func message(_ notify: String) -> String {
        do {
            _ = try parse(notify)
            return "accepted"
        } catch let error as RolloutError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    func testAPolicyWithoutNotifyPrintsAsBefore() throws {
        let policy = try Policy.parse(Array("{}".utf8), source: "policy.json")
        XCTAssertEqual(policy.notify, .none)
        XCTAssertNil(policy.jsonValue.objectValue?["notify"])
    }

    func testItReadsBackWhatItPrints() throws {
        let policy = try parse(
            #"""
            {"timeoutSeconds": 3, "keyExpiryDays": 7, "reportURL": "https://r.example.com/{locale}/{event}?c={commit}",
             "hooks": [{"name": "ops", "format": "slack", "urlEnv": "SLACK_URL", "events": ["revert", "hold"]},
                       {"name": "audit", "format": "json", "url": "http://127.0.0.1:9000/x", "secretFile": "/etc/rollout/s"}]}
            """#)
        let notify = policy.notify
        XCTAssertEqual(notify.timeoutSeconds, 3)
        XCTAssertEqual(notify.keyExpiryDays, 7)
        XCTAssertEqual(notify.hooks.map(\.name), ["ops", "audit"])
        XCTAssertEqual(notify.hooks[0].url, .from(.environment("SLACK_URL")))
        XCTAssertEqual(notify.hooks[0].events, [.revert, .hold])
        XCTAssertTrue(notify.hooks[1].hears(.keyExpiring), "no events: every event")
        XCTAssertEqual(notify.hooks[1].secret, .file("/etc/rollout/s"))
        XCTAssertEqual(
            notify.reportLink(locale: "tr-TR", commit: "abc", event: .revert),
            "https://r.example.com/tr-TR/revert?c=abc")
        let again = try Policy.parse(JSONWriter.pretty(policy.jsonValue), source: "printed")
        XCTAssertEqual(again, policy)
    }

    func testURLsAreHTTPSOrLoopbackAndCarryNoCredential() {
        let hook = #""name": "a", "format": "slack""#
        for accepted in [
            "https://hooks.slack.com/services/T/B/X", "http://127.0.0.1:8080/h", "http://localhost/h",
            "http://[::1]:9/h", "HTTPS://Example.COM",
        ] {
            XCTAssertEqual(message(#"{"hooks": [{\#(hook), "url": "\#(accepted)"}]}"#), "accepted", accepted)
        }
        for (refused, expected) in [
            ("http://10.0.0.1/h", "http:// is allowed only to this machine"),
            ("http://localhost.example.com/h", "http:// is allowed only to this machine"),
            ("ftp://h.example.com", "is not an https:// URL"),
            ("https://token@h.example.com/x", "carries a user name or password"),
            ("https://h.example.com/a b", "cannot contain spaces"),
            ("https:///path", "has no host"),
        ] {
            let text = message(#"{"hooks": [{\#(hook), "url": "\#(refused)"}]}"#)
            XCTAssertTrue(text.hasPrefix("policy.json: notify.hooks[0].url: "), text)
            XCTAssertTrue(text.contains(expected), "\(refused): \(text)")
        }
    }

    func testEveryFieldIsCheckedByName() {
        let ok = #""name": "a", "format": "json", "url": "https://h.example.com", "secretEnv": "S""#
        let cases = [
            (#"{"hooks": [{\#(ok), "urlEnv": "U"}]}"#, "notify.hooks[0].url: give url, urlEnv or urlFile, not several"),
            (
                #"{"hooks": [{"format": "json", "url": "https://h.example.com", "secretEnv": "S"}]}"#,
                "notify.hooks[0].name: missing"
            ),
            (
                #"{"hooks": [{\#(ok.replacingOccurrences(of: "\"a\"", with: "\"Ops Team\""))}]}"#,
                "notify.hooks[0].name: \"Ops Team\" must be"
            ),
            (#"{"hooks": [{\#(ok), "events": []}]}"#, "notify.hooks[0].events: empty"),
            (
                #"{"hooks": [{"name": "a", "format": "json", "urlFile": "hook.url", "secretEnv": "S"}]}"#,
                "notify.hooks[0].urlFile: \"hook.url\" is not an absolute path"
            ),
            (#"{"keyExpiryDays": 0, "hooks": [{\#(ok)}]}"#, "notify: \"keyExpiryDays\" must be between 1 and 365"),
            (#"{"hooks": {}}"#, "notify: \"hooks\" must be an array"),
            (#"{}"#, "notify.hooks: missing"),
            (#"{"hooks": [{\#(ok)}], "retries": 3}"#, "notify: unknown field \"retries\""),
        ]
        for (notify, expected) in cases {
            let text = message(notify)
            XCTAssertTrue(text.contains(expected), "\(notify)\nexpected: \(expected)\ngot: \(text)")
        }
    }
}
