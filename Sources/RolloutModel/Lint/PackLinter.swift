/// One thing lint found. Errors stop a pack from being stored; warnings are reported and recorded.
/// `message` says what is wrong; the command line adds the way past it, when there is one
/// (`override`), in its own words.
public struct LintFinding: Equatable, Sendable {
    public enum Severity: String, Sendable { case error, warning }

    /// The `LintOptions` setting that lets the pack through despite this finding.
    public enum Override: Equatable, Sendable {
        /// `LintOptions.allowRemovedKeys`: the keys are meant to go.
        case allowRemovedKeys
        /// `LintOptions.approvedBy`: someone approved the change to protected text.
        case approval
    }

    public let severity: Severity
    /// A stable rule name (docs/pack-format.md lists them all).
    public let rule: String
    public let pack: PackID
    public let key: String?
    public let message: String
    public let override: Override?

    public init(
        severity: Severity, rule: String, pack: PackID, key: String?, message: String, override: Override? = nil
    ) {
        self.severity = severity
        self.rule = rule
        self.pack = pack
        self.key = key
        self.message = message
        self.override = override
    }
}

public struct LintOptions: Equatable, Sendable {
    /// Who approved changes to protected keys.
    public var approvedBy: String?
    /// Keys may disappear since the previous version.
    public var allowRemovedKeys: Bool

    public init(approvedBy: String? = nil, allowRemovedKeys: Bool = false) {
        self.approvedBy = approvedBy
        self.allowRemovedKeys = allowRemovedKeys
    }
}

/// Every lint rule (docs/pack-format.md, "Rules") that needs more than the file itself: the
/// repository's policy and the packs already stored (or added in the same batch).
public struct PackLinter {
    public let policy: Policy
    public let catalog: PackCatalog
    public let options: LintOptions
    /// Rules that need history are skipped when there is no repository (standalone `pack lint`).
    public let hasHistory: Bool

    public init(policy: Policy, catalog: PackCatalog, options: LintOptions = LintOptions(), hasHistory: Bool = true) {
        self.policy = policy
        self.catalog = catalog
        self.options = options
        self.hasHistory = hasHistory
    }

    /// Lints `batch` as if all of it were added at once, in (locale, contentVersion) order. Ids in a
    /// batch are unique (`PackOperations.plan` refuses a batch that repeats one with other content).
    public func lint(_ batch: [Pack]) throws -> [LintFinding] {
        let all = OverlayCatalog(base: catalog, adding: batch)
        var findings: [LintFinding] = []
        for pack in batch.sorted(by: { $0.id < $1.id }) {
            findings += lintContent(pack)
            findings += bundleOnlyKeys(pack)
            findings += try lintAgainstHistory(pack, all: all)
        }
        return findings
    }

    /// The errors of the rules that read only the pack and the policy: what a new policy says of a
    /// pack already stored and served (`policy set --dry-run`), since the history rules judged it
    /// when it was added.
    public func policyErrors(_ pack: Pack) -> [LintFinding] {
        (lintContent(pack) + bundleOnlyKeys(pack)).filter { $0.severity == .error }
    }

    private func error(
        _ pack: Pack, _ rule: String, _ key: String?, _ message: String, override: LintFinding.Override? = nil
    ) -> LintFinding {
        LintFinding(severity: .error, rule: rule, pack: pack.id, key: key, message: message, override: override)
    }

    private func warning(_ pack: Pack, _ rule: String, _ key: String?, _ message: String) -> LintFinding {
        LintFinding(severity: .warning, rule: rule, pack: pack.id, key: key, message: message)
    }

