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
/// on top of the session's.
public struct URLSessionTransport: RolloutTransport, @unchecked Sendable {
    let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func fetch(_ url: URL) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            var request = URLRequest(url: url)
            // A CDN may serve a stale manifest; the sequence checks catch that, and a revalidation
            // costs one round trip.
            request.cachePolicy = .reloadRevalidatingCacheData
            session.dataTask(with: request) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                if let http = response as? HTTPURLResponse, http.statusCode != 200 {
                    return continuation.resume(throwing: TransportError("\(url): HTTP \(http.statusCode)"))
                }
                continuation.resume(returning: data ?? Data())
            }.resume()
        }
    }
}

/// Runs `operation`, giving up after `seconds` even if the operation ignores cancellation (a
/// transport that hangs must not hold a refresh forever).
func withTimeout<T: Sendable>(_ seconds: TimeInterval, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    var work: Task<Void, Never>?
    var timer: Task<Void, Never>?
    defer {
        work?.cancel()
        timer?.cancel()
    }
    return try await withCheckedThrowingContinuation { continuation in
        let once = Once(continuation)
        work = Task {
            do { once.resume(.success(try await operation())) } catch { once.resume(.failure(error)) }
        }
        timer = Task {
            let limited = seconds.isFinite ? min(max(0, seconds), 86_400) : 86_400
            try? await Task.sleep(nanoseconds: UInt64(limited * 1_000_000_000))
            once.resume(.failure(TransportError("timed out after \(seconds) s")))
        }
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
