import CGit2
import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// Issue 31, item 4: the one mapping of a libgit2 failure to what a person reads sends every read
/// of a damaged object store (object database, zlib, hash mismatch) to exit 65 naming the damage
/// and `rollout verify`, never to 70; a failing disk stays 74, and what is not damage stays a bug.
final class RepositoryDamageMappingTests: XCTestCase {
    private func error(_ code: Int32, _ errorClass: UInt32, _ message: String) -> GitError {
        GitError(
            code: code, errorClass: Int32(errorClass), message: message, operation: "reading commit 93e76ca32b60",
            repository: "/srv/app/.rollout/")
    }

    func testEveryReadOfADamagedObjectStoreIsDamageNotABug() {
        let damaged = [
            error(GIT_ENOTFOUND.rawValue, GIT_ERROR_ODB.rawValue, "object not found - no match for id (93e76ca32b60)"),
            error(-1, GIT_ERROR_ODB.rawValue, "failed to read pack index"),
            error(-1, GIT_ERROR_ZLIB.rawValue, "invalid distance too far back"),
            error(GIT_EMISMATCH.rawValue, GIT_ERROR_INVALID.rawValue, "object hash mismatch"),
        ]
        for failure in damaged {
            let mapped = failure.rolloutError
            XCTAssertEqual(mapped.exitCode, 65, failure.message)
            XCTAssertEqual(
                mapped.message,
                "the repository /srv/app/.rollout is damaged: reading commit 93e76ca32b60 failed: \(failure.message); "
                    + "run rollout verify to list the damage, then restore the repository from a clone or a backup")
            XCTAssertTrue(mapped.isRepositoryDamage)
            XCTAssertEqual(mapped.damage, "reading commit 93e76ca32b60 failed: \(failure.message)")
        }
    }

    func testADiskFailureStaysAnIOErrorAndOtherFailuresStayBugs() {
        XCTAssertEqual(error(-1, GIT_ERROR_OS.rawValue, "failed to read: Input/output error").rolloutError.exitCode, 74)
        // A pack a remote sends that does not index is the remote's, not damage here.
        XCTAssertEqual(error(-1, GIT_ERROR_INDEXER.rawValue, "bad pack header").rolloutError.exitCode, 70)
        XCTAssertFalse(RolloutError.badInput("the repository was damaged by nobody").isRepositoryDamage)
    }
}
