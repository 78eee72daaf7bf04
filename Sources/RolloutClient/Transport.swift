import Foundation
import RolloutModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the client fetches the published site. The default is HTTPS through URLSession; tests and
/// apps with their own networking stack supply their own.
public protocol RolloutTransport: Sendable {
    /// The bytes at `url`, or a `TransportError` for anything but a complete successful response.
    /// Reads at most `limit + 1` bytes (`RolloutClient.SizeLimits`): a longer file fails with
    /// `.tooLarge` without being held in memory. The client checks the length again, for a
    /// transport that does not.
    func fetch(_ url: URL, limit: Int) async throws -> Data
}

/// Why a transport gave no file: the reason an app acts on (`RolloutClient.FailureReason`, for a
/// transport one of `unreachable`, `timedOut`, `notFound`, `httpStatus`, `insecureURL`,
/// `redirectRefused`, `tooLarge`, `cancelled`) and a sentence for a log.
public struct TransportError: Error, CustomStringConvertible {
    public let reason: RolloutClient.FailureReason
    public let message: String
    public var description: String { message }

    public init(reason: RolloutClient.FailureReason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// `url` holds more than `limit` bytes: the one wording of every transport's refusal.
    public static func tooLarge(_ url: URL, limit: Int) -> TransportError {
        TransportError(reason: .tooLarge, SiteSizeLimits.tooLarge(url.absoluteString, limit: limit))
    }
}

/// Fetches with URLSession. Any status but 200 is an error; the client applies its own time-out
/// on top of the session's. A redirect is followed only to a URL the client would fetch itself
/// (`https:`, or `http:` to a loopback host; never `file:`), and a body is read only up to the
/// limit: the transport's session delegate enforces both, and refuses a response that arrived from
/// a URL the rule forbids.
public struct URLSessionTransport: RolloutTransport, Sendable {
    let session: URLSession
    let downloads: Downloads

    private static let shared = URLSessionTransport(configuration: .default)

    /// The transport every client shares by default: URLSession's default configuration.
    public init() { self = URLSessionTransport.shared }

    /// A transport on a session of its own with `configuration` (headers, proxies, caching): make
    /// one per app and keep it, as URLSession keeps its delegate until the process ends.
    public init(configuration: URLSessionConfiguration) {
        downloads = Downloads()
        session = URLSession(configuration: configuration, delegate: downloads, delegateQueue: nil)
    }

    /// A `file:` URL is read from disk (a site in a directory, for `rollout device` and tests);
    /// anything else goes through the session. Cancelling the calling task cancels the request.
    public func fetch(_ url: URL, limit: Int) async throws -> Data {
        if url.isFileURL { return try Self.read(url, limit: limit) }
        var request = URLRequest(url: url)
        // A CDN may serve a stale manifest; the sequence checks catch that, and a revalidation
        // costs one round trip.
        request.cachePolicy = .reloadRevalidatingCacheData
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request)
                downloads.register(task, Download(url: url, limit: limit, continuation: continuation))
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
    }

    /// A file of at most `limit` bytes: its size is checked before it is read, and no more than
    /// `limit + 1` bytes are read in case it grew meanwhile.
    static func read(_ url: URL, limit: Int) throws -> Data {
        // A missing file is an error, as a 404 is over the network.
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue
        else {
            throw TransportError(reason: .notFound, "\(url.path): no such file")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
        if let size, size > limit { throw TransportError.tooLarge(url, limit: limit) }
        guard let handle = FileHandle(forReadingAtPath: url.path),
            let data = try? handle.read(upToCount: limit == .max ? limit : limit + 1)
        else {
            throw TransportError(reason: .unreachable, "\(url.path): cannot be read")
        }
        try? handle.close()
        if data.count > limit { throw TransportError.tooLarge(url, limit: limit) }
        return data
    }
}

/// One fetch in flight: its limit, the bytes so far, and the caller waiting for them.
/// `@unchecked Sendable`: `lock` guards `redirects`; `data` is touched only from the session's
/// delegate callbacks, which URLSession delivers one at a time on its serial delegate queue;
/// `once` has a lock of its own.
final class Download: @unchecked Sendable {
    let url: URL
    let limit: Int
    private var data = Data()
    private let once: Once<Data>
    private let lock = NSLock()
    private var redirects = 0

