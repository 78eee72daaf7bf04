import Foundation
import RolloutModel

extension RolloutClient {
    /// Why a refresh, or one pack of it, was refused: one vocabulary for every client of a rollout
    /// site, the codes of the conformance kit (docs/conformance.md, "Failure reasons"), so that an app
    /// can tell "offline" from "the site's signature is wrong" from "disk full" without reading
    /// English. The raw value is the code.
    public enum FailureReason: String, CaseIterable, Equatable, Hashable, Sendable {
        // The transport: no bytes, or not the bytes of the file.
        /// No response: DNS, a refused or reset connection, an unreadable file.
        case unreachable
        /// No complete response within `Options.timeout`.
        case timedOut = "timed-out"
        /// HTTP 404 or 410, or a missing file.
        case notFound = "not-found"
        /// Any other answer but HTTP 200 (a redirect the device did not follow is `redirectRefused`).
        case httpStatus = "http-status"
        /// Not `https:`, `http:` to a loopback host, or `file:`.
        case insecureURL = "insecure-url"
        /// A redirect to a URL the device would not fetch itself.
        case redirectRefused = "redirect-refused"
        /// Longer than the size limit of its kind of file (`SizeLimits`).
        case tooLarge = "too-large"
        /// The refresh's task was cancelled.
        case cancelled

        // The site's documents.
        /// An index, manifest, key list, signature file or pack that does not parse or breaks a wire
        /// rule, or a site that names what it does not list (a cache that mixed two publishes).
        case damaged
        /// A `.sig` that does not verify with the pinned key, or a file not signed by a publishing
        /// key of the key list the device holds.
        case badSignature = "bad-signature"

        // Trust (`TrustFailure.code`, the codes of trust.json).
        case keysReplayed = "keys-replayed"
        case belowMinimumKeysVersion = "below-minimum-keys-version"
        case keysConflict = "keys-conflict"
        case wrongRole = "wrong-role"
        case notSignedByTrustedRoots = "not-signed-by-trusted-roots"
        case notSignedByOwnRoots = "not-signed-by-own-roots"
        case revocationDropped = "revocation-dropped"
        case rootChangeUnrecorded = "root-change-unrecorded"
        case revokedKey = "revoked-key"
        case expiredKey = "expired-key"
        case unknownKey = "unknown-key"
        case indexReplayed = "index-replayed"
        case belowMinimumSequence = "below-minimum-sequence"
        case indexWithoutExpiry = "index-without-expiry"
        case indexExpired = "index-expired"

        // A pack against its manifest and this device.
        /// The pack's size, SHA-256, checksum or id differs from what its manifest lists.
        case packMismatch = "pack-mismatch"
        /// A pack schema this build of the app does not understand.
        case unsupportedSchema = "unsupported-schema"
        /// The pack needs a newer app than this one.
        case appTooOld = "app-too-old"
        /// The pack is blocked, failed on this device, or under its locale's kill switch.
        case blocked

        // The device.
        /// A write, fsync or rename of the cache failed (a full disk, a read-only directory).
        case storageFailed = "storage-failed"
        /// A newer index was accepted while this refresh ran.
        case superseded
        /// The keys given to the client do not parse (`ed25519:BASE64`), or its threshold is impossible.
        case misconfigured

        /// The code, as the conformance kit and `rollout device refresh --json` write it.
        public var code: String { rawValue }

        /// The reason of a trust check's refusal: the same code.
        init(_ failure: TrustFailure) {
            switch failure {
            case .damaged: self = .damaged
            case .rootsDidNotSign: self = .notSignedByTrustedRoots
            case .ownRootsDidNotSign: self = .notSignedByOwnRoots
            case .keysReplayed: self = .keysReplayed
            case .keysBelowMinimum: self = .belowMinimumKeysVersion
            case .rootChangeUnrecorded: self = .rootChangeUnrecorded
            case .keysConflict: self = .keysConflict
            case .revocationDropped: self = .revocationDropped
            case .revokedKey: self = .revokedKey
            case .expiredKey: self = .expiredKey
            case .wrongRole: self = .wrongRole
            case .unknownKey: self = .unknownKey
            case .indexExpired: self = .indexExpired
            case .indexWithoutExpiry: self = .indexWithoutExpiry
            case .sequenceTooOld(_, _, let builtIn): self = builtIn ? .belowMinimumSequence : .indexReplayed
            }
        }
    }

    /// A refused refresh, or one refused pack of it: the reason an app acts on and the sentence a
    /// person reads in a log.
    public struct Failure: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
        public var reason: FailureReason
        public var message: String

        public init(_ reason: FailureReason, _ message: String) {
            self.reason = reason
            self.message = message
        }

        /// "code: message", for logs.
        public var description: String { "\(reason.code): \(message)" }

        /// What went wrong in a refresh, whatever threw it. Every error a refresh throws is one of
        /// these types; the transport's own are wrapped in `TransportError` by `fetch` (see there),
        /// so anything else comes from the file system: the cache.
        init(_ error: any Error) {
            switch error {
            case let failure as Failure: self = failure
            case let transport as TransportError: self.init(transport.reason, transport.message)
            case let trust as TrustFailure: self.init(FailureReason(trust), trust.description)
            case let document as RolloutError: self.init(.damaged, String(describing: document))
            case is CancellationError: self.init(.cancelled, "cancelled")
            default: self.init(.storageFailed, String(describing: error))
            }
        }
    }

    /// The most a device reads of each kind of site file (docs/client.md, "Size limits"; the
    /// conformance kit's limits.json): a transport stops at one byte more and fails with
    /// `FailureReason.tooLarge`, so a hostile or broken server cannot fill the device's memory. The
    /// one table, which `rollout verify-site` reads by too (`SiteSizeLimits`, in RolloutModel).
    public typealias SizeLimits = SiteSizeLimits
}
