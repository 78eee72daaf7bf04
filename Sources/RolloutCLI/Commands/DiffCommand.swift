import RolloutModel
import RolloutStore

/// `rollout diff REV1 REV2`: what changed for devices between two points of the history, per locale
/// and per segment, from the plans at each point (`PlanDiff`, the same pieces `promote --dry-run`
/// and `log --segment` show).
enum DiffCommand {
    static let spec = CommandSpec(
        path: ["diff"],
        summary: "what changed for devices between two points of the history, per locale and segment",
        discussion: """
            REV is a commit id (or a unique start of one), a git revision such as HEAD~3 (HEAD is the
            state branch) or a tag, or a time such as 2026-11-30 or 2026-11-30T09:00:00Z, meaning the
            last state at or before it. For each locale whose devices get something else at REV2 than at
            REV1, prints every segment (region x app version range) whose packs or shares changed, before
            -> after, and the blocked versions and the kill switch when they changed. --locale narrows
            to one locale. A revision that names nothing is refused (exit 66). See docs/audit.md.
            """,
        options: Options.self,
        arguments: .exactly("REV1", "REV2"),
        effects: .readsRepository,
        run: run)

    struct Options: OptionGroup {
        let locale = Option<LocaleTag>("locale", "L", "only this locale")

        static let declared = Options()
    }

    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> CommandOutput {
        let only = try invocation.value(Options.declared.locale)?.description
        let repository = try context.repository(invocation)
        let from = try repository.snapshot(at: invocation.positionals[0])
        let to = try repository.snapshot(at: invocation.positionals[1])
        let locales = Set(try from.plannedLocales() + to.plannedLocales()).filter { only == nil || $0 == only }
        let diffs = try locales.sorted().map { PlanDiff(locale: $0, before: try from.plan($0), after: try to.plan($0)) }
            .filter { !$0.isEmpty }
        let points = try [from, to].map { try point($0) }
        let style = context.style(invocation)
        var text = "From \(points[0].text)\nto   \(points[1].text)\n"
        if diffs.isEmpty {
            text += "Nothing changed for any device" + (only.map { " of \($0)" } ?? "") + ".\n"
        }
        for diff in diffs { text += describe(diff, style: style) }
        return CommandOutput(
            json: [
                "from": points[0].json, "to": points[1].json, "locales": .array(diffs.map(json)),
            ],
            text: text)
    }

    /// A point of the history as the output names it: its commit, time and summary.
    static func point(_ snapshot: Snapshot) throws -> (text: String, json: JSONValue) {
        guard let id = snapshot.commit else { return ("(empty)", .null) }
        let commit = try snapshot.readCommit(id)
        let time = Timestamp(seconds: commit.author.time)
        let summary = commit.message.split(separator: "\n").first.map(String.init) ?? ""
        return (
            "\(id.short) \(time) \(summary)",
            ["commit": .string(id.hex), "time": .string(time.description), "summary": .string(summary)]
        )
    }

    static func describe(_ diff: PlanDiff, style: Style) -> String {
        var text = "\n" + style.bold(diff.locale) + "\n"
        if !diff.segments.isEmpty {
            var table = Table("SEGMENT", "BEFORE", "AFTER")
            for change in diff.segments {
                table.add(
                    "\(change.after.regions) \(change.after.versions)", change.before.describe(locale: diff.locale),
                    change.after.describe(locale: diff.locale))
            }
            text += table.render(style)
        }
        func versions(_ list: [Int]) -> String {
            list.isEmpty ? "none" : list.map { "\(diff.locale)@\($0)" }.joined(separator: ", ")
        }
        if diff.blocked.before != diff.blocked.after {
            text += "blocked: \(versions(diff.blocked.before)) -> \(versions(diff.blocked.after))\n"
        }
        if diff.killSwitch.before != diff.killSwitch.after {
            func state(_ on: Bool) -> String { on ? "on (bundled strings only)" : "off" }
            text += "kill switch: \(state(diff.killSwitch.before)) -> \(state(diff.killSwitch.after))\n"
        }
        if diff.testers.before != diff.testers.after {
            func groups(_ list: [String]) -> String { list.isEmpty ? "none" : list.joined(separator: "; ") }
            text += "testers: \(groups(diff.testers.before)) -> \(groups(diff.testers.after))\n"
        }
        return text
    }

    static func json(_ diff: PlanDiff) -> JSONValue {
        func shares(_ piece: SegmentShares.Piece) -> JSONValue {
            .array(
                piece.shares.map {
                    ["pack": .string($0.outcome.label(locale: diff.locale)), "basisPoints": .integer($0.basisPoints)]
                })
        }
        func versions(_ list: [Int]) -> JSONValue { .array(list.map { .string("\(diff.locale)@\($0)") }) }
        var object: [String: JSONValue] = [
            "locale": .string(diff.locale),
            "segments": .array(
                diff.segments.map {
                    [
                        "regions": .string($0.after.regions), "appVersions": .string($0.after.versions),
                        "before": shares($0.before), "after": shares($0.after),
                    ]
                }),
            "blocked": ["before": versions(diff.blocked.before), "after": versions(diff.blocked.after)],
            "killSwitch": ["before": .bool(diff.killSwitch.before), "after": .bool(diff.killSwitch.after)],
        ]
        // Only when they changed: a diff without tester groups reads as it did before them.
        if diff.testers.before != diff.testers.after {
            object["testers"] = [
                "before": .array(diff.testers.before.map { .string($0) }),
                "after": .array(diff.testers.after.map { .string($0) }),
            ]
        }
        return .object(object)
    }
}
