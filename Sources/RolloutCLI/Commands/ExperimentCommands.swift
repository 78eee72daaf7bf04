import Foundation
import RolloutIngest
import RolloutModel
import RolloutStore

/// `rollout experiment start`, `show`, `stop`, `list` and `simulate` (docs/experiments.md): an A/B
/// test of wording as a rollout with a question. The changes are `ExperimentOperations`; the
/// decision is `ExperimentAnalysis`, read from the repository by `ExperimentReading`.
enum ExperimentCommands {
    struct StartOptions: OptionGroup {
        let variants = ListOption<PackID>("variants", "PACKS", "the variants, control first: tr-TR@18,tr-TR@19")
            .required()
        let split = Option<String>("split", "SHARES", "each variant's percent of the targeted devices: 50/50, 10/10")
        let region = ListOption<RegionCode>("region", "R", "ISO 3166-1 region such as TR, or a comma list")
        let appVersion = Option<VersionRange>("app-version", "RANGE", "app versions: >=4.8, 4.8.x")
        let metric = Option<String>("metric", "NAME", "the primary metric, declared before the start").required()
        let exploratory = Option<String>(
            "exploratory", "NAMES", "further metrics, comma-separated: reported, corrected, never deciding")
        let guardrail = ListOption<Guardrail>("guardrail", "KINDS", "crash, fallback or both (default both)")
        let days = Option<String>("days", "N", "the horizon: after N days undecided, no difference shown (14)")
        let reason = Option.reason("why (recorded in the commit)")
        let dryRun = Flag("dry-run", "print what would change and write nothing")
        let proposal = ApprovalCommands.ProposeOptions()

        static let declared = StartOptions()
    }

    static let start = CommandSpec(
        path: ["experiment", "start"],
        summary: "split a locale's devices between packs to learn which wording converts better",
        discussion: """
            The first variant is the control. Devices the targeting reaches are split by disjoint bucket \
            ranges of a fresh salt; the keys whose text differs between the variants count exposures. The \
            primary metric is declared here and decides; --exploratory metrics are reported with a \
            multiple-testing correction. Refused while a candidate is staged or another experiment runs on \
            the locale. See docs/experiments.md.
            """,
        options: StartOptions.self, arguments: .exactly("NAME"),
        effects: [.recordsChange, .checks],
        run: { invocation, context in
            let options = StartOptions.declared
            let request = try startRequest(invocation)
            let repository = try context.repository(invocation)
            let now = try context.now()
            let dryRun = invocation.flag(options.dryRun)
            repository.dryRun = dryRun
            let actor = try context.actor(invocation, repository: repository)
            let applied = try ExperimentOperations.start(request, in: repository, actor: actor, time: { now })
            let record = applied.result.record
            if let commit = applied.commit {
                let notice = Notice.experiment(applied.result, commit: commit, actor: actor, time: now)
                Notifier.announce([notice], repository: repository, context: context)
            }
            var text =
                (dryRun ? "Dry run: would start" : context.style(invocation).green("started"))
                + " experiment \(record.name) on \(record.locale)"
                + (applied.commit.map { " (commit \($0.short))" } ?? "") + "\n"
            text += "  \(ExperimentText.split(record))\n"
            text += "  targets \(record.published.target); primary metric \(record.primary)"
            text += record.exploratory.isEmpty ? "\n" : "; exploratory \(record.exploratory.joined(separator: ", "))\n"
            text += "  keys compared: \(record.keys.count) (\(ExperimentText.keys(record.keys)))\n"
            if dryRun { text += DryRun.text(applied.change, actor: actor) + DryRun.nothingWritten }
            var json = record.jsonValue.objectValue ?? [:]
            json["dryRun"] = .bool(dryRun)
            json["commit"] = applied.commit.map { .string($0.hex) } ?? .null
            return CommandOutput(json: .object(json), text: text)
        })

    static func startRequest(_ invocation: Invocation) throws -> ExperimentRequest {
        let options = StartOptions.declared
        let variants: [PackID] = try invocation.list(options.variants)
        guard !variants.isEmpty else {
            throw RolloutError.usage("rollout experiment start needs \(options.variants.flag) CONTROL,VARIANT")
        }
        let split = try invocation.value(options.split).map { try shares($0, flag: options.split.flag) }
        let regions = try invocation.list(options.region).map(\.code)
        let exploratory = try invocation.value(options.exploratory).map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let guardrails = try invocation.list(options.guardrail).map(\.kind)
        let daysText = try invocation.value(options.days) ?? "14"
        guard let days = Int(daysText) else {
            throw RolloutError.usage("\(options.days.flag) \"\(daysText)\" is not a number of days")
        }
        let request = ExperimentRequest(
            name: invocation.positionals[0], variants: variants, split: split, regions: regions.sorted(),
            versions: try invocation.value(options.appVersion) ?? .all,
            primary: try invocation.required(options.metric), exploratory: exploratory ?? [],
            guardrails: guardrails.isEmpty ? MetricKind.health : guardrails, days: days,
            reason: invocation.value(options.reason))
        try request.check()
        return request
    }

