import Foundation
import RolloutIngest
import RolloutModel
import RolloutStore

/// Everything the report shows about one locale, read from the repository once by `gather`; the
/// page is a function of this value alone (`ReportPage.render(_:)`).
struct ReportContent: Sendable {
    /// One change of the locale, as the timeline lists it.
    struct Change: Sendable {
        let time: Timestamp
        let action: String
        let summary: String
        let actor: String
        let reason: String?
        let commit: String
        /// When the change rewrote this locale's plan: each staged rule's share afterwards, in
        /// rule order.
        let shares: [Share]?
        /// Who signed it (`ChangeAudit.signerLabel`), when the repository has signers; nil otherwise.
        var signer: String? = nil
    }

    /// The share of devices a rule gives the pack it stages, in percent.
    struct Share: Sendable {
        /// The pack the rule stages (`tr-TR@18`): the share chart names its series by it.
        let pack: String
        /// The rule's regions and versions (`TR on >=4.8`).
        let segment: String
        let percent: Double
    }

    /// One day of a metric: both arms summed over the segments where both were measured that day
    /// (the same rule as health).
    struct Day: Sendable {
        let day: Int
        let candidate: MetricCounts
        let baseline: MetricCounts
    }

    let locale: String
    let generated: Timestamp
    let repositoryPath: String
    /// The state commit the page was made from, abbreviated.
    let state: String?
    let plan: Plan
    /// Oldest first.
    let changes: [Change]
    /// The pack the report is about: the staged one, else the last one staged (a reverted rollout).
    let staged: Int?
    let gates: GatePolicy
    let health: Health.Report?
    /// Per metric, the days `staged` and the baseline were both measured (empty without both).
    let days: [MetricKind: [Day]]
    /// The rollback manifests, newest first.
    let rollbacks: [[String: JSONValue]]
    /// Stored rollback manifests that did not read as JSON objects: left out of `rollbacks`, yet
    /// they still mean the locale was reverted.
    let unreadableRollbacks: Int
    /// The overview page of every locale written beside this one (`report --all`), linked from the
    /// header; nil for a page on its own.
    var overview: String? = nil
    /// The experiments on this locale, running or ended, by name.
    var experiments: [ExperimentLine] = []
    /// The experiments whose page was written beside this one (`report --all`), to link to.
    var experimentPages: Set<String> = []

    var baseline: Int? { plan.baseline?.contentVersion }

    /// `health`: the staged pack's health when the caller judged it already on `snapshot` (`report
    /// --all` has each locale's from its overview row); judged here otherwise.
    static func gather(
        locale: String, repository: PackRepository, snapshot: Snapshot? = nil, health known: Health.Report?? = nil,
        signers: SignerLabels? = nil, now: Timestamp
    ) throws -> ReportContent {
        let snapshot = try snapshot ?? repository.snapshot()
        guard let plan = try snapshot.plan(locale) else {
            if try snapshot.contentVersions(of: locale).isEmpty { throw RolloutError.reportNoLocale(locale) }
            throw ReportRefusal.nothingPromoted(locale: locale)
        }
        var query = AuditLog.Query()
        query.locale = locale
        let entries = try AuditLog(repository: repository).query(query).entries.sorted { $0.sequence < $1.sequence }
        let staged =
            plan.candidate?.contentVersion
            ?? lastStaged(entries, locale: locale, baseline: plan.baseline?.contentVersion)
        let gates = try snapshot.policy().gates
        let health = try known ?? HealthCheck.evaluate(plan, snapshot: snapshot, repository: repository)
        var days: [MetricKind: [Day]] = [:]
        if let staged, let baseline = plan.baseline?.contentVersion {
            for kind in MetricKind.health {
                days[kind] = try dailySeries(
                    kind, locale: locale, candidate: staged, baseline: baseline, snapshot: snapshot)
            }
        }
        let stored = try snapshot.directory(StateLayout.rollbackDirectory(locale)).filter { !$0.isTree }
            .sorted { (Int($0.name.dropLast(5)) ?? 0) > (Int($1.name.dropLast(5)) ?? 0) }
        let rollbacks = stored.compactMap {
            (try? StrictJSONParser.parse(try snapshot.read($0)))?.objectValue
        }
        var content = ReportContent(
            locale: locale, generated: now, repositoryPath: repository.path, state: snapshot.commit?.short, plan: plan,
            changes: try signed(
                entries.map { change($0, locale: locale) },
                labels: signers ?? SignerLabels(repository: repository, at: snapshot.commit)), staged: staged,
            gates: gates, health: health,
            days: days,
            rollbacks: rollbacks, unreadableRollbacks: stored.count - rollbacks.count)
        content.experiments = try ExperimentLine.all(locale: locale, in: snapshot)
        return content
    }

