import RolloutModel
import RolloutStore

enum PackCommands {
    /// The options of lint, add and import that say what lint lets through.
    struct LintFlags: OptionGroup {
        let approvedBy = Option<String>(
            "approved-by", "NAME", "who approved changes to protected keys (policy protectedKeys)")
        let allowRemovedKeys = Flag(
            "allow-removed-keys", "accept keys that the previous version had and this one drops")

        static let declared = LintFlags()
    }

    struct AddOptions: OptionGroup {
        let lint = LintFlags()
        let reason = Option.reason("why (recorded in the commit)")

        let proposal = ApprovalCommands.ProposeOptions()

        static let declared = AddOptions()
    }

    struct ShowOptions: OptionGroup {
        let strings = Flag("strings", "also print every key and its text")

        static let declared = ShowOptions()
    }

    struct ChecksumOptions: OptionGroup {
        let write = Flag("write", "rewrite each file with its checksum, in the stored layout")

        static let declared = ChecksumOptions()
    }

    static func options(_ invocation: Invocation) -> LintOptions {
        let flags = LintFlags.declared
        return LintOptions(
            approvedBy: invocation.value(flags.approvedBy), allowRemovedKeys: invocation.flag(flags.allowRemovedKeys))
    }

    /// Reads and parses every file; reports all unreadable or malformed files at once.
    static func readPacks(_ paths: [String], context: CommandContext, policy: Policy) throws -> [PackInput] {
        var inputs: [PackInput] = []
        var problems: [RolloutError] = []
        for path in paths {
            do {
                let bytes = try context.readFile(path, limit: policy.limits.maxPackBytes, describedAs: "pack file")
                inputs.append(
                    PackInput(
                        source: path,
                        parsed: try PackParser.parse(
                            bytes, source: path.oneLine, maximumBytes: policy.limits.maxPackBytes)))
            } catch let error as RolloutError {
                problems.append(error)
            }
        }
        if problems.count == 1 { throw problems[0] }
        if !problems.isEmpty {
            // Several files failed: usage or missing files outrank bad content in the exit code.
            let worst = problems.first { if case .missing = $0 { return true } else { return false } } ?? problems[0]
            let message = problems.map(\.message).joined(separator: "\n")
            switch worst {
            case .missing: throw RolloutError.missing(message)
            case .usage: throw RolloutError.usage(message)
            default: throw RolloutError.badInput(message)
            }
        }
        return inputs
    }

    static let lint = CommandSpec(
        path: ["pack", "lint"], summary: "check packs against every rule pack add applies, without storing anything",
        discussion: """
            Inside a repository, packs are checked against its policy and history (contentVersion must
            grow, removed keys, protected keys, fallback chain, placeholder parity). With no repository,
            only the rules that need none are applied. Exit 1 when lint finds an error, 65 when a file
            is not a well-formed pack. Rules: docs/pack-format.md.
            """,
        options: LintFlags.self, arguments: .oneOrMore("FILE"),
        effects: [.readsFiles, .readsRepository, .checks],
        run: { invocation, context in
            let repository = try context.optionalRepository(invocation)
            let snapshot = try repository?.snapshot()
            let inputs = try readPacks(
                invocation.positionals, context: context, policy: try snapshot?.policy() ?? RepositoryTemplate.policy())
            let plan = try PackOperations.plan(inputs, snapshot: snapshot, options: options(invocation))
            let style = context.style(invocation)
            var text = ""
            for input in inputs {
                let id = input.pack.id
                let status: String
                if plan.conflicts.contains(where: { $0.pack == id }) {
                    status = style.red("refused")
                } else if plan.unchanged.contains(id) {
                    status = "unchanged (identical to the stored pack)"
                } else if plan.findings.contains(where: { $0.pack == id && $0.severity == .error }) {
                    status = style.red("fails lint")
                } else {
                    status = style.green("ok")
                }
                text += "\(id)  \(input.source.oneLine)  \(status)\n"
            }
            for finding in plan.conflicts + plan.findings { text += finding.render(style) + "\n" }
            if repository == nil {
                text +=
                    style.dim(
                        "(no repository found: checked against the template policy; history and fallback rules need one)"
                    ) + "\n"
            }
            let errors = plan.errors.count
            text += errors == 0 ? "lint passed\n" : "lint failed: \(errors) error\(errors == 1 ? "" : "s")\n"
            let json: JSONValue = [
                "ok": .bool(errors == 0),
                "repository": repository.map { .string($0.path) } ?? .null,
                "packs": .array(
                    inputs.map {
                        [
                            "pack": .string($0.pack.id.description), "source": .string($0.source),
                            "checksum": .string($0.pack.checksum),
                        ]
                    }),
                "findings": .array((plan.conflicts + plan.findings).map(\.jsonValue)),
            ]
            return CommandOutput(json: json, text: text, exitCode: errors == 0 ? 0 : 1)
        })

