import Foundation
import RolloutModel

extension RolloutClient {
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
        enum Begin {
            case busy
            case tooSoon(TimeInterval)
            case go(locale: String, lastSequence: Int)
        }
        let begin = lock.withLock { () -> Begin in
            if refreshing { return .busy }
            if !force, let last = state.lastRefresh {
                // A clock set back makes the interval over: the device would otherwise wait for it.
                let elapsed = now.timeIntervalSince1970 - TimeInterval(last)
                if elapsed >= 0 && elapsed < options.minimumRefreshInterval {
                    return .tooSoon(options.minimumRefreshInterval - elapsed)
                }
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
                return .failed(Failure(error))
            }
        }
    }

    /// The file at `url`, of at most `limit` bytes (`SizeLimits`). Whatever the transport throws
    /// is a `TransportError` here, so that a refresh's failure names its reason: an error of
    /// another type (an app's own transport) counts as no response.
    func fetch(_ url: URL, limit: Int) async throws -> [UInt8] {
        if let why = refusal(of: url) { throw TransportError(reason: .insecureURL, why) }
        let transport = options.transport
        let data: Data
        do {
            data = try await withTimeout(options.timeout) { try await transport.fetch(url, limit: limit) }
        } catch let error as TransportError {
            throw error
        } catch is CancellationError {
            throw TransportError(reason: .cancelled, "\(url): cancelled")
        } catch {
            throw TransportError(error, url: url)
        }
        // A transport that read past the limit has spent the memory; the file is still refused.
        guard data.count <= limit else { throw TransportError.tooLarge(url, limit: limit) }
        return [UInt8](data)
    }

    func siteURL(_ path: String) -> URL { manifestURL.deletingLastPathComponent().appendingPathComponent(path) }

    /// A manifest of the chain, fetched and verified, with what its plan gives this device.
    private struct FetchedManifest {
        let locale: String
        let bytes: [UInt8]
        let signature: [UInt8]
        let manifest: LocaleManifest
        let outcome: Resolution.Outcome
        /// The experiment variant the plan puts this device in (counted only for its own locale).
        let variant: Plan.Experiment.Variant?
    }

    /// A cached slot a manifest forbids (see `forbiddenSlots`), with the pack it held if it reads.
    private struct Removal {
        let locale: String
        let slot: Slot
        let id: PackID?
    }

    /// A pack of the round, verified and waiting for the commit, with the signed manifest that
    /// vouches for it.
    private struct ReadyPack {
        let locale: String
        let slot: PackSlot
        let pack: LoadedPack
    }

    /// The slots of a manifest's locale it forbids: every slot of a locale under its kill switch,
    /// a blocked (or unreadable) pack in any slot, and the active pack of a locale that gives this
    /// device nothing (an app too old for every pack). A pending pack the plan has moved past is
    /// not forbidden: it belongs to an earlier committed round, and only this round's commit
    /// replaces it (a round that fails leaves the earlier one whole).
    private func forbiddenSlots(_ item: FetchedManifest) -> [Removal] {
        [Slot.previous, .pending, .active].compactMap { slot in
            guard storage.exists(slot.file(item.locale)) else { return nil }
            let id = storedID(slot, of: item.locale)
            let blocked = id.map { item.manifest.plan.isBlocked($0.contentVersion) } ?? true
            let gone: Bool
            switch slot {
            case .active: gone = item.outcome == .bundled
            case .pending: gone = id == nil
            case .previous: gone = false
            }
            return blocked || item.manifest.plan.bundledOnly || gone
                ? Removal(locale: item.locale, slot: slot, id: id) : nil
        }
    }

    /// One round (docs/client.md, Refresh): the key list, the index and every manifest of the
    /// chain verified; what they say taken into effect (1); the packs their plans give this device
    /// downloaded and verified (2); and all of them staged in one commit (3), or none.
    private func refresh(locale: String, lastSequence: Int, at now: Date, changes: inout [Change]) async throws
        -> RefreshResult
    {
        let time = Timestamp(seconds: Int64(now.timeIntervalSince1970.rounded(.down)))
        let (list, unvouched) = try await keyList()
        if !unvouched.isEmpty { changes.append(Change(reason: .dropped, packs: unvouched, locale: locale)) }
        let index = try await fetchIndex(list: list, at: time, lastSequence: lastSequence)
        // Every manifest of the chain first: a refresh acts on one consistent publish or not at all.
        let manifests = try await fetchManifests(of: index, for: locale, list: list, at: time)
        let forbidden = try takeEffect(index, manifests, of: locale, at: now)
        if !forbidden.isEmpty { changes.append(Change(reason: .dropped, packs: forbidden, locale: locale)) }
        let dropped = unvouched + forbidden
        let (ready, failures) = await download(manifests)
        if let first = failures.first {
            // A pack held back by another's failure fails for that reason: the round stands or falls whole.
            let waiting = ready.map {
                Failure(first.reason, "\($0.pack.id): not staged, another pack of the round failed")
            }
            return .partial(staged: [], dropped: dropped, failures: failures + waiting)
        }
        let activated: [PackID]
        switch try commit(ready, superseding: superseded(manifests, ready: ready), dropped: dropped) {
        case .failed(let failure): return .partial(staged: [], dropped: dropped, failures: [failure])
        case .committed(let ids): activated = ids
        }
        if !activated.isEmpty { changes.append(Change(reason: .activated, packs: activated, locale: locale)) }
        let ids = ready.map(\.pack.id)
        return ids.isEmpty ? .upToDate(dropped: dropped) : .staged(staged: ids, dropped: dropped)
    }

    /// The key list the site's signatures are checked against (nil: the app pins one key), and
    /// the active packs a newer list no longer vouches for (see `acceptKeyList`).
    private func keyList() async throws -> (list: KeyList?, dropped: [PackID]) {
        switch signatureCheck {
        case .unusable(let why): throw Failure(.misconfigured, why)
        case .pinned: return (nil, [])
        case .roots(let roots, _, let minimumKeysVersion):
            let accepted = try await acceptKeyList(roots: roots, minimumVersion: minimumKeysVersion)
            return (accepted.list, accepted.dropped)
        }
    }

    /// `index.json`, signed, parsed, and one this device may switch to (not a replay, not expired).
    private func fetchIndex(list: KeyList?, at time: Timestamp, lastSequence: Int) async throws -> SiteIndex {
        let bytes = try await fetch(manifestURL, limit: SizeLimits.index)
        let signature = try await fetch(
            siteURL(signatureCheck.signatureFile(of: manifestURL.lastPathComponent)), limit: SizeLimits.signature)
        try signatureCheck.vouch(bytes, signature: signature, path: SiteLayout.index, held: list, now: time)
        let index = try SiteIndex.parse(bytes, source: SiteLayout.index)
        // An expired index changes nothing: the device keeps what it has, and its status says stale.
        try KeyChain.checkIndex(
            index, now: time, accepted: lastSequence, builtInMinimum: options.minimumIndexSequence,
            requireExpiry: signatureCheck.usesKeyList)
        return index
    }

    /// The manifest of every locale of `locale`'s chain, signed, for the locale and sequence the
    /// index lists, each resolved for this device.
    private func fetchManifests(
        of index: SiteIndex, for locale: String, list: KeyList?, at time: Timestamp
    ) async throws -> [FetchedManifest] {
        var manifests: [FetchedManifest] = []
        for name in index.chain(for: locale) {
            guard let entry = index.locales[name], entry.manifest == SiteLayout.manifest(name) else {
                throw Failure(.damaged, "index.json: the chain of \(locale) names \(name), which it does not list")
            }
            let bytes = try await fetch(siteURL(entry.manifest), limit: SizeLimits.manifest)
            let signature = try await fetch(
                siteURL(signatureCheck.signatureFile(of: entry.manifest)), limit: SizeLimits.signature)
            try signatureCheck.vouch(bytes, signature: signature, path: entry.manifest, held: list, now: time)
            let manifest = try LocaleManifest.parse(bytes, source: entry.manifest)
            guard manifest.locale == name, manifest.sequence == entry.sequence else {
                throw Failure.mixedPublishes(entry, name: name, manifest: manifest)
            }
            let outcome = Resolution.outcome(
                manifest.plan, region: region, appVersion: appVersion, installID: installID)
            let variant = Resolution.experimentVariant(
                manifest.plan, region: region, appVersion: appVersion, installID: installID)
            manifests.append(
                FetchedManifest(
                    locale: name, bytes: bytes, signature: signature, manifest: manifest, outcome: outcome,
                    variant: variant))
        }
        return manifests
    }

    /// Step 1: what the verified index and manifests say takes effect now, even if a download
    /// below fails: the sequence, the chains, the blocks and kill switches, the experiment variant
    /// `locale`'s plan puts the device in, and away with the packs they forbid. Returns the active
    /// packs that went.
    private func takeEffect(_ index: SiteIndex, _ manifests: [FetchedManifest], of locale: String, at now: Date)
        throws -> [PackID]
    {
        try lock.withLock { () throws -> [PackID] in
            guard state.indexSequence <= index.sequence else {
                throw Failure(.superseded, "a newer index was accepted meanwhile")
            }
            let removals = manifests.flatMap(forbiddenSlots)
            try save { next in
                next.indexSequence = index.sequence
                next.indexExpires = index.expires
                next.chains = index.locales.mapValues(\.chain)
                next.fallbackChains = index.locales.compactMapValues(\.fallbackChain)
                next.defaultLocale = index.defaultLocale
                next.lastRefresh = Int64(now.timeIntervalSince1970.rounded(.down))
                next.staged.subtract(removals.filter { $0.slot == .pending }.compactMap { $0.id?.description })
                next.experiment = manifests.first { $0.locale == locale }.flatMap { item in
                    item.manifest.plan.experiment.flatMap { experiment in
                        item.variant.map { ExperimentAssignment(experiment, variant: $0, locale: locale) }
                    }
                }
                for item in manifests {
                    next.blocked[item.locale] = item.manifest.plan.blocked.sorted()
                    next.bundleOnly[item.locale] =
                        item.manifest.bundleOnly.isEmpty ? nil : item.manifest.bundleOnly.spellings
                    if item.manifest.plan.bundledOnly {
                        next.killed.insert(item.locale)
                    } else {
                        next.killed.remove(item.locale)
                    }
                }
            }
            for removal in removals {
                try storage.remove(removal.slot.file(removal.locale))
                if removal.slot == .active { active[removal.locale] = nil }
            }
            publish()
            return removals.filter { $0.slot == .active }.compactMap(\.id)
        }
    }

    /// Step 2: the packs the plans give this device, all downloaded and verified before any is
    /// staged; a pack that fails is a failure, and the others wait.
    private func download(_ manifests: [FetchedManifest]) async -> (ready: [ReadyPack], failures: [Failure]) {
        var ready: [ReadyPack] = []
        var failures: [Failure] = []
        for item in manifests {
            guard case .pack(let version) = item.outcome else { continue }
            let id = PackID(locale: item.locale, contentVersion: version)
            let (have, failed) = lock.withLock { (active[item.locale]?.id, state.failed.contains(id.description)) }
            if have == id || failed { continue }
            if let pending = committedPending(item.locale), pending.id == id { continue }
            do {
                ready.append(try await readyPack(id, from: item))
            } catch {
                let failure = Failure(error)
                failures.append(Failure(failure.reason, "\(id): \(failure.message)"))
            }
        }
        return (ready, failures)
    }

    /// Pack `id`, which the plan of `item` gives this device, verified.
    private func readyPack(_ id: PackID, from item: FetchedManifest) async throws -> ReadyPack {
        // Back to the pack it had before (a revert): it is in the cache, verified by the signed
        // manifest that delivered it.
        if let bytes = storage.read(Slot.previous.file(item.locale)), let slot = PackSlot(bytes),
            let cached = try? verify(slot, locale: item.locale), cached.id == id
        {
            return ReadyPack(locale: item.locale, slot: slot, pack: cached)
        }
        // `entry.url` is the one form LocaleManifest.parse accepts (SiteLayout.isSafePackURL).
        guard let entry = item.manifest.packs[id.contentVersion] else {
            throw Failure(.damaged, "\(item.locale): the plan gives \(id), the manifest does not list it")
        }
        // Never more than the manifest says: a longer file is not this pack, and is not read past it.
        let bytes = try await fetch(siteURL(entry.url), limit: SizeLimits.pack(stated: entry.bytes))
        let slot = PackSlot(manifest: item.bytes, signature: item.signature, pack: bytes)
        let pack = try verify(slot, locale: item.locale)
        guard pack.id == id else { throw Failure(.packMismatch, "\(entry.url) holds \(pack.id), not \(id)") }
        return ReadyPack(locale: item.locale, slot: slot, pack: pack)
    }

    /// The pending packs of earlier rounds that this round's plans moved past (another version, the
    /// active one, or nothing), or that a pack of this round replaces: they go in the same commit.
    private func superseded(_ manifests: [FetchedManifest], ready: [ReadyPack]) -> [PackID] {
        manifests.compactMap { item -> PackID? in
            guard let old = storedID(.pending, of: item.locale) else { return nil }
            if ready.contains(where: { $0.locale == item.locale }) { return old }
            let keep = item.outcome == .pack(old.contentVersion) && lock.withLock { active[item.locale]?.id != old }
            return keep ? nil : old
        }
    }

    private enum Commit {
        /// The round is staged; these packs replaced an active pack step 1 took away.
        case committed(activated: [PackID])
        /// The packs could not be written; the index and manifests took effect in step 1.
        case failed(Failure)
    }

    /// Step 3, the commit: every pending file written, then the state that lists them. A process
    /// killed before the state is written leaves pending files no start or activation uses.
    private func commit(_ ready: [ReadyPack], superseding superseded: [PackID], dropped: [PackID]) throws -> Commit {
        try lock.withLock { () throws -> Commit in
            do {
                for item in ready { try storage.write(Slot.pending.file(item.locale), item.slot.bytes) }
                for old in superseded where !ready.contains(where: { $0.locale == old.locale }) {
                    try storage.remove(Slot.pending.file(old.locale))
                }
                try save {
                    $0.staged.subtract(superseded.map(\.description))
                    $0.staged.formUnion(ready.map(\.pack.id.description))
                }
            } catch let crash as DeviceStorage.SimulatedCrash {
                throw crash
            } catch {
                return .failed(Failure(.storageFailed, "the packs could not be staged: \(Failure(error).message)"))
            }
            // A locale whose active pack was just taken away has nothing on screen to keep
            // consistent: its replacement becomes active now.
            var activated: [PackID] = []
            for item in ready where active[item.locale] == nil && dropped.contains(where: { $0.locale == item.locale })
            {
                try promotePending(item.locale)
                try save { $0.staged.remove(item.pack.id.description) }
                active[item.locale] = item.pack
                activated.append(item.pack.id)
            }
            publish()
            return .committed(activated: activated)
        }
    }
}

extension RolloutClient.Failure {
    /// A manifest that is not the one the index lists for `name`.
    fileprivate static func mixedPublishes(_ entry: SiteIndex.Entry, name: String, manifest: LocaleManifest)
        -> RolloutClient.Failure
    {
        RolloutClient.Failure(
            .damaged,
            "\(entry.manifest): sequence \(manifest.sequence) for \(manifest.locale), the index says \(entry.sequence) for \(name) (a cache mixed two publishes)"
        )
    }
}
