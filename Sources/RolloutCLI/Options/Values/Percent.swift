import RolloutModel

/// A share of devices: `10%`, `10`, `0.25%` (the grammar is `Percent.parse`, which plans use too).
extension Percent: ArgumentValue {
    package static func argument(_ text: String, flag: String) throws -> Percent { try parse(text) }
    package static var completion: ValueCompletion { .words(["1%", "5%", "10%", "25%", "50%", "100%"]) }
}
