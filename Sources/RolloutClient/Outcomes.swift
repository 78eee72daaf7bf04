import Foundation
import RolloutModel

/// The variant of an experiment the device is in (docs/client.md, "Experiments: exposures and
/// conversions"), from the plan of its own locale's newest verified manifest: what it counts
/// exposures and conversions for, whichever pack is active (intention to treat).
struct ExperimentAssignment: Equatable, Sendable {
    /// What a session's memory belongs to: another experiment, or another variant of it, starts
    /// that memory afresh.
    struct Tag: Equatable, Sendable {
        let name: String
        let salt: String
        let pack: PackID
    }

    let locale: String
    let tag: Tag
    let isControl: Bool
    /// The varied keys: `string(_:)` looks a key up here, one hash, before anything else.
    let keys: Set<String>
    /// The primary metric first.
    let metrics: [String]

    init(_ experiment: Plan.Experiment, variant: Plan.Experiment.Variant, locale: String) {
        self.locale = locale
        tag = Tag(
            name: experiment.name, salt: experiment.salt,
            pack: PackID(locale: locale, contentVersion: variant.pack.contentVersion))
        isControl = variant == experiment.control
        keys = Set(experiment.keys)
        metrics = experiment.metrics
    }

    var json: JSONValue {
        [
            "locale": .string(locale), "name": .string(tag.name), "salt": .string(tag.salt),
            "pack": .string(tag.pack.description), "control": .bool(isControl),
            "keys": .array(keys.sorted().map { .string($0) }), "metrics": .array(metrics.map { .string($0) }),
        ]
    }

    /// Nil when a member is missing: the device is then in no experiment until its next refresh.
    init?(json: JSONValue?) {
        guard let o = json?.objectValue, let locale = o["locale"]?.stringValue, let name = o["name"]?.stringValue,
            let salt = o["salt"]?.stringValue, let pack = o["pack"]?.stringValue.flatMap({ try? PackID.parse($0) }),
            let isControl = o["control"]?.boolValue, let keys = o["keys"]?.arrayValue?.compactMap(\.stringValue),
            let metrics = o["metrics"]?.arrayValue?.compactMap(\.stringValue)
        else { return nil }
        self.locale = locale
        tag = Tag(name: name, salt: salt, pack: pack)
        self.isControl = isControl
        self.keys = Set(keys)
        self.metrics = metrics
    }
}

/// Exposures and conversions per day, variant, region, app version and metric, and what the
/// current session has done (docs/client.md, "Experiments: exposures and conversions"). Kept in
/// the device state like `Counters`, bounded the same way.
struct Outcomes: Equatable {
    /// Where a session's exposure was counted: its conversions go to the same rows, so that a
    /// session that crosses midnight never puts a conversion in a row without its exposure.
    struct Place: Equatable {
        let day: String
        let region: String
        let appVersion: String
    }

    /// One CSV row.
    struct Key: Hashable, Comparable {
        let day: String
        let pack: PackID
        let region: String
        let appVersion: String
        let metric: String

        init(_ place: Place, pack: PackID, metric: String) {
            day = place.day
            self.pack = pack
            region = place.region
            appVersion = place.appVersion
            self.metric = metric
        }

        static func < (a: Key, b: Key) -> Bool {
            (a.day, a.pack, a.region, a.appVersion, a.metric) < (b.day, b.pack, b.region, b.appVersion, b.metric)
        }
    }

    struct Counts: Equatable {
        var exposures = 0
        var conversions = 0
    }

    /// From one `recordSession()` to the next: whether it was exposed, and the metrics it
    /// converted, for the assignment `tag`.
    struct Session: Equatable {
        var tag: ExperimentAssignment.Tag?
        var exposed: Place?
        var converted: Set<String> = []
    }

    static let header = "date,locale,pack,region,app_version,metric,exposures,conversions\n"
    /// As `Counters.maximumRows`: past it the oldest day's rows go first.
    static let maximumRows = 120

