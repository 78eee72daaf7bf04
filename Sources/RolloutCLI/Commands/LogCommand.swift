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
            given (0 for all). See docs/audit.md; plain git log reads the same history.
            """,
        options: [
            .value("segment", "REGION/VERSION", "only changes that altered this segment, for example TR/4.8"),
            .value("locale", "L", "only changes to this locale"),
            .value("pack", "P", "only changes naming this pack, for example tr-TR@18"),
            .value("since", "T", "only changes at or after T"),
            .value("until", "T", "only changes at or before T"),
            .value("limit", "N", "at most N changes (default \(defaultLimit); 0 for all)"),
        ],
        arguments: .none,
        effects: .readsRepository,
        run: run)

    static func parseSegment(_ text: String) throws -> (region: String, versions: VersionRange) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, !parts[0].isEmpty else {
            throw RolloutError.usage("segment \"\(text)\" is not REGION/VERSION, for example TR/4.8 or */4.8")
        }
        if parts.count == 1,
            let separator = text.firstIndex(where: { $0 == "-" || $0 == ":" || $0 == " " || $0 == "_" }),
            AppVersion(String(text[text.index(after: separator)...])) != nil
        {
            let suggestion = "\(text[..<separator])/\(text[text.index(after: separator)...])"
            throw RolloutError.usage("segment \"\(text)\" is not REGION/VERSION (did you mean \(suggestion)?)")
        }
        let region = try Region.parse(parts[0])
        // "TR/$V" with V unset must not widen to every version.
        if parts.count == 2 && parts[1].trimmingSpaces.isEmpty {
            throw RolloutError.usage(
                "segment \"\(text)\" has an empty version: give one (\(parts[0])/4.8), * for every version, or leave out the slash"
            )
        }
        guard parts.count == 2, parts[1] != "*" else { return (region, .all) }
        let prefix = parts[1].hasSuffix(".x") ? String(parts[1].dropLast(2)) : parts[1]
        guard let version = AppVersion(prefix) else {
            throw RolloutError.usage("segment \"\(text)\": \"\(parts[1])\" is not an app-version prefix such as 4.8")
        }
        return (region, .prefix(version))
    }

    static func parseTime(_ text: String, flag: String, endOfDay: Bool) throws -> Timestamp {
        guard let time = Timestamp(iso8601: text) else {
            throw RolloutError.usage(
                "\(flag) \"\(text)\" is not a date (2026-11-01) or an ISO 8601 time (2026-11-01T09:00:00Z)")
        }
        return endOfDay && text.count == 10 ? Timestamp(seconds: time.seconds + 86_399) : time
    }

    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> CommandOutput {
        var query = AuditLog.Query()
        query.segment = try invocation.value("segment").map(parseSegment)
        query.locale = try invocation.value("locale").map(PlanCommands.parseLocale)
        query.pack = try invocation.value("pack").map(PackID.parse)
        query.since = try invocation.value("since").map { try parseTime($0, flag: "--since", endOfDay: false) }
        query.until = try invocation.value("until").map { try parseTime($0, flag: "--until", endOfDay: true) }
        let limitText = invocation.value("limit") ?? String(defaultLimit)
        guard let limit = Int(limitText), limit >= 0 else {
            throw RolloutError.usage("--limit \"\(limitText)\" must be a whole number (0 for all)")
        }
        query.limit = limit == 0 ? nil : limit

        let repository = try context.repository(invocation)
        let log = AuditLog(repository: repository)
        if context.environment["ROLLOUT_LOG_PROFILE"] == "1" { log.profile = BuildProfile() }
        let result = try log.query(query)
        for warning in result.warnings { context.diagnostics("warning: \(warning.oneLine)\n") }
        for line in log.profile?.lines ?? [] { context.diagnostics(line + "\n") }
        let style = context.style(invocation)
        var text = ""
        var json: [JSONValue] = []
        for entry in result.entries {
            var item = entryJSON(entry)
            text +=
                "\(style.bold(entry.time.description))  \(style.yellow(String(entry.commit.prefix(12))))  \(entry.action.oneLine)  \(entry.actor.oneLine)\n"
            text += "    \(entry.summary.oneLine)" + (entry.reason.map { " (\"\($0.oneLine)\")" } ?? "") + "\n"
            if let segment = query.segment {
                var shares: [JSONValue] = []
                for change in entry.changes(affecting: segment.region, versions: segment.versions)
                where query.locale == nil || change.locale == query.locale {
                    for piece in SegmentShares.of(change.after, region: segment.region, versions: segment.versions)
                        .pieces
                    {
                        text +=
                            "    \(style.green("\(change.locale) \(piece.regions) \(piece.versions)")): \(piece.describe(locale: change.locale))\n"
                        let packs: [JSONValue] = piece.shares.map {
                            [
                                "pack": .string($0.outcome.label(locale: change.locale)),
                                "basisPoints": .integer($0.basisPoints),
                            ]
                        }
                        shares.append([
                            "locale": .string(change.locale), "regions": .string(piece.regions),
                            "versions": .string(piece.versions), "packs": .array(packs),
                        ])
                    }
                }
                item["shares"] = .array(shares)
            }
            json.append(.object(item))
        }
        if result.entries.isEmpty { text = "No changes match.\n" }
        if result.truncated { text += style.dim("(older changes exist: --limit 0 shows all, --since narrows)") + "\n" }
        return CommandOutput(json: ["changes": .array(json), "truncated": .bool(result.truncated)], text: text)
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
