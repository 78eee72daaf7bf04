import RolloutModel

/// A pack: `LOCALE@VERSION`, such as `tr-TR@18` (`PackID.parse`).
extension PackID: ArgumentValue {
    package static func argument(_ text: String, flag: String) throws -> PackID { try parse(text) }
}
