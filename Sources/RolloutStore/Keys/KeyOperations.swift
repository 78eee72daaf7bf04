import RolloutCrypto
import RolloutModel

/// What made a key list version, as its commit records it in `Rollout-Key-Event` (docs/keys.md).
public enum KeyEvent: String, CaseIterable, Sendable {
    case initialize = "init"
    case rotate
    case revoke
    case rotateRoot = "rotate-root"
}

/// A private key read from a file named on the command line; messages name the file as it was given.
public struct KeyFile {
    public let name: String
    public let key: Ed25519.PrivateKey

    public init(name: String, key: Ed25519.PrivateKey) {
        self.name = name
        self.key = key
    }

    public var id: String { key.publicKey.keyID }
}

/// Why a key operation was refused, with what its message names: the file, key or version to change
/// (worded by the command line, which knows its flags).
public enum KeyRefusal: Refusal {
    /// `keys init` on a repository that has a key list already.
    case alreadyInitialized(version: Int)
    /// A key change on a repository without a key list.
    case noKeyList
    /// A root file whose key is not a root of the list: `role` is what the key is there, if listed.
    case notARoot(file: String, id: String, role: String?, version: Int, roots: [String])
    /// Fewer distinct root keys than the list's threshold: `given` names the files.
    case tooFewRoots(given: [String], distinct: Int, threshold: Int, roots: Int, version: Int)
    case alreadyRevoked(id: String, reason: String, time: Timestamp)
    /// A root key cannot be revoked, only replaced.
    case revokingARoot(id: String)
    /// A key to keep as a root that is not one.
    case keptNotARoot(String, version: Int, roots: [String])
    case unknownKey(String, version: Int)
    /// A start of several key ids.
    case ambiguousKey(String, matches: [String])
    /// Not 8 to 16 hex digits.
    case shortKeyID(String)
    /// Devices would refuse the new list.
    case untrusted(TrustFailure)
    /// The new list breaks a rule of key lists (`KeyList.problem`).
    case invalid(String)
    /// A lifetime that ends past the last time a device can read (9999-12-31T23:59:59Z).
    case expiryTooLate(lifetime: Int64, from: Timestamp)

    public var kind: RolloutError.Kind {
        switch self {
        case .noKeyList: return .missing
        case .ambiguousKey, .shortKeyID, .expiryTooLate: return .usage
        default: return .badInput
        }
    }

    static func notARoot(_ file: KeyFile, list: KeyList) -> KeyRefusal {
        .notARoot(
            file: file.name, id: file.id, role: list.role(of: file.id), version: list.version, roots: list.roots.ids)
    }

    static func tooFewRoots(_ given: [KeyFile], list: KeyList) -> KeyRefusal {
        .tooFewRoots(
            given: given.map(\.name), distinct: Set(given.map(\.id)).count, threshold: list.roots.threshold,
            roots: list.roots.keys.count, version: list.version)
    }
}

/// One change to the key list, as a command asks for it: the typed form of `Rollout-Key-Event`.
/// Key ids may be given as a unique start of at least 8 hex digits; they are resolved against the
/// list the change is applied to.
public enum KeyChange {
    /// Version 1: the roots, the threshold of them that signs a list, and the first publishing key.
    case initialize(roots: [Ed25519.PublicKey], threshold: Int, publishing: Ed25519.PublicKey, expires: Timestamp)
    /// A new publishing key; every other one is retired by `retireBy` (it stays listed, so what it
    /// signed stays valid on devices, but signs nothing new after that).
    case rotate(adding: Ed25519.PublicKey, expires: Timestamp, retireBy: Timestamp)
    /// A publishing key moved to `revoked`, for good: no later list may drop it.
    case revoke(key: String, reason: String)
    /// New root keys plus the kept ones, with `threshold` (default: the old one, at most the number
    /// of roots); the version is recorded in `rootChanges` so devices can walk to it.
    case rotateRoot(newRoots: [Ed25519.PublicKey], keep: [String], threshold: Int?)

    public var event: KeyEvent {
        switch self {
        case .initialize: return .initialize
        case .rotate: return .rotate
        case .revoke: return .revoke
        case .rotateRoot: return .rotateRoot
        }
    }

    var reason: String? {
        if case .revoke(_, let reason) = self { return reason }
        return nil
    }

