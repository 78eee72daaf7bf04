/// Read access to the packs a repository holds, as the linter and the fallback chain need it.
/// The store implements it over a git tree; tests implement it over a dictionary.
public protocol PackCatalog {
    /// Content versions of `locale`, ascending; empty when the locale has no pack.
    func contentVersions(of locale: String) throws -> [Int]
    func pack(_ id: PackID) throws -> Pack?
}

extension PackCatalog {
    public func newestPack(of locale: String) throws -> Pack? {
        guard let newest = try contentVersions(of: locale).last else { return nil }
        return try pack(PackID(locale: locale, contentVersion: newest))
    }

    /// The newest pack of `locale` older than `version`: what a new version is compared with.
    public func previousPack(of locale: String, before version: Int) throws -> Pack? {
        guard let previous = try contentVersions(of: locale).last(where: { $0 < version }) else { return nil }
        return try pack(PackID(locale: locale, contentVersion: previous))
    }
}

/// A catalog with some packs laid over it: lets a batch be linted as if it were already stored.
public struct OverlayCatalog: PackCatalog {
    public let base: PackCatalog
    public let overlay: [PackID: Pack]

    public init(base: PackCatalog, adding packs: [Pack]) {
        self.base = base
        self.overlay = Dictionary(packs.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func contentVersions(of locale: String) throws -> [Int] {
        let added = overlay.keys.filter { $0.locale == locale }.map(\.contentVersion)
        return Array(Set(try base.contentVersions(of: locale) + added)).sorted()
    }

    public func pack(_ id: PackID) throws -> Pack? {
        if let pack = overlay[id] { return pack }
        return try base.pack(id)
    }
}

/// An in-memory catalog, for standalone lint and for tests.
public struct MemoryCatalog: PackCatalog {
    public var packs: [PackID: Pack]

    public init(_ packs: [Pack] = []) {
        self.packs = Dictionary(packs.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    public func contentVersions(of locale: String) throws -> [Int] {
        packs.keys.filter { $0.locale == locale }.map(\.contentVersion).sorted()
    }

    public func pack(_ id: PackID) throws -> Pack? { packs[id] }
}

/// The order in which a device looks for a key (docs/pack-format.md, "Fallback chain"; the index
/// publishes it per locale, docs/manifest.md, "The chain of a device"): the locale itself, its
/// less specific forms that have packs (`tr-TR` then `tr`), then the `fallbackLocale` declared by the
/// newest pack of the locale it came from (or, if that declares none, of its nearest parent), and so
/// on; finally the policy's default locale; after the list, the strings bundled in the app.
public enum FallbackChain {
    /// The loop itself, in the order it is followed, starting and ending at the same locale
    /// (`es -> es-ES -> es`), without the steps that led into it.
    public struct Cycle: Error, Equatable {
        public let locales: [String]
    }

    public static func locales(for locale: String, defaultLocale: String, catalog: PackCatalog) throws -> [String] {
        var chain: [String] = []
        func add(_ candidate: String) throws {
            if !chain.contains(candidate), !(try catalog.contentVersions(of: candidate).isEmpty) {
                chain.append(candidate)
            }
        }
        // Every locale the search steps through: the fallbacks followed and the less specific form
        // whose declaration was taken (es-ES -> es when only es declares one). Each one decides the
        // next step on its own, so reaching one twice is a loop.
        var path: [String] = []
        func step(_ to: String) throws {
            if let start = path.firstIndex(of: to) { throw Cycle(locales: Array(path[start...]) + [to]) }
            path.append(to)
        }
        var current: String? = locale
        while let here = current {
            try step(here)
            try add(here)
            let parents = (try? LocaleTag.parse(here))?.truncationParents ?? []
            for parent in parents { try add(parent) }
            var next: String?
            for candidate in [here] + parents {
                if let declared = try catalog.newestPack(of: candidate)?.fallbackLocale {
                    if candidate != here { try step(candidate) }
                    next = declared
                    break
                }
            }
            current = next
        }
        try add(defaultLocale)
        return chain
    }
}
