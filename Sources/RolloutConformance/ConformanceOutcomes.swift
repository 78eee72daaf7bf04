import RolloutModel

/// `outcomes.json` (docs/conformance.md): the exposures and conversions of one device, on sites
/// whose tr-TR plan runs experiment title-test (control tr-TR@17, variant tr-TR@18, key `title`,
/// metrics checkout and signup), decided by `DeviceModel` as launches.json and counters.json are.
extension ConformanceVectors {
    /// The kit device's bucket of `experimentSalt` is 4444: in the control of a 50/50 split, in the
    /// variant of a 40/40 one, outside a 20/20 one.
    static func experimentSites() -> [String: Site] {
        var sites = deviceSites()
        let baseline = sites["baseline"]!
        func running(_ ranges: [Range<Int>], sequence: Int) -> Site {
            var site = baseline
            site.sequence = sequence
            var plan = baselinePlan("tr-TR", 17, sequence: sequence, minApp: "4.8.0")
            plan.experiment = Plan.Experiment(
                name: "title-test", salt: experimentSalt, regions: ["TR"], versions: try! VersionRange.parse(">=4.8"),
                variants: zip([17, 18], ranges).map { version, range in
                    Plan.Experiment.Variant(
                        pack: Plan.PackRef(contentVersion: version, minAppVersion: AppVersion("4.8.0")!),
                        from: range.lowerBound, to: range.upperBound)
                }, keys: ["title"], metrics: ["checkout", "signup"])
            site.plans[0] = plan
            return site
        }
        var ended = baseline
        ended.sequence = 5
        ended.plans[0] = baselinePlan("tr-TR", 17, sequence: 5, minApp: "4.8.0")
        sites = [
            "baseline": baseline, "control": running([0..<5000, 5000..<10000], sequence: 2),
            "variant": running([0..<4000, 4000..<8000], sequence: 3),
            "outside": running([0..<2000, 2000..<4000], sequence: 4), "ended": ended,
        ]
        return sites
    }

