import RolloutIngest
import RolloutModel
import RolloutStore

/// Everything the page of one experiment shows (docs/report.md, "An experiment's page"), read from
/// the repository once by `gather`: the record (the question declared at the start, and its
/// ending), the analysis `rollout experiment show` prints, and the verdict as it words it. The page
/// is a function of this value alone (`ExperimentPage.render(_:)`).
public struct ExperimentContent: Sendable {
    let record: ExperimentRecord
    let result: ExperimentAnalysis.Result
    /// The verdict, worded as the command line words it (the caller's wording: a sentence with the
    /// next step).
    let verdict: String
    let generated: Timestamp
    let repositoryPath: String
    /// The state commit the page was made from, abbreviated.
    let state: String?
    /// The locale's page and the overview written beside this one (`report --all`), linked from
    /// the header; nil for a page on its own.
    var localePage: String? = nil
    var overview: String? = nil

    /// `wording` words a verdict as `experiment show` does.
    static func gather(
        name: String, snapshot: Snapshot, repositoryPath: String,
        wording: (ExperimentRecord, ExperimentAnalysis.Verdict) -> String, now: Timestamp
    ) throws -> ExperimentContent {
        guard let record = try snapshot.experiment(name) else {
            throw ExperimentRefusal.noSuchExperiment(name, known: try snapshot.experimentNames())
        }
        let result = try ExperimentReading.analyze(record, in: snapshot, now: now)
        return ExperimentContent(
            record: record, result: result, verdict: wording(record, result.verdict), generated: now,
            repositoryPath: repositoryPath, state: snapshot.commit?.short)
    }

    /// One day's exposures of each variant (content version), not cumulative.
    struct DayExposures: Sendable {
        let day: Int
        let exposures: [Int: Int]
    }

    /// The exposures each variant counted on each day of the experiment with any, from the primary metric's
    /// cumulative counts (`ExperimentAnalysis.Point`): the control's from the first treatment's
    /// points, each treatment's from its own.
    var dailyExposures: [DayExposures] {
        let control = record.control.contentVersion
        let treatments = record.treatments.map(\.contentVersion)
        guard let first = treatments.first, let days = result.timeline[first] else { return [] }
        var rows: [DayExposures] = []
        for (index, point) in days.enumerated() {
            var exposures = [control: point.controlExposures - (index > 0 ? days[index - 1].controlExposures : 0)]
            for treatment in treatments {
                guard let points = result.timeline[treatment], index < points.count else { continue }
                exposures[treatment] =
                    points[index].variantExposures - (index > 0 ? points[index - 1].variantExposures : 0)
            }
            // A day without any exposure has no rollup yet (today, before its metrics come in): no point.
            if exposures.values.contains(where: { $0 != 0 }) {
                rows.append(DayExposures(day: point.day, exposures: exposures))
            }
        }
        return rows
    }

    /// The days the charts span: from the first day of the experiment to the last it counts, or its
    /// horizon when that is later.
    var chartDays: ClosedRange<Int> {
        let days = record.days(until: generated)
        return days.lowerBound...max(days.upperBound, days.lowerBound + record.days)
    }

    /// `tr-TR@18`.
    func pack(_ version: Int) -> String { "\(record.locale)@\(version)" }
}

/// An experiment on a locale as the locale's page and the overview list it: a line, and its page
/// when one was written beside them.
struct ExperimentLine: Sendable {
    let name: String
    let locale: String
    /// "running since 2026-11-24", "ended 2026-11-28: shipped tr-TR@18 to 50%".
    let status: String
    /// "tr-TR@17 (control), tr-TR@18".
    let variants: String

    init(_ record: ExperimentRecord) {
        name = record.name
        locale = record.locale
        status =
            record.ending.map { "ended \($0.time.description.prefix(10)): \($0.outcome)" }
            ?? "running since \(record.started.description.prefix(10))"
        variants = record.variants.enumerated().map {
            record.id($0.element).description + ($0.offset == 0 ? " (control)" : "")
        }.joined(separator: ", ")
    }

    /// Every experiment of `locale` (nil: of every locale) at `snapshot`, by name.
    static func all(locale: String?, in snapshot: Snapshot) throws -> [ExperimentLine] {
        try snapshot.experimentNames().sorted().compactMap { name in
            guard let record = try snapshot.experiment(name), locale == nil || record.locale == locale else {
                return nil
            }
            return ExperimentLine(record)
        }
    }
}
