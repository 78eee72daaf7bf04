import RolloutModel
import XCTest

@testable import RolloutStore

/// The log index build reads plan files with a fast reader and falls back to `Plan.parse` when that
/// reader answers nil (docs/audit.md): the log must show the same plans either way, and a plan file
/// `Plan.parse` refuses must never be read as a plan by the fast path.
final class AuditPlanReaderTests: XCTestCase {
    func testEveryPlanRolloutWritesReadsAsPlanParseReadsIt() throws {
        var random = Generator(seed: 17)
        var readFast = 0
        for _ in 0..<1_000 {
            let plan = random.plan()
            let bytes = JSONWriter.pretty(plan.jsonValue)
            let strict = try Plan.parse(bytes, source: "plan")
            let fast = AuditPlanReader.read(bytes)
            if let fast {
                XCTAssertEqual(fast, strict, String(decoding: bytes, as: UTF8.self))
                readFast += 1
            } else {
                // Only an escape in some string sends a plan rollout wrote to Plan.parse.
                XCTAssertTrue(bytes.contains(UInt8(ascii: "\\")), String(decoding: bytes, as: UTF8.self))
            }
        }
        XCTAssertGreaterThan(readFast, 800)
    }

    func testDamagedOrHostilePlanFilesAreNeverReadDifferentlyFromPlanParse() {
        var random = Generator(seed: 18)
        let splices: [[UInt8]] =
            [
                "\\", "\\u0041", "\"", ",", "}", "]", "{", "[", "null", "true", "-0", "1.0", "1e2", "01",
                "9007199254740993", "-", " ", "\n",
                "\u{FEFF}", "\"x\":1,", "\"locale\":\"a\",", "é", "\u{301}", "\t", "0",
            ].map { Array($0.utf8) } + [
                [0xED, 0xA0, 0x80], [0xC0, 0x80], [0xFF], [0x00], [0x1F], [0xE2, 0x82], [0xEF, 0xBB, 0xBF],
            ]
        var accepted = 0
        for round in 0..<4_000 {
            var bytes = JSONWriter.pretty(random.plan().jsonValue)
            for _ in 0...(round % 3) {
                let at = random.below(bytes.count + 1)
                switch random.below(5) {
                case 0: bytes.insert(contentsOf: splices[random.below(splices.count)], at: at)
                case 1: if at < bytes.count { bytes.remove(at: at) }
                case 2: if at < bytes.count { bytes[at] = UInt8(truncatingIfNeeded: random.below(256)) }
                case 3: bytes = Array(bytes[..<at])
                default:
                    if at < bytes.count {
                        bytes.replaceSubrange(
                            at..<min(bytes.count, at + random.below(8)), with: splices[random.below(splices.count)])
                    }
                }
            }
            guard let fast = AuditPlanReader.read(bytes) else { continue }
            accepted += 1
            let text = String(decoding: bytes, as: UTF8.self)
            guard let strict = try? Plan.parse(bytes, source: "plan") else {
                XCTFail("the fast reader took a plan Plan.parse refuses: \(text)")
                continue
            }
            XCTAssertEqual(fast, strict, text)
        }
        // Some mutations (whitespace, a digit) leave a valid plan: those are compared, not only refused.
        XCTAssertGreaterThan(accepted, 100)
    }

