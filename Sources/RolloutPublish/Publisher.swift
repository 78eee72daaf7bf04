import Foundation
import RolloutCrypto
import RolloutModel
import RolloutStore

/// Writes the static site devices download (docs/manifest.md): an index, one manifest per locale,
/// the packs under immutable paths, and a detached Ed25519 signature beside every manifest. When
/// the repository has a key list (docs/keys.md) the site also carries it, the lists at which the
/// root keys changed, and a `.sigs` naming the publishing key beside the index and every manifest.
/// The same state and expiry always give the same bytes; files whose bytes are already there are
/// not rewritten.
public struct Publisher {
    public struct Report {
        public var written: [String] = []
        public var unchanged = 0
        public var removed: [String] = []
        public var bytesWritten = 0
        public var indexSequence = 0
        public var indexExpires: Timestamp?
        /// The version of the key list the site carries; nil for a site signed with one key.
        public var keysVersion: Int?
        public var locales: [(locale: String, sequence: Int)] = []

        public init() {}

        /// A report of `index` with no file written: what a dry run knows before writing.
        init(index: SiteIndex) {
            indexSequence = index.sequence
            indexExpires = index.expires
            locales = index.locales.map { ($0.key, $0.value.sequence) }.sorted { $0.0 < $1.0 }
        }
    }

    /// What a publish would do to each file of a site directory, found without writing
    /// (`publish --dry-run`): the files it would add, the ones whose bytes it would change (their size
    /// before and after), the blocked pack files it would remove, and how many are already there.
    public struct Preview {
        public var added: [(path: String, bytes: Int)] = []
        public var changed: [(path: String, before: Int, bytes: Int)] = []
        public var removed: [(path: String, bytes: Int)] = []
        public var unchanged = 0
    }

    public let snapshot: Snapshot
    /// Signs the `.sigs` (with a key list) and, unless `legacyKey` is given, the legacy `.sig`.
    public let key: Ed25519.PrivateKey
    /// Signs the legacy `.sig` that apps pinning one key verify (docs/keys.md, "Moving a live app").
    public let legacyKey: Ed25519.PrivateKey
    /// The index's `expires`; nil writes none.
    public let expires: Timestamp?
    /// Whether `files()` keeps what it learnt of packs in the publish cache; a dry run writes
    /// nothing in the repository, the cache included.
    public var savesCache = true

    public init(
        snapshot: Snapshot, key: Ed25519.PrivateKey, legacyKey: Ed25519.PrivateKey? = nil, expires: Timestamp? = nil
    ) {
        self.snapshot = snapshot
        self.key = key
        self.legacyKey = legacyKey ?? key
        self.expires = expires
    }

    /// The signatures written beside a signed file: the legacy `.sig` always, the `.sigs` when the
    /// site carries a key list.
    private func signatureFiles(_ path: String, _ bytes: [UInt8], keyed: Bool) -> [SiteFile] {
        let signature = DetachedSignature.encode(legacyKey.sign(bytes))
        var files = [
            SiteFile(path: SiteLayout.signature(of: path), immutable: false, size: signature.count) { signature }
        ]
        if keyed {
            let signatures = SignatureSet.signing(bytes, with: [key]).bytes
            files.append(
                SiteFile(path: SiteLayout.signatures(of: path), immutable: false, size: signatures.count) { signatures }
            )
        }
        return files
    }

    /// A key list as stored in the repository, with its root signatures, as the site serves it at `path`.
    private static func keyListFiles(_ file: SignedFile, at path: String) -> [SiteFile] {
        let bytes = file.bytes
        let signatures = file.signatures
        return [
            SiteFile(path: path, immutable: false, size: bytes.count) { bytes },
            SiteFile(path: SiteLayout.signatures(of: path), immutable: false, size: signatures.count) { signatures },
        ]
    }

    /// One file of the site. Pack bytes are loaded only if the file has to be written.
    public struct SiteFile {
        public let path: String
        /// Packs live at paths named by their digest: an existing file of the right size is theirs.
        public let immutable: Bool
        public let size: Int
        public let bytes: () throws -> [UInt8]
    }

