import Foundation
import XCTest

/// rollout runs the system git for every fetch and push (docs/teams.md, "How rollout talks to the
/// server"): without git a remote fails with its own code while local work goes on, and a program
/// git starts that outlives it (a credential helper's daemon, an ssh master connection) never
/// holds rollout.
// Processes: what git leaves running must not hold rollout's process or its caller's streams.
final class GitProcessTests: XCTestCase {
    private func clone(_ w: Workspace) throws -> String {
        try w.initWithExamples()
        let clone = w.scratch.path("clone")
        let cloned = try w.rollout("clone", w.repository, clone)
        XCTAssertEqual(cloned.status, 0, cloned.output)
        return clone
    }

    func testWithoutGitARemoteFailsAsUnavailableAndOfflineWorkGoesOn() throws {
        let w = try Workspace(process: true)
        let clone = try clone(w)
        let noGit = ["PATH": w.scratch.path("empty-bin")]
        try FileManager.default.createDirectory(atPath: w.scratch.path("empty-bin"), withIntermediateDirectories: true)
        let synced = try w.rollout(["--repo", clone, "sync"], env: noGit)
        XCTAssertEqual(synced.status, 69, synced.output)
        XCTAssertTrue(synced.stderr.contains("install git"), synced.stderr)
        let offline = try w.rollout(["--repo", clone, "--offline", "promote", "tr-TR@17", "--to", "100%"], env: noGit)
        XCTAssertEqual(offline.status, 0, offline.output)
    }

    /// A helper that leaves a process behind holding git's descriptors: the fetch returns when git
    /// does, not when the leftover exits.
    func testAProcessGitLeavesBehindDoesNotHoldRollout() throws {
        let w = try Workspace(process: true)
        let clone = try clone(w)
        let marker = Int.random(in: 100_000...999_999)
        let wrapper = try w.scratch.write(
            "upload-pack-wrapper", Data("#!/bin/sh\nsleep 120.\(marker) &\nexec git-upload-pack \"$@\"\n".utf8))
        XCTAssertEqual(chmod(wrapper, 0o755), 0)
        defer {
            _ = try? Processes.run(
                "/usr/bin/env", ["pkill", "-f", "sleep 120.\(marker)"], in: w.root, environment: w.environment)
        }
        // The user's own setting: rollout runs no program a repository's config names.
        XCTAssertEqual(
            try w.git("config", "--global", "remote.origin.uploadpack", wrapper, repository: clone).status, 0)
        let started = Date()
        let synced = try w.rollout("--repo", clone, "sync")
        XCTAssertEqual(synced.status, 0, synced.output)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60, "rollout waited for the process git left behind")
    }
}
