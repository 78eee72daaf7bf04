import RolloutCrypto

/// Why a device refuses a key list, an index or a manifest (docs/keys.md, "What a device checks").
/// `code` is the stable name the conformance vectors use; `description` the sentence a person reads.
public enum TrustFailure: Error, Equatable, CustomStringConvertible {
    /// A file, or its signatures, could not be read as its format.
    case damaged(file: String, why: String)
    /// Fewer of the roots this device trusts signed the key list than its threshold.
    case rootsDidNotSign(file: String, signed: [String], threshold: Int, roots: [String])
    /// The key list is not signed by enough of the roots it lists itself.
    case ownRootsDidNotSign(file: String, signed: [String], threshold: Int)
    /// A key list older than the one the device holds: a replay.
    case keysReplayed(file: String, version: Int, held: Int)
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
            return "\(file): signed by \(signed.count) of the root keys this device trusts (\(ids(roots))), \(threshold) needed: not a key list from this app's owners"
        case .ownRootsDidNotSign(let file, let signed, let threshold):
            return "\(file): signed by \(signed.count) of the root keys it lists, \(threshold) needed"
        case .keysReplayed(let file, let version, let held):
            return "\(file): version \(version) is older than version \(held), which this device already accepted: a replayed key list"
        case .keysConflict(let file, let version):
            return "\(file): another key list with version \(version), the one this device holds: the root keys signed two lists with one version"
        case .revocationDropped(let file, let keyID):
            return "\(file): no longer revokes \(keyID), which an earlier key list revoked; a revocation is for good"
        case .revokedKey(let file, let keyID, let reason):
            return "\(file): signed by \(keyID), a revoked publishing key\(reason.isEmpty ? "" : " (\(reason))")"
        case .expiredKey(let file, let keyID, let expires):
            return "\(file): signed by publishing key \(keyID), which expired at \(expires)"
        case .wrongRole(let file, let keyID, let role):
            return "\(file): signed by \(keyID), a \(role) key, which may not sign this file"
        case .unknownKey(let file, let keyIDs):
            return "\(file): no valid signature by a publishing key of the key list (signed by \(ids(keyIDs))): the file or its signatures were changed, or another key signed it"
        case .indexExpired(let expires, let now): return "index.json: expired at \(expires) (now \(now)): a frozen or replayed site"
        case .indexWithoutExpiry: return "index.json: has no \"expires\"; a device on a key list accepts only an index that expires"
        case .sequenceTooOld(let sequence, let minimum, let builtIn):
            return builtIn
                ? "index.json: sequence \(sequence) is older than \(minimum), the minimum built into this app: an old copy of the site"
                : "index.json: sequence \(sequence) is older than \(minimum), already accepted: a stale cache or a replay"
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
    /// What a device trusts before it reads a site: the root keys built into the app (or those of
    /// the newest key list it accepted) and that list.
    public struct Anchor: Equatable, Sendable {
        public var roots: KeyList.Roots
        public var list: KeyList?

        public init(roots: KeyList.Roots, list: KeyList?) {
            self.roots = list?.roots ?? roots
            self.list = list
        }
    }

    static func signatures(_ file: SignedFile) throws -> SignatureSet {
        do {
            return try SignatureSet.parse(file.signatures, source: file.path + ".sigs")
        } catch let error as RolloutError {
            throw TrustFailure.damaged(file: file.path + ".sigs", why: error.message.replacingOccurrences(of: file.path + ".sigs: ", with: ""))
        }
    }

    static func keyList(_ file: SignedFile) throws -> KeyList {
        do {
            return try KeyList.parse(file.bytes, source: file.path)
        } catch let error as RolloutError {
            throw TrustFailure.damaged(file: file.path, why: error.message.replacingOccurrences(of: file.path + ": ", with: ""))
        }
    }

    /// The root-change lists (`keys/<n>.json`) a device holding `anchor` must fetch before it can
    /// check `latest`: none when the roots it trusts signed `latest` (the usual case), else every
    /// root change newer than the list it holds. Read from `latest` before it is trusted: a lie
    /// here only makes the check below fail.
    public static func rotationsNeeded(_ latest: SignedFile, anchor: Anchor) -> [Int] {
        guard let list = try? keyList(latest), let signatures = try? signatures(latest) else { return [] }
        if signatures.signers(of: latest.bytes, among: anchor.roots.keys).count >= anchor.roots.threshold { return [] }
        let held = anchor.list?.version ?? 0
        return list.rootChanges.filter { $0 > held && $0 < list.version }
    }

