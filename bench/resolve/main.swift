// bench/resolve: what resolving one device costs, against the floor of hashing its install id once.
// Both run in this process, interleaved round by round, over the same install ids.
//
// Usage: swift run -c release rollout-bench-resolve [DEVICES] [ROUNDS]
import Foundation
import RolloutCrypto
import RolloutModel

let arguments = CommandLine.arguments.dropFirst()
let devices = arguments.first.flatMap { Int($0) } ?? 1_000_000
let rounds = arguments.dropFirst().first.flatMap { Int($0) } ?? 7

// A realistic plan: a baseline, two earlier baselines, and a candidate staged with four rules.
func ref(_ version: Int, _ minApp: String) -> Plan.PackRef {
    Plan.PackRef(contentVersion: version, minAppVersion: AppVersion(minApp)!)
}
let candidate = ref(18, "4.8.0")
let plan = Plan(
    locale: "tr-TR", baseline: ref(17, "4.8.0"), previousBaselines: [ref(16, "4.5"), ref(15, "4.0")],
    rules: [
        Plan.Rule(
            pack: candidate, regions: ["TR"], versions: try! VersionRange.parse(">=4.8"),
            share: Percent(basisPoints: 1000), salt: "02d2cf9db956f565"),
        Plan.Rule(
            pack: candidate, regions: ["DE", "AT"], versions: .all, share: Percent(basisPoints: 2500),
            salt: "02d2cf9db956f565"),
        Plan.Rule(
            pack: candidate, regions: ["CY"], versions: try! VersionRange.parse("4.9.x"),
            share: Percent(basisPoints: 5000), salt: "02d2cf9db956f565"),
        Plan.Rule(
            pack: candidate, regions: [], versions: try! VersionRange.parse(">=5"), share: Percent(basisPoints: 500),
            salt: "02d2cf9db956f565"),
    ],
    blocked: [14])
let regions = ["TR", "DE", "US", "VN", "CY", "AT"]
let versions = ["4.8.1", "4.9.2", "5.0", "4.7", "4.8.0"].map { AppVersion($0)! }

var generator = InstallIDGenerator(seed: 42)
let ids = (0..<devices).map { _ in generator.next() }

func hashOnly() -> UInt64 {
    var sink: UInt64 = 0
    for id in ids {
        var id = id
        sink &+= id.withUTF8 { SHA256.leadingUInt64(UnsafeRawBufferPointer($0)) }
    }
    return sink
}

func resolveAll() -> Int {
    var sink = 0
    for (index, id) in ids.enumerated() {
        if case .pack(let v) = Resolution.outcome(
            plan, region: regions[index % regions.count], appVersion: versions[index % versions.count], installID: id)
        {
            sink &+= v
        }
    }
    return sink
}

let clock = ContinuousClock()
func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }
var hashTimes: [Double] = []
var resolveTimes: [Double] = []
var sink = 0
for _ in 0..<rounds {
    hashTimes.append(seconds(clock.measure { sink &+= Int(truncatingIfNeeded: hashOnly()) }))
    resolveTimes.append(seconds(clock.measure { sink &+= resolveAll() }))
}
let hash = hashTimes.sorted()[rounds / 2] / Double(devices) * 1e9
let resolve = resolveTimes.sorted()[rounds / 2] / Double(devices) * 1e9
let ratio = resolve / hash
print("devices \(devices), rounds \(rounds) (medians; checksum \(sink & 0xFF))")
print(String(format: "hash install id (SHA-256, the floor)  %8.1f ns/device", hash))
print(String(format: "resolve device (plan with 4 rules)     %8.1f ns/device", resolve))
print(String(format: "ratio resolve / hash                   %8.2fx", ratio))
print(
    "GOAL resolve / SHA-256 of the install id: \(String(format: "%.2f", ratio))x (goal <= 3x): \(ratio <= 3 ? "pass" : "FAIL")"
)
// A small run (make bench: 100,000 x 3) only reports; the goal is judged at 1,000,000 devices.
exit(ratio <= 3 || devices < 1_000_000 ? 0 : 1)
