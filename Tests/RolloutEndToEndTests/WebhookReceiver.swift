import Foundation
import XCTest

/// A webhook receiver on loopback (scripts/docs/webhook-receiver.py, the one the docs start), run
/// through `LoopbackServer`: it records every POST under `directory` and answers as `mode` says:
/// "ok" 200, "fail" 500, "hang" accepts and never answers.
final class WebhookReceiver {
    let directory: String
    let server: LoopbackServer

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/docs/webhook-receiver.py").path

    init(directory: String) throws {
        self.directory = directory
        server = try LoopbackServer(
            script: try String(contentsOfFile: Self.script, encoding: .utf8), arguments: [directory])
    }

    deinit { server.stop() }

    func url(_ path: String) -> String { server.url(path).absoluteString }

    var mode: String {
        get { (try? String(contentsOfFile: directory + "/mode", encoding: .utf8)) ?? "ok" }
        set { try? newValue.write(toFile: directory + "/mode", atomically: true, encoding: .utf8) }
    }

    struct Received {
        let path: String
        let headers: [String: String]
        let body: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
        func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    /// Every request so far, in the order they arrived.
    var received: [Received] {
        let folder = directory + "/requests"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            !$0.hasPrefix(".") && $0.hasSuffix(".json")
        }
        return names.sorted { Int($0.dropLast(5))! < Int($1.dropLast(5))! }.compactMap { name in
            guard let data = FileManager.default.contents(atPath: folder + "/" + name),
                let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return Received(
                path: o["path"] as? String ?? "", headers: o["headers"] as? [String: String] ?? [:],
                body: o["body"] as? String ?? "")
        }
    }

    func received(at path: String) -> [Received] { received.filter { $0.path == path } }

    /// Waits up to `seconds` for at least `count` requests (a hanging one is recorded on arrival).
    func waitFor(_ count: Int, seconds: Double = 10) -> [Received] {
        let deadline = Date().addingTimeInterval(seconds)
        while received.count < count && Date() < deadline { usleep(20_000) }
        return received
    }
}

/// HMAC-SHA256 of `body` with `secret`, by Python's hmac module: the receiver's own check, not rollout's code.
func pythonHMAC(secret: String, body: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
        "python3", "-c",
        "import hmac, hashlib, sys; print(hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())",
        secret,
    ]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(body.utf8))
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
