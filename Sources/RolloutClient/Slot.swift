/// The three places a locale's pack can be in the device's cache (docs/client.md, "Activation and
/// rollback on the device"). The raw values are the file names on the device (see DeviceStorage):
/// a cache written by any earlier build reads the same.
enum Slot: String {
    /// The pack in use.
    case active
    /// Verified by a refresh round, waiting for `activatePending()` or the next start.
    case pending
    /// The last good pack before `active`: what a rollback returns to.
    case previous

    /// The folder of a locale's slots, `packs/<locale>`.
    static func folder(_ locale: String) -> String { "packs/\(locale)" }

    /// The slot's file for `locale`, `packs/<locale>/<slot>`, relative to the cache directory.
    func file(_ locale: String) -> String { "\(Slot.folder(locale))/\(rawValue)" }
}
