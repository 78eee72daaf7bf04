import RolloutCrypto

/// Why a device refuses a key list, an index or a manifest (docs/keys.md, "What a device checks").
/// `code` is the stable name the conformance vectors use; `description` the sentence a person reads.
public enum TrustFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// A file, or its signatures, could not be read as its format.
    case damaged(file: String, why: String)
    /// Fewer of the roots this device trusts signed the key list than its threshold.
    case rootsDidNotSign(file: String, signed: [String], threshold: Int, roots: [String])
    /// The key list is not signed by enough of the roots it lists itself.
    case ownRootsDidNotSign(file: String, signed: [String], threshold: Int)
    /// A key list older than the one the device holds: a replay.
    case keysReplayed(file: String, version: Int, held: Int)
    /// A key list older than the minimum built into the app: an old list shown to a fresh install.
    case keysBelowMinimum(file: String, version: Int, minimum: Int)
    /// Root keys that differ from the list before, or root changes rewritten, without the version
    /// recorded in `rootChanges`: devices with older roots could never walk to it.
    case rootChangeUnrecorded(file: String, version: Int, since: Int)
    /// Another key list with the version the device holds.
    case keysConflict(file: String, version: Int)
    /// A newer key list that no longer revokes a key an earlier one revoked.
    case revocationDropped(file: String, keyID: String)
    /// Signed by a key the device's key list revoked.
    case revokedKey(file: String, keyID: String, reason: String)
    /// Signed by a publishing key past its expiry.
    case expiredKey(file: String, keyID: String, expires: Timestamp)
    /// Signed by a key of another role (a root key signing an index, a publishing key a key list).
    case wrongRole(file: String, keyID: String, role: String)
    /// No signature by a key the key list names (or only signatures that do not verify).
    case unknownKey(file: String, keyIDs: [String])
    /// The index is past its `expires`.
    case indexExpired(expires: Timestamp, now: Timestamp)
    /// The index has no `expires`, which a device on a key list requires.
    case indexWithoutExpiry
    /// An index older than the newest the device accepted, or than the app's built-in minimum.
    case sequenceTooOld(sequence: Int, minimum: Int, builtIn: Bool)

    public var code: String {
        switch self {
        case .damaged: return "damaged"
        case .rootsDidNotSign: return "not-signed-by-trusted-roots"
        case .ownRootsDidNotSign: return "not-signed-by-own-roots"
        case .keysReplayed: return "keys-replayed"
        case .keysBelowMinimum: return "below-minimum-keys-version"
        case .rootChangeUnrecorded: return "root-change-unrecorded"
        case .keysConflict: return "keys-conflict"
        case .revocationDropped: return "revocation-dropped"
        case .revokedKey: return "revoked-key"
        case .expiredKey: return "expired-key"
        case .wrongRole: return "wrong-role"
        case .unknownKey: return "unknown-key"
        case .indexExpired: return "index-expired"
        case .indexWithoutExpiry: return "index-without-expiry"
        case .sequenceTooOld(_, _, let builtIn): return builtIn ? "below-minimum-sequence" : "index-replayed"
        }
    }

    public var description: String {
        func ids(_ list: [String]) -> String { list.isEmpty ? "none" : list.joined(separator: ", ") }
        switch self {
        case .damaged(let file, let why): return "\(file): \(why)"
        case .rootsDidNotSign(let file, let signed, let threshold, let roots):
            return "\(file): signed by \(signed.count) of the root keys this device trusts (\(ids(roots))), "
                + "\(threshold) needed: not a key list from this app's owners"
        case .ownRootsDidNotSign(let file, let signed, let threshold):
            return "\(file): signed by \(signed.count) of the root keys it lists, \(threshold) needed"
        case .keysReplayed(let file, let version, let held):
            return "\(file): version \(version) is older than version \(held), "
                + "which this device already accepted: a replayed key list"
        case .keysBelowMinimum(let file, let version, let minimum):
            return "\(file): version \(version) is older than version \(minimum), the minimum built into this app: "
                + "an old key list, from before a revocation perhaps"
        case .rootChangeUnrecorded(let file, let version, let since):
            return
                "\(file): version \(version) changes the root keys of version \(since), or rewrites its rootChanges, "
                + "without recording the change in rootChanges: devices built with older roots could never reach it"
        case .keysConflict(let file, let version):
            return "\(file): another key list with version \(version), the one this device holds: "
                + "the root keys signed two lists with one version"
        case .revocationDropped(let file, let keyID):
            return "\(file): no longer revokes \(keyID), which an earlier key list revoked; a revocation is for good"
        case .revokedKey(let file, let keyID, let reason):
            return "\(file): signed by \(keyID), a revoked publishing key\(reason.isEmpty ? "" : " (\(reason))")"
        case .expiredKey(let file, let keyID, let expires):
            return "\(file): signed by publishing key \(keyID), which expired at \(expires)"
        case .wrongRole(let file, let keyID, let role):
            return "\(file): signed by \(keyID), a \(role) key, which may not sign this file"
        case .unknownKey(let file, let keyIDs):
            return "\(file): no valid signature by a publishing key of the key list (signed by \(ids(keyIDs))): "
                + "the file or its signatures were changed, or another key signed it"
        case .indexExpired(let expires, let now):
            return "index.json: expired at \(expires) (now \(now)): a frozen or replayed site"
        case .indexWithoutExpiry:
            return "index.json: has no \"expires\"; a device on a key list accepts only an index that expires"
        case .sequenceTooOld(let sequence, let minimum, let builtIn):
            let older = "index.json: sequence \(sequence) is older than \(minimum)"
            return builtIn
                ? "\(older), the minimum built into this app: an old copy of the site"
                : "\(older), already accepted: a stale cache or a replay"
        }
    }
}

