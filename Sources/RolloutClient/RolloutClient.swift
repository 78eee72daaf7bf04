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
        case partial(staged: [PackID], dropped: [PackID], failures: [String])
        /// Nothing changed: the network, a time-out, a bad signature, a stale or replayed index or
        /// manifest. The current packs stay.
        case failed(String)
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
    let observers = Observers()
    private let bundled: BundledStrings
    let storage: DeviceStorage
    private let manifestURL: URL
    let signatureCheck: SignatureCheck
    let appVersionText: String
    private let appVersion: AppVersion?
    let region: String
    let options: Options
    public let installID: String

    // Guarded by `lock`; after changing `locale`, `state` or `active`, call `publish()` before
    // letting go of it.
    var locale: String
    var state: DeviceState
    var active: [String: LoadedPack] = [:]
    private var refreshing = false
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
            bundled: bundled, cacheDirectory: cacheDirectory, manifestURL: manifestURL, check: SignatureCheck(publicKey: publicKey),
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
        if let id = options.installID {
            installID = id
        } else if let stored = storage.read("install-id").map({ String(decoding: $0, as: UTF8.self) }), !stored.isEmpty {
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
        if !launchSession.rolledBack.isEmpty { announce([Change(reason: .rolledBack, packs: launchSession.rolledBack, locale: locale)]) }
    }

    // MARK: - Start-up

    /// A locale's packs at start: a pending pack becomes active now (this is the next launch), an
    /// active pack that no longer verifies gives way to the previous one, and anything blocked,
    /// failed, killed or damaged is deleted. A bad active pack is deleted before a pending one is
    /// promoted, so that it never becomes the "previous" (last good) pack.
    private func start(_ locale: String) {
        let dir = "packs/\(locale)"
        let current = verifiedSlot("\(dir)/active", locale: locale)
        if current == nil { try? storage.remove("\(dir)/active") }
        if let pending = committedPending(locale) {
            // Only a launch activates what a refresh staged: a client made to look at the cache
            // (`countsLaunch == false`, `rollout device status`) leaves it waiting.
            if options.countsLaunch, (try? promotePending(locale)) != nil {
                active[locale] = pending
                return
            }
        } else {
            try? storage.remove("\(dir)/pending")
        }
        if let current, storage.exists("\(dir)/active") {
            active[locale] = current
            return
        }
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

    /// The pending pack of `locale`, if it verifies and a refresh round committed it (a round
    /// killed before its commit leaves pending files that are never used).
    private func committedPending(_ locale: String) -> LoadedPack? {
        guard let pending = verifiedSlot("packs/\(locale)/pending", locale: locale) else { return nil }
        return lock.withLock { state.staged.contains(pending.id.description) } ? pending : nil
    }

    /// Writes the state with `change` applied, if that changes it, and keeps it in memory once it
    /// is on disk. Call with `lock` held.
    func save(_ change: (inout DeviceState) -> Void) throws {
        var next = state
        change(&next)
        guard next != state else { return }
        try storage.write(DeviceState.file, next.bytes)
        state = next
    }

    /// Publishes what `string(_:)` reads from the device's memory now. Call with `lock` held.
    func publish() {
        let chain = chain(for: locale)
        // Each locale's bundled table resolved once here (`en-US` reads `en.lproj`), not per lookup.
        var tables: [String: [String: String]] = [:]
        for name in chain + [options.defaultLocale] { tables[name] = bundled.table(for: name) }
        snapshot.replace(
            LookupSnapshot(
                locale: locale, chain: chain, active: active.mapValues { $0.shown(state.bundleOnly[$0.pack.locale]) }, bundled: tables))
    }

    /// The slot at `name`, if every check passes: the manifest's signature (`SignatureCheck.vouch`,
    /// against the key list the device holds), the pack's digest and
    /// size as that manifest lists them, strict parsing, the checksum, locale, a schema this app
    /// understands, its minAppVersion, and neither blocked nor marked failed on this device.
    func verifiedSlot(_ name: String, locale: String) -> LoadedPack? {
        guard let bytes = storage.read(name), let slot = PackSlot(bytes) else { return nil }
        return try? verify(slot, locale: locale)
    }

    private func verify(_ slot: PackSlot, locale: String) throws -> LoadedPack {
        try signatureCheck.vouch(
            slot.manifest, signature: slot.signature, path: SiteLayout.manifest(locale), held: lock.withLock { state.keyList }, now: nil)
        let manifest = try LocaleManifest.parse(slot.manifest, source: "manifests/\(locale).json")
        guard manifest.locale == locale else { throw TransportError("the manifest is for \(manifest.locale), not \(locale)") }
        let digest = SHA256.hex(slot.pack)
        guard let (version, entry) = manifest.packs.first(where: { $0.value.sha256 == digest }), entry.bytes == slot.pack.count else {
            throw TransportError("\(locale): the pack is not the one its manifest lists")
        }
        let pack = try check(slot.pack, entry: entry, locale: locale, version: version)
        if manifest.plan.isBlocked(version) { throw TransportError("\(locale)@\(version) is blocked") }
        return LoadedPack(pack: pack, bundleOnly: manifest.bundleOnly)
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
        let refused = lock.withLock {
            state.blocked[locale, default: []].contains(version) || state.failed.contains(pack.id.description) || state.killed.contains(locale)
        }
        if refused { throw TransportError("\(pack.id) is blocked, failed or under its locale's kill switch on this device") }
        return pack
    }

    // MARK: - Strings

    /// The locales a key is looked up in, in order, before the default locale's bundled strings:
    /// the device's own locale first, then the chain the last index gives it (`SiteIndex.chain(for:)`,
    /// docs/manifest.md "The chain of a device"), or until the first refresh, its language and the
    /// default. The own locale comes first even when the index does not list it, so that an app
    /// that bundles a language the site does not publish shows it before another language's pack.
    func chain(for locale: String) -> [String] {
        var chain: [String]
        if state.indexSequence > 0 || !state.chains.isEmpty {
            chain = SiteIndex.chain(
                for: locale, chains: state.chains, fallbackChains: state.fallbackChains,
                defaultLocale: state.defaultLocale ?? options.defaultLocale)
        } else {
            chain = [locale]
            chain += (try? LocaleTag.parse(locale))?.truncationParents ?? []
            chain.append(options.defaultLocale)
        }
        chain.removeAll { $0 == locale }
        return [locale] + chain.reduce(into: [String]()) { kept, next in if !kept.contains(next) { kept.append(next) } }
    }

    /// The text for `key`: for each locale of the chain, its active pack and then the app's
    /// bundled strings of that same locale, before the next locale; then the default locale's
    /// bundled strings; then `fallback`. So a screen stays in one language while the app bundles
    /// it. Never empty and never the key: a key the app does not bundle at all and has no fallback
    /// for shows "…". Reads one immutable snapshot: never waits on disk, network or a refresh.
    public func string(_ key: String, _ arguments: [String: String] = [:], fallback: String? = nil) -> String {
        let view = snapshot.current
        var found: String?
        var fromOwnPack = false
        for candidate in view.chain {
            if let value = view.packs[candidate]?[key], !value.isEmpty {
                found = value
                fromOwnPack = candidate == view.locale
                break
            }
            if let value = view.bundled[candidate]?[key], !value.isEmpty {
                found = value
                break
            }
        }
        if found == nil, let value = view.bundled[options.defaultLocale]?[key], !value.isEmpty { found = value }
        // A fallback is any text that did not come from the own locale's pack, the own locale's
        // bundled text included: the counter measures the pack (docs/client.md, Counters).
        if let own = view.ownPack { countLookup(own, fellBack: !fromOwnPack) }
        let text = found ?? fallback.flatMap { $0.isEmpty ? nil : $0 } ?? "…"
        let formatted = MessageFormat.format(text, arguments, language: view.language)
        return formatted.isEmpty ? text : formatted
    }

    /// Switches the device's locale; the next `string` reads the new chain. A refresh fetches the
    /// new locale's packs.
    public func setLocale(_ newLocale: String) {
        let changed = lock.withLock { () -> Bool in
            guard newLocale != locale else { return false }
            locale = newLocale
            publish()
            return true
        }
        if changed { announce([Change(reason: .localeChanged, packs: [], locale: newLocale)]) }
    }

    public var currentLocale: String { snapshot.current.locale }

    /// The active pack of each locale that has one.
    public var activePacks: [PackID] { snapshot.current.activePacks.values.sorted() }

    /// The pack in use for the device's own locale, if any (nil: bundled strings).
    public var activePack: PackID? { snapshot.current.ownPack }

    /// Packs a refresh round verified and committed, waiting for `activatePending()`.
    public var pendingPacks: [PackID] {
        storage.children("packs").compactMap { committedPending($0)?.id }.sorted()
    }

    // MARK: - Refresh

    /// Fetches the index and the manifests of the device's chain, verifies them, resolves each
    /// locale's plan for this device and downloads what it resolves to into the pending slots: one
    /// round that stages every new pack or none (docs/client.md, Refresh). Blocked packs, and packs
    /// of a locale the device should no longer get anything from, are dropped at once, from memory
    /// and from the cache, as soon as the index and every manifest verify. Within
    /// `Options.minimumRefreshInterval` of the last round, returns `.tooSoon` without a request,
    /// unless `force`. Never throws; an index or manifest that fails changes nothing.
    @discardableResult
    public func refresh(force: Bool = false) async -> RefreshResult {
        let now = options.now()
        enum Begin { case busy, tooSoon(TimeInterval), go(locale: String, lastSequence: Int) }
        let begin = lock.withLock { () -> Begin in
            if refreshing { return .busy }
            if !force, let last = state.lastRefresh {
                // A clock set back makes the interval over: the device would otherwise wait for it.
                let elapsed = now.timeIntervalSince1970 - TimeInterval(last)
                if elapsed >= 0 && elapsed < options.minimumRefreshInterval { return .tooSoon(options.minimumRefreshInterval - elapsed) }
            }
            refreshing = true
            return .go(locale: locale, lastSequence: state.indexSequence)
        }
        switch begin {
        case .busy: return .busy
        case .tooSoon(let wait): return .tooSoon(retryAfter: wait)
        case .go(let locale, let lastSequence):
            var changes: [Change] = []
            // Announced after `refreshing` is cleared (defers run last first): an observer that
            // refreshes again on a change is not told `.busy`.
            defer { announce(changes) }
            defer { lock.withLock { refreshing = false } }
            do {
                return try await refresh(locale: locale, lastSequence: lastSequence, at: now, changes: &changes)
            } catch {
                return .failed(String(describing: error))
            }
        }
    }

    private func fetch(_ url: URL) async throws -> [UInt8] {
        if let why = refusal(of: url) { throw TransportError(why) }
        let transport = options.transport
        return [UInt8](try await withTimeout(options.timeout) { try await transport.fetch(url) })
    }

    private func siteURL(_ path: String) -> URL { manifestURL.deletingLastPathComponent().appendingPathComponent(path) }

    private struct FetchedManifest {
        let locale: String
        let bytes: [UInt8]
        let signature: [UInt8]
        let manifest: LocaleManifest
        let outcome: Resolution.Outcome
    }

    /// The slots of a manifest's locale it forbids: every slot of a locale under its kill switch,
    /// a blocked (or unreadable) pack in any slot, and the active pack of a locale that gives this
    /// device nothing (an app too old for every pack). A pending pack the plan has moved past is
    /// not forbidden: it belongs to an earlier committed round, and only this round's commit
    /// replaces it (a round that fails leaves the earlier one whole).
    private func forbiddenSlots(_ item: FetchedManifest) -> [(locale: String, slot: String, id: PackID?)] {
        ["previous", "pending", "active"].compactMap { slot in
            let name = "packs/\(item.locale)/\(slot)"
            guard storage.exists(name) else { return nil }
            let id = storedID(name)
            let blocked = id.map { item.manifest.plan.isBlocked($0.contentVersion) } ?? true
            let gone: Bool
            switch slot {
            case "active": gone = item.outcome == .bundled
            case "pending": gone = id == nil
            default: gone = false
            }
            return blocked || item.manifest.plan.bundledOnly || gone ? (item.locale, slot, id) : nil
        }
    }

    /// The site's files, signed: its bytes and those of its `.sigs`.
    private func signedFile(_ path: String) async throws -> SignedFile {
        let bytes = try await fetch(siteURL(path))
        return SignedFile(path: path, bytes: bytes, signatures: try await fetch(siteURL(SiteLayout.signatures(of: path))))
    }

    /// A refresh's first step on a key list (docs/client.md, "Keys and expiry"): `keys.json`, and
    /// the root-change lists it takes to get there from the roots this device trusts, accepted by
    /// `KeyChain.accept`. A newer list is saved at once, so that its revocations hold even if the
    /// site then fails, and the cached slots it no longer vouches for are deleted (the active
    /// packs among them are returned); a locale whose active pack went falls back on its previous
    /// one, as at start-up. A process killed between the writes finds the slots refused at its
    /// next start, by the list it saved.
    private func acceptKeyList(roots: KeyList.Roots, minimumVersion: Int) async throws -> (list: KeyList, dropped: [PackID]) {
        let (held, anchoredTo) = lock.withLock { (state.keyList, state.anchoredTo) }
        let anchor = KeyChain.Anchor(roots: roots, list: held, minimumVersion: minimumVersion, anchoredTo: anchoredTo)
        let latest = try await signedFile(SiteLayout.keys)
        var rotations: [Int: SignedFile] = [:]
        // A root change the site lacks is left out: the check then says which roots did not sign
        // (docs/conformance.md, trust.json), as for a device that cannot walk to the new root.
        for version in KeyChain.rotationsNeeded(latest, anchor: anchor) {
            rotations[version] = try? await signedFile(SiteLayout.keys(version: version))
        }
        let list = try KeyChain.accept(latest, rotations: rotations, anchor: anchor)
        guard list != held else {
            // The held list, checked again under the roots this app built in (an app update changed
            // them): recorded, so the next refresh trusts the list's roots without walking again.
            if anchoredTo != roots { try lock.withLock { try save { $0.anchoredTo = roots } } }
            return (list, [])
        }
        let dropped = try lock.withLock { () throws -> [PackID] in
            try save {
                $0.keyList = list
                $0.anchoredTo = roots
            }
            // Out of use first, then off the disk: a removal that fails leaves a file the next start
            // refuses, never a pack in memory that the saved list no longer vouches for.
            var dropped: [PackID] = []
            var unvouched: [String] = []
            for locale in storage.children("packs") {
                for slot in ["previous", "pending", "active"] {
                    let name = "packs/\(locale)/\(slot)"
                    guard let bytes = storage.read(name) else { continue }
                    let vouched = PackSlot(bytes).map { cached in
                        (try? signatureCheck.vouch(cached.manifest, signature: cached.signature, path: SiteLayout.manifest(locale), held: list, now: nil)) != nil
                    }
                    if vouched == true { continue }
                    unvouched.append(name)
                    if slot == "active", let pack = active.removeValue(forKey: locale) { dropped.append(pack.id) }
                }
            }
            defer { publish() }
            for name in unvouched { try storage.remove(name) }
            for locale in storage.children("packs") {
                let dir = "packs/\(locale)"
                if !storage.exists("\(dir)/active"), let previous = verifiedSlot("\(dir)/previous", locale: locale) {
                    try storage.rename("\(dir)/previous", "\(dir)/active")
                    active[locale] = previous
                }
            }
            return dropped
        }
        return (list, dropped)
    }

    private func refresh(locale: String, lastSequence: Int, at now: Date, changes: inout [Change]) async throws -> RefreshResult {
        let time = Timestamp(seconds: Int64(now.timeIntervalSince1970.rounded(.down)))
        var list: KeyList?
        var unvouched: [PackID] = []
        switch signatureCheck {
        case .unusable(let why): throw TransportError(why)
        case .pinned: break
        case .roots(let roots, _, let minimumKeysVersion):
            (list, unvouched) = try await acceptKeyList(roots: roots, minimumVersion: minimumKeysVersion)
            if !unvouched.isEmpty { changes.append(Change(reason: .dropped, packs: unvouched, locale: locale)) }
        }
        let indexBytes = try await fetch(manifestURL)
        let indexSignature = try await fetch(
            manifestURL.deletingLastPathComponent().appendingPathComponent(signatureCheck.signatureFile(of: manifestURL.lastPathComponent)))
        try signatureCheck.vouch(indexBytes, signature: indexSignature, path: SiteLayout.index, held: list, now: time)
        let index = try SiteIndex.parse(indexBytes, source: SiteLayout.index)
        // An expired index changes nothing: the device keeps what it has, and its status says stale.
        try KeyChain.checkIndex(
            index, now: time, accepted: lastSequence, builtInMinimum: options.minimumIndexSequence, requireExpiry: signatureCheck.usesKeyList)
        let chain = index.chain(for: locale)

        // Every manifest of the chain first: a refresh acts on one consistent publish or not at all.
        var manifests: [FetchedManifest] = []
        for name in chain {
            guard let entry = index.locales[name], entry.manifest == SiteLayout.manifest(name) else {
                throw TransportError("index.json: the chain of \(locale) names \(name), which it does not list")
            }
            let bytes = try await fetch(siteURL(entry.manifest))
            let signature = try await fetch(siteURL(signatureCheck.signatureFile(of: entry.manifest)))
            try signatureCheck.vouch(bytes, signature: signature, path: entry.manifest, held: list, now: time)
            let manifest = try LocaleManifest.parse(bytes, source: entry.manifest)
            guard manifest.locale == name, manifest.sequence == entry.sequence else {
                throw TransportError("\(entry.manifest): sequence \(manifest.sequence) for \(manifest.locale), the index says \(entry.sequence) for \(name) (a cache mixed two publishes)")
            }
            let outcome = Resolution.outcome(manifest.plan, region: region, appVersion: appVersion, installID: installID)
            manifests.append(FetchedManifest(locale: name, bytes: bytes, signature: signature, manifest: manifest, outcome: outcome))
        }

        // 1. What the verified index and manifests say takes effect now, even if a download below
        // fails: the sequence, the chains, the blocks and kill switches, and away with the packs
        // they forbid.
        let forbidden = try lock.withLock { () throws -> [PackID] in
            guard state.indexSequence <= index.sequence else { throw TransportError("a newer index was accepted meanwhile") }
            let removals = manifests.flatMap(forbiddenSlots)
            try save { next in
                next.indexSequence = index.sequence
                next.indexExpires = index.expires
                next.chains = index.locales.mapValues(\.chain)
                next.fallbackChains = index.locales.compactMapValues(\.fallbackChain)
                next.defaultLocale = index.defaultLocale
                next.lastRefresh = Int64(now.timeIntervalSince1970.rounded(.down))
                next.staged.subtract(removals.filter { $0.slot == "pending" }.compactMap { $0.id?.description })
                for item in manifests {
                    next.blocked[item.locale] = item.manifest.plan.blocked.sorted()
                    next.bundleOnly[item.locale] = item.manifest.bundleOnly.isEmpty ? nil : item.manifest.bundleOnly.spellings
                    if item.manifest.plan.bundledOnly { next.killed.insert(item.locale) } else { next.killed.remove(item.locale) }
                }
            }
            for removal in removals {
                try storage.remove("packs/\(removal.locale)/\(removal.slot)")
                if removal.slot == "active" { active[removal.locale] = nil }
            }
            publish()
            return removals.filter { $0.slot == "active" }.compactMap(\.id)
        }
        if !forbidden.isEmpty { changes.append(Change(reason: .dropped, packs: forbidden, locale: locale)) }
        let dropped = unvouched + forbidden

        // 2. The packs the plans give this device, all downloaded and verified before any is staged.
        var ready: [(locale: String, slot: PackSlot, pack: LoadedPack)] = []
        var failures: [String] = []
        for item in manifests {
            guard case .pack(let version) = item.outcome else { continue }
            let id = PackID(locale: item.locale, contentVersion: version)
            let (have, failed) = lock.withLock { (active[item.locale]?.id, state.failed.contains(id.description)) }
            if have == id || failed { continue }
            if let pending = committedPending(item.locale), pending.id == id { continue }
            do {
                // Back to the pack it had before (a revert): it is in the cache, verified by the
                // signed manifest that delivered it.
                if let bytes = storage.read("packs/\(item.locale)/previous"), let slot = PackSlot(bytes), let cached = try? verify(slot, locale: item.locale), cached.id == id {
                    ready.append((item.locale, slot, cached))
                    continue
                }
                // `entry.url` is the one form LocaleManifest.parse accepts (SiteLayout.isSafePackURL).
                guard let entry = item.manifest.packs[version] else { throw TransportError("\(item.locale): the plan gives \(id), the manifest does not list it") }
                let bytes = try await fetch(siteURL(entry.url))
                let slot = PackSlot(manifest: item.bytes, signature: item.signature, pack: bytes)
                let pack = try verify(slot, locale: item.locale)
                guard pack.id == id else { throw TransportError("\(entry.url) holds \(pack.id), not \(id)") }
                ready.append((item.locale, slot, pack))
            } catch {
                failures.append("\(id): \(error)")
            }
        }
        if !failures.isEmpty {
            return .partial(staged: [], dropped: dropped, failures: failures + ready.map { "\($0.pack.id): not staged, another pack of the round failed" })
        }

        // 3. The commit: every pending file written, then the state that lists them. A process
        // killed before the state is written leaves pending files no start or activation uses.
        // A pending pack of an earlier round that this round's plan moved past (another version, the
        // active one, or nothing) goes in the same commit.
        let superseded = manifests.compactMap { item -> PackID? in
            guard let old = storedID("packs/\(item.locale)/pending") else { return nil }
            if ready.contains(where: { $0.locale == item.locale }) { return old }
            let keep = item.outcome == .pack(old.contentVersion) && lock.withLock { active[item.locale]?.id != old }
            return keep ? nil : old
        }
        var stagingFailure: String?
        let activated = try lock.withLock { () throws -> [PackID] in
            do {
                for item in ready { try storage.write("packs/\(item.locale)/pending", item.slot.bytes) }
                for old in superseded where !ready.contains(where: { $0.locale == old.locale }) { try storage.remove("packs/\(old.locale)/pending") }
                try save {
                    $0.staged.subtract(superseded.map(\.description))
                    $0.staged.formUnion(ready.map(\.pack.id.description))
                }
            } catch let crash as DeviceStorage.SimulatedCrash {
                throw crash
            } catch {
                // The index and manifests took effect in step 1; only the packs did not.
                stagingFailure = "the packs could not be staged: \(error)"
                return []
            }
            // A locale whose active pack was just taken away has nothing on screen to keep
            // consistent: its replacement becomes active now.
            var activated: [PackID] = []
            for item in ready where active[item.locale] == nil && dropped.contains(where: { $0.locale == item.locale }) {
                try promotePending(item.locale)
                try save { $0.staged.remove(item.pack.id.description) }
                active[item.locale] = item.pack
                activated.append(item.pack.id)
            }
            publish()
            return activated
        }
        if let stagingFailure { return .partial(staged: [], dropped: dropped, failures: [stagingFailure]) }
        if !activated.isEmpty { changes.append(Change(reason: .activated, packs: activated, locale: locale)) }
        let ids = ready.map(\.pack.id)
        return ids.isEmpty ? .upToDate(dropped: dropped) : .staged(staged: ids, dropped: dropped)
    }

    // MARK: - Activation and device-side rollback

    /// Makes every pending pack a refresh round committed active. Call it at a safe moment (a new
    /// screen, the app coming to the foreground); a pending pack also becomes active at the next
    /// start. Returns the packs that became active.
    @discardableResult
    public func activatePending() -> [PackID] {
        // Verified outside the lock: the checks are the slow part.
        var ready: [(locale: String, bytes: [UInt8], pack: LoadedPack)] = []
        for locale in storage.children("packs") {
            let name = "packs/\(locale)/pending"
            guard let bytes = storage.read(name) else { continue }
            let verified = PackSlot(bytes).flatMap { try? verify($0, locale: locale) }
            if let pack = verified, lock.withLock({ state.staged.contains(pack.id.description) }) {
                ready.append((locale, bytes, pack))
            } else {
                // Removed only if still the file read above, and still not committed: a refresh may
                // have written and committed this slot meanwhile.
                lock.withLock {
                    guard storage.read(name) == bytes else { return }
                    if let pack = verified, state.staged.contains(pack.id.description) { return }
                    _ = try? storage.remove(name)
                }
            }
        }
        let activated = lock.withLock { () -> [PackID] in
            var activated: [PackID] = []
            for item in ready where storage.read("packs/\(item.locale)/pending") == item.bytes {
                guard (try? promotePending(item.locale)) != nil else { continue }
                active[item.locale] = item.pack
                activated.append(item.pack.id)
            }
            // The counts so far are written with it (docs/client.md#counters).
            saveState { $0.staged.subtract(activated.map(\.description)) }
            publish()
            return activated.sorted()
        }
        if !activated.isEmpty { announce([Change(reason: .activated, packs: activated, locale: currentLocale)]) }
        return activated
    }

    /// The app says the active pack of its locale is bad (it crashed at start with it, a screen
    /// broke): that pack is never activated again on this device, and the previous good pack (or
    /// the bundled strings) returns at once.
    @discardableResult
    public func markActivePackFailed() -> PackID? {
        let bad = lock.withLock { () -> (PackID, String)? in
            guard let bad = active[locale] else { return nil }
            guard (try? save({ $0.failed.insert(bad.id.description) })) != nil else { return nil }
            let dir = "packs/\(locale)"
            active[locale] = nil
            try? storage.remove("\(dir)/active")
            for slot in ["previous", "pending"] where storage.exists("\(dir)/\(slot)") {
                if let candidate = slot == "pending" ? committedPending(locale) : verifiedSlot("\(dir)/\(slot)", locale: locale),
                    (try? storage.rename("\(dir)/\(slot)", "\(dir)/active")) != nil
                {
                    active[locale] = candidate
                    break
                }
                try? storage.remove("\(dir)/\(slot)")
            }
            publish()
            return (bad.id, locale)
        }
        guard let (id, locale) = bad else { return nil }
        announce([Change(reason: .rolledBack, packs: [id], locale: locale)])
        return id
    }

    /// Tests: how many more bytes the process may write before it "dies" (see DeviceStorage).
    var storageBudget: Int? {
        get { lock.withLock { storage.budget } }
        set { lock.withLock { storage.budget = newValue } }
    }

    /// The id of the pack stored in a slot, read without verifying it (start-up and refresh do that).
    func storedID(_ name: String) -> PackID? {
        guard let bytes = storage.read(name), let slot = PackSlot(bytes) else { return nil }
        return (try? PackParser.parse(slot.pack, source: name, maximumBytes: Int.max, verifyChecksum: false))?.pack.id
    }
}
