import Foundation
import RolloutCrypto
import RolloutModel
import RolloutStore

/// `rollout publish` as one operation (docs/manifest.md, "rollout publish"): serialised per site
/// directory, refused when the site already holds a newer or another history's state, written in
/// the order devices need, and recorded in the repository's history like any change.
public enum PublishOperation {
    public struct Request {
        /// The site directory (absolute).
        public let directory: String
        /// What the record calls the site: the operator's name for it, or the directory.
        public let destination: String
        public let key: Ed25519.PrivateKey
        /// Signs the legacy `.sig` files instead of `key` (`--legacy-key`): the key apps that pin one
        /// key hold.
        public let legacyKey: Ed25519.PrivateKey?
        /// How long devices may use the index, in seconds (`--expires`); nil: `defaultLifetime` with
        /// a key list, no expiry without one.
        public let lifetime: Int64?

        public init(
            directory: String, destination: String, key: Ed25519.PrivateKey, legacyKey: Ed25519.PrivateKey? = nil,
            lifetime: Int64? = nil
        ) {
            self.directory = directory
            self.destination = destination
            self.key = key
            self.legacyKey = legacyKey
            self.lifetime = lifetime
        }
    }

    public struct Outcome {
        public let report: Publisher.Report
        /// The state commit whose site was written.
        public let state: ObjectID?
        /// The commit that records the publish, or nil when the tip already recorded this very
        /// publish.
        public let record: ObjectID?
        /// The publishing key that signed the site, when the repository has a key list.
        public let signingKey: SigningKey?
        /// In a dry run (`PackRepository.dryRun`): what the publish would do to each file of the
        /// site, and the record it would commit. nil otherwise.
        public var preview: Publisher.Preview? = nil
        public var wouldRecord: Change? = nil
    }

    /// The key list's entry for the key a publish signs with.
    public struct SigningKey: Equatable, Sendable {
        public let id: String
        public let expires: Timestamp
        /// Less than `warningPeriod` left: the operator is told to rotate.
        public let expiresSoon: Bool
    }

    /// An index on a key list expires a week after it is published unless `--expires` says
    /// otherwise: a frozen site stops being accepted within a week, and a weekly scheduled publish
    /// keeps it fresh.
    public static let defaultLifetime: Int64 = 7 * 86_400
    /// A publishing key this close to its expiry draws a warning on every publish.
    public static let warningPeriod: Int64 = 14 * 86_400

    /// Kept beside the site, outside what devices read (a CDN sync excludes dot files): the lock
    /// that serialises publishes into one directory, and the state the site was last written from.
    public static let lockFile = ".rollout-publish.lock"
    public static let markerFile = ".rollout-publish.json"
    static let markerFormat = "rollout-publish/1"

    /// Publishes the repository's tip into the site directory and records it; in a dry run
    /// (`PackRepository.dryRun`) takes no lock and writes nothing, neither the site nor its record
    /// nor the publish cache, and says what it would write (`Outcome.preview`).
    public static func publish(_ request: Request, in repository: PackRepository, actor: Actor, time: () -> Timestamp)
        throws -> Outcome
    {
        if repository.offline, try repository.syncRemote() != nil {
            throw .publishingOffline
        }
        let dryRun = repository.dryRun
        // A directory the operator made (a mount point, say) is never taken away.
        let existed = FileManager.default.fileExists(atPath: request.directory)
        // Before anything is opened or written there: no link in the site leads out of it.
        if existed { try SiteLinks.refuseLinksOut(of: request.directory) }
        let lock = dryRun ? nil : try SiteLock(request.directory)
        defer { lock?.release() }
        // Decided under the lock: whether this publish found the directory as it made it. Only
        // then may a failed publish take it away; another publish that filled it first keeps it.
        let fresh =
            !existed && !dryRun
            && ((try? FileManager.default.contentsOfDirectory(atPath: request.directory)) ?? []).allSatisfy {
                $0 == lockFile
            }
        // How far the publish got, for what a failure says: nothing written, files being written
        // (and which), or the whole site written and only its record left.
        var progress = Progress.nothingWritten
        do {
            let applied = try repository.apply(actor: actor, time: time) { snapshot in
                try site(request, from: snapshot, now: time(), dryRun: dryRun, progress: &progress)
            }
            var outcome = Outcome(
                report: applied.result.report, state: applied.result.state, record: applied.commit,
                signingKey: applied.result.signer)
            if dryRun {
                outcome.preview = applied.result.preview
                outcome.wouldRecord = applied.change
            }
            return outcome
        } catch {
            if case .nothingWritten = progress, fresh {
                try? FileManager.default.removeItem(atPath: request.directory)
            }
            guard let failure = error as? RolloutError else { throw error }
            throw failure.after(progress, in: request.directory)
        }
    }

