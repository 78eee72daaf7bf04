import Foundation
import RolloutImport
import RolloutModel
import RolloutStore

/// `rollout pack import`: one pack per locale from an app's own catalog, through the same parser
/// and lint as `pack add` (docs/import.md).
enum ImportCommand {
    static let spec = CommandSpec(
        path: ["pack", "import"],
        summary:
            "make one pack per locale from an Xcode String Catalog, Android res/, i18next JSON or Flutter ARB files",
        discussion: """
            Placeholders and plurals become the pack's canonical ICU form, keeping each argument's
            position and type (%1$@ and %s -> {0}, %2$d and %lld -> {1, number}, {{name}} -> {name},
            plural forms -> {0, plural, one {# file} other {# files}}), so placeholder lint compares
            locales imported from different formats. Strings marked stale, needing review, not
            translated or not translatable are left out and listed, as is every file or folder that is
            not a locale. The packs then go through the same lint as rollout pack add, all or nothing,
            in one commit; with --skip-invalid, every string lint refuses is left out instead (and
            listed, with the rule), and the rest is imported; a string is judged against what is
            kept, never against one being left out. A refusal says in its first line what gets past
            it, and still lists what was left out. --dry-run lints and writes nothing.
            minAppVersion is --min-app-version, else the newest stored pack's of each locale. The
            fallback locale is the language for a regional locale (tr-TR -> tr) when that locale is
            imported or stored, else the source locale; the source and its less specific forms (en
            for en-US) have none, so no chain loops.
            """,
        options: Options.self,
        arguments: .exactly("PATH"),
        effects: [.readsFiles, .recordsChange],
        run: run)

    struct Options: OptionGroup {
        let lint = PackCommands.LintFlags()
        let contentVersion = Option.count(
            "content-version", "N", "the contentVersion of every pack made", minimum: 1,
            maximum: Pack.maximumContentVersion
        ).required()
        let format = Option<CatalogFormat>(
            "format", "FORMAT", "xcstrings, android, i18next or arb (default: from the path)")
        let minAppVersion = Option<AppVersion>(
            "min-app-version", "V", "minAppVersion of the packs (default: the newest stored pack's, per locale)")
        let sourceLocale = Option<LocaleTag>(
            "source-locale", "L",
            "the locale of Android's values/ and the catalog's development language (default: the catalog's, else en-US)"
        )
        let locale = Option<LocaleTag>("locale", "L", "import only this locale", repeatable: true)
        let dryRun = Flag("dry-run", "lint the packs and show them; write nothing")
        let skipInvalid = Flag("skip-invalid", "leave out each string lint refuses, list it, and import the rest")
        let arbUseEscaping = Flag(
            "arb-use-escaping", "ARB: apostrophes are ICU escaping, as with use-escaping: true in l10n.yaml")
        let i18nextFormat = Option<I18nextFormat>(
            "i18next-format", "icu|i18next",
            "i18next: values are ICU MessageFormat (i18next-icu) or i18next's {{name}} (default: icu when the nearest package.json lists i18next-icu)"
        )
        let reason = Option.reason("why (recorded in the commit)")
        let maxCatalogBytes = Option.count(
            "max-catalog-bytes", "N",
            "the largest catalog file read, in bytes (default \(InputLimits.catalogBytes), 64 MiB; at most 1 GiB)",
            minimum: 1, maximum: InputLimits.catalogBytesCeiling)

        let proposal = ApprovalCommands.ProposeOptions()

        static let declared = Options()
    }

    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> CommandOutput {
        let (path, format, request, reading) = try parse(invocation, context)
        let repository = try context.repository(invocation)
        repository.dryRun = invocation.flag(Options.declared.dryRun)
        let snapshot = try repository.snapshotForChange()
        let read = try CatalogImporter.read(path, format: format, options: reading)
        let stored = PackImport.Stored(policy: try snapshot.policy(), locales: Set(try snapshot.locales())) { locale in
            guard let newest = try snapshot.contentVersions(of: locale).max() else { return nil }
            return try snapshot.pack(PackID(locale: locale, contentVersion: newest))?.minAppVersion
        }
        let options = PackCommands.options(invocation)
        let imported: PackImport.Result
        do {
            imported = try PackImport.build(read, request: request, stored: stored) { packs in
                try PackOperations.plan(packs.map(PackInput.init), snapshot: snapshot, options: options).errors
            }
        } catch let refusal as PackImport.Refusal {
            guard let error = Refusals.worded(refusal.error) else { throw refusal.error }
            throw error.withMessage { $0 + leftOutSection(refusal.catalog) }
        }
        let inputs = imported.packs.map(PackInput.init)
        let plan: PackAddPlan
        var commit: ObjectID? = nil
        do {
            // With --dry-run the repository stops before the commit (`PackRepository.dryRun`).
            let actor = try context.actor(invocation, repository: repository)
            let now = try context.now()
            let applied: PackRepository.Applied<PackAddPlan>
            do {
                applied = try PackOperations.add(
                    inputs, to: repository, options: options, reason: invocation.value(Options.declared.reason),
                    actor: actor,
                    time: { now })
            } catch StoreRefusal.lintRefused(let errors) {
                throw try lintRefusal(errors, request, snapshot)
            }
            plan = applied.result
            commit = applied.commit
        } catch {
            guard let worded = Refusals.worded(error) else { throw error }
            throw worded.withMessage { $0 + leftOutSection(imported.catalog) }
        }
        return render(imported, format: format, plan: plan, commit: commit, invocation, context)
    }

