import Foundation
import XCTest

// The machinery of the model-based test (ModelBasedTests.swift, docs/reliability.md "Model-based
// test of whole operations"): a seeded generator of documented commands, a runner that can kill a
// step, and the invariant checks run after every step.

/// The knobs, from the environment: MODEL_SEEDS ("1-50", "7" or "3,9"), MODEL_STEPS (per seed),
/// MODEL_KILL_RATE (the share of steps killed at a random moment).
struct ModelKnobs {
    var seeds: [UInt64] = [1, 2]
    var steps = 40
    var killRate = 0.05
    /// MODEL_KEEP_GOING=1: record every violation and go on (to list distinct findings) instead of
    /// stopping the seed at the first one.
    var keepGoing = false
    /// MODEL_JOBS: seeds run at once (default 1; the long run uses 2, one per core).
    var jobs = 1

    static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) -> ModelKnobs {
        var knobs = ModelKnobs()
        if let text = env["MODEL_SEEDS"], !text.isEmpty {
            knobs.seeds = text.split(separator: ",").flatMap { part -> [UInt64] in
                let bounds = part.split(separator: "-").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
                if bounds.count == 2, bounds[0] <= bounds[1] { return Array(bounds[0]...bounds[1]) }
                return bounds.count == 1 ? [bounds[0]] : []
            }
        }
        if let text = env["MODEL_STEPS"], let steps = Int(text), steps > 0 { knobs.steps = steps }
        if let text = env["MODEL_KILL_RATE"], let rate = Double(text), rate >= 0, rate <= 1 { knobs.killRate = rate }
        knobs.keepGoing = env["MODEL_KEEP_GOING"] == "1"
        if let text = env["MODEL_JOBS"], let jobs = Int(text), jobs > 0 { knobs.jobs = jobs }
        return knobs
    }
}

/// SplitMix64: small, fast, and the same sequence on every platform, so a seed replays.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 ^ 0xD1B5_4A32_D192_ED03 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &self)] }
}

/// One finished process: its exit code, or the signal that ended it.
struct StepOutcome {
    var status: Int32
    var killed: Bool
    var stdout: String
    var stderr: String
    var seconds: Double
    var output: String { stdout + stderr }
}

enum KilledRunner {
    /// Runs `executable`; with `killAfter`, sends SIGKILL to that process (by its id) after the
    /// delay if it is still running. A step that runs past `timeout` is killed and reported hung.
    static func run(
        _ executable: String, _ arguments: [String], in directory: String, environment: [String: String],
        killAfter: Double? = nil, timeout: Double = 600
    ) throws -> StepOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = environment
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("model-\(UUID().uuidString)")
        let outURL = base.appendingPathExtension("out")
        let errURL = base.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let started = Date()
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        let pid = process.processIdentifier
        var killedByUs = false
        if let delay = killAfter, finished.wait(timeout: .now() + delay) == .timedOut {
            kill(pid, SIGKILL)
            killedByUs = true
            finished.wait()
        } else if killAfter == nil, finished.wait(timeout: .now() + timeout) == .timedOut {
            kill(pid, SIGKILL)
            finished.wait()
            try? out.close()
            try? err.close()
            return StepOutcome(
                status: -1, killed: false, stdout: "", stderr: "hung: still running after \(Int(timeout)) s, killed",
                seconds: timeout)
        }
        try out.close()
        try err.close()
        let signalled = process.terminationReason == .uncaughtSignal
        return StepOutcome(
            status: process.terminationStatus, killed: killedByUs && signalled,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
            seconds: Date().timeIntervalSince(started))
    }
}

/// What the remote holds, read after every step: the generator aims its requests at it, and the
/// blocked-pack invariant compares the site with it.
struct RemoteView {
    struct PlanView {
        var baseline: Int?
        var staged: Int?
        var blocked: [Int] = []
        var bundledOnly = false
        var previousBaselines: [Int] = []
    }
    var plans: [String: PlanView] = [:]
    var stored: [String: [Int]] = [:]
}

/// Counters for the summary the script prints.
struct ModelStats {
    var seeds = 0
    var steps = 0
    var perKind: [String: Int] = [:]
    var exitCodes: [String: [String: Int]] = [:]
    var killsLanded = 0
    var killsAttempted = 0
    var locksCleared = 0
    /// Killed publishes that left a partial site for the next publish to complete.
    var partialSites = 0
    var discardedSyncs = 0
    var skippedKinds: Set<String> = []
    var violations: [String] = []
    /// One line per distinct kind of violation (numbers and paths left out), with its count.
    var kinds: [String: Int] = [:]
    /// Seconds spent in the steps, and in the checks and reads around them, per command.
    var stepSeconds = 0.0
    var checkSeconds: [String: Double] = [:]

    mutating func merge(_ other: ModelStats) {
        seeds += other.seeds
        steps += other.steps
        perKind.merge(other.perKind, uniquingKeysWith: +)
        for (kind, codes) in other.exitCodes { exitCodes[kind, default: [:]].merge(codes, uniquingKeysWith: +) }
        killsLanded += other.killsLanded
        killsAttempted += other.killsAttempted
        locksCleared += other.locksCleared
        partialSites += other.partialSites
        discardedSyncs += other.discardedSyncs
        skippedKinds.formUnion(other.skippedKinds)
        violations += other.violations
        kinds.merge(other.kinds, uniquingKeysWith: +)
        stepSeconds += other.stepSeconds
        checkSeconds.merge(other.checkSeconds, uniquingKeysWith: +)
    }

