import Foundation
import RolloutModel

/// Sessions, crashes, lookups and fallbacks per day, pack, region and app version, kept in the
/// device state so that a crash loses at most the lookups since the last save
/// (docs/client.md#counters).
struct Counters: Equatable {
    /// One CSV row: the region and app version are those of the process that counted, so rows
    /// kept across an app update still name the version the events happened on.
    struct Key: Hashable, Comparable {
        let day: String
        let pack: PackID
        let region: String
        let appVersion: String
        static func < (a: Key, b: Key) -> Bool {
            (a.day, a.pack, a.region, a.appVersion) < (b.day, b.pack, b.region, b.appVersion)
        }
    }

    struct Counts: Equatable {
        var sessions = 0
        var crashes = 0
        var lookups = 0
        var fallbacks = 0

        /// The kind's exposure and event columns, as `rollout metrics ingest` reads them.
        func columns(_ kind: MetricKind) -> (exposures: Int, events: Int) {
            switch kind {
            case .crash: return (sessions, crashes)
            case .fallback: return (lookups, fallbacks)
            }
        }
    }

    enum Event {
        case session
        case crash
        case lookup(fellBack: Bool)
    }

    /// Rows kept at most; past it the oldest day's rows go first. At a few rows a day (one per
    /// pack the device used), that is months of an app that never exports, and `state.json`
    /// stays under about 30 KB.
    static let maximumRows = 120

    private(set) var rows: [Key: Counts] = [:]

    var isEmpty: Bool { rows.isEmpty }

    mutating func record(_ event: Event, _ key: Key) {
        let isNew = rows[key] == nil
        switch event {
        case .session: rows[key, default: Counts()].sessions += 1
        case .crash: rows[key, default: Counts()].crashes += 1
        case .lookup(let fellBack):
            rows[key, default: Counts()].lookups += 1
            if fellBack { rows[key, default: Counts()].fallbacks += 1 }
        }
        if isNew && rows.count > Counters.maximumRows {
            for old in rows.keys.sorted().prefix(rows.count - Counters.maximumRows) { rows[old] = nil }
        }
    }

    /// The CSV `rollout metrics ingest --kind KIND` reads (docs/metrics.md): a header, then one
    /// row per day, pack, region and app version with exposures. Events never exceed exposures
    /// (ingest refuses such a row); a crash counted without its session is the only way there.
    func csv(_ kind: MetricKind) -> String {
        let (exposures, events) = kind.columns
        var text = "date,locale,pack,region,app_version,\(exposures),\(events)\n"
        for (key, counts) in rows.sorted(by: { $0.key < $1.key }) {
            let (total, happened) = counts.columns(kind)
            guard total > 0 else { continue }
            text += "\(key.day),\(key.pack.locale),\(key.pack),\(key.region),\(key.appVersion),\(total),\(min(happened, total))\n"
        }
        return text
    }

    // MARK: - In state.json

    var json: JSONValue {
        .array(
            rows.sorted(by: { $0.key < $1.key }).map { key, counts in
                .object([
                    "day": .string(key.day), "pack": .string(key.pack.description), "region": .string(key.region),
                    "appVersion": .string(key.appVersion), "sessions": .integer(counts.sessions), "crashes": .integer(counts.crashes),
                    "lookups": .integer(counts.lookups), "fallbacks": .integer(counts.fallbacks),
                ])
            })
    }

    init() {}

    /// Rows that do not read back whole are left out: a count is never guessed.
    init(json: JSONValue?) {
        for row in json?.arrayValue ?? [] {
            guard let o = row.objectValue, let day = o["day"]?.stringValue, let pack = o["pack"]?.stringValue.flatMap({ try? PackID.parse($0) }),
                let region = o["region"]?.stringValue, let appVersion = o["appVersion"]?.stringValue,
                let sessions = o["sessions"]?.integerValue, let crashes = o["crashes"]?.integerValue,
                let lookups = o["lookups"]?.integerValue, let fallbacks = o["fallbacks"]?.integerValue,
                [sessions, crashes, lookups, fallbacks].allSatisfy({ $0 >= 0 })
            else { continue }
            rows[Key(day: day, pack: pack, region: region, appVersion: appVersion)] = Counts(
                sessions: sessions, crashes: crashes, lookups: lookups, fallbacks: fallbacks)
        }
    }
}