    /// What one attempt of a publish does on `snapshot`: checks the key and the site, writes the site
    /// (or, in a dry run, previews it) and returns the record to commit.
    static func site(
        _ request: Request, from snapshot: Snapshot, now: Timestamp, dryRun: Bool, progress: inout Progress
    ) throws -> (
        Change?,
        (report: Publisher.Report, state: ObjectID?, signer: SigningKey?, preview: Publisher.Preview?)
    ) {
        // Checked before anything is written: a key devices would refuse never signs a site.
        let keyList = try snapshot.currentKeyList()?.list
        if keyList == nil, request.legacyKey != nil { throw RolloutError.legacyKeyWithoutKeyList }
        let signer = try keyList.map { try signingKey(request.key.publicKey, list: $0, now: now) }
        let lifetime = request.lifetime ?? (keyList == nil ? nil : defaultLifetime)
        let expires = try lifetime.map { try KeyOperations.expiry(after: now, lifetime: $0) }
        var publisher = Publisher(
            snapshot: snapshot, key: request.key, legacyKey: request.legacyKey, expires: expires)
        publisher.savesCache = !dryRun
        let (files, remove, index) = try publisher.files()
        let site = try SiteHistory.read(request.directory)
        try site.check(against: snapshot, index: index, keys: keyList, files: files, directory: request.directory)
        var report: Publisher.Report
        var preview: Publisher.Preview?
        if dryRun {
            preview = try publisher.preview(files, removing: remove, in: request.directory)
            report = Publisher.Report(index: index)
        } else {
            report = try writeSite(
                publisher, files: files, removing: remove, index: index, over: site, to: request.directory,
                progress: &progress)
        }
        report.keysVersion = keyList?.version
        return (
            try recordChange(request, snapshot: snapshot, index: index),
            (report: report, state: snapshot.commit, signer: signer, preview: preview)
        )
    }

    /// Writes the site's files between the two writes of its marker, keeping `progress` up to date.
    /// The marker first: a publish killed half way leaves a site that names the newest state it may
    /// hold ("writing"), so an older clone is refused even then, while "state" still names the last
    /// one written whole. Then every file, then the marker saying they are all there.
    static func writeSite(
        _ publisher: Publisher, files: [Publisher.SiteFile], removing remove: [String], index: SiteIndex,
        over site: SiteHistory, to directory: String, progress: inout Progress
    ) throws -> Publisher.Report {
        let target = SiteHistory.Published(state: publisher.snapshot.commit?.hex, sequence: index.sequence)
        try SiteHistory.writeMarker(directory, done: site.done, writing: target)
        var report = Publisher.Report()
        progress = .writingFiles(report, from: site.done, to: target, total: files.count)
        do {
            try publisher.write(files, removing: remove, index: index, to: directory, into: &report)
        } catch {
            progress = .writingFiles(report, from: site.done, to: target, total: files.count)
            throw error
        }
        try SiteHistory.writeMarker(directory, done: target, writing: nil)
        progress = .filesWritten(target)
        return report
    }

    /// How far a publish got.
    enum Progress {
        case nothingWritten
        /// The marker says `to` is being written; `report` holds the files written so far.
        case writingFiles(Publisher.Report, from: SiteHistory.Published?, to: SiteHistory.Published, total: Int)
        /// Every file of `to` is written and the marker says so; the record is next.
        case filesWritten(SiteHistory.Published)
    }