    var summary: String {
        var lines = [
            "model: seeds \(seeds), steps \(steps), kills landed \(killsLanded) of \(killsAttempted) attempted, stale locks cleared \(locksCleared), partial sites a killed publish left \(partialSites), sync --discard-local \(discardedSyncs), violations \(violations.count)"
        ]
        for kind in perKind.keys.sorted() {
            let codes = (exitCodes[kind] ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(
                separator: " ")
            lines.append("model: kind \(kind) steps \(perKind[kind]!) exits \(codes)")
        }
        lines.append(
            "model: seconds in steps \(Int(stepSeconds)), in checks "
                + checkSeconds.sorted { $0.value > $1.value }.map { "\($0.key) \(Int($0.value))" }.joined(
                    separator: ", "))
        for (kind, count) in kinds.sorted(by: { $0.key < $1.key }) {
            lines.append("model: violation x\(count): \(kind)")
        }
        for kind in skippedKinds.sorted() { lines.append("model: kind \(kind) skipped: the binary does not have it") }
        return lines.joined(separator: "\n")
    }
}

/// One seed: a remote, its clones, a key and a site, driven for `steps` steps.
final class ModelRun {
    enum Kind: String, CaseIterable {
        case packAdd = "pack-add"
        case promote, revert, ingest, retract
        case guardRevert = "guard"
        case publish, sync
        case badRequest = "bad-request"
    }

    let seed: UInt64
    let knobs: ModelKnobs
    let root: String
    var rng: SeededGenerator
    let binary = Processes.rolloutBinary
    var environment: [String: String]
    var stats = ModelStats()
    let retractAvailable: Bool

    var remote: String { root + "/remote.git" }
    var site: String { root + "/site" }
    var key: String { root + "/signing.key" }
    var outside: String { root + "/outside" }
    var clones: [String] = []
    var publicKey = ""
    var now: Date
    var view = RemoteView()
    /// The newest strings generated per locale, and the next content version to try.
    var packStrings: [String: [String: String]] = [:]
    var packTemplates: [String: [String: Any]] = [:]
    var nextVersion: [String: Int] = [:]
    var originals: [String: [String: String]] = [:]
    var ingested: [(path: String, kind: String)] = []
    var fileCounter = 0
    var highestSequence = -1
    /// The typical duration of each kind, measured on its first unkilled runs, for kill delays.
    var durations: [Kind: [Double]] = [:]
    var log: [String] = []
    var currentKind = Kind.promote
    var knownDamage: Set<String> = []
    var verifiedTips: [String: String] = [:]
    /// Model keys ever generated per locale: a pack without one of them needs --allow-removed-keys.
    var generatedKeys: [String: Set<String>] = [:]

    /// The state ref's commit, read from the file (or packed-refs) without starting a process.
    func tip(_ repository: String) -> String {
        if let text = try? String(contentsOfFile: repository + "/refs/heads/main", encoding: .utf8) {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let packed = (try? String(contentsOfFile: repository + "/packed-refs", encoding: .utf8)) ?? ""
        return packed.split(separator: "\n").first { $0.hasSuffix(" refs/heads/main") }.map { String($0.prefix(40)) }
            ?? ""
    }

    static let locales = ["en-US", "tr", "tr-TR", "vi-VN"]
    static let regions = ["TR", "DE", "VN", "US", "CY"]
    static let families = ["4.8", "4.9", "5.0"]

    init(seed: UInt64, knobs: ModelKnobs, retractAvailable: Bool) throws {
        self.seed = seed
        self.knobs = knobs
        self.retractAvailable = retractAvailable
        rng = SeededGenerator(seed: seed)
        root =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "rollout-model-seed\(seed)-\(UUID().uuidString.prefix(8))"
            ).path
        try FileManager.default.createDirectory(atPath: root + "/home", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/inputs", withIntermediateDirectories: true)
        environment = Processes.baseEnvironment(home: root + "/home")
        now = ISO8601DateFormatter().date(from: "2026-11-01T08:00:00Z")!
    }

    // MARK: running commands

    var nowText: String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: now)
    }

    /// A rollout command outside the steps (setup, checks): never killed.
    func rollout(_ arguments: [String], cwd: String? = nil) throws -> StepOutcome {
        var env = environment
        env["ROLLOUT_NOW"] = nowText
        let result = try KilledRunner.run(binary, arguments, in: cwd ?? outside, environment: env)
        let command = arguments.first == "--repo" ? arguments.dropFirst(2).first : arguments.first
        stats.checkSeconds[command ?? "", default: 0] += result.seconds
        return result
    }