    /// The next key list: a pure function of the previous one (nil before `keys init`) and the time.
    public func applied(to previous: KeyList?, now: Timestamp) throws -> KeyList {
        switch (self, previous) {
        case (.initialize(let roots, let threshold, let publishing, let expires), nil):
            return KeyList(
                version: 1, time: now, roots: KeyList.Roots(keys: roots, threshold: threshold),
                publishing: [
                    publishing.keyID: KeyList.PublishingKey(publicKey: publishing, created: now, expires: expires)
                ], revoked: [:],
                rootChanges: [1])
        case (.initialize, let held?):
            throw KeyRefusal.alreadyInitialized(version: held.version)
        case (_, nil):
            throw KeyRefusal.noKeyList
        case (.rotate(let key, let expires, let retireBy), let list?):
            var next = KeyChange.successor(of: list, now: now)
            // A clock behind the old key's creation (an offline root machine's) retires it as made,
            // never before: a key expiring before it was created is a list no device takes.
            for (id, old) in list.publishing {
                next.publishing[id]?.expires = min(old.expires, max(retireBy, old.created))
            }
            next.publishing[key.keyID] = KeyList.PublishingKey(publicKey: key, created: now, expires: expires)
            return next
        case (.revoke(let text, let reason), let list?):
            let id = try KeyChange.resolve(text, in: list)
            if let revocation = list.revoked[id] {
                throw KeyRefusal.alreadyRevoked(id: id, reason: revocation.reason, time: revocation.time)
            }
            if list.roots.keys[id] != nil { throw KeyRefusal.revokingARoot(id: id) }
            var next = KeyChange.successor(of: list, now: now)
            next.publishing[id] = nil
            next.revoked[id] = KeyList.Revocation(time: now, reason: Change.oneLine(reason))
            return next
        case (.rotateRoot(let newRoots, let keep, let threshold), let list?):
            var roots = newRoots
            for text in keep {
                let id = try KeyChange.resolve(text, in: list)
                guard let key = list.roots.keys[id] else {
                    throw KeyRefusal.keptNotARoot(text, version: list.version, roots: list.roots.ids)
                }
                roots.append(key)
            }
            var next = KeyChange.successor(of: list, now: now)
            next.roots = KeyList.Roots(
                keys: roots, threshold: threshold ?? min(list.roots.threshold, Set(roots.map(\.keyID)).count))
            next.rootChanges.append(next.version)
            return next
        }
    }

    private static func successor(of list: KeyList, now: Timestamp) -> KeyList {
        var next = list
        next.version += 1
        next.time = max(now, list.time)
        return next
    }

    /// The full id of the key `text` names in `list`: the id itself or a unique start of at least
    /// 8 hex digits, among roots, publishing and revoked keys.
    public static func resolve(_ text: String, in list: KeyList) throws -> String {
        let hex = text.lowercased()
        guard (8...16).contains(hex.count), hex.allSatisfy({ $0.isHexDigit && $0.isASCII }) else {
            throw KeyRefusal.shortKeyID(text)
        }
        let all = Set(list.roots.keys.keys).union(list.publishing.keys).union(list.revoked.keys)
        let matches = all.filter { $0.hasPrefix(hex) }.sorted()
        guard let first = matches.first else { throw KeyRefusal.unknownKey(text, version: list.version) }
        guard matches.count == 1 else { throw KeyRefusal.ambiguousKey(text, matches: matches) }
        return first
    }
}

/// The key list's life (docs/keys.md, "Operations"): each `KeyChange` of the newest list is signed
/// by the root keys at hand, checked with the very check a device makes (`KeyChain.accept` against
/// the previous list), and committed as `keys/<version>.json` + `.sigs`.
public enum KeyOperations {
    /// How long a new publishing key is valid unless `--expires` says otherwise.
    public static let defaultPublishingLifetime: Int64 = 365 * 86_400

    /// `lifetime` seconds after `now`: when a new publishing key or an index expires. A time past
    /// 9999-12-31T23:59:59Z has no four-digit ISO 8601 form, so no device could read the key list
    /// or index carrying it: refused (`KeyRefusal.expiryTooLate`) before anything is written.
    public static func expiry(after now: Timestamp, lifetime: Int64) throws -> Timestamp {
        let expires = Timestamp(seconds: now.seconds + lifetime)
        guard Timestamp(iso8601: expires.description) == expires else {
            throw KeyRefusal.expiryTooLate(lifetime: lifetime, from: now)
        }
        return expires
    }

    /// A new key list, signed and checked, ready to commit.
    public struct Prepared {
        public let event: KeyEvent
        public let list: KeyList
        public let previous: KeyList?
        public let file: SignedFile
        /// The ids of the root keys that signed it.
        public let signers: [String]

        /// The keys the change is about (recorded as `Rollout-Key`): those whose role it changed,
        /// or that it added. A key it dropped (a replaced root) is not among them.
        public var keyIDs: [String] {
            let all = Set(list.roots.keys.keys).union(list.publishing.keys).union(list.revoked.keys)
            return all.filter { list.role(of: $0) != previous?.role(of: $0) }.sorted()
        }
    }

