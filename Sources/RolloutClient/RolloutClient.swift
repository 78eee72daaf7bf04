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

        public init() {}
    }

    /// What a refresh did, for logs and tests; the user never sees it.
    public enum RefreshResult: Equatable, Sendable {
        /// New packs are verified and waiting for `activatePending()`; `dropped` were blocked or
        /// withdrawn and are gone already.
        case staged(staged: [PackID], dropped: [PackID])
        /// Nothing to download; `dropped` as above.
        case upToDate(dropped: [PackID])
        /// Nothing changed: the network, a time-out, a bad signature, a stale or replayed
        /// manifest, a damaged pack. The current packs stay.
        case failed(String)
        /// Another refresh was already running.
        case busy
    }

    struct LoadedPack {
        let pack: Pack
        var id: PackID { pack.id }
    }

    /// Recursive: verification reads the device's memory and runs both inside and outside it.
    private let lock = NSRecursiveLock()
    private let bundled: [String: [String: String]]
    private let storage: DeviceStorage
    private let manifestURL: URL
    private let publicKey: Ed25519.PublicKey?
    private let appVersionText: String
    private let appVersion: AppVersion?
    private let region: String
    private let options: Options
    public let installID: String

    // Guarded by `lock`.
    private var locale: String
    private var state: DeviceState
    private var active: [String: LoadedPack] = [:]
    private var refreshing = false
    private var counters = Counters()

    /// Never fails and never touches the network: a key that does not parse or a damaged cache
    /// only means the device runs on its bundled strings until a refresh succeeds.
    public init(
        bundled: [String: [String: String]], cacheDirectory: URL, manifestURL: URL, publicKey: String,
        appVersion: String, region: String, locale: String, options: Options = Options()
    ) {
        self.bundled = bundled
        self.storage = DeviceStorage(directory: cacheDirectory.path)
        self.manifestURL = manifestURL
        self.publicKey = Ed25519.PublicKey(publicKey)
        self.appVersionText = appVersion
        self.appVersion = AppVersion(appVersion)
        self.region = region.uppercased()
        self.locale = locale
        self.options = options
        try? FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        storage.removeTemporaries()
        state = DeviceState(storage.read(DeviceState.file)) ?? DeviceState()
        if let id = options.installID {
            installID = id
        } else if let stored = storage.read("install-id").map({ String(decoding: $0, as: UTF8.self) }), !stored.isEmpty {
            installID = stored
        } else {
            installID = UUID().uuidString
            try? storage.write("install-id", Array(installID.utf8))
        }
        for cached in storage.children("packs") {
            start(cached)
        }
    }

    // MARK: - Start-up

    /// A locale's packs at start: a pending pack becomes active now (this is the next launch), an
    /// active pack that no longer verifies gives way to the previous one, and anything blocked,
    /// failed or damaged is deleted.
    private func start(_ locale: String) {
        let dir = "packs/\(locale)"
        if let pending = verifiedSlot("\(dir)/pending", locale: locale) {
            _ = pending
            try? promotePending(locale)
        } else {
            try? storage.remove("\(dir)/pending")
        }
        if let pack = verifiedSlot("\(dir)/active", locale: locale) {
            active[locale] = pack
            return
        }
        try? storage.remove("\(dir)/active")
        if let previous = verifiedSlot("\(dir)/previous", locale: locale), (try? storage.rename("\(dir)/previous", "\(dir)/active")) != nil {
            active[locale] = previous
        } else {
            try? storage.remove("\(dir)/previous")
        }
    }

    /// pending -> active, keeping the active one as previous. A process killed between the two
    /// renames finds no active pack but a previous and a pending one, and finishes the job.
    private func promotePending(_ locale: String) throws {
        let dir = "packs/\(locale)"
        if storage.exists("\(dir)/active") { try storage.rename("\(dir)/active", "\(dir)/previous") }
        try storage.rename("\(dir)/pending", "\(dir)/active")
    }

    /// The slot at `name`, if every check passes: the manifest's signature, the pack's digest and
    /// size as that manifest lists them, strict parsing, the checksum, locale, a schema this app
    /// understands, its minAppVersion, and neither blocked nor marked failed on this device.
    private func verifiedSlot(_ name: String, locale: String) -> LoadedPack? {
        guard let bytes = storage.read(name), let slot = PackSlot(bytes) else { return nil }
        return try? verify(slot, locale: locale)
    }

    private func verify(_ slot: PackSlot, locale: String) throws -> LoadedPack {
        guard let publicKey else { throw TransportError("no valid public key") }
        guard DetachedSignature.verify(slot.signature, over: slot.manifest, with: publicKey) else {
            throw TransportError("\(locale): the manifest's signature does not verify")
        }
        let manifest = try LocaleManifest.parse(slot.manifest, source: "manifests/\(locale).json")
        guard manifest.locale == locale else { throw TransportError("the manifest is for \(manifest.locale), not \(locale)") }
        let digest = SHA256.hex(slot.pack)
        guard let (version, entry) = manifest.packs.first(where: { $0.value.sha256 == digest }), entry.bytes == slot.pack.count else {
            throw TransportError("\(locale): the pack is not the one its manifest lists")
        }
        let pack = try check(slot.pack, entry: entry, locale: locale, version: version)
        if manifest.plan.isBlocked(version) { throw TransportError("\(locale)@\(version) is blocked") }
        return LoadedPack(pack: pack)
    }

    /// The checks every pack passes before it is stored or used.
    private func check(_ bytes: [UInt8], entry: LocaleManifest.PackEntry, locale: String, version: Int) throws -> Pack {
        guard bytes.count == entry.bytes, SHA256.hex(bytes) == entry.sha256 else {
            throw TransportError("\(locale)@\(version): size or SHA-256 differs from the manifest")
        }
        guard options.schemaVersions.contains(entry.schemaVersion) else {
            throw TransportError("\(locale)@\(version): schemaVersion \(entry.schemaVersion) is not one this app understands")
        }
        let parsed = try PackParser.parse(bytes, source: "\(locale)@\(version)", maximumBytes: Int.max)
        let pack = parsed.pack
        guard parsed.declaredChecksum == entry.checksum, pack.checksum == entry.checksum else {
            throw TransportError("\(locale)@\(version): the checksum differs from the manifest")
        }
        guard pack.locale == locale, pack.contentVersion == version, options.schemaVersions.contains(pack.schemaVersion) else {
            throw TransportError("\(locale)@\(version): the pack says it is \(pack.id) (schema \(pack.schemaVersion))")
        }
        guard let app = appVersion, pack.minAppVersion <= app else {
            throw TransportError("\(locale)@\(version) needs app \(pack.minAppVersion), this is \(appVersionText)")
        }
        let blocked = lock.withLock { state.blocked[locale, default: []].contains(version) || state.failed.contains(pack.id.description) }
        if blocked { throw TransportError("\(pack.id) is blocked or failed on this device") }
        return pack
    }

    // MARK: - Strings

    /// The locales a key is looked up in, in order, before the default locale's bundled strings:
    /// the published chain, or until the first refresh, the locale, its language and the default.
    private func chain(for locale: String) -> [String] {
        if let published = state.chains[locale] { return published }
        var chain = [locale]
        if let language = locale.split(separator: "-").first.map(String.init), language != locale { chain.append(language) }
        if !chain.contains(options.defaultLocale) { chain.append(options.defaultLocale) }
        return chain
    }

    /// The text for `key`: each locale of the chain (its active pack, then its bundled strings),
    /// then the default locale's bundled strings, then `fallback`. Never empty and never the key:
    /// a key the app does not bundle at all and has no fallback for shows "…".
    public func string(_ key: String, _ arguments: [String: String] = [:], fallback: String? = nil) -> String {
        let (text, language) = lock.withLock { () -> (String, String) in
            let own = active[locale]
            var found: String?
            var fromOwnPack = false
            for candidate in chain(for: locale) {
                if let value = active[candidate]?.pack.strings[key], !value.isEmpty {
                    found = value
                    fromOwnPack = candidate == locale
                    break
                }
                if let value = bundled[candidate]?[key], !value.isEmpty {
                    found = value
                    break
                }
            }
            if found == nil, let value = bundled[options.defaultLocale]?[key], !value.isEmpty { found = value }
            if let own { counters.lookup(pack: own.id, day: day(), fellBack: !fromOwnPack) }
            return (found ?? fallback.flatMap { $0.isEmpty ? nil : $0 } ?? "…", String(locale.split(separator: "-").first ?? ""))
        }
        return MessageFormat.format(text, arguments, language: language)
    }

    /// Switches the device's locale; the next `string` reads the new chain. A refresh fetches the
    /// new locale's packs.
    public func setLocale(_ newLocale: String) {
        lock.withLock { locale = newLocale }
    }

    public var currentLocale: String { lock.withLock { locale } }

    /// The active pack of each locale that has one.
    public var activePacks: [PackID] { lock.withLock { active.values.map(\.id).sorted() } }

    /// The pack in use for the device's own locale, if any (nil: bundled strings).
    public var activePack: PackID? { lock.withLock { active[locale]?.id } }

    /// Packs verified and waiting for `activatePending()`.
    public var pendingPacks: [PackID] {
        storage.children("packs").compactMap { locale in verifiedSlot("packs/\(locale)/pending", locale: locale)?.id }.sorted()
    }

    // MARK: - Refresh

    /// Fetches the index and the manifests of the device's chain, verifies them, resolves each
    /// locale's plan for this device and downloads what it resolves to into the pending slot.
    /// Blocked packs, and packs of a locale the device should no longer get anything from, are
    /// dropped at once, from memory and from the cache. Never throws; never changes anything on
    /// a failure.
    @discardableResult
    public func refresh() async -> RefreshResult {
        let begin: (String, Int, Bool) = lock.withLock {
            defer { refreshing = true }
            return (locale, state.indexSequence, refreshing)
        }
        if begin.2 { return .busy }
        defer { lock.withLock { refreshing = false } }
        do {
            return try await refresh(locale: begin.0, lastSequence: begin.1)
        } catch {
            return .failed(String(describing: error))
        }
    }

    private func fetch(_ url: URL) async throws -> [UInt8] {
        let transport = options.transport
        return [UInt8](try await withTimeout(options.timeout) { try await transport.fetch(url) })
    }

    private func siteURL(_ path: String) -> URL { manifestURL.deletingLastPathComponent().appendingPathComponent(path) }

    private func refresh(locale: String, lastSequence: Int) async throws -> RefreshResult {
        guard let publicKey else { throw TransportError("the public key given to RolloutClient is not ed25519:BASE64") }
        let indexBytes = try await fetch(manifestURL)
        let indexSignature = try await fetch(manifestURL.appendingPathExtension("sig"))
        guard DetachedSignature.verify(indexSignature, over: indexBytes, with: publicKey) else {
            throw TransportError("index.json: the signature does not verify")
        }
        let index = try SiteIndex.parse(indexBytes, source: "index.json")
        guard index.sequence >= lastSequence else {
            throw TransportError("index.json: sequence \(index.sequence) is older than \(lastSequence), already seen (a stale cache or a replay)")
        }
        let chain = index.locales[locale]?.chain ?? []

        // Every manifest of the chain first: a refresh acts on one consistent publish or not at all.
        var manifests: [(locale: String, bytes: [UInt8], signature: [UInt8], manifest: LocaleManifest)] = []
        for name in chain {
            guard let entry = index.locales[name], entry.manifest == SiteLayout.manifest(name) else {
                throw TransportError("index.json: the chain of \(locale) names \(name), which it does not list")
            }
            let bytes = try await fetch(siteURL(entry.manifest))
            let signature = try await fetch(siteURL(SiteLayout.signature(of: entry.manifest)))
            guard DetachedSignature.verify(signature, over: bytes, with: publicKey) else {
                throw TransportError("\(entry.manifest): the signature does not verify")
            }
            let manifest = try LocaleManifest.parse(bytes, source: entry.manifest)
            guard manifest.locale == name, manifest.sequence == entry.sequence else {
                throw TransportError("\(entry.manifest): sequence \(manifest.sequence) for \(manifest.locale), the index says \(entry.sequence) for \(name) (a cache mixed two publishes)")
            }
            manifests.append((name, bytes, signature, manifest))
        }

        // What each locale resolves to for this device, downloaded and verified.
        var staged: [(locale: String, slot: PackSlot, id: PackID)] = []
        var resolved: [String: Resolution.Outcome] = [:]
        for item in manifests {
            let plan = item.manifest.plan
            let outcome = Resolution.outcome(plan, region: region, appVersion: appVersion, installID: installID)
            resolved[item.locale] = outcome
            guard case .pack(let version) = outcome else { continue }
            let id = PackID(locale: item.locale, contentVersion: version)
            let (have, failed) = lock.withLock { (active[item.locale]?.id, state.failed.contains(id.description)) }
            if have == id || failed { continue }
            if let pending = verifiedSlot("packs/\(item.locale)/pending", locale: item.locale), pending.id == id { continue }
            // Back to the pack it had before (a revert): it is in the cache, verified by the
            // signed manifest that delivered it.
            let previous = "packs/\(item.locale)/previous"
            if let cached = verifiedSlot(previous, locale: item.locale), cached.id == id, let bytes = storage.read(previous), let slot = PackSlot(bytes) {
                staged.append((item.locale, slot, id))
                continue
            }
            guard let entry = item.manifest.packs[version] else { throw TransportError("\(item.locale): the plan gives \(id), the manifest does not list it") }
            guard !entry.url.contains(".."), !entry.url.hasPrefix("/") else { throw TransportError("\(id): unsafe url \(entry.url)") }
            let bytes = try await fetch(siteURL(entry.url))
            _ = try check(bytes, entry: entry, locale: item.locale, version: version)
            staged.append((item.locale, PackSlot(manifest: item.bytes, signature: item.signature, pack: bytes), id))
        }

        // The verified packs into their pending slots (each one file, one rename), then the device's
        // memory, then away with what the manifests now forbid.
        for item in staged { try storage.write("packs/\(item.locale)/pending", item.slot.bytes) }
        return try lock.withLock { () throws -> RefreshResult in
            guard state.indexSequence <= index.sequence else { throw TransportError("a newer index was accepted meanwhile") }
            var next = state
            next.indexSequence = index.sequence
            next.chains = index.locales.mapValues(\.chain)
            for item in manifests { next.blocked[item.locale] = item.manifest.plan.blocked.sorted() }
            try storage.write(DeviceState.file, next.bytes)
            state = next
            var dropped: [PackID] = []
            for item in manifests {
                let outcome = resolved[item.locale]
                for slot in ["previous", "pending", "active"] {
                    let name = "packs/\(item.locale)/\(slot)"
                    guard let bytes = storage.read(name), let stored = PackSlot(bytes) else { continue }
                    let version = (try? PackParser.parse(stored.pack, source: name, maximumBytes: Int.max, verifyChecksum: false))?.pack.contentVersion
                    let blocked = version.map { item.manifest.plan.isBlocked($0) } ?? true
                    let gone: Bool
                    switch slot {
                    // A locale that gives this device nothing (its kill switch, a device too old
                    // for every pack) takes its active pack away too.
                    case "active": gone = blocked || outcome == .bundled
                    // A pending pack the plan no longer gives this device is stale.
                    case "pending": gone = blocked || version.map { outcome != .pack($0) } ?? true
                    default: gone = blocked
                    }
                    guard gone else { continue }
                    try storage.remove(name)
                    if let version, slot == "active" {
                        dropped.append(PackID(locale: item.locale, contentVersion: version))
                        active[item.locale] = nil
                    }
                }
                // The active pack was just taken away: with nothing on screen to keep consistent,
                // its replacement becomes active now.
                if active[item.locale] == nil, dropped.contains(where: { $0.locale == item.locale }), storage.exists("packs/\(item.locale)/pending") {
                    try activate(item.locale)
                }
            }
            return staged.isEmpty ? .upToDate(dropped: dropped) : .staged(staged: staged.map(\.id), dropped: dropped)
        }
    }

    // MARK: - Activation and device-side rollback

    /// Makes every pending pack active. Call it at a safe moment (a new screen, the app coming to
    /// the foreground); a pending pack also becomes active at the next start. Returns the packs
    /// that became active.
    @discardableResult
    public func activatePending() -> [PackID] {
        lock.withLock {
            var activated: [PackID] = []
            for locale in storage.children("packs") where storage.exists("packs/\(locale)/pending") {
                if (try? activate(locale)) != nil, let id = active[locale]?.id { activated.append(id) }
            }
            return activated.sorted()
        }
    }

    /// Under the lock.
    private func activate(_ locale: String) throws {
        let name = "packs/\(locale)/pending"
        guard let bytes = storage.read(name), let slot = PackSlot(bytes) else { return try storage.remove(name) }
        let pack: LoadedPack
        do {
            pack = try verify(slot, locale: locale)
        } catch {
            try? storage.remove(name)
            throw error
        }
        try promotePending(locale)
        active[locale] = pack
    }

    /// The app says the active pack of its locale is bad (it crashed at start with it, a screen
    /// broke): that pack is never activated again on this device, and the previous good pack (or
    /// the bundled strings) returns at once.
    @discardableResult
    public func markActivePackFailed() -> PackID? {
        lock.withLock {
            guard let bad = active[locale] else { return nil }
            var next = state
            next.failed.insert(bad.id.description)
            guard (try? storage.write(DeviceState.file, next.bytes)) != nil else { return nil }
            state = next
            let dir = "packs/\(locale)"
            active[locale] = nil
            try? storage.remove("\(dir)/active")
            for slot in ["previous", "pending"] where storage.exists("\(dir)/\(slot)") {
                if let candidate = verifiedSlot("\(dir)/\(slot)", locale: locale), (try? storage.rename("\(dir)/\(slot)", "\(dir)/active")) != nil {
                    active[locale] = candidate
                    break
                }
                try? storage.remove("\(dir)/\(slot)")
            }
            return bad.id
        }
    }

    /// Tests: how many more bytes the process may write before it "dies" (see DeviceStorage).
    var storageBudget: Int? {
        get { lock.withLock { storage.budget } }
        set { lock.withLock { storage.budget = newValue } }
    }

    // MARK: - Counters

    private func day() -> String { String(Timestamp(seconds: Int64(options.now().timeIntervalSince1970)).description.prefix(10)) }

    /// One app session with the current pack (call it once per launch or foreground session).
    public func recordSession() {
        lock.withLock { if let own = active[locale] { counters.session(pack: own.id, day: day()) } }
    }

    /// A crash the app's crash reporter attributes to this session.
    public func recordCrash() {
        lock.withLock { if let own = active[locale] { counters.crash(pack: own.id, day: day()) } }
    }

    /// The counters as a metrics CSV that `rollout metrics ingest --kind KIND` reads: a header and
    /// one row per day and pack (docs/metrics.md). Rows for the bundled strings are not written:
    /// there is no pack to attribute them to.
    public func metricsCSV(_ kind: MetricKind) -> String {
        lock.withLock { counters.csv(kind, region: region, appVersion: appVersionText) }
    }

    /// Forgets the counters (after they were exported).
    public func resetCounters() {
        lock.withLock { counters = Counters() }
    }
}