    /// Whether `key` may sign a site under `list`: a listed publishing key, not revoked, not expired
    /// at `now` (what `KeyChain.publisher` asks of the site a device fetches). Throws naming the key
    /// and why; tells whether it expires within `warningPeriod`.
    public static func signingKey(_ key: Ed25519.PublicKey, list: KeyList, now: Timestamp) throws -> SigningKey {
        let id = key.keyID
        // The device's own rule (`KeyChain.signingRefusal`); the messages add the way out.
        switch KeyChain.signingRefusal(id, list: list, now: now, file: SiteLayout.index) {
        case nil: break
        case .revokedKey(_, _, let reason):
            throw RolloutError.revokedSigningKey(
                id, reason: reason, time: list.revoked[id]?.time, keysVersion: list.version)
        case .wrongRole: throw RolloutError.rootSigningKey(id, keysVersion: list.version)
        case .expiredKey(_, _, let expires): throw RolloutError.expiredSigningKey(id, expires: expires, now: now)
        case .some: throw RolloutError.unlistedSigningKey(id, list: list)
        }
        guard let listed = list.publishing[id] else { throw RolloutError.unlistedSigningKey(id, list: list) }
        return SigningKey(
            id: id, expires: listed.expires, expiresSoon: listed.expires.seconds - now.seconds < warningPeriod)
    }

    /// The commit that records a publish; nil when the tip already records this same publish.
    /// A re-publish of the same state that only moves the index's `expires` (a scheduled refresh)
    /// records nothing: the history says when a state reached devices, and an hourly refresh would
    /// bury that under commits that change nothing devices resolve.
    static func recordChange(_ request: Request, snapshot: Snapshot, index: SiteIndex) throws -> Change? {
        guard let state = snapshot.commit else { return nil }
        let tip = Change.trailers(of: try snapshot.readCommit(state).message)
        if tip.action == .publish, tip.value(.destination) == Change.oneLine(request.destination),
            tip.value(.siteSequence) == String(index.sequence)
        {
            return nil
        }
        var trailers: [(name: Trailer, value: String)] = [(.action, ChangeAction.publish.rawValue)]
        trailers += index.locales.keys.sorted().map { (.locale, $0) }
        trailers += [
            (.publishedState, state.hex), (.siteSequence, String(index.sequence)), (.destination, request.destination),
        ]
        return Change(summary: "publish index sequence \(index.sequence) to \(request.destination)", trailers: trailers)
    }
}

/// An exclusive flock on the site's lock file. The kernel releases it when the process dies, so a
/// killed publish never leaves a lock behind; a second publish waits for the first to finish.
struct SiteLock {
    let fd: Int32

    /// Creates the directory if needed and locks it. A lock taken on a file that a failed publish
    /// removed (with its new directory) while this one waited is taken again on the new one.
    init(_ directory: String) throws {
        let path = directory + "/" + PublishOperation.lockFile
        while true {
            try SiteLock.makeDirectories(directory)
            // A link there is replaced, never opened through (`SiteLinks`).
            try SiteLinks.replaceLinks(on: PublishOperation.lockFile, in: directory)
            let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard fd >= 0 else { throw RolloutError.fileFailure("open", path, errno: errno) }
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let code = errno
                    close(fd)
                    throw RolloutError.fileFailure("lock", path, errno: code)
                }
            }
            var held = stat()
            var named = stat()
            if fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev
            {
                self.fd = fd
                return
            }
            close(fd)
        }
    }

    /// `mkdir -p` for the site (`LocalFile.makeDirectories`), folders 0755.
    static func makeDirectories(_ directory: String) throws {
        try LocalFile.makeDirectories(directory, mode: 0o755, purpose: "create the site directory")
    }

    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

/// What a site directory already holds, read before publishing into it: the state it was written
/// from (the marker), its index and manifests.
struct SiteHistory {
    /// A state a site was published from, and its index sequence.
    struct Published: Equatable {
        let state: String?
        let sequence: Int?
    }

    var markerState: String?
    var markerSequence: Int?
    /// The publish the marker says was under way and did not finish ("writing"): the site may
    /// hold some of its files.
    var writing: Published?
    /// What the marker says the site holds whole, nil when there is no marker.
    var done: Published? {
        markerState == nil && markerSequence == nil ? nil : Published(state: markerState, sequence: markerSequence)
    }
    /// The site's `keys.json`, when it has one that parses.
    var keys: KeyList?
    var index: SiteIndex?
    var manifests: [String: LocaleManifest] = [:]

