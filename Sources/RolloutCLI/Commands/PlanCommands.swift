import RolloutIngest
import RolloutModel
import RolloutPublish
import RolloutStore

/// promote, status, resolve and simulate: staging packs and knowing who gets what.
package enum PlanCommands {
    /// `--region` items, already split and read: nil for none, `*` alone when any item is `*`.
    static func regions(_ codes: [RegionCode]) -> [String]? {
        guard !codes.isEmpty else { return nil }
        return codes.contains(where: \.isAny) ? [Region.any] : Array(Set(codes.map(\.code))).sorted()
    }

    /// "TR >=4.8: tr-TR@17 100% -> tr-TR@18 10%, tr-TR@17 90%" for every piece that changes.
    static func describeChanges(_ before: Plan, _ after: Plan) -> [(segment: String, before: String, after: String)] {
        SegmentShares.changes(from: before.targeting, to: after.targeting).map { change in
            (
                "\(change.after.regions) \(change.after.versions)", change.before.describe(locale: after.locale),
                change.after.describe(locale: after.locale)
            )
        }
    }

    static let promote = CommandSpec(
        path: ["promote"],
        summary:
            "stage a pack to a share of devices by percent, region and app version; 100% everywhere makes it the baseline",
        discussion: """
            The first promote of a version creates its rules with a fresh salt; promoting it again changes
            the share and keeps the salt, so devices already in stay in. Without --region/--app-version a
            later promote moves every rule of the candidate to the new share; with them it sets (or adds)
            one rule per region for that targeting (ranges compare by meaning: 4.8.x is >=4.8 <4.9), so
            regions can carry different shares. --to 100% with no region or version limit completes the
            rollout: the pack becomes the baseline and the old one is kept as last known good. Lowering a
            share needs --reason. Refused (exit 1): a blocked version, a version older than the baseline,
            a second candidate while one is staged (finish it with --to 100%, or take it back with
            rollout revert LOCALE), and a rule no device could ever reach because another rule decides
            first. Devices below the pack's minAppVersion never get it. Widening a staged rollout needs
            every segment it targets healthy (docs/health.md, "The promote gate"): unhealthy, a sample
            ratio mismatch or too little data is refused (exit 1) unless --force --reason; a segment short
            of data can be accepted by name with --accept-insufficient, which is recorded. See
            docs/targeting.md. With --at TIME the promote is scheduled instead: checked now as if it ran
            now, recorded as a pending change, and applied by rollout guard at its first run from TIME on
            (checked again then); rollout cancel takes it back (docs/health.md, "Scheduled changes").
            --to testers:GROUP stages the pack to a tester group (rollout testers add) before any share:
            its devices get it whatever their bucket and region, and keep it as shares grow
            (docs/targeting.md, "Testers first").
            """,
        options: PromoteOptions.self,
        arguments: .exactly("PACK"),
        effects: [.recordsChange, .checks],
        run: { invocation, context in
            let request = try promoteRequest(invocation)
            if let at = try invocation.value(PromoteOptions.declared.at) {
                return try ScheduleCommands.promote(request, at: at, invocation: invocation, context: context)
            }
            let id = request.pack
            let repository = try context.repository(invocation)
            let now = try context.now()
            let options = PromoteOptions.declared
            let dryRun = invocation.flag(options.dryRun)
            repository.dryRun = dryRun
            let override = try PromoteGate.override(force: invocation.flag(options.force), reason: request.reason)
            let accepting = try invocation.list(options.acceptInsufficient)
            let actor = try context.actor(invocation, repository: repository)
            let applied = try PlanOperations.promote(
                request, in: repository, override: override, accepting: accepting, actor: actor,
                time: { now },
                health: { snapshot, plan in
                    try HealthCheck.evaluate(plan, snapshot: snapshot, repository: repository)
                })
            let outcome = applied.result
            if let commit = applied.commit, outcome.kind != .unchanged {
                let notice = Notice.promoted(
                    outcome, pack: id, commit: commit, actor: actor, time: now, reason: request.reason)
                Notifier.announce([notice], repository: repository, context: context)
            }
            let changes = describeChanges(outcome.before, outcome.after)
            let text = promoteText(
                request, applied, changes: changes, dryRun: dryRun, style: context.style(invocation))
            let json: JSONValue = [
                "action": .string(outcome.kind.rawValue), "dryRun": .bool(dryRun), "pack": .string(id.description),
                "commit": applied.commit.map { .string($0.hex) } ?? .null,
                "plan": outcome.after.jsonValue,
                "changes": .array(
                    changes.map {
                        ["segment": .string($0.segment), "before": .string($0.before), "after": .string($0.after)]
                    }),
            ]
            return CommandOutput(json: json, text: text)
        })

    /// What promote prints for people: the effect, the segments whose shares change, and the
    /// tester group a `--to testers:GROUP` staged the pack to.
    static func promoteText(
        _ request: PromoteRequest, _ applied: PackRepository.Applied<PromoteOutcome>,
        changes: [(segment: String, before: String, after: String)], dryRun: Bool, style: Style
    ) -> String {
        let id = request.pack
        let outcome = applied.result
        var text: String
        switch (outcome.kind, dryRun) {
        case (.unchanged, _):
            text =
                request.testerGroup.map { "\(id) is staged to testers:\($0) already: nothing to do.\n" }
                ?? "\(id) is already at that share there: nothing to do.\n"
        case (.completed, true):
            text = "Dry run: \(id) would become the baseline of \(id.locale). Nothing was written.\n"
        case (.staged, true): text = "Dry run: promoting \(id) to \(request.target) would change:\n"
        case (.completed, false):
            text =
                "\(style.green("completed")) \(id) is now the baseline of \(id.locale)"
                + (applied.commit.map { " (commit \($0.short))" } ?? "") + ".\n"
        case (.staged, false):
            text =
                "\(style.green("promoted")) \(id) to \(request.target)"
                + (applied.commit.map { " (commit \($0.short))" } ?? "") + ":\n"
        }
        var table = Table("SEGMENT", "BEFORE", "AFTER")
        for change in changes { table.add(change.segment, change.before, change.after) }
        if !changes.isEmpty { text += table.render(style) }
        if let group = request.testerGroup, outcome.kind != .unchanged {
            let members = outcome.after.testers.first { $0.group == group }?.members.count ?? 0
            text += "  the \(members) install id(s) of tester group \(group) get \(id), whatever their share\n"
        }
        return text
    }

    /// promote's options.
    struct PromoteOptions: OptionGroup {
        let to = Option<PromoteTarget>(
            "to", "PERCENT", "share of devices: 10%, 10, 0.25% (steps of 0.01%); or testers:GROUP, a tester group"
        ).oneOf("share")
        let region = ListOption<RegionCode>(
            "region", "R", "ISO 3166-1 region such as TR, or a comma list, or * for every region", repeatable: true)
        let appVersion = Option<VersionRange>(
            "app-version", "RANGE", "app versions: >=4.8, \">=4.8 <5\", 4.8.x, =4.8.1")
        let reason = Option.reason("why (recorded in the commit; required when lowering a share)")
        let dryRun = Flag("dry-run", "print what would change for each segment and write nothing")
        let force = Flag("force", "widen even though health is not healthy (needs --reason; recorded)")
        let acceptInsufficient = ListOption<SegmentPattern>(
            "accept-insufficient", "SEGMENT",
            "widen into a segment without enough data yet, named as health names it (TR/4.9, DE/*); recorded",
            repeatable: true)
        let ramp = ListOption<String>(
            "ramp", "STEPS", "a schedule guard follows: shares like 1,5,10,25,50,100, or the preset 7day",
            completion: .words(Plan.Ramp.presets.keys.sorted())
        ).oneOf("share")
        let every = Option.duration(
            "every", "DURATION", "how long each ramp step lasts at least: 24h, 30m, 2d (default 24h; 7day: 1 day)",
            maximum: InputLimits.longestRampStep)
        let at = Option.moment(
            "at", "TIME",
            "do it then, not now: a time with its UTC offset (2026-12-10T09:00+03:00); with --ramp, when the ramp starts; guard applies it"
        )
        let proposal = ApprovalCommands.ProposeOptions()

        static let declared = PromoteOptions()
    }

    /// The promote a command line asks for: the pack, the share (`--to`, or a ramp's first step) and its
    /// targeting, checked against each other before the repository is opened.
    private static func promoteRequest(_ invocation: Invocation) throws -> PromoteRequest {
        let options = PromoteOptions.declared
        let id = try PackID.parse(invocation.positionals[0])
        let ramp = try invocation.text(options.ramp).map {
            try parseRamp($0, steps: invocation.texts(options.ramp), every: invocation.value(options.every))
        }
        if ramp == nil, invocation.given(options.every) {
            throw RolloutError.usage("--every sets the step time of a --ramp")
        }
        let target = try invocation.value(options.to)
        if case .testers(let group) = target {
            return try testersRequest(id, group: group, invocation)
        }
        guard case .share(let share)? = target ?? ramp.map({ .share($0.steps[0]) }) else {
            throw RolloutError.usage("rollout promote needs --to PERCENT, for example --to 10%")
        }
        if let ramp, share != ramp.steps[0] {
            throw RolloutError.usage("--to \(share) is not the ramp's first step \(ramp.steps[0])")
        }
        return PromoteRequest(
            pack: id, share: share, regions: regions(try invocation.list(options.region)),
            versions: try invocation.value(options.appVersion), reason: invocation.value(options.reason), ramp: ramp)
    }

    /// `--to testers:GROUP`: the group alone, whatever region or version (each tester gets the pack
    /// if its app can run it), now (a schedule holds shares only).
    private static func testersRequest(_ id: PackID, group: String, _ invocation: Invocation) throws
        -> PromoteRequest
    {
        let options = PromoteOptions.declared
        let untargeted: [any DeclaredOption] = [options.region, options.appVersion, options.at]
        if let option = untargeted.first(where: { invocation.given($0) }) {
            throw RolloutError.usage(
                "\(option.flag) does not apply to --to testers:\(group): a tester gets the pack wherever it is, now")
        }
        return PromoteRequest(
            pack: id, share: .zero, regions: nil, versions: nil, reason: invocation.value(options.reason),
            testerGroup: group)
    }

    /// `1,5,10,25,50,100` or a preset name, and `--every` in seconds. `items` are the list the parser
    /// split from `text`.
    static func parseRamp(_ text: String, steps items: [String], every: Int64?) throws -> (
        steps: [Percent], every: Int64
    ) {
        var steps: [Percent]
        var seconds: Int64 = 86_400
        if let preset = Plan.Ramp.presets[text] {
            steps = preset.steps.map { Percent(basisPoints: $0) }
            seconds = preset.every
        } else if !text.contains(","), text.contains(where: \.isLetter) {
            throw .notARamp(text)
        } else {
            steps = try items.map(Percent.parse)
        }
        guard steps.count >= 2, zip(steps, steps.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw .rampTooShort(text)
        }
        guard steps.count <= InputLimits.rampSteps else { throw .rampTooLong(steps.count) }
        // A first step of 0% stages the pack to no device: nothing a ramp could start from.
        guard steps[0] > .zero else { throw .rampFromZero(text) }
        return (steps, every ?? seconds)
    }

    static let status = CommandSpec(
        path: ["status"],
        summary:
            "every locale at a glance: baseline, staged shares, health, holds, blocked versions, newest metrics, last change",
        discussion: """
            Without LOCALE, one row per locale with a plan: the baseline, the staged rules with their
            shares, the staged pack's health as rollout health judges it, what holds it (a sample ratio
            mismatch, a paused ramp, the kill switch), blocked versions, the date of the newest metrics
            stored for the locale and how old they are, and the last change; then the locales with packs
            but nothing promoted. With LOCALE, that locale's plan in full: every rule with its salt and
            what each segment's devices get. See docs/targeting.md.
            """,
        options: NoOptions.self, arguments: .optional("LOCALE"),
        effects: .readsRepository,
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let snapshot = try repository.snapshot()
            let style = context.style(invocation)
            if let locale = try invocation.positionals.first.map({ try LocaleTag.canonical($0) }) {
                let schedule = try snapshot.schedule(locale)
                let pending = JSONValue.array(schedule.pending.map(\.jsonValue))
                let now = try context.now()
                guard let plan = try snapshot.plan(locale) else {
                    let versions = try snapshot.contentVersions(of: locale)
                    if versions.isEmpty {
                        throw RolloutError.missing("no \(locale) packs and no plan; add packs with rollout pack add")
                    }
                    return CommandOutput(
                        json: ["locale": .string(locale), "plan": .null, "pending": pending],
                        text:
                            "\(locale): nothing promoted yet; devices use their bundled strings. Start with rollout promote \(locale)@\(versions.last!) --to 1%\n"
                            + ScheduleCommands.describe(schedule, now: now)
                    )
                }
                return CommandOutput(
                    json: ["locale": .string(locale), "plan": plan.jsonValue, "pending": pending],
                    text: describe(plan, style) + ScheduleCommands.describe(schedule, now: now))
            }
            return try overview(repository, snapshot: snapshot, now: context.now(), style: style)
        })

    static func describe(_ plan: Plan, _ style: Style) -> String {
        var text = "\(style.bold(plan.locale))\n"
        text +=
            "  baseline        \(plan.baseline.map { "\(plan.locale)@\($0.contentVersion) (minAppVersion \($0.minAppVersion))" } ?? "none: devices use bundled strings")\n"
        if !plan.previousBaselines.isEmpty {
            text +=
                "  last known good \(plan.previousBaselines.map { "@\($0.contentVersion)" }.joined(separator: ", "))\n"
        }
        text +=
            "  blocked         \(plan.blocked.isEmpty ? "none" : plan.blocked.map { "@\($0)" }.joined(separator: ", "))\n"
        if !plan.withdrawals.isEmpty {
            text +=
                "  withdrawn       \(plan.withdrawals.map(\.label).joined(separator: ", ")) (scoped reverts; promote with that targeting to re-include)\n"
        }
        if plan.bundledOnly { text += "  kill switch     on: every device uses its bundled strings\n" }
        if let ramp = plan.ramp {
            let next =
                ramp.next.map { "next \($0) after \(Timestamp(seconds: ramp.since.seconds + ramp.every))" }
                ?? "last step"
            text +=
                "  ramp            \(ramp.steps.map(\.description).joined(separator: " > ")), at \(ramp.steps[ramp.step]); \(ramp.paused ? "paused" : next)\n"
        }
        if let last = plan.lastChange {
            text +=
                "  last change     \(last.time) \(last.action) by \(last.actor.oneLine)"
                + (last.reason.map { ": \($0.oneLine)" } ?? "") + "\n"
        }
        for target in plan.testers {
            text +=
                "  testers         \(plan.locale)@\(target.pack.contentVersion) to tester group \(target.group) (\(target.members.count) install id(s)), whatever their share\n"
        }
        if let experiment = plan.experiment {
            text += describe(experiment, of: plan, style)
        } else if plan.rules.isEmpty {
            text += plan.testers.isEmpty ? "  staged          nothing\n" : "  staged          no share yet\n"
        } else {
            var rules = Table("  PACK", "REGIONS", "APP VERSIONS", "SHARE", "SALT")
            for rule in plan.rules {
                rules.add(
                    "  \(plan.locale)@\(rule.pack.contentVersion)", rule.regionsLabel, rule.versions.description,
                    rule.share.description, rule.salt)
            }
            text += "\n" + rules.render(style)
            var shares = Table("  SEGMENT", "DEVICES GET")
            for piece in SegmentShares.of(plan, region: Region.any, versions: .all).pieces {
                shares.add("  \(piece.regions) \(piece.versions)", piece.describe(locale: plan.locale))
            }
            text += "\n" + shares.render(style)
        }
        return text
    }

    /// A running experiment's line and the shares its segments get (docs/experiments.md).
    static func describe(_ experiment: Plan.Experiment, of plan: Plan, _ style: Style) -> String {
        let variants = experiment.variants.map { "\(plan.locale)@\($0.pack.contentVersion) \($0.share)" }
        var text =
            "  experiment      \(experiment.name): \(variants.joined(separator: ", ")) of \(experiment.target) "
            + "(rollout experiment show \(experiment.name))\n"
        var shares = Table("  SEGMENT", "DEVICES GET")
        for piece in SegmentShares.of(plan, region: Region.any, versions: .all).pieces {
            shares.add("  \(piece.regions) \(piece.versions)", piece.describe(locale: plan.locale))
        }
        text += "\n" + shares.render(style)
        return text
    }

    static let resolve = CommandSpec(
        path: ["resolve"],
        summary: "which pack one device gets, and why, for its locale and each step of its fallback chain",
        discussion:
            "The same resolution function as the published manifests and the client library (docs/targeting.md).",
        options: ResolveOptions.self,
        arguments: .none,
        effects: .readsRepository,
        run: { invocation, context in
            let options = ResolveOptions.declared
            let locale = try invocation.required(options.locale).description
            let region = try invocation.required(options.region)
            guard !region.isAny else {
                throw RolloutError.usage("--region names the device's own region, not *")
            }
            let version = try invocation.required(options.appVersion)
            let installID = try invocation.required(options.installID)
            if let tooLong = InputLimits.tooLong("--install-id", installID, limit: InputLimits.installIDBytes) {
                throw RolloutError.usage(tooLong)
            }
            let snapshot = try context.repository(invocation).snapshot()
            // Exactly the chain a device reads from the index the next publish writes, listed or not.
            let chain = try Publisher.chainIndex(snapshot).chain(for: locale)
            guard !chain.isEmpty else {
                throw RolloutError.missing("no packs for \(locale) or any locale it falls back to")
            }
            var steps: [JSONValue] = []
            var text = ""
            var followed: [String] = []
            for step in chain {
                let plan = try snapshot.plan(step) ?? Plan(locale: step)
                followed.append(step)
                let resolution = Resolution.resolve(
                    plan, region: region.code, appVersion: version, installID: installID)
                let label = resolution.outcome.label(locale: step)
                text +=
                    "\(context.style(invocation).bold(step)): \(label)\n"
                    + resolution.trace.map { "  \($0)\n" }.joined()
                steps.append([
                    "locale": .string(step), "result": .string(label),
                    "trace": .array(resolution.trace.map { .string($0) }),
                ])
                // The kill switch ends the chain: the device goes straight to its bundled strings.
                if plan.bundledOnly && step == locale { break }
            }
            // The device's lookup order (docs/client.md, Lookup): each locale's pack, then the app's
            // own strings of that locale, before the next locale.
            text +=
                "A key is looked up in " + followed.joined(separator: ", then ")
                + " (in each, the pack, then the app's bundled strings of that locale).\n"
            return CommandOutput(
                json: [
                    "locale": .string(locale), "region": .string(region.code),
                    "appVersion": .string(version.description),
                    "installId": .string(installID), "chain": .array(steps),
                ],
                text: text)
        })
}