/// What the device remembers between launches, in `state.json`.
struct DeviceState: Equatable {
    static let file = "state.json"
    static let format = "rollout-device/1"

    /// The index sequence last accepted: an older index is a replay.
    var indexSequence = 0
    /// Each locale's chain from the last index, so a locale switched offline reads the right chain.
    var chains: [String: [String]] = [:]
    /// Content versions the manifests block, per locale: never used again, even offline.
    var blocked: [String: [Int]] = [:]
    /// Packs the app marked failed (`tr-TR@18`).
    var failed: Set<String> = []

    init() {}

    init?(_ bytes: [UInt8]?) {
        guard let bytes, let o = (try? StrictJSONParser.parse(bytes))?.objectValue, o["format"]?.stringValue == DeviceState.format,
            let sequence = o["indexSequence"]?.integerValue, let chains = o["chains"]?.objectValue, let blocked = o["blocked"]?.objectValue,
            let failed = o["failed"]?.arrayValue
        else { return nil }
        indexSequence = sequence
        self.chains = chains.mapValues { $0.arrayValue?.compactMap(\.stringValue) ?? [] }
        self.blocked = blocked.mapValues { $0.arrayValue?.compactMap(\.integerValue) ?? [] }
        self.failed = Set(failed.compactMap(\.stringValue))
    }

