import RolloutIngest
import RolloutModel
import RolloutStore

enum RevertCommands {
    static let revert = CommandSpec(
        path: ["revert"],
        summary:
            "take devices back: withdraw the staged pack (or the baseline), block it, and write a rollback manifest",
        discussion: """
            Without --segment every staged rule of the locale is withdrawn; if nothing is staged the
            baseline itself goes back to the previous known good one. The version taken away joins the
            blocked list, so no device picks it up again and it cannot be promoted again (--no-block,
            with --reason, keeps it promotable). --segment TR/4.8 takes back only that segment: its
            devices return to the baseline while other segments keep the staged pack (nothing is
            blocked, since others still receive it). --to 16 makes an explicit earlier version the
            baseline; --to bundled is the kill switch: every device uses the strings bundled in the app
            until a pack is completed again with promote --to 100%. A revert that would change nothing
            says so and writes nothing. Each revert writes one rollback manifest (rollout rollbacks).
            --dry-run prints what would change and what would be blocked, and writes nothing.
            """,
        options: Options.self,
        arguments: .exactly("LOCALE"),
        effects: [.recordsChange, .checks],
        run: run)

    struct Options: OptionGroup {
        let segment = Option<Segment>(
            "segment", "REGION/VERSION", "only this segment goes back, for example TR/4.8")
        /// `16`, `tr-TR@16` or `bundled`: read against the LOCALE argument (`RevertTarget.parse`).
        let to = Option<String>(
            "to", "VERSION", "an explicit earlier content version (16 or tr-TR@16), or bundled",
            completion: .contentVersions
        ) { text, _ in text }
        let reason = Option.reason("why (recorded in the commit and the rollback manifest)")
        let noBlock = Flag("no-block", "do not block the reverted version (needs --reason)")
        let dryRun = Flag("dry-run", "print what would change for each segment and write nothing")

        static let declared = Options()
    }

    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> CommandOutput {
        let options = Options.declared
        let locale = try LocaleTag.canonical(invocation.positionals[0])
        let reason = invocation.value(options.reason)
        if invocation.flag(options.noBlock) && (reason ?? "").trimmingSpaces.isEmpty {
            throw RolloutError.usage("--no-block leaves the reverted version promotable; say why with --reason TEXT")
        }
        let request = RevertRequest(
            locale: locale, segment: try invocation.value(options.segment).map { ($0.region, $0.versions) },
            target: try invocation.value(options.to).map { try RevertTarget.parse($0, locale: locale) }
                ?? .lastKnownGood,
            reason: reason, block: !invocation.flag(options.noBlock))
        let repository = try context.repository(invocation)
        let dryRun = invocation.flag(options.dryRun)
        repository.dryRun = dryRun
        let now = try context.now()
        // The evidence available now: health figures and their metrics sources, or "none" without metrics.
        let snapshot = try repository.snapshotForChange()
        var evidence: JSONValue = .string("none")
        if let plan = try snapshot.plan(locale),
            let report = try HealthCheck.evaluate(plan, snapshot: snapshot, repository: repository),
            !report.checks.isEmpty
        {
            evidence = try HealthCheck.evidence(report, plan: plan, snapshot: snapshot)
        }
        let actor = try context.actor(invocation, repository: repository)
        let applied = try RevertOperations.revert(
            request, in: repository, evidence: evidence, actor: actor, time: { now })
        let outcome = applied.result
        let style = context.style(invocation)
        if dryRun, let manifest = outcome.manifest { return wouldRevert(outcome, manifest: manifest, style: style) }
        guard let manifest = outcome.manifest, let commit = applied.commit else {
            return CommandOutput(
                json: ["changed": false, "locale": .string(locale), "plan": outcome.before.jsonValue],
                text:
                    "Nothing to revert: that would not change what any \(locale) device receives. Nothing was written.\n"
            )
        }
        // The commit has landed: delivery comes after it, bounded by the policy's time-out.
        Notifier.announce(
            [.reverted(outcome, commit: commit, actor: actor, time: now, reason: reason, byGuard: false)],
            repository: repository, context: context)
        var text = "\(style.green("reverted")) \(locale) (commit \(commit.short)); rollback manifest \(manifest.id):\n"
        text += changes(outcome, style: style)
        if !outcome.newlyBlocked.isEmpty {
            text +=
                "blocked: " + outcome.newlyBlocked.map { "\(locale)@\($0)" }.joined(separator: ", ")
                + " (no device may receive it again)\n"
        }
        text +=
            "Devices follow at the next publish (manifest sequence \(outcome.after.sequence)): rollout publish --out DIR --key KEY\n"
        return CommandOutput(
            json: [
                "changed": true, "commit": .string(commit.hex), "rollback": manifest.document,
                "plan": outcome.after.jsonValue,
            ], text: text)
    }

