import Foundation
import XCTest

/// The catalogue in Tests/Fixtures/hostile: malformed and hostile packs, each refused with a message
/// naming the problem, the documented exit code, and the state ref exactly where it was.
final class HostilePackTests: XCTestCase {
    struct Case: Decodable {
        let file: String
        let exit: Int32
        let message: String
        let why: String
    }

    /// A blank value is deliberate in real catalogs (an empty suffix, a spacer) and a device shows
    /// it as it is: stored, with a warning that says so (docs/pack-format.md, "empty-value").
    func testABlankValueIsStoredWithAWarning() throws {
        for file in ["empty-value.json", "whitespace-value.json"] {
            let w = try Workspace()
            try w.initWithExamples()
            let added = try w.rollout("pack", "add", Fixtures.directory + "/accepted/" + file)
            XCTAssertEqual(added.status, 0, "\(file): \(added.output)")
            XCTAssertTrue(added.output.contains("empty-value"), "\(file): the warning names the rule: \(added.output)")
        }
    }

    func testEveryHostilePackIsRefusedAndTheRepositoryDoesNotChange() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.directory + "/hostile/catalogue.json"))
        let cases = try JSONDecoder().decode([Case].self, from: data)
        XCTAssertGreaterThanOrEqual(cases.count, 25)

        let w = try Workspace()
        try w.initWithExamples()
        let tip = try w.stateTip()
        let listing = try w.rollout("pack", "list", "--json").stdout
        for c in cases {
            let path = Fixtures.directory + "/hostile/" + c.file
            let added = try w.rollout("pack", "add", path)
            XCTAssertEqual(added.status, c.exit, "\(c.file) (\(c.why)): \(added.output)")
            XCTAssertTrue(added.stderr.contains(c.message), "\(c.file): expected \"\(c.message)\" in: \(added.stderr)")
            let namesIt =
                added.stderr.contains(c.file) || added.stderr.contains("tr-TR@19") || added.stderr.contains("en-US@2")
            XCTAssertTrue(namesIt, "\(c.file): the message names neither the file nor the pack: \(added.stderr)")
            XCTAssertEqual(try w.stateTip(), tip, "\(c.file) changed the state ref")

            // pack lint refuses it too: 1 when lint said no, 65 when the file is not a pack at all.
            let lint = try w.rollout("pack", "lint", path)
            XCTAssertTrue(lint.status == 1 || lint.status == 65, "\(c.file): lint exit \(lint.status)")
            XCTAssertTrue(
                lint.output.contains(c.message), "\(c.file): lint output lacks \"\(c.message)\": \(lint.output)")
        }
        XCTAssertEqual(try w.rollout("pack", "list", "--json").stdout, listing)
        try w.assertFsckClean()
    }

    func testAFiftyMegabytePackIsRefusedBeforeItIsRead() throws {
        let w = try Workspace()
        try w.initWithExamples()
        let tip = try w.stateTip()
        var text =
            #"{"locale": "tr-TR", "schemaVersion": 2, "contentVersion": 19, "minAppVersion": "4.8.0", "strings": {"#
        let value = String(repeating: "x", count: 1000)
        for i in 0..<50_000 { text += (i == 0 ? "" : ",") + "\"k\(i)\": \"\(value)\"" }
        text += "}}"
        let path = try w.scratch.write("huge.json", text)
        let result = try w.rollout("pack", "add", path)
        XCTAssertEqual(result.status, 65, result.output)
        XCTAssertTrue(result.stderr.contains("huge.json"), result.stderr)
        XCTAssertTrue(result.stderr.contains("over the limit of 8 MiB"), result.stderr)
        XCTAssertEqual(try w.stateTip(), tip)
    }
}