    /// Lint's refusal of the packs, its first line naming what gets past it: `--skip-invalid` for
    /// strings lint refuses on their own, the flag for each problem of whole packs.
    static func lintRefusal(
        _ errors: [LintFinding], _ request: PackImport.Request, _ snapshot: Snapshot
    ) throws -> RolloutError {
        var fixes: [String] = []
        let strings = Set(
            errors.filter { $0.key != nil && PackImport.perStringRules.contains($0.rule) }.map {
                "\($0.pack.locale) \($0.key!)"
            }
        ).count
        if strings > 0 {
            fixes.append(
                request.skipInvalid
                    ? "fix in the catalog the \(strings) string(s) lint still refuses after \(PackImport.lintRounds) rounds of --skip-invalid"
                    : "pass --skip-invalid to leave out the \(strings) string(s) lint refuses and import the rest")
        }
        let rules = Set(errors.map(\.rule))
        if rules.contains("removed-keys") {
            fixes.append("pass --allow-removed-keys if the keys stored packs have and these do not are meant to go")
        }
        if rules.contains("protected-key") { fixes.append("pass --approved-by NAME to change protected keys") }
        if !rules.isDisjoint(with: ["content-version", "immutable", "duplicate-in-batch"]) {
            let newest = try errors.map { try snapshot.contentVersions(of: $0.pack.locale).max() ?? 0 }.max() ?? 0
            fixes.append("pass --content-version \(max(newest, request.contentVersion) + 1)")
        }
        if rules.contains("fallback-chain") { fixes.append("name the development language with --source-locale L") }
        if rules.contains("required-key") { fixes.append("add the policy's requiredKeys to the catalog") }
        if rules.contains("too-many-keys") { fixes.append("raise the policy's limits.maxKeys (rollout policy set)") }
        if fixes.isEmpty { fixes.append("fix the problems listed below") }
        return .badInput(
            "refused, nothing was stored: \(fixes.joined(separator: "; and "))\n\(errors.count) problem(s):\n"
                + Refusals.listing(errors))
    }

    /// Why a file was left out, with the option that changes it where there is one.
    static func reason(_ file: CatalogImport.SkippedFile) -> String {
        switch file.reason {
        case .said(let reason): return reason
        case .manifestNotRead(let problem):
            var why: String
            switch problem {
            case .refused(let refusal): why = Refusals.message(refusal)
            case .invalid(let message): why = message
            }
            if why.hasPrefix(file.path + ":") { why = String(why.dropFirst(file.path.count + 1)) }
            return
                "not read (\(why)): values read as i18next unless another package.json up the tree lists i18next-icu; give --i18next-format icu if the app uses i18next-icu"
        }
    }

    /// Why values were read as they were: the option, or the project that says so.
    static func because(_ reading: CatalogReading) -> String {
        switch reading.because {
        case .asked: return "--i18next-format"
        case .project(let manifest): return "i18next-icu in \(manifest)"
        }
    }

    /// Every string and file left out, one line each, in the result's order: on stderr after an
    /// import, and at the end of a refusal's message (nothing is dropped silently, even then).
    static func leftOutListing(_ catalog: CatalogImport) -> String {
        var listing = ""
        for file in catalog.skippedFiles { listing += "left out \(file.path.oneLine): \(reason(file).oneLine)\n" }
        for skipped in catalog.skipped {
            listing += "left out \(skipped.locale) \(skipped.key.oneLine): \(skipped.reason.oneLine)\n"
        }
        return listing
    }

    /// What a refusal's message ends with: the count, then the listing.
    static func leftOutSection(_ catalog: CatalogImport) -> String {
        guard !catalog.skipped.isEmpty || !catalog.skippedFiles.isEmpty else { return "" }
        let listing = leftOutListing(catalog)
        return "\n\(leftOutSummary(catalog)):\n\(listing.dropLast())"
    }

    static func leftOutSummary(_ catalog: CatalogImport) -> String {
        "left out \(catalog.skipped.count) string(s) and \(catalog.skippedFiles.count) file(s)"
    }

    /// The flags that say how one format is read, and that format: given for a catalog of another,
    /// they would do nothing, so they are a usage error (docs/import.md).
    static let formatFlags: [(option: any DeclaredOption, format: CatalogFormat)] = [
        (Options.declared.arbUseEscaping, .arb), (Options.declared.i18nextFormat, .i18next),
    ]

