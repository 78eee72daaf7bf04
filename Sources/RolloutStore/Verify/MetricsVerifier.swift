import RolloutModel

/// The metrics part of `rollout verify` (docs/reliability.md): every rollup reads back exactly and
/// within the one range, and every provenance record agrees with the commit that added it.
struct MetricsVerifier {
    typealias Report = (_ path: String?, _ message: String) -> Void

    /// Provenance record path -> the commit (short id) that added it.
    private var recordAdded: [String: String] = [:]

    /// Takes every provenance record `snapshot` holds as added by a commit before it: a walk that
    /// starts after a checked tip retracts and ingests again against what that tip held.
    mutating func assumeAdded(in snapshot: Snapshot) throws {
        for directory in [MetricsLayout.ingestsDirectory, MetricsLayout.retractionsDirectory] {
            for entry in try snapshot.directory(directory) where !entry.isTree {
                recordAdded["\(directory)/\(entry.name)"] = snapshot.commit?.short
            }
        }
    }

    static func isRollup(_ path: String) -> Bool { MetricsLayout.isRollup(path) }

    /// The files a metrics commit may touch: rollups, and the records of its own kind of action.
    static func allowed(retracting: Bool, path: String) -> Bool {
        isRollup(path) || path.hasPrefix(recordsDirectory(retracting: retracting) + "/")
    }

    /// Where an ingest, or a retraction, adds its provenance record.
    static func recordsDirectory(retracting: Bool) -> String {
        retracting ? MetricsLayout.retractionsDirectory : MetricsLayout.ingestsDirectory
    }

    /// One metrics-ingest or metrics-retract commit: it adds exactly the records its trailers name,
    /// one per kind (one kind, or with `--kind outcome` one per metric of the file), and touches
    /// rollups only of those kinds and of the locales it names.
    mutating func check(
        commit short: String, action: ChangeAction, trailers: [(name: String, value: String)],
        changes: [Verifier.PathChange],
        git: GitRepository, problem: Report
    ) throws {
        let retracting = action == .metricsRetract
        let directory = Self.recordsDirectory(retracting: retracting)
        let named = trailers.values(.metricsKind)
        let kinds = named.compactMap(MetricKind.init(rawValue:))
        guard let digest = trailers.value(.metricsDigest), !kinds.isEmpty, kinds.count == named.count,
            Set(kinds).count == kinds.count
        else {
            problem(nil, .withoutItsTrailers(action))
            return
        }
        let added = changes.filter { $0.old == nil && $0.path.hasPrefix(directory + "/") }
        let records = added.compactMap { change in
            MetricsLayout.parseRecordName(String(change.path.dropFirst(directory.count + 1))).map { (change, $0) }
        }
        guard added.count == kinds.count, records.count == added.count,
            records.allSatisfy({ $0.1.digest == digest }), Set(records.map(\.1.kind)) == Set(kinds)
        else {
            problem(
                MetricsLayout.provenance(digest, kind: kinds[0]),
                .notExactlyItsRecord(action, digest, kinds, directory: directory, added: added))
            return
        }
        for (change, name) in records {
            try checkRecord(
                change, name: name, retracting: retracting, short: short, trailers: trailers, git: git, problem: problem
            )
        }
        let locales = Set(trailers.values(.locale))
        let kindNames = Set(kinds.map(\.rawValue))
        for rollup in changes.map(\.path) where Self.isRollup(rollup) {
            let parts = rollup.split(separator: "/")
            if parts.count != 4 || !kindNames.contains(String(parts[1])) || !locales.contains(String(parts[2])) {
                problem(rollup, .mayNotTouchRollup(action, kinds, locales: locales))
            }
        }
    }

    /// One record a metrics commit added: it names the digest, kind and file of its commit, and a
    /// retraction undoes an ingest of this history, an ingest again follows a retraction.
    private mutating func checkRecord(
        _ change: Verifier.PathChange, name: (digest: String, kind: MetricKind, generation: Int), retracting: Bool,
        short: String, trailers: [(name: String, value: String)], git: GitRepository, problem: Report
    ) throws {
        let (digest, kind) = (name.digest, name.kind)
        recordAdded[change.path] = short
        if let new = change.new {
            let record = (try? StrictJSONParser.parse(try git.readBlob(new)))?.objectValue
            if record?["digest"]?.stringValue != digest || record?["kind"]?.stringValue != kind.rawValue {
                problem(change.path, "does not record the digest and kind its commit's trailers name")
            }
            if let file = trailers.value(.metricsFile), record?["file"]?.stringValue != file {
                problem(change.path, "records another file than its commit's Rollout-Metrics-File (\(file))")
            }
        }
        if retracting {
            let ingest = MetricsLayout.provenance(digest, kind: kind, generation: name.generation)
            if recordAdded[ingest] == nil {
                problem(change.path, "retracts \(ingest), which no earlier ingest of this history added")
            }
        } else if name.generation > 1,
            recordAdded[MetricsLayout.retraction(digest, kind: kind, generation: name.generation - 1)] == nil
        {
            problem(change.path, "ingests \(digest) again, but its earlier ingest was never retracted")
        }
    }

