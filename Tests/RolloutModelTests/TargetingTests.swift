import Foundation
import XCTest

@testable import RolloutModel

final class VersionRangeTests: XCTestCase {
    func testEveryDocumentedForm() throws {
        let v = { AppVersion($0)! }
        let atLeast = try VersionRange.parse(">=4.8")
        XCTAssertTrue(atLeast.contains(v("4.8")) && atLeast.contains(v("4.10")) && !atLeast.contains(v("4.7.9")))
        let window = try VersionRange.parse(">=4.8 <5")
        XCTAssertTrue(window.contains(v("4.99")) && !window.contains(v("5")) && !window.contains(v("5.0.0")))
        let family = try VersionRange.parse("4.8.x")
        XCTAssertTrue(
            family.contains(v("4.8")) && family.contains(v("4.8.12")) && !family.contains(v("4.9"))
                && !family.contains(v("4.80")))
        let exact = try VersionRange.parse("=4.8.1")
        XCTAssertTrue(exact.contains(v("4.8.1")) && exact.contains(v("4.8.1.0")) && !exact.contains(v("4.8.2")))
        XCTAssertTrue(try VersionRange.parse("<5").contains(v("0.1")))
        XCTAssertTrue(try VersionRange.parse(">4.8").contains(v("4.8.0.1")))
        XCTAssertFalse(try VersionRange.parse(">4.8").contains(v("4.8.0")))
        XCTAssertTrue(try VersionRange.parse("*").isAll)
    }

    func testAnythingElseIsAUsageErrorQuotingTheText() {
        for text in [
            "4.8", ">=4.8-beta", "~>4.8", ">=4.8 >=4.9", ">=5 <4", ">=4.8 <4.8", "=4.8 <5", "latest", "", "4.8.x.y",
            ">= 4.8",
        ] {
            XCTAssertThrowsError(try VersionRange.parse(text), text) { error in
                guard case RolloutError.usage(let message) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(message.contains("\"\(text)\""), message)
            }
        }
    }

    func testABareVersionSuggestsBothMeanings() {
        XCTAssertThrowsError(try VersionRange.parse("4.8")) { error in
            XCTAssertTrue("\(error)".contains("=4.8 for exactly 4.8, or 4.8.x for every 4.8 release"), "\(error)")
        }
    }
}

final class PercentTests: XCTestCase {
    func testAcceptedSpellingsInBasisPoints() throws {
        let cases: [(String, Int)] = [
            ("10%", 1000), ("10", 1000), ("0.25%", 25), ("100%", 10_000), ("0", 0), ("0.5", 50), ("33.33%", 3333),
            ("1.50%", 150), ("7.000%", 700),
            // Leading zeros are not "over 100%" (issue 12): 00010% is 10%.
            ("00010%", 1000), ("0100", 10_000), ("000", 0), ("000.25%", 25),
        ]
        for (text, bp) in cases { XCTAssertEqual(try Percent.parse(text).basisPoints, bp, text) }
    }

    func testRefusals() {
        for text in [
            "150%", "-1%", "1e2%", "abc", "0.001%", "100.01%", "", "%", "10%%", " 10%", "+5", "1,5", ".5", "5.", "0x10",
            "１０",
        ] {
            XCTAssertThrowsError(try Percent.parse(text), text)
        }
        XCTAssertThrowsError(try Percent.parse("0.001%")) { XCTAssertTrue("\($0)".contains("finer than 0.01%")) }
        XCTAssertThrowsError(try Percent.parse("000101%")) { XCTAssertTrue("\($0)".contains("is over 100%")) }
    }

    func testDescription() {
        XCTAssertEqual(Percent(basisPoints: 25).description, "0.25%")
        XCTAssertEqual(Percent(basisPoints: 1050).description, "10.5%")
        XCTAssertEqual(Percent(basisPoints: 1005).description, "10.05%")
        XCTAssertEqual(Percent(basisPoints: 10_000).description, "100%")
    }
}