    /// The catalog's absolute path, its format, what the flags ask of the packs, and how to read
    /// the catalog; every usage error before the repository is opened.
    static func parse(_ invocation: Invocation, _ context: CommandContext) throws -> (
        String, CatalogFormat, PackImport.Request, ImportOptions
    ) {
        let path = context.absolutePath(invocation.positionals[0])
        guard FileManager.default.fileExists(atPath: path) else {
            throw RolloutError.missing("\(invocation.positionals[0]): no such file or directory")
        }
        let options = Options.declared
        guard let contentVersion = try invocation.value(options.contentVersion) else {
            throw RolloutError.usage(
                "rollout pack import needs --content-version N (the version every pack made from this catalog gets)")
        }
        let format: CatalogFormat
        if let chosen = try invocation.value(options.format) {
            format = chosen
        } else {
            guard let detected = CatalogFormat.detect(path) else {
                throw .undetectedFormat(of: invocation.positionals[0])
            }
            format = detected
        }
        for (option, owner) in formatFlags where owner != format && invocation.given(option) {
            throw RolloutError.usage(
                "\(option.flag) is for \(owner.rawValue) catalogs; \(invocation.positionals[0]) is read as \(format.rawValue)"
            )
        }
        let minimum = try invocation.value(options.minAppVersion)
        let sourceFlag = try invocation.value(options.sourceLocale)?.description
        let only = Set(try invocation.values(options.locale).map(\.description))
        let request = PackImport.Request(
            catalogName: invocation.positionals[0], contentVersion: contentVersion, minAppVersion: minimum,
            sourceLocale: sourceFlag,
            locales: only, skipInvalid: invocation.flag(options.skipInvalid))
        let reading = ImportOptions(
            sourceLocale: sourceFlag ?? "en-US", arbUseEscaping: invocation.flag(options.arbUseEscaping) ? true : nil,
            i18nextFormat: try invocation.value(options.i18nextFormat),
            maxCatalogBytes: try invocation.value(options.maxCatalogBytes) ?? InputLimits.catalogBytes)
        return (path, format, request, reading)
    }

    static func render(
        _ imported: PackImport.Result, format: CatalogFormat, plan: PackAddPlan, commit: ObjectID?,
        _ invocation: Invocation,
        _ context: CommandContext
    ) -> CommandOutput {
        let style = context.style(invocation)
        let catalog = imported.catalog
        var text = "\(format.rawValue): \(catalog.strings.count) locale(s), source \(imported.sourceLocale)\n"
        if let reading = catalog.reading { text += "values read as \(reading.format) (\(because(reading)))\n" }
        for input in plan.new {
            text +=
                "\(invocation.flag(Options.declared.dryRun) ? "would add" : style.green("added")) \(input.pack.id)  \(input.pack.strings.count) keys  fallback \(input.pack.fallbackLocale ?? "-")  \(input.pack.checksum)\n"
        }
        for id in plan.unchanged { text += "unchanged \(id): identical to the stored pack\n" }
        for locale in imported.emptyLocales { text += "no strings left for \(locale): no pack made\n" }
        if !catalog.skipped.isEmpty || !catalog.skippedFiles.isEmpty {
            text += "\(leftOutSummary(catalog)), listed on stderr\n"
            // Every one, on stderr: a person reads the summary, a script keeps the list.
            if !invocation.json { context.diagnostics(leftOutListing(catalog)) }
        }
        for warning in plan.warnings { text += warning.render(style) + "\n" }
        if let commit { text += "commit \(commit.short)\n" }
        return CommandOutput(
            json: [
                "format": .string(format.rawValue), "sourceLocale": .string(imported.sourceLocale),
                "dryRun": .bool(invocation.flag(Options.declared.dryRun)),
                "added": .array(
                    plan.new.map {
                        [
                            "pack": .string($0.pack.id.description), "keys": .integer($0.pack.strings.count),
                            "checksum": .string($0.pack.checksum),
                            "fallbackLocale": $0.pack.fallbackLocale.map { .string($0) } ?? .null,
                        ]
                    }),
                "unchanged": .array(plan.unchanged.map { .string($0.description) }),
                "skipped": .array(
                    catalog.skipped.map {
                        ["locale": .string($0.locale), "key": .string($0.key), "reason": .string($0.reason)]
                    }),
                "skippedFiles": .array(
                    catalog.skippedFiles.map { ["path": .string($0.path), "reason": .string(reason($0))] }),
                "warnings": .array(plan.warnings.map(\.jsonValue)),
                "commit": commit.map { .string($0.hex) } ?? .null,
                "reading": catalog.reading.map { ["format": .string($0.format), "because": .string(because($0))] }
                    ?? .null,
            ],
            text: text)
    }
}

extension PackInput {
    /// A pack the import made, as `pack add` takes a file.
    init(_ made: PackImport.MadePack) { self.init(source: made.source, parsed: made.parsed) }
}

/// pack import's refusals of --format, named (an extension of Error, so that `throw .name(...)` finds them).
extension Error where Self == RolloutError {
    fileprivate static func undetectedFormat(of catalog: String) -> RolloutError {
        .usage(
            "cannot tell the format of \(catalog); name it with --format \(CatalogFormat.allCases.map(\.rawValue).joined(separator: "|"))"
        )
    }
}