/// A site file as fetched: its bytes and the bytes of its `.sigs`.
public struct SignedFile: Equatable, Sendable {
    public let path: String
    public let bytes: [UInt8]
    public let signatures: [UInt8]

    public init(path: String, bytes: [UInt8], signatures: [UInt8]) {
        self.path = path
        self.bytes = bytes
        self.signatures = signatures
    }
}

/// The one implementation of what a device trusts (docs/keys.md, "What a device checks"): the
/// client and `rollout verify-site` both call it.
public enum KeyChain {
    /// What a device trusts before it reads a site (docs/keys.md, "What a device checks"): the
    /// roots a key list must be signed by, the newest list it accepted, and the oldest list version
    /// the app accepts at all.
    public struct Anchor: Equatable, Sendable {
        /// The held list's roots; the roots built into the app when it holds no list, or when an
        /// app update changed the built-in roots since the list was accepted (`anchoredTo`): a team
        /// that ships new roots after a root leak means them to count, not the leaked ones the
        /// device learnt before.
        public var roots: KeyList.Roots
        public var list: KeyList?
        /// The key list version current when the app was built (`Trust.minimumKeysVersion`): a fresh
        /// install refuses an older list, such as one from before a revocation.
        public var minimumVersion: Int
        /// True when `roots` are the built-in ones although the device holds a list: they may be older
        /// than the held list's (an update to an app built before a later root change) or newer (new
        /// roots after a leak), so root changes are walked from version 1, and the held list counts
        /// only if they reach it.
        public var rootsBuiltIn: Bool

        /// `anchoredTo`: the built-in roots of the app that accepted `list` (nil: not recorded, the
        /// list's roots count).
        public init(
            roots builtIn: KeyList.Roots, list: KeyList?, minimumVersion: Int = 0, anchoredTo: KeyList.Roots? = nil
        ) {
            if let list, anchoredTo == nil || anchoredTo == builtIn {
                roots = list.roots
                rootsBuiltIn = false
            } else {
                roots = builtIn
                rootsBuiltIn = list != nil
            }
            self.list = list
            self.minimumVersion = minimumVersion
        }

        /// The version after which root changes are walked: the held list's, unless the built-in
        /// roots count.
        var walksAfter: Int { rootsBuiltIn ? 0 : list?.version ?? 0 }
    }

    static func signatures(_ file: SignedFile) throws -> SignatureSet {
        do {
            return try SignatureSet.parse(file.signatures, source: file.path + ".sigs")
        } catch let error as RolloutError {
            throw TrustFailure.damaged(
                file: file.path + ".sigs", why: error.message.replacingOccurrences(of: file.path + ".sigs: ", with: ""))
        }
    }

    static func keyList(_ file: SignedFile) throws -> KeyList {
        do {
            return try KeyList.parse(file.bytes, source: file.path)
        } catch let error as RolloutError {
            throw TrustFailure.damaged(
                file: file.path, why: error.message.replacingOccurrences(of: file.path + ": ", with: ""))
        }
    }

