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

        public init(commit: String?, path: String?, message: String) {
            self.commit = commit
            self.path = path
            self.message = message
        }
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
        /// Why the checks of the history and the tip's files did not run (objects they read are
        /// damaged), or nil when they ran.
        public var notChecked: String? = nil

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

    /// The files each action may touch (`locale` is Rollout-Locale). A new action needs its rule here.
    static func allowed(_ action: ChangeAction, locale: String?, path: String) -> Bool {
        switch action {
        // The first commit lays the repository out; `verify` checks that it is the first instead.
        case .initialize: return true
        case .packAdd: return path.hasPrefix("packs/")
        case .policySet: return path == StateLayout.policy || path == StateLayout.siteSequence
        // A promote guard applies when it is due also takes it out of the locale's pending changes.
        case .promote, .complete:
            return locale.map { path == StateLayout.plan($0) || path == StateLayout.schedule($0) } ?? false
        case .ramp, .pause, .resume:
            return locale.map { path == StateLayout.plan($0) } ?? false
        case .schedule, .cancel: return locale.map { path == StateLayout.schedule($0) } ?? false
        // A group's file, and the plans whose candidate is staged to the group (their member hashes).
        case .testersAdd, .testersRemove:
            return path.hasPrefix(StateLayout.testersDirectory + "/")
                || path.hasPrefix(StateLayout.plansDirectory + "/")
        // A revert that ends a running experiment also ends its record.
        case .revert:
            return path.hasPrefix(StateLayout.experimentsDirectory + "/")
                || (locale.map {
                    path == StateLayout.plan($0) || path.hasPrefix(StateLayout.rollbackDirectory($0) + "/")
                } ?? false)
        // The record, the locale's plan, and (a stop that harms) its rollback manifest.
        case .experimentStart, .experimentStop:
            return path.hasPrefix(StateLayout.experimentsDirectory + "/")
                || (locale.map {
                    path == StateLayout.plan($0)
                        || (action == .experimentStop && path.hasPrefix(StateLayout.rollbackDirectory($0) + "/"))
                } ?? false)
        case .metricsIngest: return MetricsVerifier.allowed(retracting: false, path: path)
        case .metricsRetract: return MetricsVerifier.allowed(retracting: true, path: path)
        case .keys: return isKeyListFile(path)
        case .signers: return path.hasPrefix(StateLayout.signersDirectory + "/")
        // A publish records what reached devices; it changes no file.
        case .publish: return false
        }
    }

    /// `keys/<version>.json` or its `.sigs`: the only files a key list commit writes.
    static func isKeyListFile(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == StateLayout.keysDirectory else { return false }
        let name = parts[1].hasSuffix(".sigs") ? parts[1].dropLast(5) : parts[1]
        return StateLayout.contentVersion(fromFileName: String(name)) != nil
    }

    /// The checks in the order they report: stale locks, the ref, every object the history reaches
    /// (`checkObjects`: when one cannot be read, the checks after it do not run), the reflog
    /// against the history, every commit of the history, then the tip's files.
    public static func verify(_ repository: PackRepository) throws -> Report {
        let git = repository.git
        var report = Report()
        report.locks = staleLocks(repository)
        guard let tip = try git.referenceTarget(StateLayout.stateRef) else {
            report.problems.append(Problem(commit: nil, path: nil, message: .noStateRef))
            return report
        }
        let damage = try checkObjects(git, tip: tip)
        guard damage.problems.isEmpty else {
            report.problems += damage.problems
            report.notChecked = .objectsDamaged
            return report
        }
        do {
            try checkContent(git, tip: tip, into: &report)
        } catch let error as RolloutError where error.isRepositoryDamage {
            // An object outside the history from the tip (a ref under refs/rollout/) that cannot be read.
            report.problems.append(Problem(commit: nil, path: nil, message: error.damage ?? error.message))
        }
        return report
    }

    /// The history, the reflog against it, every commit, then the tip's files: all of it reads
    /// objects `checkObjects` found whole.
    static func checkContent(_ git: GitRepository, tip: ObjectID, into report: inout Report) throws {
        let chain = try history(git, tip: tip)
        report.commits = chain.count
        try checkReflog(git, tip: tip, history: Set(chain.map(\.id)), into: &report)
        var walk = HistoryWalk(git: git)
        for (index, commit) in chain.enumerated() {
            report.problems += try walk.check(commit, isFirst: index == 0)
        }
        try checkTip(git, tip: tip, walk: walk, into: &report)
    }

    /// Lock files a killed process left: each blocks writes until removed.
    static func staleLocks(_ repository: PackRepository) -> [(path: String, clear: String)] {
        ["\(StateLayout.stateRef).lock", "packed-refs.lock", "index.lock", "config.lock"].compactMap { lock in
            let path = "\(repository.path)/\(lock)"
            return FileManager.default.fileExists(atPath: path) ? (path, "rm \(path)") : nil
        }
    }

    /// The history, oldest first, along first parents.
    static func history(_ git: GitRepository, tip: ObjectID) throws -> [GitCommit] {
        var chain: [GitCommit] = []
        var next: ObjectID? = tip
        var seen: Set<ObjectID> = []
        while let id = next {
            guard seen.insert(id).inserted else { break }
            let commit = try git.commit(id)
            chain.append(commit)
            next = commit.parents.first
        }
        return chain.reversed()
    }

    /// Every tip the tool ever set must still be in the history: otherwise it was rewritten.
    static func checkReflog(_ git: GitRepository, tip: ObjectID, history seen: Set<ObjectID>, into report: inout Report)
        throws
    {
        let reflog = (try? git.reflog(StateLayout.stateRef)) ?? []
        report.reflogEntries = reflog.count
        // Commits `rollout sync` replayed on a remote's newer tip, or dropped with --discard-local,
        // are kept under refs/rollout/: their old tips were moved away from on purpose.
        var accounted: Set<ObjectID> = []
        let kept =
            try git.references(prefix: "refs/rollout/replayed/") + git.references(prefix: "refs/rollout/discarded/")
        for (_, target) in kept {
            var next: ObjectID? = target
            while let id = next, !seen.contains(id), accounted.insert(id).inserted {
                next = try git.commit(id).parents.first
            }
        }
        // libgit2 appends the reflog entry before it renames the ref's lock into place: a process
        // killed between the two leaves an entry for a commit that never became the tip. The ref's
        // next update then starts from the same old value again (or, if there was none, the ref is
        // still there): that is an interrupted update, not a rewrite.
        func interrupted(_ index: Int) -> Bool {
            let entry = reflog[index]
            if index + 1 < reflog.count {
                return reflog[index + 1].previous == entry.previous && reflog[index + 1].previous != entry.target
            }
            return tip == entry.previous
        }
        let gone = reflog.indices.filter { !seen.contains(reflog[$0].target) }
        report.interruptedUpdates = gone.filter(interrupted).count
        let lost = gone.filter { !accounted.contains(reflog[$0].target) && !interrupted($0) }.map { reflog[$0] }
        if let newest = lost.last {
            let others = Set(lost.map(\.target)).count - 1
            report.problems.append(
                Problem(commit: newest.target.short, path: nil, message: .historyRewritten(newest, others: others)))
        }
    }

    /// One commit of the history, with what the checks of its action read.
    struct CommitUnderCheck {
        let commit: GitCommit
        let trailers: [(name: String, value: String)]
        let changes: [PathChange]
        var problems: [Problem] = []

        var short: String { commit.id.short }

        mutating func problem(_ path: String?, _ message: String) {
            problems.append(Problem(commit: short, path: path, message: message))
        }
    }

    /// The history, oldest first: each commit against its trailers and what the commits before it added.
    struct HistoryWalk {
        let git: GitRepository
        /// Rollback manifest path -> the commit (short id) whose revert added it.
        var rollbackAdded: [String: String] = [:]
        var metrics = MetricsVerifier()
        var previousTree: ObjectID? = nil

        /// A walk from the first commit (`rollout verify`).
        init(git: GitRepository) { self.git = git }

        /// A walk that starts after `base`, a tip checked before (the server's, for the pre-receive
        /// hook): the records `base` holds count as added by the history before it.
        init(git: GitRepository, after base: GitCommit) throws {
            self.git = git
            previousTree = base.tree
            try metrics.assumeAdded(in: Snapshot(repository: git, commit: base.id))
        }

        /// The one merge main may hold: an approved proposal (`rollout approve`), whose second parent
        /// is the proposal its `Rollout-Proposal` names, made on a state of main's history and not
        /// itself part of it. Who signed it is the signature audit's to judge.
        func isApproval(_ commit: GitCommit, _ trailers: [(name: String, value: String)]) throws -> Bool {
            guard commit.parents.count == 2 else { return false }
            let (tip, proposal) = (commit.parents[0], commit.parents[1])
            guard trailers.value(.proposal) == proposal.hex,
                let base = try git.commit(proposal).parents.first, proposal != tip,
                try !git.isDescendant(tip, of: proposal)
            else { return false }
            return try base == tip || git.isDescendant(tip, of: base)
        }

        /// The paths an approval (`isApproval`) changes on main's tip that its proposal does not
        /// change to the same content: what was approved is what was proposed, so the approver alone
        /// cannot apply anything else (another share, another pack).
        func notProposed(_ approval: GitCommit, _ changes: [PathChange]) throws -> [String] {
            let proposal = try git.commit(approval.parents[1])
            let base = try proposal.parents.first.map { try git.commit($0).tree }
            let proposed = Dictionary(
                try diff(git, base, proposal.tree).map { ($0.path, $0.new) }, uniquingKeysWith: { a, _ in a })
            return changes.filter { change in proposed[change.path].map { $0 != change.new } ?? true }.map(\.path)
        }

        mutating func check(_ commit: GitCommit, isFirst: Bool) throws -> [Problem] {
            let changes = try diff(git, previousTree, commit.tree)
            previousTree = commit.tree
            var c = CommitUnderCheck(commit: commit, trailers: Change.trailers(of: commit.message), changes: changes)
            if try !isFirst && commit.parents.count != 1 {
                if try !isApproval(commit, c.trailers) {
                    c.problem(nil, .notSingleParent(commit))
                } else {
                    for path in try notProposed(commit, changes) { c.problem(path, .notProposed(commit.parents[1])) }
                }
            }
            for change in changes where change.old != nil && isImmutable(change.path) {
                c.problem(change.path, .immutableChanged(change))
            }
            try checkPlansTrailer(&c)
            guard let name = c.trailers.value(.action) else {
                c.problem(nil, .noAction(commit))
                return c.problems
            }
            if c.trailers.values(.actor).isEmpty { c.problem(nil, "has no Rollout-Actor trailer") }
            let locale = c.trailers.value(.locale)
            guard let action = ChangeAction(rawValue: name) else {
                // An action this build does not know (a newer rollout's, or a commit made by hand):
                // no file is known to be its, and the commit is reported.
                for change in changes { c.problem(change.path, .mayNotTouch(name, locale: locale)) }
                c.problem(nil, "has the unknown action \(name)")
                return c.problems
            }
            if action == .initialize {
                if !isFirst { c.problem(nil, "is an init commit in the middle of the history") }
                return c.problems
            }
            for change in changes where !allowed(action, locale: locale, path: change.path) {
                c.problem(change.path, .mayNotTouch(name, locale: locale))
            }
            try checkTrailers(action, &c)
            return c.problems
        }

        /// A `Rollout-Plans` trailer says exactly what the commit did to the plans: the log index of
        /// every clone is built from it (docs/audit.md, "The Rollout-Plans trailer").
        func checkPlansTrailer(_ c: inout CommitUnderCheck) throws {
            let values = c.trailers.values(.plans)
            guard !values.isEmpty else { return }
            let changed = c.changes.compactMap { change -> (locale: String, before: ObjectID?, after: ObjectID)? in
                guard let new = change.new, let locale = PlansTrailer.locale(ofPlanPath: change.path) else {
                    return nil
                }
                return (locale, change.old, new)
            }
            let actual = try PlansTrailer.of(changed) { try? Plan.parse(git.readBlob($0), source: $0.hex) }
            guard values.count == 1, let said = PlansTrailer(value: values[0]) else {
                c.problem(nil, .unreadablePlansTrailer(values))
                return
            }
            if said != actual { c.problem(nil, .plansTrailerDisagrees(said, actual)) }
        }

        /// What each action's trailers promise about the files its commit changed.
        mutating func checkTrailers(_ action: ChangeAction, _ c: inout CommitUnderCheck) throws {
            switch action {
            case .packAdd: checkPackAdd(&c)
            case .promote, .complete, .ramp, .pause, .resume:
                if let locale = c.trailers.value(.locale),
                    !c.changes.contains(where: { $0.path == StateLayout.plan(locale) })
                {
                    c.problem(StateLayout.plan(locale), .planUnchanged(action, locale))
                }
                if let locale = c.trailers.value(.locale),
                    c.changes.contains(where: { $0.path == StateLayout.schedule(locale) })
                {
                    checkSchedule(action, &c)
                }
            case .revert: checkRevert(&c)
            case .experimentStart, .experimentStop:
                let name = c.trailers.value(.experiment) ?? ""
                if !c.changes.contains(where: { $0.path == StateLayout.experiment(name) }) {
                    c.problem(
                        StateLayout.experiment(name),
                        "Rollout-Experiment names this experiment, but the commit left its record as it was")
                }
                // Guard's stop for harm writes a rollback manifest, as a revert does.
                if action == .experimentStop, c.trailers.value(.rollback) != nil { checkRevert(&c) }
            case .schedule, .cancel: checkSchedule(action, &c)
            case .testersAdd, .testersRemove:
                let group = c.trailers.value(.testers) ?? ""
                if !c.changes.contains(where: { $0.path == StateLayout.testers(group) }) {
                    c.problem(
                        StateLayout.testers(group), "Rollout-Testers names this group, but the commit left it as it was"
                    )
                }
            case .publish:
                // The state a publish names is the one it was recorded on: the commit's parent.
                if c.trailers.value(.publishedState) != c.commit.parents.first?.hex {
                    c.problem(nil, "a publish whose Rollout-Published-State is not its parent commit")
                }
            case .keys: checkKeys(&c)
            case .metricsIngest, .metricsRetract:
                try metrics.check(commit: c.short, action: action, trailers: c.trailers, changes: c.changes, git: git) {
                    c.problem($0, $1)
                }
            // `check` took init apart; a policy may change any way its own validation allows; the
            // signers' files are checked by the signature audit, which reads them at each change.
            case .initialize, .policySet, .signers: break
            }
        }

        /// Every pack added is named in a Rollout-Pack trailer, and every one named is added.
        func checkPackAdd(_ c: inout CommitUnderCheck) {
            // Either layout: a repository made before sharding added its packs flat.
            var added: [PackID: String] = [:]
            for change in c.changes where change.old == nil {
                guard let file = StateLayout.storedPackFile(atPath: change.path), !file.isRecord else { continue }
                if !file.inShard { c.problem(change.path, .addedInWrongShard(file.id)) }
                added[file.id] = change.path
            }
            let named = Set(c.trailers.values(.pack).compactMap { try? PackID.parse($0) })
            for id in Set(added.keys).subtracting(named).sorted() {
                c.problem(added[id]!, "added, but not named in a Rollout-Pack trailer")
            }
            for id in named.subtracting(added.keys).sorted() { c.problem(nil, .namedPackNotAdded(id)) }
        }

        /// A schedule or cancel changes its locale's pending changes and names the ones it added or
        /// took out; a promote that changed them is one guard applied, and names it too.
        func checkSchedule(_ action: ChangeAction, _ c: inout CommitUnderCheck) {
            guard let locale = c.trailers.value(.locale), !c.trailers.values(.schedule).isEmpty else {
                c.problem(nil, "a \(action.rawValue) without Rollout-Locale and Rollout-Schedule trailers")
                return
            }
            if action == .schedule || action == .cancel,
                !c.changes.contains(where: { $0.path == StateLayout.schedule(locale) })
            {
                c.problem(
                    StateLayout.schedule(locale), "Rollout-Schedule names a change, but this commit left it as it was")
            }
        }

        /// A revert adds the rollback manifest its Rollout-Rollback names, one of its own locale.
        mutating func checkRevert(_ c: inout CommitUnderCheck) {
            guard let locale = c.trailers.value(.locale), let id = c.trailers.value(.rollback) else {
                c.problem(nil, "a revert without Rollout-Locale and Rollout-Rollback trailers")
                return
            }
            let path = StateLayout.rollback(id)
            if !id.hasPrefix(locale + "/") { c.problem(path, "Rollout-Rollback \(id) is not a rollback of \(locale)") }
            if c.changes.contains(where: { $0.path == path && $0.old == nil }) {
                rollbackAdded[path] = c.short
            } else {
                c.problem(path, "Rollout-Rollback names it, but this revert did not add it")
            }
        }

        /// A keys commit adds exactly the key list version its trailer names, and its signatures.
        func checkKeys(_ c: inout CommitUnderCheck) {
            let version = c.trailers.value(.keysVersion).flatMap { Int($0) }
            if c.trailers.value(.keyEvent).flatMap(KeyEvent.init(rawValue:)) == nil { c.problem(nil, .noKeyEvent) }
            guard let version else {
                c.problem(nil, "a keys commit without a Rollout-Keys-Version trailer")
                return
            }
            let expected = Set([StateLayout.keyList(version), StateLayout.keyListSignatures(version)])
            let added = Set(c.changes.filter { $0.old == nil && $0.new != nil }.map(\.path))
            if added != expected || c.changes.count != 2 {
                c.problem(StateLayout.keyList(version), .notExactlyKeyList(version))
            }
        }
    }

    /// The tip's files: packs, plans, metrics, key lists and rollback manifests.
    static func checkTip(_ git: GitRepository, tip: ObjectID, walk: HistoryWalk, into report: inout Report) throws {
        let snapshot = try Snapshot(repository: git, commit: tip)
        var problems: [Problem] = []
        func problem(_ path: String, _ message: String) {
            problems.append(Problem(commit: tip.short, path: path, message: message))
        }
        let (packs, stored) = try checkPacks(snapshot, problem: problem)
        let plans = try checkPlans(snapshot, stored: stored, problem: problem)
        try checkSchedules(snapshot, stored: stored, problem: problem)
        try checkTesters(snapshot, problem: problem)
        try checkExperiments(snapshot, problem: problem)
        try walk.metrics.checkTip(snapshot, problem: problem)
        let keyLists = checkKeyChain(snapshot, problem: problem)
        let rollbacks = try checkRollbacks(snapshot, addedBy: walk.rollbackAdded, problem: problem)
        report.problems += problems
        (report.packs, report.plans, report.keyLists, report.rollbacks) = (packs, plans, keyLists, rollbacks)
    }

    /// Every stored pack parses, is in its shard, holds the id its path says and matches its record.
    /// Returns how many packs there are, and the content versions of each locale the tip holds.
    static func checkPacks(_ snapshot: Snapshot, problem: (String, String) -> Void) throws -> (Int, [String: Set<Int>])
    {
        var count = 0
        var stored: [String: Set<Int>] = [:]
        for locale in try snapshot.locales() {
            var placed: [PackID: StateLayout.PackPlacement] = [:]
            for file in try snapshot.storedPackFiles(of: locale) {
                if !file.inShard {
                    problem(file.path, .inWrongShard(file))
                } else if !file.isRecord, let other = placed.updateValue(file.placement, forKey: file.id),
                    other != file.placement
                {
                    problem(file.path, "\(file.id) is stored twice, flat and in its shard")
                }
            }
            for version in try snapshot.contentVersions(of: locale) {
                let id = PackID(locale: locale, contentVersion: version)
                let placement = try snapshot.packPlacement(id) ?? .sharded
                let path = StateLayout.pack(id, placement)
                count += 1
                guard let bytes = try snapshot.file(path) else { continue }
                stored[locale, default: []].insert(version)
                try checkPack(bytes, id: id, placement: placement, snapshot: snapshot, problem: problem)
            }
        }
        return (count, stored)
    }

    static func checkPack(
        _ bytes: [UInt8], id: PackID, placement: StateLayout.PackPlacement, snapshot: Snapshot,
        problem: (String, String) -> Void
    ) throws {
        let path = StateLayout.pack(id, placement)
        do {
            let parsed = try PackParser.parse(bytes, source: path, maximumBytes: Int.max)
            if parsed.declaredChecksum == nil { problem(path, "has no checksum") }
            if parsed.pack.id != id { problem(path, "holds \(parsed.pack.id), not \(id)") }
            let recordPath = StateLayout.packRecord(id, placement)
            if let record = try? snapshot.record(id) {
                if record.checksum != parsed.pack.checksum {
                    problem(recordPath, "records checksum \(record.checksum), the pack's is \(parsed.pack.checksum)")
                }
            } else {
                problem(recordPath, "is missing or damaged")
            }
        } catch let error as RolloutError {
            problem(
                path,
                error.message.hasPrefix(path + ": ") ? String(error.message.dropFirst(path.count + 2)) : error.message)
        }
    }

    /// Every experiment's record parses under its own name; a plan's running experiment is exactly
    /// what its record publishes, and a record that says it runs has its plan running it
    /// (what `experiment start` and `stop` and a revert keep so; docs/experiments.md).
    static func checkExperiments(_ snapshot: Snapshot, problem: (String, String) -> Void) throws {
        var records: [String: ExperimentRecord] = [:]
        for name in try snapshot.experimentNames() {
            do {
                guard let record = try snapshot.experiment(name) else { continue }
                if record.name != name { problem(StateLayout.experiment(name), "holds the experiment \(record.name)") }
                records[name] = record
            } catch let error as RolloutError {
                problem(StateLayout.experiment(name), error.damage ?? error.message)
            }
        }
        var running: Set<String> = []
        for locale in try snapshot.plannedLocales() {
            guard let plan = try? snapshot.plan(locale), let experiment = plan.experiment else { continue }
            running.insert(experiment.name)
            guard let record = records[experiment.name], record.isRunning, record.locale == locale,
                record.published == experiment
            else {
                problem(
                    StateLayout.plan(locale),
                    "runs the experiment \(experiment.name), which its record does not say it runs as the plan does")
                continue
            }
        }
        for (name, record) in records where record.isRunning && !running.contains(name) {
            problem(StateLayout.experiment(name), "says it runs, but the plan of \(record.locale) does not run it")
        }
    }

    /// Every tester group parses under its own name, and every plan that stages to a group carries
    /// exactly that group's member hashes (what `testers add` and `remove` keep so).
    static func checkTesters(_ snapshot: Snapshot, problem: (String, String) -> Void) throws {
        var groups: [String: TesterGroup] = [:]
        for name in try snapshot.testerGroupNames() {
            do {
                guard let group = try snapshot.testerGroup(name) else { continue }
                if group.name != name { problem(StateLayout.testers(name), "holds the tester group \(group.name)") }
                groups[name] = group
            } catch let error as RolloutError {
                problem(StateLayout.testers(name), error.damage ?? error.message)
            }
        }
        for locale in try snapshot.plannedLocales() {
            guard let plan = try? snapshot.plan(locale) else { continue }
            for target in plan.testers {
                guard let group = groups[target.group] else {
                    problem(
                        StateLayout.plan(locale), "stages to the tester group \(target.group), which it does not hold")
                    continue
                }
                if target.salt != group.salt || target.members != group.memberHashes {
                    problem(StateLayout.plan(locale), "its testers of \(target.group) are not the group's members")
                }
            }
        }
    }

    /// Every locale's pending changes parse, belong to it, and name only packs the tip holds.
    static func checkSchedules(
        _ snapshot: Snapshot, stored packs: [String: Set<Int>], problem: (String, String) -> Void
    ) throws {
        for locale in try snapshot.scheduledLocales() {
            let path = StateLayout.schedule(locale)
            do {
                let schedule = try snapshot.schedule(locale)
                if schedule.locale != locale { problem(path, "holds the pending changes of \(schedule.locale)") }
                for change in schedule.pending where !(packs[locale] ?? []).contains(change.pack.contentVersion) {
                    problem(path, "pending change \(change.id) gives \(change.pack); the repository does not hold it")
                }
            } catch let error as RolloutError {
                problem(path, error.damage ?? error.message)
            }
        }
    }

    /// Every plan (of `only` those locales, when given) parses, and names only packs the tip holds
    /// and that are not blocked. Returns how many.
    static func checkPlans(
        _ snapshot: Snapshot, stored packs: [String: Set<Int>], only locales: Set<String>? = nil,
        problem: (String, String) -> Void
    ) throws -> Int {
        var count = 0
        for locale in try snapshot.plannedLocales() where locales?.contains(locale) ?? true {
            let path = StateLayout.plan(locale)
            count += 1
            let plan: Plan
            do {
                guard let parsed = try snapshot.plan(locale) else { continue }
                plan = parsed
            } catch let error as RolloutError {
                problem(path, error.damage ?? error.message)
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
                let pack = "\(locale)@\(rule.pack.contentVersion)"
                if !stored.contains(rule.pack.contentVersion) {
                    problem(path, "a rule gives \(pack); the repository does not hold it")
                }
                if plan.isBlocked(rule.pack.contentVersion) { problem(path, "a rule gives \(pack), which is blocked") }
            }
        }
        return count
    }

    /// Each locale's rollback manifests are numbered 1, 2, ... with none missing, each is what its
    /// name says, and a revert of this history added it. Returns how many there are.
    static func checkRollbacks(
        _ snapshot: Snapshot, addedBy rollbackAdded: [String: String], problem: (String, String) -> Void
    ) throws -> Int {
        var count = 0
        for locale in try snapshot.directory(StateLayout.rollbacksDirectory).filter(\.isTree).map(\.name) {
            let entries = try snapshot.directory(StateLayout.rollbackDirectory(locale)).filter { !$0.isTree }
            let numbers = entries.compactMap { Int($0.name.dropLast(5)) }.sorted()
            count += entries.count
            if !numbers.isEmpty && numbers != Array(1...numbers.count) {
                problem(StateLayout.rollbackDirectory(locale), .rollbackGap(numbers))
            }
            for entry in entries {
                let path = "\(StateLayout.rollbackDirectory(locale))/\(entry.name)"
                let document = (try? StrictJSONParser.parse(try snapshot.repository.readBlob(entry.id)))?.objectValue
                if document == nil || document?["id"]?.stringValue != "\(locale)/\(entry.name.dropLast(5))" {
                    problem(path, "is not the rollback manifest its name says")
                }
                if rollbackAdded[path] == nil {
                    problem(path, "was not written by a revert (or an experiment stop) of this history")
                }
            }
        }
        return count
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
            problem(StateLayout.keysDirectory, .keyListGap(versions))
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
                let anchor = KeyChain.Anchor(
                    roots: previous?.roots ?? own ?? KeyList.Roots(keys: [], threshold: 1), list: previous)
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
    static func diff(_ git: GitRepository, _ old: ObjectID?, _ new: ObjectID?, prefix: String = "") throws
        -> [PathChange]
    {
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

/// The longer problem messages, written once; the text is what `rollout verify` prints.
extension String {
    fileprivate static func unreadablePlansTrailer(_ values: [String]) -> String {
        values.count == 1
            ? "has a Rollout-Plans trailer rollout does not write so (\(values[0])); the log index reads this commit from its trees, and the trailer should be removed"
            : "has \(values.count) Rollout-Plans trailers; rollout writes one"
    }

    fileprivate static func plansTrailerDisagrees(_ said: PlansTrailer, _ actual: PlansTrailer?) -> String {
        let found = actual.map { "the plans it changed give \($0.value)" } ?? "a plan it wrote cannot be read as a plan"
        return
            "Rollout-Plans says \(said.value), but \(found); `rollout log` on a clone reads what this trailer says, so the history misleads every auditor"
    }

    fileprivate static func notSingleParent(_ commit: GitCommit) -> String {
        "has \(commit.parents.count) parents; rollout's history is one line of single-parent commits"
    }

    fileprivate static func notProposed(_ proposal: ObjectID) -> String {
        "an approval that applies what its proposal \(proposal.short) does not propose here: approve applies exactly the proposal"
    }

    fileprivate static func immutableChanged(_ change: Verifier.PathChange) -> String {
        "\(change.new == nil ? "was deleted" : "changed content"); it may never change once written"
    }

    fileprivate static func planUnchanged(_ action: ChangeAction, _ locale: String) -> String {
        "a \(action.rawValue) of \(locale) that does not change its plan"
    }

    fileprivate static func addedInWrongShard(_ id: PackID) -> String {
        "added in the wrong shard: \(id) belongs in \(StateLayout.pack(id))"
    }

    fileprivate static func notExactlyKeyList(_ version: Int) -> String {
        "a keys commit must add exactly key list version \(version) and its signatures"
    }

    fileprivate static func inWrongShard(_ file: StateLayout.StoredPackFile) -> String {
        "is in the wrong shard: \(file.id) belongs in \(StateLayout.packFile(file.id, record: file.isRecord))"
    }

    fileprivate static var objectsDamaged: String {
        "the history, trailers, packs, plans, metrics, key lists and rollback manifests were not checked: "
            + "they read the objects listed above. Restore them (from a clone of this repository: "
            + "rollout clone, or a backup) and run rollout verify again"
    }

    fileprivate static var noStateRef: String {
        "\(StateLayout.stateRef) does not exist: not a rollout repository, or its history was removed"
    }

    fileprivate static func historyRewritten(
        _ newest: (previous: ObjectID?, target: ObjectID, message: String), others: Int
    ) -> String {
        "the history was rewritten: \(newest.target.short) (\"\(newest.message)\") was the tip once and is no longer part of "
            + "\(StateLayout.stateBranch)" + (others > 0 ? ", nor are \(others) earlier tip(s)" : "")
    }

    fileprivate static func noAction(_ commit: GitCommit) -> String {
        "has no Rollout-Action trailer: a commit made outside rollout (\(commit.message.split(separator: "\n").first ?? ""))"
    }

    fileprivate static func mayNotTouch(_ action: String, locale: String?) -> String {
        "a \(action)\(locale.map { " of \($0)" } ?? "") commit may not touch this file"
    }

    fileprivate static func namedPackNotAdded(_ id: PackID) -> String {
        "names \(id) in a Rollout-Pack trailer, but adds neither \(StateLayout.pack(id, .sharded)) nor \(StateLayout.pack(id, .flat))"
    }

    fileprivate static var noKeyEvent: String {
        "a keys commit without a Rollout-Key-Event of \(KeyEvent.allCases.map(\.rawValue).joined(separator: ", "))"
    }

    fileprivate static func rollbackGap(_ numbers: [Int]) -> String {
        "rollback manifests are numbered \(numbers.map(String.init).joined(separator: ", ")); a revert's record is missing"
    }

    fileprivate static func keyListGap(_ versions: [Int]) -> String {
        "holds key list versions \(versions.map(String.init).joined(separator: ", ")); they must run 1, 2, 3, ... with none missing"
    }
}
