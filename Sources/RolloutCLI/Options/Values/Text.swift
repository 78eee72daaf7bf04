import RolloutModel

/// Free text (`--approved-by NAME`, `--arg NAME=VALUE`): taken as typed. The parser has already
/// refused an empty value.
extension String: ArgumentValue {
    package static func argument(_ text: String, flag: String) throws -> String { text }
}
