import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the client fetches the published site. The default is HTTPS through URLSession; tests and
/// apps with their own networking stack supply their own.
public protocol RolloutTransport: Sendable {
    /// The bytes at `url`, or an error for anything but a complete successful response.
    func fetch(_ url: URL) async throws -> Data
}

public struct TransportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Fetches with URLSession. Any status but 200 is an error; the client applies its own time-out
/// on top of the session's. A redirect is followed only to a URL the client would fetch itself
/// (`https:`, or `http:` to a loopback host; never `file:`): the default session refuses the
/// others before any request leaves, and whatever session the app gives, a response that arrived
/// from such a URL is refused.
public struct URLSessionTransport: RolloutTransport, @unchecked Sendable {
    let session: URLSession

    /// The session the default transport uses: URLSession's default configuration, with the
    /// redirect rule above.
    public static let defaultSession = URLSession(configuration: .default, delegate: RedirectRule(), delegateQueue: nil)

    public init(session: URLSession = URLSessionTransport.defaultSession) {
        self.session = session
    }

    /// A `file:` URL is read from disk (a site in a directory, for `rollout device` and tests);
    /// anything else goes through the session. Cancelling the calling task cancels the request.
    public func fetch(_ url: URL) async throws -> Data {
        if url.isFileURL {
            // A missing or unreadable file is an error, as a 404 is over the network.
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue
            else {
                throw TransportError("\(url.path): no such file")
            }
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw TransportError("\(url.path): cannot be read")
            }
            return data
        }
        var request = URLRequest(url: url)
        // A CDN may serve a stale manifest; the sequence checks catch that, and a revalidation
        // costs one round trip.
        request.cachePolicy = .reloadRevalidatingCacheData
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error { return continuation.resume(throwing: error) }
                    if let final = response?.url, final != url, let why = refusal(ofRedirectTo: final) {
                        return continuation.resume(throwing: TransportError("\(url): redirected: \(why)"))
                    }
                    if let http = response as? HTTPURLResponse, http.statusCode != 200 {
                        return continuation.resume(throwing: TransportError("\(url): HTTP \(http.statusCode)"))
                    }
                    continuation.resume(returning: data ?? Data())
                }
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// Follows a redirect only to a URL `refusal(ofRedirectTo:)` allows; otherwise the redirect
/// response itself is the answer, which is not a 200 and so fails the fetch.
final class RedirectRule: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        guard let url = request.url, refusal(ofRedirectTo: url) == nil else { return completionHandler(nil) }
        completionHandler(request)
    }
}

/// The data task of one fetch, cancelled whether the cancellation comes before or after it starts.
private final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func start(_ task: URLSessionDataTask) {
        let cancelNow = lock.withLock {
            self.task = task
            return cancelled
        }
        task.resume()
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock {
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}

/// Which URLs a device fetches (docs/client.md, Refresh): `https:` anywhere, `http:` only to a
/// loopback host, `file:` (a site in a local directory). Nil when `url` may be fetched, else why not.
func refusal(of url: URL) -> String? {
    switch url.scheme?.lowercased() {
    case "https", "file": return nil
    case "http":
        if isLoopback(url.host ?? "") { return nil }
        return
            "\(url.absoluteString): plain http is allowed only to a loopback host (127.0.0.0/8, ::1, localhost); use https"
    default:
        return "\(url.absoluteString): only https (http to a loopback host, or a file URL) is fetched"
    }
}

/// Where a server may send the device: what `refusal(of:)` allows, except a file.
func refusal(ofRedirectTo url: URL) -> String? {
    url.isFileURL ? "\(url.absoluteString): a server cannot send the device to a file" : refusal(of: url)
}

/// `localhost`, `::1`, or an IPv4 literal in 127.0.0.0/8 written as the system reads it without a
/// lookup: four decimal octets of at most 255, no leading zeros (`127.0.0.08` is a name a
/// resolver answers, not an address), nothing after them (`127.0.0.1.evil.com`).
func isLoopback(_ host: String) -> Bool {
    let host = host.lowercased()
    if host == "localhost" || host == "::1" || host == "[::1]" { return true }
    let octets = host.split(separator: ".", omittingEmptySubsequences: false)
    guard octets.count == 4, octets[0] == "127" else { return false }
    return octets.allSatisfy { octet in
        !octet.isEmpty && octet.count <= 3 && octet.allSatisfy { $0.isASCII && $0.isNumber }
            && (octet == "0" || octet.first != "0")
            && Int(octet)! <= 255
    }
}

/// Runs `operation`, giving up after `seconds` even if the operation ignores cancellation (a
/// transport that hangs must not hold a refresh forever).
func withTimeout<T: Sendable>(_ seconds: TimeInterval, _ operation: @escaping @Sendable () async throws -> T)
    async throws -> T
{
    let tasks = TimedTasks()
    // Whichever way this ends (the operation, the timer, or the caller's task cancelled), both
    // tasks are cancelled: the transport's request with them.
    defer { tasks.cancel() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            let once = Once(continuation)
            tasks.start(
                work: Task {
                    do { once.resume(.success(try await operation())) } catch { once.resume(.failure(error)) }
                },
                timer: Task {
                    let limited = seconds.isFinite ? min(max(0, seconds), 86_400) : 86_400
                    try? await Task.sleep(nanoseconds: UInt64(limited * 1_000_000_000))
                    once.resume(
                        .failure(TransportError(Task.isCancelled ? "cancelled" : "timed out after \(seconds) s")))
                })
        }
    } onCancel: {
        tasks.cancel()
    }
}

/// The operation's task and its timer, cancelled together.
private final class TimedTasks: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [Task<Void, Never>] = []
    private var cancelled = false

    func start(work: Task<Void, Never>, timer: Task<Void, Never>) {
        let cancelNow = lock.withLock {
            tasks = [work, timer]
            return cancelled
        }
        if cancelNow { cancel() }
    }

    func cancel() {
        let all = lock.withLock {
            cancelled = true
            return tasks
        }
        for task in all { task.cancel() }
    }
}

/// Resumes a continuation once, whichever side comes first.
private final class Once<V: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<V, Error>?
    init(_ continuation: CheckedContinuation<V, Error>) { self.continuation = continuation }
    func resume(_ result: Result<V, Error>) {
        lock.lock()
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume(with: result)
    }
}
