import Foundation
import XCTest

/// A full disk is an I/O error (exit 74) that names the path and the cause, never "a bug", and it
/// leaves the repository exactly as it was (docs/reliability.md, "Full disks and I/O errors").
final class FullDiskTests: XCTestCase {
    func testPackAddPromoteAndIngestOnAFullDiskExit74AndLeaveTheRepositoryAsItWas() throws {
        for mechanism in FullDisk.available {
            let w = try Workspace()
            let disk = try FullDisk(mechanism, workspace: w)
            defer { disk.release() }
            try w.initWithExamples()
            let pack = try nextViPack(w)
            let metrics = MetricsIngestTests.examples + "/crashes-healthy.csv"
            let tip = try w.stateTip()

            try disk.fill()
            let attempts: [[String]] = [
                ["pack", "add", pack],
                ["promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--reason", "first stage"],
                ["metrics", "ingest", "--kind", "crash", metrics],
            ]
            for arguments in attempts {
                let result = try disk.rollout(arguments)
                XCTAssertEqual(result.status, 74, "\(mechanism) \(arguments): \(result.output)")
                XCTAssertTrue(
                    result.stderr.contains(w.repository), "\(mechanism): names the repository: \(result.stderr)")
                XCTAssertTrue(result.stderr.contains(disk.cause), "\(mechanism): names the cause: \(result.stderr)")
                XCTAssertFalse(result.stderr.contains("this is a bug"), result.stderr)
                XCTAssertEqual(try w.stateTip(), tip, "\(mechanism) \(arguments) moved the state")
            }
            let json = try disk.rollout(["pack", "add", pack, "--json"])
            XCTAssertEqual(json.status, 74, json.output)
            let error = try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: [String: String]]
            XCTAssertEqual(error?["error"]?["code"], "io-error", json.stderr)

            try disk.free()
            let verify = try w.rollout("verify")
            XCTAssertEqual(verify.status, 0, "\(mechanism): \(verify.output)")
            XCTAssertEqual(try w.stateTip(), tip)
            try w.assertFsckClean()
            for arguments in attempts {
                let retried = try w.rollout(arguments)
                XCTAssertEqual(retried.status, 0, "\(mechanism) retry of \(arguments): \(retried.output)")
            }
            XCTAssertEqual(try w.rollout("verify").status, 0)
        }
    }

    /// A site on a full disk: 74 naming the site and the cause, no record in the history, and the
    /// next publish with room completes a site devices accept.
    func testPublishOnAFullDiskExit74AndRecordsNothing() throws {
        for mechanism in FullDisk.available {
            let w = try Workspace()
            let disk = try FullDisk(mechanism, workspace: w)
            defer { disk.release() }
            try w.initWithExamples()
            for id in ["en-US@1", "tr@1", "tr-TR@17"] {
                XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
            }
            let keys = try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key"), "--json"))
            let publicKey = try XCTUnwrap(keys["publicKey"] as? String)
            let tip = try w.stateTip()

            try disk.fill()
            let result = try disk.rollout([
                "publish", "--out", w.work + "/site", "--key", w.scratch.path("signing.key"),
            ])
            XCTAssertEqual(result.status, 74, "\(mechanism): \(result.output)")
            XCTAssertTrue(result.stderr.contains(w.work + "/site"), "\(mechanism): names the site: \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(disk.cause), "\(mechanism): names the cause: \(result.stderr)")
            XCTAssertEqual(try w.stateTip(), tip, "\(mechanism): a publish that failed is not recorded")

            try disk.free()
            let retried = try w.rollout("publish", "--out", w.work + "/site", "--key", w.scratch.path("signing.key"))
            XCTAssertEqual(retried.status, 0, "\(mechanism): \(retried.output)")
            XCTAssertEqual(try w.rollout("verify-site", w.work + "/site", "--public-key", publicKey).status, 0)
            XCTAssertEqual(try w.rollout("verify").status, 0)
        }
    }

    func testLogStillAnswersOnAFullDisk() throws {
        for mechanism in FullDisk.available {
            let w = try Workspace()
            let disk = try FullDisk(mechanism, workspace: w)
            defer { disk.release() }
            try w.initWithExamples()
            XCTAssertEqual(try w.rollout("log").status, 0)
            // A change the log's index has not seen yet: answering it means appending to the index.
            XCTAssertEqual(
                try w.rollout("promote", "tr-TR@18", "--to", "5%", "--region", "TR", "--reason", "canary").status, 0)

            try disk.fill()
            var answers: [String] = []
            for arguments in [["log"], ["log", "--locale", "tr-TR"]] {
                let result = try disk.rollout(arguments)
                XCTAssertEqual(result.status, 0, "\(mechanism) \(arguments): \(result.output)")
                XCTAssertTrue(result.stdout.contains("canary"), "\(mechanism): \(result.stdout)")
                answers.append(result.stdout)
            }

            try disk.free()
            XCTAssertEqual(try w.rollout("log").stdout, answers[0], "\(mechanism): the same answer as from the index")
            XCTAssertEqual(
                try w.rollout("log", "--locale", "tr-TR").stdout, answers[1],
                "\(mechanism): the index is whole after the disk was full")
            XCTAssertEqual(try w.rollout("verify").status, 0)

            // Where a real mount is possible, a read-only one too (an auditor's copy): log answers, a change is EROFS.
            if mechanism == .tmpfs {
                XCTAssertEqual(
                    try w.rollout("promote", "tr-TR@18", "--to", "10%", "--region", "TR", "--reason", "wider").status, 0
                )
                try disk.remount(readOnly: true)
                let log = try w.rollout("log", "--locale", "tr-TR")
                XCTAssertEqual(log.status, 0, log.output)
                XCTAssertTrue(log.stdout.contains("wider"), log.stdout)
                let refused = try w.rollout("promote", "tr-TR@18", "--to", "20%", "--region", "TR")
                XCTAssertEqual(refused.status, 74, refused.output)
                XCTAssertTrue(refused.stderr.contains("Read-only file system (EROFS)"), refused.stderr)
                try disk.remount(readOnly: false)
            }
        }
    }

    func testKeysGenerateOnAFullDiskLeavesNoFileAndTheRetrySucceeds() throws {
        for mechanism in FullDisk.available {
            let w = try Workspace()
            let disk = try FullDisk(mechanism, workspace: w)
            defer { disk.release() }
            try FileManager.default.createDirectory(atPath: w.work, withIntermediateDirectories: true)
            try disk.fill()
            let failed = try disk.rollout(["keys", "generate", "--out", "signing.pem"])
            XCTAssertEqual(failed.status, 74, "\(mechanism): \(failed.output)")
            XCTAssertTrue(
                failed.stderr.contains("signing.pem") && failed.stderr.contains(disk.cause),
                "\(mechanism): \(failed.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: w.work).filter { $0.contains("signing.pem") }
            XCTAssertEqual(left, [], "\(mechanism): nothing may be left to block the retry")

            try disk.free()
            let retried = try w.rollout("keys", "generate", "--out", "signing.pem")
            XCTAssertEqual(retried.status, 0, "\(mechanism): \(retried.output)")
            let attributes = try FileManager.default.attributesOfItem(atPath: w.work + "/signing.pem")
            XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
            XCTAssertGreaterThan((attributes[.size] as? NSNumber)?.intValue ?? 0, 0)
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: w.work).filter { $0.contains("signing.pem") },
                ["signing.pem"])
        }
    }

    func testAReportWrittenToAFullDeviceIsAnIOErrorAndTheDeviceStays() throws {
        let w = try Workspace()
        try w.initWithExamples()
        XCTAssertEqual(try w.rollout("promote", "tr-TR@18", "--to", "5%", "--region", "TR").status, 0)
        // A link to /dev/full: the write goes through the link into the device, which says ENOSPC.
        let out = w.scratch.path("report.html")
        try FileManager.default.createSymbolicLink(atPath: out, withDestinationPath: "/dev/full")
        let result = try w.rollout("report", "tr-TR", "--out", out)
        XCTAssertEqual(result.status, 74, result.output)
        XCTAssertTrue(result.stderr.contains("cannot write \(out): No space left on device (ENOSPC)"), result.stderr)
        XCTAssertFalse(result.stderr.contains("Domain"), result.stderr)
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: out), "/dev/full", "the link was replaced")
    }

    func testANamedPipeIsRefusedAsAPackOrACSVWithoutHanging() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let tip = try w.stateTip()
        let fifo = w.scratch.path("export.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        for arguments in [
            ["pack", "add", fifo], ["pack", "lint", fifo], ["metrics", "ingest", "--kind", "crash", fifo],
        ] {
            // Opening a pipe nobody writes to blocks: timeout turns a hang into exit 124.
            let result = try Processes.run(
                "/usr/bin/timeout", ["20", Processes.rolloutBinary] + arguments, in: w.work, environment: w.environment)
            XCTAssertEqual(result.status, 66, "\(arguments): \(result.output)")
            XCTAssertTrue(
                result.stderr.contains("\(fifo) is a named pipe, not a regular file"), "\(arguments): \(result.stderr)")
        }
        XCTAssertEqual(try w.stateTip(), tip)
    }

    /// vi-VN@4: the example vi-VN@3 with the next content version, so pack add accepts it.
    private func nextViPack(_ w: Workspace) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.examplePack("vi-VN@3")))
        var pack = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        pack["contentVersion"] = 4
        pack["checksum"] = nil
        return try w.scratch.write("vi-VN@4.json", try JSONSerialization.data(withJSONObject: pack))
    }
}

