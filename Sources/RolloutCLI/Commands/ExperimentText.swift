import Foundation
import RolloutModel

/// How `rollout experiment show` and `simulate` print (docs/experiments.md).
enum ExperimentText {
    static func percent(_ fraction: Double, digits: Int = 2) -> String {
        String(format: "%.\(digits)f%%", fraction * 100)
    }

    /// "+10.0%", "-3.2%", "+inf".
    static func lift(_ value: Double?) -> String {
        guard let value else { return "-" }
        if value.isInfinite { return "+inf" }
        return String(format: "%+.1f%%", value * 100)
    }

    static func split(_ record: ExperimentRecord) -> String { "split " + record.variantsLabel(markingControl: true) }

    static func keys(_ keys: [String]) -> String {
        keys.count <= 3 ? keys.joined(separator: ", ") : keys.prefix(3).joined(separator: ", ") + ", ..."
    }

    /// The verdict and the next step; for an ended experiment, what the data said when it ended.
    static func verdict(_ record: ExperimentRecord, _ verdict: ExperimentAnalysis.Verdict, now: Timestamp) -> String {
        let ended = record.ending != nil
        switch verdict {
        case .winner(let version):
            let id = "\(record.locale)@\(version)"
            return "winner \(id)" + (ended ? "" : ": ship it with rollout experiment stop \(record.name) --ship \(id)")
        case .harm(let why):
            return "harm: \(why)" + (ended ? "" : "; stop it with rollout experiment stop \(record.name)")
        case .noDifference:
            return "no difference shown in \(record.days) days: the control stays unless another reason says otherwise"
        case .keepRunning(let days):
            if ended { return "undecided when it ended" }
            if let days { return "keep running (~\(days) day\(days == 1 ? "" : "s") at current traffic)" }
            let left = Int(record.daysLeft(at: now).rounded(.up))
            return
                "keep running (no estimate yet; \(left) day\(left == 1 ? "" : "s") left of \(record.days))"
        case .void(let why):
            return "void: \(why); no comparison can be trusted, fix the cause and start a new experiment"
        }
    }

    static func show(_ record: ExperimentRecord, _ result: ExperimentAnalysis.Result, now: Timestamp, style: Style)
        -> String
    {
        let state =
            record.ending.map { "ended \(String($0.time.description.prefix(10))): \($0.outcome)" }
            ?? "running since \(String(record.started.description.prefix(10))) (day \(record.day(at: now)) of \(record.days))"
        var text = "experiment \(record.name) on \(record.locale): \(state)\n"
        text += "  targets \(record.published.target); \(split(record))\n"
        text += "  primary metric \(record.primary), declared at the start\n\n"
        text += table(record, result.comparisons.filter { !$0.exploratory }, style: style)
        let primaryAlpha = result.comparisons.first { !$0.exploratory }?.alpha ?? ExperimentAnalysis.alpha
        text += "  bounds: \(percent(1 - primaryAlpha, digits: 1)) anytime-valid (every look, every day)\n\n"
        for check in result.sampleRatios {
            let observed = check.observed.map { percent($0, digits: 1) } ?? "-"
            text +=
                "sample ratio \(check.segment): \(check.verdict.rawValue) (\(observed) of its and the control's exposures, "
                + "split \(percent(check.planned, digits: 1)))\n"
        }
        for (treatment, report) in result.guardrails.sorted(by: { $0.key < $1.key }) {
            let kinds = record.guardrails.map { kind in
                let checks = report.checks.filter { $0.kind == kind }
                let worst = checks.map(\.verdict).max() ?? .insufficientData
                return "\(kind) \(worst.rawValue)"
            }
            text += "guardrails \(record.locale)@\(treatment): \(kinds.joined(separator: ", "))\n"
        }
        for metric in record.exploratory {
            let rows = result.comparisons.filter { $0.metric == metric }
            let alpha = rows.first?.alpha ?? ExperimentAnalysis.alpha
            text += "\nexploratory \(metric) (bounds at \(percent(1 - alpha, digits: 2)), corrected; never decides):\n"
            text += table(record, rows, style: style)
        }
        text += "\nverdict: \(verdict(record, result.verdict, now: now))\n"
        return text
    }

    static func table(_ record: ExperimentRecord, _ rows: [ExperimentAnalysis.Comparison], style: Style) -> String {
        var table = Table("VARIANT", "EXPOSURES", "CONVERSIONS", "RATE", "LIFT", "BOUND")
        if let control = rows.first?.control {
            table.add(
                "\(record.id(record.control)) control", "\(control.total)", "\(control.events)",
                control.rate.map { percent($0) } ?? "-", "", "")
        }
        for row in rows {
            let bound =
                row.control.total == 0 && row.variant.total == 0 ? "-" : "[\(lift(row.lower)), \(lift(row.upper))]"
            table.add(
                "\(record.locale)@\(row.treatment)", "\(row.variant.total)", "\(row.variant.events)",
                row.variant.rate.map { percent($0) } ?? "-", lift(row.lift), bound)
        }
        return table.render(style)
    }

    /// The outcome metrics counted on the experiment's days that are not its own, when there are:
    /// never read, and most often a metric misspelled in an export.
    static func otherMetrics(_ others: [String], of record: ExperimentRecord) -> String {
        guard !others.isEmpty else { return "" }
        return "note: outcome counts of \(others.joined(separator: ", ")) on its days are not of its metrics "
            + "(\(record.metrics.joined(separator: ", "))) and are never read; a metric misspelled in an export? "
            + "rollout metrics retract FILE takes an export out\n"
    }

    static func json(_ record: ExperimentRecord, _ result: ExperimentAnalysis.Result) -> JSONValue {
        func number(_ value: Double?) -> JSONValue {
            guard let value, value.isFinite else { return .null }
            return .number(JSONNumber(value))
        }
        var verdict: [String: JSONValue] = ["verdict": .string(result.verdict.label)]
        switch result.verdict {
        case .winner(let version): verdict["pack"] = .string("\(record.locale)@\(version)")
        case .harm(let why), .void(let why): verdict["why"] = .string(why)
        case .keepRunning(let days): verdict["days"] = days.map { .integer($0) } ?? .null
        case .noDifference: break
        }
        return [
            "experiment": record.jsonValue,
            "comparisons": .array(result.comparisons.map { $0.jsonValue(locale: record.locale) }),
            "sampleRatio": .array(
                result.sampleRatios.map {
                    [
                        "pack": .string($0.segment), "verdict": .string($0.verdict.rawValue),
                        "observed": number($0.observed), "planned": number($0.planned),
                    ]
                }),
            "guardrails": .object(
                Dictionary(
                    uniqueKeysWithValues: result.guardrails.map {
                        ("\(record.locale)@\($0.key)", JSONValue.string($0.value.verdict.rawValue))
                    })),
            "verdict": .object(verdict),
        ]
    }
}
