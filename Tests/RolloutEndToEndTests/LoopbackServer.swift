import Foundation
import RolloutClient

/// A python3 HTTP server on loopback for the transport tests: `script` binds 127.0.0.1 port 0 and
/// prints the port it got as its first line; `arguments` are its `sys.argv[1...]`.
final class LoopbackServer {
    let process = Process()
    let port: Int

    init(script: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = ""
        while !line.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += String(decoding: chunk, as: UTF8.self)
        }
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(process.processIdentifier, SIGKILL)
            throw TransportError(reason: .unreachable, "no port from the server: \(line)")
        }
        self.port = port
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    func stop() {
        // SIGKILL: a child spawned from the test's threads inherits their blocked SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<100 where process.isRunning { usleep(20_000) }
    }
}
