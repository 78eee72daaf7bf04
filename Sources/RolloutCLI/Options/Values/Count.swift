import RolloutModel

/// A whole number within bounds the declaration sets (`--threshold`, `--devices`, `--limit`):
/// decimal digits only, no sign, no unit.
extension Option where Value == Int {
    package static func count(
        _ name: String, _ valueName: String, _ help: String, minimum: Int, maximum: Int = .max,
        repeatable: Bool = false
    ) -> Option<Int> {
        Option(name, valueName, help, repeatable: repeatable) { text, flag in
            guard text.isDecimalDigits, let n = Int(text), (minimum...maximum).contains(n)
            else {
                let bounds = maximum == .max ? "of at least \(minimum)" : "from \(minimum) to \(maximum)"
                throw RolloutError.usage("\(flag) \"\(InputLimits.echo(text))\" must be a whole number \(bounds)")
            }
            return n
        }
    }
}