    static func read(_ directory: String) throws -> SiteHistory {
        var history = SiteHistory()
        let markerPath = directory + "/" + PublishOperation.markerFile
        // A record that is there but cannot be read stops the publish: it is what refuses a stale
        // state.
        if FileManager.default.fileExists(atPath: markerPath) {
            let bytes = try LocalFile.read(markerPath, name: markerPath, describedAs: "publish record")
            guard let object = (try? StrictJSONParser.parse(bytes))?.objectValue,
                object["format"]?.stringValue == PublishOperation.markerFormat
            else {
                throw .unreadableMarker(markerPath)
            }
            history.markerState = object["state"]?.stringValue
            history.markerSequence = object["sequence"]?.integerValue
            if let writing = object["writing"]?.objectValue {
                history.writing = Published(
                    state: writing["state"]?.stringValue, sequence: writing["sequence"]?.integerValue)
            }
        }
        // The signed files are read as a device would parse them; an unreadable one is overwritten.
        if let bytes = FileManager.default.contents(atPath: directory + "/" + SiteLayout.keys) {
            history.keys = try? KeyList.parse([UInt8](bytes), source: SiteLayout.keys)
        }
        if let bytes = FileManager.default.contents(atPath: directory + "/" + SiteLayout.index),
            let index = try? SiteIndex.parse([UInt8](bytes), source: SiteLayout.index)
        {
            history.index = index
            for (locale, entry) in index.locales {
                if let bytes = FileManager.default.contents(atPath: directory + "/" + entry.manifest),
                    let manifest = try? LocaleManifest.parse([UInt8](bytes), source: entry.manifest)
                {
                    history.manifests[locale] = manifest
                }
            }
        }
        return history
    }

    /// Refuses a publish that would take the site back in time (its state or its key list), onto
    /// another history, or expose a pack the site already withdrew.
    func check(
        against snapshot: Snapshot, index new: SiteIndex, keys repositoryKeys: KeyList?, files: [Publisher.SiteFile],
        directory: String
    ) throws {
        let ours = "this repository's state \(snapshot.commit?.short ?? "(empty)") (index sequence \(new.sequence))"
        // Devices that accepted the site's key list refuse an older one: they would take no update
        // again.
        if let held = keys?.version, held > repositoryKeys?.version ?? 0 {
            throw .siteHasNewerKeyList(directory, held: held, ours: repositoryKeys)
        }
        // Another list with the same version (a clone that changed its keys apart, its site record
        // lost): devices that accepted the site's refuse ours for good (keys-conflict).
        if let held = keys, let repositoryKeys, held.version == repositoryKeys.version, held != repositoryKeys {
            throw .siteHasOtherKeyList(directory, version: held.version)
        }
        // The newest state the site may hold: one a publish that did not finish was writing, else
        // the one written whole.
        let newest =
            writing?.state.map { ($0, writing?.sequence, true) } ?? markerState.map { ($0, markerSequence, false) }
        if let (state, number, unfinished) = newest {
            let sequence = number.map { " (index sequence \($0))" } ?? ""
            let published =
                unfinished
                ? "\(directory) holds files of an unfinished publish of state \(state.prefix(12))\(sequence)"
                : "\(directory) was published from state \(state.prefix(12))\(sequence)"
            guard let id = ObjectID(hex: state), (try? snapshot.readCommit(id)) != nil else {
                throw .siteFromUnknownState(published, ours: ours)
            }
            if let tip = snapshot.commit, id != tip, try !snapshot.isDescendant(tip, of: id) {
                throw .siteFromDivergedState(published, ours: ours)
            }
        }
        guard let old = index else { return }
        if old.sequence > new.sequence {
            throw .siteHasNewerIndex(directory, sequence: old.sequence, ours: ours)
        }
        for (locale, entry) in old.locales.sorted(by: { $0.key < $1.key }) {
            guard let mine = new.locales[locale] else {
                throw .siteHasOtherLocale(directory, locale: locale, ours: ours)
            }
            if entry.sequence > mine.sequence {
                throw .siteHasNewerManifest(
                    directory, locale: locale, sequence: entry.sequence, ours: ours, mine: mine.sequence)
            }
            guard let manifest = manifests[locale] else { continue }
            let newManifest = files.first { $0.path == SiteLayout.manifest(locale) }
            if entry.sequence == mine.sequence, markerState == nil, let newManifest,
                try newManifest.bytes() != manifest.bytes
            {
                throw .siteHasOtherPlan(directory, locale: locale, sequence: entry.sequence, ours: ours)
            }
            let served = try snapshot.plan(locale)?.publishedVersions ?? []
            if let again = manifest.plan.blocked.sorted().first(where: served.contains) {
                throw .siteWithdrewPack(directory, pack: "\(locale)@\(again)", ours: ours)
            }
        }
    }

