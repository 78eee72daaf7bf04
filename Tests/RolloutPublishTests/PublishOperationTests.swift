import Foundation
import RolloutCrypto
import RolloutModel
import RolloutPublish
import RolloutStore
import XCTest

/// A repository in a temporary directory with en-US@1 as the baseline, and a key made for the test:
/// what `rollout publish` starts from, reached through the library with no process.
private final class PublishWorld {
    static let now = Timestamp(iso8601: "2026-12-01T09:00:00Z")!

    let root: String
    let repository: PackRepository
    let key: Ed25519.PrivateKey
    var site: String { root + "/site" }

    init() throws {
        root =
            FileManager.default.temporaryDirectory.appendingPathComponent("rollout-publish-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let actor = try Actor(validating: "Test Runner", email: "test@example.com", from: "the test")
        (repository, _) = try PackRepository.create(
            at: root + "/repo", files: RepositoryTemplate.files, actor: actor, time: Self.now)
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("examples/packs/en-US@1.json").path
        let parsed = try PackParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: examples))), source: examples)
        let input = PackInput(source: examples, parsed: parsed)
        _ = try PackOperations.add(
            [input], to: repository, options: LintOptions(), reason: nil, actor: actor, time: { Self.now })
        let baseline = PromoteRequest(
            pack: parsed.pack.id, share: .full, regions: nil, versions: nil, reason: "baseline")
        _ = try PlanOperations.promote(
            baseline, in: repository, override: nil, actor: actor, time: { Self.now },
            health: { _, _ in nil })
        key = try Ed25519.PrivateKey.generate()
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    @discardableResult
    func publish() throws -> PublishOperation.Outcome {
        let actor = try Actor(validating: "Publisher", email: "publish@example.com", from: "the test")
        return try PublishOperation.publish(
            .init(directory: site, destination: site, key: key), in: repository, actor: actor, time: { Self.now })
    }

    /// What a device pinned to `key` would find wrong with the site.
    func problems(pinnedTo key: Ed25519.PublicKey? = nil) throws -> [String] {
        let verifier = SiteVerifier(directory: site, trust: .pinned(key ?? self.key.publicKey), now: Self.now)
        return verifier.verify(against: try repository.snapshot()).problems.map {
            guard case .said(let text) = $0 else { return "\($0)" }
            return text
        }
    }

    /// The site's files under `directory` (relative paths), sorted.
    func files(under directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: site + "/" + directory).sorted().map {
            directory + "/" + $0
        }
    }

    func change(_ relative: String, _ edit: (inout [UInt8]) -> Void) throws {
        let url = URL(fileURLWithPath: site + "/" + relative)
        var bytes = [UInt8](try Data(contentsOf: url))
        edit(&bytes)
        try Data(bytes).write(to: url)
    }
}

/// `rollout publish` and `rollout verify-site` as library calls (docs/manifest.md): the site a
/// publish writes is one a device accepts, and a file changed after publishing is refused, naming it.
final class PublishOperationTests: XCTestCase {
    func testAPublishedSiteVerifiesAsAPinnedDeviceWouldReadIt() throws {
        let world = try PublishWorld()
        let outcome = try world.publish()
        XCTAssertTrue(outcome.report.written.contains(SiteLayout.index), "\(outcome.report.written)")
        XCTAssertTrue(outcome.report.written.contains(SiteLayout.manifest("en-US")), "\(outcome.report.written)")
        XCTAssertNotNil(outcome.record, "the publish is recorded in the history")
        XCTAssertEqual(try world.problems(), [])
        XCTAssertEqual(try world.files(under: "packs/en-US").count, 1, "the one pack the plan names")
    }

    func testAPackChangedOnTheSiteIsRefusedNamingItsManifest() throws {
        let world = try PublishWorld()
        try world.publish()
        let pack = try XCTUnwrap(try world.files(under: "packs/en-US").first)
        // One byte changed in place: the size the manifest states, not the sha256.
        try world.change(pack) { $0[$0.count / 2] ^= 0x01 }
        let problems = try world.problems()
        XCTAssertTrue(
            problems.contains("\(pack): its bytes do not match the size and sha256 in \(SiteLayout.manifest("en-US"))"),
            "\(problems)")
        // One byte more: past the size the manifest states, where a device stops reading.
        try world.change(pack) { $0 += Array(" ".utf8) }
        let grown = try world.problems()
        XCTAssertTrue(
            grown.contains { $0.hasPrefix("\(pack): larger than ") && $0.hasSuffix("(too-large)") }, "\(grown)")
    }

    func testAnIndexChangedOnTheSiteFailsItsSignature() throws {
        let world = try PublishWorld()
        try world.publish()
        try world.change(SiteLayout.index) { $0 += Array("\n".utf8) }
        let problems = try world.problems()
        let refusal =
            "\(SiteLayout.index): the signature in \(SiteLayout.signature(of: SiteLayout.index)) does not verify"
        XCTAssertTrue(problems.contains { $0.hasPrefix(refusal) }, "\(problems)")
    }

    func testADeviceThatPinsAnotherKeyTrustsNothingOnTheSite() throws {
        let world = try PublishWorld()
        try world.publish()
        let other = try Ed25519.PrivateKey.generate().publicKey
        let problems = try world.problems(pinnedTo: other)
        XCTAssertTrue(problems.contains { $0.contains("does not verify with \(other)") }, "\(problems)")
    }

    func testPublishingTheSameStateAgainRewritesNoPack() throws {
        let world = try PublishWorld()
        try world.publish()
        let again = try world.publish().report
        XCTAssertFalse(again.written.contains { $0.hasPrefix("packs/") }, "packs are immutable: \(again.written)")
        XCTAssertEqual(again.removed, [])
        XCTAssertEqual(try world.problems(), [])
    }
}
