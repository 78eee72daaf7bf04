import Foundation
import RolloutModel
import XCTest

@testable import RolloutClient

/// Text that stays in the app (docs/policy.md, "Bundle-only keys"): the policy's `bundleOnlyKeys`
/// patterns are refused in packs, left out of imports, published in every manifest, and never
/// shown from a pack by a device.
final class BundleOnlyTests: XCTestCase {
    static let policy = #"{"policyVersion": 1, "bundleOnlyKeys": ["checkout.*", "legal.?erms"]}"#

    private func setPolicy(_ w: Workspace, _ text: String = BundleOnlyTests.policy) throws {
        try w.scratch.write("bundle-only-policy.json", text)
        let set = try w.rollout("policy", "set", w.scratch.path("bundle-only-policy.json"))
        XCTAssertEqual(set.status, 0, set.output)
    }

    /// tr-TR@19 with `strings` (the other fields as tr-TR@18 has them).
    private func pack(_ w: Workspace, _ strings: [String: String]) throws -> String {
        let body = try JSONSerialization.data(withJSONObject: strings, options: [.sortedKeys])
        return try w.scratch.write(
            "tr-TR@19.json",
            #"{"contentVersion": 19, "fallbackLocale": "tr", "locale": "tr-TR", "minAppVersion": "4.8.0", "schemaVersion": 2, "strings": "#
                + String(decoding: body, as: UTF8.self) + "}")
    }

    func testLintRefusesABundleOnlyKeyNamingTheKeyAndThePattern() throws {
        let w = try Workspace()
        try w.initWithExamples()
        try setPolicy(w)
        let shown = try w.json(try w.rollout("policy", "show", "--json"))
        XCTAssertEqual(shown["bundleOnlyKeys"] as? [String], ["checkout.*", "legal.?erms"])

        let strings = try JSONSerialization.jsonObject(
            with: Data(try w.rollout("pack", "show", "tr-TR@18", "--strings", "--json").stdout.utf8))
        var text = try XCTUnwrap((strings as? [String: Any])?["strings"] as? [String: String])
        text["legal.terms"] = "Şartlar"
        let file = try pack(w, text)
        let lint = try w.rollout("pack", "lint", file)
        XCTAssertEqual(lint.status, 1, lint.output)
        XCTAssertTrue(
            lint.output.contains(#"key "checkout.pay" is bundle-only (policy bundleOnlyKeys checkout.*)"#), lint.output)
        XCTAssertTrue(
            lint.output.contains(#"key "legal.terms" is bundle-only (policy bundleOnlyKeys legal.?erms)"#), lint.output)
        XCTAssertTrue(lint.output.contains("bundle-only-key"), lint.output)

        let before = try w.stateTip()
        let add = try w.rollout("pack", "add", file, "--approved-by", "Legal")
        XCTAssertEqual(add.status, 65, add.output)
        XCTAssertEqual(try w.stateTip(), before, "nothing stored")

        // The fix is to take the keys out: neither a removed key nor a protected change.
        let fixed = try pack(w, text.filter { !$0.key.hasPrefix("checkout.") && $0.key != "legal.terms" })
        let added = try w.rollout("pack", "add", fixed)
        XCTAssertEqual(added.status, 0, added.output)
    }

    func testAPolicyWithAPatternThatIsNotOneIsRefused() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        try w.scratch.write("bad.json", #"{"bundleOnlyKeys": ["legal terms"]}"#)
        let set = try w.rollout("policy", "set", w.scratch.path("bad.json"))
        XCTAssertEqual(set.status, 65, set.output)
        XCTAssertTrue(set.stderr.contains(#"bundleOnlyKeys: "legal terms" is not a key pattern"#), set.stderr)
    }

    func testImportLeavesBundleOnlyKeysOutAndListsThem() throws {
        let w = try Workspace()
        XCTAssertEqual(try w.rollout("init").status, 0)
        try setPolicy(w, #"{"bundleOnlyKeys": ["files.*"]}"#)
        let catalog = ImportTests.fixtures + "/Localizable.xcstrings"
        let result = try w.rollout([
            "pack", "import", catalog, "--content-version", "1", "--min-app-version", "4.0", "--json",
        ])
        XCTAssertEqual(result.status, 0, result.output)
        let report = try w.json(result)
        let left = skippedEntries(report).filter { $0.contains("bundle-only") }
        XCTAssertEqual(
            left,
            ["ar", "en", "tr"].map {
                "\($0) files.count: bundle-only (policy bundleOnlyKeys files.*): it stays in the app"
            })
        XCTAssertNil(try packStrings(w, "en@1")["files.count"])
        XCTAssertNotNil(try packStrings(w, "en@1")["photos.summary"])

        let text = try w.rollout(["pack", "import", catalog, "--content-version", "2", "--dry-run"])
        XCTAssertTrue(
            text.stderr.contains("left out en files.count: bundle-only (policy bundleOnlyKeys files.*)"), text.stderr)
    }

    func testManifestsCarryThePatternsAndADeviceNeverShowsThemFromAPack() async throws {
        let world = try ClientWorld()
        let old = world.client("old-device")
        await old.refreshAndActivate()
        XCTAssertEqual(old.string("checkout.retry"), "Tekrar dene", "no patterns yet: the pack's text")
        let manifest = world.w.scratch.path("site/manifests/tr-TR.json")
        XCTAssertFalse(
            try String(contentsOfFile: manifest, encoding: .utf8).contains("bundleOnly"),
            "no patterns: no field, as before")

        // The pack already holds checkout.* (it was added before the policy said so).
        try setPolicy(world.w)
        try world.publish()
        let published = try LocaleManifest.parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: manifest))), source: manifest)
        XCTAssertEqual(published.bundleOnly.spellings, ["checkout.*", "legal.?erms"])

        let fresh = world.client("new-device")
        await fresh.refreshAndActivate()
        XCTAssertEqual(fresh.activePack, PackID(locale: "tr-TR", contentVersion: 17))
        XCTAssertEqual(fresh.string("checkout.retry"), "Tekrar dene (paket içi)", "the app's own text, not the pack's")
        XCTAssertEqual(fresh.string("home.title"), "Hoş gledin", "every other key still from the pack")
        XCTAssertEqual(
            fresh.string("checkout.pay", ["amount": "5"]), "…",
            "a bundle-only key the app does not bundle is not taken from any pack")

        // A device whose cached pack came with the older manifest learns the patterns at its next
        // refresh, and keeps them across launches.
        let refreshed = await old.refresh(force: true)
        XCTAssertNotEqual(refreshed, .busy)
        XCTAssertEqual(old.string("checkout.retry"), "Tekrar dene (paket içi)")
        let relaunched = world.client("old-device")
        XCTAssertEqual(relaunched.string("checkout.retry"), "Tekrar dene (paket içi)")
        XCTAssertEqual(relaunched.string("home.title"), "Hoş gledin")
    }
}
