import Foundation
import RolloutImport
import RolloutModel
import RolloutStore

/// `rollout pack import`: one pack per locale from an app's own catalog, through the same parser
/// and lint as `pack add` (docs/import.md).
enum ImportCommand {
    static let spec = CommandSpec(
        path: ["pack", "import"],
        usage:
            "pack import PATH --content-version N [--format xcstrings|android|i18next|arb] [--min-app-version V] [--source-locale L] [--locale L]... [--skip-invalid] [--arb-use-escaping] [--dry-run]",
        summary: "make one pack per locale from an Xcode String Catalog, Android res/, i18next JSON or Flutter ARB files",
        discussion: """
            Placeholders and plurals become the pack's canonical ICU form, keeping each argument's
            position and type (%1$@ and %s -> {0}, %2$d and %lld -> {1, number}, {{name}} -> {name},
            plural forms -> {0, plural, one {# file} other {# files}}), so placeholder lint compares
            locales imported from different formats. Strings marked stale, needing review, not
            translated or not translatable are left out and listed, as is every file or folder that is
            not a locale. The packs then go through the same lint as rollout pack add, all or nothing,
            in one commit; with --skip-invalid, every string lint refuses is left out instead (and
            listed, with the rule), and the rest is imported. --dry-run lints and writes nothing.
            minAppVersion is --min-app-version, else the newest stored pack's of each locale. The
            fallback locale is the language for a regional locale (tr-TR -> tr) when that locale is
            imported or stored, else the source locale.
            """,
        options: PackCommands.lintOptions + [
            .value("content-version", "N", "the contentVersion of every pack made"),
            .value("format", "FORMAT", "xcstrings, android, i18next or arb (default: from the path)"),
            .value("min-app-version", "V", "minAppVersion of the packs (default: the newest stored pack's, per locale)"),
            .value("source-locale", "L", "the locale of Android's values/ and the catalog's development language (default: the catalog's, else en-US)"),
            .value("locale", "L", "import only this locale (repeatable)", repeatable: true),
            .flag("dry-run", "lint the packs and show them; write nothing"),
            .flag("skip-invalid", "leave out each string lint refuses, list it, and import the rest"),
            .flag("arb-use-escaping", "ARB: apostrophes are ICU escaping, as with use-escaping: true in l10n.yaml"),
            .value("reason", "TEXT", "why (recorded in the commit)"),
        ],
        arguments: .exactly("PATH"),
        run: run)

    /// The lint rules a string fails on its own, so leaving that string out is the fix
    /// (docs/pack-format.md, "Rules"). Rules about a pack against history (removed, required or
    /// protected keys) are not: leaving a string out cannot satisfy them, and they still refuse.
    static let perStringRules: Set<String> = [
        "bad-key", "value-too-long", "control-character", "executable-content", "secret", "message-syntax", "placeholders",
    ]