    init(url: URL, limit: Int, continuation: CheckedContinuation<Data, Error>) {
        self.url = url
        self.limit = limit
        once = Once(continuation)
    }

    /// Why `response` is not the file (a status but 200, a redirect the rule refused, a stated
    /// length over the limit); nil if its body may be read.
    func problem(with response: URLResponse?) -> TransportError? {
        if let final = response?.url, final != url, let why = refusal(ofRedirectTo: final) {
            return TransportError(reason: .redirectRefused, "\(url): redirected: \(why)")
        }
        if let http = response as? HTTPURLResponse, http.statusCode != 200 {
            let reason: RolloutClient.FailureReason
            switch http.statusCode {
            case 404, 410: reason = .notFound
            // A redirect the rule did not follow arrives as itself.
            case 300..<400: reason = .redirectRefused
            default: reason = .httpStatus
            }
            return TransportError(reason: reason, "\(url): HTTP \(http.statusCode)")
        }
        if let length = response?.expectedContentLength, length > limit { return .tooLarge(url, limit: limit) }
        return nil
    }

    /// Counts one more redirect: how many this fetch was sent on so far.
    func redirected() -> Int {
        lock.withLock {
            redirects += 1
            return redirects
        }
    }

    /// Keeps `chunk`, up to one byte past the limit; false once the body is over the limit.
    func append(_ chunk: Data) -> Bool {
        let room = limit - data.count
        data.append(chunk.prefix(room == .max ? room : room + 1))
        return data.count <= limit
    }

    func finish(_ error: (any Error)?) {
        if let error {
            once.resume(.failure(error))
        } else {
            once.resume(.success(data))
        }
    }
}

/// The delegate of URLSessionTransport's session: the redirect rule, and each data task's body
/// read up to its limit. Its methods must match URLSession's delegate protocols exactly: a
/// near-miss of an optional requirement compiles on Apple platforms and is never called
/// (ApplePlatformTests builds this file against Apple's declarations to prove they match).
/// `@unchecked Sendable`: `lock` guards `running`.
final class Downloads: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var running: [Int: Download] = [:]

    func register(_ task: URLSessionTask, _ download: Download) {
        lock.withLock { running[task.taskIdentifier] = download }
    }

    private func download(_ task: URLSessionTask) -> Download? { lock.withLock { running[task.taskIdentifier] } }

    /// Ends `task`'s fetch (once: what the session reports after it is ignored).
    private func finish(_ task: URLSessionTask, _ error: (any Error)?) {
        lock.withLock { running.removeValue(forKey: task.taskIdentifier) }?.finish(error)
    }

    /// Follows a redirect only to a URL `refusal(ofRedirectTo:)` allows; otherwise the redirect
    /// response itself is the answer, which is not a 200 and so fails the fetch.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let url = request.url, refusal(ofRedirectTo: url) == nil else { return completionHandler(nil) }
        if let download = download(task), download.redirected() > TransportError.maximumRedirects {
            // The fetch ends here; what the session reports after is ignored. No cancel() before
            // the handler: FoundationNetworking traps on a redirect answered after one.
            finish(task, TransportError.tooManyRedirects(download.url))
            return completionHandler(nil)
        }
        completionHandler(request)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let refusal = download(dataTask)?.problem(with: response) {
            finish(dataTask, refusal)
            return completionHandler(.cancel)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let download = download(dataTask), !download.append(data) else { return }
        finish(dataTask, TransportError.tooLarge(download.url, limit: download.limit))
        dataTask.cancel()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let download = download(task) else { return }
        if let error {
            finish(task, TransportError(error, url: download.url))
        } else {
            finish(task, download.problem(with: task.response))
        }
    }
}

