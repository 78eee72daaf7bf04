import Foundation
import RolloutCLI
import RolloutClient
import RolloutModel

/// What `rollout device status` shows: the client's `status` and its counters (read, as an app
/// reads them, through `metricsCSV`).
struct DeviceStatus {
    let status: RolloutClient.Status
    let launch: RolloutClient.LaunchStatus
    let installID: String
    let counters: [MetricKind: [CounterRow]]

    struct CounterRow {
        let date: String
        let pack: String
        let total: Int
        let events: Int
    }

    init(_ client: RolloutClient) {
        status = client.status
        launch = client.launchStatus
        installID = client.installID
        var counters: [MetricKind: [CounterRow]] = [:]
        for kind in MetricKind.health {
            // date,locale,pack,region,app_version,TOTAL,EVENTS; region and app version are the device's.
            counters[kind] = client.metricsCSV(kind).split(separator: "\n").dropFirst().compactMap { line in
                let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard fields.count == 7, let total = Int(fields[5]), let events = Int(fields[6]) else { return nil }
                return CounterRow(date: fields[0], pack: fields[2], total: total, events: events)
            }
        }
        self.counters = counters
    }

    var locales: [String] { status.packs.keys.sorted() }

    var json: [String: JSONValue] {
        var json: [String: JSONValue] = [
            "locale": .string(status.locale), "installID": .string(installID),
            "indexSequence": .integer(status.indexSequence),
            "lastRefresh": status.lastRefresh.map { .string(timestamp($0)) } ?? .null,
            "keysVersion": status.keysVersion.map { .integer($0) } ?? .null,
            "indexExpires": status.indexExpires.map { .string(timestamp($0)) } ?? .null, "stale": .bool(status.isStale),
            "chain": .array(status.chain.map { .string($0) }),
            "packs": .object(
                Dictionary(
                    uniqueKeysWithValues: status.packs.map { locale, slots in
                        (
                            locale,
                            JSONValue.object([
                                "active": id(slots.active), "pending": id(slots.pending),
                                "previous": id(slots.previous),
                            ])
                        )
                    })),
            "failed": ids(status.failed),
            "blocked": .object(status.blocked.mapValues { .array($0.sorted().map { .integer($0) }) }),
            "killed": .array(status.killed.sorted().map { .string($0) }),
            "launch": launchJSON,
        ]
        json["counters"] = .object(
            Dictionary(
                uniqueKeysWithValues: counters.map { kind, rows in
                    (
                        kind.rawValue,
                        JSONValue.array(
                            rows.map { row in
                                .object([
                                    "date": .string(row.date), "pack": .string(row.pack),
                                    kind.columns.total: .integer(row.total), kind.columns.events: .integer(row.events),
                                ])
                            })
                    )
                }))
        // Only when there is one: a device in no experiment shows what it always showed.
        if let experiment = status.experiment {
            json["experiment"] = [
                "name": .string(experiment.name), "pack": .string(experiment.pack.description),
                "control": .bool(experiment.isControl), "keys": .array(experiment.keys.map { .string($0) }),
                "metrics": .array(experiment.metrics.map { .string($0) }),
            ]
        }
        return json
    }

    func text(_ style: Style) -> String {
        var text =
            "Device \(status.locale) (looks up \(status.chain.joined(separator: ", "))), install id \(installID)\n"
        text += "Index sequence \(status.indexSequence)"
        if let expires = status.indexExpires {
            text +=
                status.isStale
                ? " (stale: expired at \(timestamp(expires)); the packs stay in use)"
                : " (expires \(timestamp(expires)))"
        }
        text += status.lastRefresh.map { ", last refresh \(timestamp($0)).\n" } ?? ", never refreshed.\n"
        if let version = status.keysVersion { text += "Key list version \(version).\n" }
        if locales.isEmpty {
            text += "No packs: the bundled strings.\n"
        } else {
            var table = Table("LOCALE", "ACTIVE", "PENDING", "PREVIOUS")
            for locale in locales {
                let slots = status.packs[locale]!
                table.add(
                    locale, slots.active?.description ?? "-", slots.pending?.description ?? "-",
                    slots.previous?.description ?? "-")
            }
            text += table.render(style)
        }
        if !status.failed.isEmpty { text += "Failed (never activated again): \(list(status.failed)).\n" }
        let blocked = status.blocked.filter { !$0.value.isEmpty }
        if !blocked.isEmpty {
            text +=
                "Blocked: "
                + blocked.keys.sorted().map {
                    "\($0) " + blocked[$0]!.sorted().map(String.init).joined(separator: ", ")
                }.joined(separator: "; ") + ".\n"
        }
        if !status.killed.isEmpty {
            text += "Under a kill switch: \(status.killed.sorted().joined(separator: ", ")).\n"
        }
        text += launchText
        if let experiment = status.experiment {
            text +=
                "Experiment \(experiment.name): assigned \(experiment.pack) (\(experiment.isControl ? "control" : "variant")),"
                + " metrics \(experiment.metrics.joined(separator: ", ")).\n"
        }
        let rows = MetricKind.health.flatMap { kind in (counters[kind] ?? []).map { (kind, $0) } }
        if rows.isEmpty {
            text += "Counters: none.\n"
        } else {
            var table = Table("COUNTER", "DATE", "PACK", "TOTAL", "EVENTS")
            for (kind, row) in rows {
                table.add(
                    "\(kind.columns.total)/\(kind.columns.events)", row.date, row.pack, "\(row.total)", "\(row.events)")
            }
            text += table.render(style)
        }
        return text
    }

    /// The crash-loop guard (docs/client.md#activation-and-rollback-on-the-device).
    var launchJSON: JSONValue {
        [
            "armed": .bool(launch.armed), "awaitingSuccess": ids(launch.awaitingSuccess),
            "launchesSinceActivation": .integer(launch.launchesSinceActivation),
            "failedLaunches": .integer(launch.failedLaunches),
            "launchAttempts": .integer(launch.launchAttempts),
            "previousLaunchFailed": .bool(launch.previousLaunchFailed),
            "rolledBack": ids(launch.rolledBack), "rollbacks": .integer(launch.rollbacks),
        ]
    }

    var launchText: String {
        guard launch.armed else { return "Crash-loop guard: not armed until the first launch-succeeded.\n" }
        var text = "Crash-loop guard: "
        if launch.awaitingSuccess.isEmpty {
            text += "every active pack has reached launch-succeeded.\n"
        } else {
            text += "\(list(launch.awaitingSuccess)) on trial, "
            text += "\(launch.failedLaunches) of \(launch.launchAttempts) failed launches"
            text += " (\(launch.launchesSinceActivation) launch(es) since activation).\n"
        }
        if !launch.rolledBack.isEmpty { text += "Rolled back by the guard: \(list(launch.rolledBack)).\n" }
        return text
    }

    /// What `launch` prints: the pack the app starts with, and what the guard did.
    var launched: String {
        let active = status.packs[status.locale]?.active
        var text = "Launched" + (active.map { " with \($0)" } ?? " on the bundled strings") + ".\n"
        if launch.previousLaunchFailed {
            text += "The previous launch never reached launch-succeeded: counted as a crash.\n"
        }
        return text + launchText
    }
}

private func timestamp(_ date: Date) -> String {
    Timestamp(seconds: Int64(date.timeIntervalSince1970.rounded(.down))).description
}