    /// What publishing needs to know about a stored pack, cached by its git blob id in
    /// `<repository>/rollout/publish-cache` (content-addressed, so never stale).
    struct PackFacts {
        let sha256: String
        let bytes: Int
        let checksum: String
        let minAppVersion: String
        let schemaVersion: Int

        var line: String { "\(sha256) \(bytes) \(checksum) \(minAppVersion) \(schemaVersion)" }

        init(sha256: String, bytes: Int, checksum: String, minAppVersion: String, schemaVersion: Int) {
            self.sha256 = sha256
            self.bytes = bytes
            self.checksum = checksum
            self.minAppVersion = minAppVersion
            self.schemaVersion = schemaVersion
        }

        init?(line: Substring) {
            let p = line.split(separator: " ")
            guard p.count == 5, let bytes = Int(p[1]), let schema = Int(p[4]) else { return nil }
            self.init(
                sha256: String(p[0]), bytes: bytes, checksum: String(p[2]), minAppVersion: String(p[3]),
                schemaVersion: schema)
        }
    }

    var cachePath: String { snapshot.repositoryPath + "rollout/publish-cache" }

    /// The cache lives outside the history, where anyone with write access to the repository
    /// directory can edit it, and what it holds gets signed: each line carries an HMAC whose key
    /// only the holder of the signing key can derive (Ed25519 signatures are deterministic). A line
    /// that does not verify, or was made with another key, is ignored and the pack read again.
    var cacheKey: [UInt8] { SHA256.digest(key.sign(Array("rollout publish-cache/1".utf8))) }

    func loadCache() -> [String: PackFacts] {
        guard let text = try? String(contentsOfFile: cachePath, encoding: .utf8) else { return [:] }
        let macKey = cacheKey
        var cache: [String: PackFacts] = [:]
        for line in text.split(separator: "\n") {
            guard let lastSpace = line.lastIndex(of: " ") else { continue }
            let body = line[..<lastSpace]
            guard HMACSHA256.hex(key: macKey, message: Array(body.utf8)) == line[line.index(after: lastSpace)...],
                let space = body.firstIndex(of: " "), let facts = PackFacts(line: body[body.index(after: space)...])
            else { continue }
            cache[String(body[..<space])] = facts
        }
        return cache
    }

