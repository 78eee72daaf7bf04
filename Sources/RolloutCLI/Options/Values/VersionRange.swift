import RolloutModel

/// App versions a rule targets: `>=4.8`, `">=4.8 <5"`, `4.8.x`, `=4.8.1` (`VersionRange.parse`).
extension VersionRange: ArgumentValue {
    package static func argument(_ text: String, flag: String) throws -> VersionRange { try parse(text) }
}
