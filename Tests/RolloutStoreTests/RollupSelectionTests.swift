import Foundation
import XCTest

@testable import RolloutStore

/// Which rollups health, guard and the report parse (MetricsLayout.keyVersions and
/// RollupPacksCache): a rollup is skipped only when no key in it can name one of the packs asked
/// for, in any spelling the parser reads.
final class RollupSelectionTests: XCTestCase {
    func versions(_ text: String) -> [Int]? { MetricsLayout.keyVersions(Array(text.utf8)) }

    func testTheVersionsARollupsKeysNameAreFoundWithoutParsingIt() {
        let compact =
            "{\"counts\":{\n\"17|TR|4.9\":[5,1,\"759c754d8def\"],\n\"17|DE|4.18\":[5,1,\"a18|bc\"],\n\"3|DE|4\":[5,1,\"123\"]\n}}"
        XCTAssertEqual(versions(compact), [3, 17], "18| inside an app version or a source is not a key")
        let pretty =
            "{\n  \"counts\": {\n    \"118|TR|4.9\": [\n      5,\n      1,\n      \"759c754d8def\"\n    ]\n  }\n}"
        XCTAssertEqual(versions(pretty), [118])
        XCTAssertNil(versions("{\"018|TR|4.9\":[1,0,\"x\"]}"), "a leading zero: the parser reads 018 as 18")
        XCTAssertNil(versions("{\"+18|TR|4.9\":[1,0,\"x\"]}"), "a plus: the parser reads +18 as 18")
        XCTAssertNil(versions("{\"\\u0031\\u0038|TR|4.9\":[1,0,\"x\"]}"), "an escaped key could spell any version")
        XCTAssertNil(versions("{\"1234567890123456789|TR|4.9\":[1,0,\"x\"]}"), "too long to read here")
        XCTAssertEqual(versions("{\"0a|TR\":[1,0,\"0abc\"]}"), [], "a zero before a letter is no version")
        XCTAssertEqual(versions("{\"0|TR|4.9\":[1,0,\"x\"]}"), [0])
        XCTAssertEqual(versions(""), [])
        XCTAssertEqual(versions("\""), [])
    }

    func testTheDayOfARollupIsItsFileName() {
        XCTAssertEqual(MetricsLayout.day(ofRollupNamed: "1970-01-02.json"), 1)
        XCTAssertEqual(MetricsLayout.day(ofRollupNamed: "2026-11-28.json"), 20_785)
        XCTAssertNil(MetricsLayout.day(ofRollupNamed: "2026-11-28.txt"))
        XCTAssertNil(MetricsLayout.day(ofRollupNamed: "notes.json"))
    }

    /// The cache is trusted only whole: a file cut short, or with a line changed into something
    /// else, is ignored (and written anew by the next reader that learns something).
    func testTheCacheIsReadOnlyWhole() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let blob = try XCTUnwrap(ObjectID(hex: String(repeating: "ab", count: 20)))
        let other = try XCTUnwrap(ObjectID(hex: String(repeating: "cd", count: 20)))
        let cache = RollupPacksCache(repositoryPath: directory)
        cache.record(blob, [17, 18])
        cache.record(other, [])
        cache.save()
        let again = RollupPacksCache(repositoryPath: directory)
        XCTAssertEqual(again.versions(of: blob), [17, 18])
        XCTAssertEqual(again.versions(of: other), [])
        let text = try String(contentsOfFile: cache.path, encoding: .utf8)
        for damaged in [
            String(text.dropLast(4)), text.replacingOccurrences(of: "17,18", with: "17,,18"),
            text.replacingOccurrences(of: "rollout-rollup-packs-1", with: "rollout-rollup-packs-0"),
            text.replacingOccurrences(of: "end 2", with: "end 3"),
        ] {
            try Data(damaged.utf8).write(to: URL(fileURLWithPath: cache.path))
            XCTAssertNil(RollupPacksCache(repositoryPath: directory).versions(of: blob), damaged)
        }
    }
}