/// resolve's options: the device, as `rollout device` takes it.
struct ResolveOptions: OptionGroup {
    let locale = Option<LocaleTag>("locale", "L", "the device's locale, for example tr-TR").required()
    let region = Option<RegionCode>("region", "R", "the device's ISO 3166-1 region, for example TR").required()
    let appVersion = Option<AppVersion>("app-version", "V", "the app's version, for example 4.8.1").required()
    let installID = Option<String>("install-id", "ID", "the install id the device keeps").required()

    static let declared = ResolveOptions()
}

/// The refusals of promote's options, named (an extension of Error, so that `throw .name(...)` finds them).
extension Error where Self == RolloutError {
    fileprivate static func notARamp(_ text: String) -> RolloutError {
        .usage("--ramp \"\(text)\" is not a preset (\(rampPresets)) nor shares such as 1,5,10,25,50,100")
    }

    fileprivate static func rampTooShort(_ text: String) -> RolloutError {
        .usage(
            "--ramp \"\(text)\" needs at least two increasing shares, such as 1,5,10,25,50,100, or a preset (\(rampPresets))"
        )
    }

    fileprivate static func rampFromZero(_ text: String) -> RolloutError {
        .usage(
            "--ramp \"\(text)\" starts at 0%, which stages the pack to no device; start above 0%, such as 1,5,10,25,50,100"
        )
    }

    fileprivate static func rampTooLong(_ count: Int) -> RolloutError {
        .usage("--ramp has \(count) steps, over the limit of \(InputLimits.rampSteps)")
    }

    private static var rampPresets: String { Plan.Ramp.presets.keys.sorted().joined(separator: ", ") }
}