    private(set) var rows: [Key: Counts] = [:]
    /// Nil before the process's first `recordSession()` (unless `Options.continuesSession`).
    var session: Session?

    var isEmpty: Bool { rows.isEmpty && session == nil }

    mutating func startSession() { session = Session() }

    mutating func resetRows() { rows = [:] }

    /// The session's memory for `assignment`, emptied when it was another assignment's.
    private mutating func memory(for assignment: ExperimentAssignment) -> Session? {
        guard var current = session else { return nil }
        if current.tag != assignment.tag { current = Session(tag: assignment.tag) }
        return current
    }

    /// A `string(key)` of a varied key: the session's exposure, unless it had one. Returns true
    /// when something was counted.
    mutating func expose(_ assignment: ExperimentAssignment, at place: () -> Place) -> Bool {
        guard var current = memory(for: assignment), current.exposed == nil else { return false }
        let here = place()
        current.exposed = here
        session = current
        for metric in assignment.metrics {
            add(Key(here, pack: assignment.tag.pack, metric: metric)) {
                $0.exposures += 1
                if current.converted.contains(metric) { $0.conversions += 1 }
            }
        }
        return true
    }

    /// `recordConversion(name)`: counted once a session, now if the session is exposed, at its
    /// exposure otherwise. Returns false when ignored (no session, a name that is not one of the
    /// experiment's metrics, or converted already in this session).
    mutating func convert(_ name: String, _ assignment: ExperimentAssignment) -> Bool {
        guard assignment.metrics.contains(name), var current = memory(for: assignment),
            !current.converted.contains(name)
        else { return false }
        current.converted.insert(name)
        session = current
        // Only into the row that holds the exposure: one reset or trimmed away since is not made again
        // with a conversion alone, which a later exposure on that row would then seem to have.
        if let place = current.exposed, rows[Key(place, pack: assignment.tag.pack, metric: name)] != nil {
            rows[Key(place, pack: assignment.tag.pack, metric: name)]?.conversions += 1
        }
        return true
    }

    private mutating func add(_ key: Key, _ change: (inout Counts) -> Void) {
        let isNew = rows[key] == nil
        change(&rows[key, default: Counts()])
        guard isNew, rows.count > Outcomes.maximumRows else { return }
        for old in rows.keys.sorted().prefix(rows.count - Outcomes.maximumRows) { rows[old] = nil }
    }

    /// The outcome CSV `rollout metrics ingest --kind outcome` reads (docs/metrics.md): rows of
    /// every metric, or of `metric` only. A row without exposures (its exposure was reset or
    /// trimmed away) is not written, and conversions never exceed exposures.
    func csv(metric: String? = nil) -> String {
        var text = Outcomes.header
        for (key, counts) in rows.sorted(by: { $0.key < $1.key }) {
            guard counts.exposures > 0, metric == nil || key.metric == metric else { continue }
            let fields = [key.day, key.pack.locale, key.pack.description, key.region, key.appVersion, key.metric]
            text += fields.map(Counters.field).joined(separator: ",")
            text += ",\(counts.exposures),\(min(counts.conversions, counts.exposures))\n"
        }
        return text
    }

    // MARK: - In state.json

    init() {}

    /// `outcomes` (the rows) and `outcomeSession` of state.json; absent in a state written before
    /// experiments. Rows that do not read back whole are left out, as `Counters` does.
    init(rows json: JSONValue?, session sessionJSON: JSONValue?) {
        for row in json?.arrayValue ?? [] {
            guard let o = row.objectValue, let place = Outcomes.place(o),
                let pack = o["pack"]?.stringValue.flatMap({ try? PackID.parse($0) }),
                let metric = o["metric"]?.stringValue, let exposures = o["exposures"]?.integerValue,
                let conversions = o["conversions"]?.integerValue, exposures >= 0, conversions >= 0
            else { continue }
            rows[Key(place, pack: pack, metric: metric)] = Counts(exposures: exposures, conversions: conversions)
        }
        guard let s = sessionJSON?.objectValue else { return }
        var memory = Session(converted: Set(s["converted"]?.arrayValue?.compactMap(\.stringValue) ?? []))
        if let name = s["name"]?.stringValue, let salt = s["salt"]?.stringValue,
            let pack = s["pack"]?.stringValue.flatMap({ try? PackID.parse($0) })
        {
            memory.tag = ExperimentAssignment.Tag(name: name, salt: salt, pack: pack)
        }
        memory.exposed = s["exposed"]?.objectValue.flatMap(Outcomes.place)
        session = memory
    }

