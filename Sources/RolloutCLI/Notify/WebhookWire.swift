import Foundation
import RolloutModel

/// What rollout and the program that posts its webhooks say to each other. rollout links no HTTP
/// client (docs/performance.md, "Install and start-up"), so the POSTs run in rollout-device, which
/// links FoundationNetworking for `rollout device` already: rollout starts it with `helperWord`,
/// writes the requests on its stdin and reads their results on its stdout, as git hands https
/// to git-remote-https (`WebhookSender` in RolloutDevice posts them).
package enum WebhookWire {
    /// The word rollout-device takes instead of a command.
    package static let helperWord = "__deliver-webhooks"

    package struct Request: Sendable, Equatable {
        /// The caller's name for it (the delivery id), echoed in its result.
        package var id: String
        package var url: String
        package var headers: [String: String]
        package var body: [UInt8]

        package init(id: String, url: String, headers: [String: String], body: [UInt8]) {
            self.id = id
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    package struct Result: Sendable, Equatable {
        package var id: String
        /// The HTTP status, when a response arrived.
        package var status: Int?
        /// Why there was no 2xx response: a status, a refused connection, a time-out. nil: delivered.
        package var error: String?

        package init(id: String, status: Int?, error: String?) {
            self.id = id
            self.status = status
            self.error = error
        }
    }

    /// `{"timeoutSeconds": N, "requests": [{"id", "url", "headers", "body" (base64)}]}`.
    package static func document(_ requests: [Request], timeoutSeconds: Int) -> [UInt8] {
        let items = requests.map { request -> JSONValue in
            [
                "id": .string(request.id), "url": .string(request.url),
                "headers": .object(request.headers.mapValues { .string($0) }),
                "body": .string(Data(request.body).base64EncodedString()),
            ]
        }
        return JSONWriter.canonical(["timeoutSeconds": .integer(timeoutSeconds), "requests": .array(items)])
    }

    /// The requests of a `document`, and their time-out; nil for anything else.
    package static func requests(from input: [UInt8]) -> (timeoutSeconds: Int, requests: [Request])? {
        guard let object = (try? StrictJSONParser.parse(input))?.objectValue,
            let timeout = object["timeoutSeconds"]?.integerValue, let items = object["requests"]?.arrayValue
        else { return nil }
        let requests = items.compactMap { item -> Request? in
            guard let o = item.objectValue, let id = o["id"]?.stringValue, let url = o["url"]?.stringValue,
                let body = o["body"]?.stringValue.flatMap({ Data(base64Encoded: $0) })
            else { return nil }
            let headers = (o["headers"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
            return Request(id: id, url: url, headers: headers, body: [UInt8](body))
        }
        return (timeout, requests)
    }

    /// `{"results": [{"id", "status"?, "error"?}]}`.
    package static func resultsDocument(_ results: [Result]) -> [UInt8] {
        let items = results.map { result -> JSONValue in
            var object: [String: JSONValue] = ["id": .string(result.id)]
            if let status = result.status { object["status"] = .integer(status) }
            if let error = result.error { object["error"] = .string(error) }
            return .object(object)
        }
        return JSONWriter.canonical(["results": .array(items)])
    }

    /// The results of a `resultsDocument`, by id.
    package static func results(from output: [UInt8]) -> [String: Result] {
        guard let items = (try? StrictJSONParser.parse(output))?.objectValue?["results"]?.arrayValue else { return [:] }
        var results: [String: Result] = [:]
        for item in items {
            guard let o = item.objectValue, let id = o["id"]?.stringValue else { continue }
            results[id] = Result(id: id, status: o["status"]?.integerValue, error: o["error"]?.stringValue)
        }
        return results
    }
}
