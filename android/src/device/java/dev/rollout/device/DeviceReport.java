package dev.rollout.device;

import dev.rollout.client.DeviceAccess;
import dev.rollout.client.Failure;
import dev.rollout.client.LaunchStatus;
import dev.rollout.client.MetricKind;
import dev.rollout.client.PackId;
import dev.rollout.client.RefreshResult;
import dev.rollout.client.RolloutClient;
import dev.rollout.client.Status;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * How what one action returned is shown (DeviceOutput.swift, DeviceStatus.swift): plain short text for people, one
 * JSON document with --json, in the shapes of docs/device.md.
 */
final class DeviceReport {
    /** What a command produced: the document, the text, the exit code. */
    static final class Output {
        final Map<String, Object> json;
        final String text;
        final int exitCode;

        Output(Map<String, Object> json, String text, int exitCode) {
            this.json = json;
            this.text = text;
            this.exitCode = exitCode;
        }
    }

    private DeviceReport() {}

    static Object id(PackId pack) {
        return pack == null ? null : pack.toString();
    }

    static List<Object> ids(List<PackId> packs) {
        List<Object> out = new ArrayList<>();
        for (PackId pack : packs) out.add(pack.toString());
        return out;
    }

    static String list(List<PackId> packs) {
        List<String> out = new ArrayList<>();
        for (PackId pack : packs) out.add(pack.toString());
        return String.join(", ", out);
    }