extension TransportError {
    /// Redirects a fetch follows at most, as browsers do (the Java client's HttpTransport too).
    static let maximumRedirects = 16

    /// A fetch redirected more than `maximumRedirects` times: a loop, most likely.
    static func tooManyRedirects(_ url: URL) -> TransportError {
        TransportError(
            reason: .redirectRefused,
            "\(url): more than \(maximumRedirects) redirects (a redirect loop?): the device stops following them")
    }

    /// What URLSession reported, as a reason and a sentence of this client's own: never the
    /// platform's raw error text ("The operation could not be completed. (NSURLErrorDomain error
    /// -1000.)"), which names no cause a reader can act on.
    init(_ error: any Error, url: URL) {
        guard let code = (error as? URLError)?.code else {
            self.init(reason: .unreachable, "\(url): no response: \(error.localizedDescription)")
            return
        }
        let host = url.host ?? ""
        let place = url.port.map { "\(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host):\($0)" } ?? host
        let detail = Self.platformText(error)
        switch code {
        case .timedOut: self.init(reason: .timedOut, "\(url): no response in time")
        case .cancelled: self.init(reason: .cancelled, "\(url): cancelled")
        case .fileDoesNotExist: self.init(reason: .notFound, "\(url): no such file")
        case .dataLengthExceedsMaximum:
            self.init(reason: .tooLarge, "\(url): larger than the device reads of this file")
        case .httpTooManyRedirects: self = .tooManyRedirects(url)
        case .redirectToNonExistentLocation:
            self.init(reason: .redirectRefused, "\(url): redirected to no location")
        case .appTransportSecurityRequiresSecureConnection:
            self.init(reason: .insecureURL, "\(url): App Transport Security allows only https here")
        case .cannotConnectToHost:
            self.init(reason: .unreachable, "\(url): nothing accepts connections at \(place) (connection refused)")
        case .cannotFindHost, .dnsLookupFailed:
            self.init(reason: .unreachable, "\(url): the host name \(host) is not known (DNS lookup failed)")
        case .notConnectedToInternet: self.init(reason: .unreachable, "\(url): the device is offline")
        case .networkConnectionLost:
            self.init(reason: .unreachable, "\(url): the connection closed before the whole response")
        case .badURL where host.contains(":"):
            // swift-corelibs-foundation's URLSession refuses a URL whose host is an IPv6 address
            // (its issue 5496); on Apple platforms such a URL is fetched.
            self.init(
                reason: .unreachable,
                "\(url): this platform's URLSession cannot connect to an IPv6 address written in a URL; name the host instead (localhost for ::1)"
            )
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired:
            self.init(reason: .unreachable, "\(url): the TLS connection to \(place) failed" + detail)
        default: self.init(reason: .unreachable, "\(url): no response (URLError \(code.rawValue))" + detail)
        }
    }

    /// ": " and the platform's own text of `error` when it says more than its code (libcurl's
    /// "SSL certificate problem: ..." does; "The operation could not be completed" does not).
    private static func platformText(_ error: any Error) -> String {
        let text = error.localizedDescription
        return text.isEmpty || text.hasPrefix("The operation could") || text.contains("NSURLErrorDomain")
            ? "" : ": \(text)"
    }
}

/// The data task of one fetch, cancelled whether the cancellation comes before or after it starts.
/// `@unchecked Sendable`: `lock` guards `task` and `cancelled`.
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
                        .failure(
                            Task.isCancelled
                                ? TransportError(reason: .cancelled, "cancelled")
                                : TransportError(reason: .timedOut, "timed out after \(seconds) s")))
                })
        }
    } onCancel: {
        tasks.cancel()
    }
}

/// The operation's task and its timer, cancelled together.
/// `@unchecked Sendable`: `lock` guards `tasks` and `cancelled`.
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
/// `@unchecked Sendable`: `lock` guards `continuation`.
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
