import Foundation
import RolloutCrypto
import RolloutModel
import RolloutStore

/// Checks a published site the way a device would (signatures, sequences, pack digests, checksums,
/// schema, blocked versions), and, given the repository, that devices resolving from the site get
/// exactly what `rollout resolve` says. A device on root keys first follows the key chain
/// (docs/keys.md, "What a device checks") through `KeyChain`, the same code the client runs.
public struct SiteVerifier {
    /// What the checking device has built in.
    public enum Trust {
        /// One public key (apps from before key lists): the `.sig` beside each signed file.
        case pinned(Ed25519.PublicKey)
        /// Root keys and their threshold: `keys.json`, then the `.sigs` beside each signed file.
        case roots(KeyList.Roots)
    }

    /// How far a device on root keys got: roots, the root-change lists it walked, the key list, the
    /// publishing key that signed the index, the index.
    public struct TrustChain {
        public var roots: KeyList.Roots
        public var rotations: [Int]
        public var keysVersion: Int
        public var publishingKey: String?
        public var publishingKeyExpires: Timestamp?
        public var indexSequence: Int?
        public var indexExpires: Timestamp?
    }

    /// What is wrong with the site, found in one pass; the command line words the way past a
    /// problem where an option of its own is the way.
    public enum Problem: Equatable, Sendable, ExpressibleByStringInterpolation {
        /// A problem in words no option of the command line changes.
        case said(String)
        /// A legacy `.sig` that no publishing key of keys.json version `keysVersion` made: apps that
        /// pin one key refuse the file.
        case legacySignatureUnlisted(String, keysVersion: Int)

        public init(stringLiteral value: String) { self = .said(value) }
        public init(stringInterpolation: DefaultStringInterpolation) {
            self = .said(String(stringInterpolation: stringInterpolation))
        }
    }

    public struct Report {
        public var problems: [Problem] = []
        public var manifests = 0
        public var packs = 0
        public var resolutions = 0
        public var indexSequence = 0
        /// Set when the device trusts root keys and accepted the site's key list.
        public var trust: TrustChain?
    }

    public let directory: String
    public let trust: Trust
    /// The device's clock: indexes and publishing keys expire.
    public let now: Timestamp

    public init(directory: String, trust: Trust, now: Timestamp) {
        self.directory = directory
        self.trust = trust
        self.now = now
    }

