import Foundation
import RolloutCrypto
import RolloutModel

extension RolloutClient {
    /// The pack in `slot` of `locale`, if every check passes: the manifest's signature
    /// (`SignatureCheck.vouch`, against the key list the device holds), the pack's digest and
    /// size as that manifest lists them, strict parsing, the checksum, locale, a schema this app
    /// understands, its minAppVersion, and neither blocked nor marked failed on this device.
    func verifiedSlot(_ slot: Slot, of locale: String) -> LoadedPack? {
        guard let bytes = storage.read(slot.file(locale)), let stored = PackSlot(bytes) else { return nil }
        return try? verify(stored, locale: locale)
    }

    func verify(_ slot: PackSlot, locale: String) throws -> LoadedPack {
        try signatureCheck.vouch(
            slot.manifest, signature: slot.signature, path: SiteLayout.manifest(locale),
            held: lock.withLock { state.keyList }, now: nil)
        let manifest = try LocaleManifest.parse(slot.manifest, source: "manifests/\(locale).json")
        guard manifest.locale == locale else {
            throw Failure(.damaged, "the manifest is for \(manifest.locale), not \(locale)")
        }
        let digest = SHA256.hex(slot.pack)
        guard let (version, entry) = manifest.packs.first(where: { $0.value.sha256 == digest }),
            entry.bytes == slot.pack.count
        else {
            throw Failure(.packMismatch, "\(locale): the pack is not the one its manifest lists")
        }
        let pack = try check(slot.pack, entry: entry, id: PackID(locale: locale, contentVersion: version))
        if manifest.plan.isBlocked(version) { throw Failure(.blocked, "\(locale)@\(version) is blocked") }
        return LoadedPack(pack: pack, bundleOnly: manifest.bundleOnly)
    }

    /// The checks every pack passes before it is stored or used: those against its manifest entry
    /// (`PackEntryCheck`, which `rollout verify-site` makes too), then this device's own.
    private func check(_ bytes: [UInt8], entry: LocaleManifest.PackEntry, id: PackID) throws -> Pack {
        let checked = PackEntryCheck(
            bytes, entry: entry, id: id, source: id.description, schemaVersions: options.schemaVersions)
        if let problem = checked.problems.first { throw Failure.refused(id, problem) }
        guard let pack = checked.parsed?.pack else { throw Failure.refused(id, .sizeOrDigest) }
        guard let app = appVersion, pack.minAppVersion <= app else {
            throw Failure(.appTooOld, "\(id) needs app \(pack.minAppVersion), this is \(appVersionText)")
        }
        let refused = lock.withLock {
            state.blocked[id.locale, default: []].contains(id.contentVersion)
                || state.failed.contains(pack.id.description)
                || state.killed.contains(id.locale)
        }
        if refused { throw Failure.refusedOnThisDevice(pack.id) }
        return pack
    }

    /// The id of the pack stored in `slot` of `locale`, read without verifying it (start-up and
    /// refresh do that).
    func storedID(_ slot: Slot, of locale: String) -> PackID? {
        let name = slot.file(locale)
        guard let bytes = storage.read(name), let stored = PackSlot(bytes) else { return nil }
        return (try? PackParser.parse(stored.pack, source: name, maximumBytes: Int.max, verifyChecksum: false))?.pack.id
    }
}

extension RolloutClient.Failure {
    fileprivate static func refusedOnThisDevice(_ id: PackID) -> Self {
        Self(.blocked, "\(id) is blocked, failed or under its locale's kill switch on this device")
    }

    /// Why a device refuses pack `id` against its manifest entry; an unreadable pack is refused
    /// with the parser's own words.
    fileprivate static func refused(_ id: PackID, _ problem: PackEntryCheck.Problem) -> Self {
        switch problem {
        case .sizeOrDigest: return Self(.packMismatch, "\(id): size or SHA-256 differs from the manifest")
        case .entrySchema(let version):
            return Self(.unsupportedSchema, "\(id): schemaVersion \(version) is not one this app understands")
        case .unreadable(let error): return Self(.damaged, String(describing: error))
        case .checksum: return Self(.packMismatch, "\(id): the checksum differs from the manifest")
        case .identity(let found, let schema):
            // The entry's schema was one this app understands (checked first); the pack's own may not be.
            return Self(
                found == id ? .unsupportedSchema : .packMismatch,
                "\(id): the pack says it is \(found) (schema \(schema))")
        }
    }
}
