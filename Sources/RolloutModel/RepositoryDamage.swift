/// A repository whose stored objects or files cannot be read as what they are: an object the
/// history names is missing, a pack file is cut short or changed, an object does not inflate or
/// does not hash to its id, a stored file does not parse. Not a bug in rollout (exit 65, not 70):
/// every command names what it could not read and points to `rollout verify`, which lists all of
/// it (docs/reliability.md, "A damaged repository"). The one wording for every such failure.
extension RolloutError {
    public static func repositoryDamaged(_ what: String, repository: String? = nil) -> RolloutError {
        var place = "the repository"
        if var directory = repository {
            while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
            place += " \(directory)"
        }
        return .badInput(
            "\(place) is damaged: \(what); run rollout verify to list the damage, then restore the repository "
                + "from a clone or a backup")
    }

    /// What `repositoryDamaged` was given, for a report that lists damage itself (`rollout verify`);
    /// nil for any other error.
    public var damage: String? {
        guard isRepositoryDamage, let start = message.range(of: " is damaged: "),
            let end = message.range(of: "; run rollout verify", options: .backwards)
        else { return nil }
        return String(message[start.upperBound..<end.lowerBound])
    }

    /// Whether this error is `repositoryDamaged`'s.
    public var isRepositoryDamage: Bool {
        guard case .badInput(let message) = self else { return false }
        return message.hasPrefix("the repository") && message.contains(" is damaged: ")
            && message.contains("run rollout verify")
    }
}