    /// The file at `path` of the site, nil when it is missing; a file over `limit` (by default the
    /// one `SiteSizeLimits` gives its kind) throws `TooLarge` after reading one byte past the limit
    /// at most, as a device stops its download there.
    private func read(_ path: String, limit: Int? = nil) throws(TooLarge) -> [UInt8]? {
        let limit = limit ?? SiteSizeLimits.limit(of: path)
        let file = directory + "/" + path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return nil
        }
        if let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.intValue,
            size > limit
        {
            throw TooLarge(path: path, limit: limit)
        }
        guard let handle = FileHandle(forReadingAtPath: file) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: limit + 1) else { return [] }
        if data.count > limit { throw TooLarge(path: path, limit: limit) }
        return [UInt8](data)
    }

    /// A site file over its size limit: what a device refuses as `too-large`.
    struct TooLarge: Error, CustomStringConvertible {
        let path: String
        let limit: Int
        var description: String { SiteSizeLimits.tooLarge(path, limit: limit) + ": devices refuse it (too-large)" }
    }

    /// The file at `path`, nil when it is missing or over its limit (a problem in `report`).
    private func read(_ path: String, limit: Int? = nil, _ report: inout Report) -> [UInt8]?? {
        do {
            return .some(try read(path, limit: limit))
        } catch {
            report.problems.append(.said(error.description))
            return nil
        }
    }

    /// A file with its `.sigs`, as a device fetches it; a problem when either is missing.
    private func withSignatures(_ path: String, _ report: inout Report) -> SignedFile? {
        guard let (bytes, signatures) = fileAndSignature(path, SiteLayout.signatures(of: path), &report) else {
            return nil
        }
        return SignedFile(path: path, bytes: bytes, signatures: signatures)
    }

    /// A signed file: its bytes when a signature beside it is one the device trusts; a problem
    /// otherwise. Under a key list: the `.sigs` by a listed, unrevoked, unexpired publishing key,
    /// and the legacy `.sig`, when there, by one of the list's publishing keys (apps that pin one
    /// key read it); returns the publishing key that vouched. Pinned: the `.sig` by `publicKey`.
    private func signed(_ path: String, by signer: Signer, _ report: inout Report) -> (
        bytes: [UInt8], publisher: String?
    )? {
        switch signer {
        case .pinned(let publicKey): return pinnedSigned(path, publicKey, &report).map { ($0, nil) }
        case .list(let list):
            guard let file = withSignatures(path, &report) else { return nil }
            let publisher: String
            do {
                publisher = try KeyChain.publisher(of: file, list: list, now: now)
            } catch {
                report.problems.append("\(error)")
                return nil
            }
            if let legacy = read(SiteLayout.signature(of: path), &report) ?? nil,
                KeyChain.legacySigner(of: file.bytes, signature: legacy, list: list) == nil
            {
                report.problems.append(.legacySignatureUnlisted(path, keysVersion: list.version))
            }
            return (file.bytes, publisher)
        }
    }

    /// What vouches for the index and manifests: the pinned key, or the accepted key list.
    private enum Signer {
        case pinned(Ed25519.PublicKey)
        case list(KeyList)
    }

    /// A file and the signature file beside it; a problem naming whichever is missing.
    private func fileAndSignature(_ path: String, _ signaturePath: String, _ report: inout Report) -> (
        [UInt8], [UInt8]
    )? {
        guard let read = read(path, &report) else { return nil }
        guard let bytes = read else {
            report.problems.append("\(path): missing")
            return nil
        }
        guard let readSignature = self.read(signaturePath, &report) else { return nil }
        guard let signature = readSignature else {
            report.problems.append("\(signaturePath): missing, so \(path) cannot be trusted")
            return nil
        }
        return (bytes, signature)
    }

    private func pinnedSigned(_ path: String, _ publicKey: Ed25519.PublicKey, _ report: inout Report) -> [UInt8]? {
        guard let (bytes, signature) = fileAndSignature(path, SiteLayout.signature(of: path), &report) else {
            return nil
        }
        guard DetachedSignature.verify(signature, over: bytes, with: publicKey) else {
            report.problems.append(.signatureDoesNotVerify(path, publicKey))
            return nil
        }
        return bytes
    }

    /// The site's key list, accepted as a device that built in `roots` (and `minimumKeysVersion`)
    /// and holds no list yet accepts it: walking the root-change lists when `keys.json` is signed
    /// by newer roots. The trust line names only the lists it walked.
    private func acceptKeyList(
        _ roots: KeyList.Roots, minimumKeysVersion: Int, rotations: [Int: SignedFile], _ report: inout Report
    ) -> KeyList? {
        guard let latest = withSignatures(SiteLayout.keys, &report) else {
            report.problems.append(.keyListMissing)
            return nil
        }
        let anchor = KeyChain.Anchor(roots: roots, list: nil, minimumVersion: minimumKeysVersion)
        do {
            let accepted = try KeyChain.acceptWalking(latest, rotations: rotations, anchor: anchor)
            report.trust = TrustChain(roots: roots, rotations: accepted.walked, keysVersion: accepted.list.version)
            return accepted.list
        } catch {
            report.problems.append("\(error)")
            return nil
        }
    }

    /// Every root-change list (`keys/<n>.json` + `.sigs`, each `n` in `keys.json`'s rootChanges),
    /// read whatever the roots given here: an app built with older roots walks them, so a site
    /// (a CDN sync, say) that drops or changes one breaks every such app. Each must parse, carry
    /// version n, and, given the repository, be its bytes. Returns those that are there.
    private func rootChangeLists(against snapshot: Snapshot?, _ report: inout Report) -> [Int: SignedFile] {
        // A key list over its limit is reported where it is read as the one that vouches.
        guard let bytes = try? read(SiteLayout.keys), let latest = try? KeyList.parse(bytes, source: SiteLayout.keys)
        else {
            return [:]
        }
        var files: [Int: SignedFile] = [:]
        for version in latest.rootChanges {
            let path = SiteLayout.keys(version: version)
            guard let readBytes = read(path, &report),
                let readSignatures = read(SiteLayout.signatures(of: path), &report)
            else { continue }
            guard let bytes = readBytes, let signatures = readSignatures else {
                report.problems.append(.rootChangeMissing(path, version: version))
                continue
            }
            let file = SignedFile(path: path, bytes: bytes, signatures: signatures)
            do {
                let list = try KeyList.parse(bytes, source: path)
                if list.version != version {
                    report.problems.append("\(path): holds key list version \(list.version), not \(version)")
                }
            } catch {
                report.problems.append("\(error)")
            }
            if let snapshot, let stored = try? snapshot.signedKeyList(version),
                stored.bytes != bytes || stored.signatures != signatures
            {
                report.problems.append(.rootChangeNotTheRepositorys(path, version: version))
            }
            files[version] = file
        }
        return files
    }

    /// A site whose key list is older than the repository's newest: devices keep trusting what the
    /// newer list revoked or retired until it is published.
    private func compareKeyList(with snapshot: Snapshot, _ report: inout Report) {
        guard let newest = (try? snapshot.currentKeyList())?.list.version else { return }
        let site = (try? read(SiteLayout.keys)).flatMap { try? KeyList.parse($0, source: SiteLayout.keys) }
        if let site, site.version < newest {
            report.problems.append(.keyListBehind(site.version, newest: newest))
        } else if site == nil, case .pinned = trust {
            report.problems.append(.keyListNotPublished(newest: newest))
        }
    }

    /// `minimumSequence`: with a pinned key, the newest index sequence a device has already accepted
    /// (an older site is a replay); with root keys, the minimum sequence built into the app.
    /// `minimumKeysVersion`: with root keys, the oldest key list version the app accepts.
    public func verify(
        against snapshot: Snapshot?, minimumSequence: Int? = nil, minimumKeysVersion: Int = 0, installIDs: Int = 200
    ) -> Report {
        var report = Report()
        if let snapshot { compareKeyList(with: snapshot, &report) }
        let rotations = rootChangeLists(against: snapshot, &report)
        let signer: Signer
        switch trust {
        case .pinned(let key): signer = .pinned(key)
        case .roots(let roots):
            guard let list = acceptKeyList(roots, minimumKeysVersion: minimumKeysVersion, rotations: rotations, &report)
            else { return report }
            signer = .list(list)
        }
        guard let index = checkIndex(signer, minimumSequence: minimumSequence, &report) else { return report }
        if let snapshot { compareIndex(index, with: snapshot, &report) }
        let manifests = checkManifests(of: index, signer: signer, &report)
        for (locale, manifest) in manifests.sorted(by: { $0.key < $1.key }) {
            checkBlockedUnreachable(manifest, &report)
            if let snapshot { compare(manifest, locale: locale, with: snapshot, installIDs: installIDs, &report) }
        }
        return report
    }

    /// The index, signed, parsed, and one the device may switch to (`KeyChain.checkIndex`).
    private func checkIndex(_ signer: Signer, minimumSequence: Int?, _ report: inout Report) -> SiteIndex? {
        guard let (bytes, publisher) = signed(SiteLayout.index, by: signer, &report) else { return nil }
        let index: SiteIndex
        do {
            index = try SiteIndex.parse(bytes, source: SiteLayout.index)
        } catch {
            report.problems.append("\(error)")
            return nil
        }
        report.indexSequence = index.sequence
        if case .list(let list) = signer, let publisher {
            report.trust?.publishingKey = publisher
            report.trust?.publishingKeyExpires = list.publishing[publisher]?.expires
            report.trust?.indexSequence = index.sequence
            report.trust?.indexExpires = index.expires
        }
        do {
            switch signer {
            case .list:
                try KeyChain.checkIndex(
                    index, now: now, accepted: 0, builtInMinimum: minimumSequence ?? 0, requireExpiry: true)
            case .pinned:
                // A pinned device checks `expires` when the index has one.
                try KeyChain.checkIndex(
                    index, now: now, accepted: minimumSequence ?? 0, builtInMinimum: 0, requireExpiry: false)
            }
        } catch {
            report.problems.append("\(error)")
        }
        return index
    }

    /// A site behind the repository: a planned locale it lacks, or an older sequence.
    private func compareIndex(_ index: SiteIndex, with snapshot: Snapshot, _ report: inout Report) {
        guard let planned = try? snapshot.plannedLocales() else { return }
        for locale in planned where index.locales[locale] == nil {
            report.problems.append(.plannedLocaleMissing(locale))
        }
        if let expected = try? snapshot.indexSequence(), expected != index.sequence {
            report.problems.append(.staleIndex(index.sequence, expected: expected))
        }
    }

    /// Each manifest the index lists: signed, for its locale and sequence, its chain complete, its
    /// packs intact. Returns those that parsed, by locale.
    private func checkManifests(of index: SiteIndex, signer: Signer, _ report: inout Report) -> [String: LocaleManifest]
    {
        var manifests: [String: LocaleManifest] = [:]
        for (locale, entry) in index.locales.sorted(by: { $0.key < $1.key }) {
            guard let (bytes, _) = signed(entry.manifest, by: signer, &report) else { continue }
            let manifest: LocaleManifest
            do {
                manifest = try LocaleManifest.parse(bytes, source: entry.manifest)
            } catch {
                report.problems.append("\(error)")
                continue
            }
            report.manifests += 1
            if manifest.locale != locale {
                report.problems.append(.manifestOfAnotherLocale(entry.manifest, manifest.locale, listedFor: locale))
            }
            if manifest.sequence != entry.sequence {
                report.problems.append(.staleManifest(entry.manifest, manifest.sequence, indexSays: entry.sequence))
            }
            for missing in entry.chain + (entry.fallbackChain ?? []) where index.locales[missing] == nil {
                report.problems.append(.chainNamesUnlisted(locale, missing))
            }
            for range in manifest.unreadableRanges {
                report.problems.append(.unreadableRange(entry.manifest, range))
            }
            checkPacks(manifest, path: entry.manifest, &report)
            manifests[locale] = manifest
        }
        let total = manifests.values.reduce(0) { $0 + $1.sequence }
        if total > index.sequence && manifests.count == index.locales.count {
            report.problems.append(.indexSequenceBelowManifests(index.sequence, total: total))
        }
        return manifests
    }

    /// Every pack a manifest names must be there, byte for byte, and be the pack it claims to be.
    private func checkPacks(_ manifest: LocaleManifest, path: String, _ report: inout Report) {
        for (version, entry) in manifest.packs.sorted(by: { $0.key < $1.key }) {
            let id = PackID(locale: manifest.locale, contentVersion: version)
            // Never more than the entry states, as a device reads it.
            guard let read = read(entry.url, limit: SiteSizeLimits.pack(stated: entry.bytes), &report) else {
                report.packs += 1
                continue
            }
            guard let bytes = read else {
                report.problems.append("\(entry.url): missing (named by \(path) for \(id))")
                continue
            }
            report.packs += 1
            report.problems += problems(
                of: PackEntryCheck(bytes, entry: entry, id: id, source: entry.url), entry: entry, id: id, path: path
            ).map(Problem.said)
        }
        for ref in manifest.plan.baselines + manifest.plan.rules.map(\.pack)
        where !manifest.plan.isBlocked(ref.contentVersion) {
            if manifest.packs[ref.contentVersion] == nil {
                report.problems.append(.plannedPackUnlisted(path, manifest.locale, ref.contentVersion))
            }
        }
    }

    /// What a device would refuse in a pack file (`PackEntryCheck`, the device's own checks), and an
    /// entry whose minAppVersion is not the pack's. A file that does not match its size and digest,
    /// or does not parse, has that one problem.
    private func problems(of checked: PackEntryCheck, entry: LocaleManifest.PackEntry, id: PackID, path: String)
        -> [String]
    {
        var holds: String?
        var checksum: String?
        var schema: String?
        for problem in checked.problems {
            switch problem {
            case .sizeOrDigest: return ["\(entry.url): its bytes do not match the size and sha256 in \(path)"]
            case .unreadable(let error): return ["\(error)"]
            case .entrySchema(let version):
                schema = "\(path): \(id) has schemaVersion \(version), which devices do not understand"
            // A file without a checksum of its own: `rollout verify` reports it in the repository.
            case .checksum(_, let actual) where actual != entry.checksum:
                checksum = "\(entry.url): checksum \(actual), \(path) expects \(entry.checksum)"
            case .checksum: break
            // The parser refuses a pack schema it does not understand: only another id is left.
            case .identity(let found, _) where found != id:
                holds = "\(entry.url): holds \(found), \(path) expects \(id)"
            case .identity: break
            }
        }
        var minApp: String?
        if let pack = checked.parsed?.pack, pack.minAppVersion.description != entry.minAppVersion {
            minApp = "\(entry.url): minAppVersion \(pack.minAppVersion), \(path) says \(entry.minAppVersion)"
        }
        return [holds, checksum, minApp, schema].compactMap { $0 }
    }

    /// No blocked version may be listed, served by resolution, or left on the site.
    private func checkBlockedUnreachable(_ manifest: LocaleManifest, _ report: inout Report) {
        let path = SiteLayout.manifest(manifest.locale)
        for version in manifest.plan.blocked {
            if manifest.packs[version] != nil {
                report.problems.append("\(path): lists blocked version \(manifest.locale)@\(version)")
            }
            let folder = directory + "/packs/\(manifest.locale)"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            where name.hasPrefix("\(version).") {
                report.problems.append(.blockedPackOnSite(manifest.locale, name, version))
            }
        }
        for (region, version) in grid(manifest.plan, manifest.plan) {
            for index in 0..<20 {
                if case .pack(let v) = Resolution.outcome(
                    manifest.plan, region: region, appVersion: version, installID: "blocked-check-\(index)"),
                    manifest.plan.isBlocked(v)
                {
                    report.problems.append(
                        .resolvesToBlocked(path, region, version, PackID(locale: manifest.locale, contentVersion: v)))
                }
            }
        }
    }

    /// Regions and versions where the two plans' behaviour can differ.
    private func grid(_ a: Plan, _ b: Plan) -> [(String, AppVersion)] {
        let named = Set((a.rules + b.rules).flatMap(\.regions) + (a.withdrawals + b.withdrawals).map(\.region))
            .subtracting([Region.any])
        let regions = named.sorted() + [Region.assigned.sorted().first { !named.contains($0) }!]
        let versions =
            Simulation.defaultMix(for: a, otherRegion: "ZZ").map(\.appVersion)
            + Simulation.defaultMix(for: b, otherRegion: "ZZ").map(\.appVersion)
        var unique: [AppVersion] = []
        for v in versions.sorted() where !unique.contains(v) { unique.append(v) }
        return regions.flatMap { region in unique.map { (region, $0) } }
    }

    /// Devices resolving from the site must get exactly what the repository says.
    private func compare(
        _ manifest: LocaleManifest, locale: String, with snapshot: Snapshot, installIDs: Int, _ report: inout Report
    ) {
        let path = SiteLayout.manifest(locale)
        guard let plan = (try? snapshot.plan(locale)) ?? nil else {
            report.problems.append("\(path): the repository has no plan for \(locale)")
            return
        }
        if plan.sequence != manifest.sequence {
            report.problems.append(.staleManifest(path, manifest.sequence, repositoryAt: plan.sequence))
            return
        }
        var generator = InstallIDGenerator(seed: 7)
        let ids = (0..<installIDs).map { _ in generator.next() }
        for (region, version) in grid(plan, manifest.plan) {
            for id in ids {
                report.resolutions += 1
                let site = Resolution.outcome(manifest.plan, region: region, appVersion: version, installID: id)
                let repository = Resolution.outcome(plan, region: region, appVersion: version, installID: id)
                if site != repository {
                    report.problems.append(
                        .resolvesOtherwise(
                            path, device: id, region, version, site: site, repository: repository, locale: locale))
                    return
                }
            }
        }
    }
}

