import RolloutCrypto
import RolloutModel

/// What the device remembers between launches, in `state.json`.
struct DeviceState: Equatable {
    static let file = "state.json"
    static let format = "rollout-device/1"

    /// The index sequence last accepted: an older index is a replay.
    var indexSequence = 0
    /// Each locale's chain from the last index, so a locale switched offline reads the right chain.
    var chains: [String: [String]] = [:]
    /// The chains of kill-switched locales as if the switch were off, and the index's default
    /// locale: what `SiteIndex.chain(for:)` needs for a locale the index does not list.
    var fallbackChains: [String: [String]] = [:]
    var defaultLocale: String?
    /// Content versions the manifests block, per locale: never used again, even offline.
    var blocked: [String: [Int]] = [:]
    /// Packs the app marked failed (`tr-TR@18`).
    var failed: Set<String> = []
    /// Locales whose kill switch was on in the last manifest seen: nothing of theirs is used.
    var killed: Set<String> = []
    /// When the last refresh round whose index and manifests verified began (UTC seconds): the
    /// minimum refresh interval holds across launches.
    var lastRefresh: Int64?
    /// The pending packs a refresh round committed (`tr-TR@18`): a pending file not listed here is
    /// what a killed round left half-staged, and is never activated (docs/client.md, Refresh).
    var staged: Set<String> = []
    /// Each locale's bundle-only key patterns from the last manifest seen: a cached pack that
    /// came with an older manifest never shows those keys either.
    var bundleOnly: [String: [String]] = [:]
    /// Counts not exported yet (docs/client.md#counters).
    var counters = Counters()
    /// The experiment variant the own locale's last verified manifest puts the device in (nil: none).
    var experiment: ExperimentAssignment?
    /// Exposures and conversions not exported yet, and the session's memory of them.
    var outcomes = Outcomes()
    /// The crash-loop guard's memory (docs/client.md#activation-and-rollback-on-the-device).
    var launch = LaunchState()
    /// The newest key list the device accepted (docs/client.md, "Keys and expiry"): the roots it
    /// trusts next, the publishing keys that vouch for its packs, the revocations it saw. Kept as
    /// the list's canonical JSON and parsed again on load; one that does not parse is none.
    var keyList: KeyList?
    /// The roots the app built in when it accepted `keyList`: an app update that builds in other
    /// roots (after a root leak) trusts its own again, not the ones the device learnt (nil: not
    /// recorded, by an app before this field; the list's roots count).
    var anchoredTo: KeyList.Roots?
    /// When the accepted index expires: past it, the device is stale (its packs stay).
    var indexExpires: Timestamp?

    init() {}

    init?(_ bytes: [UInt8]?) {
        guard let bytes, let o = (try? StrictJSONParser.parse(bytes))?.objectValue,
            o["format"]?.stringValue == DeviceState.format,
            let sequence = o["indexSequence"]?.integerValue, let chains = o["chains"]?.objectValue,
            let blocked = o["blocked"]?.objectValue,
            let failed = o["failed"]?.arrayValue
        else { return nil }
        indexSequence = sequence
        self.chains = chains.mapValues { $0.arrayValue?.compactMap(\.stringValue) ?? [] }
        self.blocked = blocked.mapValues { $0.arrayValue?.compactMap(\.integerValue) ?? [] }
        self.failed = Set(failed.compactMap(\.stringValue))
        killed = Set(o["killed"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        lastRefresh = o["lastRefresh"]?.integerValue.map(Int64.init)
        staged = Set(o["staged"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        fallbackChains =
            o["fallbackChains"]?.objectValue?.mapValues { $0.arrayValue?.compactMap(\.stringValue) ?? [] } ?? [:]
        defaultLocale = o["defaultLocale"]?.stringValue
        bundleOnly = o["bundleOnly"]?.objectValue?.mapValues { $0.arrayValue?.compactMap(\.stringValue) ?? [] } ?? [:]
        // Absent in a state written before they existed: no counts, the guard not armed yet.
        counters = Counters(json: o["counters"])
        launch = LaunchState(json: o["launch"])
        experiment = ExperimentAssignment(json: o["experiment"])
        outcomes = Outcomes(rows: o["outcomes"], session: o["outcomeSession"])
        keyList = o["keyList"]?.stringValue.flatMap { try? KeyList.parse(Array($0.utf8), source: "state.json keyList") }
        indexExpires = o["indexExpires"]?.stringValue.flatMap(Timestamp.init(iso8601:))
        anchoredTo = o["anchoredTo"].flatMap(DeviceState.roots)
    }

    /// `{"threshold": n, "keys": {id: "ed25519:..."}}`, as a key list writes its roots; nil when a
    /// key does not parse or is filed under another id.
    static func roots(_ json: JSONValue) -> KeyList.Roots? {
        guard let o = json.objectValue, let threshold = o["threshold"]?.integerValue, let keys = o["keys"]?.objectValue
        else { return nil }
        var parsed: [Ed25519.PublicKey] = []
        for (id, text) in keys {
            guard let key = text.stringValue.flatMap(Ed25519.PublicKey.init), key.keyID == id else { return nil }
            parsed.append(key)
        }
        return KeyList.Roots(keys: parsed, threshold: threshold)
    }

    static func json(_ roots: KeyList.Roots) -> JSONValue {
        .object([
            "threshold": .integer(roots.threshold), "keys": .object(roots.keys.mapValues { .string($0.description) }),
        ])
    }

    var bytes: [UInt8] {
        var members: [String: JSONValue] = [
            "format": .string(DeviceState.format), "indexSequence": .integer(indexSequence),
            "chains": .object(chains.mapValues { .array($0.map { .string($0) }) }),
            "blocked": .object(blocked.mapValues { .array($0.map { .integer($0) }) }),
            "failed": .array(failed.sorted().map { .string($0) }),
            "killed": .array(killed.sorted().map { .string($0) }),
            "staged": .array(staged.sorted().map { .string($0) }),
            "counters": counters.json, "launch": launch.json,
        ]
        if !fallbackChains.isEmpty {
            members["fallbackChains"] = .object(fallbackChains.mapValues { .array($0.map { .string($0) }) })
        }
        if let defaultLocale { members["defaultLocale"] = .string(defaultLocale) }
        if let lastRefresh { members["lastRefresh"] = .integer(Int(lastRefresh)) }
        if let keyList { members["keyList"] = .string(String(decoding: keyList.bytes, as: UTF8.self)) }
        if let anchoredTo { members["anchoredTo"] = DeviceState.json(anchoredTo) }
        // Absent without an experiment, so a device that never saw one writes what it always wrote.
        if let experiment { members["experiment"] = experiment.json }
        if !outcomes.rows.isEmpty { members["outcomes"] = outcomes.rowsJSON }
        if let session = outcomes.sessionJSON { members["outcomeSession"] = session }
        if let indexExpires { members["indexExpires"] = .string(indexExpires.description) }
        if !bundleOnly.isEmpty {
            members["bundleOnly"] = .object(bundleOnly.mapValues { .array($0.map { .string($0) }) })
        }
        return JSONWriter.pretty(.object(members))
    }
}
