// A stand-in for the URL loading API of Apple's Foundation, under FoundationNetworking's name. On
// the search path of ApplePlatformTests' build, it shadows the toolchain's FoundationNetworking
// (swift-corelibs-foundation), so RolloutClient's Transport.swift is type-checked against Apple's
// declarations of what it uses, as Apple's documentation gives them, and not against corelibs'.
//
// The delegate methods Transport.swift implements are optional requirements on Apple platforms:
// a method whose signature nearly matches one (another label, type or closure type) compiles
// there with at most a warning and is never called. Here each is a requirement without a default,
// so a conformance that does not match one exactly fails the build (ApplePlatformTests proves it
// with a near-miss). A delegate method Apple has that is not declared here is one Transport.swift
// does not implement; add it here before implementing it there.
//
// Declarations only: the module is type-checked against, never linked or run.

import Foundation

/// Apple: `protocol URLSessionDelegate : NSObjectProtocol, Sendable`.
public protocol URLSessionDelegate: NSObjectProtocol, Sendable {}

/// Apple: `protocol URLSessionTaskDelegate : URLSessionDelegate`; both methods `optional` there.
public protocol URLSessionTaskDelegate: URLSessionDelegate {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void)

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)
}

/// Apple: `protocol URLSessionDataDelegate : URLSessionTaskDelegate`; both methods `optional` there.
public protocol URLSessionDataDelegate: URLSessionTaskDelegate {
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void)

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data)
}

/// Apple: `class URLSessionConfiguration : NSObject, NSCopying, @unchecked Sendable`.
open class URLSessionConfiguration: NSObject, @unchecked Sendable {
    open class var `default`: URLSessionConfiguration { fatalError("stand-in") }
}

/// Apple: `class URLSession : NSObject, @unchecked Sendable`.
open class URLSession: NSObject, @unchecked Sendable {
    /// Apple: `enum ResponseDisposition : Int, @unchecked Sendable`.
    public enum ResponseDisposition: Int, @unchecked Sendable {
        case cancel = 0
        case allow = 1
        case becomeDownload = 2
        case becomeStream = 3
    }

    public init(
        configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?,
        delegateQueue queue: OperationQueue?
    ) { fatalError("stand-in") }

    open func dataTask(with request: URLRequest) -> URLSessionDataTask { fatalError("stand-in") }
}

/// Apple: `class URLSessionTask : NSObject, NSCopying, ProgressReporting, @unchecked Sendable`.
open class URLSessionTask: NSObject, @unchecked Sendable {
    open var taskIdentifier: Int { fatalError("stand-in") }
    open var response: URLResponse? { fatalError("stand-in") }
    open func cancel() { fatalError("stand-in") }
    open func resume() { fatalError("stand-in") }
}

/// Apple: `class URLSessionDataTask : URLSessionTask, @unchecked Sendable`.
open class URLSessionDataTask: URLSessionTask, @unchecked Sendable {}

/// Apple: `class URLResponse : NSObject, NSSecureCoding, NSCopying, @unchecked Sendable`.
open class URLResponse: NSObject, @unchecked Sendable {
    open var url: URL? { fatalError("stand-in") }
    open var expectedContentLength: Int64 { fatalError("stand-in") }
}

/// Apple: `class HTTPURLResponse : URLResponse, @unchecked Sendable`.
open class HTTPURLResponse: URLResponse, @unchecked Sendable {
    open var statusCode: Int { fatalError("stand-in") }
}

/// Apple: `struct URLRequest`, whose `CachePolicy` is `NSURLRequest.CachePolicy`.
public struct URLRequest: Equatable, Hashable, Sendable {
    /// Apple: `enum NSURLRequest.CachePolicy : UInt, @unchecked Sendable`.
    public enum CachePolicy: UInt, @unchecked Sendable {
        case useProtocolCachePolicy = 0
        case reloadIgnoringLocalCacheData = 1
        case reloadIgnoringLocalAndRemoteCacheData = 4
        case returnCacheDataElseLoad = 2
        case returnCacheDataDontLoad = 3
        case reloadRevalidatingCacheData = 5
    }

    public var url: URL?
    public var cachePolicy: CachePolicy

    public init(url: URL, cachePolicy: CachePolicy = .useProtocolCachePolicy, timeoutInterval: TimeInterval = 60.0) {
        self.url = url
        self.cachePolicy = cachePolicy
    }
}