/// The problems `verify` reports whose text does not fit at the call site.
extension SiteVerifier.Problem {
    fileprivate static func signatureDoesNotVerify(_ path: String, _ publicKey: Ed25519.PublicKey) -> Self {
        "\(path): the signature in \(SiteLayout.signature(of: path)) does not verify with \(publicKey): the file or its signature was changed, or another key signed it"
    }

    fileprivate static var keyListMissing: Self {
        "\(SiteLayout.keys): a device on root keys trusts nothing on this site without it: publish from a repository with a key list (rollout keys init)"
    }

    fileprivate static func rootChangeMissing(_ path: String, version: Int) -> Self {
        "\(path) (or its .sigs): missing; a device built with roots older than version \(version) walks it to reach the roots of \(SiteLayout.keys)"
    }

    fileprivate static func rootChangeNotTheRepositorys(_ path: String, version: Int) -> Self {
        "\(path) (or its .sigs): not the repository's key list version \(version): publish again"
    }

    fileprivate static func keyListBehind(_ version: Int, newest: Int) -> Self {
        "\(SiteLayout.keys): version \(version), but the repository's newest key list is version \(newest): publish again"
    }

    fileprivate static func keyListNotPublished(newest: Int) -> Self {
        "\(SiteLayout.keys): missing, but the repository has key list version \(newest): publish again"
    }