    func setUp() throws {
        func must(_ arguments: [String]) throws {
            let result = try rollout(arguments)
            guard result.status == 0 else {
                throw ModelSetupError(
                    text: "setup: rollout \(arguments.joined(separator: " ")) exited \(result.status): \(result.output)"
                )
            }
        }
        try must(["init", remote])
        try must(["--repo", remote, "pack", "add"] + Fixtures.allExamplePacks)
        for id in ["en-US@1", "tr@1", "tr-TR@17", "vi-VN@3"] {
            try must(["--repo", remote, "promote", id, "--to", "100%"])
        }
        let count = rng.chance(0.5) ? 2 : 3
        for index in 0..<count {
            let path = root + "/clone\(index)"
            try must(["clone", remote, path])
            clones.append(path)
        }
        let keys = try rollout(["keys", "generate", "--out", key, "--json"])
        guard keys.status == 0,
            let object = try? JSONSerialization.jsonObject(with: Data(keys.stdout.utf8)) as? [String: Any],
            let text = object["publicKey"] as? String
        else { throw ModelSetupError(text: "keys generate: \(keys.output)") }
        publicKey = text
        for file in Fixtures.allExamplePacks {
            let object =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as! [String: Any]
            let locale = object["locale"] as! String
            let version = object["contentVersion"] as! Int
            if version >= (nextVersion[locale] ?? 0) {
                nextVersion[locale] = version + 1
                packTemplates[locale] = object
                packStrings[locale] = object["strings"] as? [String: String]
                originals[locale] = object["strings"] as? [String: String]
            }
        }
        try refreshView(packs: true)
    }

