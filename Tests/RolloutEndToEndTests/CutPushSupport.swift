import Foundation
import XCTest

extension ServerProcess {
    /// The port the server printed once listening.
    func port() throws -> Int {
        var port: Int?
        _ = wait {
            if stdout.hasSuffix("\n") { port = Int(stdout.trimmingCharacters(in: .whitespacesAndNewlines)) }
            return port != nil
        }
        guard let port else {
            stop()
            throw ServerError(description: "the fault proxy did not start: \(stderr)")
        }
        return port
    }
}

/// A shared rollout repository served by the real `git http-backend` (git-http-server.py), with a
/// pre-receive hook that can be slowed, reached through push-fault-proxy.py, which cuts the
/// connection of a push at the point the test names: before the pack reaches the server, while
/// the hook runs, after the server answered, half way through the answer. The server goes on
/// whatever happens to the client, as Apache's CGI does when the worker serving it is killed.
final class LandedPushRemote {
    static let user = "alice"
    static let password = "fault-pw"

    let w: Workspace
    let shared: String
    let control: String
    let http: HTTPGitServer
    let proxy: ServerProcess
    let proxyPort: Int

    init(_ w: Workspace) throws {
        self.w = w
        shared = w.scratch.path("server/shared.git")
        control = w.scratch.path("control")
        try FileManager.default.createDirectory(atPath: control, withIntermediateDirectories: true)
        try LandedPushRemote.makeShared(w, at: shared)
        let hook = shared + "/hooks/pre-receive"
        try FileManager.default.createDirectory(atPath: shared + "/hooks", withIntermediateDirectories: true)
        try Data(
            """
            #!/bin/sh
            echo start >> '\(control)/hook-runs'
            cat >/dev/null
            delay=$(cat '\(control)/hook-delay' 2>/dev/null)
            [ -n "$delay" ] && sleep "$delay"
            exit 0

            """.utf8
        ).write(to: URL(fileURLWithPath: hook))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        http = try HTTPGitServer(
            root: w.scratch.path("server"), state: w.scratch.path("http"),
            users: [LandedPushRemote.user: LandedPushRemote.password])
        do {
            proxy = try ServerProcess(
                [
                    "/usr/bin/env", "python3", Fixtures.directory + "/servers/push-fault-proxy.py", control,
                    "\(http.port)",
                ], logs: w.scratch.path("proxy"))
            proxyPort = try proxy.port()
        } catch {
            http.stop()
            throw error
        }
    }

    /// A rollout repository with the example packs, each locale's first at 100%, then vi-VN@4
    /// completed over vi-VN@3 (so a revert of vi-VN has a baseline to go back to).
    static func makeShared(_ w: Workspace, at path: String) throws {
        func must(_ arguments: [String]) throws {
            let result = try w.rollout(arguments)
            guard result.status == 0 else {
                throw ServerError(description: "rollout \(arguments.joined(separator: " ")): \(result.output)")
            }
        }
        var pack =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("vi-VN@3"))))
            as! [String: Any]
        pack["contentVersion"] = 4
        pack["checksum"] = nil
        var strings = pack["strings"] as! [String: String]
        strings["settings.title"] = (strings["settings.title"] ?? "") + " ✓"
        pack["strings"] = strings
        let next = try w.scratch.write("vi-VN@4.json", try JSONSerialization.data(withJSONObject: pack))
        try must(["init", path])
        try must(["--repo", path, "pack", "add"] + Fixtures.allExamplePacks + [next])
        for id in ["en-US@1", "tr@1", "tr-TR@17", "vi-VN@3", "vi-VN@4"] {
            try must(["--repo", path, "promote", id, "--to", "100%", "--force", "--reason", "setup"])
        }
    }

    /// The URL through the proxy, with the credentials in it.
    var url: String { "http://\(LandedPushRemote.user):\(LandedPushRemote.password)@127.0.0.1:\(proxyPort)/shared.git" }

    /// The faults of the next push attempts, in order (push-fault-proxy.py).
    func cut(_ faults: [String]) throws {
        try Data(faults.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: control + "/faults"))
    }

    /// How long the server's pre-receive hook sleeps.
    func slowHook(_ seconds: Double) throws {
        try Data(String(format: "%.2f\n", seconds).utf8).write(to: URL(fileURLWithPath: control + "/hook-delay"))
    }

    /// Waits until the server has answered every request the proxy passed on, the ones whose
    /// client is gone included: only then does the remote's branch say what it will say.
    func waitUntilIdle(timeout: Double = 60) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: control + "/inflight", encoding: .utf8)) ?? ""
            if text.trimmingCharacters(in: .whitespacesAndNewlines) == "0" { return }
            usleep(20_000)
        }
        throw ServerError(description: "the git server still serves a push after \(Int(timeout)) s")
    }

    var hookRuns: Int {
        ((try? String(contentsOfFile: control + "/hook-runs", encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    /// What the proxy did, one JSON object per request.
    func proxyLog() -> [[String: Any]] {
        ((try? String(contentsOfFile: control + "/log", encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The commits on the server's main, newest first: id, action trailer, reason trailer.
    func history() throws -> [(id: String, action: String, reason: String)] {
        try w.git(
            "log",
            "--format=%H|%(trailers:key=Rollout-Action,valueonly,separator=)|%(trailers:key=Rollout-Reason,valueonly,separator=)",
            "refs/heads/main", repository: shared
        ).stdout.split(separator: "\n").map { line in
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            return (fields[0], fields.count > 1 ? fields[1] : "", fields.count > 2 ? fields[2] : "")
        }
    }

    func tip(_ repository: String) throws -> String {
        try w.git("rev-parse", "refs/heads/main", repository: repository).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    func stop() {
        proxy.stop()
        http.stop()
    }
}
