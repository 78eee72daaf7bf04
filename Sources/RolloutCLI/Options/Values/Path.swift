import RolloutModel

/// A file or directory named on the command line, as typed: relative to the working directory
/// (`CommandContext.absolutePath`). Completion offers file names.
package struct Path: ArgumentValue, Sendable {
    /// The path as typed, for messages and for `CommandContext.absolutePath`.
    package let text: String

    package static func argument(_ text: String, flag: String) throws -> Path { Path(text: text) }
    package static var completion: ValueCompletion { .files }
}
