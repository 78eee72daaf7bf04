package dev.rollout.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Exposures and conversions per day, variant, region, app version and metric, and what the current session has done
 * (docs/experiments.md): the Swift client's Outcomes, kept in the device state like {@link Counters} and bounded the
 * same way; in state.json as {@code outcomes} (the rows) and {@code outcomeSession}. A value: {@link #copy()} before
 * changing one that is shared.
 */
final class Outcomes {
    /**
     * Where a session's exposure was counted: its conversions go to the same rows, so that a session that crosses
     * midnight never puts a conversion in a row without its exposure.
     */
    static final class Place {
        final String day;
        final String region;
        final String appVersion;

        Place(String day, String region, String appVersion) {
            this.day = day;
            this.region = region;
            this.appVersion = appVersion;
        }
    }

    /**
     * One CSV row: a counters row's day, pack, region and app version (the pack is the variant the
     * device is assigned to, intention to treat, not necessarily the pack it shows), and the metric.
     */
    static final class Key implements Comparable<Key> {
        final Counters.Key where;
        final String metric;

        Key(Place place, PackId pack, String metric) {
            this.where = new Counters.Key(place.day, pack, place.region, place.appVersion);
            this.metric = metric;
        }

        @Override
        public int compareTo(Key other) {
            int c = where.compareTo(other.where);
            return c != 0 ? c : metric.compareTo(other.metric);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && compareTo((Key) o) == 0;
        }

        @Override
        public int hashCode() {
            return Objects.hash(where, metric);
        }
    }

    /** From one recordSession() to the next: whether it was exposed, and the metrics it converted, for {@code tag}. */
    static final class Session {
        /** Or null: no assignment seen in this session yet. */
        ExperimentAssignment.Tag tag;
        /** Or null: not exposed. */
        Place exposed;
        final TreeSet<String> converted = new TreeSet<>();

        Session copy() {
            Session c = new Session();
            c.tag = tag;
            c.exposed = exposed;
            c.converted.addAll(converted);
            return c;
        }
    }

    /** The outcome CSV's header (rollout metrics ingest --kind outcome). */
    static final String HEADER = "date,locale,pack,region,app_version,metric,exposures,conversions\n";
    /** As Counters.MAXIMUM_ROWS: past it the oldest day's rows go first. */
    static final int MAXIMUM_ROWS = 120;

    /** Per row: exposures, conversions. */
    private TreeMap<Key, long[]> rows = new TreeMap<>();
    /** Null before the process's first recordSession() (unless Options.continuesSession). */
    Session session;

    Outcomes() {}

    Outcomes copy() {
        Outcomes copy = new Outcomes();
        for (Map.Entry<Key, long[]> row : rows.entrySet()) copy.rows.put(row.getKey(), row.getValue().clone());
        copy.session = session == null ? null : session.copy();
        return copy;
    }

    boolean isEmpty() {
        return rows.isEmpty() && session == null;
    }

    boolean hasRows() {
        return !rows.isEmpty();
    }

    void startSession() {
        session = new Session();
    }

    void resetRows() {
        rows = new TreeMap<>();
    }

    /** The session's memory for {@code assignment}, emptied when it was another assignment's; null: no session. */
    private Session memory(ExperimentAssignment assignment) {
        if (session == null) return null;
        if (!Objects.equals(session.tag, assignment.tag)) {
            Session fresh = new Session();
            fresh.tag = assignment.tag;
            return fresh;
        }
        return session;
    }

    /**
     * A string(key) of a varied key: the session's exposure, unless it had one: an exposure of every metric, and a
     * conversion of each metric converted already in the session. Returns true when something was counted.
     */
    boolean expose(ExperimentAssignment assignment, Place here) {
        Session current = memory(assignment);
        if (current == null || current.exposed != null) return false;
        current.exposed = here;
        session = current;
        for (String metric : assignment.metrics) {
            add(new Key(here, assignment.tag.pack, metric), 1, current.converted.contains(metric) ? 1 : 0);
        }
        return true;
    }

    /**
     * recordConversion(name): counted once a session, now if the session is exposed, at its exposure otherwise.
     * Returns false when ignored (no session, a name that is not one of the experiment's metrics, or converted already
     * in this session).
     */
    boolean convert(String name, ExperimentAssignment assignment) {
        if (!assignment.metrics.contains(name)) return false;
        Session current = memory(assignment);
        if (current == null || current.converted.contains(name)) return false;
        current.converted.add(name);
        session = current;
        // Only into the row that holds the exposure: one reset or trimmed away since is not made again with a
        // conversion alone, which a later exposure on that row would then seem to have.
        long[] counts = current.exposed == null ? null : rows.get(new Key(current.exposed, assignment.tag.pack, name));
        if (counts != null) counts[1]++;
        return true;
    }

    private void add(Key key, long exposures, long conversions) {
        long[] counts = rows.get(key);
        if (counts != null) {
            counts[0] += exposures;
            counts[1] += conversions;
            return;
        }
        rows.put(key, new long[] {exposures, conversions});
        while (rows.size() > MAXIMUM_ROWS) rows.pollFirstEntry();
    }

    long exposures(Key key) {
        long[] counts = rows.get(key);
        return counts == null ? 0 : counts[0];
    }

    /**
     * The outcome CSV {@code rollout metrics ingest --kind outcome} reads (docs/metrics.md): rows of every metric, or of
     * {@code metric} only (null: every one), sorted by day, pack, region, app version and metric, fields quoted as the
     * other CSVs (Counters.field). A row without exposures (its exposure was reset or trimmed away) is not written, and
     * conversions never exceed exposures.
     */
    String csv(String metric) {
        StringBuilder text = new StringBuilder(HEADER);
        for (Map.Entry<Key, long[]> row : rows.entrySet()) {
            Key key = row.getKey();
            long exposures = row.getValue()[0];
            if (exposures <= 0 || (metric != null && !key.metric.equals(metric))) continue;
            long conversions = Math.min(row.getValue()[1], exposures);
            text.append(Counters.field(key.where.day)).append(',').append(Counters.field(key.where.pack.locale())).append(',')
                    .append(Counters.field(key.where.pack.toString())).append(',').append(Counters.field(key.where.region))
                    .append(',').append(Counters.field(key.where.appVersion)).append(',').append(Counters.field(key.metric))
                    .append(',').append(exposures).append(',').append(conversions).append('\n');
        }
        return text.toString();
    }

    // In state.json

    private static Map<String, Object> json(Place place) {
        Map<String, Object> o = new TreeMap<>();
        o.put("day", place.day);
        o.put("region", place.region);
        o.put("appVersion", place.appVersion);
        return o;
    }

    private static Place place(Map<String, Object> o) {
        String day = Json.string(o.get("day"));
        String region = Json.string(o.get("region"));
        String appVersion = Json.string(o.get("appVersion"));
        return day == null || region == null || appVersion == null ? null : new Place(day, region, appVersion);
    }

    /** state.json's {@code outcomes}. */
    List<Object> rowsJson() {
        List<Object> out = new ArrayList<>();
        for (Map.Entry<Key, long[]> row : rows.entrySet()) {
            Key key = row.getKey();
            Map<String, Object> o = json(new Place(key.where.day, key.where.region, key.where.appVersion));
            o.put("pack", key.where.pack.toString());
            o.put("metric", key.metric);
            o.put("exposures", row.getValue()[0]);
            o.put("conversions", row.getValue()[1]);
            out.add(o);
        }
        return out;
    }

    /** state.json's {@code outcomeSession}, or null: no session. */
    Map<String, Object> sessionJson() {
        if (session == null) return null;
        Map<String, Object> o = new TreeMap<>();
        o.put("converted", new ArrayList<Object>(session.converted));
        if (session.tag != null) {
            o.put("name", session.tag.name);
            o.put("salt", session.tag.salt);
            o.put("pack", session.tag.pack.toString());
        }
        if (session.exposed != null) o.put("exposed", json(session.exposed));
        return o;
    }

    /**
     * {@code outcomes} (the rows) and {@code outcomeSession} of state.json; absent in a state written before
     * experiments. Rows that do not read back whole are left out, as Counters does.
     */
    static Outcomes fromJson(Object rowsJson, Object sessionJson) {
        Outcomes outcomes = new Outcomes();
        List<Object> rows = Json.array(rowsJson);
        for (Object row : rows == null ? Collections.emptyList() : rows) {
            Map<String, Object> o = Json.object(row);
            Place place = o == null ? null : place(o);
            String packText = o == null ? null : Json.string(o.get("pack"));
            PackId pack = packText == null ? null : PackIds.parse(packText);
            String metric = o == null ? null : Json.string(o.get("metric"));
            Long exposures = o == null ? null : Json.integer(o.get("exposures"));
            Long conversions = o == null ? null : Json.integer(o.get("conversions"));
            if (place == null || pack == null || metric == null || exposures == null || conversions == null
                    || exposures < 0 || conversions < 0) {
                continue;
            }
            outcomes.rows.put(new Key(place, pack, metric), new long[] {exposures, conversions});
        }
        Map<String, Object> s = Json.object(sessionJson);
        if (s == null) return outcomes;
        Session memory = new Session();
        memory.converted.addAll(LaunchGuard.stringList(s.get("converted")));
        String name = Json.string(s.get("name"));
        String salt = Json.string(s.get("salt"));
        String packText = Json.string(s.get("pack"));
        PackId pack = packText == null ? null : PackIds.parse(packText);
        if (name != null && salt != null && pack != null) memory.tag = new ExperimentAssignment.Tag(name, salt, pack);
        Map<String, Object> exposed = Json.object(s.get("exposed"));
        if (exposed != null) memory.exposed = place(exposed);
        outcomes.session = memory;
        return outcomes;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof Outcomes)) return false;
        Outcomes that = (Outcomes) other;
        return rowsJson().equals(that.rowsJson()) && Objects.equals(sessionJson(), that.sessionJson());
    }

    @Override
    public int hashCode() {
        return rows.size();
    }
}
