import Foundation
import RolloutCrypto
import RolloutModel

extension RolloutClient {
    /// The keys an app builds in to check what it downloads (docs/client.md, "Keys and expiry";
    /// docs/keys.md): the root keys that sign the site's key list, and how many of them must.
    public struct Trust: Equatable, Sendable {
        /// The root public keys, `ed25519:BASE64` as `rollout keys init` printed them.
        public var rootKeys: [String]
        /// How many of `rootKeys` must sign a key list.
        public var threshold: Int
        /// The key an earlier version of the app pinned (`publicKey:`): it vouches for the packs that
        /// version cached until this device holds a key list, so an update keeps them.
        public var pinnedKey: String?
        /// The key list version current when the app was built (`rollout keys init/rotate/revoke/
        /// rotate-root` print it): a device refuses an older list, so a fresh install, or one whose
        /// saved list is damaged, never takes a list from before a revocation.
        public var minimumKeysVersion: Int

        public init(rootKeys: [String], threshold: Int = 1, pinnedKey: String? = nil, minimumKeysVersion: Int = 0) {
            self.rootKeys = rootKeys
            self.threshold = threshold
            self.pinnedKey = pinnedKey
            self.minimumKeysVersion = minimumKeysVersion
        }
    }
}

/// How a device checks signatures, from what the app built in: one pinned key (apps built before
/// key lists; `.sig` files) or root keys that sign a key list (`.sigs` files naming their keys).
enum SignatureCheck: Sendable {
    case pinned(Ed25519.PublicKey)
    case roots(KeyList.Roots, pinned: Ed25519.PublicKey?, minimumKeysVersion: Int)
    /// The app's keys do not parse: nothing verifies, and a refresh says why.
    case unusable(String)

    init(publicKey: String) {
        if let key = Ed25519.PublicKey(publicKey) {
            self = .pinned(key)
        } else {
            self = .unusable("the public key given to RolloutClient is not ed25519:BASE64")
        }
    }

    init(_ trust: RolloutClient.Trust) {
        var keys: [Ed25519.PublicKey] = []
        for text in trust.rootKeys {
            guard let key = Ed25519.PublicKey(text) else {
                self = .unusable("the root key \"\(text)\" given to RolloutClient is not ed25519:BASE64")
                return
            }
            keys.append(key)
        }
        let roots = KeyList.Roots(keys: keys, threshold: trust.threshold)
        // A threshold of 0 would trust any key list: the app's build is wrong, and nothing verifies.
        guard (1...max(1, roots.keys.count)).contains(trust.threshold), !roots.keys.isEmpty else {
            self = .unusable("RolloutClient.Trust needs \(trust.threshold) of \(roots.keys.count) distinct root key(s)")
            return
        }
        var pinned: Ed25519.PublicKey?
        if let text = trust.pinnedKey {
            guard let key = Ed25519.PublicKey(text) else {
                self = .unusable("the pinned key \"\(text)\" given to RolloutClient is not ed25519:BASE64")
                return
            }
            pinned = key
        }
        self = .roots(roots, pinned: pinned, minimumKeysVersion: trust.minimumKeysVersion)
    }

    var usesKeyList: Bool {
        if case .roots = self { return true }
        return false
    }

    /// The file beside `path` that holds its signature in this mode: `.sigs` on a key list, `.sig` else.
    func signatureFile(of path: String) -> String {
        usesKeyList ? SiteLayout.signatures(of: path) : SiteLayout.signature(of: path)
    }

    /// Whether `signature` vouches for `bytes` (the index or a manifest at `path`) on this device:
    /// the one check of a downloaded file and of a cached slot, in both modes. `held` is the key list
    /// the device accepted. `now` is given for a download (a publishing key past its expiry signs no
    /// new site) and nil for a cached slot (its expiry never takes away packs a device has). On a
    /// key list, a slot cached by an app that pinned a key (a legacy `.sig`) is vouched for by the
    /// pinned key until the device holds a list, then by any publishing key the list names (a
    /// revoked key is not named).
    func vouch(_ bytes: [UInt8], signature: [UInt8], path: String, held: KeyList?, now: Timestamp?) throws {
        switch self {
        case .unusable(let why):
            throw RolloutClient.Failure(.misconfigured, why)
        case .pinned(let key):
            guard DetachedSignature.verify(signature, over: bytes, with: key) else {
                throw RolloutClient.Failure(.badSignature, "\(path): the signature does not verify")
            }
        case .roots(_, let pinned, let minimumKeysVersion):
            // A list below the app's minimum (held from before an app update raised it, perhaps
            // from before a revocation) vouches for nothing.
            let held = held.flatMap { $0.version >= minimumKeysVersion ? $0 : nil }
            // A download is read as `.sigs` only: a legacy form there would skip the key's expiry. A
            // cached slot holds either form: what parses as `.sigs` is one.
            if now != nil || (try? SignatureSet.parse(signature, source: path)) != nil {
                guard let held else { throw RolloutClient.Failure.noKeyListYet(path) }
                try KeyChain.publisher(
                    of: SignedFile(path: path, bytes: bytes, signatures: signature), list: held, now: now)
            } else if let held {
                guard KeyChain.legacySigner(of: bytes, signature: signature, list: held) != nil else {
                    throw RolloutClient.Failure.notByAPublishingKey(path, keysVersion: held.version)
                }
            } else {
                guard let pinned, DetachedSignature.verify(signature, over: bytes, with: pinned) else {
                    throw RolloutClient.Failure.notByThePinnedKey(path)
                }
            }
        }
    }
}

// A signature the device cannot check against a key list it holds does not verify for it.
extension RolloutClient.Failure {
    fileprivate static func noKeyListYet(_ path: String) -> Self {
        Self(
            .badSignature, "\(path): signed by publishing keys, and this device holds no key list yet")
    }

    fileprivate static func notByAPublishingKey(_ path: String, keysVersion: Int) -> Self {
        Self(.badSignature, "\(path): the signature is not by a publishing key of key list version \(keysVersion)")
    }

    fileprivate static func notByThePinnedKey(_ path: String) -> Self {
        Self(.badSignature, "\(path): the signature is not by the pinned key, and this device holds no key list yet")
    }
}