    /// The root-change lists (`keys/<n>.json`) a device holding `anchor` must fetch before it can
    /// check `latest`: none when the roots it trusts signed `latest` (the usual case), else every
    /// root change newer than the list it holds. Read from `latest` before it is trusted: a lie
    /// here only makes the check below fail.
    public static func rotationsNeeded(_ latest: SignedFile, anchor: Anchor) -> [Int] {
        guard let list = try? keyList(latest), let signatures = try? signatures(latest) else { return [] }
        if signatures.signers(of: latest.bytes, among: anchor.roots.keys).count >= anchor.roots.threshold { return [] }
        return list.rootChanges.filter { $0 > anchor.walksAfter && $0 < list.version }
    }

    /// The key list a device holding `anchor` accepts from a site: `latest` (`keys.json`) when it
    /// is newer than the list held and signed by the threshold of the roots the device trusts, after
    /// walking the root changes in `rotations` (each signed by the roots before it and by its own),
    /// and by the threshold of its own roots. The held list itself when `latest` is that list.
    public static func accept(_ latest: SignedFile, rotations: [Int: SignedFile], anchor: Anchor) throws -> KeyList {
        try acceptWalking(latest, rotations: rotations, anchor: anchor).list
    }

    /// `accept`, and the root-change versions it walked (for `verify-site`'s trust line).
    public static func acceptWalking(_ latest: SignedFile, rotations: [Int: SignedFile], anchor: Anchor) throws -> (
        list: KeyList, walked: [Int]
    ) {
        let candidate = try keyList(latest)
        let held = anchor.list
        if let held, candidate.version < held.version {
            throw TrustFailure.keysReplayed(file: latest.path, version: candidate.version, held: held.version)
        }
        // Before the held list is taken as it is: an app updated with a higher minimum refuses the
        // old list it held too.
        if candidate.version < anchor.minimumVersion {
            throw TrustFailure.keysBelowMinimum(
                file: latest.path, version: candidate.version, minimum: anchor.minimumVersion)
        }
        if let held, candidate.version == held.version {
            if candidate != held { throw TrustFailure.keysConflict(file: latest.path, version: candidate.version) }
            if !anchor.rootsBuiltIn { return (held, []) }
        }
        var walked: [Int] = []
        var roots = anchor.roots
        var previous = anchor.rootsBuiltIn ? nil : held
        // Walk the root changes only when the roots this device trusts did not sign the list.
        if try signatures(latest).signers(of: latest.bytes, among: roots.keys).count < roots.threshold {
            for version in candidate.rootChanges where version > anchor.walksAfter && version < candidate.version {
                guard let file = rotations[version], let step = try? keyList(file), step.version == version,
                    step.rootChanges.last == version,
                    (try? signedByRoots(file, step, roots: roots)) != nil, (try? signedByOwnRoots(file, step)) != nil
                else { continue }
                // A root list this device cannot check (an app built after it) is skipped, not trusted.
                if let previous {
                    try keepsRevocations(step, of: previous, file: file.path)
                    try recordsRootChanges(step, since: previous, file: file.path)
                }
                roots = step.roots
                previous = step
                walked.append(version)
            }
        }
        try signedByRoots(latest, candidate, roots: roots)
        try signedByOwnRoots(latest, candidate)
        for earlier in [previous, held].compactMap({ $0 }) {
            try keepsRevocations(candidate, of: earlier, file: latest.path)
            try recordsRootChanges(candidate, since: earlier, file: latest.path)
        }
        return (candidate, walked)
    }

    /// A later list keeps the root changes of an earlier one, and records its own: when its roots
    /// differ from `earlier`'s, `rootChanges` names a version after `earlier`.
    private static func recordsRootChanges(_ list: KeyList, since earlier: KeyList, file: String) throws {
        let kept = list.rootChanges.starts(with: earlier.rootChanges)
        let recorded = list.roots == earlier.roots || list.rootChanges.contains { $0 > earlier.version }
        if !kept || !recorded {
            throw TrustFailure.rootChangeUnrecorded(file: file, version: list.version, since: earlier.version)
        }
    }

    private static func signedByRoots(_ file: SignedFile, _ list: KeyList, roots: KeyList.Roots) throws {
        let signatures = try signatures(file)
        let signed = signatures.signers(of: file.bytes, among: roots.keys)
        guard signed.count >= roots.threshold else {
            // A publishing key's signature on a key list is the wrong role, said as such: only when
            // that signature is over this file (another file's signatures are just unknown).
            let publishing = list.publishing.filter { roots.keys[$0.key] == nil }.mapValues(\.publicKey)
            if signed.isEmpty, let id = signatures.signers(of: file.bytes, among: publishing).sorted().first {
                throw TrustFailure.wrongRole(file: file.path, keyID: id, role: "publishing")
            }
            throw TrustFailure.rootsDidNotSign(
                file: file.path, signed: signed.sorted(), threshold: roots.threshold, roots: roots.ids)
        }
    }

