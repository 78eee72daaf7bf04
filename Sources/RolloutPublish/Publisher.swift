import Foundation
import RolloutCrypto
import RolloutModel
import RolloutStore

/// Writes the static site devices download (docs/manifest.md): an index, one manifest per locale,
/// the packs under immutable paths, and a detached Ed25519 signature beside every manifest.
/// The same state always gives the same bytes; files whose bytes are already there are not rewritten.
public struct Publisher {
    public struct Report {
        public var written: [String] = []
        public var unchanged = 0
        public var removed: [String] = []
        public var bytesWritten = 0
        public var indexSequence = 0
        public var locales: [(locale: String, sequence: Int)] = []
    }

    public let snapshot: Snapshot
    public let key: Ed25519.PrivateKey

    public init(snapshot: Snapshot, key: Ed25519.PrivateKey) {
        self.snapshot = snapshot
        self.key = key
    }

    /// Every file of the site, in the order it must be written: packs, then manifests, then the index,
    /// so a device that reads the index finds everything it points at. Also the pack files to remove.
    public func files() throws -> (files: [(path: String, bytes: [UInt8])], remove: Set<String>, index: SiteIndex) {
        let policy = try snapshot.policy()
        let tipTime = try snapshot.commit.map { Timestamp(seconds: try snapshot.repository.commit($0).author.time) } ?? Timestamp(seconds: 0)
        var packFiles: [(String, [UInt8])] = []
        var manifestFiles: [(String, [UInt8])] = []
        var entries: [String: SiteIndex.Entry] = [:]
        var blockedVersions: [String: [Int]] = [:]
        let locales = try snapshot.plannedLocales()
        for locale in locales {
            guard let plan = try snapshot.plan(locale) else { continue }
            blockedVersions[locale] = plan.blocked
            var versions = Set(plan.baselines.map(\.contentVersion) + plan.rules.map(\.pack.contentVersion))
            versions.subtract(plan.blocked)
            var packs: [Int: LocaleManifest.PackEntry] = [:]
            for version in versions.sorted() {
                let id = PackID(locale: locale, contentVersion: version)
                guard let bytes = try snapshot.storedPackBytes(id) else {
                    throw RolloutError.internal("the plan of \(locale) names \(id), which the repository does not hold; check it with git fsck")
                }
                let parsed = try PackParser.parse(bytes, source: StateLayout.pack(id), maximumBytes: Int.max)
                let digest = SHA256.hex(bytes)
                let url = SiteLayout.pack(id, sha256: digest)
                // Stored packs carry their checksum, which parsing just verified: no need to compute it again.
                packs[version] = LocaleManifest.PackEntry(
                    url: url, bytes: bytes.count, sha256: digest, checksum: parsed.declaredChecksum ?? parsed.pack.checksum,
                    minAppVersion: parsed.pack.minAppVersion.description, schemaVersion: parsed.pack.schemaVersion)
                packFiles.append((url, bytes))
            }
            let manifest = LocaleManifest(locale: locale, sequence: plan.sequence, time: plan.lastChange?.time ?? tipTime, plan: plan, packs: packs)
            let bytes = manifest.bytes
            let path = SiteLayout.manifest(locale)
            manifestFiles.append((path, bytes))
            manifestFiles.append((SiteLayout.signature(of: path), DetachedSignature.encode(key.sign(bytes))))
            let chain = try FallbackChain.locales(for: locale, defaultLocale: policy.defaultLocale, catalog: snapshot).filter { locales.contains($0) }
            entries[locale] = SiteIndex.Entry(sequence: plan.sequence, manifest: path, chain: chain)
        }
        // The index moves whenever any manifest does: the sum of the plans' sequences only grows.
        let index = SiteIndex(
            sequence: entries.values.reduce(0) { $0 + $1.sequence }, time: tipTime, defaultLocale: policy.defaultLocale, locales: entries)
        let indexBytes = index.bytes
        var remove: Set<String> = []
        for (locale, blocked) in blockedVersions {
            for version in blocked { remove.insert("packs/\(locale)/\(version).") }
        }
        let all = packFiles + manifestFiles + [(SiteLayout.index, indexBytes), (SiteLayout.signature(of: SiteLayout.index), DetachedSignature.encode(key.sign(indexBytes)))]
        return (all, remove, index)
    }

    /// Writes the site into `directory`, creating it if needed.
    public func publish(to directory: String) throws -> Report {
        let (files, removePrefixes, index) = try files()
        var report = Report()
        report.indexSequence = index.sequence
        report.locales = index.locales.map { ($0.key, $0.value.sequence) }.sorted { $0.0 < $1.0 }
        let fm = FileManager.default
        for (path, bytes) in files {
            let full = directory + "/" + path
            if let existing = fm.contents(atPath: full), existing.count == bytes.count, existing == Data(bytes) {
                report.unchanged += 1
                continue
            }
            do {
                try fm.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                // Write beside, then rename: a reader never sees half a file.
                try Data(bytes).write(to: URL(fileURLWithPath: full), options: .atomic)
            } catch {
                throw RolloutError.badInput("cannot write \(full): \(error.localizedDescription)")
            }
            report.written.append(path)
            report.bytesWritten += bytes.count
        }
        // Blocked packs leave the site, so not even a stale manifest in some cache can fetch them.
        for prefix in removePrefixes.sorted() {
            let folder = directory + "/" + (prefix as NSString).deletingLastPathComponent
            let stem = (prefix as NSString).lastPathComponent
            for name in (try? fm.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(stem) && name.hasSuffix(".json") {
                try fm.removeItem(atPath: folder + "/" + name)
                report.removed.append((prefix as NSString).deletingLastPathComponent + "/" + name)
            }
        }
        return report
    }
}
