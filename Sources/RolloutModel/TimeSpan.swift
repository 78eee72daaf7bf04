/// A length of time as the command line spells it: a whole number and a unit, `30m`, `12h`, `7d`
/// or `2w` (`--expires`, `--overlap`; docs/keys.md). Counted in seconds so it adds to a `Timestamp`.
public enum TimeSpan {
    /// The units, with their length in seconds.
    static let units: [Character: Int64] = ["m": 60, "h": 3_600, "d": 86_400, "w": 604_800]

    /// Longer than any key or index should live, and short enough that adding it to any time a
    /// `Timestamp` can write stays writable (year 9999).
    public static let maximumSeconds: Int64 = 100 * 366 * 86_400

    /// The seconds `text` stands for, or nil unless it is a positive whole number of minutes, hours,
    /// days or weeks no longer than 100 years: `7d` is 604800. No sign, no spaces, no fractions.
    public static func parse(_ text: String) -> Int64? {
        if case .seconds(let seconds) = read(text, maximum: maximumSeconds) { return seconds }
        return nil
    }

    /// What `read` found: a duration, text that is not one, or one longer than the maximum asked for.
    public enum Reading: Equatable, Sendable {
        case seconds(Int64)
        case notADuration
        case tooLong
    }

    /// The one grammar of every DURATION the command line takes (`--expires`, `--overlap`,
    /// `--every`, ...): a too-long duration is told apart from text that is not one at all.
    public static func read(_ text: String, maximum: Int64) -> Reading {
        guard let unit = text.last, let size = units[unit] else { return .notADuration }
        let digits = text.dropLast()
        guard digits.isDecimalDigits else { return .notADuration }
        // Leading zeros are still a whole number; anything with more digits is longer than any limit.
        let significant = digits.drop { $0 == "0" }
        guard !significant.isEmpty else { return .notADuration }
        guard significant.count <= 18, let count = Int64(significant) else { return .tooLong }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: size)
        guard !overflow, seconds <= maximum else { return .tooLong }
        return .seconds(seconds)
    }

    /// `seconds` in the largest unit that divides it, for messages: 604800 is "7 days", 5400 "90 minutes".
    public static func describe(_ seconds: Int64) -> String {
        let names: [(Int64, String)] = [
            (604_800, "week"), (86_400, "day"), (3_600, "hour"), (60, "minute"), (1, "second"),
        ]
        for (size, name) in names where seconds != 0 && seconds % size == 0 {
            let count = seconds / size
            return "\(count) \(name)\(count == 1 ? "" : "s")"
        }
        return "0 seconds"
    }

    /// What a usage message says a DURATION looks like.
    public static let spelling = "a whole number and a unit, such as 30m, 12h, 7d or 2w"
}