    var bytes: [UInt8] {
        JSONWriter.pretty([
            "format": .string(DeviceState.format), "indexSequence": .integer(indexSequence),
            "chains": .object(chains.mapValues { .array($0.map { .string($0) }) }),
            "blocked": .object(blocked.mapValues { .array($0.map { .integer($0) }) }),
            "failed": .array(failed.sorted().map { .string($0) }),
        ])
    }
}

/// Sessions, crashes, lookups and fallbacks per day and pack.
struct Counters {
    struct Key: Hashable, Comparable {
        let day: String
        let pack: PackID
        static func < (a: Key, b: Key) -> Bool { (a.day, a.pack) < (b.day, b.pack) }
    }

    private(set) var counts: [Key: [Int]] = [:]  // sessions, crashes, lookups, fallbacks

    mutating func session(pack: PackID, day: String) { counts[Key(day: day, pack: pack), default: [0, 0, 0, 0]][0] += 1 }
    mutating func crash(pack: PackID, day: String) { counts[Key(day: day, pack: pack), default: [0, 0, 0, 0]][1] += 1 }
    mutating func lookup(pack: PackID, day: String, fellBack: Bool) {
        counts[Key(day: day, pack: pack), default: [0, 0, 0, 0]][2] += 1
        if fellBack { counts[Key(day: day, pack: pack), default: [0, 0, 0, 0]][3] += 1 }
    }

    func csv(_ kind: MetricKind, region: String, appVersion: String) -> String {
        let (total, events) = kind.columns
        let (t, e) = kind == .crash ? (0, 1) : (2, 3)
        var text = "date,locale,pack,region,app_version,\(total),\(events)\n"
        for (key, values) in counts.sorted(by: { $0.key < $1.key }) where values[t] > 0 {
            text += "\(key.day),\(key.pack.locale),\(key.pack),\(region),\(appVersion),\(values[t]),\(min(values[e], values[t]))\n"
        }
        return text
    }
}
