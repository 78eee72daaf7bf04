import Foundation
import RolloutModel

/// The crash-loop guard's memory, kept in `state.json` (docs/client.md#activation-and-rollback-on-the-device).
///
/// A pack is **on trial** while it is active for its locale and differs from the pack that was
/// active there at the last `markLaunchSucceeded()`. Whatever path made it active (activatePending,
/// a pending pack promoted at start, a refresh replacing a dropped pack, the fall-back of
/// markActivePackFailed), it is judged the same way, with no hook on those paths.
struct LaunchState: Equatable {
    /// A launch that began and has not reached `markLaunchSucceeded()` (yet, or ever: found at the
    /// next start, it is a launch that died).
    struct OpenLaunch: Equatable {
        var locale: String
        var day: String
        var region: String
        var appVersion: String
        /// The app recorded a session during it: a failed launch then counts only its crash.
        var session = false
        /// Each locale's active pack when it began: what its `markLaunchSucceeded()` confirms (a
        /// pack activated later in the process has not been through a start yet).
        var active: [String: String] = [:]
    }

    struct Trial: Equatable {
        /// Launches begun with the pack active (the one it was activated in included).
        var launches = 0
        /// Of those, launches that ended before `markLaunchSucceeded()`.
        var failures = 0
    }

    /// Packs rolled back by the guard kept for `status`, most recent last.
    static let maximumRolledBack = 32
    /// Packs a successful launch confirmed, kept so that one coming back (a revert to the baseline)
    /// is not on trial again.
    static let maximumGood = 64

    /// The app has called `markLaunchSucceeded()` once on this install: until then the guard
    /// neither counts launches nor rolls anything back.
    var armed = false
    /// Each locale's active pack at the last successful launch (`tr-TR` -> `tr-TR@17`).
    var confirmed: [String: String] = [:]
    /// Packs a successful launch ever confirmed, most recent last.
    var good: [String] = []
    /// Packs on trial (`tr-TR@18`), pruned at each start to the active ones.
    var trial: [String: Trial] = [:]
    var open: OpenLaunch?
    /// Packs the guard rolled back (also in the failed list, which is what keeps them away).
    var rolledBack: [String] = []
    /// Rollbacks ever made by the guard on this install.
    var rollbacks = 0

    init() {}