    static let add = CommandSpec(
        path: ["pack", "add"], summary: "lint and store packs, all or nothing, in one commit",
        discussion: """
            Every file is parsed strictly and linted against the policy and history first; if any pack
            fails, nothing is stored (exit 65). A pack identical to a stored one is a no-op; a different
            pack under an existing id is refused, because packs are immutable: publish tr-TR@18 instead
            of changing tr-TR@17.
            """,
        options: AddOptions.self,
        arguments: .oneOrMore("FILE"),
        effects: [.readsFiles, .recordsChange],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let inputs = try readPacks(
                invocation.positionals, context: context, policy: try repository.snapshotForChange().policy())
            let actor = try context.actor(invocation, repository: repository)
            let now = try context.now()
            let applied = try PackOperations.add(
                inputs, to: repository, options: options(invocation),
                reason: invocation.value(AddOptions.declared.reason), actor: actor,
                time: { now })
            let plan = applied.result
            let style = context.style(invocation)
            var text = ""
            for input in plan.new {
                text +=
                    "\(style.green("added")) \(input.pack.id)  \(input.pack.strings.count) keys  \(input.pack.checksum)\n"
            }
            for id in plan.unchanged { text += "unchanged \(id): identical to the stored pack, nothing to do\n" }
            for warning in plan.warnings { text += warning.render(style) + "\n" }
            if let commit = applied.commit { text += "commit \(commit.short)\n" }
            let json: JSONValue = [
                "added": .array(
                    plan.new.map {
                        [
                            "pack": .string($0.pack.id.description), "checksum": .string($0.pack.checksum),
                            "keys": .integer($0.pack.strings.count),
                        ]
                    }),
                "unchanged": .array(plan.unchanged.map { .string($0.description) }),
                "warnings": .array(plan.warnings.map(\.jsonValue)),
                "commit": applied.commit.map { .string($0.hex) } ?? .null,
            ]
            return CommandOutput(json: json, text: text)
        })

    static let list = CommandSpec(
        path: ["pack", "list"],
        summary: "list stored packs: id, minAppVersion, key count, checksum, who added them and when",
        discussion: "", options: NoOptions.self, arguments: .optional("LOCALE"),
        effects: .readsRepository,
        run: { invocation, context in
            let snapshot = try context.repository(invocation).snapshot()
            var locales = try snapshot.locales()
            if let locale = invocation.positionals.first {
                do {
                    _ = try LocaleTag.parse(locale)
                } catch let error as LocaleTag.ParseError {
                    throw RolloutError.usage(error.message)
                }
                guard locales.contains(locale) else {
                    throw RolloutError.missing(
                        "no \(locale) packs"
                            + (locales.isEmpty
                                ? "; add one with rollout pack add FILE"
                                : " (locales: \(locales.joined(separator: ", ")))"))
                }
                locales = [locale]
            }
            var records: [PackRecord] = []
            for locale in locales {
                for version in try snapshot.contentVersions(of: locale) {
                    let id = PackID(locale: locale, contentVersion: version)
                    guard let record = try snapshot.record(id) else {
                        throw RolloutError.repositoryDamaged(
                            "\(try snapshot.storedPath(id, record: true)) is missing")
                    }
                    records.append(record)
                }
            }
            var table = Table("PACK", "MIN APP", "KEYS", "CHECKSUM", "ADDED BY", "ADDED AT")
            for r in records {
                table.add(
                    r.id.description, r.minAppVersion, "\(r.keys)", String(r.checksum.prefix(19)),
                    cell(r.addedBy, width: 40), r.addedAt.description)
            }
            let text =
                records.isEmpty
                ? "No packs yet; add one with rollout pack add FILE.\n" : table.render(context.style(invocation))
            return CommandOutput(json: ["packs": .array(records.map(\.jsonValue))], text: text)
        })

    static let show = CommandSpec(
        path: ["pack", "show"],
        summary: "show one pack (for example tr-TR@18): fields, checksum, provenance, and with --strings its strings",
        discussion: "", options: ShowOptions.self, arguments: .exactly("PACK"),
        effects: .readsRepository,
        run: { invocation, context in
            let id = try PackID.parse(invocation.positionals[0])
            let snapshot = try context.repository(invocation).snapshot()
            let pack = try snapshot.requirePack(id)
            let record = try snapshot.record(id)
            let style = context.style(invocation)
            var text = "\(style.bold(id.description))\n"
            var rows: [(String, String)] = [
                ("schemaVersion", "\(pack.schemaVersion)"), ("minAppVersion", pack.minAppVersion.description),
                ("fallbackLocale", pack.fallbackLocale ?? "-"), ("keys", "\(pack.strings.count)"),
                ("checksum", pack.checksum),
            ]
            if let record {
                rows += [
                    ("bytes", "\(record.bytes)"), ("added by", record.addedBy),
                    ("added at", record.addedAt.description),
                ]
                if let approver = record.approvedBy { rows.append(("approved by", approver)) }
            }
            let width = rows.map(\.0.count).max()!
            for (name, value) in rows {
                text += "  \(name)\(String(repeating: " ", count: width - name.count))  \(value.oneLine)\n"
            }
            var json = record?.jsonValue.objectValue ?? [:]
            json["pack"] = .string(id.description)
            json["schemaVersion"] = .integer(pack.schemaVersion)
            json["checksum"] = .string(pack.checksum)
            if invocation.flag(ShowOptions.declared.strings) {
                var table = Table("KEY", "TEXT")
                for key in JSONWriter.sortedKeys(pack.strings) { table.add(key, cell(pack.strings[key]!, width: 100)) }
                text += "\n" + table.render(style)
                json["strings"] = .object(pack.strings.mapValues { .string($0) })
            }
            return CommandOutput(json: .object(json), text: text)
        })

    static let diff = CommandSpec(
        path: ["pack", "diff"],
        summary: "keys added, removed and changed between two packs (for example tr-TR@17 tr-TR@18)",
        discussion: "", options: NoOptions.self, arguments: .exactly("FROM", "TO"),
        effects: .readsRepository,
        run: { invocation, context in
            let from = try PackID.parse(invocation.positionals[0])
            let to = try PackID.parse(invocation.positionals[1])
            let snapshot = try context.repository(invocation).snapshot()
            let diff = PackDiff(from: try snapshot.requirePack(from), to: try snapshot.requirePack(to))
            let style = context.style(invocation)
            var text =
                "\(style.bold("\(from) -> \(to)")): \(diff.added.count) added, \(diff.removed.count) removed, \(diff.changed.count) changed\n"
            for field in diff.fields { text += "  \(field.name): \(field.from ?? "-") -> \(field.to ?? "-")\n" }
            for (key, value) in diff.added { text += style.green("+ \(key.oneLine)") + "  \(cell(value))\n" }
            for (key, value) in diff.removed { text += style.red("- \(key.oneLine)") + "  \(cell(value))\n" }
            for change in diff.changed {
                text +=
                    style.yellow("~ \(change.key.oneLine)")
                    + "  \(cell(change.from, width: 40)) -> \(cell(change.to, width: 40))\n"
            }
            return CommandOutput(json: diff.jsonValue, text: text)
        })

    static let checksum = CommandSpec(
        path: ["pack", "checksum"],
        summary: "compute each pack's sha256: checksum (RFC 8785 canonical form, checksum member removed)",
        discussion: """
            A declared checksum is ignored here, so this recomputes it after an edit. With --write the
            file is rewritten in the canonical layout the repository stores, checksum included.
            """,
        options: ChecksumOptions.self,
        arguments: .oneOrMore("FILE"),
        effects: [.readsFiles, .writesFiles],
        run: { invocation, context in
            var results: [JSONValue] = []
            var text = ""
            for path in invocation.positionals {
                let bytes = try context.readFile(
                    path, limit: PolicyLimits.default.maxPackBytes, describedAs: "pack file")
                let pack = try PackParser.parse(bytes, source: path, verifyChecksum: false).pack
                if invocation.flag(ChecksumOptions.declared.write) {
                    try context.writeFile(path, pack.storedBytes)
                }
                text += "\(pack.checksum)  \(path.oneLine)\n"
                results.append([
                    "file": .string(path), "pack": .string(pack.id.description), "checksum": .string(pack.checksum),
                ])
            }
            return CommandOutput(json: ["checksums": .array(results)], text: text)
        })
}