    /// The record beside the site: `state` and `sequence`, what the site holds whole (null before
    /// its first publish finished), and while a publish is writing, `writing`: the state and
    /// sequence it is writing. Written before the first file of a publish and again after its last.
    static func writeMarker(_ directory: String, done: Published?, writing: Published?) throws {
        var object: [String: JSONValue] = ["format": .string(PublishOperation.markerFormat)]
        object["state"] = done?.state.map { .string($0) } ?? .null
        object["sequence"] = done?.sequence.map { .integer($0) } ?? .null
        if let writing {
            object["writing"] = .object([
                "state": writing.state.map { .string($0) } ?? .null,
                "sequence": writing.sequence.map { .integer($0) } ?? .null,
            ])
        }
        try SiteLinks.replaceLinks(on: PublishOperation.markerFile, in: directory)
        let path = directory + "/" + PublishOperation.markerFile
        try LocalFile.replace(path, with: JSONWriter.pretty(.object(object)), name: path)
    }
}

/// Why `rollout publish` refuses a `--key` under the repository's key list (exit 65): each names the
/// key, what the list says of it, and the way out. Nothing was written when they are thrown.
extension RolloutError {
    /// Without a key list the `.sig` files are the only signatures: `--key` would sign nothing.
    static let legacyKeyWithoutKeyList = RolloutError.usage(
        """
        --legacy-key goes with a key list (rollout keys init): this repository has none, so the .sig files are the \
        only signatures and --key signs them; give --key alone, with the key apps pin
        """)

    static func unlistedSigningKey(_ id: String, list: KeyList) -> RolloutError {
        let listed = list.publishing.keys.sorted().joined(separator: ", ")
        return .badInput(
            """
            refused: --key is key \(id), which key list version \(list.version) does not list as a publishing key \
            (publishing keys: \(listed.isEmpty ? "none" : listed)); devices would refuse the site. \
            Sign with a listed key (rollout keys list), or add one with rollout keys rotate. Nothing was written
            """)
    }

    static func rootSigningKey(_ id: String, keysVersion: Int) -> RolloutError {
        .badInput(
            """
            refused: --key is key \(id), a root key of key list version \(keysVersion); root keys sign key lists only \
            and stay offline. Sign with a publishing key (rollout keys list). Nothing was written
            """)
    }

    static func revokedSigningKey(_ id: String, reason: String, time: Timestamp?, keysVersion: Int) -> RolloutError {
        let when = time.map { " at \($0)" } ?? ""
        let why = reason.isEmpty ? "" : " (\(reason))"
        return .badInput(
            """
            refused: --key is key \(id), which key list version \(keysVersion) revoked\(when)\(why); \
            devices refuse what it signs. Sign with another publishing key, or make one with rollout keys rotate. \
            Nothing was written
            """)
    }

    static func expiredSigningKey(_ id: String, expires: Timestamp, now: Timestamp) -> RolloutError {
        .badInput(
            """
            refused: --key is key \(id), a publishing key that expired at \(expires) (now \(now)); devices refuse what \
            it signs. Make its successor with rollout keys rotate --root FILE. Nothing was written
            """)
    }
}

extension Error where Self == RolloutError {
    fileprivate static var publishingOffline: RolloutError {
        .usage(
            """
            publish does not run --offline: it records what reached devices on the shared remote, and publishes only \
            the state every clone can see. Run rollout sync, then publish
            """)
    }

    fileprivate static func unreadableMarker(_ markerPath: String) -> RolloutError {
        .badInput(
            """
            \(markerPath) is not a publish record rollout wrote ("format": "\(PublishOperation.markerFormat)"); \
            it says which state the site holds, so publish will not guess. Restore it, or publish into a new directory
            """)
    }
}

extension RolloutError {
    /// This error, saying what the publish it stopped had done: nothing, some of the files (which,
    /// what devices see, what the record says), or the whole site but not its record.
    fileprivate func after(_ progress: PublishOperation.Progress, in directory: String) -> RolloutError {
        switch progress {
        case .nothingWritten: return self
        case .writingFiles(let report, let from, let to, let total):
            return partlyWritten(directory, report: report, total: total, from: from, to: to)
        case .filesWritten(let written):
            // The site is written before its record: say so, rather than "nothing was changed".
            return unrecorded(directory, written)
        }
    }

    /// This error, thrown after the whole site was written but before its record reached the history.
    fileprivate func unrecorded(_ directory: String, _ written: SiteHistory.Published) -> RolloutError {
        withMessage {
            """
            \(directory) was written from state \(written.state.map { String($0.prefix(12)) } ?? "(empty)") \
            (index sequence \(written.sequence ?? 0)), but the record of that publish did not reach the history: \($0). \
            Run rollout publish again to record it
            """
        }
    }

