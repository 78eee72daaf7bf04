package dev.rollout.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the crash-loop guard does at a start and when the app says its launch succeeded
 * (docs/client.md#activation-and-rollback-on-the-device); its memory is LaunchGuard, in the state.
 */
final class LaunchGuardSteps {
    private LaunchGuardSteps() {}

    static LaunchStatus status(RolloutClient c) {
        synchronized (c.lock) {
            LaunchGuard launch = c.state.launch;
            List<PackId> awaiting = new ArrayList<>();
            if (launch.armed) {
                for (LoadedPack pack : c.active.values()) {
                    if (launch.onTrial(pack.id())) awaiting.add(pack.id());
                }
            }
            Collections.sort(awaiting);
            long launches = 0;
            long failures = 0;
            for (PackId id : awaiting) {
                LaunchGuard.Trial trial = launch.trial.get(id.toString());
                if (trial == null) continue;
                launches = Math.max(launches, trial.launches);
                failures = Math.max(failures, trial.failures);
            }
            List<PackId> rolledBack = new ArrayList<>();
            for (String text : launch.rolledBack) {
                PackId id = PackIds.parse(text);
                if (id != null) rolledBack.add(id);
            }
            return new LaunchStatus(launch.armed, c.launchSession.succeeded, awaiting, launches, failures,
                    c.options.launchAttempts, c.launchSession.previousLaunchFailed, rolledBack, launch.rollbacks);
        }
    }

    /**
     * The app's first screen is usable. Only the first call of a launch counts, and a pack activated
     * after the launch began stays on trial until a later launch that begins with it succeeds: calling
     * it again (a root view appearing twice) never vouches for a pack that has not been through a start.
     * Returns what the call confirmed, sorted (empty: the launch began on the bundled strings), or null
     * when it confirmed nothing: the launch succeeded already, or its start was never recorded (a full
     * disk). The Swift client's markLaunchSucceeded() returns the same.
     */
    static List<PackId> markLaunchSucceeded(RolloutClient c) {
        synchronized (c.lock) {
            c.launchSession.succeeded = true;
            DeviceState next = c.state.copy();
            Map<String, String> began;
            if (!next.launch.armed) {
                // The first call on this install: nothing was on trial; what is active now is good.
                began = activeIds(c);
                next.launch.armed = true;
            } else if (next.launch.open != null) {
                began = next.launch.open.active;
            } else {
                return null; // this launch succeeded already, or was never recorded (a full disk)
            }
            next.launch.open = null;
            next.launch.confirm(began);
            try {
                c.storage.write(DeviceState.FILE, next.bytes());
            } catch (IOException e) {
                return null;
            }
            c.state = next;
            List<PackId> confirmed = new ArrayList<>();
            for (String text : began.values()) {
                PackId id = PackIds.parse(text);
                if (id != null) confirmed.add(id);
            }
            Collections.sort(confirmed);
            return Collections.unmodifiableList(confirmed);
        }
    }

    private static Map<String, String> activeIds(RolloutClient c) {
        Map<String, String> ids = new TreeMap<>();
        for (Map.Entry<String, LoadedPack> entry : c.active.entrySet()) {
            ids.put(entry.getKey(), entry.getValue().id().toString());
        }
        return ids;
    }

    /**
     * Before the cached packs are started: the launch before this one, if it never reached
     * markLaunchSucceeded(), counts as a crash of the pack of its locale that was active when it ended,
     * and as a failed launch of every pack then on trial; a pack on trial that reaches launchAttempts
     * failed launches is marked failed. That is written before any slot moves, and the start of each
     * locale then does the rest: a failed active pack gives way to the previous one (or a verified
     * pending one, or the bundled strings). Call with the lock held.
     */
    static void beginLaunch(RolloutClient c) {
        LaunchGuard.OpenLaunch open = c.state.launch.open;
        if (!c.state.launch.armed || open == null) return;
        DeviceState next = c.state.copy();
        next.launch.open = null;
        c.launchSession.previousLaunchFailed = true;
        Map<String, PackId> actives = new TreeMap<>();
        for (String locale : c.storage.children("packs")) {
            LoadedPack pack = c.verification.verifiedSlot(Slot.ACTIVE, locale);
            if (pack != null) actives.put(locale, pack.id());
        }
        List<PackId> rollBack = new ArrayList<>();
        for (PackId id : actives.values()) {
            if (!next.launch.onTrial(id)) continue;
            // A pack activated during the launch that died has that launch as its first.
            LaunchGuard.Trial trial = next.launch.trial.get(id.toString());
            if (trial == null) trial = new LaunchGuard.Trial(1, 0);
            trial.failures += 1;
            next.launch.trial.put(id.toString(), trial);
            if (trial.failures >= Math.max(1, c.options.launchAttempts)) rollBack.add(id);
        }
        PackId crashed = actives.get(open.locale);
        if (crashed != null) {
            Counters.Key key = new Counters.Key(open.day, crashed, open.region, open.appVersion);
            next.counters.record(Counters.Event.CRASH, key);
            if (!open.session) next.counters.record(Counters.Event.SESSION, key);
        }
        for (PackId id : rollBack) {
            next.failed.add(id.toString());
            next.launch.trial.remove(id.toString());
            List<String> rolled = new ArrayList<>(next.launch.rolledBack);
            rolled.remove(id.toString());
            rolled.add(id.toString());
            next.launch.rolledBack = LaunchGuard.suffix(rolled, LaunchGuard.MAXIMUM_ROLLED_BACK);
            next.launch.rollbacks += 1;
        }
        // The failed list must be on disk before a slot moves, or a killed process could lose the
        // pack from the cache without remembering never to take it again.
        if (!rollBack.isEmpty()) {
            try {
                c.storage.write(DeviceState.FILE, next.bytes());
            } catch (IOException e) {
                return;
            }
        }
        c.state = next;
    }

    /**
     * After the cached packs are started: this launch is recorded as open (until
     * markLaunchSucceeded()), and each pack on trial counts it. Call with the lock held.
     */
    static void finishLaunchStart(RolloutClient c) {
        if (!c.state.launch.armed) return;
        DeviceState next = c.state.copy();
        TreeMap<String, LaunchGuard.Trial> trial = new TreeMap<>();
        for (LoadedPack pack : c.active.values()) {
            if (!next.launch.onTrial(pack.id())) continue;
            LaunchGuard.Trial t = next.launch.trial.get(pack.id().toString());
            if (t == null) t = new LaunchGuard.Trial(0, 0);
            t.launches += 1;
            trial.put(pack.id().toString(), t);
        }
        next.launch.trial = trial;
        LaunchGuard.OpenLaunch open = new LaunchGuard.OpenLaunch();
        open.locale = c.locale;
        open.day = Timestamp.format(Math.max(0, Math.min(Math.floorDiv(c.options.clock.millis(), 1000L), 253_402_300_799L)))
                .substring(0, 10);
        open.region = c.region;
        open.appVersion = c.appVersionText;
        open.active = new TreeMap<>(activeIds(c));
        next.launch.open = open;
        // Unwritten (a full disk), this launch is not counted: never a reason to stop the app.
        try {
            c.storage.write(DeviceState.FILE, next.bytes());
        } catch (IOException e) {
            return;
        }
        c.state = next;
    }
}
