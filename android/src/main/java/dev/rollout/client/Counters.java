package dev.rollout.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Sessions, crashes, lookups and fallbacks per day, pack, region and app version, kept in the
 * device state so that a crash loses at most the lookups since the last save
 * (docs/client.md#counters). A value: {@link #copy()} before changing one that is shared.
 */
final class Counters {
    /**
     * One CSV row: the region and app version are those of the process that counted, so rows kept
     * across an app update still name the version the events happened on.
     */
    static final class Key implements Comparable<Key> {
        final String day;
        final PackId pack;
        final String region;
        final String appVersion;

        Key(String day, PackId pack, String region, String appVersion) {
            this.day = day;
            this.pack = pack;
            this.region = region;
            this.appVersion = appVersion;
        }

        @Override
        public int compareTo(Key other) {
            int c = day.compareTo(other.day);
            if (c == 0) c = pack.compareTo(other.pack);
            if (c == 0) c = region.compareTo(other.region);
            if (c == 0) c = appVersion.compareTo(other.appVersion);
            return c;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && compareTo((Key) o) == 0;
        }

        @Override
        public int hashCode() {
            return Objects.hash(day, pack, region, appVersion);
        }
    }

    /** The four counts of a row; mutable inside a Counters or a Tally shard only. */
    static final class Counts {
        long sessions;
        long crashes;
        long lookups;
        long fallbacks;

        Counts() {}

        Counts(long sessions, long crashes, long lookups, long fallbacks) {
            this.sessions = sessions;
            this.crashes = crashes;
            this.lookups = lookups;
            this.fallbacks = fallbacks;
        }

        Counts copy() {
            return new Counts(sessions, crashes, lookups, fallbacks);
        }

        void add(Counts other) {
            sessions += other.sessions;
            crashes += other.crashes;
            lookups += other.lookups;
            fallbacks += other.fallbacks;
        }

        long exposures(MetricKind kind) {
            return kind == MetricKind.CRASH ? sessions : lookups;
        }

        long events(MetricKind kind) {
            return kind == MetricKind.CRASH ? crashes : fallbacks;
        }
    }

    enum Event {
        SESSION,
        CRASH,
        LOOKUP,
        FALLBACK
    }

    /**
     * Rows kept at most; past it the oldest day's rows go first. At a few rows a day (one per pack
     * the device used), that is months of an app that never exports, and state.json stays under
     * about 30 KB.
     */
    static final int MAXIMUM_ROWS = 120;

    private final TreeMap<Key, Counts> rows = new TreeMap<>();

    Counters() {}

    Counters copy() {
        Counters copy = new Counters();
        for (Map.Entry<Key, Counts> row : rows.entrySet()) copy.rows.put(row.getKey(), row.getValue().copy());
        return copy;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    void record(Event event, Key key) {
        boolean isNew = !rows.containsKey(key);
        Counts counts = rows.computeIfAbsent(key, k -> new Counts());
        switch (event) {
            case SESSION:
                counts.sessions++;
                break;
            case CRASH:
                counts.crashes++;
                break;
            case LOOKUP:
                counts.lookups++;
                break;
            case FALLBACK:
                counts.lookups++;
                counts.fallbacks++;
                break;
        }
        if (isNew) trim();
    }

    /**
     * The CSV {@code rollout metrics ingest --kind KIND} reads (docs/metrics.md): a header, then one
     * row per day, pack, region and app version with exposures. Events never exceed exposures
     * (ingest refuses such a row); a crash counted without its session is the only way there.
     */
    String csv(MetricKind kind) {
        StringBuilder text = new StringBuilder("date,locale,pack,region,app_version,")
                .append(kind.exposures).append(',').append(kind.events).append('\n');
        for (Map.Entry<Key, Counts> row : rows.entrySet()) {
            Key key = row.getKey();
            long total = row.getValue().exposures(kind);
            if (total <= 0) continue;
            long happened = Math.min(row.getValue().events(kind), total);
            text.append(field(key.day)).append(',').append(field(key.pack.locale())).append(',')
                    .append(field(key.pack.toString())).append(',').append(field(key.region)).append(',')
                    .append(field(key.appVersion)).append(',').append(total).append(',').append(happened).append('\n');
        }
        return text.toString();
    }

    /**
     * A field as RFC 4180 writes it: quoted, with its quotes doubled, when it holds a comma, a quote
     * or a line break (a region the app got wrong), so the row keeps its columns and ingest names
     * the bad value.
     */
    static String field(String text) {
        if (text.indexOf(',') < 0 && text.indexOf('"') < 0 && text.indexOf('\n') < 0 && text.indexOf('\r') < 0) {
            return text;
        }
        return '"' + text.replace("\"", "\"\"") + '"';
    }

    /** Adds counts kept in memory (see Tally) under this process's region and app version. */
    void add(Map<Tally.Key, Counts> tally, String region, String appVersion) {
        for (Map.Entry<Tally.Key, Counts> entry : tally.entrySet()) {
            Key row = new Key(entry.getKey().day, entry.getKey().pack, region, appVersion);
            Counts sum = rows.get(row);
            if (sum == null) {
                rows.put(row, entry.getValue().copy());
                trim();
            } else {
                sum.add(entry.getValue());
            }
        }
    }

    private void trim() {
        while (rows.size() > MAXIMUM_ROWS) rows.pollFirstEntry();
    }

    // In state.json

    List<Object> json() {
        List<Object> out = new ArrayList<>();
        for (Map.Entry<Key, Counts> row : rows.entrySet()) {
            Key key = row.getKey();
            Counts c = row.getValue();
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("day", key.day);
            o.put("pack", key.pack.toString());
            o.put("region", key.region);
            o.put("appVersion", key.appVersion);
            o.put("sessions", c.sessions);
            o.put("crashes", c.crashes);
            o.put("lookups", c.lookups);
            o.put("fallbacks", c.fallbacks);
            out.add(o);
        }
        return out;
    }

    /** Rows that do not read back whole are left out: a count is never guessed. */
    static Counters fromJson(Object json) {
        Counters counters = new Counters();
        List<Object> rows = Json.array(json);
        if (rows == null) return counters;
        for (Object row : rows) {
            Map<String, Object> o = Json.object(row);
            if (o == null) continue;
            String day = Json.string(o.get("day"));
            String packText = Json.string(o.get("pack"));
            PackId pack = packText == null ? null : PackIds.parse(packText);
            String region = Json.string(o.get("region"));
            String appVersion = Json.string(o.get("appVersion"));
            Long sessions = Json.integer(o.get("sessions"));
            Long crashes = Json.integer(o.get("crashes"));
            Long lookups = Json.integer(o.get("lookups"));
            Long fallbacks = Json.integer(o.get("fallbacks"));
            if (day == null || pack == null || region == null || appVersion == null || sessions == null
                    || crashes == null || lookups == null || fallbacks == null) continue;
            if (sessions < 0 || crashes < 0 || lookups < 0 || fallbacks < 0) continue;
            counters.rows.put(new Key(day, pack, region, appVersion), new Counts(sessions, crashes, lookups, fallbacks));
        }
        return counters;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof Counters)) return false;
        return java.util.Arrays.equals(Json.canonical(json()), Json.canonical(((Counters) other).json()));
    }

    @Override
    public int hashCode() {
        return rows.size();
    }
}