/// A disk that is full, made as really as the machine allows, so that no test is ever skipped:
/// - `tmpfs`: the working directory (and the repository in it) on a 4 MiB tmpfs filled to the last
///   byte; writes fail with ENOSPC exactly as on a full disk. Needs mount(2) (root with
///   CAP_SYS_ADMIN), so it runs wherever that is permitted.
/// - `fileSizeLimit`: the command runs with RLIMIT_FSIZE 0 (`ulimit -f 0`, SIGXFSZ ignored), so
///   the kernel fails every write to a file with EFBIG. Needs no privilege, so it always runs.
final class FullDisk {
    enum Mechanism: String { case tmpfs, fileSizeLimit }

    static let available: [Mechanism] = canMount ? [.fileSizeLimit, .tmpfs] : [.fileSizeLimit]

    private static let canMount: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rollout-mount-probe-\(UUID().uuidString)"
        ).path
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)) != nil else {
            return false
        }
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard shell("mount -t tmpfs -o size=64k tmpfs '\(probe)'") == 0 else { return false }
        return shell("umount '\(probe)'") == 0
    }()

    let mechanism: Mechanism
    let workspace: Workspace
    private var full = false
    private var mountPoint: String?

    init(_ mechanism: Mechanism, workspace: Workspace) throws {
        self.mechanism = mechanism
        self.workspace = workspace
        if mechanism == .tmpfs {
            try FileManager.default.createDirectory(atPath: workspace.work, withIntermediateDirectories: true)
            guard Self.shell("mount -t tmpfs -o size=4m tmpfs '\(workspace.work)'") == 0 else {
                throw NSError(
                    domain: "FullDisk", code: 1,
                    userInfo: [NSLocalizedDescriptionKey: "mount failed after the probe succeeded"])
            }
            mountPoint = workspace.work
        }
    }

    deinit { release() }

    /// What the failing writes report.
    var cause: String { mechanism == .tmpfs ? "No space left on device (ENOSPC)" : "File too large (EFBIG)" }

    func fill() throws {
        full = true
        // cat stops when the disk is full (exit status 1 by design).
        if mechanism == .tmpfs { _ = Self.shell("cat /dev/zero > '\(workspace.work)/.filler' 2>/dev/null") }
    }

    func free() throws {
        full = false
        if mechanism == .tmpfs { try FileManager.default.removeItem(atPath: workspace.work + "/.filler") }
    }

    /// Mounts the tmpfs read-only or read-write again.
    func remount(readOnly: Bool) throws {
        guard let mountPoint, Self.shell("mount -o remount,\(readOnly ? "ro" : "rw") '\(mountPoint)'") == 0 else {
            throw NSError(
                domain: "FullDisk", code: 2, userInfo: [NSLocalizedDescriptionKey: "cannot remount \(workspace.work)"])
        }
    }

    func release() {
        guard let mountPoint else { return }
        _ = Self.shell("umount -l '\(mountPoint)'")
        self.mountPoint = nil
    }

    /// Runs rollout in the workspace, on the full disk while it is full.
    func rollout(_ arguments: [String]) throws -> RunResult {
        guard mechanism == .fileSizeLimit && full else { return try workspace.rollout(arguments) }
        // Output goes through pipes: the limit applies to every regular file the process writes.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments =
            ["-c", "trap '' XFSZ; ulimit -f 0 && exec \"$0\" \"$@\"", Processes.rolloutBinary] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: workspace.work)
        // Under make coverage the profile could not be written either, and the profiling runtime
        // would say so on stderr after rollout's own error: it goes nowhere (left unset, the runtime
        // would try default.profraw in the working directory, and say the same).
        process.environment = workspace.environment.merging(["LLVM_PROFILE_FILE": "/dev/null"]) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // stdout first, then stderr: the commands here say far less on stderr than a pipe holds.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    @discardableResult
    static func shell(_ script: String) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Foundation's error text ("The operation could not be completed. (NSXMLParserErrorDomain error
/// 76.)") names a framework, not the file or what is wrong with it.
final class FoundationErrorTextTests: XCTestCase {
    func testAMalformedAndroidFileNamesItsPlaceNotAFoundationDomain() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        let file = try w.scratch.write("res/values/strings.xml", "<resources><string name=\"a\">x</strin></resources>")
        let result = try w.rollout(
            "pack", "import", "--format", "android", w.scratch.path("res"), "--content-version", "2", "--dry-run")
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertTrue(result.stderr.contains("\(file):1:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("not well-formed XML"), result.stderr)
        XCTAssertFalse(result.stderr.contains("Domain"), result.stderr)
    }
}
