import Foundation
import RolloutCrypto
import RolloutModel

/// What a device does with a published rollout site (docs/client.md, docs/manifest.md): strings
/// from the bundle at once, verified packs from its cache, updates fetched in the background and
/// activated at a safe moment, and counters for the metrics CSVs.
///
/// Every method may be called from any thread. `string(_:)` never waits for the network, never
/// returns an empty string or a key name, and nothing here ever throws at the app: a failed
/// refresh keeps what the device has and says why in its result.
///
/// `@unchecked Sendable`: its `var`s (`locale`, `state`, `active`, `refreshing`, `launchSession`) are
/// guarded by `lock`; everything else is a constant, or Sendable by a lock of its own (SnapshotCell,
/// Tally, OutcomeTally, CounterSaver, Observers, DeviceStorage's budget under `lock`).
public final class RolloutClient: @unchecked Sendable {
    public struct Options: Sendable {
        /// The locale whose bundled strings are the last resort for every key.
        public var defaultLocale = "en-US"
        /// The install id that places the device in percent rollouts; by default a random UUID
        /// kept in the cache directory.
        public var installID: String?
        public var transport: any RolloutTransport = URLSessionTransport()
        /// Seconds for each download before a refresh gives up.
        public var timeout: TimeInterval = 15
        /// The day counters are recorded under (UTC).
        public var now: @Sendable () -> Date = { Date() }
        /// Pack schema versions this build of the app understands.
        public var schemaVersions: Set<Int> = Pack.supportedSchemaVersions
        /// Seconds after a refresh round before `refresh()` asks the network again (kept across
        /// launches in `state.json`); `refresh(force: true)` ignores it.
        public var minimumRefreshInterval: TimeInterval = 4 * 3600
        /// Failed launches (ended before `markLaunchSucceeded()`) after which a pack activated
        /// since the last successful launch is rolled back (docs/client.md#activation-and-rollback-on-the-device).
        public var launchAttempts = 2
        /// Constructing the client is a process start: it counts for the crash-loop guard and
        /// activates the packs a refresh staged. False for a client that only inspects the cache
        /// (`rollout device status`): it counts nothing and leaves staged packs waiting.
        public var countsLaunch = true
        /// The oldest index sequence this build of the app accepts, even on a fresh install: set it
        /// to the sequence of the site the app was built against, so that an old copy of the site
        /// never shows its since-blocked packs (docs/client.md, "Keys and expiry").
        public var minimumIndexSequence = 0
        /// This process continues the session the last one recorded (state.json keeps it until the
        /// next `recordSession()`), for its exposures and conversions: a tool that plays one device
        /// across invocations (`rollout device`). An app leaves it false: before its first
        /// `recordSession()`, a process counts no exposure and no conversion.
        public var continuesSession = false
        /// Tests: the storage budget from the first write of `init` (see DeviceStorage.budget).
        var storageBudget: Int?

        public init() {}
    }

    /// What a refresh did, for logs and tests; the user never sees it.
    public enum RefreshResult: Equatable, Sendable {
        /// New packs are verified and waiting for `activatePending()`; `dropped` were blocked, or
        /// their locale now gives this device nothing, and are gone already.
        case staged(staged: [PackID], dropped: [PackID])
        /// Nothing to download; `dropped` as above.
        case upToDate(dropped: [PackID])
        /// The index and manifests were accepted (blocks and kill switches took effect), but the
        /// packs of some locales could not be fetched or verified; those locales keep what they have.
        /// `failures` has one entry per pack not staged, with why.
        case partial(staged: [PackID], dropped: [PackID], failures: [Failure])
        /// Nothing changed: the network, a time-out, a bad signature, a stale or replayed index or
        /// manifest; `Failure.reason` says which. The current packs stay.
        case failed(Failure)
        /// Another refresh was already running.
        case busy
        /// The last round was less than `Options.minimumRefreshInterval` ago: no request was made.
        case tooSoon(retryAfter: TimeInterval)
    }

    struct LoadedPack {
        let pack: Pack
        /// The bundle-only patterns of the signed manifest that delivered the pack.
        var bundleOnly = KeyPatterns.none
        var id: PackID { pack.id }

