package dev.rollout.client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the device remembers between launches, in state.json: the same members as the Swift
 * client's DeviceState, so either reads the other's cache. A mutable value under the client's
 * writers' lock: {@link #copy()} it, change the copy, write it, then keep it.
 */
final class DeviceState {
    static final String FILE = "state.json";
    static final String FORMAT = "rollout-device/1";

    /** The index sequence last accepted: an older index is a replay. */
    long indexSequence;
    /** Each locale's chain from the last index, so a locale switched offline reads the right chain. */
    TreeMap<String, List<String>> chains = new TreeMap<>();
    /**
     * The chains of kill-switched locales as if the switch were off, and the index's default locale:
     * what SiteIndex.chain needs for a locale the index does not list.
     */
    TreeMap<String, List<String>> fallbackChains = new TreeMap<>();
    /** Or null. */
    String defaultLocale;
    /** Content versions the manifests block, per locale: never used again, even offline. */
    TreeMap<String, List<Integer>> blocked = new TreeMap<>();
    /** Packs the app marked failed (tr-TR@18). */
    TreeSet<String> failed = new TreeSet<>();
    /** Locales whose kill switch was on in the last manifest seen: nothing of theirs is used. */
    TreeSet<String> killed = new TreeSet<>();
    /**
     * When the last refresh round whose index and manifests verified began (UTC seconds), or null:
     * the minimum refresh interval holds across launches.
     */
    Long lastRefresh;
    /**
     * The pending packs a refresh round committed (tr-TR@18): a pending file not listed here is what
     * a killed round left half-staged, and is never activated (docs/client.md, Refresh).
     */
    TreeSet<String> staged = new TreeSet<>();
    /**
     * Each locale's bundle-only key patterns from the last manifest seen: a cached pack that came
     * with an older manifest never shows those keys either.
     */
    TreeMap<String, List<String>> bundleOnly = new TreeMap<>();
    /** Counts not exported yet (docs/client.md#counters). */
    Counters counters = new Counters();
    /** The experiment variant the own locale's last verified manifest puts the device in, or null: none. */
    ExperimentAssignment experiment;
    /** Exposures and conversions not exported yet, and the session's memory of them (docs/experiments.md). */
    Outcomes outcomes = new Outcomes();
    /** The crash-loop guard's memory. */
    LaunchGuard launch = new LaunchGuard();
    /**
     * The newest key list the device accepted, or null: kept as the list's canonical JSON and parsed
     * again on load; one that does not parse is none.
     */
    KeyList keyList;
    /**
     * The roots the app built in when it accepted keyList, or null: not recorded (an app before this
     * field), the list's roots count.
     */
    KeyList.Roots anchoredTo;
    /** When the accepted index expires (UTC seconds), or null: past it the device is stale (its packs stay). */
    Long indexExpires;

    DeviceState() {}

    DeviceState copy() {
        DeviceState c = new DeviceState();
        c.indexSequence = indexSequence;
        c.chains = copyLists(chains);
        c.fallbackChains = copyLists(fallbackChains);
        c.defaultLocale = defaultLocale;
        c.blocked = new TreeMap<>();
        for (Map.Entry<String, List<Integer>> e : blocked.entrySet()) {
            c.blocked.put(e.getKey(), new ArrayList<>(e.getValue()));
        }
        c.failed = new TreeSet<>(failed);
        c.killed = new TreeSet<>(killed);
        c.lastRefresh = lastRefresh;
        c.staged = new TreeSet<>(staged);
        c.bundleOnly = copyLists(bundleOnly);
        c.counters = counters.copy();
        c.experiment = experiment;
        c.outcomes = outcomes.copy();
        c.launch = launch.copy();
        c.keyList = keyList;
        c.anchoredTo = anchoredTo;
        c.indexExpires = indexExpires;
        return c;
    }

    private static TreeMap<String, List<String>> copyLists(Map<String, List<String>> lists) {
        TreeMap<String, List<String>> copy = new TreeMap<>();
        for (Map.Entry<String, List<String>> e : lists.entrySet()) copy.put(e.getKey(), new ArrayList<>(e.getValue()));
        return copy;
    }

