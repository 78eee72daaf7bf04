import Foundation
import XCTest

/// Issue 31, "Fault injection at the remote": random, seeded sequences of promote, revert, pause,
/// resume and publish against a real git HTTP server whose pre-receive hook is slowed and whose
/// push connections are cut at random points (before the pack reaches the server, while the hook
/// runs, after the server answered, half way through the answer). After every step, once the
/// server has finished what it was sent, each command must have reported exactly what happened to
/// its own commit:
/// - exit 0 naming a commit (or "changed"): that commit is on the server's main, once, and the
///   clone is at the server's tip;
/// - exit 0 with nothing to do: no commit of the step's on the server;
/// - any other exit: no commit of the step's on the server, unless the command said the push may
///   have landed (exit 75), when it may be there once;
/// - never exit 70, never a change applied twice, never a clone holding a commit the server lacks.
///
/// The defaults are the short fixed-seed run of the test suite; scripts/fault-injection.sh runs it
/// long (LANDED_SEEDS, LANDED_STEPS).
// Processes: the servers and every step run as processes, as an operator's would.
final class CutPushModelTests: XCTestCase {
    func testRandomCutsAtThePushLeaveEveryCommandReportingItsOwnCommit() throws {
        let environment = ProcessInfo.processInfo.environment
        let seeds = ModelKnobs.fromEnvironment(["MODEL_SEEDS": environment["LANDED_SEEDS"] ?? "1,2"]).seeds
        let steps = environment["LANDED_STEPS"].flatMap(Int.init) ?? 16
        let started = Date()
        var total = LandedPushStats()
        for seed in seeds {
            let run = try LandedPushRun(seed: seed)
            defer { run.remote.stop() }
            do {
                try run.run(steps: steps)
            } catch {
                run.stats.violations.append("seed \(seed): the harness stopped: \(error)")
            }
            total.merge(run.stats)
            if environment["LANDED_VERBOSE"] == "1" { print(run.log.joined(separator: "\n")) }
            if !run.stats.violations.isEmpty {
                let report = """
                    landed-push: VIOLATION in seed \(seed); replay with LANDED_SEEDS=\(seed) LANDED_STEPS=\(steps)
                    \(run.stats.violations.joined(separator: "\n"))
                    landed-push: the steps:
                    \(run.log.joined(separator: "\n"))
                    """
                print(report)
                XCTFail(report)
            }
        }
        print(total.summary(seeds: seeds.count, seconds: Date().timeIntervalSince(started)))
    }
}

struct LandedPushStats {
    var steps = 0
    var exits: [String: [String: Int]] = [:]
    var cuts: [String: Int] = [:]
    var faultsPlanned = 0
    var hookRuns = 0
    var pushesLanded = 0
    var landedAfterACut = 0
    var mayHaveLanded = 0
    var violations: [String] = []

    mutating func merge(_ other: LandedPushStats) {
        steps += other.steps
        for (kind, codes) in other.exits { exits[kind, default: [:]].merge(codes, uniquingKeysWith: +) }
        cuts.merge(other.cuts, uniquingKeysWith: +)
        faultsPlanned += other.faultsPlanned
        hookRuns += other.hookRuns
        pushesLanded += other.pushesLanded
        landedAfterACut += other.landedAfterACut
        mayHaveLanded += other.mayHaveLanded
        violations += other.violations
    }

    func summary(seeds: Int, seconds: Double) -> String {
        var lines = [
            "landed-push: seeds \(seeds), steps \(steps), faults planned \(faultsPlanned), changes landed \(pushesLanded) (\(landedAfterACut) of them after a cut), hook runs \(hookRuns), reported as may-have-landed \(mayHaveLanded), violations \(violations.count), wall \(Int(seconds)) s"
        ]
        for (action, count) in cuts.sorted(by: { $0.key < $1.key }) {
            lines.append("landed-push: cut \(action): \(count)")
        }
        for kind in exits.keys.sorted() {
            let codes = exits[kind]!.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: " ")
            lines.append("landed-push: kind \(kind) exits \(codes)")
        }
        return lines.joined(separator: "\n")
    }
}

/// One seed: a server, one clone through the proxy, a signing key and a site.
final class LandedPushRun {
    let seed: UInt64
    let w: Workspace
    let remote: LandedPushRemote
    let clone: String
    let key: String
    let site: String
    var rng: SeededGenerator
    var stats = LandedPushStats()
    var log: [String] = []
    var now = ISO8601DateFormatter().date(from: "2026-11-01T08:00:00Z")!

    /// The versions the server stores per locale (a pack add that landed adds one).
    var versions = ["en-US": [1], "tr": [1], "tr-TR": [17, 18], "vi-VN": [3, 4]]
    static let templates = ["en-US": "en-US@1", "tr": "tr@1", "tr-TR": "tr-TR@18", "vi-VN": "vi-VN@3"]

