import XCTest

@testable import RolloutModel

/// The log index asks every change in the history which regions it altered, through fast paths that
/// must give exactly what the general forms (`SegmentShares.changes`, the plan parser) give.
final class SegmentShareFastPathTests: XCTestCase {
    func testTheRegionsAChangeAlteredAreTheRegionsOfItsChangedPieces() {
        var generator = SplitMix64(seed: 17)
        var altered = 0
        for _ in 0..<1_000 {
            let before = RandomPlan.make(&generator)
            var after = generator.next() % 3 == 0 ? RandomPlan.make(&generator) : RandomPlan.mutate(before, &generator)
            if generator.next() % 8 == 0 {
                // Only the note and sequence move (a change that alters no targeting).
                after = before
                after.sequence += 1
                after.lastChange = Plan.LastChange(
                    action: "promote", actor: "a", time: Timestamp(seconds: 1), reason: nil)
            }
            var expected: [String] = []
            for piece in SegmentShares.changes(from: before, to: after) where !expected.contains(piece.after.regions) {
                expected.append(piece.after.regions)
            }
            XCTAssertEqual(
                SegmentShares.regionsChanged(from: before, to: after), expected,
                "\(before.jsonValue) -> \(after.jsonValue)")
            if !expected.isEmpty { altered += 1 }
        }
        // Both kinds of change are exercised: some alter nothing, most alter some region.
        XCTAssertGreaterThan(altered, 300)
        XCTAssertLessThan(altered, 1_000)
    }

    func testSharesAtAPointAreTheSharesOfEachOutcomeLargestFirst() {
        var generator = SplitMix64(seed: 18)
        let versions = ["0", "4.0", "4.8", "4.8.0.1", "4.8.1", "4.9", "5", "5.1"].map { AppVersion($0)! }
        for _ in 0..<400 {
            let plan = RandomPlan.make(&generator)
            for region in [nil, "TR", "DE", "US", "BR"] as [String?] {
                for version in versions {
                    let shares = SegmentShares.sharesAt(plan, regionCode: region, version: version)
                    let expected = RandomPlan.sharesByDictionary(plan, regionCode: region, version: version)
                    XCTAssertEqual(shares.map(\.outcome), expected.map(\.outcome))
                    XCTAssertEqual(shares.map(\.basisPoints), expected.map(\.basisPoints))
                }
            }
        }
    }
}

/// Random plans over a few regions, ranges and packs, so that rules overlap, shadow, get blocked,
/// withdrawn and outgrown by minAppVersion.
enum RandomPlan {
    static let regions = ["TR", "DE", "US", "BR"]
    static let ranges = [">=4.8", "*", ">=5", "4.9.x", ">=4.8 <5", "<4.9", ">4.8", "=4.8.1", "4.8.x"]
    static let minimums = ["4.0", "4.8", "4.9", "5"]

    static func pick<T>(_ items: [T], _ generator: inout SplitMix64) -> T {
        items[Int(generator.next() % UInt64(items.count))]
    }

    static func ref(_ generator: inout SplitMix64) -> Plan.PackRef {
        Plan.PackRef(
            contentVersion: Int(generator.next() % 5) + 1, minAppVersion: AppVersion(pick(minimums, &generator))!)
    }

    static func rule(_ pack: Plan.PackRef, _ generator: inout SplitMix64) -> Plan.Rule {
        let regionCount = Int(generator.next() % 3)
        var chosen: [String] = []
        for _ in 0..<regionCount {
            let region = pick(regions, &generator)
            if !chosen.contains(region) { chosen.append(region) }
        }
        let share = pick([0, 100, 2_500, 5_000, 10_000, Int(generator.next() % 10_001)], &generator)
        return Plan.Rule(
            pack: pack, regions: chosen, versions: try! VersionRange.parse(pick(ranges, &generator)),
            share: Percent(basisPoints: share), salt: "s")
    }

    static func make(_ generator: inout SplitMix64) -> Plan {
        let baseline = generator.next() % 5 == 0 ? nil : ref(&generator)
        let previous = (0..<Int(generator.next() % 3)).map { _ in ref(&generator) }
        let candidate = ref(&generator)
        let rules = (0..<Int(generator.next() % 4)).map { _ in rule(candidate, &generator) }
        let blocked = (0..<Int(generator.next() % 2)).map { _ in Int(generator.next() % 5) + 1 }
        let withdrawals = (0..<Int(generator.next() % 2)).map { _ in
            Plan.Withdrawal(
                region: pick(regions + ["*"], &generator), versions: try! VersionRange.parse(pick(ranges, &generator)))
        }
        return Plan(
            locale: "tr-TR", baseline: baseline, previousBaselines: previous, rules: rules, blocked: blocked,
            withdrawals: withdrawals,
            bundledOnly: generator.next() % 20 == 0)
    }

    /// One step a command might take: a share grows, a rule goes, a pack is blocked, a baseline moves.
    static func mutate(_ plan: Plan, _ generator: inout SplitMix64) -> Plan {
        var next = plan
        switch generator.next() % 5 {
        case 0 where !plan.rules.isEmpty:
            var rules = plan.rules
            let index = Int(generator.next() % UInt64(rules.count))
            rules[index].share = Percent(basisPoints: pick([0, 100, 5_000, 10_000], &generator))
            next.setRules(rules)
        case 1 where !plan.rules.isEmpty:
            next.setRules(Array(plan.rules.dropFirst()))
        case 2:
            next.blocked = (next.blocked + [Int(generator.next() % 5) + 1]).sorted()
        case 3:
            next.baseline = ref(&generator)
        default:
            next.setRules(plan.rules + [rule(plan.candidate ?? ref(&generator), &generator)])
        }
        return next
    }

    /// The shares at one point as they were worked out before `sharesAt` stopped using a dictionary.
    static func sharesByDictionary(_ plan: Plan, regionCode: String?, version: AppVersion) -> [(
        outcome: Resolution.Outcome, basisPoints: Int
    )] {
        if plan.bundledOnly { return [(.bundled, Bucketing.buckets)] }
        let fallback = Resolution.baseline(plan, version: version)
        let withdrawn = plan.withdrawals.contains { w in
            (w.region == Region.any || (regionCode.map { $0 == w.region } ?? false)) && w.versions.contains(version)
        }
        if withdrawn { return [(fallback, Bucketing.buckets)] }
        let rule = plan.rules.first { rule in
            (regionCode.map { rule.regions.isEmpty || rule.regions.contains($0) } ?? rule.regions.isEmpty)
                && rule.versions.contains(version)
        }
        var shares: [Resolution.Outcome: Int] = [:]
        if let rule, !plan.isBlocked(rule.pack.contentVersion), version >= rule.pack.minAppVersion,
            rule.share.basisPoints > 0
        {
            shares[.pack(rule.pack.contentVersion), default: 0] += rule.share.basisPoints
            if rule.share.basisPoints < Bucketing.buckets {
                shares[fallback, default: 0] += Bucketing.buckets - rule.share.basisPoints
            }
        } else {
            shares[fallback] = Bucketing.buckets
        }
        return shares.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map {
            (outcome: $0.key, basisPoints: $0.value)
        }
    }
}