    func refreshView(packs: Bool) throws {
        let status = try rollout(["--repo", remote, "status", "--json"])
        if let object = try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any],
            let plans = object["plans"] as? [[String: Any]]
        {
            var result: [String: RemoteView.PlanView] = [:]
            for plan in plans {
                guard let locale = plan["locale"] as? String else { continue }
                var item = RemoteView.PlanView()
                item.baseline = (plan["baseline"] as? [String: Any])?["contentVersion"] as? Int
                item.staged =
                    (plan["rules"] as? [[String: Any]])?.compactMap {
                        ($0["pack"] as? [String: Any])?["contentVersion"] as? Int
                    }.first
                item.blocked = plan["blocked"] as? [Int] ?? []
                item.bundledOnly = plan["bundledOnly"] as? Bool ?? false
                item.previousBaselines =
                    (plan["previousBaselines"] as? [[String: Any]])?.compactMap { $0["contentVersion"] as? Int } ?? []
                result[locale] = item
            }
            view.plans = result
        }
        guard packs else { return }
        let list = try rollout(["--repo", remote, "pack", "list", "--json"])
        if let object = try? JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any],
            let packs = object["packs"] as? [[String: Any]]
        {
            var stored: [String: [Int]] = [:]
            for pack in packs {
                if let locale = pack["locale"] as? String, let version = pack["contentVersion"] as? Int {
                    stored[locale, default: []].append(version)
                }
            }
            view.stored = stored.mapValues { $0.sorted() }
        }
    }

    // MARK: the run

    func run() throws {
        stats.seeds = 1
        try setUp()
        for step in 1...knobs.steps {
            now += Double(Int.random(in: 1800...(3 * 86_400), using: &rng))
            try runStep(step)
            if !stats.violations.isEmpty && !knobs.keepGoing { return }
        }
    }

    struct Planned {
        var kind: Kind
        var clone: Int
        var offline: Bool
        var arguments: [String]
        var allowed: Set<Int32>
        var note: String = ""
        var ingest: (path: String, kind: String)? = nil
    }

    func chooseKind() -> Kind {
        let weights: [(Kind, Int)] = [
            (.packAdd, 9), (.promote, 22), (.revert, 12), (.ingest, 14), (.retract, retractAvailable ? 4 : 0),
            (.guardRevert, 8),
            (.publish, 14), (.sync, 12), (.badRequest, 4),
        ]
        var roll = Int.random(in: 0..<weights.reduce(0) { $0 + $1.1 }, using: &rng)
        for (kind, weight) in weights {
            if roll < weight { return kind }
            roll -= weight
        }
        return .promote
    }

    func runStep(_ step: Int) throws {
        var kind = chooseKind()
        if kind == .retract && ingested.isEmpty { kind = .ingest }
        let clone = Int.random(in: 0..<clones.count, using: &rng)
        let offline = kind != .sync && rng.chance(0.12)
        currentKind = kind
        var planned = try plan(kind, clone: clone, offline: offline, step: step)
        planned.arguments = ["--repo", clones[clone]] + (offline ? ["--offline"] : []) + planned.arguments
        let typical = durations[kind].map { $0.sorted()[$0.count / 2] }
        let killAfter: Double? =
            (typical != nil && (durations[kind]?.count ?? 0) >= 3 && rng.chance(knobs.killRate))
            ? Double.random(in: 0...(1.1 * typical!), using: &rng) : nil
        let siteBefore = kind == .publish ? siteDigest() : ""
        var env = environment
        env["ROLLOUT_NOW"] = nowText
        let result = try KilledRunner.run(
            binary, planned.arguments, in: outside, environment: env, killAfter: killAfter)
        stats.stepSeconds += result.seconds
        if killAfter != nil { stats.killsAttempted += 1 }
        if result.killed {
            stats.killsLanded += 1
        } else if killAfter == nil, result.status >= 0 {
            if durations[kind, default: []].count < 5 { durations[kind, default: []].append(result.seconds) }
        }
        stats.steps += 1
        stats.perKind[kind.rawValue, default: 0] += 1
        let code = result.killed ? "killed" : "\(result.status)"
        stats.exitCodes[kind.rawValue, default: [:]][code, default: 0] += 1
        let line =
            "#\(step) ROLLOUT_NOW=\(nowText) rollout \(quoted(planned.arguments))\(planned.note.isEmpty ? "" : "  # \(planned.note)") -> \(result.killed ? "killed after \(String(format: "%.3f", killAfter!)) s" : "exit \(result.status)")"
        log.append(line)

        let touched = [clones[clone]]
        if !result.killed {
            checkOutput(step: step, planned: planned, result: result)
            if planned.kind == .sync, result.status == 76, result.stderr.contains("--discard-local") {
                // What a person does when sync names a clash: take the remote's state.
                let discard = try rollout(["--repo", clones[clone], "sync", "--discard-local"])
                stats.discardedSyncs += 1
                log.append(
                    "#\(step) (recovery) rollout \(quoted(["--repo", clones[clone], "sync", "--discard-local"])) -> exit \(discard.status)"
                )
                if discard.status != 0 {
                    violation(
                        step: step, what: "sync --discard-local after a named clash did not recover",
                        command: "sync --discard-local", result: discard)
                }
            }
            if planned.kind == .ingest, result.status == 0, let ingest = planned.ingest { ingested.append(ingest) }
        }
        // verify answers the same for the same history: a repository is verified again when its
        // tip moved, or after a kill (which may leave a lock without moving anything).
        let remoteMoved = tip(remote) != verifiedTips[remote]
        for repository in touched + [remote] where result.killed || tip(repository) != verifiedTips[repository] {
            try checkVerify(step: step, repository: repository)
            verifiedTips[repository] = tip(repository)
        }
        if remoteMoved { try refreshView(packs: planned.kind == .packAdd || planned.kind == .sync || result.killed) }
        if planned.kind == .publish {
            try checkSite(step: step, clone: clones[clone], result: result, before: siteBefore)
        }
        if planned.kind == .guardRevert, !result.killed, [0, 1].contains(result.status) {
            try checkGuard(step: step, clone: clones[clone], result: result)
        }
    }

    // MARK: generating steps

    func reason(_ step: Int) -> [String] { ["--reason", "model seed \(seed) step \(step)"] }

    func plan(_ kind: Kind, clone: Int, offline: Bool, step: Int) throws -> Planned {
        // 76: the clone holds offline work the remote lacks, or a clash; 75: a conflict that
        // survived the retries; 1: a documented refusal.
        let writes: Set<Int32> = [0, 1, 75, 76]
        // An offline clone may not know a pack or an ingest the remote has yet.
        let stale: Set<Int32> = offline ? [65, 66] : []
        switch kind {
        case .packAdd:
            let locale = rng.pick(Self.locales)
            if rng.chance(0.1), let stored = view.stored[locale]?.first {
                // Re-adding a stored example: unchanged, a no-op.
                let file = Fixtures.allExamplePacks.first { $0.hasSuffix("/\(locale)@\(stored).json") }
                if let file {
                    return Planned(
                        kind: kind, clone: clone, offline: offline, arguments: ["pack", "add", file],
                        allowed: writes.union(stale), note: "re-add")
                }
            }
            var strings = packStrings[locale]!
            let original = originals[locale]!
            var arguments = ["pack", "add"]
            var allowed = writes.union(stale)
            var note = ""
            let version = nextVersion[locale]!
            nextVersion[locale] = version + 1
            // A refusal is certain only when the previous version lint compares with is the one these
            // strings came from: the last generated pack is the newest the remote holds, and the
            // clone is online (it catches up before it lints).
            let certain = !offline && view.stored[locale]?.last == version - 1
            let editable = original.keys.filter {
                !$0.hasPrefix("checkout.") && !$0.hasPrefix("legal.")
                    && !(original[$0]!.contains("{") || original[$0]!.contains("%"))
            }.sorted()
            if let keyName = editable.isEmpty ? nil : rng.pick(editable) {
                strings[keyName] = original[keyName]! + " · v\(version)"
            }
            // Only a key the previous version had can be removed (not one this version adds).
            let added = strings.keys.filter { $0.hasPrefix("model.") }.sorted()
            if rng.chance(0.3) {
                strings["model.k\(version)"] = rng.pick([
                    "Güncel \(version)", "Đã xong \(version)", "Done \(version) ✓", "Fertig \(version)",
                ])
                generatedKeys[locale, default: []].insert("model.k\(version)")
            }
            var removes = false
            var protectedChange = false
            if !added.isEmpty, rng.chance(0.15) {
                strings[rng.pick(added)] = nil
                removes = true
                if certain, rng.chance(0.2) {
                    allowed = [65, 75, 76]
                    note = "removes a key without --allow-removed-keys"
                }
            }
            if rng.chance(0.1) {
                strings["checkout.pay"] = (original["checkout.pay"] ?? "{amount}") + " · v\(version)"
                protectedChange = true
                if certain, note.isEmpty, rng.chance(0.3) {
                    allowed = [65, 75, 76]
                    note = "changes a protected key without --approved-by"
                }
            }
            // The stored previous version may be older than the strings these came from (a pack add
            // that was killed or refused): compare with everything ever generated, not this step only.
            if note != "removes a key without --allow-removed-keys",
                removes || !generatedKeys[locale, default: []].isSubset(of: Set(strings.keys))
            {
                arguments.append("--allow-removed-keys")
            }
            if note != "changes a protected key without --approved-by",
                protectedChange || strings["checkout.pay"] != original["checkout.pay"]
            {
                arguments += ["--approved-by", "Model Approver"]
            }
            var pack = packTemplates[locale]!
            pack["contentVersion"] = version
            pack["checksum"] = nil
            pack["strings"] = strings
            let data = try JSONSerialization.data(withJSONObject: pack, options: [.sortedKeys, .prettyPrinted])
            let path = root + "/inputs/\(locale)@\(version).json"
            try data.write(to: URL(fileURLWithPath: path))
            if note.isEmpty { packStrings[locale] = strings }
            arguments.append(path)
            return Planned(
                kind: kind, clone: clone, offline: offline, arguments: arguments, allowed: allowed, note: note)

        case .promote:
            let locale = rng.pick(Self.locales)
            let plan = view.plans[locale] ?? RemoteView.PlanView()
            let stored = view.stored[locale] ?? []
            let newer = stored.filter { $0 > (plan.baseline ?? 0) && !plan.blocked.contains($0) }
            let version: Int
            if plan.bundledOnly, rng.chance(0.7) {
                // Out of the kill switch the documented way: complete a pack that is not blocked.
                let good = stored.filter { !plan.blocked.contains($0) }
                version = good.last ?? stored.last ?? 1
                return Planned(
                    kind: kind, clone: clone, offline: offline,
                    arguments: ["promote", "\(locale)@\(version)", "--to", "100%"] + reason(step),
                    allowed: writes.union(stale), note: "leave the kill switch")
            } else if let staged = plan.staged, rng.chance(0.85) {
                version = staged
            } else if !newer.isEmpty {
                version = rng.pick(newer)
            } else {
                version = stored.last ?? 1
            }
            let ramp = rng.chance(0.05)
            // A ramp starts at its first step (docs/health.md "Scheduled ramps").
            var arguments = [
                "promote", "\(locale)@\(version)", "--to",
                ramp ? "1%" : rng.pick(["1%", "5%", "10%", "25%", "50%", "0.25%", "100%", "100%"]),
            ]
            if rng.chance(0.3) { arguments += ["--region", rng.pick(Self.regions)] }
            if rng.chance(0.15) { arguments += ["--region", "\(rng.pick(Self.regions)),\(rng.pick(Self.regions))"] }
            if rng.chance(0.25) {
                arguments += ["--app-version", rng.pick([">=4.8", ">=4.9", "4.8.x", ">=4.8 <5", "=4.9.1", "<5"])]
            }
            if rng.chance(0.35) { arguments.append("--force") }
            if ramp { arguments += ["--ramp", "1,5,25,100", "--every", rng.pick(["12h", "24h", "2d"])] }
            arguments += reason(step)
            return Planned(
                kind: kind, clone: clone, offline: offline, arguments: arguments, allowed: writes.union(stale))

        case .revert:
            let locale = rng.pick(Self.locales)
            let plan = view.plans[locale] ?? RemoteView.PlanView()
            var arguments = ["revert", locale]
            var note = ""
            let roll = Double.random(in: 0..<1, using: &rng)
            if roll < 0.4 {
                note = "whole locale"
            } else if roll < 0.6 {
                arguments += ["--segment", "\(rng.pick(Self.regions))/\(rng.pick(Self.families))"]
                note = "scoped"
            } else if roll < 0.8 {
                let candidates = (plan.previousBaselines + (view.stored[locale] ?? [])).filter { $0 != plan.baseline }
                arguments += ["--to", "\(candidates.isEmpty ? (plan.baseline ?? 1) : rng.pick(candidates))"]
                note = "to a version"
            } else {
                arguments += ["--to", "bundled"]
                note = "kill switch"
            }
            if rng.chance(0.2) { arguments.append("--no-block") }
            arguments += reason(step)
            // 66: an offline clone may not have the locale's plan or the named pack yet.
            return Planned(
                kind: kind, clone: clone, offline: offline, arguments: arguments, allowed: writes.union(stale),
                note: note)

        case .ingest:
            if !ingested.isEmpty, rng.chance(0.08) {
                let again = rng.pick(ingested)
                return Planned(
                    kind: kind, clone: clone, offline: offline,
                    arguments: ["metrics", "ingest", "--kind", again.kind, again.path], allowed: writes.union(stale),
                    note: "the same file again")
            }
            let (path, csvKind, note, hostile) = try writeMetrics()
            var allowed = writes.union(stale)
            // A file whose sums leave the exactly storable range may be refused by name (65).
            if hostile { allowed.insert(65) }
            return Planned(
                kind: kind, clone: clone, offline: offline, arguments: ["metrics", "ingest", "--kind", csvKind, path],
                allowed: allowed, note: note, ingest: (path, csvKind))

        case .retract:
            let source = rng.pick(ingested)
            // 66: a clone that does not hold that ingest (offline, or already retracted).
            return Planned(
                kind: kind, clone: clone, offline: offline,
                arguments: ["metrics", "retract", source.path] + reason(step), allowed: writes.union([66]))

        case .guardRevert:
            return Planned(
                kind: kind, clone: clone, offline: offline, arguments: ["guard", "--auto-revert", "--json"],
                allowed: writes)

        case .publish:
            // Publishing is recorded on the remote, so --offline is refused as a usage error (64) by
            // a binary that records publishes; the site checks catch one that publishes anyway.
            return Planned(
                kind: kind, clone: clone, offline: offline,
                arguments: ["publish", "--out", site, "--key", key, "--json"],
                allowed: offline ? writes.union([64]) : writes)

        case .sync:
            return Planned(kind: kind, clone: clone, offline: false, arguments: ["sync"], allowed: [0, 75, 76])

        case .badRequest:
            let locale = rng.pick(Self.locales)
            let version = view.plans[locale]?.staged ?? view.stored[locale]?.last ?? 1
            // An empty value must never widen a rollout: 64, or a refusal that changes nothing (1, 75);
            // never 0. A request that names something absent: 66 (or 75 when the clone must sync first).
            let empty: Set<Int32> = [64, 1, 75, 76]
            let cases: [([String], Set<Int32>, String)] = [
                (
                    ["promote", "\(locale)@\(version)", "--to", "5%", "--region", ""] + reason(step), empty,
                    "an empty region must not mean every region"
                ),
                (
                    ["promote", "\(locale)@\(version)", "--to", "5%", "--region", "TR,,"] + reason(step), empty,
                    "an empty list item must not mean every region"
                ),
                (["promote", "\(locale)@\(version)", "--to", ""] + reason(step), [64], "an empty percent"),
                (
                    ["promote", "\(locale)@\(version)", "--to", "5%", "--app-version", ""] + reason(step), empty,
                    "an empty app-version range"
                ),
                (["revert", "de-DE"] + reason(step), [66, 75, 76], "a locale with no pack"),
                (
                    ["promote", "\(locale)@999999", "--to", "5%"] + reason(step), [66, 75, 76],
                    "a pack that is not stored"
                ),
                (["publish", "--out", "", "--key", key], [64], "an empty --out"),
                (["revert", locale, "--segment", ""] + reason(step), empty, "an empty segment"),
            ]
            let chosen = rng.pick(cases)
            return Planned(
                kind: kind, clone: clone, offline: offline, arguments: chosen.0, allowed: chosen.1, note: chosen.2)
        }
    }

    /// A metrics CSV for the locales' staged packs and baselines: healthy, a spike, or hostile
    /// but valid (huge counts in range, quoting, CRLF, a BOM, another column order, unicode in an
    /// ignored column, lower-case regions with spaces).
    func writeMetrics() throws -> (String, String, String, Bool) {
        fileCounter += 1
        let candidates = Self.locales.compactMap { locale -> (String, Int, Int)? in
            guard let plan = view.plans[locale], let staged = plan.staged, let baseline = plan.baseline else {
                return nil
            }
            return (locale, staged, baseline)
        }
        let pairs: [(String, Int, Int)]
        if candidates.isEmpty {
            let locale = rng.pick(Self.locales)
            let stored = view.stored[locale] ?? [1]
            pairs = [(locale, stored.last!, stored.first!)]
        } else {
            pairs = candidates
        }
        let csvKind = rng.chance(0.75) ? "crash" : "fallback"
        let mode = rng.pick(["healthy", "healthy", "spike", "spike", "hostile", "huge"])
        let crlf = mode == "hostile" || rng.chance(0.2)
        let bom = mode == "hostile" && rng.chance(0.5)
        let reorder = mode == "hostile" && rng.chance(0.6)
        let exposures = csvKind == "crash" ? "sessions" : "lookups"
        let events = csvKind == "crash" ? "crashes" : "fallbacks"
        var columns = ["date", "locale", "pack", "region", "app_version", exposures, events, "platform"]
        if reorder { columns.shuffle(using: &rng) }
        var rows: [[String: String]] = []
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        let date = formatter.string(from: now - Double(Int.random(in: 0...2, using: &rng)) * 86_400)
        // A patch version of its own per file: rows of different files never overlap.
        let patch = 100 + fileCounter
        let baseRate = csvKind == "crash" ? 0.002 : 0.004
        for (locale, staged, baseline) in pairs {
            let spikeRegion = rng.pick(Self.regions)
            for region in Self.regions.shuffled(using: &rng).prefix(3) {
                for family in Self.families.shuffled(using: &rng).prefix(2) {
                    let version = "\(family).\(patch)"
                    for (pack, arm) in [(staged, "candidate"), (baseline, "baseline")] {
                        var trials: Int
                        if mode == "huge" {
                            trials = Int.random(in: 100_000_000_000...999_999_999_999, using: &rng)
                        } else {
                            trials =
                                arm == "candidate"
                                ? Int.random(in: 3_000...80_000, using: &rng)
                                : Int.random(in: 30_000...500_000, using: &rng)
                            if csvKind == "fallback" { trials *= 20 }
                        }
                        let rate =
                            (mode == "spike" && arm == "candidate" && region == spikeRegion)
                            ? baseRate * Double.random(in: 3...8, using: &rng) : baseRate
                        let expected = Double(trials) * rate
                        let count = min(
                            trials,
                            max(0, Int(expected + Double.random(in: -1...1, using: &rng) * expected.squareRoot())))
                        var regionText = region
                        if mode == "hostile", rng.chance(0.3) { regionText = " \(region.lowercased()) " }
                        rows.append([
                            "date": date, "locale": locale,
                            "pack": mode == "hostile" && rng.chance(0.3) ? "\(pack)" : "\(locale)@\(pack)",
                            "region": regionText, "app_version": version, exposures: "\(trials)", events: "\(count)",
                            "platform": mode == "hostile"
                                ? rng.pick(["ios, ipad", "android \"go\"", "web ✓ 📱", "harmonyOS 鸿蒙", "tvOS\nbeta"])
                                : "ios",
                        ])
                    }
                }
            }
        }
        if mode == "huge", rng.chance(0.3), let (locale, staged, _) = pairs.first {
            // Rows that share a key are added up: 9,100 of them at the largest count a cell holds
            // sum past 2^53 in one key.
            let version = "\(rng.pick(Self.families)).\(patch)"
            for _ in 0..<9_100 {
                rows.append([
                    "date": date, "locale": locale, "pack": "\(locale)@\(staged)", "region": "TR",
                    "app_version": version,
                    exposures: "999999999999", events: "\(Int.random(in: 0...2_000_000_000, using: &rng))",
                    "platform": "ios",
                ])
            }
        }
        func field(_ text: String) -> String {
            if text.contains(",") || text.contains("\"") || text.contains("\n") || text.hasPrefix(" ")
                || (mode == "hostile" && rng.chance(0.2))
            {
                return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            }
            return text
        }
        let newline = crlf ? "\r\n" : "\n"
        var text = (bom ? "\u{FEFF}" : "") + columns.map(field).joined(separator: ",") + newline
        for row in rows.shuffled(using: &rng) {
            text += columns.map { field(row[$0] ?? "") }.joined(separator: ",") + newline
        }
        let path = root + "/inputs/metrics-\(fileCounter)-\(mode).csv"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return (
            path, csvKind,
            "\(mode) \(csvKind) for \(pairs.map { "\($0.0)@\($0.1) vs @\($0.2)" }.joined(separator: ", "))",
            mode == "huge"
        )
    }

    // MARK: invariants

    func violation(step: Int, what: String, command: String, result: StepOutcome?) {
        var signature = "\(currentKind.rawValue): " + what.replacingOccurrences(of: root, with: "")
        for (pattern, replacement) in [
            (#"clone[0-9]"#, "cloneN"), (#"@[0-9]+"#, "@N"), (#"\b[0-9a-f]{7,40}\b"#, "ID"),
            (#"from [0-9]+ to [0-9]+"#, "from N to M"),
            (#"\[[0-9, ]+\] reachable"#, "[N] reachable"), (#"blocks \[[0-9, ]+\]"#, "blocks [N]"),
            (#"U\+[0-9A-F]+"#, "U+X"),
        ] {
            signature = signature.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        stats.kinds[signature, default: 0] += 1
        // Every violation counts; the full text of a kind already seen in this seed adds nothing.
        if stats.kinds[signature]! > 1 { return }
        var text = "seed \(seed) step \(step): \(what)\n  command: \(command)"
        if let result {
            text +=
                "\n  exit \(result.status)\(result.killed ? " (killed)" : "")\n  stdout: \(result.stdout.prefix(4000))\n  stderr: \(result.stderr.prefix(4000))"
        }
        stats.violations.append(text)
    }

    /// 70 is always a bug; any code outside the step's set is a violation; so are Foundation
    /// error domains and raw control characters in what a person reads.
    func checkOutput(step: Int, planned: Planned, result: StepOutcome) {
        let command = quoted(planned.arguments)
        if result.status == 70 {
            violation(step: step, what: "exit 70 (internal error)", command: command, result: result)
            return
        }
        if !planned.allowed.contains(result.status) {
            violation(
                step: step,
                what:
                    "exit \(result.status), expected one of \(planned.allowed.sorted())\(planned.note.isEmpty ? "" : " (\(planned.note))")",
                command: command, result: result)
            return
        }
        if result.output.contains("NSCocoaErrorDomain") || result.output.contains("Error Domain=") {
            violation(step: step, what: "a Foundation error domain reached the user", command: command, result: result)
        }
        if let bad = result.stderr.unicodeScalars.first(where: {
            ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F
        }) {
            violation(
                step: step, what: "raw control character U+\(String(bad.value, radix: 16, uppercase: true)) in stderr",
                command: command, result: result)
        }
    }

    func checkVerify(step: Int, repository: String) throws {
        var result = try rollout(["--repo", repository, "verify", "--json"])
        if let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            let locks = object["locks"] as? [[String: Any]], !locks.isEmpty
        {
            // What a person does: nothing is running (the harness is sequential), so clear it.
            for lock in locks {
                guard let path = lock["path"] as? String, path.hasPrefix(root) else { continue }
                try? FileManager.default.removeItem(atPath: path)
                stats.locksCleared += 1
                log.append("#\(step) (recovery) rm \(path)")
            }
            result = try rollout(["--repo", repository, "verify", "--json"])
        }
        if result.status != 0 {
            let problems =
                ((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["problems"]
                as? [[String: Any]])?
                .compactMap { problem in
                    (problem["path"] as? String).map { "\($0): " }.map { $0 + (problem["message"] as? String ?? "") }
                } ?? []
            // Damage stays until someone repairs it: each problem is a violation once, on the step
            // that made it, not again on every later step.
            let fresh = problems.filter { !knownDamage.contains($0) }
            knownDamage.formUnion(problems)
            for problem in problems.isEmpty ? ["exit \(result.status)"] : fresh {
                violation(
                    step: step,
                    what: "rollout verify failed on \(repository == remote ? "the remote" : "a clone"): \(problem)",
                    command: "rollout --repo \(repository) verify", result: result)
            }
        }
    }

    func siteDigest() -> String {
        guard let enumerator = FileManager.default.enumerator(atPath: site) else { return "" }
        var parts: [String] = []
        for case let name as String in enumerator {
            let data = FileManager.default.contents(atPath: site + "/" + name) ?? Data()
            parts.append("\(name):\(data.count):\(data.hashValue)")
        }
        return parts.sorted().joined(separator: "\n")
    }

    func indexSequence() -> Int? {
        guard let data = FileManager.default.contents(atPath: site + "/index.json"),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["sequence"] as? Int
    }

    func checkSite(step: Int, clone: String, result: StepOutcome, before: String) throws {
        guard FileManager.default.fileExists(atPath: site + "/index.json") else { return }
        let published = !result.killed && result.status == 0
        let after = siteDigest()
        // A publish killed half way may leave a partial site (a new manifest beside its old
        // signature, a blocked pack not yet removed): devices refuse that round and keep their packs,
        // and the next publish that exits 0 must leave a whole site (checked below when it runs).
        if result.killed && !published && after != before {
            stats.partialSites += 1
            if let sequence = indexSequence(), sequence < highestSequence {
                violation(
                    step: step, what: "the site's index sequence went back from \(highestSequence) to \(sequence)",
                    command: "publish from \(clone)", result: result)
            }
            return
        }
        if published || after != before {
            // The device view: no repository anywhere, as an app would check it.
            let device = try rollout(["verify-site", site, "--public-key", publicKey])
            if device.status != 0 {
                violation(
                    step: step,
                    what: published
                        ? "verify-site (device view) fails right after a publish that exited 0"
                        : "a killed or refused publish left a changed site that devices reject",
                    command: "rollout verify-site \(site) --public-key \(publicKey)", result: device)
            }
        }
        if published {
            let against = try rollout(["--repo", clone, "verify-site", site, "--public-key", publicKey])
            if against.status != 0 {
                violation(
                    step: step, what: "verify-site against the clone that published disagrees with the site",
                    command: "rollout --repo \(clone) verify-site \(site) --public-key \(publicKey)", result: against)
            }
        }
        if let sequence = indexSequence() {
            if sequence < highestSequence {
                violation(
                    step: step, what: "the site's index sequence went back from \(highestSequence) to \(sequence)",
                    command: "publish from \(clone)", result: result)
            }
            highestSequence = max(highestSequence, sequence)
        }
        // No pack the remote's newest plans block is listed by a manifest or left under packs/. A
        // refused publish leaves the site as it was, which may predate a later block: the next
        // publish that goes through must remove it, so only a site this step wrote is judged.
        guard published || after != before else { return }
        for (locale, plan) in view.plans where !plan.blocked.isEmpty {
            var served: [Int] = []
            if let data = FileManager.default.contents(atPath: site + "/manifests/\(locale).json"),
                let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let packs = manifest["packs"] as? [String: Any]
            {
                served += packs.keys.compactMap { Int($0) }.filter { plan.blocked.contains($0) }
            }
            let files = (try? FileManager.default.contentsOfDirectory(atPath: site + "/packs/\(locale)")) ?? []
            served += files.compactMap { Int($0.split(separator: ".").first ?? "") }.filter {
                plan.blocked.contains($0)
            }
            if !served.isEmpty {
                violation(
                    step: step,
                    what:
                        "blocked \(locale) version(s) \(Set(served).sorted()) reachable from the site (the remote blocks \(plan.blocked))",
                    command: "publish from \(clone)", result: result)
            }
        }
    }

    func checkGuard(step: Int, clone: String, result: StepOutcome) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            let locales = object["locales"] as? [[String: Any]]
        else {
            violation(
                step: step, what: "guard --json did not print its locales", command: "guard --auto-revert --json",
                result: result)
            return
        }
        for entry in locales {
            guard let locale = entry["locale"] as? String, let verdict = entry["verdict"] as? String,
                ["healthy", "unhealthy", "insufficient-data"].contains(verdict)
            else { continue }
            let health = try rollout(["--repo", clone, "health", locale, "--json"])
            if health.status == 70 {
                violation(
                    step: step, what: "health \(locale) exit 70 after guard",
                    command: "rollout --repo \(clone) health \(locale) --json", result: health)
                continue
            }
            guard let report = try? JSONSerialization.jsonObject(with: Data(health.stdout.utf8)) as? [String: Any]
            else { continue }
            if report["verdict"] as? String == "unhealthy" {
                violation(
                    step: step, what: "guard --auto-revert left \(locale) staged with an unhealthy verdict",
                    command: "rollout --repo \(clone) health \(locale) --json", result: health)
            }
        }
    }
}

struct ModelSetupError: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}

/// A command line a shell reads back as the same arguments.
func quoted(_ arguments: [String]) -> String {
    arguments.map { argument in
        if !argument.isEmpty, argument.allSatisfy({ $0.isLetter || $0.isNumber || "-_./@%=:,+".contains($0) }) {
            return argument
        }
        return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }.joined(separator: " ")
}