    init(seed: UInt64) throws {
        self.seed = seed
        rng = SeededGenerator(seed: seed)
        w = try Workspace(process: true)
        remote = try LandedPushRemote(w)
        clone = w.scratch.path("clone")
        key = w.scratch.path("signing.key")
        site = w.scratch.path("site")
        for arguments in [["clone", remote.url, clone], ["keys", "generate", "--out", key]] {
            let result = try w.rollout(arguments)
            guard result.status == 0 else {
                remote.stop()
                throw ServerError(description: "rollout \(arguments.joined(separator: " ")): \(result.output)")
            }
        }
    }

    func run(steps: Int) throws {
        for step in 1...steps { try runStep(step) }
    }

    /// The server's plans, as `status --json` gives them, by locale.
    func plans() throws -> [String: [String: Any]] {
        let status = try w.rollout(["--repo", remote.shared, "status", "--json"])
        let object = (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any]
        var plans: [String: [String: Any]] = [:]
        for plan in object?["plans"] as? [[String: Any]] ?? [] {
            if let locale = plan["locale"] as? String { plans[locale] = plan }
        }
        return plans
    }

    /// A command that mostly changes something on the server's current state (a refusal now and
    /// then is a step too: it must leave the server as it was).
    func plan(_ step: Int) throws -> (kind: String, arguments: [String]) {
        let reason = ["--reason", "landed-push seed \(seed) step \(step)"]
        let plans = try plans()
        let roll = Int.random(in: 0..<100, using: &rng)
        func staged(_ locale: String) -> Int? {
            (plans[locale]?["rules"] as? [[String: Any]])?.compactMap {
                ($0["pack"] as? [String: Any])?["contentVersion"] as? Int
            }.first
        }
        func candidates(_ locale: String) -> [Int] {
            let plan = plans[locale] ?? [:]
            let baseline = (plan["baseline"] as? [String: Any])?["contentVersion"] as? Int
            let blocked = plan["blocked"] as? [Int] ?? []
            return versions[locale]!.filter { $0 > (baseline ?? 0) && !blocked.contains($0) }
        }
        // Mostly a locale where the command changes something; now and then any.
        let all = versions.keys.sorted()
        let eligible = all.filter { locale in
            roll < 40
                ? staged(locale) != nil || !candidates(locale).isEmpty
                : staged(locale) != nil || !((plans[locale]?["previousBaselines"] as? [Any]) ?? []).isEmpty
        }
        let locale = rng.pick(eligible.isEmpty || rng.chance(0.1) ? all : eligible)
        let staged = staged(locale)
        let candidates = candidates(locale)
        let bundledOnly = plans[locale]?["bundledOnly"] as? Bool ?? false
        switch roll {
        case 0..<40 where bundledOnly:
            let version = rng.pick(
                versions[locale]!.filter { !((plans[locale]?["blocked"] as? [Int]) ?? []).contains($0) } + [
                    versions[locale]!.last!
                ])
            return ("promote", ["promote", "\(locale)@\(version)", "--to", "100%", "--force"] + reason)
        case 0..<40:
            let version =
                staged ?? (candidates.isEmpty ? rng.pick(versions[locale]!) : rng.pick(candidates))
            if staged == nil, rng.chance(0.4) {
                return (
                    "promote",
                    [
                        "promote", "\(locale)@\(version)", "--to", "1%", "--ramp", "1,5,25,100", "--every", "1d",
                        "--force",
                    ]
                        + reason
                )
            }
            let share = rng.pick(staged == nil ? ["1%", "10%", "50%", "100%"] : ["50%", "100%", "100%"])
            return ("promote", ["promote", "\(locale)@\(version)", "--to", share, "--force"] + reason)
        case 40..<65:
            let scope = rng.chance(0.15) ? ["--to", "bundled"] : []
            return ("revert", ["revert", locale] + scope + (rng.chance(0.7) ? ["--no-block"] : []) + reason)
        case 65..<75:
            return ("pack-add", ["pack", "add", try newVersion(of: locale)])
        case 75..<85:
            let ramps = plans.filter { $0.value["ramp"] is [String: Any] }
            var target = locale
            var ramp: [String: Any] = [:]
            if !ramps.isEmpty {
                let chosen = rng.pick(ramps.sorted { $0.key < $1.key })
                target = chosen.key
                ramp = chosen.value["ramp"] as? [String: Any] ?? [:]
            }
            let kind = (ramp["paused"] as? Bool ?? false) ? "resume" : "pause"
            return (kind, [kind, target] + reason)
        default:
            return ("publish", ["publish", "--out", site, "--key", key])
        }
    }

    /// A new version of `locale`'s pack, one string changed, written to the scratch directory.
    func newVersion(of locale: String) throws -> String {
        let version = versions[locale]!.max()! + 1
        var pack =
            try JSONSerialization.jsonObject(
                with: Data(
                    contentsOf: URL(fileURLWithPath: Fixtures.examplePack(LandedPushRun.templates[locale]!))))
            as! [String: Any]
        pack["contentVersion"] = version
        pack["checksum"] = nil
        var strings = pack["strings"] as! [String: String]
        strings["settings.title"] = (strings["settings.title"] ?? "Settings") + " v\(version)"
        pack["strings"] = strings
        return try w.scratch.write(
            "inputs/\(locale)@\(version)-\(UUID().uuidString.prefix(6)).json",
            try JSONSerialization.data(withJSONObject: pack))
    }

