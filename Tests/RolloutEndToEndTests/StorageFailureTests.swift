import Foundation
import XCTest

/// A device whose cache cannot be written refuses the refresh as `storage-failed` (docs/conformance.md,
/// "Failure reasons"), says so in `rollout device refresh --json`, and keeps what it had.
final class StorageFailureTests: XCTestCase {
    func testARefreshOnAFullDiskIsStorageFailedAndTheDeviceKeepsItsPacks() throws {
        let world = try DeviceWorld()
        try world.update("phone")
        XCTAssertEqual(try world.activePack("phone"), "tr-TR@17")
        try world.rollout("promote", "tr-TR@18", "--to", "100%", "--force", "--reason", "typo fix")
        try world.publish()

        let disk = try FullDisk(.fileSizeLimit, workspace: world.w)
        defer { disk.release() }
        try disk.fill()
        let arguments = [
            "device", "--state", world.w.scratch.path("devices/phone"), "--site", world.site, "--public-key",
            world.publicKey, "--bundled", world.bundled, "--locale", "tr-TR", "--region", "TR", "--app-version",
            "4.8.1",
            "--install-id", "install-phone", "refresh", "--force", "--json",
        ]
        let full = try disk.rollout(arguments)
        XCTAssertEqual(full.status, 1, full.output)
        let json = try world.w.json(full)
        XCTAssertEqual(json["result"] as? String, "failed", full.stdout)
        XCTAssertEqual(json["reason"] as? String, "storage-failed", full.stdout)
        // The file and strerror's words: "File too large" under the file size limit.
        let message = json["message"] as? String ?? ""
        XCTAssertTrue(message.contains("state.json") && message.contains("File too large"), full.stdout)

        try disk.free()
        XCTAssertEqual(try world.activePack("phone"), "tr-TR@17", "nothing changed on the full disk")
        let roomy = try world.w.rollout(arguments)
        XCTAssertEqual(try world.w.json(roomy)["result"] as? String, "staged", roomy.output)
    }
}