    // Long: a table of cases, one rule of exposures and conversions each, read top to bottom.
    static func outcomeCases() -> [DeviceCase] {
        typealias S = DeviceStep
        let header = "date,locale,pack,region,app_version,metric,exposures,conversions\n"
        func rows(_ pack: String, _ checkout: (Int, Int), _ signup: (Int, Int), day: String = "2026-11-21") -> String {
            "\(day),tr-TR,tr-TR@\(pack),TR,4.8.1,checkout,\(checkout.0),\(checkout.1)\n"
                + "\(day),tr-TR,tr-TR@\(pack),TR,4.8.1,signup,\(signup.0),\(signup.1)\n"
        }
        func csv(_ text: String) -> [String: JSONValue] { ["outcomeCsv": .string(header + text)] }
        func lookup(_ want: [String: JSONValue] = [:]) -> S { S(action: .lookup("title"), want: want) }
        func convert(_ name: String, _ want: [String: JSONValue] = [:]) -> S { S(action: .convert(name), want: want) }
        let launch = S(action: .launch(region: nil, appVersion: nil))
        let session = S(action: .session)
        func ready(_ site: String) -> [S] { [launch, S(action: .refresh(site))] }
        return [
            DeviceCase(
                name:
                    "the first lookup of a varied key in a session is its exposure, for every metric; before the process's first session, and after the exposure, lookups count nothing",
                steps: ready("control") + [
                    lookup(csv("")), session, lookup(csv(rows("17", (1, 0), (1, 0)))),
                    lookup(csv(rows("17", (1, 0), (1, 0)))),
                    S(action: .lookup("tr.key"), want: csv(rows("17", (1, 0), (1, 0)))), session,
                    lookup(csv(rows("17", (2, 0), (2, 0)))),
                ]),
            DeviceCase(
                name:
                    "exposures count by assignment, not by the active pack: a variant staged and not yet active counts as the variant",
                steps: ready("variant") + [
                    session,
                    lookup(["text": "bundled tr-TR title", "outcomeCsv": .string(header + rows("18", (1, 0), (1, 0)))]),
                    S(action: .activate, want: ["activated": ids(["tr@1", "tr-TR@18"])]), session,
                    lookup(["text": "tr-TR@18 title", "outcomeCsv": .string(header + rows("18", (2, 0), (2, 0)))]),
                ]),
            DeviceCase(
                name:
                    "a conversion in an exposed session counts at once, once a session per metric; a name the experiment does not measure is ignored",
                steps: ready("control") + [
                    session, lookup(), convert("checkout", csv(rows("17", (1, 1), (1, 0)))),
                    convert("checkout", csv(rows("17", (1, 1), (1, 0)))),
                    convert("purchase", csv(rows("17", (1, 1), (1, 0)))),
                    convert("signup", csv(rows("17", (1, 1), (1, 1)))), session,
                    convert("checkout", csv(rows("17", (1, 1), (1, 1)))),
                ]),
            DeviceCase(
                name:
                    "a conversion before the exposure is remembered and counted with it; a session never exposed counts none",
                steps: ready("variant") + [
                    session, convert("checkout", csv("")), lookup(csv(rows("18", (1, 1), (1, 0)))),
                    session, convert("signup", csv(rows("18", (1, 1), (1, 0)))), session,
                    lookup(csv(rows("18", (2, 1), (2, 0)))),
                ]),
            DeviceCase(
                name:
                    "outside every range of a split under 100%, or once the plan no longer runs the experiment, nothing counts; a refresh back in counts again",
                steps: [launch, S(action: .refresh("variant")), session, lookup(csv(rows("18", (1, 0), (1, 0))))] + [
                    S(action: .refresh("outside")), convert("checkout", csv(rows("18", (1, 0), (1, 0)))), session,
                    lookup(csv(rows("18", (1, 0), (1, 0)))), S(action: .refresh("ended")), session,
                    lookup(csv(rows("18", (1, 0), (1, 0)))), convert("checkout", csv(rows("18", (1, 0), (1, 0)))),
                ]),
            DeviceCase(
                name:
                    "a new process counts nothing before its first session; what earlier processes counted stays",
                steps: ready("control") + [
                    session, lookup(), launch, lookup(csv(rows("17", (1, 0), (1, 0)))),
                    convert("checkout", csv(rows("17", (1, 0), (1, 0)))), session,
                    lookup(csv(rows("17", (2, 0), (2, 0)))),
                ]),
            DeviceCase(
                name:
                    "a session that crosses midnight counts its conversion in the row of its exposure; the next session's exposure is on the new day",
                steps: ready("control") + [
                    S(action: .clock("2026-11-21T23:59:59Z")), session, lookup(),
                    S(action: .clock("2026-11-22T00:00:01Z")), convert("checkout", csv(rows("17", (1, 1), (1, 0)))),
                    session, lookup(csv(rows("17", (1, 1), (1, 0)) + rows("17", (1, 0), (1, 0), day: "2026-11-22"))),
                ]),
            DeviceCase(
                name:
                    "resetCounters forgets the rows; a conversion of a session exposed before it is not written without its exposure",
                steps: ready("control") + [
                    session, lookup(), S(action: .reset, want: csv("")), convert("checkout", csv("")), session,
                    lookup(csv(rows("17", (1, 0), (1, 0)))),
                ]),
            DeviceCase(
                name:
                    "the assignment belongs to the locale whose manifest gave it: another locale counts nothing, and back on it the session counts",
                steps: ready("control") + [
                    session, S(action: .setLocale("tr")),
                    lookup(["text": "bundled tr title", "outcomeCsv": .string(header)]),
                    S(action: .setLocale("tr-TR")), lookup(csv(rows("17", (1, 0), (1, 0)))),
                ]),
        ]
    }

    private static func ids(_ list: [String]) -> JSONValue { strings(list) }
}
