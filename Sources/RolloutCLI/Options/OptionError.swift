import RolloutModel

/// A failure about one option: what the parser finds wrong with it (unknown, given twice, empty,
/// missing its value) and what its value type refuses when the command reads it. It carries the
/// option, so `--json` names it beside the message (`"option": "--to"`, docs/architecture.md,
/// "--json") from the declaration, not from the sentence.
struct OptionError: Error, Equatable {
    /// The option as spelled on the command line: `--to`.
    let option: String
    let error: RolloutError

    /// `body`, with any `RolloutError` it throws tied to `option`.
    static func about<T>(_ option: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as RolloutError {
            throw OptionError(option: option, error: error)
        }
    }
}
