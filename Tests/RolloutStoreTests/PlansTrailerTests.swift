import Foundation
import RolloutModel
import XCTest

@testable import RolloutStore

/// `Rollout-Plans` (docs/audit.md, "The Rollout-Plans trailer"): read back only as rollout writes
/// it, and on every commit rollout writes, exactly what the commit did to the plans.
final class PlansTrailerTests: XCTestCase {
    let actor = try! Actor.parse("Tester <tester@example.com>", from: "test")
    static let a = String(repeating: "a", count: 40)
    static let b = String(repeating: "b", count: 40)

    func testTheTrailerReadsBackOnlyInTheOneSpellingRolloutWrites() {
        let (a, b) = (PlansTrailerTests.a, PlansTrailerTests.b)
        for value in ["none", "tr-TR - \(a)", "tr-TR \(a) \(b) * DE TR", "de-DE - \(b) TR; tr-TR \(a) \(b)"] {
            XCTAssertEqual(PlansTrailer(value: value)?.value, value)
        }
        XCTAssertEqual(PlansTrailer(value: "tr-TR \(a) \(b) * TR")?.items.first?.regions, ["*", "TR"])
        XCTAssertNil(PlansTrailer(value: "tr-TR - \(a)")?.items.first?.before)
        let refused = [
            "", "None", "tr-TR", "tr-TR \(a)", "tr-TR  - \(a)", "tr-TR - \(a) ", "tr-TR - \(a.uppercased())",
            "tr-TR - \(a.dropLast())", "tr-TR \(a) \(b) TR DE", "tr-TR \(a) \(b) TR TR", "tr-TR \(a) \(b) XX",
            "tr-TR \(a) \(b) tr", "tr-TR - \(a); de-DE - \(b)", "tr-TR - \(a); tr-TR - \(b)",
            "tr-TR - \(a);de-DE - \(b)",
            "tr TR - \(a)", "none - \(a)", "tr/TR - \(a)", "tr-TR - \(a); none",
        ]
        for value in refused { XCTAssertNil(PlansTrailer(value: value), value) }
    }

    /// Every commit rollout writes carries the trailer, and it is the one the commit's trees give:
    /// new plans, changed plans, plans written again unchanged, two plans at once, no plan.
    func testEveryCommitRolloutWritesSaysWhatItDidToThePlans() throws {
        let path = NSTemporaryDirectory() + "plans-trailer-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var clock: Int64 = 1_800_000_000
        let now = { () -> Timestamp in
            clock += 60
            return Timestamp(seconds: clock)
        }
        let (repository, _) = try PackRepository.create(
            at: path, files: [("README.md", Array("hello\n".utf8))], actor: actor, time: now())
        func plan(_ locale: String, share: String, regions: [String]) throws -> [UInt8] {
            let ref = Plan.PackRef(contentVersion: 1, minAppVersion: AppVersion("4.0")!)
            let rule = Plan.Rule(
                pack: Plan.PackRef(contentVersion: 2, minAppVersion: AppVersion("4.0")!), regions: regions,
                versions: try VersionRange.parse(">=4.8"), share: try Percent.parse(share), salt: "s")
            return JSONWriter.pretty(Plan(locale: locale, baseline: ref, rules: [rule], sequence: 1).jsonValue)
        }
        let writes: [[(path: String, bytes: [UInt8])]] = [
            [(StateLayout.plan("tr-TR"), try plan("tr-TR", share: "10%", regions: ["TR"]))],
            [(StateLayout.plan("tr-TR"), try plan("tr-TR", share: "50%", regions: ["TR"]))],
            [(StateLayout.plan("tr-TR"), try plan("tr-TR", share: "50%", regions: ["TR"]))],
            [
                (StateLayout.plan("tr-TR"), try plan("tr-TR", share: "50%", regions: ["DE", "TR"])),
                (StateLayout.plan("de-DE"), try plan("de-DE", share: "5%", regions: [])),
            ],
            [("site-sequence", Array("1\n".utf8))],
        ]
        let expected = [
            ["tr-TR - * TR"], ["tr-TR TR"], [], ["de-DE - *", "tr-TR DE"], [],
        ]
        for (files, regions) in zip(writes, expected) {
            let change = Change(summary: "change", trailers: [(.action, "promote")], writes: files)
            let commit = try XCTUnwrap(try repository.apply(actor: actor, time: now) { _ in (change, ()) }.commit)
            let record = AuditEntry.CommitRecord(try repository.git.commit(commit))
            let trailer = try XCTUnwrap(record.plans, "a commit rollout wrote without Rollout-Plans")
            // The blob ids are the trees'; the regions, with the ids left out, are the expected ones.
            XCTAssertEqual(
                trailer.items.map { ([$0.locale, $0.before == nil ? "-" : nil] + $0.regions).compactMap { $0 } },
                regions.map { $0.split(separator: " ").map(String.init) })
            for item in trailer.items {
                XCTAssertEqual(
                    item.after,
                    try repository.git.treeEntry(
                        repository.git.commit(commit).tree, path: StateLayout.plan(item.locale))?.id.hex)
            }
        }
        // verify recomputes every trailer from the trees (these hand-made changes break other rules).
        XCTAssertEqual(try Verifier.verify(repository).problems.filter { $0.message.contains("Rollout-Plans") }, [])
    }
}