    fileprivate static func plannedLocaleMissing(_ locale: String) -> Self {
        "\(SiteLayout.index): does not list \(locale), which the repository plans: the site is stale, publish again"
    }

    fileprivate static func staleIndex(_ sequence: Int, expected: Int) -> Self {
        "\(SiteLayout.index): sequence \(sequence) but the repository is at \(expected): the site is stale, publish again"
    }

    fileprivate static func manifestOfAnotherLocale(_ path: String, _ found: String, listedFor locale: String) -> Self {
        "\(path): is for \(found), the index lists it for \(locale)"
    }

    fileprivate static func staleManifest(_ path: String, _ sequence: Int, indexSays expected: Int) -> Self {
        "\(path): sequence \(sequence), but the index says \(expected): a stale or replayed manifest"
    }

    fileprivate static func chainNamesUnlisted(_ locale: String, _ missing: String) -> Self {
        "\(SiteLayout.index): the chain of \(locale) names \(missing), which has no manifest"
    }

    fileprivate static func unreadableRange(_ path: String, _ range: String) -> Self {
        "\(path): devices cannot read the app-version range \"\(range)\": its rule reaches no device, its withdrawn segment covers every version"
    }

    fileprivate static func indexSequenceBelowManifests(_ sequence: Int, total: Int) -> Self {
        "\(SiteLayout.index): sequence \(sequence) is below the sum of its manifests' sequences (\(total))"
    }

    fileprivate static func plannedPackUnlisted(_ path: String, _ locale: String, _ version: Int) -> Self {
        "\(path): the plan names \(locale)@\(version) but the manifest has no pack for it"
    }

    fileprivate static func blockedPackOnSite(_ locale: String, _ name: String, _ version: Int) -> Self {
        "packs/\(locale)/\(name): blocked version \(locale)@\(version) is still on the site"
    }

    fileprivate static func resolvesToBlocked(_ path: String, _ region: String, _ version: AppVersion, _ id: PackID)
        -> Self
    {
        "\(path): a device in \(region) on \(version) resolves to blocked \(id)"
    }

    fileprivate static func staleManifest(_ path: String, _ sequence: Int, repositoryAt expected: Int) -> Self {
        "\(path): sequence \(sequence) but the repository is at \(expected): the site is stale, publish again"
    }

    fileprivate static func resolvesOtherwise(
        _ path: String, device id: String, _ region: String, _ version: AppVersion, site: Resolution.Outcome,
        repository: Resolution.Outcome, locale: String
    ) -> Self {
        "\(path): device \(id) in \(region) on \(version) gets \(site.label(locale: locale)) from the site but \(repository.label(locale: locale)) from the repository"
    }
}
