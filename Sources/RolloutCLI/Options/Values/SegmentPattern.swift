import RolloutModel

/// A segment as rollout health names them, `TR/4.9`, either part `*` (`SegmentPattern.init`).
extension SegmentPattern: ArgumentValue {
    package static func argument(_ text: String, flag: String) throws -> SegmentPattern {
        guard let pattern = SegmentPattern(text) else {
            throw RolloutError.usage(
                "\(flag) \"\(text)\" must be a segment REGION/FAMILY as rollout health names them (TR/4.9), either part may be *"
            )
        }
        return pattern
    }
}
