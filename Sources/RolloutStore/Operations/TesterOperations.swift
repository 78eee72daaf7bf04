import RolloutModel

/// What `testers add` or `testers remove` did: the group after it, the ids it added or took out,
/// and the locales whose staged testers it changed.
public struct TesterChange: Sendable {
    public let group: TesterGroup
    public let changed: [String]
    public let locales: [String]
    /// True when the group did not exist before.
    public let created: Bool
}

/// Tester groups (docs/targeting.md, "Testers first"). Each change is one commit that writes
/// `testers/<group>.json` and, so that devices follow the group, the plan of every locale whose
/// candidate is staged to it: those plans get the new member hashes and a new sequence.
public enum TesterOperations {
    /// Adds `ids` to `group`, making the group (and its salt) when it is new.
    public static func add(
        _ ids: [String], to group: String, in repository: PackRepository, reason: String? = nil, actor: Actor,
        time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<TesterChange> {
        try change(group, in: repository, reason: reason, actor: actor, time: time, creating: true) {
            $0.adding(ids)
        }
    }

    /// Takes `ids` out of `group`; an id that is not a member is left alone.
    public static func remove(
        _ ids: [String], from group: String, in repository: PackRepository, reason: String? = nil, actor: Actor,
        time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<TesterChange> {
        try change(group, in: repository, reason: reason, actor: actor, time: time, creating: false) {
            $0.removing(ids)
        }
    }

    static func change(
        _ name: String, in repository: PackRepository, reason: String?, actor: Actor, time: @escaping () -> Timestamp,
        creating: Bool, edit: (inout TesterGroup) -> [String]
    ) throws -> PackRepository.Applied<TesterChange> {
        guard TesterGroup.isValidName(name) else { throw TesterRefusal.badGroupName(name) }
        return try repository.apply(actor: actor, time: time) { snapshot in
            let old = try snapshot.testerGroup(name)
            guard creating || old != nil else {
                throw TesterRefusal.noSuchGroup(name, groups: try snapshot.testerGroupNames())
            }
            var group =
                old
                ?? TesterGroup(
                    name: name, salt: TesterGroup.salt(group: name, parent: snapshot.commit?.hex ?? ""), installIDs: [])
            let changed = edit(&group)
            let action: ChangeAction = creating ? .testersAdd : .testersRemove
            let plans = try restaged(group, on: snapshot, action: action, reason: reason, actor: actor, time: time())
            let result = TesterChange(group: group, changed: changed, locales: plans.map(\.locale), created: old == nil)
            // A dry run stops in `PackRepository.apply`, after this change is made, as every dry run does.
            if changed.isEmpty && old != nil { return (nil, result) }
            let verb = creating ? "add \(changed.count) to" : "remove \(changed.count) from"
            let change = Change(
                summary: "testers \(verb) \(name)",
                trailers: [
                    (.action, action.rawValue), (.testers, name), (.installIDs, "\(changed.count)"),
                ] + (reason.map { [(.reason, $0)] } ?? []),
                writes: [(StateLayout.testers(name), JSONWriter.pretty(group.jsonValue))]
                    + plans.map { (StateLayout.plan($0.locale), JSONWriter.pretty($0.jsonValue)) })
            return (change, result)
        }
    }

    /// The plans that stage their candidate to `group`, with its members as they are now.
    static func restaged(
        _ group: TesterGroup, on snapshot: Snapshot, action: ChangeAction, reason: String?, actor: Actor,
        time: Timestamp
    )
        throws -> [Plan]
    {
        var plans: [Plan] = []
        for locale in try snapshot.plannedLocales() {
            guard var plan = try snapshot.plan(locale),
                let index = plan.testers.firstIndex(where: { $0.group == group.name })
            else { continue }
            let target = Plan.TesterTarget(group, pack: plan.testers[index].pack)
            if target == plan.testers[index] { continue }
            plan.testers[index] = target
            plan.sequence += 1
            plan.lastChange = Plan.LastChange(
                action: action.rawValue, actor: actor.description, time: time, reason: reason)
            plans.append(plan)
        }
        return plans
    }
}