    /// The key list a device holding `anchor` accepts from a site: `latest` (`keys.json`) when it
    /// is newer than the list held and signed by the threshold of the roots the device trusts, after
    /// walking the root changes in `rotations` (each signed by the roots before it and by its own),
    /// and by the threshold of its own roots. The held list itself when `latest` is that list.
    public static func accept(_ latest: SignedFile, rotations: [Int: SignedFile], anchor: Anchor) throws -> KeyList {
        let candidate = try keyList(latest)
        let held = anchor.list
        if let held {
            if candidate.version < held.version { throw TrustFailure.keysReplayed(file: latest.path, version: candidate.version, held: held.version) }
            if candidate.version == held.version {
                if candidate == held { return held }
                throw TrustFailure.keysConflict(file: latest.path, version: candidate.version)
            }
        }
        var roots = anchor.roots
        var previous = held
        // Walk the root changes only when the roots this device trusts did not sign the list.
        if try signatures(latest).signers(of: latest.bytes, among: roots.keys).count < roots.threshold {
            for version in candidate.rootChanges where version > (previous?.version ?? 0) && version < candidate.version {
                guard let file = rotations[version], let step = try? keyList(file), step.version == version,
                    (try? signedByRoots(file, step, roots: roots)) != nil, (try? signedByOwnRoots(file, step)) != nil
                else { continue }
                // A root list this device cannot check (an app built after it) is skipped, not trusted.
                if let previous { try keepsRevocations(step, of: previous, file: file.path) }
                roots = step.roots
                previous = step
            }
        }
        try signedByRoots(latest, candidate, roots: roots)
        try signedByOwnRoots(latest, candidate)
        if let previous { try keepsRevocations(candidate, of: previous, file: latest.path) }
        if let held, previous != held { try keepsRevocations(candidate, of: held, file: latest.path) }
        return candidate
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
            throw TrustFailure.rootsDidNotSign(file: file.path, signed: signed.sorted(), threshold: roots.threshold, roots: roots.ids)
        }
    }

    private static func signedByOwnRoots(_ file: SignedFile, _ list: KeyList) throws {
        let signed = try signatures(file).signers(of: file.bytes, among: list.roots.keys)
        guard signed.count >= list.roots.threshold else {
            throw TrustFailure.ownRootsDidNotSign(file: file.path, signed: signed.sorted(), threshold: list.roots.threshold)
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
            if let revocation = list.revoked[entry.keyID] {
                failure = .revokedKey(file: file.path, keyID: entry.keyID, reason: revocation.reason)
                continue
            }
            if let root = list.roots.keys[entry.keyID] {
                if root.verify(entry.signature, for: file.bytes), failure == nil { failure = .wrongRole(file: file.path, keyID: entry.keyID, role: "root") }
                continue
            }
            guard let key = list.publishing[entry.keyID], key.publicKey.verify(entry.signature, for: file.bytes) else { continue }
            if let now, key.expires <= now {
                if failure == nil { failure = .expiredKey(file: file.path, keyID: entry.keyID, expires: key.expires) }
                continue
            }
            return entry.keyID
        }
        throw failure ?? .unknownKey(file: file.path, keyIDs: signatures.entries.map(\.keyID))
    }

    /// What makes an index one a device may switch to: at least `minimum` (the newest it accepted,
    /// or the app's built-in minimum sequence), and not expired. `requireExpiry`: a device on a key
    /// list accepts only an index that expires; a device pinned to one key checks `expires` when
    /// the index has it.
    public static func checkIndex(
        _ index: SiteIndex, now: Timestamp, accepted: Int, builtInMinimum: Int, requireExpiry: Bool
    ) throws {
        if index.sequence < accepted { throw TrustFailure.sequenceTooOld(sequence: index.sequence, minimum: accepted, builtIn: false) }
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
