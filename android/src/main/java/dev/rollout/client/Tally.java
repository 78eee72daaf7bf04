package dev.rollout.client;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What this process counted and has not written yet, in shards behind locks of their own, each
 * held for one map update: string() counts every lookup without touching the writers' lock, and
 * readers on different threads rarely meet on a shard. The region and app version are this
 * process's, added when the counts join the device state. The day is formatted once per UTC day and
 * shard, not per call.
 */
final class Tally {
    static final class Key {
        final String day;
        final PackId pack;

        Key(String day, PackId pack) {
            this.day = day;
            this.pack = pack;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).day.equals(day) && ((Key) o).pack.equals(pack);
        }

        @Override
        public int hashCode() {
            return Objects.hash(day, pack);
        }
    }

    private static final class Shard {
        final Map<Key, Counters.Counts> counts = new HashMap<>();
        long lookups;
        long dayStart = -1;
        String dayText = "";

        String day(long millis) {
            long seconds = Math.max(0, Math.min(millis / 1000, 253_402_300_799L));
            long start = seconds - seconds % 86_400;
            if (start != dayStart) {
                dayStart = start;
                dayText = Timestamp.format(start).substring(0, 10);
            }
            return dayText;
        }

        Counters.Counts at(long millis, PackId pack) {
            return counts.computeIfAbsent(new Key(day(millis), pack), k -> new Counters.Counts());
        }
    }

    private final Shard[] shards = new Shard[16];

    Tally() {
        for (int i = 0; i < shards.length; i++) shards[i] = new Shard();
    }

    private Shard shard() {
        return shards[(int) (Thread.currentThread().getId() & (shards.length - 1))];
    }

    /** Returns the lookups this thread's shard holds unwritten, for the save trigger. */
    long lookup(PackId pack, long millis, boolean fellBack) {
        Shard shard = shard();
        synchronized (shard) {
            Counters.Counts counts = shard.at(millis, pack);
            counts.lookups++;
            if (fellBack) counts.fallbacks++;
            return ++shard.lookups;
        }
    }

    void session(PackId pack, long millis) {
        Shard shard = shard();
        synchronized (shard) {
            shard.at(millis, pack).sessions++;
        }
    }

    void crash(PackId pack, long millis) {
        Shard shard = shard();
        synchronized (shard) {
            shard.at(millis, pack).crashes++;
        }
    }

    /** Lookups not written yet, over every shard. */
    long unsavedLookups() {
        long total = 0;
        for (Shard shard : shards) {
            synchronized (shard) {
                total += shard.lookups;
            }
        }
        return total;
    }

    /** Every shard's counts, summed; with {@code empty}, the shards are emptied in the same step. */
    Map<Key, Counters.Counts> take(boolean empty) {
        Map<Key, Counters.Counts> total = new HashMap<>();
        for (Shard shard : shards) {
            synchronized (shard) {
                for (Map.Entry<Key, Counters.Counts> entry : shard.counts.entrySet()) {
                    total.computeIfAbsent(entry.getKey(), k -> new Counters.Counts()).add(entry.getValue());
                }
                if (empty) {
                    shard.counts.clear();
                    shard.lookups = 0;
                }
            }
        }
        return total;
    }
}