    /// This error, thrown while the site's files were being written: which were, what devices see
    /// now (the index is written last), and what the record beside the site says.
    fileprivate func partlyWritten(
        _ directory: String, report: Publisher.Report, total: Int, from: SiteHistory.Published?,
        to: SiteHistory.Published
    ) -> RolloutError {
        let sequence = to.sequence ?? 0
        let state = to.state.map { String($0.prefix(12)) } ?? "(empty)"
        let files =
            report.written.isEmpty
            ? "no file was written"
            : "\(report.written.count) file(s) were written (the last \(report.written.last!))"
        let devices =
            report.written.contains(SiteLayout.index)
            ? "its new index.json was written but not all of its signatures, so devices refuse it and keep what they have"
            : "index.json was not written, so devices still see "
                + (from?.sequence.map { "index sequence \($0)" } ?? "the site as it was")
        return withMessage {
            """
            publishing state \(state) (index sequence \(sequence)) to \(directory) stopped: \($0). Of its \(total) \
            file(s) \(report.unchanged) were already there and \(files); \(devices). \(PublishOperation.markerFile) \
            records the publish as unfinished and nothing was recorded in the history. Fix the cause and run rollout \
            publish again
            """
        }
    }
}

/// Why a publish refuses the site directory it would write (exit 65): the site holds a newer state,
/// key list or pack history than this repository, or another one. Each ends with the way out.
extension Error where Self == RolloutError {
    fileprivate static func siteRefusal(_ why: String) -> RolloutError {
        let wayOut =
            "Publish from a clone that is up to date (rollout sync), or from the repository that published this site"
        return .checkFailed("refused: \(why). \(wayOut). Nothing was written")
    }

    fileprivate static func siteHasNewerKeyList(_ directory: String, held: Int, ours keys: KeyList?) -> RolloutError {
        let ours = keys.map { "this repository's version \($0.version)" } ?? "this repository, which has no key list"
        return siteRefusal(
            "\(directory) holds key list version \(held), newer than \(ours): "
                + "devices that accepted it would refuse the site")
    }

    fileprivate static func siteHasOtherKeyList(_ directory: String, version: Int) -> RolloutError {
        siteRefusal(
            """
            \(directory)/\(SiteLayout.keys) is another key list with version \(version) than this repository's: \
            devices that accepted it would refuse every site from here (keys-conflict)
            """)
    }

    fileprivate static func siteFromUnknownState(_ published: String, ours: String) -> RolloutError {
        siteRefusal(
            """
            \(published), which this repository does not have: it is behind, or another repository. Publishing \
            \(ours) could roll devices back
            """)
    }

    fileprivate static func siteFromDivergedState(_ published: String, ours: String) -> RolloutError {
        siteRefusal(
            """
            \(published), which is not in the history of \(ours): this repository diverged from the one that \
            published the site
            """)
    }

    fileprivate static func siteHasNewerIndex(_ directory: String, sequence: Int, ours: String) -> RolloutError {
        siteRefusal(
            "\(directory) holds index sequence \(sequence), newer than \(ours): publishing would roll devices back")
    }

    fileprivate static func siteHasOtherLocale(_ directory: String, locale: String, ours: String) -> RolloutError {
        siteRefusal("\(directory) publishes \(locale), which \(ours) has no plan for: it is another repository's site")
    }

    fileprivate static func siteHasNewerManifest(
        _ directory: String, locale: String, sequence: Int, ours: String, mine: Int
    ) -> RolloutError {
        siteRefusal(
            """
            \(directory) has \(locale) at manifest sequence \(sequence), newer than \(ours) has (\(mine)): publishing \
            would roll devices back
            """)
    }

    fileprivate static func siteHasOtherPlan(_ directory: String, locale: String, sequence: Int, ours: String)
        -> RolloutError
    {
        siteRefusal(
            """
            \(directory) has \(locale) at manifest sequence \(sequence) with another plan than \(ours) has at the same \
            sequence: the site comes from another history
            """)
    }

    fileprivate static func siteWithdrewPack(_ directory: String, pack: String, ours: String) -> RolloutError {
        siteRefusal("\(directory) withdrew \(pack) (blocked by a revert), and \(ours) would serve it again")
    }
}