    /** The state in {@code bytes}, or null when there is none or it is not a state this client reads. */
    static DeviceState parse(byte[] bytes) {
        if (bytes == null) return null;
        Map<String, Object> o;
        try {
            o = Json.object(Json.parse(bytes));
        } catch (JsonException e) {
            return null;
        }
        if (o == null || !FORMAT.equals(Json.string(o.get("format")))) return null;
        Long sequence = Json.integer(o.get("indexSequence"));
        Map<String, Object> chains = Json.object(o.get("chains"));
        Map<String, Object> blocked = Json.object(o.get("blocked"));
        List<Object> failed = Json.array(o.get("failed"));
        if (sequence == null || chains == null || blocked == null || failed == null) return null;
        DeviceState s = new DeviceState();
        s.indexSequence = sequence;
        s.chains = stringLists(chains);
        for (Map.Entry<String, Object> e : blocked.entrySet()) {
            List<Integer> versions = new ArrayList<>();
            List<Object> items = Json.array(e.getValue());
            if (items != null) {
                for (Object item : items) {
                    Long v = Json.integer(item);
                    if (v != null && v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) versions.add(v.intValue());
                }
            }
            s.blocked.put(e.getKey(), versions);
        }
        s.failed = new TreeSet<>(LaunchGuard.stringList(failed));
        s.killed = new TreeSet<>(LaunchGuard.stringList(o.get("killed")));
        s.lastRefresh = Json.integer(o.get("lastRefresh"));
        s.staged = new TreeSet<>(LaunchGuard.stringList(o.get("staged")));
        Map<String, Object> fallbackChains = Json.object(o.get("fallbackChains"));
        if (fallbackChains != null) s.fallbackChains = stringLists(fallbackChains);
        s.defaultLocale = Json.string(o.get("defaultLocale"));
        Map<String, Object> bundleOnly = Json.object(o.get("bundleOnly"));
        if (bundleOnly != null) s.bundleOnly = stringLists(bundleOnly);
        // Absent in a state written before they existed: no counts, the guard not armed yet.
        s.counters = Counters.fromJson(o.get("counters"));
        s.launch = LaunchGuard.fromJson(o.get("launch"));
        // Absent in a state written before experiments: no assignment until the next refresh, no rows, no session.
        s.experiment = ExperimentAssignment.fromJson(o.get("experiment"));
        s.outcomes = Outcomes.fromJson(o.get("outcomes"), o.get("outcomeSession"));
        String keyList = Json.string(o.get("keyList"));
        if (keyList != null) {
            try {
                s.keyList = KeyList.parse(keyList.getBytes(StandardCharsets.UTF_8), "state.json keyList");
            } catch (DocumentException e) {
                // One that does not parse is none: the next refresh walks from the roots the app built in.
            }
        }
        String expires = Json.string(o.get("indexExpires"));
        if (expires != null) s.indexExpires = Timestamp.parse(expires);
        Object anchoredTo = o.get("anchoredTo");
        if (anchoredTo != null) s.anchoredTo = roots(anchoredTo);
        return s;
    }

    private static TreeMap<String, List<String>> stringLists(Map<String, Object> o) {
        TreeMap<String, List<String>> out = new TreeMap<>();
        for (Map.Entry<String, Object> e : o.entrySet()) out.put(e.getKey(), LaunchGuard.stringList(e.getValue()));
        return out;
    }

    /**
     * {"threshold": n, "keys": {id: "ed25519:..."}}, as a key list writes its roots; null when a key
     * does not parse or is filed under another id.
     */
    static KeyList.Roots roots(Object json) {
        Map<String, Object> o = Json.object(json);
        if (o == null) return null;
        Long threshold = Json.integer(o.get("threshold"));
        Map<String, Object> keys = Json.object(o.get("keys"));
        if (threshold == null || keys == null) return null;
        List<Ed25519.PublicKey> parsed = new ArrayList<>();
        for (Map.Entry<String, Object> e : keys.entrySet()) {
            String text = Json.string(e.getValue());
            Ed25519.PublicKey key = text == null ? null : Ed25519.PublicKey.parse(text);
            if (key == null || !key.id().equals(e.getKey())) return null;
            parsed.add(key);
        }
        return new KeyList.Roots(parsed, threshold);
    }

    static Map<String, Object> json(KeyList.Roots roots) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("threshold", roots.threshold);
        Map<String, Object> keys = new TreeMap<>();
        for (Map.Entry<String, Ed25519.PublicKey> key : roots.keys.entrySet()) {
            keys.put(key.getKey(), key.getValue().text());
        }
        o.put("keys", keys);
        return o;
    }

    byte[] bytes() {
        Map<String, Object> m = new TreeMap<>();
        m.put("format", FORMAT);
        m.put("indexSequence", indexSequence);
        m.put("chains", lists(chains));
        Map<String, Object> b = new TreeMap<>();
        for (Map.Entry<String, List<Integer>> e : blocked.entrySet()) {
            List<Object> versions = new ArrayList<>();
            for (Integer v : e.getValue()) versions.add((long) v);
            b.put(e.getKey(), versions);
        }
        m.put("blocked", b);
        m.put("failed", new ArrayList<Object>(failed));
        m.put("killed", new ArrayList<Object>(killed));
        m.put("staged", new ArrayList<Object>(staged));
        m.put("counters", counters.json());
        m.put("launch", launch.json());
        if (!fallbackChains.isEmpty()) m.put("fallbackChains", lists(fallbackChains));
        if (defaultLocale != null) m.put("defaultLocale", defaultLocale);
        if (lastRefresh != null) m.put("lastRefresh", lastRefresh);
        if (keyList != null) m.put("keyList", new String(keyList.bytes(), StandardCharsets.UTF_8));
        if (anchoredTo != null) m.put("anchoredTo", json(anchoredTo));
        if (indexExpires != null) m.put("indexExpires", Timestamp.format(indexExpires));
        if (!bundleOnly.isEmpty()) m.put("bundleOnly", lists(bundleOnly));
        // Absent without an experiment, so a device that never saw one writes what it always wrote.
        if (experiment != null) m.put("experiment", experiment.json());
        if (outcomes.hasRows()) m.put("outcomes", outcomes.rowsJson());
        Map<String, Object> session = outcomes.sessionJson();
        if (session != null) m.put("outcomeSession", session);
        return Json.pretty(m);
    }

    private static Map<String, Object> lists(Map<String, List<String>> lists) {
        Map<String, Object> o = new TreeMap<>();
        for (Map.Entry<String, List<String>> e : lists.entrySet()) o.put(e.getKey(), new ArrayList<Object>(e.getValue()));
        return o;
    }

    /** Two states are the same when they write the same file. */
    @Override
    public boolean equals(Object other) {
        return other instanceof DeviceState && Arrays.equals(bytes(), ((DeviceState) other).bytes());
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes());
    }
}