    func saveCache(_ cache: [String: PackFacts]) {
        let macKey = cacheKey
        let text = cache.sorted { $0.key < $1.key }.map { blob, facts -> String in
            let body = "\(blob) \(facts.line)"
            return "\(body) \(HMACSHA256.hex(key: macKey, message: Array(body.utf8)))\n"
        }.joined()
        // Only a cache: a repository that cannot be written (a read-only mount) publishes without it.
        try? FileManager.default.createDirectory(
            atPath: (cachePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? Data(text.utf8).write(to: URL(fileURLWithPath: cachePath), options: .atomic)
    }

    /// Every file of the site, in the order it must be written: packs, then manifests, then the key
    /// lists, then the index, so a device that reads the index finds everything it points at and a
    /// key list that vouches for its signer. Also the pack files to remove.
    public func files() throws -> (files: [SiteFile], remove: [String], index: SiteIndex) {
        let snapshot = self.snapshot
        let keyList = try snapshot.currentKeyList()
        let policy = try snapshot.policy()
        let tipTime =
            try snapshot.commit.map { Timestamp(seconds: try snapshot.readCommit($0).author.time) }
            ?? Timestamp(seconds: 0)
        var cache = loadCache()
        let cached = cache.count
        var packFiles: [SiteFile] = []
        var manifestFiles: [SiteFile] = []
        var entries: [String: SiteIndex.Entry] = [:]
        var manifestTimes: [Timestamp] = []
        var remove: [String] = []
        let locales = try snapshot.plannedLocales()
        for locale in locales {
            guard let plan = try snapshot.plan(locale) else { continue }
            let packs = try packEntries(locale, plan, files: &packFiles, cache: &cache)
            remove += try blockedPackFiles(locale, plan, cache: &cache)
            let manifest = LocaleManifest(
                locale: locale, sequence: plan.sequence, time: plan.lastChange?.time ?? tipTime, plan: plan,
                packs: packs, bundleOnly: policy.bundleOnlyKeys)
            manifestTimes.append(manifest.time)
            let bytes = manifest.bytes
            let path = SiteLayout.manifest(locale)
            manifestFiles.append(SiteFile(path: path, immutable: false, size: bytes.count) { bytes })
            manifestFiles += signatureFiles(path, bytes, keyed: keyList != nil)
            let chains = try Self.chains(
                locale, plan: plan, snapshot: snapshot, defaultLocale: policy.defaultLocale, published: locales)
            entries[locale] = SiteIndex.Entry(
                sequence: plan.sequence, manifest: path, chain: chains.chain, fallbackChain: chains.fallbackChain)
        }
        if savesCache, cache.count != cached { saveCache(cache) }
        // The index moves whenever any manifest does: the sum of the plans' sequences only grows.
        // Its time is the newest plan change, not the tip: unrelated commits leave its bytes alone.
        let indexTime = manifestTimes.max() ?? Timestamp(seconds: 0)
        let index = SiteIndex(
            sequence: try snapshot.indexSequence(), time: indexTime, expires: expires,
            defaultLocale: policy.defaultLocale, locales: entries)
        var keyFiles: [SiteFile] = []
        if let keyList {
            // Each list at which the roots changed, so a device built with older roots can walk to these.
            for version in keyList.list.rootChanges {
                keyFiles += Self.keyListFiles(
                    try snapshot.signedKeyList(version), at: SiteLayout.keys(version: version))
            }
            keyFiles += Self.keyListFiles(keyList.file, at: SiteLayout.keys)
        }
        let indexBytes = index.bytes
        let indexFiles =
            [SiteFile(path: SiteLayout.index, immutable: false, size: indexBytes.count) { indexBytes }]
            + signatureFiles(SiteLayout.index, indexBytes, keyed: keyList != nil)
        return (packFiles + manifestFiles + keyFiles + indexFiles, remove, index)
    }

    /// The manifest entries of the packs `plan` publishes for `locale`; their files are added to `files`.
    func packEntries(
        _ locale: String, _ plan: Plan, files: inout [SiteFile], cache: inout [String: PackFacts]
    ) throws -> [Int: LocaleManifest.PackEntry] {
        let snapshot = self.snapshot
        var packs: [Int: LocaleManifest.PackEntry] = [:]
        for version in plan.publishedVersions.sorted() {
            let id = PackID(locale: locale, contentVersion: version)
            guard let blob = try snapshot.storedPackBlob(id) else { throw RolloutError.packNotHeld(id, locale: locale) }
            let facts = try self.facts(id, blob: blob, cache: &cache)
            let url = SiteLayout.pack(id, sha256: facts.sha256)
            packs[version] = LocaleManifest.PackEntry(
                url: url, bytes: facts.bytes, sha256: facts.sha256, checksum: facts.checksum,
                minAppVersion: facts.minAppVersion,
                schemaVersion: facts.schemaVersion)
            files.append(
                SiteFile(path: url, immutable: true, size: facts.bytes) { try snapshot.blob(blob) })
        }
        return packs
    }

    /// Blocked packs leave the site: exactly the files a publish of them wrote, nothing else.
    func blockedPackFiles(_ locale: String, _ plan: Plan, cache: inout [String: PackFacts]) throws -> [String] {
        try plan.blocked.compactMap { version in
            let id = PackID(locale: locale, contentVersion: version)
            guard let blob = try snapshot.storedPackBlob(id) else { return nil }
            return SiteLayout.pack(id, sha256: try self.facts(id, blob: blob, cache: &cache).sha256)
        }
    }

    /// A published locale's chain, and the chain as if its kill switch were off (what devices of an
    /// unlisted locale that falls back to it read, docs/manifest.md "The chain of a device").
    static func chains(
        _ locale: String, plan: Plan, snapshot: Snapshot, defaultLocale: String, published: [String]
    ) throws -> (chain: [String], fallbackChain: [String]) {
        let full = try FallbackChain.locales(
            for: locale, defaultLocale: defaultLocale, catalog: BaselineCatalog(snapshot)
        ).filter { published.contains($0) }
        // The kill switch sends a locale's own devices to their bundled strings: no fallback locale either.
        return (plan.bundledOnly ? [locale] : full, full)
    }

    /// The index's chains for the repository's current state, without reading a pack: what
    /// `rollout resolve` walks, so that it always agrees with the device (`SiteIndex.chain(for:)`).
    public static func chainIndex(_ snapshot: Snapshot) throws -> SiteIndex {
        let policy = try snapshot.policy()
        let locales = try snapshot.plannedLocales()
        var entries: [String: SiteIndex.Entry] = [:]
        for locale in locales {
            guard let plan = try snapshot.plan(locale) else { continue }
            let chains = try chains(
                locale, plan: plan, snapshot: snapshot, defaultLocale: policy.defaultLocale, published: locales)
            entries[locale] = SiteIndex.Entry(
                sequence: plan.sequence, manifest: SiteLayout.manifest(locale), chain: chains.chain,
                fallbackChain: chains.fallbackChain)
        }
        return SiteIndex(
            sequence: try snapshot.indexSequence(), time: Timestamp(seconds: 0), defaultLocale: policy.defaultLocale,
            locales: entries)
    }

    /// What publishing needs to know about one stored pack: from the authenticated cache, or read,
    /// parsed (which verifies its checksum) and remembered.
    func facts(_ id: PackID, blob: ObjectID, cache: inout [String: PackFacts]) throws -> PackFacts {
        if let known = cache[blob.hex] { return known }
        let bytes = try snapshot.blob(blob)
        let parsed = try PackParser.parse(bytes, source: try snapshot.storedPath(id), maximumBytes: Int.max)
        let facts = PackFacts(
            sha256: SHA256.hex(bytes), bytes: bytes.count, checksum: parsed.declaredChecksum ?? parsed.pack.checksum,
            minAppVersion: parsed.pack.minAppVersion.description, schemaVersion: parsed.pack.schemaVersion)
        cache[blob.hex] = facts
        return facts
    }

    /// What `write` would do with `files` in `directory`, by the same comparisons, reading only.
    public func preview(_ files: [SiteFile], removing removePaths: [String], in directory: String) throws -> Preview {
        var preview = Preview()
        let fm = FileManager.default
        for file in files {
            let full = directory + "/" + file.path
            let existingSize = (try? fm.attributesOfItem(atPath: full))?[.size] as? Int
            if file.immutable, existingSize == file.size {
                preview.unchanged += 1
                continue
            }
            let bytes = try file.bytes()
            if let existingSize {
                if existingSize == bytes.count, fm.contents(atPath: full) == Data(bytes) {
                    preview.unchanged += 1
                } else {
                    preview.changed.append((file.path, existingSize, bytes.count))
                }
            } else {
                preview.added.append((file.path, bytes.count))
            }
        }
        for path in removePaths.sorted() {
            guard let size = (try? fm.attributesOfItem(atPath: directory + "/" + path))?[.size] as? Int else {
                continue
            }
            preview.removed.append((path, size))
        }
        return preview
    }

    /// Writes the site into `directory`, which must exist. Callers hold the site's lock
    /// (`PublishOperation`): this alone does not protect against a concurrent publish.
    public func write(_ files: [SiteFile], removing removePaths: [String], index: SiteIndex, to directory: String)
        throws -> Report
    {
        var report = Report()
        try write(files, removing: removePaths, index: index, to: directory, into: &report)
        return report
    }

    /// `write`, keeping in `report` what was written so far when a file fails: what a failed
    /// publish tells the operator it left behind. A link on the way to a file, or at the file, is
    /// replaced, never followed (`SiteLinks`).
    func write(
        _ files: [SiteFile], removing removePaths: [String], index: SiteIndex, to directory: String,
        into report: inout Report
    ) throws {
        report.indexSequence = index.sequence
        report.indexExpires = index.expires
        report.locales = index.locales.map { ($0.key, $0.value.sequence) }.sorted { $0.0 < $1.0 }
        let fm = FileManager.default
        for file in files {
            let full = directory + "/" + file.path
            try SiteLinks.replaceLinks(on: file.path, in: directory)
            let existingSize = (try? fm.attributesOfItem(atPath: full))?[.size] as? Int
            if file.immutable, existingSize == file.size {
                report.unchanged += 1
                continue
            }
            let bytes = try file.bytes()
            if !file.immutable, existingSize == bytes.count, let existing = fm.contents(atPath: full),
                existing == Data(bytes)
            {
                report.unchanged += 1
                continue
            }
            let folder = (full as NSString).deletingLastPathComponent
            do {
                try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw RolloutError.fileFailure("create", folder, error: error)
            }
            // Write beside, flush, then rename: a reader never sees half a file, nor a crash an empty one.
            try LocalFile.replace(full, with: bytes, name: full)
            report.written.append(file.path)
            report.bytesWritten += bytes.count
        }
        // Blocked packs leave the site, so not even a stale manifest in some cache can fetch them.
        for path in removePaths.sorted() {
            try SiteLinks.replaceLinks(on: path, in: directory)
            guard fm.fileExists(atPath: directory + "/" + path) else { continue }
            do {
                try fm.removeItem(atPath: directory + "/" + path)
            } catch {
                throw RolloutError.fileFailure("remove", directory + "/" + path, error: error)
            }
            report.removed.append(path)
        }
    }
}

/// Symbolic links in a site directory. Publish replaces a link where it writes a file (or on the
/// way to one) with the real file or directory, never writing through it, and refuses a site
/// directory holding a link whose target is outside it: `site/index.json -> ../victim` or
/// `site/packs -> /elsewhere` would otherwise have publish write, or remove, files it was never
/// given. `--out` itself may be a link (a mount, a deploy directory); only what is below it counts.
enum SiteLinks {
    /// Throws, naming the first one, when a link below `directory` leads out of it (or is one
    /// publish would have to open: the lock and the record). Nothing is written before this check.
    static func refuseLinksOut(of directory: String) throws {
        guard let root = realPath(directory) else { return }
        var pending = [""]
        while let relative = pending.popLast() {
            let folder = relative.isEmpty ? directory : directory + "/" + relative
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            for name in names {
                let child = relative.isEmpty ? name : relative + "/" + name
                var status = stat()
                guard lstat(directory + "/" + child, &status) == 0 else { continue }
                switch status.st_mode & S_IFMT {
                case S_IFDIR: pending.append(child)
                case S_IFLNK:
                    let target = destination(of: directory + "/" + child)
                    if !(target == root || target.hasPrefix(root == "/" ? "/" : root + "/")) {
                        throw RolloutError.linkOutOfSite(directory, link: child, target: target)
                    }
                default: continue
                }
            }
        }
    }

    /// Makes every folder on the way to `relative` below `directory` a real directory and removes
    /// a link at `relative` itself, so that what is written there lands in the site. Folders that
    /// do not exist yet are left for the writer to create.
    static func replaceLinks(on relative: String, in directory: String) throws {
        var path = directory
        let parts = relative.split(separator: "/").map(String.init)
        for (index, part) in parts.enumerated() {
            path += "/" + part
            var status = stat()
            guard lstat(path, &status) == 0 else { return }
            guard status.st_mode & S_IFMT == S_IFLNK else { continue }
            guard unlink(path) == 0 else { throw RolloutError.fileFailure("replace the link", path, errno: errno) }
            if index < parts.count - 1, mkdir(path, 0o755) != 0 {
                throw RolloutError.fileFailure("create", path, errno: errno)
            }
        }
    }

    /// Where the link at `path` leads, absolute: resolved through every link when it exists,
    /// else (a dangling link) its target joined to its folder, with `.` and `..` taken away.
    static func destination(of path: String) -> String {
        if let resolved = realPath(path) { return resolved }
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? ""
        let folder = realPath((path as NSString).deletingLastPathComponent) ?? "/"
        var parts: [Substring] = []
        for part in ((target.hasPrefix("/") ? "" : folder + "/") + target).split(separator: "/") {
            if part == "." || part.isEmpty { continue }
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

extension RolloutError {
    /// A link in the site directory that leads out of it (`SiteLinks`).
    static func linkOutOfSite(_ directory: String, link: String, target: String) -> RolloutError {
        .badInput(
            """
            refused: \(directory)/\(link) is a symbolic link to \(target), outside the site directory; publish never \
            writes or removes anything outside --out. Remove the link (or put the real file or directory there) and \
            publish again. Nothing was written
            """)
    }

    /// A plan that names a pack the repository does not hold.
    fileprivate static func packNotHeld(_ id: PackID, locale: String) -> RolloutError {
        .repositoryDamaged("the plan of \(locale) names \(id), which the repository does not hold")
    }
}