    static func run(_ invocation: Invocation, _ context: CommandContext) throws -> CommandOutput {
        let path = context.absolutePath(invocation.positionals[0])
        guard FileManager.default.fileExists(atPath: path) else { throw RolloutError.missing("\(invocation.positionals[0]): no such file or directory") }
        guard let versionText = invocation.value("content-version") else {
            throw RolloutError.usage("rollout pack import needs --content-version N (the version every pack made from this catalog gets)")
        }
        guard let contentVersion = Int(versionText), contentVersion >= 1, contentVersion <= Pack.maximumContentVersion else {
            throw RolloutError.usage("--content-version \"\(versionText)\" must be a whole number from 1")
        }
        let format: CatalogFormat
        if let name = invocation.value("format") {
            guard let chosen = CatalogFormat(rawValue: name) else {
                throw RolloutError.usage("--format \"\(name)\" is not one of \(CatalogFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            format = chosen
        } else {
            guard let detected = CatalogFormat.detect(path) else {
                throw RolloutError.usage("cannot tell the format of \(invocation.positionals[0]); name it with --format \(CatalogFormat.allCases.map(\.rawValue).joined(separator: "|"))")
            }
            format = detected
        }
        let minimum = try invocation.value("min-app-version").map { text -> AppVersion in
            guard let version = AppVersion(text) else { throw RolloutError.usage("--min-app-version \"\(text)\" is not a numeric version such as 4.8.0") }
            return version
        }
        let sourceFlag = try invocation.value("source-locale").map { try PlanCommands.parseLocale($0) }
        let only = try Set(invocation.values("locale").map { try PlanCommands.parseLocale($0) })

        let repository = try context.repository(invocation)
        let snapshot = try repository.snapshotForChange()
        var catalog = try CatalogImporter.read(
            path, format: format,
            options: ImportOptions(sourceLocale: sourceFlag ?? "en-US", arbUseEscaping: invocation.flag("arb-use-escaping") ? true : nil))
        // The development language: named, or the catalog's, or the English the catalog has.
        let source = sourceFlag ?? catalog.sourceLocale ?? ["en-US", "en"].first { catalog.strings[$0] != nil } ?? "en-US"
        if !only.isEmpty {
            catalog.strings = catalog.strings.filter { only.contains($0.key) }
            catalog.skipped = catalog.skipped.filter { only.contains($0.locale) }
        }
        let policy = try snapshot.policy()
        catalog.leaveOut(bundleOnly: policy.bundleOnlyKeys)
        let stored = Set(try snapshot.locales())
        let maximumBytes = policy.limits.maxPackBytes
        var emptyLocales: [String] = []
        /// One pack input per locale that has strings left.
        func packInputs() throws -> [PackInput] {
            var inputs: [PackInput] = []
            emptyLocales = []
            // The locales that still make a pack: a regional locale falls back to its language only then.
            let imported = Set(catalog.strings.filter { !$0.value.isEmpty }.keys)
            for locale in catalog.strings.keys.sorted() {
                let strings = catalog.strings[locale]!
                if strings.isEmpty { emptyLocales.append(locale); continue }
                var minApp = minimum
                if minApp == nil, let newest = try snapshot.contentVersions(of: locale).max() {
                    minApp = try snapshot.pack(PackID(locale: locale, contentVersion: newest))?.minAppVersion
                }
                guard let minApp else {
                    throw RolloutError.usage("\(locale) has no stored pack to take minAppVersion from: give --min-app-version V (the oldest app version these strings suit)")
                }
                let language = String(locale.split(separator: "-").first ?? "")
                let fallback: String?
                if language != locale && (imported.contains(language) || stored.contains(language)) {
                    fallback = language
                } else {
                    fallback = locale == source ? nil : source
                }
                let pack = Pack(locale: locale, contentVersion: contentVersion, minAppVersion: minApp, fallbackLocale: fallback, strings: strings)
                let name = "\(invocation.positionals[0]) (\(locale))"
                inputs.append(PackInput(source: name, parsed: try PackParser.parse(pack.storedBytes, source: name, maximumBytes: maximumBytes)))
            }
            return inputs
        }
        let options = PackCommands.options(invocation)
        var inputs = try packInputs()
        if invocation.flag("skip-invalid") {
            // Leaving a string out can change what lint says of another locale's (the fallback
            // chain compares them): lint again until only problems of whole packs are left.
            for _ in 0..<8 {
                let refused = try PackOperations.plan(inputs, snapshot: snapshot, options: options).errors.filter {
                    $0.key != nil && ImportCommand.perStringRules.contains($0.rule)
                }
                guard !refused.isEmpty else { break }
                for finding in refused {
                    catalog.strings[finding.pack.locale]?[finding.key!] = nil
                    catalog.skipped.append(.init(locale: finding.pack.locale, key: finding.key!, reason: "lint \(finding.rule): \(finding.message)"))
                }
                inputs = try packInputs()
            }
        }
        guard !inputs.isEmpty else {
            throw RolloutError.badInput("\(invocation.positionals[0]): no locale has a string to import\(catalog.skipped.isEmpty ? "" : " (\(catalog.skipped.count) left out: \(catalog.skipped.prefix(3).map { "\($0.locale) \($0.key): \($0.reason)" }.joined(separator: "; ")))")")
        }
        let plan: PackAddPlan
        var commit: ObjectID? = nil
        if invocation.flag("dry-run") {
            plan = try PackOperations.plan(inputs, snapshot: snapshot, options: options)
            if !plan.errors.isEmpty { throw RolloutError.badInput(PackOperations.refusal(plan.errors)) }
        } else {
            let actor = try context.actor(invocation, repository: repository)
            let now = try context.now()
            let applied = try PackOperations.add(inputs, to: repository, options: options, reason: invocation.value("reason"), actor: actor, time: { now })
            plan = applied.result
            commit = applied.commit
        }
        let style = context.style(invocation)
        var text = "\(format.rawValue): \(catalog.strings.count) locale(s), source \(source)\n"
        for input in plan.new {
            text += "\(invocation.flag("dry-run") ? "would add" : style.green("added")) \(input.pack.id)  \(input.pack.strings.count) keys  fallback \(input.pack.fallbackLocale ?? "-")  \(input.pack.checksum)\n"
        }
        for id in plan.unchanged { text += "unchanged \(id): identical to the stored pack\n" }
        for locale in emptyLocales { text += "no strings left for \(locale): no pack made\n" }
        if !catalog.skipped.isEmpty || !catalog.skippedFiles.isEmpty {
            text += "left out \(catalog.skipped.count) string(s) and \(catalog.skippedFiles.count) file(s), listed on stderr\n"
            // Every one, on stderr: a person reads the summary, a script keeps the list.
            var listing = ""
            for file in catalog.skippedFiles.sorted(by: { $0.path < $1.path }) { listing += "left out \(file.path.oneLine): \(file.reason.oneLine)\n" }
            for skipped in catalog.skipped.sorted(by: { ($0.locale, $0.key) < ($1.locale, $1.key) }) {
                listing += "left out \(skipped.locale) \(skipped.key.oneLine): \(skipped.reason.oneLine)\n"
            }
            if !invocation.json { context.diagnostics(listing) }
        }
        for warning in plan.warnings { text += warning.render(style) + "\n" }
        if let commit { text += "commit \(commit.short)\n" }
        return CommandOutput(
            json: [
                "format": .string(format.rawValue), "sourceLocale": .string(source), "dryRun": .bool(invocation.flag("dry-run")),
                "added": .array(plan.new.map { ["pack": .string($0.pack.id.description), "keys": .integer($0.pack.strings.count), "checksum": .string($0.pack.checksum), "fallbackLocale": $0.pack.fallbackLocale.map { .string($0) } ?? .null] }),
                "unchanged": .array(plan.unchanged.map { .string($0.description) }),
                "skipped": .array(catalog.skipped.map { ["locale": .string($0.locale), "key": .string($0.key), "reason": .string($0.reason)] }),
                "skippedFiles": .array(catalog.skippedFiles.map { ["path": .string($0.path), "reason": .string($0.reason)] }),
                "warnings": .array(plan.warnings.map(\.jsonValue)),
                "commit": commit.map { .string($0.hex) } ?? .null,
            ],
            text: text)
    }
}
