import RolloutModel

/// A length of time in seconds: a whole number and a unit, `30m`, `12h`, `7d`, `2w` (the one grammar,
/// `TimeSpan.read`), no longer than the declaration's `maximum`; `zero` also takes `0`
/// (`keys rotate --overlap 0`: the old keys retire now).
extension Option where Value == Int64 {
    package static func duration(
        _ name: String, _ valueName: String, _ help: String, maximum: Int64 = TimeSpan.maximumSeconds,
        zero: Bool = false
    ) -> Option<Int64> {
        Option(name, valueName, help, completion: .words(["30m", "12h", "7d", "2w", "365d"])) { text, flag in
            if zero, text == "0" { return 0 }
            switch TimeSpan.read(text, maximum: maximum) {
            case .seconds(let seconds): return seconds
            case .tooLong:
                throw RolloutError.usage(
                    "\(flag) \"\(InputLimits.echo(text))\" is longer than the limit of \(TimeSpan.describe(maximum))")
            case .notADuration:
                let bare = text.isDecimalDigits
                throw RolloutError.usage(
                    "\(flag) \"\(InputLimits.echo(text))\" is not a duration: give \(TimeSpan.spelling)"
                        + (bare ? " (a number needs its unit)" : ""))
            }
        }
    }
}
