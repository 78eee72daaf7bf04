import RolloutCrypto
import RolloutModel

/// The bytes and headers a hook receives (docs/notifications.md, "Bodies"): rollout's JSON document
/// or Slack's incoming-webhook shape, both signed as GitHub signs its webhooks when the hook has a
/// secret: `X-Rollout-Signature-256: sha256=HEX`, HMAC-SHA256 of the raw body. The body carries the
/// delivery id and the time it was sent, and the headers repeat them, so a receiver that checks
/// the signature can also refuse a replay (an old time, or an id it has seen).
enum NotifyBodies {
    static let signatureHeader = "X-Rollout-Signature-256"
    static let deliveryHeader = "X-Rollout-Delivery"
    static let timestampHeader = "X-Rollout-Timestamp"
    static let eventHeader = "X-Rollout-Event"
    /// The most segment rows a Slack message shows; the json body carries them all.
    static let slackRows = 30

    /// The same event to the same hook always has the same id, across retries: what a receiver
    /// removes duplicates by.
    static func deliveryID(hook: String, document: [String: JSONValue]) -> String {
        String(SHA256.hex(Array(hook.utf8) + [0x0a] + JSONWriter.canonical(.object(document))).prefix(32))
    }

    /// The body and headers of one delivery, sent at `sentAt`, signed with `secret` when there is one.
    static func request(
        format: NotifyPolicy.Format, document: [String: JSONValue], deliveryID: String, sentAt: Timestamp,
        secret: [UInt8]?
    ) -> (headers: [String: String], body: [UInt8]) {
        var stamped = document
        stamped["deliveryId"] = .string(deliveryID)
        stamped["sentAt"] = .string(sentAt.description)
        let body = format == .json ? JSONWriter.canonical(.object(stamped)) : slack(stamped)
        var headers = [
            "Content-Type": "application/json", eventHeader: document["event"]?.stringValue ?? "",
            deliveryHeader: deliveryID, timestampHeader: "\(sentAt.seconds)",
        ]
        if let secret { headers[signatureHeader] = "sha256=" + HMACSHA256.hex(key: secret, message: body) }
        return (headers, body)
    }

    /// Slack's incoming-webhook body: `text` (what a notification shows) and blocks: the title, the
    /// segment table, who and which commit, the report link.
    static func slack(_ document: [String: JSONValue]) -> [UInt8] {
        func field(_ name: String) -> String? { document[name]?.stringValue }
        let title = field("title") ?? ""
        var blocks: [JSONValue] = [section("*\(escaped(title))*")]
        let rows = (document["segments"]?.arrayValue ?? []).compactMap { row -> (String, String)? in
            guard let o = row.objectValue, let s = o["segment"]?.stringValue, let d = o["devices"]?.stringValue else {
                return nil
            }
            return (s, d)
        }
        if !rows.isEmpty { blocks.append(section(segmentTable(rows))) }
        var context: [String] = []
        if let commit = field("commit") { context.append("commit `\(commit.prefix(12))`") }
        if let pack = field("pack") { context.append(escaped(pack)) }
        context.append("by " + escaped(field("actor") ?? "?"))
        if let reason = field("reason") { context.append("why: " + escaped(reason)) }
        blocks.append([
            "type": "context",
            "elements": [["type": "mrkdwn", "text": .string(context.joined(separator: " · "))]],
        ])
        if let report = field("report") { blocks.append(section("<\(escaped(report))|Open the report>")) }
        return JSONWriter.canonical(["text": .string(escaped(title)), "blocks": .array(blocks)])
    }

    /// The segment table as a code block, at most `slackRows` rows.
    static func segmentTable(_ rows: [(String, String)]) -> String {
        let width = max("SEGMENT".count, rows.map(\.0.count).max() ?? 0)
        func line(_ segment: String, _ devices: String) -> String {
            segment + String(repeating: " ", count: width - segment.count) + "  " + devices
        }
        var lines = [line("SEGMENT", "DEVICES")] + rows.prefix(slackRows).map { line($0.0, $0.1) }
        if rows.count > slackRows { lines.append("… and \(rows.count - slackRows) more segments") }
        return "```" + escaped(lines.joined(separator: "\n")) + "```"
    }

    static func section(_ markdown: String) -> JSONValue {
        ["type": "section", "text": ["type": "mrkdwn", "text": .string(markdown)]]
    }

    /// Slack's three control characters in text it formats.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrencesOf("&", "&amp;").replacingOccurrencesOf("<", "&lt;").replacingOccurrencesOf(
            ">", "&gt;")
    }
}

extension String {
    fileprivate func replacingOccurrencesOf(_ target: Character, _ replacement: String) -> String {
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }
}
