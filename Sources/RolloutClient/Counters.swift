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
            if kind == .crash { return (sessions, crashes) }
            if kind == .fallback { return (lookups, fallbacks) }
            return (0, 0)
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
        if isNew { trim() }
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
            // The region and app version are the app's own text: a comma or a quote in them must not
            // shift the columns of the row (conformance kit, counters.json).
            let fields = [key.day, key.pack.locale, key.pack.description, key.region, key.appVersion]
            text += fields.map(Self.field).joined(separator: ",") + ",\(total),\(min(happened, total))\n"
        }
        return text
    }

    /// A field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break.
    static func field(_ text: String) -> String {
        // By scalar: "\r\n" is one Character, which a Character comparison would miss.
        guard text.unicodeScalars.contains(where: { ",\"\r\n".unicodeScalars.contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Adds counts kept in memory (see Tally) under this process's region and app version.
    mutating func add(_ tally: [Tally.Key: Counts], region: String, appVersion: String) {
        for (key, counts) in tally {
            let row = Key(day: key.day, pack: key.pack, region: region, appVersion: appVersion)
            let isNew = rows[row] == nil
            var sum = rows[row, default: Counts()]
            sum.sessions += counts.sessions
            sum.crashes += counts.crashes
            sum.lookups += counts.lookups
            sum.fallbacks += counts.fallbacks
            rows[row] = sum
            if isNew { trim() }
        }
    }

    private mutating func trim() {
        guard rows.count > Counters.maximumRows else { return }
        for old in rows.keys.sorted().prefix(rows.count - Counters.maximumRows) { rows[old] = nil }
    }

    // MARK: - In state.json

    var json: JSONValue {
        .array(
            rows.sorted(by: { $0.key < $1.key }).map { key, counts in
                .object([
                    "day": .string(key.day), "pack": .string(key.pack.description), "region": .string(key.region),
                    "appVersion": .string(key.appVersion), "sessions": .integer(counts.sessions),
                    "crashes": .integer(counts.crashes),
                    "lookups": .integer(counts.lookups), "fallbacks": .integer(counts.fallbacks),
                ])
            })
    }

    init() {}

    /// Rows that do not read back whole are left out: a count is never guessed.
    init(json: JSONValue?) {
        for row in json?.arrayValue ?? [] {
            guard let o = row.objectValue, let day = o["day"]?.stringValue,
                let pack = o["pack"]?.stringValue.flatMap({ try? PackID.parse($0) }),
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

/// What this process counted and has not written yet, in shards behind locks of their own, each
/// held for one dictionary update: `string` counts every lookup without touching the writers' lock,
/// and readers on different threads rarely meet on a shard. The region and app version are this
/// process's, added when the counts join the device state. The day is formatted once per UTC day
/// and shard, not per call.
final class Tally: Sendable {
    struct Key: Hashable {
        let day: String
        let pack: PackID
    }

    /// `@unchecked Sendable`: `lock` guards `counts`, `lookups` and `day` (`withShard`,
    /// `unsavedLookups` and `take` hold it).
    private final class Shard: @unchecked Sendable {
        let lock = NSLock()
        var counts: [Key: Counters.Counts] = [:]
        var lookups = 0
        var day: (start: Int64, text: String) = (-1, "")

        func dayText(_ date: Date) -> String {
            let raw = date.timeIntervalSince1970
            let seconds = raw.isFinite ? Int64(max(0, min(raw, 253_402_300_799))) : 0
            let start = seconds - seconds % 86_400
            if start != day.start { day = (start, String(Timestamp(seconds: start).description.prefix(10))) }
            return day.text
        }
    }

    private let shards = (0..<16).map { _ in Shard() }

    private func withShard<T>(_ body: (Shard) -> T) -> T {
        let shard = shards[Int(UInt(bitPattern: ObjectIdentifier(Thread.current).hashValue) % UInt(shards.count))]
        shard.lock.lock()
        defer { shard.lock.unlock() }
        return body(shard)
    }

    /// Returns the lookups this thread's shard holds unwritten, for the save trigger.
    func lookup(pack: PackID, at date: Date, fellBack: Bool) -> Int {
        withShard { shard in
            let key = Key(day: shard.dayText(date), pack: pack)
            shard.counts[key, default: Counters.Counts()].lookups += 1
            if fellBack { shard.counts[key, default: Counters.Counts()].fallbacks += 1 }
            shard.lookups += 1
            return shard.lookups
        }
    }

    func session(pack: PackID, at date: Date) {
        withShard { $0.counts[Key(day: $0.dayText(date), pack: pack), default: Counters.Counts()].sessions += 1 }
    }

    func crash(pack: PackID, at date: Date) {
        withShard { $0.counts[Key(day: $0.dayText(date), pack: pack), default: Counters.Counts()].crashes += 1 }
    }

    /// Lookups not written yet, over every shard.
    var unsavedLookups: Int {
        shards.reduce(0) { total, shard in
            shard.lock.lock()
            defer { shard.lock.unlock() }
            return total + shard.lookups
        }
    }

    /// Every shard's counts, summed; with `empty`, the shards are emptied in the same step.
    func take(emptying empty: Bool) -> [Key: Counters.Counts] {
        var total: [Key: Counters.Counts] = [:]
        for shard in shards {
            shard.lock.lock()
            for (key, counts) in shard.counts {
                var sum = total[key, default: Counters.Counts()]
                sum.sessions += counts.sessions
                sum.crashes += counts.crashes
                sum.lookups += counts.lookups
                sum.fallbacks += counts.fallbacks
                total[key] = sum
            }
            if empty {
                shard.counts = [:]
                shard.lookups = 0
            }
            shard.lock.unlock()
        }
        return total
    }
}

/// When the counts are written (docs/client.md#counters), with a lock of its own so that `string`
/// never takes the writers' lock to decide.
/// `@unchecked Sendable`: `lock` guards `scheduled` and `lastSave`, and `claim` reads `lookups` and
/// `interval` under it; those two are set only by tests, before the lookups they govern.
final class CounterSaver: @unchecked Sendable {
    private let lock = NSLock()
    /// Where saves run, one at a time, off the caller's thread.
    let queue = DispatchQueue(label: "RolloutClient.counters")
    private var scheduled = false
    /// `systemUptime` of the last write.
    private var lastSave: TimeInterval = 0
    /// A save is scheduled after this many unwritten lookups...
    var lookups = 1000
    /// ...but not sooner than this many seconds after the last one.
    var interval: TimeInterval = 10

    /// True when the caller should schedule a save now (and the saver counts it as scheduled).
    func claim(unsavedLookups: Int?) -> Bool {
        lock.withLock {
            if scheduled { return false }
            if let unsavedLookups,
                unsavedLookups < lookups || ProcessInfo.processInfo.systemUptime - lastSave < interval
            {
                return false
            }
            scheduled = true
            return true
        }
    }

    func started() { lock.withLock { scheduled = false } }
    func saved() { lock.withLock { lastSave = ProcessInfo.processInfo.systemUptime } }
}

extension RolloutClient {
    /// The day counters are recorded under (UTC), from `Options.now`.
    func counterDay() -> String {
        let seconds = options.now().timeIntervalSince1970
        return String(
            Timestamp(seconds: seconds.isFinite ? Int64(max(0, min(seconds, 253_402_300_799))) : 0).description.prefix(
                10))
    }

    /// One lookup, from `string`, against the pack it was attributed to. Every 64th lookup of a
    /// shard checks whether `CounterSaver.lookups` are unwritten (and the last save is
    /// `CounterSaver.interval` old): then a save is scheduled.
    func countLookup(_ pack: PackID, fellBack: Bool) {
        let shardLookups = tally.lookup(pack: pack, at: options.now(), fellBack: fellBack)
        if shardLookups % 64 == 0, counterSaver.claim(unsavedLookups: tally.unsavedLookups) { dispatchSave() }
    }

    /// Writes the counts on the client's own serial queue: neither `string` nor `recordSession`
    /// waits for the disk, and calls in a burst share one write.
    func scheduleSave() {
        if counterSaver.claim(unsavedLookups: nil) { dispatchSave() }
    }

    private func dispatchSave() {
        counterSaver.queue.async { [weak self] in
            guard let self else { return }
            self.counterSaver.started()
            // A cache directory deleted meanwhile (an uninstall, a test's scratch) is not recreated.
            guard FileManager.default.fileExists(atPath: self.storage.directory) else { return }
            self.lock.withLock { _ = self.saveState() }
        }
    }

    /// Tests: returns once the saves scheduled so far have run.
    func waitForSaves() {
        counterSaver.queue.sync {}
    }

    /// Moves what the tally holds into the device state, applies `change`, and writes the state if
    /// that changed it. The memory keeps the counts even when the write fails (a full disk): the
    /// next save writes them. Caller holds `lock`.
    @discardableResult
    func saveState(_ change: (inout DeviceState) -> Void = { _ in }) -> Bool {
        var next = state
        next.counters.add(tally.take(emptying: true), region: region, appVersion: appVersionText)
        next.outcomes = outcomeTally.current
        change(&next)
        guard next != state else { return true }
        state = next
        guard (try? storage.write(DeviceState.file, next.bytes)) != nil else { return false }
        counterSaver.saved()
        return true
    }

    /// One app session with the current pack (call it once per launch or foreground session).
    /// Saved at once, in the background.
    /// It also starts a new session for experiments: the next lookup of a varied key is its
    /// exposure, even on the bundled strings (docs/client.md, "Experiments: exposures and conversions").
    public func recordSession() {
        outcomeTally.update { $0.startSession() }
        if let own = snapshot.current.ownPack {
            tally.session(pack: own, at: options.now())
            lock.withLock { state.launch.open?.session = true }
        }
        scheduleSave()
    }

    /// A crash the app's crash reporter attributes to this session, after `markLaunchSucceeded()`
    /// (the client counts a launch that never got there itself). Saved at once, in the background.
    public func recordCrash() {
        guard let own = snapshot.current.ownPack else { return }
        tally.crash(pack: own, at: options.now())
        scheduleSave()
    }

    /// The counters as a metrics CSV that `rollout metrics ingest --kind KIND` reads: a header and
    /// one row per day, pack, region and app version (docs/metrics.md), including the counts of
    /// earlier processes not reset yet. Rows for the bundled strings are not written: there is no
    /// pack to attribute them to.
    /// An outcome kind (`outcome-<metric>`) gives the outcome CSV of that metric's rows (see `outcomeCSV()`).
    public func metricsCSV(_ kind: MetricKind) -> String {
        if let metric = kind.metric { return outcomeTally.current.csv(metric: metric) }
        // Under the writers' lock, which a save holds while it moves the tally into the state.
        let counters = lock.withLock { () -> Counters in
            var counters = state.counters
            counters.add(tally.take(emptying: false), region: region, appVersion: appVersionText)
            return counters
        }
        return counters.csv(kind)
    }

    /// Forgets the counters and the exposures and conversions (after they were all exported), on
    /// disk too. The session goes on: a conversion after it counts only for a session exposed after it.
    public func resetCounters() {
        lock.withLock {
            outcomeTally.update { $0.resetRows() }
            _ = saveState { $0.counters = Counters() }
        }
    }

    /// Writes the counters now, for a process about to end (a command-line tool, the app going to
    /// the background). Returns false when the state file could not be written.
    @discardableResult
    public func saveCounters() -> Bool {
        lock.withLock { saveState() }
    }
}
