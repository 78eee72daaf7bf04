import Foundation
import RolloutModel

extension RolloutClient {
    /// What the device has and knows, for support screens, logs and `rollout device status`.
    /// Counters are read with `metricsCSV(_:)`.
    public struct Status: Equatable, Sendable {
        /// The packs of one locale in the cache.
        public struct Slots: Equatable, Sendable {
            /// In use (nil: this locale's bundled strings, or the next locale of the chain).
            public var active: PackID?
            /// Verified by a committed refresh round, waiting for `activatePending()` or the next start.
            public var pending: PackID?
            /// The last good pack before `active`: what a rollback returns to.
            public var previous: PackID?

            public init(active: PackID? = nil, pending: PackID? = nil, previous: PackID? = nil) {
                self.active = active
                self.pending = pending
                self.previous = previous
            }
        }

        /// The experiment variant a device is in (docs/client.md, "Experiments: exposures and conversions").
        public struct Experiment: Equatable, Sendable {
            public var name: String
            /// The assigned variant, active or not.
            public var pack: PackID
            public var isControl: Bool
            /// The keys whose first lookup in a session is its exposure, sorted.
            public var keys: [String]
            /// The conversions it counts, the primary first.
            public var metrics: [String]
        }

        /// The device's locale and the chain its keys are looked up in.
        public var locale: String
        public var chain: [String]
        /// Each locale that has a pack in the cache.
        public var packs: [String: Slots]
        /// Packs this device gave up (`markActivePackFailed()`, the crash-loop guard): never
        /// activated again.
        public var failed: [PackID]
        /// Content versions the manifests block, per locale.
        public var blocked: [String: [Int]]
        /// Locales whose kill switch was on in the last manifest seen.
        public var killed: [String]
        /// The index sequence last accepted (0: never refreshed).
        public var indexSequence: Int
        /// When the last refresh round whose index and manifests verified began.
        public var lastRefresh: Date?
        /// The crash-loop guard: packs awaiting a successful launch, failed launches, rollbacks.
        public var launch: LaunchStatus
        /// The version of the key list the device accepted (nil: none, or an app that pins a key).
        public var keysVersion: Int?
        /// When the accepted index expires (nil: it does not).
        public var indexExpires: Date?
        /// The accepted index is past its expiry at `Options.now`: the site stopped being refreshed,
        /// or something between the device and it serves an old copy. The packs stay in use.
        public var isStale: Bool
        /// The variant the device is in, from its own locale's last verified manifest (nil: none).
        public var experiment: Experiment?
    }

    /// A consistent picture of the device: its memory, and the slots in its cache.
    public var status: Status {
        let (locale, chain, state, active) = lock.withLock { () -> (String, [String], DeviceState, [String: PackID]) in
            (self.locale, self.chain(for: self.locale), self.state, self.active.mapValues(\.id))
        }
        var packs: [String: Status.Slots] = [:]
        for name in Set(storage.children("packs")).union(active.keys) {
            let slots = Status.Slots(
                active: active[name],
                pending: storedID(.pending, of: name).flatMap { state.staged.contains($0.description) ? $0 : nil },
                previous: storedID(.previous, of: name))
            if slots != Status.Slots() { packs[name] = slots }
        }
        return Status(
            locale: locale, chain: chain, packs: packs,
            failed: state.failed.compactMap { try? PackID.parse($0) }.sorted(),
            blocked: state.blocked.filter { !$0.value.isEmpty }, killed: state.killed.sorted(),
            indexSequence: state.indexSequence,
            lastRefresh: state.lastRefresh.map { Date(timeIntervalSince1970: TimeInterval($0)) }, launch: launchStatus,
            keysVersion: signatureCheck.usesKeyList ? state.keyList?.version : nil,
            indexExpires: state.indexExpires.map { Date(timeIntervalSince1970: TimeInterval($0.seconds)) },
            isStale: state.indexExpires.map { TimeInterval($0.seconds) <= options.now().timeIntervalSince1970 }
                ?? false,
            experiment: state.experiment.flatMap { $0.locale == locale ? Status.Experiment($0) : nil })
    }
}

extension RolloutClient.Status.Experiment {
    init(_ assignment: ExperimentAssignment) {
        self.init(
            name: assignment.tag.name, pack: assignment.tag.pack, isControl: assignment.isControl,
            keys: assignment.keys.sorted(), metrics: assignment.metrics)
    }
}