final class BucketingTests: XCTestCase {
    /// The vectors in docs/targeting.md, computed independently (Python hashlib) so other clients can check theirs.
    func testPublishedVectors() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/bucket-vectors.json")
        let vectors = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(vectors.count, 6)
        for vector in vectors {
            let id = try XCTUnwrap(vector["installId"] as? String)
            let salt = try XCTUnwrap(vector["salt"] as? String)
            XCTAssertEqual(Bucketing.bucket(installID: id, salt: salt), vector["bucket"] as? Int, "\(id) / \(salt)")
        }
    }

    /// Law: buckets are uniform. Chi-square over 10,000 buckets for 1,000,000 ids stays within 4 sigma of its mean.
    func testBucketsAreUniform() {
        var counts = [Int](repeating: 0, count: Bucketing.buckets)
        var ids = InstallIDGenerator(seed: 2026)
        let total = 1_000_000
        for _ in 0..<total { counts[Bucketing.bucket(installID: ids.next(), salt: "uniformity")] += 1 }
        let expected = Double(total) / Double(Bucketing.buckets)
        let chiSquare = counts.reduce(0.0) { $0 + pow(Double($1) - expected, 2) / expected }
        let degrees = Double(Bucketing.buckets - 1)
        XCTAssertLessThan(
            abs(chiSquare - degrees), 4 * (2 * degrees).squareRoot(),
            "chi-square \(chiSquare) for \(degrees) degrees of freedom")
        // And the share below 10% converges on 10%.
        let below = counts.prefix(1000).reduce(0, +)
        XCTAssertEqual(Double(below) / Double(total), 0.10, accuracy: 0.002)
    }

    /// Law: two rollouts with different salts pick independent samples: 10% and 10% overlap in about 1%.
    func testDifferentSaltsAreIndependent() {
        var ids = InstallIDGenerator(seed: 7)
        let total = 200_000
        var both = 0
        for _ in 0..<total {
            let id = ids.next()
            if Bucketing.bucket(installID: id, salt: "rollout-a") < 1000
                && Bucketing.bucket(installID: id, salt: "rollout-b") < 1000
            {
                both += 1
            }
        }
        XCTAssertEqual(Double(both) / Double(total), 0.01, accuracy: 0.0015)
    }
}

final class ResolutionTests: XCTestCase {
    let v17 = Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.8.0")!)
    let v18 = Plan.PackRef(contentVersion: 18, minAppVersion: AppVersion("4.8.0")!)
    let v16 = Plan.PackRef(contentVersion: 16, minAppVersion: AppVersion("4.0")!)

    func plan(_ share: Int, regions: [String] = ["TR"], versions: String = ">=4.8", blocked: [Int] = []) throws -> Plan
    {
        Plan(
            locale: "tr-TR", baseline: v17, previousBaselines: [v16],
            rules: [
                Plan.Rule(
                    pack: v18, regions: regions, versions: try VersionRange.parse(versions),
                    share: Percent(basisPoints: share), salt: "s1")
            ],
            blocked: blocked)
    }

    func testGrowingAShareNeverMovesADeviceOut() throws {
        var ids = InstallIDGenerator(seed: 11)
        let devices = (0..<20_000).map { _ in ids.next() }
        var previous: Set<String> = []
        for share in [100, 500, 1000, 2500, 5000, 10_000] {
            let p = try plan(share)
            let inside = Set(
                devices.filter {
                    Resolution.outcome(p, region: "TR", appVersion: AppVersion("4.8.1"), installID: $0) == .pack(18)
                })
            XCTAssertTrue(previous.isSubset(of: inside), "a device left the rollout when it grew to \(share) bp")
            XCTAssertEqual(Double(inside.count) / Double(devices.count), Double(share) / 10_000, accuracy: 0.012)
            previous = inside
        }
    }

    func testDevicesOutsideTheTargetingGetTheBaseline() throws {
        let p = try plan(10_000)
        XCTAssertEqual(Resolution.outcome(p, region: "DE", appVersion: AppVersion("4.9"), installID: "x"), .pack(17))
        XCTAssertEqual(Resolution.outcome(p, region: "TR", appVersion: AppVersion("4.9"), installID: "x"), .pack(18))
    }

    func testOldAppsKeepTheNewestBaselineTheyCanRunOrBundled() throws {
        let p = try plan(10_000, versions: "*")
        // 4.7 is below tr-TR@18's and tr-TR@17's minAppVersion: the earlier baseline tr-TR@16 (4.0) remains.
        let old = Resolution.resolve(p, region: "TR", appVersion: AppVersion("4.7"), installID: "x")
        XCTAssertEqual(old.outcome, .pack(16))
        XCTAssertTrue(old.trace[0].contains("below its minAppVersion 4.8.0"), "\(old.trace)")
        XCTAssertEqual(Resolution.outcome(p, region: "TR", appVersion: AppVersion("3.9"), installID: "x"), .bundled)
    }

    func testBlockedVersionsAreNeverServed() throws {
        let p = try plan(10_000, blocked: [18, 17])
        XCTAssertEqual(Resolution.outcome(p, region: "TR", appVersion: AppVersion("4.9"), installID: "x"), .pack(16))
    }