extension RolloutClient {
    /// The day counters are recorded under (UTC), from `Options.now`.
    func counterDay() -> String {
        let seconds = options.now().timeIntervalSince1970
        return String(Timestamp(seconds: seconds.isFinite ? Int64(max(0, min(seconds, 253_402_300_799))) : 0).description.prefix(10))
    }

    /// Counts `event` against the active pack of the device's own locale (nothing on the bundled
    /// strings: there is no pack to attribute it to). Caller holds `lock`.
    func count(_ event: Counters.Event) {
        guard let own = active[locale] else { return }
        state.counters.record(event, Counters.Key(day: counterDay(), pack: own.id, region: region, appVersion: appVersionText))
    }

    /// One lookup, from `string`: counted in memory; every `CounterSaving.lookups` lookups (and at
    /// most once per `CounterSaving.interval`) a save is scheduled. Caller holds `lock`.
    func countLookup(fellBack: Bool) {
        guard active[locale] != nil else { return }
        count(.lookup(fellBack: fellBack))
        counterSaving.unsaved += 1
        if counterSaving.unsaved >= counterSaving.lookups,
            ProcessInfo.processInfo.systemUptime - counterSaving.lastSave >= counterSaving.interval
        {
            scheduleSave()
        }
    }

    /// Writes the state on the client's own serial queue, off the caller's thread: neither `string`
    /// nor `recordSession` waits for the disk. One save at a time is scheduled, and it writes
    /// everything counted until it runs. Caller holds `lock`.
    func scheduleSave() {
        guard !counterSaving.scheduled else { return }
        counterSaving.scheduled = true
        counterSaving.queue.async { [weak self] in
            guard let self else { return }
            self.lock.withLock {
                self.counterSaving.scheduled = false
                // A cache directory deleted meanwhile (an uninstall, a test's scratch) is not recreated.
                guard FileManager.default.fileExists(atPath: self.storage.directory) else { return }
                self.saveState()
            }
        }
    }

    /// Tests: returns once the saves scheduled so far have run.
    func waitForSaves() {
        lock.withLock { counterSaving.queue }.sync {}
    }

    /// Writes the device state (counters and launch record included) if it can; caller holds
    /// `lock`. A failed write keeps the counts in memory for the next save.
    @discardableResult
    func saveState() -> Bool {
        guard (try? storage.write(DeviceState.file, state.bytes)) != nil else { return false }
        counterSaving.unsaved = 0
        counterSaving.lastSave = ProcessInfo.processInfo.systemUptime
        return true
    }

    /// One app session with the current pack (call it once per launch or foreground session).
    /// Saved at once, in the background.
    public func recordSession() {
        lock.withLock {
            count(.session)
            state.launch.open?.session = true
            scheduleSave()
        }
    }

    /// A crash the app's crash reporter attributes to this session, after `markLaunchSucceeded()`
    /// (the client counts a launch that never got there itself). Saved at once, in the background.
    public func recordCrash() {
        lock.withLock {
            count(.crash)
            scheduleSave()
        }
    }

    /// The counters as a metrics CSV that `rollout metrics ingest --kind KIND` reads: a header and
    /// one row per day, pack, region and app version (docs/metrics.md), including the counts of
    /// earlier processes not reset yet. Rows for the bundled strings are not written: there is no
    /// pack to attribute them to.
    public func metricsCSV(_ kind: MetricKind) -> String {
        lock.withLock { state.counters.csv(kind) }
    }

    /// Forgets the counters (after they were exported), on disk too.
    public func resetCounters() {
        lock.withLock {
            state.counters = Counters()
            saveState()
        }
    }

    /// Saves the counters now, for a process about to end (a command-line tool, the app going to
    /// the background). Returns false when the state file could not be written.
    @discardableResult
    public func saveCounters() -> Bool {
        lock.withLock { saveState() }
    }
}

/// When lookups counted in memory are saved (docs/client.md#counters).
struct CounterSaving {
    /// Where saves run, one at a time.
    let queue = DispatchQueue(label: "RolloutClient.counters")
    /// Lookups counted since the state was last written.
    var unsaved = 0
    var scheduled = false
    /// `systemUptime` of the last write.
    var lastSave: TimeInterval = 0
    /// A save is scheduled after this many unsaved lookups...
    var lookups = 1000
    /// ...but not sooner than this many seconds after the last one.
    var interval: TimeInterval = 10
}