        /// The pack as a device may show it: without the keys the app keeps in its bundle (the
        /// patterns of its own manifest and of the latest one, `latest`), even if the pack has them
        /// (docs/policy.md, "Bundle-only keys").
        func shown(_ latest: [String]?) -> Pack {
            let patterns = KeyPatterns(bundleOnly.patterns + (latest ?? []).compactMap(KeyPattern.init))
            guard !patterns.isEmpty else { return pack }
            var shown = pack
            shown.strings = patterns.removing(from: pack.strings)
            return shown
        }
    }

    /// The writers' lock: refresh, activation, rollback, a locale change and start-up take it to
    /// change the device's memory and files. Readers never take it: `string(_:)` reads the
    /// immutable snapshot the writers publish. Recursive: verification reads the device's memory
    /// and runs both inside and outside it.
    let lock = NSRecursiveLock()
    let snapshot = SnapshotCell(.empty)
    let tally = Tally()
    let counterSaver = CounterSaver()
    let outcomeTally = OutcomeTally()
    let observers = Observers()
    let bundled: BundledStrings
    let storage: DeviceStorage
    let manifestURL: URL
    let signatureCheck: SignatureCheck
    let appVersionText: String
    let appVersion: AppVersion?
    let region: String
    let options: Options
    public let installID: String

    // Guarded by `lock`; after changing `locale`, `state` or `active`, call `publish()` before
    // letting go of it.
    var locale: String
    var state: DeviceState
    var active: [String: LoadedPack] = [:]
    var refreshing = false
    var launchSession = LaunchSession()

    /// A device that trusts the site's key list, signed by `trust`'s root keys (docs/client.md,
    /// "Keys and expiry"): rotation and revocation of publishing keys need no app update. Never
    /// fails and never touches the network: keys that do not parse or a damaged cache only mean
    /// the device runs on its bundled strings until a refresh succeeds.
    public convenience init(
        bundled: BundledStrings, cacheDirectory: URL, manifestURL: URL, trust: Trust,
        appVersion: String, region: String, locale: String, options: Options = Options()
    ) {
        self.init(
            bundled: bundled, cacheDirectory: cacheDirectory, manifestURL: manifestURL, check: SignatureCheck(trust),
            appVersion: appVersion, region: region, locale: locale, options: options)
    }

    /// A device that pins one publishing key (the site's `.sig` files), as apps built before key
    /// lists do. Never fails and never touches the network, like `init(...trust:...)`.
    public convenience init(
        bundled: BundledStrings, cacheDirectory: URL, manifestURL: URL, publicKey: String,
        appVersion: String, region: String, locale: String, options: Options = Options()
    ) {
        self.init(
            bundled: bundled, cacheDirectory: cacheDirectory, manifestURL: manifestURL,
            check: SignatureCheck(publicKey: publicKey),
            appVersion: appVersion, region: region, locale: locale, options: options)
    }

    private init(
        bundled: BundledStrings, cacheDirectory: URL, manifestURL: URL, check: SignatureCheck,
        appVersion: String, region: String, locale: String, options: Options
    ) {
        self.bundled = bundled
        self.storage = DeviceStorage(directory: cacheDirectory.path)
        self.manifestURL = manifestURL
        self.signatureCheck = check
        self.appVersionText = appVersion
        self.appVersion = AppVersion(appVersion)
        self.region = region.uppercased()
        self.locale = locale
        self.options = options
        storage.budget = options.storageBudget
        try? FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        storage.removeTemporaries()
        state = DeviceState(storage.read(DeviceState.file)) ?? DeviceState()
        if !options.continuesSession { state.outcomes.session = nil }
        let outcomes = state.outcomes
        outcomeTally.update { $0 = outcomes }
        if let id = options.installID {
            installID = id
        } else if let stored = storage.read("install-id").map({ String(decoding: $0, as: UTF8.self) }), !stored.isEmpty
        {
            installID = stored
        } else {
            installID = UUID().uuidString
            try? storage.write("install-id", Array(installID.utf8))
        }
        lock.withLock {
            if options.countsLaunch { beginLaunch() }
            for cached in storage.children("packs") {
                start(cached)
            }
            // Every committed pending pack is active now, or was refused: none is pending any more.
            if options.countsLaunch, !state.staged.isEmpty { try? save { $0.staged = [] } }
            if options.countsLaunch { finishLaunchStart() }
            publish()
        }
        // An observer registered before the client was made (NotificationCenter) learns of it.
        if !launchSession.rolledBack.isEmpty {
            announce([Change(reason: .rolledBack, packs: launchSession.rolledBack, locale: locale)])
        }
    }
}
