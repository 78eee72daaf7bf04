import Foundation
import RolloutCLI
import RolloutClient
import RolloutModel

/// What one `rollout device` action returned, and how it is shown: plain short text for people,
/// one JSON document with `--json` (shapes in docs/device.md).
enum DeviceOutcome {
    case refreshed(RolloutClient.RefreshResult)
    case activated([PackID])
    case text(key: String, String)
    case launched
    /// What `markLaunchSucceeded()` confirmed; nil: nothing.
    case launchSucceeded(confirmed: [PackID]?)
    case status
    case metrics(MetricKind, String)
    case outcomes(String)
    /// A conversion, and whether it counts for this session.
    case converted(String, counted: Bool)

    func output(client: RolloutClient, style: Style) -> CommandOutput {
        switch self {
        case .refreshed(let result):
            let report = RefreshReport(result, active: Set(client.status.packs.values.compactMap(\.active)))
            var json = report.json
            json["action"] = "refresh"
            return CommandOutput(json: .object(json), text: report.text, exitCode: report.ok ? 0 : 1)
        case .activated(let packs):
            let text = packs.isEmpty ? "Nothing was pending.\n" : "Active now: \(list(packs)).\n"
            return CommandOutput(json: ["action": "activate", "activated": ids(packs)], text: text)
        case .text(let key, let text):
            return CommandOutput(
                json: [
                    "action": "get", "key": .string(key), "text": .string(text), "activePack": id(client.activePack),
                ], text: text + "\n")
        case .launched:
            let status = DeviceStatus(client)
            let json: JSONValue = [
                "action": "launch", "activePack": id(client.activePack), "failed": ids(status.status.failed),
                "launch": status.launchJSON,
            ]
            return CommandOutput(json: json, text: status.launched)
        case .launchSucceeded(let confirmed):
            return Self.launchSucceeded(confirmed, client: client)
        case .status:
            let status = DeviceStatus(client)
            var json = status.json
            json["action"] = "status"
            return CommandOutput(json: .object(json), text: status.text(style))
        case .metrics(let kind, let csv):
            return CommandOutput(
                json: ["action": "metrics", "kind": .string(kind.rawValue), "csv": .string(csv)], text: csv)
        case .outcomes(let csv):
            return CommandOutput(json: ["action": "metrics", "kind": "outcome", "csv": .string(csv)], text: csv)
        case .converted(let metric, let counted):
            return Self.converted(metric, counted: counted, experiment: client.status.experiment)
        }
    }
}

extension DeviceOutcome {
    /// What the call confirmed, never the packs active now: a pack activated after the launch
    /// began is not confirmed by it (docs/device.md, "launch and launch-succeeded").
    static func launchSucceeded(_ confirmed: [PackID]?, client: RolloutClient) -> CommandOutput {
        let awaiting = client.launchStatus.awaitingSuccess
        let text: String
        if let confirmed {
            text =
                "Launch succeeded " + (confirmed.isEmpty ? "on the bundled strings" : "with \(list(confirmed))") + ".\n"
        } else {
            text =
                "Nothing to confirm: the last launch succeeded already."
                + (awaiting.isEmpty
                    ? "\n"
                    : " \(list(awaiting)) stays on trial until a launch that begins with it succeeds "
                        + "(launch, then launch-succeeded).\n")
        }
        let json: JSONValue = [
            "action": "launch-succeeded", "confirmed": confirmed.map(ids) ?? .null, "activePack": id(client.activePack),
            "awaitingSuccess": ids(awaiting),
        ]
        return CommandOutput(json: json, text: text)
    }
}

extension DeviceOutcome {
    /// Whether the conversion counts, and if not, why (docs/device.md, "convert").
    static func converted(_ metric: String, counted: Bool, experiment: RolloutClient.Status.Experiment?)
        -> CommandOutput
    {
        let text: String
        if counted {
            text = "Conversion \(metric) counts for this session (\(experiment.map { $0.pack.description } ?? "")).\n"
        } else if let experiment, !experiment.metrics.contains(metric) {
            text =
                "Ignored: \(metric) is not a metric of experiment \(experiment.name) "
                + "(\(experiment.metrics.joined(separator: ", "))).\n"
        } else if experiment == nil {
            text = "Ignored: the device is in no experiment.\n"
        } else {
            text = "Ignored: \(metric) was counted in this session already, or no session was opened (launch).\n"
        }
        let json: JSONValue = [
            "action": "convert", "metric": .string(metric), "counted": .bool(counted),
            "experiment": experiment.map { .string($0.name) } ?? .null, "pack": id(experiment?.pack),
        ]
        return CommandOutput(json: json, text: text)
    }
}

func id(_ pack: PackID?) -> JSONValue { pack.map { .string($0.description) } ?? .null }
func ids(_ packs: [PackID]) -> JSONValue { .array(packs.map { .string($0.description) }) }
func list(_ packs: [PackID]) -> String { packs.map(\.description).joined(separator: ", ") }

/// The client's `RefreshResult` as a verdict, a sentence and a document.
struct RefreshReport {
    let ok: Bool
    let text: String
    let json: [String: JSONValue]

    /// `active`: the packs active after the refresh. A pack that replaced one the refresh dropped
    /// is active at once (docs/client.md, Refresh), and is shown so.
    init(_ result: RolloutClient.RefreshResult, active: Set<PackID>) {
        func dropped(_ packs: [PackID]) -> String { packs.isEmpty ? "" : "Dropped: \(list(packs)).\n" }
        func staged(_ packs: [PackID]) -> String {
            let now = packs.filter(active.contains)
            let waiting = packs.filter { !active.contains($0) }
            return
                (waiting.isEmpty ? "" : "Staged \(list(waiting)): active at activate, or at the device's next start.\n")
                + (now.isEmpty ? "" : "Active now: \(list(now)), in place of a dropped pack.\n")
        }
        switch result {
        case .staged(let packs, let gone):
            ok = true
            text = dropped(gone) + staged(packs)
            json = ["result": "staged", "ok": true, "staged": ids(packs), "dropped": ids(gone)]
        case .upToDate(let gone):
            ok = true
            text = dropped(gone) + "Up to date.\n"
            json = ["result": "upToDate", "ok": true, "staged": [], "dropped": ids(gone)]
        case .partial(let packs, let gone, let failures):
            ok = false
            text =
                "Partly failed:\n" + failures.map { "  \($0.message) [\($0.reason.code)]\n" }.joined() + dropped(gone)
                + staged(packs)
            json = [
                "result": "partial", "ok": false, "staged": ids(packs), "dropped": ids(gone),
                "failures": .array(
                    failures.map { ["reason": .string($0.reason.code), "message": .string($0.message)] }),
            ]
        case .failed(let failure):
            ok = false
            text = "Refresh failed: \(failure.message) [\(failure.reason.code)]\nThe device keeps what it had.\n"
            json = [
                "result": "failed", "ok": false, "reason": .string(failure.reason.code),
                "message": .string(failure.message),
            ]
        case .busy:
            ok = true
            text = "Another refresh was running.\n"
            json = ["result": "busy", "ok": true]
        case .tooSoon(let retryAfter):
            ok = true
            let seconds = Int(retryAfter.rounded(.up))
            text =
                "Too soon: the last refresh was less than the minimum interval ago; "
                + "next one in \(seconds) s (or --force).\n"
            json = ["result": "tooSoon", "ok": true, "retryAfter": .integer(seconds)]
        }
    }
}
