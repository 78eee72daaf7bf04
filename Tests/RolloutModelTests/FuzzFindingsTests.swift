import XCTest

@testable import RolloutModel

/// What the libFuzzer targets (fuzz/, docs/reliability.md) found, kept as regression tests.
final class FuzzFindingsTests: XCTestCase {
    /// "ß".uppercased() is "SS" (South Sudan) and "ﬁ".uppercased() is "FI" (Finland).
    func testARegionIsTwoASCIILetters() {
        XCTAssertThrowsError(try Region.parse("ß"))
        XCTAssertThrowsError(try Region.parse("ﬁ"))
        XCTAssertEqual(try Region.parse("tr"), "TR")
        XCTAssertEqual(try Region.parse("ss"), "SS")
    }

    /// An offset must not carry a timestamp out of the years it can be written in.
    func testATimestampStaysWithinYearsZeroTo9999() {
        XCTAssertNil(Timestamp(iso8601: "0000-01-01T00:00:00+01:00"))
        XCTAssertNil(Timestamp(iso8601: "9999-12-31T23:59:59-01:00"))
        XCTAssertNotNil(Timestamp(iso8601: "0000-01-01T01:00:00+01:00"))
        XCTAssertEqual(Timestamp(iso8601: "9999-12-31T22:59:59-01:00")?.description, "9999-12-31T23:59:59Z")
    }

    /// Integers beyond 2^53 are not the same number in every parser, nor after RFC 8785: a
    /// manifest's sequence or a blocked version that large is refused, and a number such as 1e20
    /// keeps a canonical form that parses back to itself.
    func testIntegersBeyondTwoToThe53AreNotIntegers() throws {
        let manifest =
            #"{"format":"rollout-manifest/1","locale":"tr","packs":{},"plan":{"locale":"tr"},"sequence":9007199254740993,"time":"2026-11-20"}"#
        XCTAssertThrowsError(try LocaleManifest.parse(Array(manifest.utf8), source: "m"))
        XCTAssertThrowsError(
            try Plan.parse(Array(#"{"locale":"tr","blocked":[9223372036854775807]}"#.utf8), source: "p"))
        let big = try StrictJSONParser.parse("1e20")
        let canonical = JSONWriter.canonical(big)
        XCTAssertEqual(String(decoding: canonical, as: UTF8.self), "100000000000000000000")
        XCTAssertEqual(JSONWriter.canonical(try StrictJSONParser.parse(canonical)), canonical, "a fixed point")
        XCTAssertEqual(
            try StrictJSONParser.parse(Array("[9007199254740991]".utf8)).arrayValue?.first?.integerValue,
            9_007_199_254_740_991)
    }

    /// Rules that name every assigned region leave no "other" region to stand for the rest.
    func testUnreachableRuleWhenRulesNameEveryRegion() throws {
        let every = Region.assigned.sorted().map { "\"\($0)\"" }.joined(separator: ",")
        let json =
            "{\"locale\":\"tr\",\"rules\":[{\"appVersions\":\"*\",\"basisPoints\":100,\"pack\":{\"contentVersion\":2,\"minAppVersion\":\"1\"},\"regions\":[\(every)],\"salt\":\"s\"},{\"appVersions\":\"*\",\"basisPoints\":100,\"pack\":{\"contentVersion\":2,\"minAppVersion\":\"1\"},\"regions\":[],\"salt\":\"s\"}]}"
        let plan = try Plan.parse(Array(json.utf8), source: "plan.json")
        XCTAssertEqual(
            plan.unreachableRule()?.rule.regions, [],
            "the catch-all rule after one naming every region is never reached")
    }
}