    /// The tip: every record was added by its commit and names itself; every rollup parses, holds
    /// counts within the one range (each, and each pack's sum), and names an ingest still counted.
    func checkTip(_ snapshot: Snapshot, problem: (String, String) -> Void) throws {
        var active: [MetricKind: [String: Set<String>]] = [:]  // kind -> short digest -> digests
        for directory in [MetricsLayout.ingestsDirectory, MetricsLayout.retractionsDirectory] {
            for entry in try snapshot.directory(directory) {
                let path = "\(directory)/\(entry.name)"
                guard !entry.isTree, let name = MetricsLayout.parseRecordName(entry.name) else {
                    problem(path, "is not a provenance record rollout writes (HEX.KIND.json)")
                    continue
                }
                if recordAdded[path] == nil { problem(path, "was not written by a metrics commit of this history") }
                let record = (try? StrictJSONParser.parse(try snapshot.repository.readBlob(entry.id)))?.objectValue
                if record?["digest"]?.stringValue != name.digest || record?["kind"]?.stringValue != name.kind.rawValue {
                    problem(path, "does not record the digest and kind its name says")
                }
                if directory == MetricsLayout.ingestsDirectory,
                    try snapshot.file(
                        MetricsLayout.retraction(name.digest, kind: name.kind, generation: name.generation)) == nil
                {
                    active[name.kind, default: [:]][String(name.digest.dropFirst(7).prefix(12)), default: []].insert(
                        name.digest)
                }
            }
        }
        // Every kind stored or recorded, not only the health kinds: the outcome kinds too.
        for kind in Set(MetricKind.health + (try MetricsLayout.storedKinds(in: snapshot)) + active.keys).sorted() {
            for (prefix, digests) in active[kind] ?? [:] where digests.count > 1 {
                problem(MetricsLayout.ingestsDirectory, .sharedShortDigest(digests, prefix))
            }
            let kindDirectory = "\(MetricsLayout.directory)/\(kind.rawValue)"
            for locale in try snapshot.directory(kindDirectory) {
                guard locale.isTree else {
                    problem("\(kindDirectory)/\(locale.name)", .notARollupDirectory(kindDirectory))
                    continue
                }
                var totals = MetricTotals(kind: kind, locale: locale.name)
                for entry in try snapshot.directory("\(kindDirectory)/\(locale.name)") {
                    let path = "\(kindDirectory)/\(locale.name)/\(entry.name)"
                    do {
                        let rollup = try MetricRollup.parse(try snapshot.repository.readBlob(entry.id), source: path)
                        if rollup.kind != kind || rollup.locale != locale.name || "\(rollup.date).json" != entry.name {
                            problem(path, .rollupElsewhere(rollup))
                        }
                        for origin in Set(rollup.sources.values).sorted() where active[kind]?[origin] == nil {
                            problem(path, "has counts from sha256:\(origin)…, which no ingest still counted recorded")
                        }
                        try totals.add(rollup)
                    } catch let error as RolloutError {
                        let message = error.damage ?? error.message
                        let prefix = path + ": "
                        problem(path, message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message)
                    }
                }
            }
        }
    }
}

/// The longer problem messages, written once; the text is what `rollout verify` prints.
extension String {
    fileprivate static func sharedShortDigest(_ digests: Set<String>, _ prefix: String) -> String {
        "\(digests.sorted().joined(separator: " and ")) share the short digest \(prefix) their rollup entries name"
    }

    fileprivate static func notARollupDirectory(_ kindDirectory: String) -> String {
        "is not a rollup rollout writes (\(kindDirectory)/LOCALE/DATE.json)"
    }

    fileprivate static func rollupElsewhere(_ rollup: MetricRollup) -> String {
        "holds the \(rollup.kind.rawValue) rollup of \(rollup.locale) on \(rollup.date), not what its path says"
    }

    fileprivate static func withoutItsTrailers(_ action: ChangeAction) -> String {
        "a \(action.rawValue) without Rollout-Metrics-Digest and Rollout-Metrics-Kind trailers (each kind once)"
    }

    fileprivate static func notExactlyItsRecord(
        _ action: ChangeAction, _ digest: String, _ kinds: [MetricKind], directory: String,
        added: [Verifier.PathChange]
    ) -> String {
        let named = kinds.map(\.rawValue).joined(separator: ", ")
        let records = kinds.count == 1 ? "its record" : "its \(kinds.count) records, one per kind,"
        return "a \(action.rawValue) of \(digest) (\(named)) must add exactly \(records) under \(directory)/; "
            + "it added \(added.map(\.path))"
    }

    fileprivate static func mayNotTouchRollup(_ action: ChangeAction, _ kinds: [MetricKind], locales: Set<String>)
        -> String
    {
        let named = kinds.map(\.rawValue).joined(separator: ", ")
        return
            "a \(action.rawValue) of \(named) data of \(locales.sorted().joined(separator: ", ")) may not touch this rollup"
    }
}