    static Map<String, Object> object(Object... pairs) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) map.put((String) pairs[i], pairs[i + 1]);
        return map;
    }

    // MARK: refresh

    /** RefreshReport: a pack that replaced one the refresh dropped is active at once, and shown so. */
    static Output refreshed(RefreshResult result, RolloutClient client) {
        Set<PackId> active = new HashSet<>();
        for (Status.Slots slots : client.status().packs().values()) {
            if (slots.active() != null) active.add(slots.active());
        }
        Map<String, Object> json;
        String text;
        boolean ok;
        switch (result.kind()) {
            case STAGED:
                ok = true;
                text = dropped(result.dropped()) + staged(result.staged(), active);
                json = object("result", "staged", "ok", true, "staged", ids(result.staged()), "dropped",
                        ids(result.dropped()));
                break;
            case UP_TO_DATE:
                ok = true;
                text = dropped(result.dropped()) + "Up to date.\n";
                json = object("result", "upToDate", "ok", true, "staged", new ArrayList<>(), "dropped",
                        ids(result.dropped()));
                break;
            case PARTIAL: {
                ok = false;
                StringBuilder lines = new StringBuilder("Partly failed:\n");
                List<Object> failures = new ArrayList<>();
                for (Failure failure : result.failures()) {
                    lines.append("  ").append(failure.message()).append(" [").append(failure.reason().code())
                            .append("]\n");
                    failures.add(failureJson(failure));
                }
                text = lines + dropped(result.dropped()) + staged(result.staged(), active);
                json = object("result", "partial", "ok", false, "staged", ids(result.staged()), "dropped",
                        ids(result.dropped()), "failures", failures);
                break;
            }
            case FAILED:
                ok = false;
                text = "Refresh failed: " + result.failure().message() + " [" + result.failure().reason().code()
                        + "]\nThe device keeps what it had.\n";
                json = object("result", "failed", "ok", false);
                json.putAll(failureJson(result.failure()));
                break;
            case BUSY:
                ok = true;
                text = "Another refresh was running.\n";
                json = object("result", "busy", "ok", true);
                break;
            case TOO_SOON:
            default: {
                ok = true;
                long seconds = (result.retryAfterMillis() + 999) / 1000;
                text = "Too soon: the last refresh was less than the minimum interval ago; next one in " + seconds
                        + " s (or --force).\n";
                json = object("result", "tooSoon", "ok", true, "retryAfter", seconds);
                break;
            }
        }
        json.put("action", "refresh");
        return new Output(json, text, ok ? 0 : 1);
    }

    /** A failure in --json: the reason's code to compare, the message to read (DeviceOutput.swift). */
    static Map<String, Object> failureJson(Failure failure) {
        return object("reason", failure.reason().code(), "message", failure.message());
    }

    private static String dropped(List<PackId> packs) {
        return packs.isEmpty() ? "" : "Dropped: " + list(packs) + ".\n";
    }

    private static String staged(List<PackId> packs, Set<PackId> active) {
        List<PackId> now = new ArrayList<>();
        List<PackId> waiting = new ArrayList<>();
        for (PackId pack : packs) (active.contains(pack) ? now : waiting).add(pack);
        return (waiting.isEmpty() ? ""
                        : "Staged " + list(waiting) + ": active at activate, or at the device's next start.\n")
                + (now.isEmpty() ? "" : "Active now: " + list(now) + ", in place of a dropped pack.\n");
    }

    // MARK: the other actions

    static Output activated(List<PackId> packs) {
        String text = packs.isEmpty() ? "Nothing was pending.\n" : "Active now: " + list(packs) + ".\n";
        return new Output(object("action", "activate", "activated", ids(packs)), text, 0);
    }

    static Output text(String key, String text, RolloutClient client) {
        return new Output(object("action", "get", "key", key, "text", text, "activePack", id(client.activePack())),
                text + "\n", 0);
    }

    static Output launched(RolloutClient client) {
        DeviceView view = new DeviceView(client);
        Map<String, Object> json = object("action", "launch", "activePack", id(client.activePack()), "failed",
                ids(view.status.failed()), "launch", view.launchJson());
        return new Output(json, view.launched(), 0);
    }

    /**
     * What markLaunchSucceeded() confirmed (null: nothing), never the packs active now: a pack activated
     * after the launch began is not confirmed by it (DeviceOutput.swift's launchSucceeded).
     */
    static Output launchSucceeded(List<PackId> confirmed, RolloutClient client) {
        List<PackId> awaiting = client.launchStatus().awaitingSuccess();
        String text;
        if (confirmed != null) {
            text = "Launch succeeded " + (confirmed.isEmpty() ? "on the bundled strings" : "with " + list(confirmed))
                    + ".\n";
        } else {
            text = "Nothing to confirm: the last launch succeeded already."
                    + (awaiting.isEmpty() ? "\n" : " " + list(awaiting)
                            + " stays on trial until a launch that begins with it succeeds (launch, then launch-succeeded).\n");
        }
        return new Output(object("action", "launch-succeeded", "confirmed", confirmed == null ? null : ids(confirmed),
                "activePack", id(client.activePack()), "awaitingSuccess", ids(awaiting)), text, 0);
    }

    static Output status(RolloutClient client, boolean bold, List<String> problems) {
        DeviceView view = new DeviceView(client);
        Map<String, Object> json = view.json();
        json.put("action", "status");
        json.put("bundledProblems", new ArrayList<Object>(problems));
        return new Output(json, view.text(bold), 0);
    }

    static Output metrics(String kind, String csv) {
        return new Output(object("action", "metrics", "kind", kind, "csv", csv), csv, 0);
    }

    /** DeviceOutcome.converted: whether the conversion counts, and if not, why (docs/device.md, "convert"). */
    static Output converted(String metric, boolean counted, Status.Experiment experiment) {
        String text;
        if (counted) {
            text = "Conversion " + metric + " counts for this session (" + (experiment == null ? ""
                    : experiment.pack().toString()) + ").\n";
        } else if (experiment != null && !experiment.metrics().contains(metric)) {
            text = "Ignored: " + metric + " is not a metric of experiment " + experiment.name() + " ("
                    + String.join(", ", experiment.metrics()) + ").\n";
        } else if (experiment == null) {
            text = "Ignored: the device is in no experiment.\n";
        } else {
            text = "Ignored: " + metric + " was counted in this session already, or no session was opened (launch).\n";
        }
        return new Output(object("action", "convert", "metric", metric, "counted", counted, "experiment",
                experiment == null ? null : experiment.name(), "pack", id(experiment == null ? null : experiment.pack())),
                text, 0);
    }

    /** DeviceStatus.swift: the client's status and its counters, read as an app reads them, through metricsCsv. */
    static final class DeviceView {
        final Status status;
        final LaunchStatus launch;
        final String installId;
        /** crash, fallback: their rows (date, pack, total, events). */
        final Map<String, List<String[]>> counters = new LinkedHashMap<>();

        static final List<String> KINDS = Arrays.asList("crash", "fallback");

        DeviceView(RolloutClient client) {
            status = client.status();
            launch = client.launchStatus();
            installId = client.installId();
            for (String kind : KINDS) {
                List<String[]> rows = new ArrayList<>();
                String csv = client.metricsCsv(kind.equals("crash") ? MetricKind.CRASH : MetricKind.FALLBACK);
                String[] lines = csv.split("\n");
                // date,locale,pack,region,app_version,TOTAL,EVENTS; region and app version are the device's.
                for (int i = 1; i < lines.length; i++) {
                    if (lines[i].isEmpty()) continue;
                    String[] fields = lines[i].split(",", -1);
                    if (fields.length != 7 || !isInt(fields[5]) || !isInt(fields[6])) continue;
                    rows.add(new String[] {fields[0], fields[2], fields[5], fields[6]});
                }
                counters.put(kind, rows);
            }
        }

        private static boolean isInt(String text) {
            try {
                Long.parseLong(text);
                return true;
            } catch (NumberFormatException e) {
                return false;
            }
        }

        static String total(String kind) {
            return kind.equals("crash") ? "sessions" : "lookups";
        }

        static String events(String kind) {
            return kind.equals("crash") ? "crashes" : "fallbacks";
        }

        Map<String, Object> json() {
            Map<String, Object> packs = new TreeMap<>();
            for (Map.Entry<String, Status.Slots> entry : status.packs().entrySet()) {
                Status.Slots slots = entry.getValue();
                packs.put(entry.getKey(), object("active", id(slots.active()), "pending", id(slots.pending()),
                        "previous", id(slots.previous())));
            }
            Map<String, Object> blocked = new TreeMap<>();
            for (Map.Entry<String, List<Integer>> entry : status.blocked().entrySet()) {
                List<Integer> versions = new ArrayList<>(entry.getValue());
                versions.sort(null);
                blocked.put(entry.getKey(), new ArrayList<Object>(versions));
            }
            List<String> killed = new ArrayList<>(status.killed());
            killed.sort(null);
            Map<String, Object> counterJson = new LinkedHashMap<>();
            for (Map.Entry<String, List<String[]>> entry : counters.entrySet()) {
                List<Object> rows = new ArrayList<>();
                for (String[] row : entry.getValue()) {
                    rows.add(object("date", row[0], "pack", row[1], total(entry.getKey()), Long.parseLong(row[2]),
                            events(entry.getKey()), Long.parseLong(row[3])));
                }
                counterJson.put(entry.getKey(), rows);
            }
            Map<String, Object> json = object("locale", status.locale(), "installID", installId, "indexSequence",
                    status.indexSequence(), "lastRefresh", timestamp(status.lastRefresh()), "keysVersion",
                    status.keysVersion(), "indexExpires",
                    timestamp(status.indexExpires()), "stale", status.isStale(), "chain",
                    new ArrayList<Object>(status.chain()), "packs", packs, "failed", ids(status.failed()), "blocked",
                    blocked, "killed", new ArrayList<Object>(killed), "launch", launchJson(), "counters", counterJson);
            // Only when there is one: a device in no experiment shows what it always showed.
            Status.Experiment experiment = status.experiment();
            if (experiment != null) {
                json.put("experiment", object("name", experiment.name(), "pack", experiment.pack().toString(),
                        "control", experiment.isControl(), "keys", new ArrayList<Object>(experiment.keys()),
                        "metrics", new ArrayList<Object>(experiment.metrics())));
            }
            return json;
        }

        String text(boolean bold) {
            StringBuilder text = new StringBuilder();
            text.append("Device ").append(status.locale()).append(" (looks up ")
                    .append(String.join(", ", status.chain())).append("), install id ").append(installId).append('\n');
            text.append("Index sequence ").append(status.indexSequence());
            if (status.indexExpires() != null) {
                String expires = (String) timestamp(status.indexExpires());
                text.append(status.isStale() ? " (stale: expired at " + expires + "; the packs stay in use)"
                        : " (expires " + expires + ")");
            }
            text.append(status.lastRefresh() == null ? ", never refreshed.\n"
                    : ", last refresh " + timestamp(status.lastRefresh()) + ".\n");
            if (status.keysVersion() != null) {
                text.append("Key list version ").append(status.keysVersion()).append(".\n");
            }
            Map<String, Status.Slots> packs = new TreeMap<>(status.packs());
            if (packs.isEmpty()) {
                text.append("No packs: the bundled strings.\n");
            } else {
                List<List<String>> rows = new ArrayList<>();
                for (Map.Entry<String, Status.Slots> entry : packs.entrySet()) {
                    Status.Slots slots = entry.getValue();
                    rows.add(Arrays.asList(entry.getKey(), dash(slots.active()), dash(slots.pending()),
                            dash(slots.previous())));
                }
                text.append(Text.table(bold, Arrays.asList("LOCALE", "ACTIVE", "PENDING", "PREVIOUS"), rows));
            }
            if (!status.failed().isEmpty()) {
                text.append("Failed (never activated again): ").append(list(status.failed())).append(".\n");
            }
            List<String> blocked = new ArrayList<>();
            for (Map.Entry<String, List<Integer>> entry : new TreeMap<>(status.blocked()).entrySet()) {
                if (entry.getValue().isEmpty()) continue;
                List<Integer> versions = new ArrayList<>(entry.getValue());
                versions.sort(null);
                List<String> shown = new ArrayList<>();
                for (Integer version : versions) shown.add(version.toString());
                blocked.add(entry.getKey() + " " + String.join(", ", shown));
            }
            if (!blocked.isEmpty()) text.append("Blocked: ").append(String.join("; ", blocked)).append(".\n");
            if (!status.killed().isEmpty()) {
                List<String> killed = new ArrayList<>(status.killed());
                killed.sort(null);
                text.append("Under a kill switch: ").append(String.join(", ", killed)).append(".\n");
            }
            text.append(launchText());
            Status.Experiment experiment = status.experiment();
            if (experiment != null) {
                text.append("Experiment ").append(experiment.name()).append(": assigned ").append(experiment.pack())
                        .append(experiment.isControl() ? " (control)" : " (variant)").append(", metrics ")
                        .append(String.join(", ", experiment.metrics())).append(".\n");
            }
            List<List<String>> rows = new ArrayList<>();
            for (Map.Entry<String, List<String[]>> entry : counters.entrySet()) {
                for (String[] row : entry.getValue()) {
                    rows.add(Arrays.asList(total(entry.getKey()) + "/" + events(entry.getKey()), row[0], row[1], row[2],
                            row[3]));
                }
            }
            if (rows.isEmpty()) {
                text.append("Counters: none.\n");
            } else {
                text.append(Text.table(bold, Arrays.asList("COUNTER", "DATE", "PACK", "TOTAL", "EVENTS"), rows));
            }
            return text.toString();
        }

        private static String dash(PackId pack) {
            return pack == null ? "-" : pack.toString();
        }

        /** The crash-loop guard (docs/client.md#activation-and-rollback-on-the-device). */
        Map<String, Object> launchJson() {
            return object("armed", launch.armed(), "awaitingSuccess", ids(launch.awaitingSuccess()),
                    "launchesSinceActivation", launch.launchesSinceActivation(), "failedLaunches",
                    launch.failedLaunches(), "launchAttempts", launch.launchAttempts(),
                    "previousLaunchFailed", launch.previousLaunchFailed(), "rolledBack", ids(launch.rolledBack()),
                    "rollbacks", launch.rollbacks());
        }

        String launchText() {
            if (!launch.armed()) return "Crash-loop guard: not armed until the first launch-succeeded.\n";
            StringBuilder text = new StringBuilder("Crash-loop guard: ");
            if (launch.awaitingSuccess().isEmpty()) {
                text.append("every active pack has reached launch-succeeded.\n");
            } else {
                text.append(list(launch.awaitingSuccess())).append(" on trial, ");
                text.append(launch.failedLaunches()).append(" of ").append(launch.launchAttempts())
                        .append(" failed launches");
                text.append(" (").append(launch.launchesSinceActivation()).append(" launch(es) since activation).\n");
            }
            if (!launch.rolledBack().isEmpty()) {
                text.append("Rolled back by the guard: ").append(list(launch.rolledBack())).append(".\n");
            }
            return text.toString();
        }

        /** What launch prints: the pack the app starts with, and what the guard did. */
        String launched() {
            Status.Slots own = status.packs().get(status.locale());
            PackId active = own == null ? null : own.active();
            StringBuilder text = new StringBuilder("Launched")
                    .append(active == null ? " on the bundled strings" : " with " + active).append(".\n");
            if (launch.previousLaunchFailed()) {
                text.append("The previous launch never reached launch-succeeded: counted as a crash.\n");
            }
            return text.append(launchText()).toString();
        }
    }

    /** Whole seconds, as Timestamp.description writes them; null stays null. */
    static Object timestamp(java.time.Instant instant) {
        if (instant == null) return null;
        return DeviceAccess.formatTimestamp(Math.floorDiv(instant.toEpochMilli(), 1000L));
    }
}
