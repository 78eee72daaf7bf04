import Foundation
import RolloutModel

extension RolloutClient {
    /// Makes every pending pack a refresh round committed active. Call it at a safe moment (a new
    /// screen, the app coming to the foreground); a pending pack also becomes active at the next
    /// start. Returns the packs that became active.
    @discardableResult
    public func activatePending() -> [PackID] {
        // Verified outside the lock: the checks are the slow part.
        var ready: [(locale: String, bytes: [UInt8], pack: LoadedPack)] = []
        for locale in storage.children("packs") {
            let name = Slot.pending.file(locale)
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
            for item in ready where storage.read(Slot.pending.file(item.locale)) == item.bytes {
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
            active[locale] = nil
            try? storage.remove(Slot.active.file(locale))
            for slot in [Slot.previous, .pending] where storage.exists(slot.file(locale)) {
                if let candidate = slot == .pending ? committedPending(locale) : verifiedSlot(slot, of: locale),
                    (try? move(slot, to: .active, of: locale)) != nil
                {
                    active[locale] = candidate
                    break
                }
                try? storage.remove(slot.file(locale))
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
}
