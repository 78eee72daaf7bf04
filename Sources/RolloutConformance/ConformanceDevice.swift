import Foundation
import RolloutCrypto
import RolloutModel

/// `launches.json` and `counters.json` (docs/conformance.md): one device driven through events
/// (launches, refreshes, activations, a first screen reached, sessions, crashes, lookups, the clock,
/// the locale), with what the device must show after each: the crash-loop guard's decisions
/// (docs/client.md, "Crash loops") and the metrics CSVs it exports (docs/client.md, "Counters").
///
/// The publisher cannot link the client (its transport would pull networking into every command),
/// so the expected values come from `DeviceModel` below, the rules of docs/client.md written as a
/// plain state machine, and the Swift client's tests replay every case on the real client
/// (Tests/RolloutClientTests/DeviceConformanceTests.swift): a vector holds only what both decide.
/// Each case states what it was written to show on the steps that show it; a model that decides
/// otherwise stops the generator, so a case never says what its name does not.
extension ConformanceVectors {
    static func launches(key: Ed25519.PrivateKey) -> JSONValue {
        deviceFile(
            about: """
                The crash-loop guard (docs/client.md, "Crash loops: markLaunchSucceeded()"). Each case is one device \
                on its own cache, driven through steps in order (docs/conformance.md, "launches.json and \
                counters.json", says what each step does); after each, every member of expect is what the device \
                shows: its active packs, the failed list, launchStatus and metricsCSV(crash), and after a succeed step \
                what markLaunchSucceeded() returned (confirmed: the packs it confirmed, or null for none).
                """, key: key, cases: launchCases(), shows: .guard)
    }

    static func counters(key: Ed25519.PrivateKey) -> JSONValue {
        deviceFile(
            about: """
                The counters a device exports (docs/client.md, "Counters"; the CSV docs/metrics.md reads). Each case is \
                one device on its own cache, driven through steps in order (docs/conformance.md, "launches.json and \
                counters.json"); after each, metricsCSV(crash) and metricsCSV(fallback) are exactly crashCsv and \
                fallbackCsv, and a lookup returns text.
                """, key: key, cases: counterCases(), shows: .counters)
    }

    static func outcomes(key: Ed25519.PrivateKey) -> JSONValue {
        deviceFile(
            about: """
                The exposures and conversions a device counts for the experiment it is in (docs/client.md, \
                "Experiments: exposures and conversions"; docs/conformance.md, "outcomes.json"). Each case is one device \
                on its own cache, driven through steps in order; a convert step is recordConversion(name). After each \
                step, outcomeCSV() is exactly outcomeCsv, and a lookup returns text.
                """, key: key, cases: outcomeCases(), shows: .outcomes, sites: experimentSites())
    }

    // MARK: - The device, its sites and its bundled strings

    static let deviceStart = "2026-11-21T10:00:00Z"

    static let launchDevice: [String: String] = [
        "locale": "tr-TR", "region": "TR", "appVersion": "4.8.1", "installId": "5F0C2A7E-1111-2222-3333-444455556666",
        "defaultLocale": "en-US", "now": deviceStart,
    ]

    static let launchBundled: [String: [String: String]] = [
        "tr-TR": ["title": "bundled tr-TR title", "bundled.key": "bundled tr-TR key"],
        "tr": ["title": "bundled tr title", "tr.key": "bundled tr key"],
        "en-US": ["title": "bundled en-US title", "en.key": "bundled en-US key"],
    ]

    /// tr-TR (chain tr-TR, tr) and tr: the baselines tr-TR@17 and tr@1; tr-TR@18 for all of TR;
    /// tr-TR@19 and tr@2 together; and a revert of both to their baselines.
    static func deviceSites() -> [String: Site] {
        func trTR(_ version: Int) -> Pack {
            pack("tr-TR", version, ["title": "tr-TR@\(version) title"], minApp: "4.8.0")
        }
        func tr(_ version: Int) -> Pack {
            pack("tr", version, ["title": "tr@\(version) title", "tr.key": "tr@\(version) key"], minApp: "4.8.0")
        }
        func staged(_ version: Int, sequence: Int) -> Plan {
            var plan = baselinePlan("tr-TR", 17, sequence: sequence, minApp: "4.8.0")
            plan.setRules([
                Plan.Rule(
                    pack: .init(contentVersion: version, minAppVersion: AppVersion("4.8.0")!), regions: ["TR"],
                    versions: .all, share: Percent(basisPoints: 10000), salt: salt)
            ])
            return plan
        }
        let chains: [String: (chain: [String], fallback: [String]?)] = [
            "tr-TR": (["tr-TR", "tr"], nil), "tr": (["tr"], nil),
        ]
        let packs = [trTR(17), trTR(18), trTR(19), tr(1), tr(2)]
        let baseline = Site(
            sequence: 1,
            plans: [baselinePlan("tr-TR", 17, minApp: "4.8.0"), baselinePlan("tr", 1, minApp: "4.8.0")],
            chains: chains, packs: packs)
        var eighteen = baseline
        eighteen.sequence = 2
        eighteen.plans[0] = staged(18, sequence: 2)
        var nineteen = eighteen
        nineteen.sequence = 3
        nineteen.plans = [staged(19, sequence: 3), baselinePlan("tr", 2, sequence: 2, minApp: "4.8.0")]
        var revert = nineteen
        revert.sequence = 4
        revert.plans = [
            baselinePlan("tr-TR", 17, sequence: 4, minApp: "4.8.0"),
            baselinePlan("tr", 1, sequence: 3, minApp: "4.8.0"),
        ]
        revert.plans[0].blocked = [18, 19]
        revert.plans[1].blocked = [2]
        return ["baseline": baseline, "eighteen": eighteen, "nineteen": nineteen, "revert": revert]
    }