    /// `50/50`, `10/10`, `34/33/33`, `12.5/12.5`: percents separated by `/`.
    static func shares(_ text: String, flag: String) throws -> [Percent] {
        try text.split(separator: "/", omittingEmptySubsequences: false).map {
            try Percent.argument(String($0).hasSuffix("%") ? String($0) : "\($0)%", flag: flag)
        }
    }

    static let show = CommandSpec(
        path: ["experiment", "show"],
        summary: "an experiment's exposures, conversions, lift with its anytime-valid bound, and its verdict",
        discussion: """
            Per variant: exposures, conversions, rate, and the relative lift over the control with a \
            confidence sequence that stays valid however often it is looked at. A sample ratio mismatch \
            voids the result; a guardrail a variant harms (crash or fallback, as health judges them) is \
            harm. The verdict is winner, harm, no difference shown (past the horizon) or keep running \
            (~N days at current traffic). Exit 0 whatever the verdict. See docs/experiments.md.
            """,
        options: NoOptions.self, arguments: .exactly("NAME"),
        effects: .readsRepository,
        run: { invocation, context in
            let name = invocation.positionals[0]
            let snapshot = try context.repository(invocation).snapshot()
            guard let record = try snapshot.experiment(name) else {
                throw ExperimentRefusal.noSuchExperiment(name, known: try snapshot.experimentNames())
            }
            let now = try context.now()
            let result = try ExperimentReading.analyze(record, in: snapshot, now: now)
            let others = try ExperimentReading.otherMetrics(record, in: snapshot, now: now)
            var json = ExperimentText.json(record, result).objectValue ?? [:]
            json["otherMetrics"] = .array(others.map { .string($0) })
            return CommandOutput(
                json: .object(json),
                text: ExperimentText.show(record, result, now: now, style: context.style(invocation))
                    + ExperimentText.otherMetrics(others, of: record))
        })

    struct StopOptions: OptionGroup {
        let ship = Option<PackID>(
            "ship", "PACK", "stage this variant as an ordinary rollout (the promote gate applies)")
        let to = Option<Percent>(
            "to", "PERCENT", "the share --ship stages it at (default: its share in the experiment)")
        let force = Flag("force", "ship even though health is not healthy (needs --reason; recorded)")
        let acceptInsufficient = ListOption<SegmentPattern>(
            "accept-insufficient", "SEGMENT", "ship into these segments though they have too little data (recorded)",
            repeatable: true)
        let reason = Option.reason("why (recorded in the commit)")
        let dryRun = Flag("dry-run", "print what would change and write nothing")
        let proposal = ApprovalCommands.ProposeOptions()

        static let declared = StopOptions()
    }

    static let stop = CommandSpec(
        path: ["experiment", "stop"],
        summary: "end an experiment; --ship PACK stages the chosen variant as an ordinary rollout",
        discussion: """
            Devices go back to what the plan gives without the experiment: the baseline. With --ship, the \
            pack is promoted in the experiment's targeting to --to (default its share in the experiment), \
            in the same commit, through the promote gate. The record keeps the outcome.
            """,
        options: StopOptions.self, arguments: .exactly("NAME"),
        effects: [.recordsChange, .checks],
        run: { invocation, context in
            let options = StopOptions.declared
            let repository = try context.repository(invocation)
            let now = try context.now()
            let dryRun = invocation.flag(options.dryRun)
            repository.dryRun = dryRun
            let actor = try context.actor(invocation, repository: repository)
            let reason = invocation.value(options.reason)
            var ending = ExperimentOperations.Ending.stop
            if let ship = try invocation.value(options.ship) {
                let override = try PromoteGate.override(force: invocation.flag(options.force), reason: reason)
                ending = .ship(
                    ship, share: try invocation.value(options.to), override: override,
                    accepting: try invocation.list(options.acceptInsufficient))
            } else if invocation.given(options.to) {
                throw RolloutError.usage("\(options.to.flag) goes with --ship PACK")
            }
            let applied = try ExperimentOperations.stop(
                invocation.positionals[0], ending: ending, reason: reason, in: repository, actor: actor, time: { now },
                health: { snapshot, plan in try HealthCheck.evaluate(plan, snapshot: snapshot, repository: repository) }
            )
            let record = applied.result.record
            if let commit = applied.commit {
                let notice = Notice.experiment(applied.result, commit: commit, actor: actor, time: now)
                Notifier.announce([notice], repository: repository, context: context)
            }
            var text =
                (dryRun ? "Dry run: would stop" : context.style(invocation).green("stopped"))
                + " experiment \(record.name) on \(record.locale)"
                + (applied.commit.map { " (commit \($0.short))" } ?? "") + ": \(record.ending?.outcome ?? "stopped")\n"
            for change in SegmentShares.changes(
                from: applied.result.before.targeting, to: applied.result.after.targeting)
            {
                text +=
                    "  \(change.after.regions) \(change.after.versions): "
                    + "\(change.before.describe(locale: record.locale)) -> \(change.after.describe(locale: record.locale))\n"
            }
            if dryRun { text += DryRun.text(applied.change, actor: actor) + DryRun.nothingWritten }
            var json = record.jsonValue.objectValue ?? [:]
            json["dryRun"] = .bool(dryRun)
            json["commit"] = applied.commit.map { .string($0.hex) } ?? .null
            return CommandOutput(json: .object(json), text: text)
        })

