package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The crash-loop guard's memory, kept in state.json (docs/client.md#activation-and-rollback-on-the-device).
 *
 * <p>A pack is <b>on trial</b> while it is active for its locale and differs from the pack that
 * was active there at the last markLaunchSucceeded(). Whatever path made it active
 * (activatePending, a pending pack promoted at start, a refresh replacing a dropped pack, the
 * fall-back of markActivePackFailed), it is judged the same way, with no hook on those paths.
 * A value: {@link #copy()} before changing one that is shared.
 */
final class LaunchGuard {
    /**
     * A launch that began and has not reached markLaunchSucceeded() (yet, or ever: found at the
     * next start, it is a launch that died).
     */
    static final class OpenLaunch {
        String locale;
        String day;
        String region;
        String appVersion;
        /** The app recorded a session during it: a failed launch then counts only its crash. */
        boolean session;
        /** Each locale's active pack when it began: what its markLaunchSucceeded() confirms. */
        TreeMap<String, String> active = new TreeMap<>();

        OpenLaunch copy() {
            OpenLaunch copy = new OpenLaunch();
            copy.locale = locale;
            copy.day = day;
            copy.region = region;
            copy.appVersion = appVersion;
            copy.session = session;
            copy.active = new TreeMap<>(active);
            return copy;
        }
    }

    static final class Trial {
        /** Launches begun with the pack active (the one it was activated in included). */
        long launches;
        /** Of those, launches that ended before markLaunchSucceeded(). */
        long failures;

        Trial(long launches, long failures) {
            this.launches = launches;
            this.failures = failures;
        }
    }

    /** Packs rolled back by the guard kept for status, most recent last. */
    static final int MAXIMUM_ROLLED_BACK = 32;
    /**
     * Packs a successful launch confirmed, kept so that one coming back (a revert to the baseline) is
     * not on trial again.
     */
    static final int MAXIMUM_GOOD = 64;

    /**
     * The app has called markLaunchSucceeded() once on this install: until then the guard neither
     * counts launches nor rolls anything back.
     */
    boolean armed;
    /** Each locale's active pack at the last successful launch (tr-TR -> tr-TR@17). */
    TreeMap<String, String> confirmed = new TreeMap<>();
    /** Packs a successful launch ever confirmed, most recent last. */
    List<String> good = new ArrayList<>();
    /** Packs on trial (tr-TR@18), pruned at each start to the active ones. */
    TreeMap<String, Trial> trial = new TreeMap<>();
    /** Or null. */
    OpenLaunch open;
    /** Packs the guard rolled back (also in the failed list, which is what keeps them away). */
    List<String> rolledBack = new ArrayList<>();
    /** Rollbacks ever made by the guard on this install. */
    long rollbacks;

    LaunchGuard() {}

    LaunchGuard copy() {
        LaunchGuard copy = new LaunchGuard();
        copy.armed = armed;
        copy.confirmed = new TreeMap<>(confirmed);
        copy.good = new ArrayList<>(good);
        for (Map.Entry<String, Trial> t : trial.entrySet()) {
            copy.trial.put(t.getKey(), new Trial(t.getValue().launches, t.getValue().failures));
        }
        copy.open = open == null ? null : open.copy();
        copy.rolledBack = new ArrayList<>(rolledBack);
        copy.rollbacks = rollbacks;
        return copy;
    }

    static LaunchGuard fromJson(Object json) {
        LaunchGuard guard = new LaunchGuard();
        Map<String, Object> o = Json.object(json);
        if (o == null) return guard;
        guard.armed = Boolean.TRUE.equals(Json.bool(o.get("armed")));
        guard.confirmed = strings(o.get("confirmed"));
        guard.good = stringList(o.get("good"));
        Map<String, Object> trials = Json.object(o.get("trial"));
        if (trials != null) {
            for (Map.Entry<String, Object> entry : trials.entrySet()) {
                Map<String, Object> t = Json.object(entry.getValue());
                Long launches = t == null ? null : Json.integer(t.get("launches"));
                Long failures = t == null ? null : Json.integer(t.get("failures"));
                if (launches != null && failures != null) guard.trial.put(entry.getKey(), new Trial(launches, failures));
            }
        }
        Map<String, Object> l = Json.object(o.get("open"));
        if (l != null) {
            OpenLaunch open = new OpenLaunch();
            open.locale = Json.string(l.get("locale"));
            open.day = Json.string(l.get("day"));
            open.region = Json.string(l.get("region"));
            open.appVersion = Json.string(l.get("appVersion"));
            if (open.locale != null && open.day != null && open.region != null && open.appVersion != null) {
                open.session = Boolean.TRUE.equals(Json.bool(l.get("session")));
                open.active = strings(l.get("active"));
                guard.open = open;
            }
        }
        guard.rolledBack = stringList(o.get("rolledBack"));
        Long rollbacks = Json.integer(o.get("rollbacks"));
        guard.rollbacks = rollbacks != null ? rollbacks : guard.rolledBack.size();
        return guard;
    }

    Map<String, Object> json() {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("armed", armed);
        o.put("confirmed", new TreeMap<String, Object>(confirmed));
        o.put("good", new ArrayList<Object>(good));
        Map<String, Object> trials = new TreeMap<>();
        for (Map.Entry<String, Trial> t : trial.entrySet()) {
            Map<String, Object> counts = new LinkedHashMap<>();
            counts.put("launches", t.getValue().launches);
            counts.put("failures", t.getValue().failures);
            trials.put(t.getKey(), counts);
        }
        o.put("trial", trials);
        o.put("rolledBack", new ArrayList<Object>(rolledBack));
        o.put("rollbacks", rollbacks);
        if (open != null) {
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("locale", open.locale);
            l.put("day", open.day);
            l.put("region", open.region);
            l.put("appVersion", open.appVersion);
            l.put("session", open.session);
            l.put("active", new TreeMap<String, Object>(open.active));
            o.put("open", l);
        }
        return o;
    }

    /**
     * A pack is on trial while no successful launch has confirmed it: it differs from its locale's
     * pack at the last one, and no earlier one confirmed it either.
     */
    boolean onTrial(PackId id) {
        return !id.toString().equals(confirmed.get(id.locale())) && !good.contains(id.toString());
    }

    /** A successful launch that began with {@code active}: those packs are good, the rest stay on trial. */
    void confirm(Map<String, String> active) {
        confirmed = new TreeMap<>(active);
        Collection<String> values = active.values();
        List<String> next = new ArrayList<>();
        for (String g : good) {
            if (!values.contains(g)) next.add(g);
        }
        next.addAll(new TreeSet<>(values));
        good = suffix(next, MAXIMUM_GOOD);
        TreeMap<String, Trial> kept = new TreeMap<>();
        for (Map.Entry<String, Trial> t : trial.entrySet()) {
            PackId id = PackIds.parse(t.getKey());
            if (id != null && onTrial(id)) kept.put(t.getKey(), t.getValue());
        }
        trial = kept;
    }

    static <T> List<T> suffix(List<T> list, int count) {
        return new ArrayList<>(list.subList(Math.max(0, list.size() - count), list.size()));
    }

    private static TreeMap<String, String> strings(Object json) {
        TreeMap<String, String> out = new TreeMap<>();
        Map<String, Object> o = Json.object(json);
        if (o == null) return out;
        for (Map.Entry<String, Object> entry : o.entrySet()) {
            String value = Json.string(entry.getValue());
            if (value != null) out.put(entry.getKey(), value);
        }
        return out;
    }

    static List<String> stringList(Object json) {
        List<String> out = new ArrayList<>();
        List<Object> items = Json.array(json);
        if (items == null) return out;
        for (Object item : items) {
            String value = Json.string(item);
            if (value != null) out.add(value);
        }
        return out;
    }
}
