import Foundation
import RolloutModel

extension RolloutClient {
    /// The site's files, signed: its bytes and those of its `.sigs`.
    private func signedFile(_ path: String) async throws -> SignedFile {
        let bytes = try await fetch(siteURL(path), limit: SizeLimits.keyList)
        let signatures = try await fetch(siteURL(SiteLayout.signatures(of: path)), limit: SizeLimits.signature)
        return SignedFile(path: path, bytes: bytes, signatures: signatures)
    }

    /// A refresh's first step on a key list (docs/client.md, "Keys and expiry"): `keys.json`, and
    /// the root-change lists it takes to get there from the roots this device trusts, accepted by
    /// `KeyChain.accept`. A newer list is saved at once, so that its revocations hold even if the
    /// site then fails, and the cached slots it no longer vouches for are deleted (the active
    /// packs among them are returned); a locale whose active pack went falls back on its previous
    /// one, as at start-up. A process killed between the writes finds the slots refused at its
    /// next start, by the list it saved.
    func acceptKeyList(roots: KeyList.Roots, minimumVersion: Int) async throws -> (list: KeyList, dropped: [PackID]) {
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
            return try dropSlots(unvouchedBy: list)
        }
        return (list, dropped)
    }

    /// Deletes the cached slots `list` no longer vouches for, and returns the active packs among
    /// them; a locale whose active pack went falls back on its previous one. Call with `lock` held.
    private func dropSlots(unvouchedBy list: KeyList) throws -> [PackID] {
        // Out of use first, then off the disk: a removal that fails leaves a file the next start
        // refuses, never a pack in memory that the saved list no longer vouches for.
        var dropped: [PackID] = []
        var unvouched: [String] = []
        for locale in storage.children("packs") {
            for slot in [Slot.previous, .pending, .active] {
                let name = slot.file(locale)
                guard let bytes = storage.read(name) else { continue }
                let vouched = PackSlot(bytes).map { cached in
                    (try? signatureCheck.vouch(
                        cached.manifest, signature: cached.signature, path: SiteLayout.manifest(locale), held: list,
                        now: nil)) != nil
                }
                if vouched == true { continue }
                unvouched.append(name)
                if slot == .active, let pack = active.removeValue(forKey: locale) { dropped.append(pack.id) }
            }
        }
        defer { publish() }
        for name in unvouched { try storage.remove(name) }
        for locale in storage.children("packs") {
            if !storage.exists(Slot.active.file(locale)), let previous = verifiedSlot(.previous, of: locale) {
                try move(.previous, to: .active, of: locale)
                active[locale] = previous
            }
        }
        return dropped
    }
}