    private static func signedByOwnRoots(_ file: SignedFile, _ list: KeyList) throws {
        let signed = try signatures(file).signers(of: file.bytes, among: list.roots.keys)
        guard signed.count >= list.roots.threshold else {
            throw TrustFailure.ownRootsDidNotSign(
                file: file.path, signed: signed.sorted(), threshold: list.roots.threshold)
        }
    }

    private static func keepsRevocations(_ list: KeyList, of earlier: KeyList, file: String) throws {
        if let dropped = earlier.revoked.keys.sorted().first(where: { list.revoked[$0] == nil }) {
            throw TrustFailure.revocationDropped(file: file, keyID: dropped)
        }
    }

    /// The publishing key that vouches for an index or a manifest under `list`: a signature that
    /// verifies, by a listed key that is not revoked and, when `now` is given, not expired. A
    /// cached pack is checked without `now`: a key's expiry stops new sites, never the packs a
    /// device already has. Throws the most telling reason when no signature qualifies.
    @discardableResult
    public static func publisher(of file: SignedFile, list: KeyList, now: Timestamp?) throws -> String {
        let signatures = try signatures(file)
        var failure: TrustFailure?
        for entry in signatures.entries {
            guard let refusal = signingRefusal(entry.keyID, list: list, now: now, file: file.path) else {
                if list.publishing[entry.keyID]?.publicKey.verify(entry.signature, for: file.bytes) == true {
                    return entry.keyID
                }
                continue
            }
            switch refusal {
            // A revoked key has no public key left to check its signature with: naming it is enough.
            case .revokedKey: failure = refusal
            case .wrongRole, .expiredKey:
                let key = list.roots.keys[entry.keyID] ?? list.publishing[entry.keyID]?.publicKey
                if failure == nil, key?.verify(entry.signature, for: file.bytes) == true { failure = refusal }
            default: continue
            }
        }
        throw failure ?? .unknownKey(file: file.path, keyIDs: signatures.entries.map(\.keyID))
    }

    /// Why the key `keyID` may not sign an index or a manifest under `list` at `now` (nil: it may):
    /// revoked, a root key, not listed, or expired. What `publisher` applies to each signature,
    /// and what `rollout publish` checks of its `--key` before it signs anything.
    public static func signingRefusal(_ keyID: String, list: KeyList, now: Timestamp?, file: String) -> TrustFailure? {
        if let revocation = list.revoked[keyID] {
            return .revokedKey(file: file, keyID: keyID, reason: revocation.reason)
        }
        if list.roots.keys[keyID] != nil { return .wrongRole(file: file, keyID: keyID, role: "root") }
        guard let key = list.publishing[keyID] else { return .unknownKey(file: file, keyIDs: [keyID]) }
        if let now, key.expires <= now { return .expiredKey(file: file, keyID: keyID, expires: key.expires) }
        return nil
    }

    /// The listed, unrevoked publishing key whose legacy signature (`.sig`, no key id) verifies
    /// over `bytes`, or nil: how a device on a key list reads a pack cached by an app version that
    /// pinned one key, and how `verify-site` checks the `.sig` files beside the `.sigs`.
    public static func legacySigner(of bytes: [UInt8], signature: [UInt8], list: KeyList) -> String? {
        list.publishing.sorted { $0.key < $1.key }.first { id, key in
            signingRefusal(id, list: list, now: nil, file: "") == nil
                && DetachedSignature.verify(signature, over: bytes, with: key.publicKey)
        }?.key
    }

    /// What makes an index one a device may switch to: at least `minimum` (the newest it accepted,
    /// or the app's built-in minimum sequence), and not expired. `requireExpiry`: a device on a key
    /// list accepts only an index that expires; a device pinned to one key checks `expires` when
    /// the index has it.
    public static func checkIndex(
        _ index: SiteIndex, now: Timestamp, accepted: Int, builtInMinimum: Int, requireExpiry: Bool
    ) throws {
        if index.sequence < accepted {
            throw TrustFailure.sequenceTooOld(sequence: index.sequence, minimum: accepted, builtIn: false)
        }
        if index.sequence < builtInMinimum {
            throw TrustFailure.sequenceTooOld(sequence: index.sequence, minimum: builtInMinimum, builtIn: true)
        }
        guard let expires = index.expires else {
            if requireExpiry { throw TrustFailure.indexWithoutExpiry }
            return
        }
        if expires <= now { throw TrustFailure.indexExpired(expires: expires, now: now) }
    }
}
