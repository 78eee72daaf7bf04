/// The most a device reads of each kind of site file, and so the most `rollout verify-site` reads
/// (docs/client.md, "Size limits"; the conformance kit's limits.json; the Java client's
/// SizeLimits): the one table. A reader stops at one byte past a file's limit and refuses the file
/// (`too-large` on a device, a problem in verify-site), so that a hostile or broken server, CDN or
/// disk cannot make it hold more in memory.
public enum SiteSizeLimits {
    /// `keys.json` and `keys/<n>.json`.
    public static let keyList = 262_144
    /// `.sig` and `.sigs` files.
    public static let signature = 16_384
    /// `index.json`.
    public static let index = 1_048_576
    /// `manifests/<locale>.json`.
    public static let manifest = 1_048_576
    /// A pack is read up to the size its manifest entry states, and never more than this.
    public static let pack = 16_777_216

    /// The limit of a pack whose manifest entry states `stated` bytes: that size, capped at `pack`.
    public static func pack(stated: Int) -> Int { min(max(0, stated), pack) }

    /// The limit of the site file at `path` (a path inside the site, as `SiteLayout` names them);
    /// a pack's limit is `pack(stated:)`, its manifest entry's size, and this is its upper bound.
    public static func limit(of path: String) -> Int {
        if path.hasSuffix(".sig") || path.hasSuffix(".sigs") { return signature }
        if path == SiteLayout.keys || path.hasPrefix("keys/") { return keyList }
        if path == SiteLayout.index { return index }
        if path.hasPrefix("manifests/") { return manifest }
        return pack
    }

    /// The table as the docs and the conformance kit list it: kind, files, bytes.
    public static let table: [(kind: String, files: String, bytes: Int)] = [
        ("keys", "keys.json and keys/<n>.json", keyList),
        ("signature", "*.sig and *.sigs", signature),
        ("index", "index.json", index),
        ("manifest", "manifests/<locale>.json", manifest),
        ("pack", "a pack entry's url: at most the bytes the entry states, and never more than this", pack),
    ]

    /// The one wording of a file over its limit, for a device's `too-large` and verify-site.
    public static func tooLarge(_ file: String, limit: Int) -> String {
        "\(file): larger than \(limit) bytes, the most a device reads of this file"
    }
}