    /// One step of a case, and what the case was written to show after it (a subset of `expect`).
    struct DeviceStep {
        enum Action {
            case launch(region: String?, appVersion: String?)
            case refresh(String)
            case activate, succeed, markFailed, session, crash, reset
            case lookup(String)
            case convert(String)
            case setLocale(String)
            case clock(String)
        }
        var action: Action
        var want: [String: JSONValue] = [:]
    }

    struct DeviceCase {
        let name: String
        var launchAttempts = 2
        let steps: [DeviceStep]
    }

    /// What a file's `expect` shows of the device after each step, besides what the step returned.
    enum Shows {
        /// launches.json: the crash-loop guard and the crash CSV.
        case `guard`
        /// counters.json: the two CSVs.
        case counters
        /// outcomes.json: the outcome CSV.
        case outcomes

        func keeps(_ member: String) -> Bool {
            switch self {
            case .guard: return member != "fallbackCsv" && member != "outcomeCsv"
            case .counters: return !DeviceModel.guardMembers.contains(member) && member != "outcomeCsv"
            case .outcomes:
                return !DeviceModel.guardMembers.contains(member) && member != "crashCsv" && member != "fallbackCsv"
            }
        }
    }

    private static func deviceFile(
        about: String, key: Ed25519.PrivateKey, cases: [DeviceCase], shows: Shows,
        sites: [String: Site] = deviceSites()
    ) -> JSONValue {
        var out: [JSONValue] = []
        for c in cases {
            var model = DeviceModel(sites: sites, attempts: c.launchAttempts)
            var steps: [JSONValue] = []
            for (number, step) in c.steps.enumerated() {
                var o = model.apply(step.action)
                for (member, wanted) in step.want where o["expect"]?.objectValue?[member] != wanted {
                    fatalError(
                        """
                        \(c.name), step \(number + 1): \(member) is \(o["expect"]?.objectValue?[member] ?? .null), \
                        the case was written for \(wanted)
                        """)
                }
                if case .object(let expect) = o["expect"] {
                    o["expect"] = .object(expect.filter { shows.keeps($0.key) })
                }
                steps.append(.object(o))
            }
            out.append([
                "name": .string(c.name), "launchAttempts": .integer(c.launchAttempts), "steps": .array(steps),
            ])
        }
        return [
            "about": .string(about), "publicKey": .string(key.publicKey.description),
            "device": .object(launchDevice.mapValues { .string($0) }),
            "bundled": .object(launchBundled.mapValues { .object($0.mapValues { .string($0) }) }),
            "sites": .object(sites.mapValues { siteJSON($0.files(key)) }), "cases": .array(out),
        ]
    }

    // MARK: - launches.json

    fileprivate static func ids(_ list: [String]) -> JSONValue { strings(list) }
    private static let header = "date,locale,pack,region,app_version,sessions,crashes\n"

