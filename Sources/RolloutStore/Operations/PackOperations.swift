import RolloutModel

/// A pack file read from disk and parsed, with the name it was given on the command line.
public struct PackInput {
    public let source: String
    public let parsed: ParsedPack

    public init(source: String, parsed: ParsedPack) {
        self.source = source
        self.parsed = parsed
    }

    public var pack: Pack { parsed.pack }
}

/// What `pack add` (or a dry run of it, `pack lint`) decided about each input.
public struct PackAddPlan {
    /// Packs that would be stored, in (locale, contentVersion) order.
    public var new: [PackInput] = []
    /// Packs already stored with identical content: nothing to do.
    public var unchanged: [PackID] = []
    /// Inputs that reuse an existing id for different content (packs are immutable).
    public var conflicts: [LintFinding] = []
    public var findings: [LintFinding] = []

    public var errors: [LintFinding] { conflicts + findings.filter { $0.severity == .error } }
    public var warnings: [LintFinding] { findings.filter { $0.severity == .warning } }
}

public enum PackOperations {
    /// Classifies and lints `inputs` against `snapshot` (or, without a repository, against nothing).
    public static func plan(_ inputs: [PackInput], snapshot: Snapshot?, options: LintOptions) throws -> PackAddPlan {
        let policy = try snapshot?.policy() ?? RepositoryTemplate.policy()
        var plan = PackAddPlan()
        var chosen: [PackID: PackInput] = [:]
        for input in inputs {
            let pack = input.pack
            if input.parsed.byteCount > policy.limits.maxPackBytes {
                throw RolloutError.packOverLimit(input, limit: policy.limits.maxPackBytes)
            }
            if let stored = try snapshot?.pack(pack.id) {
                if stored.checksum == pack.checksum {
                    if !plan.unchanged.contains(pack.id) { plan.unchanged.append(pack.id) }
                } else {
                    plan.conflicts.append(.changedStoredPack(input, stored: stored.checksum))
                }
                continue
            }
            if let earlier = chosen[pack.id] {
                if earlier.pack.checksum != pack.checksum {
                    plan.conflicts.append(
                        LintFinding(
                            severity: .error, rule: "duplicate-in-batch", pack: pack.id, key: nil,
                            message:
                                "\(input.source) and \(earlier.source) both define \(pack.id) with different content"))
                }
                continue
            }
            chosen[pack.id] = input
        }
        plan.new = chosen.values.sorted { $0.pack.id < $1.pack.id }
        let linter = PackLinter(
            policy: policy, catalog: snapshot ?? MemoryCatalog(), options: options, hasHistory: snapshot != nil)
        plan.findings = try linter.lint(plan.new.map(\.pack))
        return plan
    }

