import RolloutModel
import XCTest

/// A locale's pending changes (`Schedule`) on values alone: numbering, the order guard applies them
/// in, when one is due, and the stored JSON read back as written.
final class ScheduleModelTests: XCTestCase {
    let now = Timestamp(iso8601: "2026-12-01T09:00:00Z")!

    func request(_ share: Int, version: Int = 18, ramp: [Int]? = nil) -> PromoteRequest {
        PromoteRequest(
            pack: PackID(locale: "tr-TR", contentVersion: version), share: Percent(basisPoints: share),
            regions: ramp == nil ? ["TR"] : nil, versions: ramp == nil ? try! VersionRange.parse(">=4.8") : nil,
            reason: ramp == nil ? "launch" : nil, ramp: ramp.map { ($0.map { Percent(basisPoints: $0) }, 43_200) })
    }

    func testNumbersAreNeverReusedAndTheEarliestComesFirst() {
        var schedule = Schedule(locale: "tr-TR")
        let late = schedule.add(
            request(1000), at: Timestamp(iso8601: "2026-12-10T06:00:00Z")!, accepting: [], by: "A", now: now)
        let early = schedule.add(
            request(500), at: Timestamp(iso8601: "2026-12-09T06:00:00Z")!, accepting: [], by: "A", now: now)
        XCTAssertEqual([late.id, early.id], [1, 2])
        XCTAssertEqual(schedule.pending.map(\.id), [2, 1], "by time, not by number")
        XCTAssertEqual(schedule.remove(2)?.share, Percent(basisPoints: 500))
        XCTAssertNil(schedule.remove(2))
        let next = schedule.add(
            request(2000), at: Timestamp(iso8601: "2026-12-11T06:00:00Z")!, accepting: [], by: "A", now: now)
        XCTAssertEqual(next.id, 3, "a cancelled number stays spent")
    }

    func testAChangeIsDueFromItsSecondOn() {
        var schedule = Schedule(locale: "tr-TR")
        let at = Timestamp(iso8601: "2026-12-10T09:00:00+03:00")!
        XCTAssertEqual(at, Timestamp(iso8601: "2026-12-10T06:00:00Z")!)
        _ = schedule.add(request(1000), at: at, accepting: [], by: "A", now: now)
        XCTAssertTrue(schedule.due(at: Timestamp(seconds: at.seconds - 1)).isEmpty)
        XCTAssertEqual(schedule.due(at: at).map(\.id), [1])
        XCTAssertEqual(schedule.due(at: Timestamp(seconds: at.seconds + 86_400)).map(\.id), [1])
    }

    func testTheStoredFormReadsBackAsWritten() throws {
        var schedule = Schedule(locale: "tr-TR")
        _ = schedule.add(
            request(1000), at: Timestamp(iso8601: "2026-12-10T06:00:00Z")!, accepting: ["TR/4.9"], by: "Ayşe", now: now)
        _ = schedule.add(
            request(100, ramp: [100, 500, 10_000]), at: Timestamp(iso8601: "2026-12-11T06:00:00Z")!, accepting: [],
            by: "B", now: now)
        _ = schedule.remove(1)
        let bytes = JSONWriter.pretty(schedule.jsonValue)
        let read = try Schedule.parse(bytes, source: "schedules/tr-TR.json")
        XCTAssertEqual(read, schedule)
        XCTAssertEqual(read.nextID, 3, "the next number survives an empty or shorter list")
        let ramp = try XCTUnwrap(read.pending.first)
        XCTAssertEqual(ramp.request.ramp?.every, 43_200)
        XCTAssertEqual(ramp.summary, "promote tr-TR@18 to 1%, ramp 1%,5%,100%")
    }

    func testAPendingChangeOfAnotherLocaleIsDamage() {
        let text = """
            {"locale": "tr-TR", "nextId": 2, "pending": [{"id": 1, "at": "2026-12-10T06:00:00Z", "pack": "de-DE@3",
             "basisPoints": 1000, "scheduledBy": "A", "scheduledAt": "2026-12-01T09:00:00Z"}]}
            """
        XCTAssertThrowsError(try Schedule.parse(Array(text.utf8), source: "schedules/tr-TR.json")) { error in
            XCTAssertTrue("\(error)".contains("schedules/tr-TR.json: a pending change needs"), "\(error)")
        }
    }
}
