import Foundation

/// Reads a published site from a local directory through `file:` URLs: what `rollout device --site
/// DIR` uses, and a way to try a site before it is uploaded. A missing or unreadable file is an
/// error, as a 404 is for `URLSessionTransport`; nothing but `file:` URLs is read.
public struct FileTransport: RolloutTransport {
    public init() {}

    public func fetch(_ url: URL) async throws -> Data {
        guard url.isFileURL else { throw TransportError("\(url): FileTransport reads only file: URLs") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw TransportError("\(url.path): no such file")
        }
        guard let data = FileManager.default.contents(atPath: url.path) else { throw TransportError("\(url.path): cannot be read") }
        return data
    }
}