    /// Stores `inputs` in one commit, all or nothing. Identical re-adds are no-ops; anything that fails
    /// lint or reuses an id refuses the whole batch and changes nothing.
    public static func add(
        _ inputs: [PackInput], to repository: PackRepository, options: LintOptions, reason: String?, actor: Actor,
        time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<PackAddPlan> {
        try repository.apply(actor: actor, time: time) { snapshot in
            let plan = try plan(inputs, snapshot: snapshot, options: options)
            if !plan.errors.isEmpty {
                throw StoreRefusal.lintRefused(plan.errors)
            }
            guard !plan.new.isEmpty else { return (nil, plan) }
            let now = time()
            var writes: [(path: String, bytes: [UInt8])] = []
            for input in plan.new {
                let stored = input.pack.storedBytes
                let record = PackRecord(
                    pack: input.pack, storedBytes: stored.count, addedBy: actor.description, addedAt: now,
                    approvedBy: options.approvedBy)
                writes.append((StateLayout.pack(input.pack.id), stored))
                writes.append((StateLayout.packRecord(input.pack.id), JSONWriter.pretty(record.jsonValue)))
            }
            let ids = plan.new.map(\.pack.id)
            var trailers: [(name: Trailer, value: String)] = [(.action, ChangeAction.packAdd.rawValue)]
            for locale in Set(ids.map(\.locale)).sorted() { trailers.append((.locale, locale)) }
            for id in ids { trailers.append((.pack, id.description)) }
            if let approvedBy = options.approvedBy { trailers.append((.approvedBy, approvedBy)) }
            if options.allowRemovedKeys { trailers.append((.allowRemovedKeys, "true")) }
            if let reason { trailers.append((.reason, reason)) }
            let change = Change(
                summary: "pack add " + ids.map(\.description).joined(separator: ", "), trailers: trailers,
                writes: writes)
            return (change, plan)
        }
    }

    /// A policy change: the policy before and after, and what the new one says of every pack a plan
    /// serves (errors only), which `policy set --dry-run` shows before anyone commits it.
    public struct PolicyChange {
        public let before: Policy
        public let after: Policy
        public let refusedServed: [LintFinding]
    }

    /// Replaces the policy with `bytes` as written (the author's layout survives), validating it first.
    public static func setPolicy(
        _ bytes: [UInt8], source: String, in repository: PackRepository, reason: String?, actor: Actor,
        time: @escaping () -> Timestamp
    ) throws -> PackRepository.Applied<PolicyChange> {
        let policy = try Policy.parse(bytes, source: source)
        return try repository.apply(actor: actor, time: time) { snapshot in
            let current = try snapshot.policy()
            let outcome = PolicyChange(
                before: current, after: policy, refusedServed: try servedFindings(snapshot, policy: policy))
            guard current != policy else { return (nil, outcome) }
            var trailers: [(name: Trailer, value: String)] = [(.action, ChangeAction.policySet.rawValue)]
            if let reason { trailers.append((.reason, reason)) }
            var writes: [(path: String, bytes: [UInt8])] = [(StateLayout.policy, bytes)]
            if policy.defaultLocale != current.defaultLocale || policy.bundleOnlyKeys != current.bundleOnlyKeys {
                // Fallback chains end at the default locale, and every manifest carries the
                // bundle-only patterns: the published site changes, so its sequence must move.
                writes.append((StateLayout.siteSequence, Array("\(try snapshot.siteSequence() + 1)\n".utf8)))
            }
            let change = Change(summary: "policy set", trailers: trailers, writes: writes)
            return (change, outcome)
        }
    }

    /// What `policy` says of each pack the plans serve (baselines, candidates, last known good), errors only.
    static func servedFindings(_ snapshot: Snapshot, policy: Policy) throws -> [LintFinding] {
        let linter = PackLinter(policy: policy, catalog: snapshot)
        var findings: [LintFinding] = []
        for locale in try snapshot.plannedLocales() {
            guard let plan = try snapshot.plan(locale) else { continue }
            for version in plan.publishedVersions.sorted() {
                let id = PackID(locale: locale, contentVersion: version)
                guard let pack = try snapshot.pack(id) else { continue }
                // `add` refuses a file over the limit before lint; a stored pack is judged by its stored size.
                if let bytes = try snapshot.record(id)?.bytes, bytes > policy.limits.maxPackBytes {
                    findings.append(.overPackLimit(id, bytes: bytes, limit: policy.limits.maxPackBytes))
                }
                findings += linter.policyErrors(pack)
            }
        }
        return findings
    }
}

extension RolloutError {
    fileprivate static func packOverLimit(_ input: PackInput, limit: Int) -> RolloutError {
        .badInput(
            "\(input.source): pack is \(ByteCount.describe(input.parsed.byteCount)), over the limit of \(ByteCount.describe(limit)) "
                + "(policy limits.maxPackBytes)")
    }
}

extension LintFinding {
    /// A served pack larger than a new policy's `limits.maxPackBytes` (`policy set --dry-run`).
    fileprivate static func overPackLimit(_ id: PackID, bytes: Int, limit: Int) -> LintFinding {
        LintFinding(
            severity: .error, rule: "max-pack-bytes", pack: id, key: nil,
            message:
                "the stored pack is \(ByteCount.describe(bytes)), over the limit of \(ByteCount.describe(limit)) (policy limits.maxPackBytes)"
        )
    }

    fileprivate static func changedStoredPack(_ input: PackInput, stored checksum: String) -> LintFinding {
        LintFinding(
            severity: .error, rule: "immutable", pack: input.pack.id, key: nil,
            message:
                "\(input.source): \(input.pack.id) already exists with different content (stored \(checksum), this file "
                + "\(input.pack.checksum)). Packs are immutable: publish the change as a new contentVersion")
    }
}
