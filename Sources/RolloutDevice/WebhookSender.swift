import Foundation
import RolloutCLI
import RolloutModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Posts webhook bodies (docs/notifications.md), all at once, within one time-out. rollout itself
/// links no HTTP client (docs/performance.md, "Install and start-up"), so this runs in the
/// rollout-device program, which links FoundationNetworking for `rollout device` already: rollout
/// writes the requests on its stdin and reads their results on its stdout (`WebhookWire`).
package enum WebhookSender {
    package typealias Request = WebhookWire.Request
    package typealias Result = WebhookWire.Result

    /// POSTs every request at once and waits for all of them, at most `timeout` seconds in all. A
    /// redirect is not followed (a receiver that moved says so by its status, and the body never
    /// goes to a host the policy does not name).
    package static func send(_ requests: [Request], timeout: Double) -> [Result] {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpAdditionalHeaders = ["User-Agent": "rollout-webhooks"]
        let delegate = NoRedirects()
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let results = Results(
            requests.map { Result(id: $0.id, status: nil, error: "timed out after \(seconds(timeout))") })
        let group = DispatchGroup()
        for (index, request) in requests.enumerated() {
            guard let url = URL(string: request.url) else {
                results.set(index, Result(id: request.id, status: nil, error: "not a URL"))
                continue
            }
            var post = URLRequest(url: url, timeoutInterval: timeout)
            post.httpMethod = "POST"
            for (name, value) in request.headers { post.setValue(value, forHTTPHeaderField: name) }
            post.httpBody = Data(request.body)
            group.enter()
            let task = session.dataTask(with: post) { _, response, error in
                results.set(index, outcome(of: request, response: response, error: error, timeout: timeout))
                group.leave()
            }
            task.resume()
        }
        _ = group.wait(timeout: .now() + timeout + 0.5)
        return results.all
    }

    static func outcome(of request: Request, response: URLResponse?, error: Error?, timeout: Double) -> Result {
        if let status = (response as? HTTPURLResponse)?.statusCode {
            let refused = (200..<300).contains(status) ? nil : "HTTP \(status)"
            return Result(id: request.id, status: status, error: refused)
        }
        if let error = error as? URLError {
            switch error.code {
            case .timedOut: return Result(id: request.id, status: nil, error: "timed out after \(seconds(timeout))")
            case .cannotConnectToHost: return Result(id: request.id, status: nil, error: "connection refused")
            case .cannotFindHost: return Result(id: request.id, status: nil, error: "host not found")
            default: return Result(id: request.id, status: nil, error: error.localizedDescription)
            }
        }
        return Result(id: request.id, status: nil, error: error.map { "\($0.localizedDescription)" } ?? "no response")
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// The helper's side (`WebhookWire`): the requests rollout wrote on stdin, posted; their results.
    package static func serve(input: [UInt8]) -> [UInt8] {
        guard let (timeout, requests) = WebhookWire.requests(from: input) else { return [] }
        return WebhookWire.resultsDocument(send(requests, timeout: Double(timeout)))
    }

    /// Refuses every redirect: the response itself (3xx) is the result. `@unchecked Sendable`: it holds
    /// no state (NSObject is not Sendable).
    final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    /// The results as they arrive. `@unchecked Sendable`: `lock` guards `values`.
    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Result]

        init(_ values: [Result]) { self.values = values }
        func set(_ index: Int, _ result: Result) { lock.withLock { values[index] = result } }
        var all: [Result] { lock.withLock { values } }
    }
}
