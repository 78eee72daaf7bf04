import RolloutModel
import RolloutStore

/// One planned locale at a glance, as `rollout status` (no locale) and `rollout report --all` list
/// every locale (docs/targeting.md, "rollout status"): its plan, the health of its staged pack as
/// `HealthCheck.evaluate` judges it (the one evaluation `health`, promote, guard and `report` use),
/// what holds it, and the newest date metrics are stored for. The wording of each column is here
/// too, so the table and the page say the same thing.
public struct LocaleGlance: Sendable {
    /// Why a locale's rollout does not move on its own.
    public enum Hold: Equatable, Sendable {
        /// The staged pack's sessions do not match the plan's share in these segments (docs/health.md,
        /// "Sample ratio mismatch"): guard and promote hold it until a person finds why.
        case sampleRatioMismatch(segments: [String])
        /// The ramp was paused by hand.
        case rampPaused
        /// Every device uses its bundled strings.
        case killSwitch

        public var label: String {
            switch self {
            case .sampleRatioMismatch(let segments):
                return "sample ratio mismatch in " + segments.joined(separator: ", ")
            case .rampPaused: return "ramp paused"
            case .killSwitch: return "kill switch"
            }
        }

        /// The name `--json` gives the hold.
        public var name: String {
            switch self {
            case .sampleRatioMismatch: return "sample-ratio-mismatch"
            case .rampPaused: return "ramp-paused"
            case .killSwitch: return "kill-switch"
            }
        }
    }

    /// The health column: a verdict of `Health`, or why there is none.
    public enum Standing: String, Sendable {
        case healthy, unhealthy
        case insufficientData = "insufficient-data"
        /// Nothing staged: nothing to judge.
        case nothingStaged = "nothing-staged"
        /// Staged with no baseline to compare it with.
        case noBaseline = "no-baseline"
        /// The metrics could not be read (`failure` says why).
        case error
    }

    public let plan: Plan
    /// The staged pack's health against the baseline; nil when nothing is staged against a baseline
    /// or when it could not be evaluated (`failure`).
    public let health: Health.Report?
    /// Why the health could not be evaluated (metrics out of range or unreadable, a refusal): the
    /// other locales are still listed, as guard still guards them.
    public let failure: (any Error)?
    /// The newest date (days since the epoch) of any metrics stored for the locale, either kind, any pack.
    public let newestMetricsDay: Int?

    public var locale: String { plan.locale }

    /// The pack staged against the baseline, if any.
    public var staged: PackID? { plan.candidate.map { PackID(locale: plan.locale, contentVersion: $0.contentVersion) } }

    /// What holds the rollout, in the order a person clears them.
    public var holds: [Hold] {
        var holds: [Hold] = []
        if let mismatches = health?.mismatches, !mismatches.isEmpty {
            holds.append(.sampleRatioMismatch(segments: mismatches.map(\.segment)))
        }
        if plan.ramp?.paused == true { holds.append(.rampPaused) }
        if plan.bundledOnly { holds.append(.killSwitch) }
        return holds
    }

    /// The health column.
    public var standing: Standing {
        if failure != nil { return .error }
        guard plan.candidate != nil else { return .nothingStaged }
        guard let health else { return .noBaseline }
        switch health.verdict {
        case .healthy: return .healthy
        case .unhealthy: return .unhealthy
        case .insufficientData: return .insufficientData
        }
    }

    /// The HEALTH cell: the standing, or `-` when nothing is staged.
    public var standingLabel: String { standing == .nothingStaged ? "-" : standing.rawValue }

    /// `@17`, or the kill switch, or `-`.
    public var baselineLabel: String {
        plan.bundledOnly ? "bundled (kill switch)" : plan.baseline.map { "@\($0.contentVersion)" } ?? "-"
    }

    /// Each tester group and staged rule: `@18 testers:qa`, `@18 10% TR >=4.8`, joined by `; `; `-` for none.
    public var stagedLabel: String {
        let rules =
            plan.testers.map { "@\($0.pack.contentVersion) testers:\($0.group)" }
            + plan.rules.map { "@\($0.pack.contentVersion) \($0.share) \($0.regionsLabel) \($0.versions)" }
            + (plan.experiment.map { experiment in
                [
                    "experiment \(experiment.name): "
                        + experiment.variants.map { "@\($0.pack.contentVersion) \($0.share)" }.joined(separator: "/")
                ]
            } ?? [])
        return rules.isEmpty ? "-" : rules.joined(separator: "; ")
    }

    /// `2026-11-27 (1 day ago)` at `now`, or `none`.
    public func metricsLabel(now: Timestamp) -> String {
        guard let day = newestMetricsDay else { return "none" }
        let date = String(Timestamp(seconds: Int64(day) * 86_400).description.prefix(10))
        guard let age = metricsAgeDays(now: now), age >= 0 else { return date }
        return "\(date) (\(age == 0 ? "today" : age == 1 ? "1 day ago" : "\(age) days ago"))"
    }

    /// Whole days from the newest metrics' date to `now`'s (metrics are dated by UTC day).
    public func metricsAgeDays(now: Timestamp) -> Int? {
        newestMetricsDay.map { Int(now.seconds / 86_400) - $0 }
    }

    /// Every locale with a plan at `snapshot` (default: `repository`'s tip), in locale order, and the
    /// locales with packs but nothing promoted.
    public static func all(in repository: PackRepository, at snapshot: Snapshot? = nil) throws -> (
        locales: [LocaleGlance], unpromoted: [String]
    ) {
        let snapshot = try snapshot ?? repository.snapshot()
        let planned = try snapshot.plannedLocales()
        let unpromoted = try snapshot.locales().filter { !planned.contains($0) }
        var locales: [LocaleGlance] = []
        for locale in planned {
            // A plan that cannot be read is a damaged repository: status stops, as every command does.
            guard let plan = try snapshot.plan(locale) else { continue }
            let newest = try newestMetricsDay(of: locale, snapshot: snapshot)
            do {
                let health = try HealthCheck.evaluate(plan, snapshot: snapshot, repository: repository)
                locales.append(LocaleGlance(plan: plan, health: health, failure: nil, newestMetricsDay: newest))
            } catch let error as RolloutError {
                // Metrics that cannot be summed (out of range, unreadable) stop this locale's row only;
                // a failing disk or a damaged object store stops the command, as it stops any other.
                guard error.kind == .badInput else { throw error }
                locales.append(LocaleGlance(plan: plan, health: nil, failure: error, newestMetricsDay: newest))
            } catch let refusal as any Refusal {
                locales.append(LocaleGlance(plan: plan, health: nil, failure: refusal, newestMetricsDay: newest))
            }
        }
        return (locales, unpromoted)
    }

    /// The newest date of `locale`'s rollups, from their file names (`2026-11-27.json`) alone.
    static func newestMetricsDay(of locale: String, snapshot: Snapshot) throws -> Int? {
        var newest: Int?
        for kind in MetricKind.health {
            for entry in try snapshot.directory(MetricsLayout.rollupDirectory(kind, locale: locale))
            where !entry.isTree && entry.name.hasSuffix(".json") {
                guard let date = Timestamp(iso8601: String(entry.name.dropLast(5))) else { continue }
                let day = Int(date.seconds / 86_400)
                newest = max(newest ?? day, day)
            }
        }
        return newest
    }
}
