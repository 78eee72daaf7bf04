import RolloutModel
import RolloutStore

/// What every `--dry-run` of a command that records a change says about the commit it stopped
/// before (`PackRepository.dryRun`, the one place a dry run stops): the commit message the real run
/// would record, with its trailers, and the files it would write or remove in the repository.
enum DryRun {
    /// The last line of every dry run, as promote's and revert's say it.
    static let nothingWritten = "Nothing was written.\n"

    /// The commit `change` would be, indented, and the repository files it would write; a line saying
    /// no commit would be made when there is none.
    static func text(_ change: Change?, actor: Actor) -> String {
        guard let change else { return "It would record no commit.\n" }
        var text = "It would record this commit:\n"
        for line in change.message(actor: actor.description).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast()
        {
            text += line.isEmpty ? "\n" : "  \(line)\n"
        }
        let files =
            change.writes.map { "\($0.path) (\(ByteCount.describe($0.bytes.count)))" } + change.blobs.map(\.path)
        if !files.isEmpty { text += "writing " + files.joined(separator: ", ") + "\n" }
        if !change.removals.isEmpty { text += "removing " + change.removals.joined(separator: ", ") + "\n" }
        return text
    }

    /// `{"summary", "trailers": [{"name", "value"}], "writes": [{"path", "bytes"}], "removals"}`, or null.
    static func json(_ change: Change?, actor: Actor) -> JSONValue {
        guard let change else { return .null }
        let trailers = change.trailers + [(name: Trailer.actor, value: actor.description)]
        return [
            "summary": .string(Change.oneLine(change.summary)),
            "trailers": .array(
                trailers.map {
                    ["name": .string("Rollout-" + $0.name.rawValue), "value": .string(Change.oneLine($0.value))]
                }
            ),
            "writes": .array(
                change.writes.map { ["path": .string($0.path), "bytes": .integer($0.bytes.count)] }
                    + change.blobs.map { ["path": .string($0.path)] }),
            "removals": .array(change.removals.map { .string($0) }),
        ]
    }
}
