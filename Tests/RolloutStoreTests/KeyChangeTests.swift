import RolloutCrypto
import RolloutModel
import XCTest

@testable import RolloutStore

/// The key list changes as pure functions (the end-to-end tests drive them through `rollout keys`
/// and a real repository): what each keeps, what it changes, and what it refuses.
final class KeyChangeTests: XCTestCase {
    let start = Timestamp(iso8601: "2026-12-01T09:00:00Z")!
    let later = Timestamp(iso8601: "2026-12-10T09:00:00Z")!
    let root = try! Ed25519.PrivateKey.generate().publicKey
    let first = try! Ed25519.PrivateKey.generate().publicKey
    let second = try! Ed25519.PrivateKey.generate().publicKey

    func year(after time: Timestamp) -> Timestamp {
        Timestamp(seconds: time.seconds + KeyOperations.defaultPublishingLifetime)
    }

    func version1() throws -> KeyList {
        try KeyChange.initialize(roots: [root], threshold: 1, publishing: first, expires: year(after: start)).applied(
            to: nil, now: start)
    }

    /// What the change refused, as the store says it (the command line words it: RefusalWordingTests).
    func refusal(_ body: () throws -> Any) -> KeyRefusal? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? KeyRefusal
        }
    }

    func testInitMakesVersion1WithItsRootChange() throws {
        let list = try version1()
        XCTAssertEqual(list.version, 1)
        XCTAssertEqual(list.rootChanges, [1])
        XCTAssertEqual(list.roots.ids, [root.keyID])
        XCTAssertEqual(list.publishing[first.keyID]?.created, start)
        XCTAssertNil(list.problem)
        XCTAssertEqual(
            refusal {
                try KeyChange.initialize(roots: [root], threshold: 1, publishing: first, expires: start).applied(
                    to: list, now: start)
            }, .alreadyInitialized(version: 1))
    }

    func testEveryOtherChangeNeedsAList() {
        for change in [
            KeyChange.rotate(adding: second, expires: later, retireBy: start), .revoke(key: first.keyID, reason: "x"),
            .rotateRoot(newRoots: [second], keep: [], threshold: nil),
        ] {
            XCTAssertEqual(refusal { try change.applied(to: nil, now: start) }, .noKeyList, "\(change.event)")
        }
    }

    func testRotateRetiresOldKeysNoLaterThanTheirOwnExpiry() throws {
        let list = try version1()
        let overlap = try KeyChange.rotate(adding: second, expires: year(after: later), retireBy: later).applied(
            to: list, now: start)
        XCTAssertEqual(overlap.version, 2)
        XCTAssertEqual(overlap.publishing[first.keyID]?.expires, later)
        XCTAssertEqual(overlap.publishing[second.keyID]?.created, start)
        let third = try Ed25519.PrivateKey.generate().publicKey
        // A retire time past a key's own expiry never lengthens it.
        let again = try KeyChange.rotate(adding: third, expires: year(after: later), retireBy: year(after: later))
            .applied(to: overlap, now: start)
        XCTAssertEqual(again.publishing[first.keyID]?.expires, later)
        XCTAssertEqual(again.rootChanges, [1], "a publishing key change is no root change")
    }

    func testRevokeMovesAPublishingKeyForGoodAndRefusesRootsAndRepeats() throws {
        let list = try KeyChange.rotate(adding: second, expires: year(after: start), retireBy: start).applied(
            to: try version1(), now: start)
        let revoked = try KeyChange.revoke(key: String(first.keyID.prefix(8)), reason: "laptop\nlost").applied(
            to: list, now: later)
        XCTAssertNil(revoked.publishing[first.keyID])
        XCTAssertEqual(revoked.revoked[first.keyID], KeyList.Revocation(time: later, reason: "laptop lost"))
        XCTAssertNil(revoked.problem)
        XCTAssertEqual(
            refusal { try KeyChange.revoke(key: first.keyID, reason: "x").applied(to: revoked, now: later) },
            .alreadyRevoked(id: first.keyID, reason: "laptop lost", time: later))
        XCTAssertEqual(
            refusal { try KeyChange.revoke(key: root.keyID, reason: "x").applied(to: revoked, now: later) },
            .revokingARoot(id: root.keyID))
    }

    func testAKeyIDIsItsFullTextOrAUniqueStartOfEightHexDigits() throws {
        let list = try version1()
        XCTAssertEqual(try KeyChange.resolve(first.keyID, in: list), first.keyID)
        XCTAssertEqual(try KeyChange.resolve(first.keyID.prefix(8).uppercased(), in: list), first.keyID)
        for short in ["", String(first.keyID.prefix(7)), first.keyID + "0", "zzzzzzzz"] {
            XCTAssertEqual(refusal { try KeyChange.resolve(short, in: list) }, .shortKeyID(short), short)
        }
        XCTAssertEqual(
            refusal { try KeyChange.resolve("0000000000000000", in: list) }, .unknownKey("0000000000000000", version: 1)
        )
        var crowded = list
        let a = "abcdef0100000000"
        let b = "abcdef0199999999"
        crowded.revoked = [a: .init(time: start, reason: ""), b: .init(time: start, reason: "")]
        XCTAssertEqual(
            refusal { try KeyChange.resolve("abcdef01", in: crowded) }, .ambiguousKey("abcdef01", matches: [a, b]))
        XCTAssertEqual(try KeyChange.resolve("abcdef019", in: crowded), b)
    }

    func testRotateRootRecordsTheChangeAndKeepsTheThresholdReachable() throws {
        let list = try KeyChange.initialize(roots: [root, second], threshold: 2, publishing: first, expires: later)
            .applied(to: nil, now: start)
        let fresh = try Ed25519.PrivateKey.generate().publicKey
        let replaced = try KeyChange.rotateRoot(newRoots: [fresh], keep: [], threshold: nil).applied(
            to: list, now: start)
        XCTAssertEqual(replaced.roots.ids, [fresh.keyID])
        XCTAssertEqual(replaced.roots.threshold, 1, "the old threshold of 2, capped at the one new root")
        XCTAssertEqual(replaced.rootChanges, [1, 2])
        let kept = try KeyChange.rotateRoot(newRoots: [fresh], keep: [String(root.keyID.prefix(9))], threshold: nil)
            .applied(to: list, now: start)
        XCTAssertEqual(Set(kept.roots.ids), [fresh.keyID, root.keyID])
        XCTAssertEqual(kept.roots.threshold, 2)
        XCTAssertEqual(
            refusal {
                try KeyChange.rotateRoot(newRoots: [fresh], keep: [first.keyID], threshold: nil).applied(
                    to: list, now: start)
            }, .keptNotARoot(first.keyID, version: 1, roots: list.roots.ids))
    }

    func testTheCommitNamesTheKeysWhoseRoleChanged() throws {
        let list = try version1()
        let rotated = try KeyChange.rotate(adding: second, expires: later, retireBy: start).applied(
            to: list, now: start)
        let prepared = KeyOperations.Prepared(
            event: .rotate, list: rotated, previous: list,
            file: SignedFile(path: "keys/2.json", bytes: [], signatures: []), signers: [])
        XCTAssertEqual(prepared.keyIDs, [second.keyID])
        let fresh = try Ed25519.PrivateKey.generate().publicKey
        let rerooted = try KeyChange.rotateRoot(newRoots: [fresh], keep: [], threshold: nil).applied(
            to: rotated, now: start)
        let rootPrepared = KeyOperations.Prepared(
            event: .rotateRoot, list: rerooted, previous: rotated,
            file: SignedFile(path: "keys/3.json", bytes: [], signatures: []), signers: [])
        XCTAssertEqual(rootPrepared.keyIDs, [fresh.keyID], "the replaced root is not named")
    }

    func testListingShowsStatusAsOfNow() throws {
        let list = try KeyChange.rotate(adding: second, expires: year(after: start), retireBy: later).applied(
            to: try version1(), now: start)
        let rows = KeyListing.rows(of: list, now: start)
        XCTAssertEqual(rows.map(\.role), [.root, .publishing, .publishing])
        XCTAssertEqual(
            Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.status) })[first.keyID], "expires in 9 days")
        XCTAssertEqual(
            KeyListing.rows(of: list, now: later).first { $0.id == first.keyID }?.status, "retired (expired)")
        let revoked = try KeyChange.revoke(key: first.keyID, reason: "leak").applied(to: list, now: start)
        XCTAssertEqual(KeyListing.rows(of: revoked, now: start).last?.status, "revoked: leak")
    }
}
