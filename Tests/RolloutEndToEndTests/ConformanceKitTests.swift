import Foundation
import RolloutModel
import XCTest

/// The conformance kit a port proves itself with (docs/conformance.md): what rollout writes is what
/// is committed, an independent Python check agrees with it, and the chain of a locale the index
/// does not list is the same for `resolve`, the published index and verify-site.
final class ConformanceKitTests: XCTestCase {
    static let committed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/conformance").path

    func testRolloutWritesExactlyTheCommittedVectors() throws {
        let w = try Workspace()
        let result = try w.rollout("conformance", "write", w.scratch.path("vectors"), "--json")
        XCTAssertEqual(result.status, 0, result.output)
        let names = try XCTUnwrap(try w.json(result)["files"] as? [String])
        XCTAssertGreaterThanOrEqual(names.count, 9)
        for name in names {
            let written = FileManager.default.contents(atPath: w.scratch.path("vectors/\(name)"))
            let committed = FileManager.default.contents(atPath: Self.committed + "/" + name)
            XCTAssertNotNil(
                committed,
                "\(name) is written but not committed: run rollout conformance write Tests/Fixtures/conformance")
            XCTAssertEqual(
                written, committed,
                "\(name) differs from the committed vectors: run rollout conformance write Tests/Fixtures/conformance")
        }
    }

    func testAnIndependentPythonCheckAgreesWithEveryVectorAndCatchesAWrongOne() throws {
        let w = try Workspace()
        let check = Self.committed + "/check.py"
        let good = try Processes.run(
            "/usr/bin/env", ["python3", check, Self.committed], in: w.root, environment: w.environment)
        XCTAssertEqual(good.status, 0, good.output)
        XCTAssertTrue(good.stdout.contains("signatures.json: 17 signatures (openssl)"), good.output)
        XCTAssertTrue(good.stdout.contains("trust.json: 53 cases (openssl)"), good.output)
        XCTAssertTrue(good.stdout.hasSuffix("ok\n"), good.output)

        // A copy with one bucket, one signature verdict and one trust outcome wrong, and two devices
        // changed (no minimum key list version; other roots recorded at acceptance): the check names each.
        let copy = w.scratch.path("copy")
        try FileManager.default.copyItem(atPath: Self.committed, toPath: copy)
        var buckets = try String(contentsOfFile: copy + "/bucketing.json", encoding: .utf8)
        buckets = buckets.replacingOccurrences(of: "\"bucket\": 4441,", with: "\"bucket\": 4442,")
        try buckets.write(toFile: copy + "/bucketing.json", atomically: true, encoding: .utf8)
        var signatures = try String(contentsOfFile: copy + "/signatures.json", encoding: .utf8)
        let verdict = try XCTUnwrap(signatures.range(of: "\"valid\": true"))
        signatures.replaceSubrange(verdict, with: "\"valid\": false")
        try signatures.write(toFile: copy + "/signatures.json", atomically: true, encoding: .utf8)
        var trust = try String(contentsOfFile: copy + "/trust.json", encoding: .utf8)
        let outcome = try XCTUnwrap(trust.range(of: "\"refused\": \"index-expired\""))
        trust.replaceSubrange(outcome, with: "\"refused\": \"expired-key\"")
        let minimum = try XCTUnwrap(trust.range(of: "\"minimumKeysVersion\": 2"))
        trust.replaceSubrange(minimum, with: "\"minimumKeysVersion\": 0")
        let anchored = try XCTUnwrap(trust.range(of: "\"anchoredTo\": {"))
        let threshold = try XCTUnwrap(trust.range(of: "\"threshold\": 1", range: anchored.upperBound..<trust.endIndex))
        trust.replaceSubrange(threshold, with: "\"threshold\": 2")
        try trust.write(toFile: copy + "/trust.json", atomically: true, encoding: .utf8)
        let bad = try Processes.run(
            "/usr/bin/env", ["python3", copy + "/check.py", copy], in: w.root, environment: w.environment)
        XCTAssertEqual(bad.status, 1, bad.output)
        XCTAssertTrue(bad.stdout.contains("got 4441, the vector says 4442"), bad.output)
        XCTAssertTrue(bad.stdout.contains("signatures.json: good: got True"), bad.output)
        XCTAssertTrue(
            bad.stdout.contains("trust.json: expired index: a frozen site: got {'refused': 'index-expired'"), bad.output
        )
        XCTAssertTrue(
            bad.stdout.contains(
                "trust.json: below the minimum key list version built into the app: a fresh install shown the list from before a revocation: got {'accepted'"
            ), bad.output)
        XCTAssertTrue(
            bad.stdout.contains(
                "trust.json: built-in roots as recorded: the held list's roots count: got {'refused': 'not-signed-by-trusted-roots'"
            ), bad.output)
    }

    /// tr's kill switch ends the chain of tr devices, but a tr-CY device (no plan of its own) reads
    /// tr as a fallback and goes on to en-US, like a tr-TR device: the index carries that chain.
    func testAnUnlistedLocaleFollowsTheChainTheIndexCarriesEvenWhenItsShorterFormIsKilled() throws {
        let w = try Workspace()
        try w.initWithExamples()
        for id in ["en-US@1", "tr@1", "tr-TR@17"] {
            XCTAssertEqual(try w.rollout("promote", id, "--to", "100%").status, 0)
        }
        let killed = try w.rollout("revert", "tr", "--to", "bundled", "--reason", "drill")
        XCTAssertEqual(killed.status, 0, killed.output)
        let keys = try w.json(try w.rollout("keys", "generate", "--out", w.scratch.path("signing.key"), "--json"))
        let publicKey = try XCTUnwrap(keys["publicKey"] as? String)
        let published = try w.rollout(
            "publish", "--out", w.scratch.path("site"), "--key", w.scratch.path("signing.key"))
        XCTAssertEqual(published.status, 0, published.output)

        let indexBytes = try XCTUnwrap(FileManager.default.contents(atPath: w.scratch.path("site/index.json")))
        let index = try SiteIndex.parse([UInt8](indexBytes), source: "index.json")
        XCTAssertEqual(index.locales["tr"]?.chain, ["tr"])
        XCTAssertEqual(index.locales["tr"]?.fallbackChain, ["tr", "en-US"])
        XCTAssertNil(index.locales["tr-TR"]?.fallbackChain, "written only for a kill-switched locale")
        XCTAssertEqual(index.chain(for: "tr-CY"), ["tr", "en-US"])
        XCTAssertEqual(index.chain(for: "tr"), ["tr"])
        XCTAssertEqual(index.chain(for: "de-DE"), ["en-US"])

        for (locale, expected) in [
            ("tr-CY", ["tr", "en-US"]), ("tr", ["tr"]), ("de-DE", ["en-US"]), ("tr-TR", ["tr-TR", "tr", "en-US"]),
        ] {
            let resolved = try w.rollout(
                "resolve", "--locale", locale, "--region", "CY", "--app-version", "4.8.1", "--install-id", "x", "--json"
            )
            XCTAssertEqual(resolved.status, 0, resolved.output)
            let steps = try XCTUnwrap(try w.json(resolved)["chain"] as? [[String: Any]])
            XCTAssertEqual(steps.compactMap { $0["locale"] as? String }, expected, "rollout resolve --locale \(locale)")
            XCTAssertEqual(index.chain(for: locale), expected, "the index's chain for \(locale)")
        }
        let verified = try w.rollout("verify-site", w.scratch.path("site"), "--public-key", publicKey)
        XCTAssertEqual(verified.status, 0, verified.output)
    }
}