    /// `changes` with their signers, when the repository has signers (docs/audit.md, "Who made each
    /// change: verified signers"); as they are otherwise.
    static func signed(_ changes: [Change], labels: SignerLabels) throws -> [Change] {
        try changes.map { change in
            var change = change
            change.signer = try labels.label(change.commit)
            return change
        }
    }

    /// The last pack of this locale a change staged, other than the baseline.
    static func lastStaged(_ entries: [AuditEntry], locale: String, baseline: Int?) -> Int? {
        entries.reversed().lazy.flatMap(\.packs).compactMap { try? PackID.parse($0) }
            .first { $0.locale == locale && $0.contentVersion != baseline }?.contentVersion
    }

    static func change(_ entry: AuditEntry, locale: String) -> Change {
        let shares = entry.planChanges.first { $0.locale == locale }.map { change in
            change.after.rules.map { rule in
                Share(
                    pack: "\(locale)@\(rule.pack.contentVersion)",
                    segment:
                        "\(rule.regionsLabel) on \(rule.versions.isAll ? "every version" : rule.versions.description)",
                    percent: Double(rule.share.basisPoints) / 100)
            }
        }
        return Change(
            time: entry.time, action: entry.action, summary: entry.summary, actor: entry.actor, reason: entry.reason,
            commit: entry.commit, shares: shares)
    }

    static func dailySeries(_ kind: MetricKind, locale: String, candidate: Int, baseline: Int, snapshot: Snapshot)
        throws -> [Day]
    {
        var days: [Day] = []
        // A day without the candidate has no point: only the rollups that may hold it are parsed.
        var cells = RollupCells()
        let rollups = try MetricsLayout.entries(
            kind, locale: locale, holding: [candidate], orAfter: Int.max, cells: &cells, in: snapshot)
        // Each cell's segment label, made once (nil: an app version health does not read).
        let labels = cells.regions.indices.map { id in
            AppVersion(cells.appVersions[id]).map { "\(cells.regions[id])/\($0.family)" }
        }
        for rollup in rollups.sorted(by: { $0.day < $1.day }) {
            var bySegment: [String: (c: MetricCounts, b: MetricCounts)] = [:]
            for index in 0..<rollup.count {
                let version = rollup.versions[index]
                guard version == candidate || version == baseline, let label = labels[Int(rollup.cells[index])] else {
                    continue
                }
                let counts = rollup.counts[index]
                var entry = bySegment[label] ?? (MetricCounts(total: 0, events: 0), MetricCounts(total: 0, events: 0))
                if version == candidate {
                    entry.c = entry.c.adding(counts) ?? entry.c
                } else {
                    entry.b = entry.b.adding(counts) ?? entry.b
                }
                bySegment[label] = entry
            }
            var c = MetricCounts(total: 0, events: 0)
            var b = MetricCounts(total: 0, events: 0)
            for (_, entry) in bySegment where entry.c.total > 0 && entry.b.total > 0 {
                c = c.adding(entry.c) ?? c
                b = b.adding(entry.b) ?? b
            }
            if c.total > 0 && b.total > 0 { days.append(Day(day: rollup.day, candidate: c, baseline: b)) }
        }
        return days
    }
}

extension RolloutError {
    fileprivate static func reportNoLocale(_ locale: String) -> RolloutError {
        .missing("no locale \(locale): it has no packs and no plan")
    }
}

/// Each change's signer as the report shows it (`ChangeAudit.signerLabel`), checked once per
/// commit however many pages show it (`report --all`: a publish names every locale); nothing when
/// the state has no signers.
public final class SignerLabels {
    private var auditor: SignatureAuditor?
    private var labels: [String: String?] = [:]

    public init(repository: PackRepository, at commit: ObjectID?) throws {
        if let commit, try repository.hasSigners(at: commit) { auditor = repository.signatureAuditor() }
    }

    deinit { auditor?.close() }

    /// The signer of the commit `hex`; nil when the state has no signers.
    func label(_ hex: String) throws -> String? {
        guard auditor != nil else { return nil }
        if let known = labels[hex] { return known }
        let label = try auditor!.audit(hex: hex, requireSigned: false)?.signerLabel
        labels[hex] = label
        return label
    }
}
