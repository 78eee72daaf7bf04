package dev.rollout.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Exposures and conversions of an experiment per day, assigned variant, region, app version and metric
 * (docs/experiments.md), kept in the device state beside the crash and fallback counters and exported as
 * the outcome CSV. A value: {@link #copy()} before changing one that is shared.
 */
final class Outcomes {
    /** One CSV row; the region and app version are those of the process that counted. */
    static final class Key implements Comparable<Key> {
        final String day;
        /** The variant the device is assigned to (intention to treat), not necessarily the pack it shows. */
        final PackId pack;
        final String region;
        final String appVersion;
        final String metric;

        Key(String day, PackId pack, String region, String appVersion, String metric) {
            this.day = day;
            this.pack = pack;
            this.region = region;
            this.appVersion = appVersion;
            this.metric = metric;
        }

        Key metric(String other) {
            return new Key(day, pack, region, appVersion, other);
        }

        @Override
        public int compareTo(Key other) {
            int c = day.compareTo(other.day);
            if (c == 0) c = pack.compareTo(other.pack);
            if (c == 0) c = region.compareTo(other.region);
            if (c == 0) c = appVersion.compareTo(other.appVersion);
            if (c == 0) c = metric.compareTo(other.metric);
            return c;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && compareTo((Key) o) == 0;
        }

        @Override
        public int hashCode() {
            return Objects.hash(day, pack, region, appVersion, metric);
        }
    }

    /** Rows kept at most, as Counters.MAXIMUM_ROWS; past it the oldest day's rows go first. */
    static final int MAXIMUM_ROWS = 120;

    /** The outcome CSV's header (rollout metrics ingest --kind outcome). */
    static final String HEADER = "date,locale,pack,region,app_version,metric,exposures,conversions\n";

    /** Per row: exposures, conversions. */
    private final TreeMap<Key, long[]> rows = new TreeMap<>();

    Outcomes() {}

    Outcomes copy() {
        Outcomes copy = new Outcomes();
        for (Map.Entry<Key, long[]> row : rows.entrySet()) copy.rows.put(row.getKey(), row.getValue().clone());
        return copy;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    /** Adds to one row. */
    void add(Key key, long exposures, long conversions) {
        long[] counts = rows.get(key);
        if (counts == null) {
            rows.put(key, new long[] {exposures, conversions});
            trim();
        } else {
            counts[0] += exposures;
            counts[1] += conversions;
        }
    }

    /** Adds every row of {@code other}. */
    void add(Outcomes other) {
        for (Map.Entry<Key, long[]> row : other.rows.entrySet()) add(row.getKey(), row.getValue()[0], row.getValue()[1]);
    }

    long exposures(Key key) {
        long[] counts = rows.get(key);
        return counts == null ? 0 : counts[0];
    }

    long conversions(Key key) {
        long[] counts = rows.get(key);
        return counts == null ? 0 : counts[1];
    }

    /**
     * The outcome CSV {@code rollout metrics ingest --kind outcome} reads: the header, then one row per day, pack,
     * region, app version and metric with exposures, sorted by those, fields quoted as the other CSVs (Counters.field).
     * Conversions never exceed exposures: a row without exposures (its exposure reset meanwhile) is not written.
     */
    String csv() {
        StringBuilder text = new StringBuilder(HEADER);
        for (Map.Entry<Key, long[]> row : rows.entrySet()) {
            Key key = row.getKey();
            long exposures = row.getValue()[0];
            if (exposures <= 0) continue;
            long conversions = Math.min(row.getValue()[1], exposures);
            text.append(Counters.field(key.day)).append(',').append(Counters.field(key.pack.locale())).append(',')
                    .append(Counters.field(key.pack.toString())).append(',').append(Counters.field(key.region))
                    .append(',').append(Counters.field(key.appVersion)).append(',').append(Counters.field(key.metric))
                    .append(',').append(exposures).append(',').append(conversions).append('\n');
        }
        return text.toString();
    }

    private void trim() {
        while (rows.size() > MAXIMUM_ROWS) rows.pollFirstEntry();
    }

    // In state.json

    List<Object> json() {
        List<Object> out = new ArrayList<>();
        for (Map.Entry<Key, long[]> row : rows.entrySet()) {
            Key key = row.getKey();
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("day", key.day);
            o.put("pack", key.pack.toString());
            o.put("region", key.region);
            o.put("appVersion", key.appVersion);
            o.put("metric", key.metric);
            o.put("exposures", row.getValue()[0]);
            o.put("conversions", row.getValue()[1]);
            out.add(o);
        }
        return out;
    }

    /** Rows that do not read back whole are left out: a count is never guessed. Absent: none. */
    static Outcomes fromJson(Object json) {
        Outcomes outcomes = new Outcomes();
        List<Object> rows = Json.array(json);
        if (rows == null) return outcomes;
        for (Object row : rows) {
            Map<String, Object> o = Json.object(row);
            if (o == null) continue;
            String day = Json.string(o.get("day"));
            String packText = Json.string(o.get("pack"));
            PackId pack = packText == null ? null : PackIds.parse(packText);
            String region = Json.string(o.get("region"));
            String appVersion = Json.string(o.get("appVersion"));
            String metric = Json.string(o.get("metric"));
            Long exposures = Json.integer(o.get("exposures"));
            Long conversions = Json.integer(o.get("conversions"));
            if (day == null || pack == null || region == null || appVersion == null || metric == null
                    || exposures == null || conversions == null || exposures < 0 || conversions < 0) {
                continue;
            }
            outcomes.rows.put(new Key(day, pack, region, appVersion, metric), new long[] {exposures, conversions});
        }
        outcomes.trim();
        return outcomes;
    }
}