    /// The error message of a `--json` failure, for the log.
    func message(_ result: RunResult) -> String {
        let object = (try? JSONSerialization.jsonObject(with: Data(result.stderr.utf8))) as? [String: Any]
        return String(((object?["error"] as? [String: Any])?["message"] as? String ?? result.stderr).prefix(160))
    }

    func faults() -> [String] {
        let weighted = [
            ("during", 5), ("after", 2), ("partial", 2), ("before", 1), ("refs", 1), ("none", 2),
        ].flatMap { Array(repeating: $0.0, count: $0.1) }
        return (0..<Int.random(in: 0...3, using: &rng)).map { _ in rng.pick(weighted) }
    }

    // Long: one step is generate, run, wait for the server, and check, in that order.
    func runStep(_ step: Int) throws {
        now += Double(Int.random(in: 3600...86_400, using: &rng))
        let (kind, arguments) = try plan(step)
        let faults = faults()
        let delay = rng.pick([0.0, 0.1, 0.3, 0.6, 1.0])
        try remote.cut(faults)
        try remote.slowHook(delay)
        let before = try remote.history()
        let logBefore = remote.proxyLog().count
        let runsBefore = remote.hookRuns
        let formatter = ISO8601DateFormatter()
        let command = ["--repo", clone] + arguments + ["--json"]
        let result = try w.rollout(command, env: ["ROLLOUT_NOW": formatter.string(from: now)])
        try remote.waitUntilIdle()
        try remote.cut([])
        let after = try remote.history()
        let cuts = remote.proxyLog().dropFirst(logBefore).compactMap { $0["action"] as? String }.filter {
            $0 != "passed"
        }
        for cut in cuts { stats.cuts[cut, default: 0] += 1 }
        stats.steps += 1
        stats.faultsPlanned += faults.filter { $0 != "none" }.count
        stats.hookRuns += remote.hookRuns - runsBefore
        stats.exits[kind, default: [:]]["\(result.status)", default: 0] += 1
        log.append(
            "#\(step) faults \(faults) hook \(delay) s: rollout \(quoted(command)) -> exit \(result.status); cuts \(cuts); hook ran \(remote.hookRuns - runsBefore)\(result.status == 0 ? "" : ": " + message(result))"
        )

        let reason = "landed-push seed \(seed) step \(step)"
        let known = Set(before.map(\.id))
        let new = after.filter { !known.contains($0.id) }
        let mine =
            ["publish", "pack-add"].contains(kind)
            ? new.filter { $0.action == kind } : after.filter { $0.reason == reason }
        let json = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
        let reported: String? = (json?[kind == "publish" ? "record" : "commit"] as? String)
        let changed = reported != nil || (json?["changed"] as? Bool ?? false)
        func violation(_ what: String) {
            stats.violations.append(
                "seed \(seed) step \(step): \(what)\n  command: rollout \(quoted(command))\n  faults \(faults), cuts \(cuts)\n  exit \(result.status)\n  stdout: \(result.stdout.prefix(1500))\n  stderr: \(result.stderr.prefix(1500))\n  new on the server: \(new.map { "\($0.id.prefix(8)) \($0.action) \($0.reason)" })"
            )
        }
        if mine.count > 1 { violation("the change is on the server \(mine.count) times") }
        if new.count > mine.count { violation("commits on the server that are not this command's") }
        if !mine.isEmpty { stats.pushesLanded += 1 }
        if kind == "pack-add", mine.count == 1, let file = arguments.last,
            let version = Int(file.split(separator: "@").last?.split(separator: "-").first ?? "")
        {
            let locale = String((file as NSString).lastPathComponent.split(separator: "@")[0])
            versions[locale, default: []].append(version)
        }
        if !mine.isEmpty && !cuts.isEmpty { stats.landedAfterACut += 1 }
        switch result.status {
        case 70:
            violation("exit 70")
        case 0 where changed:
            if mine.count != 1 { violation("reported a change that is not on the server") }
            if let reported, mine.first?.id != reported {
                violation("reported commit \(reported), but its change is \(mine.first?.id ?? "absent")")
            }
            if try remote.tip(clone) != remote.tip(remote.shared) { violation("the clone is not at the server's tip") }
        case 0:
            if !mine.isEmpty { violation("reported nothing to do, while its change is on the server") }
        default:
            if result.stderr.contains("may have landed") {
                stats.mayHaveLanded += 1
            } else if !mine.isEmpty {
                violation("failed (exit \(result.status)) while its change is on the server")
            }
        }
        // The clone never holds a commit the server lacks: the next command would be refused.
        let cloneTip = try remote.tip(clone)
        let contained = try w.git("merge-base", "--is-ancestor", cloneTip, "refs/heads/main", repository: remote.shared)
        if contained.status != 0 { violation("the clone's tip \(cloneTip) is not on the server's main") }
    }
}