    static let list = CommandSpec(
        path: ["experiment", "list"],
        summary: "every experiment, running or ended",
        discussion: "", options: NoOptions.self, arguments: .none,
        effects: .readsRepository,
        run: { invocation, context in
            let snapshot = try context.repository(invocation).snapshot()
            var table = Table("EXPERIMENT", "LOCALE", "VARIANTS", "STARTED", "STATUS")
            var items: [JSONValue] = []
            for name in try snapshot.experimentNames() {
                guard let record = try snapshot.experiment(name) else { continue }
                table.add(
                    name, record.locale, record.variants.map { record.id($0).description }.joined(separator: ","),
                    String(record.started.description.prefix(10)), record.ending?.outcome ?? "running")
                items.append(record.jsonValue)
            }
            let text =
                items.isEmpty
                ? "No experiments. Start one with rollout experiment start NAME --variants CONTROL,VARIANT --metric NAME.\n"
                : table.render(context.style(invocation))
            return CommandOutput(json: ["experiments": .array(items)], text: text)
        })
}

extension ExperimentCommands {
    struct SimulateOptions: OptionGroup {
        let runs = Option<String>("runs", "N", "experiments per scenario (200)")
        let seed = Option<String>("seed", "N", "the random seed (1): the same seed prints the same table")
        let exposures = Option<String>("exposures", "N", "exposed sessions a day, both arms (40000)")
        let rate = Option<Percent>("rate", "PERCENT", "the control's conversion rate (5%)")
        let days = Option<String>("days", "N", "the horizon (14)")

        static let declared = SimulateOptions()
    }

    static let simulate = CommandSpec(
        path: ["experiment", "simulate"],
        summary: "run experiments on simulated traffic: false winners, power, time to a verdict, voiding",
        discussion: """
            Each scenario runs N 50/50 experiments looked at every hour for the horizon, decided by the \
            functions experiment show uses. Beside them, a two-proportion z-test at p < 0.05 looked at \
            every hour (peeking) and once at the horizon (fixed). Seeded: the table is reproducible.
            """,
        options: SimulateOptions.self, arguments: .none,
        effects: [],
        run: { invocation, context in
            let options = SimulateOptions.declared
            let style = context.style(invocation)
            func number(_ option: Option<String>, _ fallback: Int) throws -> Int {
                let text = try invocation.value(option) ?? String(fallback)
                guard let value = Int(text), value > 0 else {
                    throw RolloutError.usage("\(option.flag) \"\(text)\" is not a positive number")
                }
                return value
            }
            let runs = try number(options.runs, 200)
            let seed = UInt64(try number(options.seed, 1))
            let rate = try invocation.value(options.rate) ?? Percent(basisPoints: 500)
            let traffic = ExperimentSimulation.Traffic(
                exposures: try number(options.exposures, 40_000), rate: Double(rate.basisPoints) / 10_000,
                days: try number(options.days, 14))
            var table = Table(
                "SCENARIO", "RUNS", "WINNER", "HARM", "VOID", "MEDIAN DAYS", "Z PEEKING", "Z FIXED")
            var rows: [JSONValue] = []
            for scenario in ExperimentSimulation.standard {
                let row = ExperimentSimulation.run(scenario, traffic: traffic, runs: runs, seed: seed)
                func share(_ count: Int) -> String { ExperimentText.percent(Double(count) / Double(runs), digits: 1) }
                table.add(
                    row.scenario, "\(runs)", share(row.winners), share(row.harms), share(row.voided),
                    row.medianDays.map { String(format: "%.1f", $0) } ?? "-", share(row.naivePeeking),
                    share(row.naiveFixed))
                rows.append([
                    "scenario": .string(row.scenario), "runs": .integer(runs), "winners": .integer(row.winners),
                    "harms": .integer(row.harms), "voided": .integer(row.voided),
                    "medianDays": row.medianDays.map { .number(JSONNumber($0)) } ?? .null,
                    "naivePeeking": .integer(row.naivePeeking), "naiveFixed": .integer(row.naiveFixed),
                ])
            }
            let text =
                "\(traffic.exposures) exposures a day split 50/50, control converting at \(rate), "
                + "\(traffic.days) days, looked at every hour, seed \(seed):\n" + table.render(style)
            return CommandOutput(json: ["scenarios": .array(rows)], text: text)
        })
}