    func testWhatThePlanWriterNeverWritesGoesToPlanParse() throws {
        let plan = Plan(
            locale: "tr-TR", baseline: Plan.PackRef(contentVersion: 3, minAppVersion: AppVersion("4.8")!),
            rules: [
                Plan.Rule(
                    pack: Plan.PackRef(contentVersion: 4, minAppVersion: AppVersion("4.8")!), regions: ["TR"],
                    versions: .all,
                    share: Percent(basisPoints: 500), salt: "s")
            ])
        let text = String(decoding: JSONWriter.pretty(plan.jsonValue), as: UTF8.self)
        XCTAssertNotNil(AuditPlanReader.read(Array(text.utf8)))
        // Members left out, as tools other than rollout write plans (bench/log/generate.py among them):
        // Plan.parse's defaults, read by the fast reader too.
        var sparse = text
        for member in ["\"bundledOnly\": false,", "\"previousBaselines\": [],", "\"blocked\": [],"] {
            sparse = sparse.replacingOccurrences(of: member, with: "")
        }
        sparse = sparse.replacingOccurrences(of: ",\n  \"sequence\": 0,\n  \"withdrawn\": []", with: "")
        XCTAssertFalse(sparse.contains("sequence"), sparse)
        XCTAssertEqual(AuditPlanReader.read(Array(sparse.utf8)), try Plan.parse(Array(sparse.utf8), source: "plan"))
        XCTAssertNotNil(AuditPlanReader.read(Array(sparse.utf8)), sparse)
        let others = [
            text.replacingOccurrences(of: "\"sequence\": 0", with: "\"sequence\": 0.0"),
            text.replacingOccurrences(of: "\"salt\": \"s\"", with: "\"salt\": \"\\u0073\""),
            text.replacingOccurrences(of: "\"bundledOnly\": false,", with: "\"bundledOnly\": false, \"extra\": 1,"),
            "\u{FEFF}" + text,
        ]
        for other in others {
            XCTAssertNil(AuditPlanReader.read(Array(other.utf8)), other)
            XCTAssertNoThrow(try Plan.parse(Array(other.utf8), source: "plan"), other)
        }
        let refused = [
            text.replacingOccurrences(of: "\"locale\": \"tr-TR\",", with: "\"locale\": \"tr-TR\", \"locale\": \"de\","),
            text.replacingOccurrences(of: "\"basisPoints\": 500", with: "\"basisPoints\": 5e2"),
            text.replacingOccurrences(of: "\"withdrawn\": []", with: "\"withdrawn\": [],"),
            text.replacingOccurrences(of: "\"salt\": \"s\"", with: "\"salt\": \"\\uD800\""),
        ]
        for other in refused {
            XCTAssertNil(AuditPlanReader.read(Array(other.utf8)), other)
            XCTAssertThrowsError(try Plan.parse(Array(other.utf8), source: "plan"), other)
        }
    }
}

/// Random plans of every shape the writer produces: optional baseline, ramp and last change, empty and
/// full lists, non-ASCII text and, now and then, text that needs escaping.
private struct Generator {
    var bits: SplitMix64

    init(seed: UInt64) { bits = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { bits.next() }

    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    mutating func text() -> String {
        pick([
            "tr-TR", "s1", "", "release 4.8", "Ayşe <ayse@example.com>", "Zoë", "🇹🇷", "a\u{301}", "promote", "x/y",
            "\u{7F}",
        ])
            + (chance(3) ? pick(["\"", "\\", "\n", "\u{01}"]) : "")
    }

    mutating func version() -> AppVersion {
        AppVersion(pick(["4.8", "4.8.1", "5", "4.10", "0", "4.08", "999999999.1"]))!
    }
    mutating func range() -> VersionRange {
        try! VersionRange.parse(pick(["*", ">=4.8", "<5", ">=4.8 <5", "4.8.x", "=4.8.1", ">4.9 <=5.1"]))
    }
    mutating func ref() -> Plan.PackRef {
        Plan.PackRef(contentVersion: pick([0, 1, 7, 123_456, -3, 999_999_999_999_999]), minAppVersion: version())
    }
    mutating func time() -> Timestamp { Timestamp(seconds: Int64(below(2_000_000_000))) }

    mutating func plan() -> Plan {
        let regions = ["TR", "DE", "US", "*", "é"]
        var plan = Plan(
            locale: text(), baseline: chance(80) ? ref() : nil, previousBaselines: (0..<below(4)).map { _ in ref() },
            rules: (0..<below(4)).map { _ in
                Plan.Rule(
                    pack: ref(), regions: (0..<below(3)).map { _ in pick(regions) }, versions: range(),
                    share: Percent(basisPoints: pick([0, 1, 500, 10_000, below(10_001)])), salt: text())
            },
            blocked: (0..<below(3)).map { _ in below(50) },
            withdrawals: (0..<below(3)).map { _ in Plan.Withdrawal(region: pick(regions), versions: range()) },
            bundledOnly: chance(10), sequence: below(100_000),
            lastChange: chance(70)
                ? Plan.LastChange(action: text(), actor: text(), time: time(), reason: chance(50) ? text() : nil) : nil)
        if chance(30) {
            let steps = (0..<(1 + below(7))).map { _ in Percent(basisPoints: below(10_001)) }
            plan.ramp = Plan.Ramp(
                steps: steps, every: Int64(pick([0, 86_400, 3_600])), step: below(steps.count), since: time(),
                paused: chance(50))
        }
        return plan
    }
}