    /// The segments a revert changes, before and after.
    static func changes(_ outcome: RevertOutcome, style: Style) -> String {
        var table = Table("SEGMENT", "BEFORE", "AFTER")
        for change in PlanCommands.describeChanges(outcome.before, outcome.after) {
            table.add(change.segment, change.before, change.after)
        }
        return table.render(style)
    }

    /// What `revert --dry-run` prints: the changes and the versions it would block, and the rollback
    /// manifest it would write (`--json`), nothing written.
    static func wouldRevert(_ outcome: RevertOutcome, manifest: RollbackManifest, style: Style) -> CommandOutput {
        let locale = outcome.after.locale
        var text = "Dry run: reverting \(locale) would change:\n" + changes(outcome, style: style)
        if !outcome.newlyBlocked.isEmpty {
            text += "would block: " + outcome.newlyBlocked.map { "\(locale)@\($0)" }.joined(separator: ", ") + "\n"
        }
        text += "Nothing was written.\n"
        return CommandOutput(
            json: [
                "changed": true, "dryRun": true, "rollback": manifest.document, "plan": outcome.after.jsonValue,
            ], text: text)
    }

    static let rollbacks = CommandSpec(
        path: ["rollbacks"], summary: "list rollback manifests (newest first), or show one by id (tr-TR/3)",
        discussion: "Rollback manifests are immutable JSON documents in the repository at rollbacks/<locale>/<n>.json.",
        options: NoOptions.self, arguments: .optional("LOCALE|ID"),
        effects: .readsRepository,
        run: { invocation, context in
            let snapshot = try context.repository(invocation).snapshot()
            if let argument = invocation.positionals.first, argument.contains("/") {
                guard let bytes = try snapshot.file(StateLayout.rollback(argument)) else {
                    throw RolloutError.missing("no rollback manifest \(argument); list them with rollout rollbacks")
                }
                let document = try StrictJSONParser.parse(bytes)
                return CommandOutput(json: document, text: String(decoding: bytes, as: UTF8.self))
            }
            let locales =
                try invocation.positionals.first.map { [try LocaleTag.canonical($0)] }
                ?? snapshot.directory(StateLayout.rollbacksDirectory).filter(\.isTree).map(\.name)
            var documents: [JSONValue] = []
            for locale in locales {
                for entry in try snapshot.directory(StateLayout.rollbackDirectory(locale)) where !entry.isTree {
                    documents.append(try StrictJSONParser.parse(try snapshot.read(entry)))
                }
            }
            documents.sort {
                ($0.objectValue?["time"]?.stringValue ?? "", $0.objectValue?["id"]?.stringValue ?? "") > (
                    $1.objectValue?["time"]?.stringValue ?? "", $1.objectValue?["id"]?.stringValue ?? ""
                )
            }
            var table = Table("ID", "TIME", "SCOPE", "TARGET", "BLOCKED", "BY", "REASON")
            for document in documents {
                let o = document.objectValue ?? [:]
                table.add(
                    o["id"]?.stringValue ?? "?", o["time"]?.stringValue ?? "?", o["scope"]?.stringValue ?? "?",
                    o["target"]?.stringValue ?? "?",
                    (o["blocked"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ","),
                    cell(o["actor"]?.stringValue ?? "?", width: 30),
                    cell(o["reason"]?.stringValue ?? "-", width: 40))
            }
            let text = documents.isEmpty ? "No rollbacks.\n" : table.render(context.style(invocation))
            return CommandOutput(json: ["rollbacks": .array(documents)], text: text)
        })
}
