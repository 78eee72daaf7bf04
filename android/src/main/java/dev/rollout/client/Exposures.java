package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The experiment side of a session (docs/experiments.md, "Exposures and conversions on a device"), behind a lock of
 * its own so that string() never takes the client's writers' lock: the device's assignment in its own locale's
 * experiment, this session's exposure and conversions, and the outcome rows counted and not yet moved into the device
 * state (RolloutClient.saveState moves them).
 *
 * <p>string() reads one volatile field, {@link #armed}: non-null only while a session is open, not yet exposed, and
 * the device is in an experiment. Only the read that exposes the session takes the lock.
 */
final class Exposures {
    /**
     * The device's place in one locale's experiment, as the newest verified manifest of that locale assigned it at a
     * refresh: the experiment's name, the assigned variant's pack, the varied keys and the metrics. Kept in state.json.
     */
    static final class Assignment {
        final String experiment;
        final PackId pack;
        /** Sorted. */
        final List<String> keys;
        /** The primary metric first. */
        final List<String> metrics;
        final Set<String> keySet;

        Assignment(String experiment, PackId pack, List<String> keys, List<String> metrics) {
            this.experiment = experiment;
            this.pack = pack;
            this.keys = Collections.unmodifiableList(new ArrayList<>(keys));
            this.metrics = Collections.unmodifiableList(new ArrayList<>(metrics));
            this.keySet = Collections.unmodifiableSet(new HashSet<>(keys));
        }

        /** The assignment {@code plan} gives this device, or null when it is not in the plan's experiment. */
        static Assignment of(Plan plan, String region, AppVersion appVersion, String installId) {
            Plan.Experiment.Variant variant = Resolution.assignment(plan, region, appVersion, installId);
            if (variant == null) return null;
            Plan.Experiment experiment = plan.experiment;
            return new Assignment(experiment.name, new PackId(plan.locale, variant.pack.contentVersion),
                    experiment.keys, experiment.metrics);
        }

        Map<String, Object> json() {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("name", experiment);
            o.put("pack", pack.toString());
            o.put("keys", new ArrayList<Object>(keys));
            o.put("metrics", new ArrayList<Object>(metrics));
            return o;
        }

        /** Null when it does not read back whole. */
        static Assignment fromJson(Object json) {
            Map<String, Object> o = Json.object(json);
            if (o == null) return null;
            String name = Json.string(o.get("name"));
            String packText = Json.string(o.get("pack"));
            PackId pack = packText == null ? null : PackIds.parse(packText);
            List<Object> keys = Json.array(o.get("keys"));
            List<Object> metrics = Json.array(o.get("metrics"));
            if (name == null || pack == null || keys == null || metrics == null) return null;
            return new Assignment(name, pack, LaunchGuard.stringList(keys), LaunchGuard.stringList(metrics));
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Assignment
                    && java.util.Arrays.equals(Json.canonical(json()), Json.canonical(((Assignment) other).json()));
        }

        @Override
        public int hashCode() {
            return experiment.hashCode() ^ pack.hashCode();
        }
    }

    private final Object lock = new Object();
    private final String region;
    private final String appVersion;

    // Guarded by lock.
    /** The own locale's assignment, or null: not in an experiment. */
    private Assignment assignment;
    /** recordSession() was called in this process: a session is open. */
    private boolean inSession;
    /** The row this session's exposure went to (its metric is the primary), or null: not exposed yet. */
    private Outcomes.Key exposed;
    /** The metrics of the experiment this session was exposed in. */
    private List<String> exposedMetrics = Collections.emptyList();
    /** Metrics converted in this session, counted or waiting for the exposure. */
    private final Set<String> converted = new TreeSet<>();
    /** Counted, not moved into the device state yet. */
    private Outcomes pending = new Outcomes();

    /** What string() checks: the assignment while a session is open and not exposed; null otherwise. */
    volatile Assignment armed;

    Exposures(String region, String appVersion) {
        this.region = region;
        this.appVersion = appVersion;
    }

    /** The own locale's assignment changed (a refresh, a locale change, the start). */
    void assign(Assignment next) {
        synchronized (lock) {
            assignment = next;
            rearm();
        }
    }

    Assignment assignment() {
        synchronized (lock) {
            return assignment;
        }
    }

    /** A new session: nothing exposed or converted in it yet. */
    void session() {
        synchronized (lock) {
            inSession = true;
            exposed = null;
            exposedMetrics = Collections.emptyList();
            converted.clear();
            rearm();
        }
    }

    private void rearm() {
        armed = inSession && exposed == null ? assignment : null;
    }

    /**
     * The first read of a varied key in this session: one exposure per metric of the experiment, and a conversion for
     * each metric already converted in the session. Returns whether it counted (the caller schedules a save).
     */
    boolean expose(Assignment seen, String day) {
        synchronized (lock) {
            // Another thread exposed the session meanwhile, or the assignment changed under the read.
            if (!inSession || exposed != null || assignment != seen) return false;
            exposed = new Outcomes.Key(day, seen.pack, region, appVersion, "");
            exposedMetrics = seen.metrics;
            for (String metric : seen.metrics) {
                pending.add(exposed.metric(metric), 1, converted.contains(metric) ? 1 : 0);
            }
            rearm();
            return true;
        }
    }

    /**
     * recordConversion(name): ignored unless the device is in an experiment that has this metric and a session is
     * open; at most once per session and name; counted now when the session is exposed, else when it is. Returns
     * whether a count changed (the caller schedules a save).
     */
    boolean convert(String name) {
        synchronized (lock) {
            if (!inSession || assignment == null || converted.contains(name)) return false;
            if (exposed == null) {
                if (assignment.metrics.contains(name)) converted.add(name);
                return false;
            }
            if (!exposedMetrics.contains(name)) return false;
            converted.add(name);
            pending.add(exposed.metric(name), 0, 1);
            return true;
        }
    }

    /** The rows counted and not yet in the device state; with {@code empty}, handed over. */
    Outcomes take(boolean empty) {
        synchronized (lock) {
            Outcomes taken = pending.copy();
            if (empty) pending = new Outcomes();
            return taken;
        }
    }
}