    init(json: JSONValue?) {
        guard let o = json?.objectValue else { return }
        armed = o["armed"]?.boolValue ?? false
        confirmed = (o["confirmed"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
        good = o["good"]?.arrayValue?.compactMap(\.stringValue) ?? []
        trial = (o["trial"]?.objectValue ?? [:]).compactMapValues { value in
            guard let t = value.objectValue, let launches = t["launches"]?.integerValue,
                let failures = t["failures"]?.integerValue
            else { return nil }
            return Trial(launches: launches, failures: failures)
        }
        if let l = o["open"]?.objectValue, let locale = l["locale"]?.stringValue, let day = l["day"]?.stringValue,
            let region = l["region"]?.stringValue, let appVersion = l["appVersion"]?.stringValue
        {
            open = OpenLaunch(
                locale: locale, day: day, region: region, appVersion: appVersion,
                session: l["session"]?.boolValue ?? false,
                active: (l["active"]?.objectValue ?? [:]).compactMapValues(\.stringValue))
        }
        rolledBack = o["rolledBack"]?.arrayValue?.compactMap(\.stringValue) ?? []
        rollbacks = o["rollbacks"]?.integerValue ?? rolledBack.count
    }

    var json: JSONValue {
        var o: [String: JSONValue] = [
            "armed": .bool(armed), "confirmed": .object(confirmed.mapValues { .string($0) }),
            "good": .array(good.map { .string($0) }),
            "trial": .object(
                trial.mapValues { .object(["launches": .integer($0.launches), "failures": .integer($0.failures)]) }),
            "rolledBack": .array(rolledBack.map { .string($0) }), "rollbacks": .integer(rollbacks),
        ]
        if let open {
            o["open"] = .object([
                "locale": .string(open.locale), "day": .string(open.day), "region": .string(open.region),
                "appVersion": .string(open.appVersion), "session": .bool(open.session),
                "active": .object(open.active.mapValues { .string($0) }),
            ])
        }
        return .object(o)
    }

    /// A pack is on trial while no successful launch has confirmed it: it differs from its
    /// locale's pack at the last one, and no earlier one confirmed it either.
    func onTrial(_ id: PackID) -> Bool {
        confirmed[id.locale] != id.description && !good.contains(id.description)
    }

    /// A successful launch that began with `active`: those packs are good, the rest stay on trial.
    mutating func confirm(_ active: [String: String]) {
        confirmed = active
        good = Array(
            (good.filter { !active.values.contains($0) } + active.values.sorted()).suffix(LaunchState.maximumGood))
        trial = trial.filter { id, _ in (try? PackID.parse(id)).map(onTrial) ?? false }
    }
}

/// What this process knows about its own launch; not persisted.
struct LaunchSession {
    /// `markLaunchSucceeded()` was called in this process.
    var succeeded = false
    /// The launch before this one ended before `markLaunchSucceeded()`.
    var previousLaunchFailed = false
    /// The packs this start rolled back (announced once `init` is done).
    var rolledBack: [PackID] = []
}

extension RolloutClient {
    /// The crash-loop guard as the app (or `rollout device status`) sees it.
    public struct LaunchStatus: Equatable, Sendable {
        /// The app has called `markLaunchSucceeded()` once on this install, so the guard runs.
        public var armed: Bool
        /// This process has called `markLaunchSucceeded()`.
        public var succeeded: Bool
        /// Active packs no successful launch has confirmed yet (empty while not armed).
        public var awaitingSuccess: [PackID]
        /// Launches begun with those packs active, this one included (the most of any of them).
        public var launchesSinceActivation: Int
        /// Of those, launches that ended before `markLaunchSucceeded()`.
        public var failedLaunches: Int
        /// `Options.launchAttempts`: failed launches after which a pack is rolled back.
        public var launchAttempts: Int
        /// The launch before this one ended before `markLaunchSucceeded()` (the client counted it
        /// as a crash of its pack: a crash reporter need not report it with `recordCrash()`).
        public var previousLaunchFailed: Bool
        /// Packs the guard rolled back, most recent last (at most 32; never activated again).
        public var rolledBack: [PackID]
        /// Rollbacks the guard ever made on this install.
        public var rollbacks: Int
    }

    public var launchStatus: LaunchStatus {
        lock.withLock {
            let awaiting = state.launch.armed ? active.values.map(\.id).filter(state.launch.onTrial).sorted() : []
            let trials = awaiting.compactMap { state.launch.trial[$0.description] }
            return LaunchStatus(
                armed: state.launch.armed, succeeded: launchSession.succeeded, awaitingSuccess: awaiting,
                launchesSinceActivation: trials.map(\.launches).max() ?? 0,
                failedLaunches: trials.map(\.failures).max() ?? 0,
                launchAttempts: options.launchAttempts, previousLaunchFailed: launchSession.previousLaunchFailed,
                rolledBack: state.launch.rolledBack.compactMap { try? PackID.parse($0) },
                rollbacks: state.launch.rollbacks)
        }
    }

    /// The app's first screen is usable: the packs this launch began with are confirmed good, and
    /// the guard is armed from now on. Call it as soon as the first screen works. Only the first
    /// call of a launch counts, and a pack activated after the launch began (`activatePending()`)
    /// stays on trial until a later launch that begins with it succeeds: calling it again (a
    /// root view appearing twice) never vouches for a pack that has not been through a start.
    ///
    /// Returns what this call confirmed: each locale's active pack when the launch began, sorted
    /// (empty: the launch began on the bundled strings); nil when it confirmed nothing, because
    /// this launch had succeeded already (a pack activated since stays on trial, `launchStatus`
    /// lists it) or its start was never recorded (a full disk). The Android client's
    /// `markLaunchSucceeded()` returns the same.
    @discardableResult
    public func markLaunchSucceeded() -> [PackID]? {
        lock.withLock {
            launchSession.succeeded = true
            var next = state
            let began: [String: String]
            if !next.launch.armed {
                // The first call on this install: nothing was on trial; what is active now is good.
                began = active.mapValues(\.id.description)
                next.launch.armed = true
            } else if let open = next.launch.open {
                began = open.active
            } else {
                return nil  // this launch succeeded already, or was never recorded (a full disk)
            }
            next.launch.open = nil
            next.launch.confirm(began)
            guard (try? storage.write(DeviceState.file, next.bytes)) != nil else { return nil }
            state = next
            return began.values.compactMap { try? PackID.parse($0) }.sorted()
        }
    }

    // MARK: - Start-up (init calls these around the start of each cached locale)

    /// Before the cached packs are started: the launch before this one, if it never reached
    /// `markLaunchSucceeded()`, counts as a crash of the pack of its locale that was active when it
    /// ended, and as a failed launch of every pack then on trial; a pack on trial that reaches
    /// `Options.launchAttempts` failed launches is marked failed. That is written before any slot
    /// moves, and the start of each locale then does the rest: a failed active pack gives way to the
    /// previous one (or a verified pending one, or the bundled strings).
    func beginLaunch() {
        guard state.launch.armed, let open = state.launch.open else { return }
        var next = state
        next.launch.open = nil
        launchSession.previousLaunchFailed = true
        var actives: [String: PackID] = [:]
        for locale in storage.children("packs") {
            if let pack = verifiedSlot(.active, of: locale) { actives[locale] = pack.id }
        }
        var rollBack: [PackID] = []
        for (_, id) in actives.sorted(by: { $0.key < $1.key }) where next.launch.onTrial(id) {
            // A pack activated during the launch that died has that launch as its first.
            var trial = next.launch.trial[id.description] ?? LaunchState.Trial(launches: 1, failures: 0)
            trial.failures += 1
            next.launch.trial[id.description] = trial
            if trial.failures >= max(1, options.launchAttempts) { rollBack.append(id) }
        }
        if let pack = actives[open.locale] {
            let key = Counters.Key(day: open.day, pack: pack, region: open.region, appVersion: open.appVersion)
            next.counters.record(.crash, key)
            if !open.session { next.counters.record(.session, key) }
        }
        for id in rollBack {
            next.failed.insert(id.description)
            next.launch.trial[id.description] = nil
            next.launch.rolledBack = Array(
                (next.launch.rolledBack.filter { $0 != id.description } + [id.description]).suffix(
                    LaunchState.maximumRolledBack))
            next.launch.rollbacks += 1
        }
        // The failed list must be on disk before a slot moves, or a killed process could lose the
        // pack from the cache without remembering never to take it again.
        if !rollBack.isEmpty { guard (try? storage.write(DeviceState.file, next.bytes)) != nil else { return } }
        state = next
        launchSession.rolledBack = rollBack
    }

    /// After the cached packs are started: this launch is recorded as open (until
    /// `markLaunchSucceeded()`), and each pack on trial counts it.
    func finishLaunchStart() {
        guard state.launch.armed else { return }
        var next = state
        var trial: [String: LaunchState.Trial] = [:]
        for pack in active.values where next.launch.onTrial(pack.id) {
            var t = next.launch.trial[pack.id.description] ?? LaunchState.Trial()
            t.launches += 1
            trial[pack.id.description] = t
        }
        next.launch.trial = trial
        next.launch.open = LaunchState.OpenLaunch(
            locale: locale, day: counterDay(), region: region, appVersion: appVersionText,
            active: active.mapValues(\.id.description))
        // Unwritten (a full disk), this launch is not counted: never a reason to stop the app.
        guard (try? storage.write(DeviceState.file, next.bytes)) != nil else { return }
        state = next
    }
}