    private static func place(_ o: [String: JSONValue]) -> Place? {
        guard let day = o["day"]?.stringValue, let region = o["region"]?.stringValue,
            let appVersion = o["appVersion"]?.stringValue
        else { return nil }
        return Place(day: day, region: region, appVersion: appVersion)
    }

    private static func json(_ place: Place) -> [String: JSONValue] {
        ["day": .string(place.day), "region": .string(place.region), "appVersion": .string(place.appVersion)]
    }

    var rowsJSON: JSONValue {
        .array(
            rows.sorted(by: { $0.key < $1.key }).map { key, counts in
                var o = Outcomes.json(Place(day: key.day, region: key.region, appVersion: key.appVersion))
                o["pack"] = .string(key.pack.description)
                o["metric"] = .string(key.metric)
                o["exposures"] = .integer(counts.exposures)
                o["conversions"] = .integer(counts.conversions)
                return .object(o)
            })
    }

    var sessionJSON: JSONValue? {
        guard let session else { return nil }
        var o: [String: JSONValue] = ["converted": .array(session.converted.sorted().map { .string($0) })]
        if let tag = session.tag {
            o["name"] = .string(tag.name)
            o["salt"] = .string(tag.salt)
            o["pack"] = .string(tag.pack.description)
        }
        if let exposed = session.exposed { o["exposed"] = .object(Outcomes.json(exposed)) }
        return .object(o)
    }
}

/// The device's `Outcomes` in memory, behind a lock of its own held for one update: `string(_:)`
/// counts an exposure without the writers' lock, and a save copies them into the device state.
/// `@unchecked Sendable`: `lock` guards `outcomes`.
final class OutcomeTally: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes = Outcomes()

    var current: Outcomes { lock.withLock { outcomes } }

    func update<T>(_ change: (inout Outcomes) -> T) -> T { lock.withLock { change(&outcomes) } }
}

extension RolloutClient {
    /// A lookup of a varied key, from `string(_:)`: the session's exposure, if it is the first.
    func countExposure(_ assignment: ExperimentAssignment) {
        let counted = outcomeTally.update { outcomes in
            outcomes.expose(assignment) {
                Outcomes.Place(day: counterDay(), region: region, appVersion: appVersionText)
            }
        }
        if counted { scheduleSave() }
    }

    /// A conversion the app observed in this session, for the experiment the device is in
    /// (docs/client.md, "Experiments: exposures and conversions"): counted at most once a session
    /// per name, when the session is exposed (now, or at its exposure). Ignored when the device is in
    /// no experiment, `name` is not one of its metrics, or no session was recorded yet. Returns
    /// whether it counts for this session. Saved at once, in the background.
    @discardableResult
    public func recordConversion(_ name: String) -> Bool {
        guard let assignment = snapshot.current.experiment else { return false }
        let counted = outcomeTally.update { $0.convert(name, assignment) }
        if counted { scheduleSave() }
        return counted
    }

    /// The exposures and conversions of every metric as the outcome CSV `rollout metrics ingest
    /// --kind outcome` reads (header `date,locale,pack,region,app_version,metric,exposures,conversions`),
    /// including those of earlier processes not reset yet.
    public func outcomeCSV() -> String {
        outcomeTally.current.csv()
    }
}
