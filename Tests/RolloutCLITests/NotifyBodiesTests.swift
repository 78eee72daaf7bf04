import RolloutModel
import XCTest

@testable import RolloutCLI

/// The bodies a hook receives (docs/notifications.md, "Bodies"), built from an event document with
/// no repository and no network.
final class NotifyBodiesTests: XCTestCase {
    let document: [String: JSONValue] = [
        "event": "revert", "title": "reverted tr-TR: <b>&", "actor": "Ayşe <ayse@example.com>",
        "commit": "0123456789abcdef0123456789abcdef01234567", "locale": "tr-TR",
        "segments": [["segment": "TR >=4.8.0", "devices": "tr-TR@17 100%"]], "details": [:],
        "report": "https://r.example.com/tr-TR?a=1&b=2",
    ]

    func testTheJSONBodyCarriesItsDeliveryAndTimeAndTheHeadersRepeatThem() throws {
        let sent = try XCTUnwrap(Timestamp(iso8601: "2026-12-01T09:00:00Z"))
        let id = NotifyBodies.deliveryID(hook: "audit", document: document)
        let (headers, body) = NotifyBodies.request(
            format: .json, document: document, deliveryID: id, sentAt: sent, secret: Array("k".utf8))
        let parsed = try XCTUnwrap(try StrictJSONParser.parse(body).objectValue)
        XCTAssertEqual(parsed["deliveryId"], .string(id))
        XCTAssertEqual(parsed["sentAt"], "2026-12-01T09:00:00Z")
        XCTAssertEqual(parsed["title"], document["title"], "the json body is not escaped for Slack")
        XCTAssertEqual(headers["X-Rollout-Delivery"], id)
        XCTAssertEqual(headers["X-Rollout-Timestamp"], "\(sent.seconds)")
        XCTAssertEqual(headers["X-Rollout-Event"], "revert")
        XCTAssertEqual(headers["X-Rollout-Signature-256"]?.count, "sha256=".count + 64)
        let unsigned = NotifyBodies.request(
            format: .json, document: document, deliveryID: id, sentAt: sent, secret: nil)
        XCTAssertNil(unsigned.headers["X-Rollout-Signature-256"])
        XCTAssertEqual(unsigned.body, body, "the secret changes the header, never the body")
    }

    func testADeliveryIDIsTheSameOnEveryAttemptAndDiffersPerHook() {
        XCTAssertEqual(
            NotifyBodies.deliveryID(hook: "audit", document: document),
            NotifyBodies.deliveryID(hook: "audit", document: document))
        XCTAssertNotEqual(
            NotifyBodies.deliveryID(hook: "audit", document: document),
            NotifyBodies.deliveryID(hook: "ops", document: document))
    }

    func testSlackTextIsEscapedAndALongTableIsCut() throws {
        var long = document
        long["segments"] = .array(
            (0..<40).map { ["segment": .string("R\($0) >=4.8.0"), "devices": "tr-TR@17 100%"] })
        let body = NotifyBodies.slack(long)
        let object = try XCTUnwrap(try StrictJSONParser.parse(body).objectValue)
        XCTAssertEqual(object["text"], "reverted tr-TR: &lt;b&gt;&amp;")
        let text = String(decoding: body, as: UTF8.self)
        XCTAssertTrue(text.contains("R29 &gt;=4.8.0"), text)
        XCTAssertFalse(text.contains("R30 &gt;=4.8.0"), "at most 30 rows")
        XCTAssertTrue(text.contains("… and 10 more segments"), text)
        XCTAssertTrue(text.contains("<https://r.example.com/tr-TR?a=1&amp;b=2|Open the report>"), text)
        XCTAssertTrue(text.contains("by Ayşe &lt;ayse@example.com&gt;"), text)
    }
}
