import Foundation
import RolloutModel

/// `rollout verify`: proves the repository is intact, from its first commit to its tip
/// (docs/reliability.md). Every problem names the commit and the path.
public enum Verifier {
    public struct Problem: Equatable, Sendable {
        /// The commit the problem is in (short id), or nil for the tip's files and the repository.
        public let commit: String?
        public let path: String?
        public let message: String
    }

    public struct Report: Sendable {
        public var problems: [Problem] = []
        /// Stale lock files, with the command that clears each; not damage, but they block writes.
        public var locks: [(path: String, clear: String)] = []
        public var commits = 0
        public var packs = 0
        public var plans = 0
        public var rollbacks = 0
        /// Key list versions, each checked against the one before as a device checks it.
        public var keyLists = 0
        public var reflogEntries = 0
        /// Ref updates a killed process left half done (the ref never moved): not damage.
        public var interruptedUpdates = 0

        public var isIntact: Bool { problems.isEmpty }
    }

    /// Paths whose content may never change once written.
    static func isImmutable(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        switch parts.first {
        case "packs": return parts.count == 3 || parts.count == 4
        case "rollbacks": return parts.count == 3
        case "metrics": return parts.count == 3 && (parts[1] == "ingests" || parts[1] == "retractions")
        case "keys": return parts.count == 2
        default: return false
        }
    }

    /// The actions rollout records, and the files each may touch (`locale` is Rollout-Locale).
    static func allowed(_ action: String, locale: String?, path: String) -> Bool {
        switch action {
        case "pack-add": return path.hasPrefix("packs/")
        case "policy-set": return path == StateLayout.policy || path == StateLayout.siteSequence
        case "promote", "complete", "ramp", "pause", "resume":
            return locale.map { path == StateLayout.plan($0) } ?? false
        case "revert":
            return locale.map { path == StateLayout.plan($0) || path.hasPrefix(StateLayout.rollbackDirectory($0) + "/") } ?? false
        case "metrics-ingest", "metrics-retract": return MetricsVerifier.allowed(action, path: path)
        case KeyOperations.action: return isKeyListFile(path)
        // A publish records what reached devices; it changes no file.
        case AuditEntry.publishAction: return false
        default: return false
        }
    }

    /// `keys/<version>.json` or its `.sigs`: the only files a key list commit writes.
    static func isKeyListFile(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == StateLayout.keysDirectory else { return false }
        let name = parts[1].hasSuffix(".sigs") ? parts[1].dropLast(5) : parts[1]
        return StateLayout.contentVersion(fromFileName: String(name)) != nil
    }

