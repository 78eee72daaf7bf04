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
