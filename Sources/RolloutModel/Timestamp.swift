/// A moment as whole seconds since the Unix epoch, shown as ISO 8601 UTC (`2026-11-30T05:12:25Z`).
/// Kept here rather than in Foundation's formatters so output is identical on every platform.
public struct Timestamp: Comparable, Hashable, Sendable, CustomStringConvertible {
    public let seconds: Int64

    public init(seconds: Int64) { self.seconds = seconds }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.seconds < rhs.seconds }

    public var description: String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = Timestamp.civil(fromDays: days)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = y < 1000 ? String(repeating: "0", count: 4 - String(y).count) + String(y) : String(y)
        let time = "\(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60))"
        return "\(year)-\(two(m))-\(two(d))T\(time)Z"
    }

    /// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SSZ` or with a `+HH:MM`/`-HH:MM` offset.
    public init?(iso8601 text: String) {
        let chars = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= chars.count else { return nil }
            var v: Int64 = 0
            for c in chars[from..<from + count] {
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            return v
        }
        guard chars.count >= 10, chars[4] == UInt8(ascii: "-"), chars[7] == UInt8(ascii: "-"),
            let y = number(0, 4), let m = number(5, 2), let d = number(8, 2), (1...12).contains(m),
            (1...Timestamp.daysIn(month: m, year: y)).contains(d)
        else { return nil }
        var total = Timestamp.days(fromCivil: y, m, d) * 86_400
        if chars.count == 10 {
            self.seconds = total
            return
        }
        guard chars.count >= 20, chars[10] == UInt8(ascii: "T"), chars[13] == UInt8(ascii: ":"),
            chars[16] == UInt8(ascii: ":"),
            let hh = number(11, 2), let mm = number(14, 2), let ss = number(17, 2), hh < 24, mm < 60, ss < 60
        else { return nil }
        total += hh * 3600 + mm * 60 + ss
        let rest = chars[19...]
        if rest.count == 1, rest.first == UInt8(ascii: "Z") {
            self.seconds = total
            return
        }
        guard rest.count == 6, let sign = rest.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
            chars[22] == UInt8(ascii: ":"), let oh = number(20, 2), let om = number(23, 2), oh < 24, om < 60
        else { return nil }
        let offset = oh * 3600 + om * 60
        let seconds = sign == UInt8(ascii: "+") ? total - offset : total + offset
        // An offset can carry 0000-01-01 or 9999-12-31 out of the years a timestamp can be written in.
        guard
            (Timestamp.days(fromCivil: 0, 1, 1) * 86_400...Timestamp.days(fromCivil: 9999, 12, 31) * 86_400 + 86_399)
                .contains(seconds)
        else { return nil }
        self.seconds = seconds
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Howard Hinnant's days-from-civil and its inverse (proleptic Gregorian calendar).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
