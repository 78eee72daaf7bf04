import RolloutModel
import RolloutStore

enum LogCommand {
    static let defaultLimit = 50

    static let spec = CommandSpec(
        path: ["log"],
        summary: "the audit log, newest first; with --segment only the changes that altered what that segment receives",
        discussion: """
            --segment TR/4.8 lists the changes (for any locale, or --locale) that altered what TR devices on
            any 4.8.x receive, each with the resulting shares for that segment. Changes that targeted only
            other regions or versions are not listed. REGION may be * and VERSION may be left out (TR) for
            every version. --since and --until take a date (2026-11-01) or an ISO 8601 time; --until with a
            date includes that whole day. The newest \(defaultLimit) matches are shown unless --limit N is
            given (0 for all). When the repository has signers (rollout signers), or with --verify, each
            change shows its signer after the claimed actor: the verified principal, unsigned, not allowed
            (KEY), bad signature, or actor mismatch (a forged Rollout-Actor). See docs/audit.md; plain git
            log reads the same history.
            """,
        options: Options.self,
        arguments: .none,
        effects: [.readsRepository, .checksSignatures],
        run: run)

    struct Options: OptionGroup {
        let segment = Option<Segment>(
            "segment", "REGION/VERSION", "only changes that altered this segment, for example TR/4.8")
        let locale = Option<LocaleTag>("locale", "L", "only changes to this locale")
        let pack = Option<PackID>("pack", "P", "only changes naming this pack, for example tr-TR@18")
        let since = Option.time("since", "T", "only changes at or after T", endOfDay: false)
        let until = Option.time("until", "T", "only changes at or before T", endOfDay: true)
        let limit = Option.count(
            "limit", "N", "at most N changes (default \(defaultLimit); 0 for all)", minimum: 0)
        let verify = Flag(
            "verify", "show each change's verified signer, in a repository without signers too")

        static let declared = Options()
    }

    /// The query the options ask.
    static func query(_ invocation: Invocation) throws -> AuditLog.Query {
        var query = AuditLog.Query()
        let options = Options.declared
        query.segment = try invocation.value(options.segment).map { ($0.region, $0.versions) }
        query.locale = try invocation.value(options.locale)?.description
        query.pack = try invocation.value(options.pack)
        query.since = try invocation.value(options.since)
        query.until = try invocation.value(options.until)
        let limit = try invocation.value(options.limit) ?? defaultLimit
        query.limit = limit == 0 ? nil : limit
        // Only --json shows the plans themselves.
        query.keepsPlans = invocation.json
        return query
    }

    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> CommandOutput {
        let query = try query(invocation)
        let repository = try context.repository(invocation)
        let log = AuditLog(repository: repository)
        if context.environment["ROLLOUT_LOG_PROFILE"] == "1" { log.profile = BuildProfile() }
        let result = try log.query(query)
        for warning in result.warnings { context.diagnostics("warning: \(warning.oneLine)\n") }
        for line in log.profile?.lines ?? [] { context.diagnostics(line + "\n") }
        let style = context.style(invocation)
        var text = ""
        var json: [JSONValue] = []
        var auditor = try signerAuditor(invocation, repository)
        defer { auditor?.close() }
        // Only the form that is printed is made: a whole-history answer has tens of thousands of
        // entries, and the JSON of their plans would be most of the command's memory and time.
        let wantsJSON = invocation.json
        for entry in result.entries {
            var item = wantsJSON ? entryJSON(entry) : [:]
            let audit = try auditor?.audit(hex: entry.commit, requireSigned: false)
            if let audit, wantsJSON { item["signature"] = SignatureWords.json(audit) }
            if !wantsJSON {
                text +=
                    "\(style.bold(entry.time.description))  \(style.yellow(String(entry.commit.prefix(12))))  \(entry.action.oneLine)  \(entry.actor.oneLine)"
                    + (audit.map { "  signer: \(signerText($0, style))" } ?? "") + "\n"
                text += "    \(entry.summary.oneLine)" + (entry.reason.map { " (\"\($0.oneLine)\")" } ?? "") + "\n"
            }
            if let segment = query.segment {
                let changed =
                    entry.segmentChanges
                    ?? entry.sharesChanged(in: segment.region, versions: segment.versions).map {
                        ($0.change.locale, $0.after)
                    }
                let shown = changed.filter { query.locale == nil || $0.locale == query.locale }
                if wantsJSON {
                    item["shares"] = .array(shown.flatMap { sharesJSON($0.locale, $0.after) })
                } else {
                    for (locale, after) in shown {
                        for piece in after.pieces {
                            text +=
                                "    \(style.green("\(locale) \(piece.regions) \(piece.versions)")): \(piece.describe(locale: locale))\n"
                        }
                    }
                }
            }
            if wantsJSON { json.append(.object(item)) }
        }
        if result.entries.isEmpty { text = "No changes match.\n" }
        if result.truncated { text += style.dim("(older changes exist: --limit 0 shows all, --since narrows)") + "\n" }
        return CommandOutput(json: ["changes": .array(json), "truncated": .bool(result.truncated)], text: text)
    }

    /// An auditor when the SIGNER column shows: `--verify`, or a repository with signers.
    static func signerAuditor(_ invocation: Invocation, _ repository: PackRepository) throws -> SignatureAuditor? {
        guard let tip = try repository.snapshot().commit else { return nil }
        let hasSigners = try repository.hasSigners(at: tip)
        return invocation.flag(Options.declared.verify) || hasSigners ? repository.signatureAuditor() : nil
    }

    /// The signer, green when verified and acceptable, red when the change has a problem.
    static func signerText(_ audit: ChangeAudit, _ style: Style) -> String {
        let text = audit.signerLabel.oneLine
        if !audit.problems.isEmpty { return style.red(text) }
        if case .verified = audit.signature { return style.green(text) }
        return text
    }

    /// `--json`'s `shares` of one plan change: what the segment's devices receive after it, piece by piece.
    static func sharesJSON(_ locale: String, _ after: SegmentShares) -> [JSONValue] {
        after.pieces.map { piece in
            let packs: [JSONValue] = piece.shares.map {
                ["pack": .string($0.outcome.label(locale: locale)), "basisPoints": .integer($0.basisPoints)]
            }
            return [
                "locale": .string(locale), "regions": .string(piece.regions), "versions": .string(piece.versions),
                "packs": .array(packs),
            ]
        }
    }

    static func entryJSON(_ entry: AuditEntry) -> [String: JSONValue] {
        var item: [String: JSONValue] = [
            "commit": .string(entry.commit), "time": .string(entry.time.description), "actor": .string(entry.actor),
            "action": .string(entry.action), "summary": .string(entry.summary),
            "locales": .array(entry.locales.map { .string($0) }), "packs": .array(entry.packs.map { .string($0) }),
            "reason": entry.reason.map { .string($0) } ?? .null,
        ]
        item["plans"] = .array(
            entry.planChanges.map { change in
                var plan = change.after
                plan.lastChange = nil
                return plan.jsonValue
            })
        return item
    }
}