    /// Applies `change` to the repository's newest key list, signs the result with the `roots`
    /// given (each must be a root of the newest list, enough of them for its threshold) and
    /// `newRoots` (keys made for this list: init's and rotate-root's), and checks it as a device
    /// would. Throws, having written nothing, for anything a device would refuse.
    public static func prepare(
        _ change: KeyChange, on snapshot: Snapshot, roots: [KeyFile], newRoots: [KeyFile], now: Timestamp
    ) throws -> Prepared {
        let previous = try snapshot.currentKeyList()?.list
        if let held = previous, change.event != .initialize {
            if let stranger = roots.first(where: { held.roots.keys[$0.id] == nil }) {
                throw KeyRefusal.notARoot(stranger, list: held)
            }
            if Set(roots.map(\.id)).count < held.roots.threshold { throw KeyRefusal.tooFewRoots(roots, list: held) }
        }
        let list = try change.applied(to: previous, now: now)
        if let problem = list.problem { throw KeyRefusal.invalid(problem) }
        var keys: [Ed25519.PrivateKey] = []
        for file in roots + newRoots where !keys.contains(where: { $0.publicKey.keyID == file.id }) {
            keys.append(file.key)
        }
        let bytes = list.bytes
        let file = SignedFile(
            path: StateLayout.keyList(list.version), bytes: bytes,
            signatures: SignatureSet.signing(bytes, with: keys).bytes)
        // The device's own check: a list that passes it is one every device holding `previous` takes.
        do {
            let accepted = try KeyChain.accept(
                file, rotations: [:], anchor: KeyChain.Anchor(roots: previous?.roots ?? list.roots, list: previous))
            guard accepted == list else {
                throw RolloutError.internal("the key chain accepted another list than the one signed")
            }
        } catch let failure as TrustFailure {
            throw KeyRefusal.untrusted(failure)
        }
        return Prepared(
            event: change.event, list: list, previous: previous, file: file,
            signers: keys.map(\.publicKey.keyID).sorted())
    }

    /// `prepare` on the repository's tip, committed as one `keys` change (re-checked if another
    /// writer moved the tip first).
    public static func commit(
        _ change: KeyChange, in repository: PackRepository, roots: [KeyFile], newRoots: [KeyFile], actor: Actor,
        now: Timestamp
    ) throws -> PackRepository.Applied<Prepared> {
        try repository.apply(actor: actor, time: { now }) { snapshot in
            let prepared = try prepare(change, on: snapshot, roots: roots, newRoots: newRoots, now: now)
            let version = prepared.list.version
            var trailers: [(name: Trailer, value: String)] = [
                (.action, ChangeAction.keys.rawValue), (.keysVersion, "\(version)"), (.keyEvent, change.event.rawValue),
            ]
            for id in prepared.keyIDs { trailers.append((.key, id)) }
            if let reason = change.reason { trailers.append((.reason, reason)) }
            let commit = Change(
                summary: "keys \(change.event.rawValue): key list version \(version)", trailers: trailers,
                writes: [
                    (StateLayout.keyList(version), prepared.file.bytes),
                    (StateLayout.keyListSignatures(version), prepared.file.signatures),
                ])
            return (commit, prepared)
        }
    }
}

/// One key of a key list as `rollout keys list` shows it.
public struct KeyListing: Equatable, Sendable {
    public enum Role: String, Sendable { case root, publishing, revoked }

    public let id: String
    public let role: Role
    /// nil for a revoked key: the list keeps only its id.
    public let publicKey: Ed25519.PublicKey?
    public let created: Timestamp?
    public let expires: Timestamp?
    /// `active`, `expires in N days`, `retired (expired)` or `revoked: REASON`.
    public let status: String
    public let revocation: KeyList.Revocation?

    /// A publishing key expiring within this many days is shown (and warned about by publish) as such.
    public static let warningDays: Int64 = 14

    /// Every key of `list`: roots, then publishing keys oldest first, then revoked ones; as of `now`.
    public static func rows(of list: KeyList, now: Timestamp) -> [KeyListing] {
        var rows = list.roots.ids.map { id in
            KeyListing(
                id: id, role: .root, publicKey: list.roots.keys[id], created: nil, expires: nil, status: "active",
                revocation: nil)
        }
        for (id, key) in list.publishing.sorted(by: { ($0.value.created, $0.key) < ($1.value.created, $1.key) }) {
            let left = key.expires.seconds - now.seconds
            let status: String
            if left <= 0 {
                status = "retired (expired)"
            } else if left <= warningDays * 86_400 {
                let days = (left + 86_399) / 86_400
                status = "expires in \(days) day\(days == 1 ? "" : "s")"
            } else {
                status = "active"
            }
            rows.append(
                KeyListing(
                    id: id, role: .publishing, publicKey: key.publicKey, created: key.created, expires: key.expires,
                    status: status, revocation: nil))
        }
        for (id, revocation) in list.revoked.sorted(by: { ($0.value.time, $0.key) < ($1.value.time, $1.key) }) {
            rows.append(
                KeyListing(
                    id: id, role: .revoked, publicKey: nil, created: nil, expires: nil,
                    status: "revoked: \(revocation.reason)", revocation: revocation))
        }
        return rows
    }
}

extension RolloutError {
}
