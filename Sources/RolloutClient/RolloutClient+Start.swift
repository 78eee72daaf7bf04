import Foundation
import RolloutModel

extension RolloutClient {
    /// A locale's packs at start: a pending pack becomes active now (this is the next launch), an
    /// active pack that no longer verifies gives way to the previous one, and anything blocked,
    /// failed, killed or damaged is deleted. A bad active pack is deleted before a pending one is
    /// promoted, so that it never becomes the "previous" (last good) pack.
    func start(_ locale: String) {
        let current = verifiedSlot(.active, of: locale)
        if current == nil { try? storage.remove(Slot.active.file(locale)) }
        if let pending = committedPending(locale) {
            // Only a launch activates what a refresh staged: a client made to look at the cache
            // (`countsLaunch == false`, `rollout device status`) leaves it waiting.
            if options.countsLaunch, (try? promotePending(locale)) != nil {
                active[locale] = pending
                return
            }
        } else {
            try? storage.remove(Slot.pending.file(locale))
        }
        if let current, storage.exists(Slot.active.file(locale)) {
            active[locale] = current
            return
        }
        if let previous = verifiedSlot(.previous, of: locale), (try? move(.previous, to: .active, of: locale)) != nil {
            active[locale] = previous
        } else {
            try? storage.remove(Slot.previous.file(locale))
        }
    }

    /// pending -> active, keeping the active one as previous. A process killed between the two
    /// renames finds no active pack but a previous and a pending one, and finishes the job.
    func promotePending(_ locale: String) throws {
        if storage.exists(Slot.active.file(locale)) { try move(.active, to: .previous, of: locale) }
        try move(.pending, to: .active, of: locale)
    }

    /// Renames one slot of `locale` to another, replacing what was there.
    func move(_ from: Slot, to: Slot, of locale: String) throws {
        try storage.rename(from.file(locale), to.file(locale))
    }

    /// The pending pack of `locale`, if it verifies and a refresh round committed it (a round
    /// killed before its commit leaves pending files that are never used).
    func committedPending(_ locale: String) -> LoadedPack? {
        guard let pending = verifiedSlot(.pending, of: locale) else { return nil }
        return lock.withLock { state.staged.contains(pending.id.description) } ? pending : nil
    }

    /// Writes the state with `change` applied, if that changes it, and keeps it in memory once it
    /// is on disk. Call with `lock` held.
    func save(_ change: (inout DeviceState) -> Void) throws {
        var next = state
        change(&next)
        guard next != state else { return }
        try storage.write(DeviceState.file, next.bytes)
        state = next
    }
}
