import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// One mapping for failures of the disk: what a person reads never says "bug" or a Foundation
/// error domain, and always names the path and the cause.
final class IOErrorMappingTests: XCTestCase {
    func testAFullDiskUnderLibgit2IsAnIOErrorNamingTheRepository() {
        let error = GitError(
            code: -1, errorClass: 2, message: "failed to write out file: No space left on device",
            operation: "writing a blob",
            repository: "/srv/rollout/.rollout/")
        XCTAssertEqual(error.rolloutError.exitCode, 74)
        XCTAssertEqual(error.rolloutError.code, "io-error")
        XCTAssertEqual(
            error.rolloutError.message,
            "I/O error in the repository /srv/rollout/.rollout while writing a blob: No space left on device (ENOSPC); free space on that disk and run the command again"
        )
    }

    func testAWriteLibgit2LeavesUnexplainedIsToldByErrno() {
        let error = GitError(
            code: -1, errorClass: 0, message: "unknown error", operation: "writing a blob", repository: "/r",
            systemErrno: EDQUOT)
        XCTAssertEqual(error.rolloutError.exitCode, 74)
        XCTAssertTrue(error.rolloutError.message.contains("(EDQUOT)"), error.rolloutError.message)
    }

    func testOtherLibgit2FailuresStayBugs() {
        let error = GitError(
            code: -3, errorClass: 4, message: "reference 'refs/heads/x' not found", operation: "reading x",
            systemErrno: ENOSPC)
        XCTAssertEqual(error.rolloutError.exitCode, 70)
    }

    func testFoundationFileErrorsBecomeTheirPOSIXCause() {
        let underlying = NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))
        let cocoa = NSError(domain: NSCocoaErrorDomain, code: 512, userInfo: [NSUnderlyingErrorKey: underlying])
        let mapped = RolloutError.fileFailure("write", "site/index.json", error: cocoa)
        XCTAssertEqual(
            mapped,
            .io(
                "cannot write site/index.json: No space left on device (ENOSPC); free space on that disk and run the command again"
            ))
        let bare = RolloutError.fileFailure(
            "write", "site/index.json", error: NSError(domain: NSCocoaErrorDomain, code: 512))
        XCTAssertEqual(bare.exitCode, 74)
        XCTAssertFalse(bare.message.contains("Domain") || bare.message.contains("512"), bare.message)
        XCTAssertEqual(RolloutError.fileFailure("read", "a.csv", errno: ENOENT).exitCode, 66)
        XCTAssertEqual(RolloutError.fileFailure("read", "a.csv", errno: EACCES).exitCode, 66)
        XCTAssertEqual(RolloutError.fileFailure("write", "a.csv", errno: EACCES).exitCode, 74)
        XCTAssertEqual(
            RolloutError.fileFailure("write", "a.csv", errno: EROFS).message,
            "cannot write a.csv: Read-only file system (EROFS); the file system is mounted read-only; remount it read-write or use another path"
        )
    }
}