    // Long: a table of cases, one behaviour of the crash-loop guard each, read top to bottom.
    static func launchCases() -> [DeviceCase] {
        typealias S = DeviceStep
        let start: [S] = [S(action: .launch(region: nil, appVersion: nil))]
        /// The first launch refreshes, activates the baselines and reaches its first screen: armed.
        let armed: [S] =
            start + [
                S(action: .refresh("baseline")), S(action: .activate),
                S(
                    action: .succeed,
                    want: ["armed": true, "awaitingSuccess": ids([]), "activePacks": ids(["tr@1", "tr-TR@17"])]),
            ]
        func launch(_ want: [String: JSONValue] = [:]) -> S {
            S(action: .launch(region: nil, appVersion: nil), want: want)
        }
        let back17: [String: JSONValue] = [
            "activePacks": ids(["tr@1", "tr-TR@17"]), "failed": ids(["tr-TR@18"]), "rolledBack": ids(["tr-TR@18"]),
            "rollbacks": 1,
        ]
        return [
            DeviceCase(
                name:
                    "the guard is not armed before the first markLaunchSucceeded: launches that die count nothing and roll nothing back",
                steps: start + [
                    S(action: .refresh("baseline")), S(action: .activate), S(action: .refresh("eighteen")),
                    S(action: .activate, want: ["activePacks": ids(["tr@1", "tr-TR@18"])]),
                    launch(), launch(),
                    launch([
                        "activePacks": ids(["tr@1", "tr-TR@18"]), "armed": false, "rollbacks": 0,
                        "previousLaunchFailed": false, "crashCsv": .string(header),
                    ]),
                    S(action: .succeed, want: ["armed": true, "awaitingSuccess": ids([])]),
                    launch(["previousLaunchFailed": false, "awaitingSuccess": ids([])]),
                ]),
            DeviceCase(
                name:
                    "launchAttempts 2: a pack promoted at start that dies twice goes back to the previous pack, is failed, and is never activated again",
                steps: armed + [
                    S(action: .refresh("eighteen")),
                    launch([
                        "activePacks": ids(["tr@1", "tr-TR@18"]), "awaitingSuccess": ids(["tr-TR@18"]),
                        "launchesSinceActivation": 1, "failedLaunches": 0,
                    ]),
                    launch([
                        "failedLaunches": 1, "previousLaunchFailed": true, "activePacks": ids(["tr@1", "tr-TR@18"]),
                    ]),
                    launch(
                        back17.merging([
                            "crashCsv": .string(header + "2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,2,2\n"),
                            "awaitingSuccess": ids([]),
                        ]) { $1 }),
                    S(action: .succeed),
                    S(
                        action: .refresh("eighteen"),
                        want: ["result": "accepted", "activePacks": ids(["tr@1", "tr-TR@17"])]),
                    S(action: .activate, want: ["activated": ids([])]),
                    launch(back17.merging(["previousLaunchFailed": false]) { $1 }),
                ]),
            DeviceCase(
                name:
                    "a pack activated before the first screen counts the launch it was activated in: that launch dying is its first failure",
                steps: armed + [
                    launch(), S(action: .refresh("eighteen")),
                    S(action: .activate, want: ["awaitingSuccess": ids(["tr-TR@18"]), "launchesSinceActivation": 0]),
                    launch(["failedLaunches": 1, "launchesSinceActivation": 2]),
                    launch(back17),
                ]),
            DeviceCase(
                name:
                    "a pack activated after the first screen stays on trial: markLaunchSucceeded again in that launch does not vouch for it",
                steps: armed + [
                    launch(), S(action: .succeed), S(action: .refresh("eighteen")), S(action: .activate),
                    S(action: .succeed, want: ["awaitingSuccess": ids(["tr-TR@18"])]),
                    launch(["previousLaunchFailed": false, "launchesSinceActivation": 1, "failedLaunches": 0]),
                    launch(["failedLaunches": 1, "activePacks": ids(["tr@1", "tr-TR@18"])]),
                    launch(back17),
                ]),
            DeviceCase(
                name:
                    "markLaunchSucceeded returns what it confirmed: the packs its launch began with, once; called again after an activation it confirms nothing (null) and the new pack stays on trial",
                steps: armed + [
                    launch(), S(action: .succeed, want: ["confirmed": ids(["tr@1", "tr-TR@17"])]),
                    S(action: .refresh("eighteen")), S(action: .activate),
                    S(action: .succeed, want: ["confirmed": .null, "awaitingSuccess": ids(["tr-TR@18"])]),
                    launch(["awaitingSuccess": ids(["tr-TR@18"])]),
                    S(action: .succeed, want: ["confirmed": ids(["tr@1", "tr-TR@18"]), "awaitingSuccess": ids([])]),
                    S(action: .succeed, want: ["confirmed": .null]),
                ]),
            DeviceCase(
                name:
                    "a successful launch between failed ones confirms the pack: the count starts again and the guard never rolls it back, though each death counts as a crash",
                steps: armed + [
                    S(action: .refresh("eighteen")), launch(), launch(["failedLaunches": 1]),
                    S(action: .succeed, want: ["awaitingSuccess": ids([]), "failedLaunches": 0]),
                    launch(), launch(),
                    launch([
                        "activePacks": ids(["tr@1", "tr-TR@18"]), "rollbacks": 0, "failed": ids([]),
                        "crashCsv": .string(header + "2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,3,3\n"),
                    ]),
                ]),
            DeviceCase(
                name: "launchAttempts 1: the first launch that dies rolls the pack back", launchAttempts: 1,
                steps: armed + [
                    S(action: .refresh("eighteen")), launch(["awaitingSuccess": ids(["tr-TR@18"])]),
                    launch(
                        back17.merging(["crashCsv": .string(header + "2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,1,1\n")]) {
                            $1
                        }),
                ]),
            DeviceCase(
                name: "launchAttempts 3: two launches that die are not a loop, the third is", launchAttempts: 3,
                steps: armed + [
                    S(action: .refresh("eighteen")), launch(), launch(),
                    launch(["failedLaunches": 2, "rollbacks": 0, "activePacks": ids(["tr@1", "tr-TR@18"])]),
                    launch(
                        back17.merging(["crashCsv": .string(header + "2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,3,3\n")]) {
                            $1
                        }),
                ]),
            DeviceCase(
                name:
                    "packs activated together are on trial together and go back together; the crash is counted against the own locale's pack",
                steps: armed + [
                    S(action: .refresh("nineteen")),
                    launch(["awaitingSuccess": ids(["tr@2", "tr-TR@19"]), "activePacks": ids(["tr@2", "tr-TR@19"])]),
                    launch(),
                    launch([
                        "activePacks": ids(["tr@1", "tr-TR@17"]), "failed": ids(["tr@2", "tr-TR@19"]),
                        "rolledBack": ids(["tr@2", "tr-TR@19"]), "rollbacks": 2,
                        "crashCsv": .string(header + "2026-11-21,tr-TR,tr-TR@19,TR,4.8.1,2,2\n"),
                    ]),
                ]),
            DeviceCase(
                name:
                    "with no previous pack a rollback leaves the bundled strings, and the packs are not downloaded again",
                steps: start + [
                    S(action: .succeed, want: ["armed": true, "activePacks": ids([]), "confirmed": ids([])]),
                    S(action: .refresh("baseline")),
                    S(action: .activate, want: ["awaitingSuccess": ids(["tr@1", "tr-TR@17"])]),
                    launch(), launch(),
                    launch([
                        "activePacks": ids([]), "rolledBack": ids(["tr@1", "tr-TR@17"]), "rollbacks": 2,
                        "crashCsv": .string(header + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,2,2\n"),
                    ]),
                    S(action: .refresh("baseline"), want: ["result": "accepted", "activePacks": ids([])]),
                    S(action: .activate, want: ["activated": ids([])]),
                ]),
            DeviceCase(
                name:
                    "each failed launch is a crash on the day, region and app version it began with, and one session even when the app recorded one",
                steps: armed + [
                    S(action: .refresh("eighteen")), launch(), S(action: .session),
                    S(action: .clock("2026-11-22T09:00:00Z")),
                    S(action: .launch(region: nil, appVersion: "4.9.0")), S(action: .session), S(action: .session),
                    S(action: .clock("2026-11-23T09:00:00Z")),
                    launch([
                        "rollbacks": 1,
                        "crashCsv": .string(
                            header + "2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,1,1\n2026-11-22,tr-TR,tr-TR@18,TR,4.9.0,2,1\n"),
                    ]),
                ]),
            DeviceCase(
                name:
                    "markActivePackFailed brings the previous pack back at once and fails the pack, which is not a guard rollback",
                steps: armed + [
                    S(action: .refresh("eighteen")), launch(["awaitingSuccess": ids(["tr-TR@18"])]),
                    S(
                        action: .markFailed,
                        want: [
                            "markedFailed": "tr-TR@18", "activePacks": ids(["tr@1", "tr-TR@17"]),
                            "failed": ids(["tr-TR@18"]), "rollbacks": 0, "rolledBack": ids([]),
                        ]),
                    launch([
                        "previousLaunchFailed": true, "awaitingSuccess": ids([]), "rollbacks": 0,
                        "crashCsv": .string(header + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,1,1\n"),
                    ]),
                ]),
            DeviceCase(
                name:
                    "a revert back to a pack a successful launch confirmed before: it returns at once and is not on trial again",
                steps: armed + [
                    S(action: .refresh("eighteen")), launch(), S(action: .succeed),
                    S(
                        action: .refresh("revert"),
                        want: ["activePacks": ids(["tr@1", "tr-TR@17"]), "awaitingSuccess": ids([])]),
                    launch(), launch(),
                    launch(["activePacks": ids(["tr@1", "tr-TR@17"]), "rollbacks": 0, "failed": ids([])]),
                ]),
        ]
    }

    // MARK: - counters.json

    // Long: a table of cases, one behaviour of the counters each, read top to bottom.
    static func counterCases() -> [DeviceCase] {
        typealias S = DeviceStep
        let fallbackHeader = "date,locale,pack,region,app_version,lookups,fallbacks\n"
        let ready: [S] = [
            S(action: .launch(region: nil, appVersion: nil)), S(action: .refresh("baseline")), S(action: .activate),
        ]
        func lookup(_ key: String, _ want: [String: JSONValue] = [:]) -> S { S(action: .lookup(key), want: want) }
        return [
            DeviceCase(
                name:
                    "a lookup counts against the own locale's pack, as a fallback unless that pack gave the text; on bundled strings nothing counts",
                steps: [
                    S(action: .launch(region: nil, appVersion: nil)),
                    lookup("title", ["text": "bundled tr-TR title", "fallbackCsv": .string(fallbackHeader)]),
                    S(action: .refresh("baseline")), S(action: .activate),
                    lookup(
                        "title",
                        [
                            "text": "tr-TR@17 title",
                            "fallbackCsv": .string(fallbackHeader + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,1,0\n"),
                        ]),
                    lookup("bundled.key", ["text": "bundled tr-TR key"]),
                    lookup("tr.key", ["text": "tr@1 key"]),
                    lookup("en.key", ["text": "bundled en-US key"]),
                    lookup(
                        "missing.key",
                        [
                            "text": "…",
                            "fallbackCsv": .string(fallbackHeader + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,5,4\n"),
                            "crashCsv": .string(header),
                        ]),
                ]),
            DeviceCase(
                name:
                    "sessions and crashes count against the own pack; a crash without its session never writes more crashes than sessions",
                steps: ready + [
                    S(action: .session), S(action: .session),
                    S(
                        action: .crash,
                        want: ["crashCsv": .string(header + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,2,1\n")]),
                    S(action: .crash), S(action: .crash),
                    S(
                        action: .crash,
                        want: [
                            "crashCsv": .string(header + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,2,2\n"),
                            "fallbackCsv": .string(fallbackHeader),
                        ]),
                ]),
            DeviceCase(
                name: "a new UTC day starts new rows, sorted by day",
                steps: ready + [
                    S(action: .clock("2026-11-21T23:59:59Z")), lookup("title"), S(action: .session),
                    S(action: .clock("2026-11-22T00:00:00Z")), lookup("title"), lookup("tr.key"),
                    S(
                        action: .session,
                        want: [
                            "crashCsv": .string(
                                header
                                    + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,1,0\n2026-11-22,tr-TR,tr-TR@17,TR,4.8.1,1,0\n"
                            ),
                            "fallbackCsv": .string(
                                fallbackHeader
                                    + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,1,0\n2026-11-22,tr-TR,tr-TR@17,TR,4.8.1,2,1\n"
                            ),
                        ]),
                ]),
            DeviceCase(
                name:
                    "lookups before an activation belong to the old pack, those after it to the new one; a staged pack counts nothing",
                steps: ready + [
                    lookup("title"), S(action: .refresh("eighteen")), lookup("title", ["text": "tr-TR@17 title"]),
                    S(action: .activate, want: ["activated": ids(["tr-TR@18"])]),
                    lookup(
                        "bundled.key",
                        [
                            "fallbackCsv": .string(
                                fallbackHeader
                                    + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,2,0\n2026-11-21,tr-TR,tr-TR@18,TR,4.8.1,1,1\n"
                            )
                        ]),
                ]),
            DeviceCase(
                name:
                    "a locale change counts against the new locale's own pack, and a locale with no pack counts nothing",
                steps: ready + [
                    lookup("title"), S(action: .setLocale("tr")),
                    lookup("title", ["text": "tr@1 title"]), lookup("en.key", ["text": "bundled en-US key"]),
                    S(action: .session), S(action: .setLocale("de-DE")),
                    lookup("title", ["text": "bundled en-US title"]),
                    S(
                        action: .session,
                        want: [
                            "crashCsv": .string(header + "2026-11-21,tr,tr@1,TR,4.8.1,1,0\n"),
                            "fallbackCsv": .string(
                                fallbackHeader
                                    + "2026-11-21,tr,tr@1,TR,4.8.1,2,1\n2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,1,0\n"),
                        ]),
                ]),
            DeviceCase(
                name:
                    "rows kept across an app update name the version they were counted on; a lowercase region is written uppercase",
                steps: ready + [
                    lookup("title"), S(action: .launch(region: "tr", appVersion: "4.10.0")), lookup("title"),
                    lookup(
                        "tr.key",
                        [
                            "fallbackCsv": .string(
                                fallbackHeader
                                    + "2026-11-21,tr-TR,tr-TR@17,TR,4.10.0,2,1\n2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,1,0\n"
                            )
                        ]),
                ]),
            DeviceCase(
                name: "resetCounters forgets what was exported; later counts start from nothing",
                steps: ready + [
                    lookup("title"), S(action: .session),
                    S(action: .reset, want: ["crashCsv": .string(header), "fallbackCsv": .string(fallbackHeader)]),
                    S(action: .launch(region: nil, appVersion: nil)), lookup("tr.key"),
                    S(
                        action: .session,
                        want: [
                            "crashCsv": .string(header + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,1,0\n"),
                            "fallbackCsv": .string(fallbackHeader + "2026-11-21,tr-TR,tr-TR@17,TR,4.8.1,1,1\n"),
                        ]),
                ]),
            DeviceCase(
                name:
                    "a region with a comma or a quote is quoted as RFC 4180 says: the row keeps its columns, and the file stays readable",
                steps: [
                    S(action: .launch(region: "t\"r,1", appVersion: nil)), S(action: .refresh("baseline")),
                    S(action: .activate), lookup("title"),
                    S(
                        action: .session,
                        want: [
                            "crashCsv": .string(header + "2026-11-21,tr-TR,tr-TR@17,\"T\"\"R,1\",4.8.1,1,0\n"),
                            "fallbackCsv": .string(
                                fallbackHeader + "2026-11-21,tr-TR,tr-TR@17,\"T\"\"R,1\",4.8.1,1,0\n"),
                        ]),
                ]),
        ]
    }
}

/// The device of docs/client.md as a plain state machine over the sites of `deviceSites()`: its
/// cache slots, failed list, crash-loop guard and counters, with the sole aim of saying what a
/// client shows after each step. It knows only what those cases exercise: one manifest key, no
/// kill switch, no key list, packs that always verify unless failed or blocked.
struct DeviceModel {
    static let guardMembers = [
        "confirmed", "activePacks", "pendingPacks", "failed", "armed", "succeeded", "awaitingSuccess",
        "launchesSinceActivation", "failedLaunches",
        "previousLaunchFailed", "rolledBack", "rollbacks",
    ]

    struct Slots {
        var active: Int?
        var pending: Int?
        var previous: Int?
    }

    struct Open {
        var locale: String
        var day: String
        var region: String
        var appVersion: String
        var session = false
        var active: [String: PackID]
    }

    struct Row: Hashable, Comparable {
        let day: String
        let pack: PackID
        let region: String
        let appVersion: String
        static func < (a: Row, b: Row) -> Bool {
            (a.day, a.pack, a.region, a.appVersion) < (b.day, b.pack, b.region, b.appVersion)
        }
    }

    struct Counts {
        var sessions = 0
        var crashes = 0
        var lookups = 0
        var fallbacks = 0
    }

    let sites: [String: ConformanceVectors.Site]
    let attempts: Int
    let packs: [PackID: Pack]

    // What state.json and the cache keep.
    var slots: [String: Slots] = [:]
    var failed: Set<PackID> = []
    var blocked: [String: [Int]] = [:]
    var indexSequence = 0
    var chains: [String: [String]] = [:]
    var indexDefault: String?
    var armed = false
    var confirmed: [String: PackID] = [:]
    var good: [PackID] = []
    var trial: [PackID: (launches: Int, failures: Int)] = [:]
    var open: Open?
    var rolledBack: [PackID] = []
    var rollbacks = 0
    var counts: [Row: Counts] = [:]
    /// The variant the own locale's last manifest put the device in: locale, experiment, pack.
    var assignment: Assignment?
    var outcomes: [OutcomeRow: (exposures: Int, conversions: Int)] = [:]

    // The device and this process.
    var locale: String
    var region: String
    var appVersion: String
    var now: String
    var running = false
    var previousLaunchFailed = false
    var succeeded = false
    /// Nil before this process's first session.
    var session: OutcomeMemory?

    init(sites: [String: ConformanceVectors.Site], attempts: Int) {
        self.sites = sites
        self.attempts = attempts
        var packs: [PackID: Pack] = [:]
        for site in sites.values { for pack in site.packs { packs[pack.id] = pack } }
        self.packs = packs
        let device = ConformanceVectors.launchDevice
        locale = device["locale"]!
        region = device["region"]!.uppercased()
        appVersion = device["appVersion"]!
        now = device["now"]!
    }

    var day: String { String(now.prefix(10)) }
    var defaultLocale: String { ConformanceVectors.launchDevice["defaultLocale"]! }

    // Long: one case per kind of step, each a few lines, read as the list of what a step can do.
    /// What the step's `do` member and parameters are, and the device after it.
    mutating func apply(_ action: ConformanceVectors.DeviceStep.Action) -> [String: JSONValue] {
        var o: [String: JSONValue] = [:]
        var expect: [String: JSONValue] = [:]
        if case .launch = action {} else { precondition(running, "a case starts with a launch") }
        switch action {
        case .launch(let newRegion, let newVersion):
            o["do"] = "launch"
            if let newRegion {
                o["region"] = .string(newRegion)
                region = newRegion.uppercased()
            }
            if let newVersion {
                o["appVersion"] = .string(newVersion)
                appVersion = newVersion
            }
            launch()
        case .refresh(let name):
            o["do"] = "refresh"
            o["site"] = .string(name)
            expect["result"] = .string(refresh(sites[name]!))
        case .activate:
            o["do"] = "activate"
            expect["activated"] = .array(activatePending().map { .string($0.description) })
        case .succeed:
            o["do"] = "succeed"
            let confirmed = markLaunchSucceeded()
            expect["confirmed"] = confirmed.map { ConformanceVectors.strings($0.map(\.description)) } ?? .null
        case .markFailed:
            o["do"] = "markFailed"
            expect["markedFailed"] = markActivePackFailed().map { .string($0.description) } ?? .null
        case .session:
            o["do"] = "session"
            session = OutcomeMemory()
            if let own = ownPack {
                record(own) { $0.sessions += 1 }
                open?.session = true
            }
        case .crash:
            o["do"] = "crash"
            if let own = ownPack { record(own) { $0.crashes += 1 } }
        case .reset:
            o["do"] = "reset"
            counts = [:]
            outcomes = [:]
        case .convert(let name):
            o["do"] = "convert"
            o["name"] = .string(name)
            convert(name)
        case .lookup(let key):
            o["do"] = "lookup"
            o["key"] = .string(key)
            expect["text"] = .string(string(key))
        case .setLocale(let new):
            o["do"] = "setLocale"
            o["locale"] = .string(new)
            locale = new
        case .clock(let time):
            o["do"] = "clock"
            o["now"] = .string(time)
            precondition(Timestamp(iso8601: time)?.description == time, "\(time) is not ISO 8601 UTC")
            now = time
        }
        o["expect"] = .object(expect.merging(observed()) { step, _ in step })
        return o
    }

    /// What a port reads of the device after every step: its packs, the crash-loop guard and the CSVs.
    func observed() -> [String: JSONValue] {
        var expect: [String: JSONValue] = [:]
        let active = activeIDs
        let awaiting = armed ? active.filter(onTrial) : []
        let trials = awaiting.compactMap { trial[$0] }
        expect["activePacks"] = ConformanceVectors.strings(active.map(\.description))
        expect["pendingPacks"] = ConformanceVectors.strings(
            slots.compactMap { locale, s in
                verifies(locale, s.pending) ? PackID(locale: locale, contentVersion: s.pending!) : nil
            }.sorted().map(\.description))
        expect["failed"] = ConformanceVectors.strings(failed.sorted().map(\.description))
        expect["armed"] = .bool(armed)
        expect["succeeded"] = .bool(succeeded)
        expect["awaitingSuccess"] = ConformanceVectors.strings(awaiting.map(\.description))
        expect["launchesSinceActivation"] = .integer(trials.map(\.launches).max() ?? 0)
        expect["failedLaunches"] = .integer(trials.map(\.failures).max() ?? 0)
        expect["previousLaunchFailed"] = .bool(previousLaunchFailed)
        expect["rolledBack"] = ConformanceVectors.strings(rolledBack.map(\.description))
        expect["rollbacks"] = .integer(rollbacks)
        expect["crashCsv"] = .string(csv(crash: true))
        expect["fallbackCsv"] = .string(csv(crash: false))
        expect["outcomeCsv"] = .string(outcomeCSV())
        return expect
    }

    // MARK: Packs

    var activeIDs: [PackID] {
        slots.compactMap { locale, s in s.active.map { PackID(locale: locale, contentVersion: $0) } }.sorted()
    }

    var ownPack: PackID? { slots[locale]?.active.map { PackID(locale: locale, contentVersion: $0) } }

    /// A cached pack still verifies: not failed, not blocked, and not newer than the app.
    func verifies(_ locale: String, _ version: Int?) -> Bool {
        guard let version else { return false }
        let id = PackID(locale: locale, contentVersion: version)
        guard let pack = packs[id], let app = AppVersion(appVersion), pack.minAppVersion <= app else { return false }
        return !failed.contains(id) && !blocked[locale, default: []].contains(version)
    }

    /// Start-up of one locale: a pending pack becomes active, a bad active one gives way to the previous.
    mutating func start(_ locale: String) {
        var s = slots[locale] ?? Slots()
        defer { slots[locale] = s }
        let current = verifies(locale, s.active) ? s.active : nil
        if current == nil { s.active = nil }
        if verifies(locale, s.pending) {
            if s.active != nil { s.previous = s.active }
            s.active = s.pending
            s.pending = nil
            return
        }
        s.pending = nil
        if current != nil { return }
        s.active = verifies(locale, s.previous) ? s.previous : nil
        s.previous = nil
    }

    mutating func activatePending() -> [PackID] {
        var activated: [PackID] = []
        for locale in slots.keys.sorted() {
            guard var s = slots[locale], s.pending != nil else { continue }
            if verifies(locale, s.pending) {
                if s.active != nil { s.previous = s.active }
                s.active = s.pending
                activated.append(PackID(locale: locale, contentVersion: s.active!))
            }
            s.pending = nil
            slots[locale] = s
        }
        return activated.sorted()
    }

    mutating func markActivePackFailed() -> PackID? {
        guard var s = slots[locale], let bad = s.active else { return nil }
        failed.insert(PackID(locale: locale, contentVersion: bad))
        s.active = nil
        if s.previous != nil {
            if verifies(locale, s.previous) {
                s.active = s.previous
            }
            s.previous = nil
        }
        if s.active == nil, s.pending != nil {
            if verifies(locale, s.pending) { s.active = s.pending }
            s.pending = nil
        }
        slots[locale] = s
        return PackID(locale: locale, contentVersion: bad)
    }

    /// One refresh round on a site every manifest and pack of which verifies.
    mutating func refresh(_ site: ConformanceVectors.Site) -> String {
        guard site.sequence >= indexSequence else { return "refused" }
        indexSequence = site.sequence
        chains = site.chains.mapValues(\.chain)
        indexDefault = site.defaultLocale
        let chain = SiteIndex.chain(for: locale, chains: chains, fallbackChains: [:], defaultLocale: site.defaultLocale)
        if !chain.contains(locale) { assignment = nil }
        var outcomes: [String: Int?] = [:]
        var dropped: Set<String> = []
        for name in chain {
            let plan = site.plans.first { $0.locale == name }!
            precondition(!plan.bundledOnly, "the model knows no kill switch")
            blocked[name] = plan.blocked.sorted()
            let outcome = Resolution.outcome(
                plan, region: region, appVersion: AppVersion(appVersion),
                installID: ConformanceVectors.launchDevice["installId"]!)
            let version: Int?
            if case .pack(let v) = outcome { version = v } else { version = nil }
            outcomes[name] = version
            if name == locale {
                assignment = Resolution.experimentVariant(
                    plan, region: region, appVersion: AppVersion(appVersion),
                    installID: ConformanceVectors.launchDevice["installId"]!
                ).map { variant in
                    Assignment(
                        locale: name, experiment: plan.experiment!,
                        pack: PackID(locale: name, contentVersion: variant.pack.contentVersion))
                }
            }
            var s = slots[name] ?? Slots()
            if let v = s.previous, plan.isBlocked(v) { s.previous = nil }
            if let v = s.pending, plan.isBlocked(v) { s.pending = nil }
            if let v = s.active, plan.isBlocked(v) || version == nil {
                s.active = nil
                dropped.insert(name)
            }
            slots[name] = s
        }
        for name in chain {
            var s = slots[name] ?? Slots()
            guard let version = outcomes[name] ?? nil else {
                s.pending = nil
                slots[name] = s
                continue
            }
            let id = PackID(locale: name, contentVersion: version)
            if s.active == version || failed.contains(id) || s.pending == version {
                if s.pending != nil, s.pending != version || s.active == version { s.pending = nil }
                slots[name] = s
                continue
            }
            s.pending = version
            if s.active == nil, dropped.contains(name) {
                s.active = version
                s.pending = nil
            }
            slots[name] = s
        }
        return "accepted"
    }

    // MARK: The crash-loop guard

    func onTrial(_ id: PackID) -> Bool { confirmed[id.locale] != id && !good.contains(id) }

    mutating func confirm(_ active: [String: PackID]) {
        confirmed = active
        good = Array((good.filter { !active.values.contains($0) } + active.values.sorted()).suffix(64))
        trial = trial.filter { onTrial($0.key) }
    }

    mutating func launch() {
        running = true
        session = nil
        previousLaunchFailed = false
        succeeded = false
        if armed, let died = open {
            open = nil
            previousLaunchFailed = true
            var actives: [String: PackID] = [:]
            for (locale, s) in slots where verifies(locale, s.active) {
                actives[locale] = PackID(locale: locale, contentVersion: s.active!)
            }
            var rollBack: [PackID] = []
            for (_, id) in actives.sorted(by: { $0.key < $1.key }) where onTrial(id) {
                var t = trial[id] ?? (launches: 1, failures: 0)
                t.failures += 1
                trial[id] = t
                if t.failures >= max(1, attempts) { rollBack.append(id) }
            }
            if let pack = actives[died.locale] {
                let row = Row(day: died.day, pack: pack, region: died.region, appVersion: died.appVersion)
                counts[row, default: Counts()].crashes += 1
                if !died.session { counts[row, default: Counts()].sessions += 1 }
            }
            for id in rollBack {
                failed.insert(id)
                trial[id] = nil
                rolledBack = Array((rolledBack.filter { $0 != id } + [id]).suffix(32))
                rollbacks += 1
            }
        }
        for locale in slots.keys.sorted() { start(locale) }
        guard armed else { return }
        var next: [PackID: (launches: Int, failures: Int)] = [:]
        for id in activeIDs where onTrial(id) {
            var t = trial[id] ?? (launches: 0, failures: 0)
            t.launches += 1
            next[id] = t
        }
        trial = next
        open = Open(locale: locale, day: day, region: region, appVersion: appVersion, active: activeMap)
    }

    var activeMap: [String: PackID] {
        Dictionary(uniqueKeysWithValues: activeIDs.map { ($0.locale, $0) })
    }

    /// What the call confirmed, sorted; nil: nothing (the launch had succeeded already).
    mutating func markLaunchSucceeded() -> [PackID]? {
        succeeded = true
        let began: [String: PackID]
        if !armed {
            armed = true
            began = activeMap
        } else if let open {
            began = open.active
        } else {
            return nil
        }
        open = nil
        confirm(began)
        return began.values.sorted()
    }

    // MARK: Lookups and counters

    func bundledTable(_ locale: String) -> [String: String]? {
        if let own = ConformanceVectors.launchBundled[locale] { return own }
        guard let tag = try? LocaleTag.parse(locale) else { return nil }
        return tag.truncationParents.lazy.compactMap { ConformanceVectors.launchBundled[$0] }.first
    }

    var lookupChain: [String] {
        var chain: [String]
        if indexSequence > 0 {
            chain = SiteIndex.chain(
                for: locale, chains: chains, fallbackChains: [:], defaultLocale: indexDefault ?? defaultLocale)
        } else {
            chain = [locale] + ((try? LocaleTag.parse(locale))?.truncationParents ?? []) + [defaultLocale]
        }
        chain.removeAll { $0 == locale }
        return [locale] + chain.reduce(into: [String]()) { kept, next in if !kept.contains(next) { kept.append(next) } }
    }

    mutating func string(_ key: String) -> String {
        var found: String?
        var fromOwnPack = false
        for candidate in lookupChain {
            if let version = slots[candidate]?.active,
                let value = packs[PackID(locale: candidate, contentVersion: version)]?.strings[key], !value.isEmpty
            {
                found = value
                fromOwnPack = candidate == locale
                break
            }
            if let value = bundledTable(candidate)?[key], !value.isEmpty {
                found = value
                break
            }
        }
        if found == nil, let value = bundledTable(defaultLocale)?[key], !value.isEmpty { found = value }
        expose(key)
        if let own = ownPack {
            record(own) {
                $0.lookups += 1
                if !fromOwnPack { $0.fallbacks += 1 }
            }
        }
        return found ?? "…"
    }

    mutating func record(_ pack: PackID, _ change: (inout Counts) -> Void) {
        change(&counts[Row(day: day, pack: pack, region: region, appVersion: appVersion), default: Counts()])
    }

    /// A field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break.
    static func field(_ text: String) -> String {
        // By scalar: "\r\n" is one Character, which a Character comparison would miss.
        guard text.unicodeScalars.contains(where: { ",\"\r\n".unicodeScalars.contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func csv(crash: Bool) -> String {
        var text = "date,locale,pack,region,app_version," + (crash ? "sessions,crashes\n" : "lookups,fallbacks\n")
        for (row, c) in counts.sorted(by: { $0.key < $1.key }) {
            let (total, happened) = crash ? (c.sessions, c.crashes) : (c.lookups, c.fallbacks)
            guard total > 0 else { continue }
            let fields = [row.day, row.pack.locale, row.pack.description, row.region, row.appVersion]
            text += fields.map(DeviceModel.field).joined(separator: ",") + ",\(total),\(min(happened, total))\n"
        }
        return text
    }

    // MARK: Experiments

    struct Assignment: Equatable {
        let locale: String
        let experiment: Plan.Experiment
        let pack: PackID
    }

    struct OutcomeRow: Hashable, Comparable {
        let row: Row
        let metric: String
        static func < (a: OutcomeRow, b: OutcomeRow) -> Bool { (a.row, a.metric) < (b.row, b.metric) }
    }

    /// What a session did for the assignment `of` (another one starts it afresh).
    struct OutcomeMemory {
        var of: Assignment?
        var exposed: Row?
        var converted: Set<String> = []
    }

    /// The session's memory for the assignment in effect for the device's locale; nil without either.
    func memory() -> (Assignment, OutcomeMemory)? {
        guard let assignment, assignment.locale == locale, let session else { return nil }
        return (assignment, session.of == assignment ? session : OutcomeMemory(of: assignment))
    }

    mutating func expose(_ key: String) {
        guard let (assignment, memory) = memory(), assignment.experiment.keys.contains(key), memory.exposed == nil
        else { return }
        let row = Row(day: day, pack: assignment.pack, region: region, appVersion: appVersion)
        session = OutcomeMemory(of: assignment, exposed: row, converted: memory.converted)
        for metric in assignment.experiment.metrics {
            var counts = outcomes[OutcomeRow(row: row, metric: metric)] ?? (0, 0)
            counts.exposures += 1
            if memory.converted.contains(metric) { counts.conversions += 1 }
            outcomes[OutcomeRow(row: row, metric: metric)] = counts
        }
    }

    mutating func convert(_ name: String) {
        guard let (assignment, memory) = memory(), assignment.experiment.metrics.contains(name),
            !memory.converted.contains(name)
        else { return }
        session = OutcomeMemory(of: assignment, exposed: memory.exposed, converted: memory.converted.union([name]))
        if let row = memory.exposed { outcomes[OutcomeRow(row: row, metric: name)]?.conversions += 1 }
    }

    func outcomeCSV() -> String {
        var text = "date,locale,pack,region,app_version,metric,exposures,conversions\n"
        for (key, c) in outcomes.sorted(by: { $0.key < $1.key }) where c.exposures > 0 {
            let row = key.row
            let fields = [row.day, row.pack.locale, row.pack.description, row.region, row.appVersion, key.metric]
            text +=
                fields.map(DeviceModel.field).joined(separator: ",")
                + ",\(c.exposures),\(min(c.conversions, c.exposures))\n"
        }
        return text
    }
}
