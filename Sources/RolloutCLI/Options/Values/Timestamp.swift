import RolloutModel

/// A time: a date (`2026-11-01`) or an ISO 8601 time (`2026-11-01T09:00:00Z`). `endOfDay`: a date
/// alone means its last second (`log --until 2026-11-01` includes that day).
extension Option where Value == Timestamp {
    package static func time(_ name: String, _ valueName: String, _ help: String, endOfDay: Bool) -> Option<Timestamp> {
        Option(name, valueName, help) { text, flag in
            guard let time = Timestamp(iso8601: text) else {
                throw RolloutError.usage(
                    "\(flag) \"\(text)\" is not a date (2026-11-01) or an ISO 8601 time (2026-11-01T09:00:00Z)")
            }
            return endOfDay && text.count == 10 ? Timestamp(seconds: time.seconds + 86_399) : time
        }
    }
}

/// A moment with its UTC offset (`promote --at`): `2026-12-10T09:00+03:00`, `2026-12-10T06:00:00Z`;
/// seconds may be left out. A date alone or a time without `Z` or an offset is refused: whose 09:00
/// it is must be said, and the offset is honoured exactly.
extension Option where Value == Timestamp {
    package static func moment(_ name: String, _ valueName: String, _ help: String) -> Option<Timestamp> {
        Option(name, valueName, help) { text, flag in
            let chars = Array(text)
            // 2026-12-10T09:00 then Z or an offset: the seconds are :00.
            let withSeconds =
                chars.count > 16 && chars[10] == "T" && chars[13] == ":" && chars[16] != ":"
                ? String(chars[0..<16]) + ":00" + String(chars[16...]) : text
            guard text.count > 10, let time = Timestamp(iso8601: withSeconds) else {
                throw RolloutError.usage(
                    "\(flag) \"\(InputLimits.echo(text))\" is not a time with its UTC offset, such as 2026-12-10T09:00+03:00 or 2026-12-10T06:00:00Z"
                )
            }
            return time
        }
    }
}