    func testUnparsableAppVersionsMatchNothing() throws {
        XCTAssertEqual(
            Resolution.outcome(try plan(10_000), region: "TR", appVersion: AppVersion("4.9-beta"), installID: "x"),
            .bundled)
    }

    func testTheMostSpecificRuleDecides() throws {
        // TR at 0% and everyone at 100%: TR devices stay on the baseline.
        var p = try plan(0)
        p.setRules(p.rules + [Plan.Rule(pack: v18, regions: [], versions: .all, share: .full, salt: "s1")])
        XCTAssertEqual(p.rules.first?.regions, ["TR"], "region-specific rules come first")
        XCTAssertEqual(Resolution.outcome(p, region: "TR", appVersion: AppVersion("4.9"), installID: "x"), .pack(17))
        XCTAssertEqual(Resolution.outcome(p, region: "VN", appVersion: AppVersion("4.9"), installID: "x"), .pack(18))
    }

    func testPlansRoundTripThroughJSON() throws {
        var p = try plan(1234, regions: ["VN", "TR"], versions: ">=4.8 <5", blocked: [15])
        p.lastChange = Plan.LastChange(
            action: "promote", actor: "Ana <ana@example.com>", time: Timestamp(seconds: 1_800_000_000), reason: "typo")
        XCTAssertEqual(try Plan.parse(JSONWriter.pretty(p.jsonValue), source: "p"), p)
        XCTAssertEqual(p.rules[0].regions, ["TR", "VN"])
    }
}

final class SegmentSharesTests: XCTestCase {
    func testPiecesSplitWhereRulesAndMinAppVersionsDo() throws {
        let p = Plan(
            locale: "tr-TR", baseline: Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.0")!),
            rules: [
                Plan.Rule(
                    pack: Plan.PackRef(contentVersion: 18, minAppVersion: AppVersion("4.8.2")!), regions: ["TR"],
                    versions: try VersionRange.parse(">=4.8"), share: Percent(basisPoints: 1000), salt: "s")
            ])
        let pieces = SegmentShares.of(p, region: "TR", versions: .prefix(AppVersion("4.8")!)).pieces
        XCTAssertEqual(pieces.map(\.versions), [">=4.8 <4.8.2", ">=4.8.2 <4.9"])
        XCTAssertEqual(pieces.map { $0.describe(locale: "tr-TR") }, ["tr-TR@17 100%", "tr-TR@17 90%, tr-TR@18 10%"])
        XCTAssertEqual(
            SegmentShares.of(p, region: "DE", versions: .prefix(AppVersion("4.8")!)).pieces.map {
                $0.describe(locale: "tr-TR")
            }, ["tr-TR@17 100%"])
    }

    func testAnInclusiveUpperBoundEndsItsPiece() throws {
        let p = Plan(
            locale: "tr-TR", baseline: Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.0")!),
            rules: [
                Plan.Rule(
                    pack: Plan.PackRef(contentVersion: 18, minAppVersion: AppVersion("4.0")!), regions: ["TR"],
                    versions: try VersionRange.parse("=4.8.1"), share: Percent(basisPoints: 1000), salt: "s")
            ])
        let pieces = SegmentShares.of(p, region: "TR", versions: .prefix(AppVersion("4.8")!)).pieces
        XCTAssertEqual(
            pieces.map { $0.describe(locale: "tr-TR") },
            ["tr-TR@17 100%", "tr-TR@17 90%, tr-TR@18 10%", "tr-TR@17 100%"])
        XCTAssertEqual(Resolution.outcome(p, region: "TR", appVersion: AppVersion("4.8.2"), installID: "x"), .pack(17))
    }

    func testSimulationConvergesOnTheExpectedShares() throws {
        let p = Plan(
            locale: "tr-TR", baseline: Plan.PackRef(contentVersion: 17, minAppVersion: AppVersion("4.0")!),
            rules: [
                Plan.Rule(
                    pack: Plan.PackRef(contentVersion: 18, minAppVersion: AppVersion("4.0")!), regions: ["TR"],
                    versions: .all, share: Percent(basisPoints: 2500), salt: "s")
            ])
        let results = Simulation.run(p, mix: Simulation.defaultMix(for: p, otherRegion: "US"), devices: 40_000, seed: 3)
        XCTAssertEqual(results.reduce(0) { $0 + $1.devices }, 40_000)
        for result in results {
            for (outcome, bp) in result.expected {
                let simulated = Double(result.counts[outcome] ?? 0) / Double(result.devices)
                XCTAssertEqual(simulated, Double(bp) / 10_000, accuracy: 0.02, "\(result.segment.label) \(outcome)")
            }
        }
    }
}