    public static func verify(_ repository: PackRepository) throws -> Report {
        let git = repository.git
        var report = Report()
        for lock in ["\(StateLayout.stateRef).lock", "packed-refs.lock", "index.lock", "config.lock"] {
            let path = "\(repository.path)/\(lock)"
            if FileManager.default.fileExists(atPath: path) { report.locks.append((path, "rm \(path)")) }
        }
        guard let tip = try git.referenceTarget(StateLayout.stateRef) else {
            report.problems.append(Problem(commit: nil, path: nil, message: "\(StateLayout.stateRef) does not exist: not a rollout repository, or its history was removed"))
            return report
        }

        // The history, oldest first, along first parents.
        var chain: [GitCommit] = []
        var next: ObjectID? = tip
        var seen: Set<ObjectID> = []
        while let id = next {
            guard seen.insert(id).inserted else { break }
            let commit = try git.commit(id)
            chain.append(commit)
            next = commit.parents.first
        }
        chain.reverse()
        report.commits = chain.count

        // Every tip the tool ever set must still be in the history: otherwise it was rewritten.
        let reflog = (try? git.reflog(StateLayout.stateRef)) ?? []
        report.reflogEntries = reflog.count
        // Commits `rollout sync` replayed on a remote's newer tip, or dropped with --discard-local,
        // are kept under refs/rollout/: their old tips were moved away from on purpose.
        var accounted: Set<ObjectID> = []
        for (_, target) in try git.references(prefix: "refs/rollout/replayed/") + git.references(prefix: "refs/rollout/discarded/") {
            var next: ObjectID? = target
            while let id = next, !seen.contains(id), accounted.insert(id).inserted { next = try git.commit(id).parents.first }
        }
        // libgit2 appends the reflog entry before it renames the ref's lock into place: a process
        // killed between the two leaves an entry for a commit that never became the tip. The ref's
        // next update then starts from the same old value again (or, if there was none, the ref is
        // still there): that is an interrupted update, not a rewrite.
        func interrupted(_ index: Int) -> Bool {
            let entry = reflog[index]
            if index + 1 < reflog.count { return reflog[index + 1].previous == entry.previous && reflog[index + 1].previous != entry.target }
            return tip == entry.previous
        }
        report.interruptedUpdates = reflog.indices.filter { !seen.contains(reflog[$0].target) && interrupted($0) }.count
        let lost = reflog.indices.filter { !seen.contains(reflog[$0].target) && !accounted.contains(reflog[$0].target) && !interrupted($0) }.map { reflog[$0] }
        if let newest = lost.last {
            let others = Set(lost.map(\.target)).count - 1
            report.problems.append(Problem(
                commit: newest.target.short, path: nil,
                message: "the history was rewritten: \(newest.target.short) (\"\(newest.message)\") was the tip once and is no longer part of \(StateLayout.stateBranch)"
                    + (others > 0 ? ", nor are \(others) earlier tip(s)" : "")))
        }

        var rollbackAdded: [String: String] = [:]  // rollback path -> commit that added it
        var metrics = MetricsVerifier()
        var previousTree: ObjectID? = nil
        for (index, commit) in chain.enumerated() {
            let short = commit.id.short
            func problem(_ path: String?, _ message: String) { report.problems.append(Problem(commit: short, path: path, message: message)) }
            if index > 0 && commit.parents.count != 1 {
                problem(nil, "has \(commit.parents.count) parents; rollout's history is one line of single-parent commits")
            }
            let trailers = Change.trailers(of: commit.message)
            func values(_ name: String) -> [String] { trailers.filter { $0.name == name }.map(\.value) }
            let changes = try diff(git, previousTree, commit.tree)
            previousTree = commit.tree

            for change in changes where change.old != nil && isImmutable(change.path) {
                problem(change.path, change.new == nil ? "was deleted; it may never change once written" : "changed content; it may never change once written")
            }
            guard let action = values("Action").first else {
                problem(nil, "has no Rollout-Action trailer: a commit made outside rollout (\(commit.message.split(separator: "\n").first ?? ""))")
                continue
            }
            if values("Actor").isEmpty { problem(nil, "has no Rollout-Actor trailer") }
            if action == "init" {
                if index != 0 { problem(nil, "is an init commit in the middle of the history") }
                continue
            }
            let locale = values("Locale").first
            for change in changes where !allowed(action, locale: locale, path: change.path) {
                problem(change.path, "a \(action)\(locale.map { " of \($0)" } ?? "") commit may not touch this file")
            }
            switch action {
            case "pack-add":
                // Either layout: a repository made before sharding added its packs flat.
                var added: [PackID: String] = [:]
                for change in changes where change.old == nil {
                    guard let file = StateLayout.storedPackFile(atPath: change.path), !file.isRecord else { continue }
                    if !file.inShard { problem(change.path, "added in the wrong shard: \(file.id) belongs in \(StateLayout.pack(file.id))") }
                    added[file.id] = change.path
                }
                let named = Set(values("Pack").compactMap { try? PackID.parse($0) })
                for id in Set(added.keys).subtracting(named).sorted() { problem(added[id]!, "added, but not named in a Rollout-Pack trailer") }
                for id in named.subtracting(added.keys).sorted() {
                    problem(nil, "names \(id) in a Rollout-Pack trailer, but adds neither \(StateLayout.pack(id, .sharded)) nor \(StateLayout.pack(id, .flat))")
                }
            case "promote", "complete", "ramp", "pause", "resume":
                if let locale, !changes.contains(where: { $0.path == StateLayout.plan(locale) }) {
                    problem(StateLayout.plan(locale), "a \(action) of \(locale) that does not change its plan")
                }
            case "revert":
                guard let locale, let id = values("Rollback").first else {
                    problem(nil, "a revert without Rollout-Locale and Rollout-Rollback trailers")
                    break
                }
                let path = StateLayout.rollback(id)
                if !id.hasPrefix(locale + "/") { problem(path, "Rollout-Rollback \(id) is not a rollback of \(locale)") }
                if changes.contains(where: { $0.path == path && $0.old == nil }) {
                    rollbackAdded[path] = short
                } else {
                    problem(path, "Rollout-Rollback names it, but this revert did not add it")
                }
            case AuditEntry.publishAction:
                // The state a publish names is the one it was recorded on: the commit's parent.
                if values("Published-State").first != commit.parents.first?.hex {
                    problem(nil, "a publish whose Rollout-Published-State is not its parent commit")
                }
            case KeyOperations.action:
                let version = values("Keys-Version").first.flatMap { Int($0) }
                if values("Key-Event").first.flatMap(KeyEvent.init(rawValue:)) == nil {
                    problem(nil, "a keys commit without a Rollout-Key-Event of \(KeyEvent.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                guard let version else {
                    problem(nil, "a keys commit without a Rollout-Keys-Version trailer")
                    break
                }
                let expected = Set([StateLayout.keyList(version), StateLayout.keyListSignatures(version)])
                let added = Set(changes.filter { $0.old == nil && $0.new != nil }.map(\.path))
                if added != expected || changes.count != 2 {
                    problem(StateLayout.keyList(version), "a keys commit must add exactly key list version \(version) and its signatures")
                }
            case "metrics-ingest", "metrics-retract":
                try metrics.check(commit: short, action: action, trailers: trailers, changes: changes, git: git, problem: problem)
            case "policy-set":
                break
            default:
                problem(nil, "has the unknown action \(action)")
            }
        }

        // The tip's files.
        let snapshot = try Snapshot(repository: git, commit: tip)
        func problem(_ path: String, _ message: String) { report.problems.append(Problem(commit: tip.short, path: path, message: message)) }
        var packs: [String: Set<Int>] = [:]
        for locale in try snapshot.locales() {
            var placed: [PackID: StateLayout.PackPlacement] = [:]
            for file in try snapshot.storedPackFiles(of: locale) {
                if !file.inShard {
                    problem(file.path, "is in the wrong shard: \(file.id) belongs in \(StateLayout.packFile(file.id, record: file.isRecord))")
                } else if !file.isRecord, let other = placed.updateValue(file.placement, forKey: file.id), other != file.placement {
                    problem(file.path, "\(file.id) is stored twice, flat and in its shard")
                }
            }
            for version in try snapshot.contentVersions(of: locale) {
                let id = PackID(locale: locale, contentVersion: version)
                let placement = try snapshot.packPlacement(id) ?? .sharded
                let path = StateLayout.pack(id, placement)
                report.packs += 1
                guard let bytes = try snapshot.file(path) else { continue }
                packs[locale, default: []].insert(version)
                do {
                    let parsed = try PackParser.parse(bytes, source: path, maximumBytes: Int.max)
                    if parsed.declaredChecksum == nil { problem(path, "has no checksum") }
                    if parsed.pack.id != id { problem(path, "holds \(parsed.pack.id), not \(id)") }
                    if let record = try? snapshot.record(id) {
                        if record.checksum != parsed.pack.checksum { problem(StateLayout.packRecord(id, placement), "records checksum \(record.checksum), the pack's is \(parsed.pack.checksum)") }
                    } else {
                        problem(StateLayout.packRecord(id, placement), "is missing or damaged")
                    }
                } catch let error as RolloutError {
                    problem(path, error.message.hasPrefix(path + ": ") ? String(error.message.dropFirst(path.count + 2)) : error.message)
                }
            }
        }
        for locale in try snapshot.plannedLocales() {
            let path = StateLayout.plan(locale)
            report.plans += 1
            let plan: Plan
            do {
                guard let parsed = try snapshot.plan(locale) else { continue }
                plan = parsed
            } catch let error as RolloutError {
                problem(path, error.message)
                continue
            }
            let stored = packs[locale] ?? []
            for ref in plan.baselines where !stored.contains(ref.contentVersion) {
                problem(path, "names \(locale)@\(ref.contentVersion) as a baseline; the repository does not hold it")
            }
            // The kill switch keeps the baseline it blocked on record (it serves nothing while on).
            if let baseline = plan.baseline, plan.isBlocked(baseline.contentVersion), !plan.bundledOnly {
                problem(path, "its baseline \(locale)@\(baseline.contentVersion) is blocked")
            }
            for rule in plan.rules {
                if !stored.contains(rule.pack.contentVersion) { problem(path, "a rule gives \(locale)@\(rule.pack.contentVersion); the repository does not hold it") }
                if plan.isBlocked(rule.pack.contentVersion) { problem(path, "a rule gives \(locale)@\(rule.pack.contentVersion), which is blocked") }
            }
        }
        try metrics.checkTip(snapshot, problem: problem)
        report.keyLists = checkKeyChain(snapshot, problem: problem)
        for locale in try snapshot.directory(StateLayout.rollbacksDirectory).filter(\.isTree).map(\.name) {
            let entries = try snapshot.directory(StateLayout.rollbackDirectory(locale)).filter { !$0.isTree }
            let numbers = entries.compactMap { Int($0.name.dropLast(5)) }.sorted()
            report.rollbacks += entries.count
            if !numbers.isEmpty && numbers != Array(1...numbers.count) {
                problem(StateLayout.rollbackDirectory(locale), "rollback manifests are numbered \(numbers.map(String.init).joined(separator: ", ")); a revert's record is missing")
            }
            for entry in entries {
                let path = "\(StateLayout.rollbackDirectory(locale))/\(entry.name)"
                let document = (try? StrictJSONParser.parse(try git.readBlob(entry.id)))?.objectValue
                if document == nil || document?["id"]?.stringValue != "\(locale)/\(entry.name.dropLast(5))" {
                    problem(path, "is not the rollback manifest its name says")
                }
                if rollbackAdded[path] == nil { problem(path, "was not written by a revert commit of this history") }
            }
        }
        return report
    }

    /// The stored key lists form the chain devices walk: versions 1, 2, ... with none missing,
    /// each one accepted by `KeyChain.accept` from the one before it (version 1 from its own roots).
    /// Returns how many there are.
    static func checkKeyChain(_ snapshot: Snapshot, problem: (String, String) -> Void) -> Int {
        let versions: [Int]
        do {
            versions = try snapshot.keyListVersions()
        } catch {
            problem(StateLayout.keysDirectory, "cannot be read: \(error)")
            return 0
        }
        if versions != Array(1..<(versions.count + 1)) {
            problem(StateLayout.keysDirectory, "holds key list versions \(versions.map(String.init).joined(separator: ", ")); they must run 1, 2, 3, ... with none missing")
        }
        var previous: KeyList?
        for version in versions {
            let path = StateLayout.keyList(version)
            let file: SignedFile
            do {
                file = try snapshot.signedKeyList(version)
            } catch {
                problem(path, "has no signatures beside it (\(StateLayout.keyListSignatures(version)))")
                continue
            }
            do {
                // Version 1 (or a list after a gap) has nothing before it: its own roots must sign it.
                let own = (try? KeyList.parse(file.bytes, source: path))?.roots
                let anchor = KeyChain.Anchor(roots: previous?.roots ?? own ?? KeyList.Roots(keys: [], threshold: 1), list: previous)
                let list = try KeyChain.accept(file, rotations: [:], anchor: anchor)
                if list.version != version { problem(path, "holds key list version \(list.version), not \(version)") }
                previous = list
            } catch let failure as TrustFailure {
                problem(path, "breaks the key chain: \(failure.description)")
                // The versions after it are checked against the last list that holds.
            } catch {
                problem(path, "cannot be checked: \(error)")
            }
        }
        return versions.count
    }

    struct PathChange {
        let path: String
        let old: ObjectID?
        let new: ObjectID?
    }

    /// The files that differ between two trees, descending only into subtrees that differ.
    static func diff(_ git: GitRepository, _ old: ObjectID?, _ new: ObjectID?, prefix: String = "") throws -> [PathChange] {
        if old == new { return [] }
        let before = try old.map { try git.treeEntries($0) } ?? []
        let after = try new.map { try git.treeEntries($0) } ?? []
        var byName: [String: (old: GitTreeEntry?, new: GitTreeEntry?)] = [:]
        for entry in before { byName[entry.name, default: (nil, nil)].old = entry }
        for entry in after { byName[entry.name, default: (nil, nil)].new = entry }
        var changes: [PathChange] = []
        for name in byName.keys.sorted() {
            let (o, n) = byName[name]!
            if o?.id == n?.id && o?.isTree == n?.isTree { continue }
            let path = prefix + name
            let oldTree = o?.isTree == true ? o?.id : nil
            let newTree = n?.isTree == true ? n?.id : nil
            if oldTree != nil || newTree != nil { changes += try diff(git, oldTree, newTree, prefix: path + "/") }
            let oldBlob = o?.isTree == false ? o?.id : nil
            let newBlob = n?.isTree == false ? n?.id : nil
            if oldBlob != nil || newBlob != nil { changes.append(PathChange(path: path, old: oldBlob, new: newBlob)) }
        }
        return changes
    }
}
