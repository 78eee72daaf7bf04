import RolloutIngest
import RolloutModel
import RolloutStore

/// `rollout status` without a locale: every locale at a glance (docs/targeting.md, "rollout status").
/// The rows are `LocaleGlance` (RolloutIngest), so health is judged by the one evaluation `health`,
/// promote and guard use, and `report --all` shows the same columns.
extension PlanCommands {
    static func overview(_ repository: PackRepository, snapshot: Snapshot, now: Timestamp, style: Style) throws
        -> CommandOutput
    {
        let (locales, unpromoted) = try LocaleGlance.all(in: repository, at: snapshot)
        // Pending changes of every locale, those whose first promote is scheduled too.
        let schedules = try snapshot.scheduledLocales().map { try snapshot.schedule($0) }.filter { !$0.pending.isEmpty }
        var table = Table("LOCALE", "BASELINE", "STAGED", "HEALTH", "HELD", "BLOCKED", "NEWEST METRICS", "LAST CHANGE")
        for glance in locales {
            let plan = glance.plan
            let last = plan.lastChange.map { "\($0.time) \($0.action) by \($0.actor)" } ?? "-"
            let holds = glance.holds.map(\.label).joined(separator: "; ")
            table.add(
                glance.locale, glance.baselineLabel, glance.stagedLabel,
                glance.standingLabel, holds.isEmpty ? "-" : holds,
                plan.blocked.isEmpty ? "-" : plan.blocked.map { "@\($0)" }.joined(separator: ","),
                glance.metricsLabel(now: now), cell(last, width: 70))
        }
        var text =
            locales.isEmpty
            ? "Nothing promoted yet. Stage a pack with rollout promote LOCALE@VERSION --to 1%.\n"
            : table.render(style)
        for glance in locales {
            if let failure = glance.failure {
                text += "\(glance.locale): health could not be evaluated: \(Refusals.message(of: failure))\n"
            }
        }
        if !locales.isEmpty && !unpromoted.isEmpty {
            text +=
                "Packs but nothing promoted: \(unpromoted.joined(separator: ", ")) (rollout status LOCALE says how to start).\n"
        }
        text += pendingLines(schedules, now: now)
        let json: JSONValue = [
            "locales": .array(locales.map { overviewJSON($0, now: now) }),
            "plans": .array(locales.map(\.plan.jsonValue)),
            "unpromoted": .array(unpromoted.map { .string($0) }),
            "pending": .array(
                schedules.flatMap { schedule in
                    schedule.pending.map { change -> JSONValue in
                        var object = change.jsonValue.objectValue ?? [:]
                        object["locale"] = .string(schedule.locale)
                        return .object(object)
                    }
                }),
        ]
        return CommandOutput(json: json, text: text)
    }

    /// The scheduled changes of every locale, a line each, soonest first: what guard will apply
    /// (`status LOCALE` shows who scheduled each and why).
    static func pendingLines(_ schedules: [Schedule], now: Timestamp) -> String {
        let pending = schedules.flatMap { schedule in schedule.pending.map { (schedule.locale, $0) } }
            .sorted { ($0.1.at, $0.0, $0.1.id) < ($1.1.at, $1.0, $1.1.id) }
        guard !pending.isEmpty else { return "" }
        var text = "Scheduled (rollout guard applies each when due; rollout cancel LOCALE ID takes one back):\n"
        for (locale, change) in pending {
            text += "  \(locale) \(ScheduleCommands.line(change, now: now))\n"
        }
        return text
    }

    /// One row of `status --json` (docs/targeting.md): the table's columns as data, and the plan.
    static func overviewJSON(_ glance: LocaleGlance, now: Timestamp) -> JSONValue {
        let plan = glance.plan
        let holds = glance.holds.map { hold -> JSONValue in
            var object: [String: JSONValue] = ["hold": .string(hold.name)]
            if case .sampleRatioMismatch(let segments) = hold {
                object["segments"] = .array(segments.map { .string($0) })
            }
            return .object(object)
        }
        return [
            "locale": .string(glance.locale),
            "baseline": plan.baseline.map { .string("\(glance.locale)@\($0.contentVersion)") } ?? .null,
            "staged": glance.staged.map { .string($0.description) } ?? .null,
            "health": .string(glance.standing.rawValue),
            "error": glance.failure.map { .string(Refusals.message(of: $0)) } ?? .null,
            "held": .bool(!glance.holds.isEmpty), "holds": .array(holds),
            "blocked": .array(plan.blocked.map { .string("\(glance.locale)@\($0)") }),
            "newestMetrics": glance.newestMetricsDay.map {
                .string(String(Timestamp(seconds: Int64($0) * 86_400).description.prefix(10)))
            } ?? .null,
            "metricsAgeDays": glance.metricsAgeDays(now: now).map { .integer($0) } ?? .null,
            "plan": plan.jsonValue,
        ]
    }
}