    /// Rules that need only the pack and the policy.
    func lintContent(_ pack: Pack) -> [LintFinding] {
        var findings: [LintFinding] = []
        if pack.strings.count > policy.limits.maxKeys {
            findings.append(
                error(
                    pack, "too-many-keys", nil,
                    "\(pack.strings.count) keys, over the policy limit of \(policy.limits.maxKeys)"))
        }
        if pack.strings.isEmpty {
            findings.append(
                error(pack, "empty-pack", nil, "the pack has no strings; a device would fall back for every key"))
        }
        for key in policy.requiredKeys where pack.strings[key] == nil {
            findings.append(
                error(pack, "required-key", key, "required key \"\(key)\" is missing (policy requiredKeys)"))
        }
        for key in pack.strings.keys.sorted() {
            let value = pack.strings[key]!
            if let problem = Self.keyProblem(key) {
                findings.append(error(pack, "bad-key", key, problem))
            }
            if value.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
                // Deliberate in real catalogs, and harmless: RolloutClient treats it as missing.
                findings.append(
                    warning(
                        pack, "empty-value", key,
                        "value is \(value.isEmpty ? "empty" : "only whitespace"): devices fall back to the next locale for it, as for a missing key (a string a device shows is never empty, docs/client.md)"
                    ))
                continue
            }
            if value.utf8.count > policy.limits.maxValueBytes {
                findings.append(
                    error(
                        pack, "value-too-long", key,
                        "value is \(value.utf8.count) bytes, over the policy limit of \(policy.limits.maxValueBytes)"))
            }
            for problem in TextSafety.check(value) {
                switch problem.kind {
                case .controlCharacter:
                    findings.append(error(pack, "control-character", key, "value contains a \(problem.detail)"))
                case .executable:
                    findings.append(
                        error(
                            pack, "executable-content", key, "value contains \(problem.detail); packs carry text only"))
                case .secret:
                    findings.append(
                        error(
                            pack, "secret", key,
                            "value looks like \(problem.detail); packs are public, never put secrets in them"))
                }
            }
            let syntax = MessageSyntax.analyse(value)
            for message in syntax.errors {
                findings.append(error(pack, "message-syntax", key, message))
            }
            findings += pluralForms(pack, key, syntax)
        }
        return findings
    }

    /// A plural should have a case for every category its language uses (CLDR's rules, the table
    /// RolloutClient formats with); an `=N` case for each number a category holds stands in for it
    /// (`=2` for Hebrew `two`). A warning: a device shows the `other` case for those numbers, a
    /// readable sentence in the wrong grammatical form (docs/pack-format.md, "Plural forms").
    func pluralForms(_ pack: Pack, _ key: String, _ syntax: MessageSyntax) -> [LintFinding] {
        guard syntax.errors.isEmpty, !syntax.plurals.isEmpty else { return [] }
        let rules = PluralRules(locale: pack.locale)
        return syntax.plurals.compactMap { plural in
            let missing = rules.missingCategories(cases: plural.selectors)
            guard !missing.isEmpty else { return nil }
            let cases = missing.map { "\($0.rawValue) (\(rules.examples(of: $0)))" }.joined(separator: ", ")
            return warning(
                pack, "plural-forms", key,
                "{\(plural.argument), plural} has no case for \(cases), which \(pack.locale) uses: a device shows the other case for those numbers"
            )
        }
    }

    /// Keys the policy keeps in the app (`bundleOnlyKeys`) are never in a pack: a device shows the
    /// app's bundled text for them whatever a pack says (docs/policy.md, "Bundle-only keys").
    func bundleOnlyKeys(_ pack: Pack) -> [LintFinding] {
        pack.strings.keys.sorted().compactMap { key in
            policy.bundleOnlyKeys.firstMatch(key).map { pattern in
                error(
                    pack, "bundle-only-key", key,
                    "key \"\(key)\" is bundle-only (policy bundleOnlyKeys \(pattern)): it stays in the app and may not be in a pack; remove it"
                )
            }
        }
    }

    /// Keys are what apps look strings up by, byte for byte, so whatever Xcode and Android accept
    /// is accepted (an empty key, spaces at the ends, a newline, a long English sentence); only
    /// what could rewrite a terminal or reorder a reader's view is refused (docs/pack-format.md).
    static func keyProblem(_ key: String) -> String? {
        if let tooLong = InputLimits.tooLong("key", key, limit: InputLimits.keyBytes) { return tooLong }
        if let name = key.unicodeScalars.lazy.compactMap(TextSafety.forbiddenScalarName).first {
            return "key contains a \(name)"
        }
        return nil
    }

    /// Rules that compare the pack with what the repository already holds.
    func lintAgainstHistory(_ pack: Pack, all: OverlayCatalog) throws -> [LintFinding] {
        var findings: [LintFinding] = []
        if let newest = try catalog.contentVersions(of: pack.locale).last, newest >= pack.contentVersion {
            findings.append(
                error(
                    pack, "content-version", nil,
                    "contentVersion \(pack.contentVersion) is not greater than the newest stored \(pack.locale)@\(newest); publish the change as \(pack.locale)@\(newest + 1)"
                ))
        }

        let previous = try all.previousPack(of: pack.locale, before: pack.contentVersion)
        if let previous { findings += removedKeys(pack, since: previous) }
        findings += protectedChanges(pack, since: previous)

        if let fallback = pack.fallbackLocale, hasHistory, try all.contentVersions(of: fallback).isEmpty {
            findings.append(
                error(
                    pack, "fallback-chain", nil,
                    "fallbackLocale \(fallback) has no pack in the repository; add a \(fallback) pack first (or in the same batch)"
                ))
        }
        let chain: [String]
        do {
            chain = try FallbackChain.locales(
                for: pack.locale, defaultLocale: policy.defaultLocale, catalog: NewestOverride(base: all, pack: pack))
        } catch let cycle as FallbackChain.Cycle {
            findings.append(
                error(
                    pack, "fallback-chain", nil,
                    "fallback chain has a cycle: \(cycle.locales.joined(separator: " -> "))"))
            return findings
        }
        findings += try placeholderParity(pack, chain: chain.filter { $0 != pack.locale }, catalog: all)
        return findings
    }

    /// Keys the previous pack had and this one drops (bundle-only keys leave the packs for good:
    /// their removal is the fix, not a mistake), unless `allowRemovedKeys`.
    func removedKeys(_ pack: Pack, since previous: Pack) -> [LintFinding] {
        // Keys compare byte for byte, like every other client: "ş" composed and decomposed are two keys.
        let current = Set(pack.strings.keys.map { Array($0.utf8) })
        let removed = previous.strings.keys.filter {
            !current.contains(Array($0.utf8)) && !policy.bundleOnlyKeys.matches($0)
        }.sorted()
        guard !removed.isEmpty && !options.allowRemovedKeys else { return [] }
        let shown = removed.prefix(5).joined(separator: ", ") + (removed.count > 5 ? ", ..." : "")
        return [
            error(
                pack, "removed-keys", removed.first,
                "\(removed.count) key(s) removed since \(previous.id): \(shown); devices on this pack would fall back for them",
                override: .allowRemovedKeys)
        ]
    }

    /// Protected text that changes without `approvedBy`. A locale's first pack is reviewed as a
    /// whole; after that, protected text changes only with approval.
    func protectedChanges(_ pack: Pack, since previous: Pack?) -> [LintFinding] {
        guard let previous, (options.approvedBy ?? "").trimmingSpaces.isEmpty else { return [] }
        let keys = Set(pack.strings.keys).union(previous.strings.keys)
        return keys.sorted().filter { key in
            policy.isProtected(key) != nil && !policy.bundleOnlyKeys.matches(key)
                && !(pack.strings[key]?.isSameText(as: previous.strings[key]) ?? false)
        }.map { key in
            let pattern = policy.isProtected(key)!.pattern
            let what = previous.strings[key] == nil ? "adds" : (pack.strings[key] == nil ? "removes" : "changes")
            return error(
                pack, "protected-key", key,
                "\(what) protected key \"\(key)\" (policy protectedKeys \(pattern))", override: .approval)
        }
    }

    /// The 0-based argument a numbered placeholder takes: `{1}` and `%2$d` both take the second.
    static func argumentIndex(_ placeholder: String) -> Int? {
        if placeholder.hasPrefix("{"), let n = Int(placeholder.dropFirst().dropLast()) { return n }
        if placeholder.hasPrefix("%"), let dollar = placeholder.firstIndex(of: "$"),
            let n = Int(placeholder[placeholder.index(after: placeholder.startIndex)..<dollar])
        {
            return n - 1
        }
        return nil
    }

    /// `{name}` and `{{name}}`, as MessageSyntax normalises them; not `{0}` or `%1$d`.
    static func isNamed(_ placeholder: String) -> Bool {
        let inner = placeholder.filter { $0 != "{" && $0 != "}" }
        return placeholder.hasPrefix("{") && !inner.isEmpty && !inner.allSatisfy { $0.isNumber }
    }

    /// Each key should use the same placeholders as the first locale down its fallback chain that
    /// has it: a difference is a warning, and an error only for a named placeholder the app does
    /// not pass.
    func placeholderParity(_ pack: Pack, chain: [String], catalog: PackCatalog) throws -> [LintFinding] {
        let references = try chain.compactMap { try catalog.newestPack(of: $0) }
        guard !references.isEmpty else { return [] }
        var findings: [LintFinding] = []
        // A blank value shows nothing of its own (a device falls through to the next locale, as
        // i18next with returnEmptyString: false does), so parity does not apply to it; it keeps its
        // empty-value warning.
        for key in pack.strings.keys.sorted()
        where !pack.strings[key]!.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
            // The reference is what a device would show instead: the first pack down the chain
            // with a value that is not blank (a blank one falls through, there as here).
            guard
                let reference = references.first(where: {
                    $0.strings[key].map { !$0.unicodeScalars.allSatisfy(\.properties.isWhitespace) } ?? false
                })
            else { continue }
            let mine = MessageSyntax.analyse(pack.strings[key]!).placeholders
            let reading = MessageSyntax.analyse(reference.strings[key]!)
            let theirs = reading.placeholders
            guard mine != theirs else { continue }
            var parts: [String] = []
            let missing = theirs.subtracting(mine).sorted()
            let extra = mine.subtracting(theirs).sorted()
            if !missing.isEmpty { parts.append("missing \(missing.joined(separator: " "))") }
            if !extra.isEmpty { parts.append("has \(extra.joined(separator: " ")) that \(reference.locale) does not") }
            // What a device does decides (docs/pack-format.md, "placeholders"). Refused: a value the
            // source shows and the translation drops (seed 002's version number; a plural's count
            // the source shows as `#` or `{n}`), a name the app never passes (shown as raw text),
            // and a numbered argument past all the source's. A warning: a plural count a language
            // with one form leaves unshown (Korean, Japanese), a plural count the source never shows
            // either (`one {Account} other {Accounts}`: it only picks a form; gen-l10n and ICU
            // compile a translation without it), and a numbered argument the source skips (the app
            // passes it, the source does not show it).
            let dropped = missing.filter {
                !(reading.counts.contains($0)
                    && (PluralRules(locale: pack.locale).hasOneForm || !reading.shown.contains($0)))
            }
            // A numbered argument past every one the source shows may not be passed at all.
            let highest = theirs.compactMap(Self.argumentIndex).max() ?? -1
            let unsupplied = extra.filter { Self.isNamed($0) || (Self.argumentIndex($0) ?? -1) > highest }
            let message = "placeholders differ from \(reference.id): \(parts.joined(separator: "; "))"
            findings.append(
                dropped.isEmpty && unsupplied.isEmpty
                    ? warning(pack, "placeholders", key, message) : error(pack, "placeholders", key, message))
        }
        return findings
    }
}

/// Makes `pack` the newest of its locale while the chain is computed, as it will be once stored.
private struct NewestOverride: PackCatalog {
    let base: PackCatalog
    let pack: Pack

    func contentVersions(of locale: String) throws -> [Int] {
        let versions = try base.contentVersions(of: locale)
        return locale == pack.locale ? versions.filter { $0 < pack.contentVersion } + [pack.contentVersion] : versions
    }

    func pack(_ id: PackID) throws -> Pack? { id == pack.id ? pack : try base.pack(id) }
}
