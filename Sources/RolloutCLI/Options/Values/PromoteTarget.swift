import RolloutModel

/// What `promote --to` gives a pack to: a share of devices (`10%`, as `Percent.parse` reads it), or
/// a tester group (`testers:qa`; docs/targeting.md, "Testers first").
enum PromoteTarget: ArgumentValue {
    case share(Percent)
    case testers(String)

    static let testersPrefix = "testers:"

    static func argument(_ text: String, flag: String) throws -> PromoteTarget {
        guard text.hasPrefix(testersPrefix) else { return .share(try Percent.parse(text)) }
        let name = String(text.dropFirst(testersPrefix.count))
        guard TesterGroup.isValidName(name) else { throw TesterRefusal.badGroupName(name) }
        return .testers(name)
    }

    static var completion: ValueCompletion { Percent.completion }
}
