import RolloutModel

/// A segment as rollout health names them, `TR/4.9`, either part `*` (`SegmentPattern.parse`).
extension SegmentPattern: ArgumentValue {
    package static func argument(_ text: String, flag: String) throws -> SegmentPattern { try parse(text) }
}
