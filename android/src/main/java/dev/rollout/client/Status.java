package dev.rollout.client;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What the device has and knows, for support screens, logs and {@code rollout device status}.
 * Counters are read with {@link RolloutClient#metricsCsv(MetricKind)}.
 */
public final class Status {
    /** The packs of one locale in the cache. */
    public static final class Slots {
        private final PackId active;
        private final PackId pending;
        private final PackId previous;

        Slots(PackId active, PackId pending, PackId previous) {
            this.active = active;
            this.pending = pending;
            this.previous = previous;
        }

        /** In use, or null: this locale's bundled strings, or the next locale of the chain. */
        @Nullable
        public PackId active() {
            return active;
        }

        /** Verified by a committed refresh round, waiting for activatePending() or the next start; or null. */
        @Nullable
        public PackId pending() {
            return pending;
        }

        /** The last good pack before active, what a rollback returns to; or null. */
        @Nullable
        public PackId previous() {
            return previous;
        }

        boolean isEmpty() {
            return active == null && pending == null && previous == null;
        }

        @Override
        public boolean equals(@Nullable Object other) {
            if (!(other instanceof Slots)) return false;
            Slots that = (Slots) other;
            return Objects.equals(active, that.active) && Objects.equals(pending, that.pending)
                    && Objects.equals(previous, that.previous);
        }

        @Override
        public int hashCode() {
            return Objects.hash(active, pending, previous);
        }

        @NonNull
        @Override
        public String toString() {
            return "{active=" + active + ", pending=" + pending + ", previous=" + previous + "}";
        }
    }

    /** The experiment variant a device is in (docs/experiments.md). */
    public static final class Experiment {
        private final String name;
        private final PackId pack;
        private final boolean control;
        private final List<String> keys;
        private final List<String> metrics;

        Experiment(ExperimentAssignment assignment) {
            this.name = assignment.tag.name;
            this.pack = assignment.tag.pack;
            this.control = assignment.isControl;
            this.keys = Collections.unmodifiableList(assignment.sortedKeys());
            this.metrics = assignment.metrics;
        }

        @NonNull
        public String name() {
            return name;
        }

        /** The assigned variant, active or not. */
        @NonNull
        public PackId pack() {
            return pack;
        }

        /** The variant is the experiment's control. */
        public boolean isControl() {
            return control;
        }

        /** The keys whose first lookup in a session is its exposure, sorted. */
        @NonNull
        public List<String> keys() {
            return keys;
        }

        /** The conversions it counts, the primary first. */
        @NonNull
        public List<String> metrics() {
            return metrics;
        }

        @NonNull
        @Override
        public String toString() {
            return "{name=" + name + ", pack=" + pack + ", control=" + control + ", keys=" + keys + ", metrics="
                    + metrics + "}";
        }
    }

    private final String locale;
    private final List<String> chain;
    private final Map<String, Slots> packs;
    private final List<PackId> failed;
    private final Map<String, List<Integer>> blocked;
    private final List<String> killed;
    private final long indexSequence;
    private final Instant lastRefresh;
    private final LaunchStatus launch;
    private final Long keysVersion;
    private final Instant indexExpires;
    private final boolean stale;
    private final Experiment experiment;

    Status(String locale, List<String> chain, Map<String, Slots> packs, List<PackId> failed,
            Map<String, List<Integer>> blocked, List<String> killed, long indexSequence, Instant lastRefresh,
            LaunchStatus launch, Long keysVersion, Instant indexExpires, boolean stale, Experiment experiment) {
        this.experiment = experiment;
        this.locale = locale;
        this.chain = Collections.unmodifiableList(new ArrayList<>(chain));
        this.packs = Collections.unmodifiableMap(new TreeMap<>(packs));
        this.failed = Collections.unmodifiableList(new ArrayList<>(failed));
        this.blocked = Collections.unmodifiableMap(new TreeMap<>(blocked));
        this.killed = Collections.unmodifiableList(new ArrayList<>(killed));
        this.indexSequence = indexSequence;
        this.lastRefresh = lastRefresh;
        this.launch = launch;
        this.keysVersion = keysVersion;
        this.indexExpires = indexExpires;
        this.stale = stale;
    }

    /** The device's locale. */
    @NonNull
    public String locale() {
        return locale;
    }

    /** The locales its keys are looked up in, in order. */
    @NonNull
    public List<String> chain() {
        return chain;
    }

    /** Each locale that has a pack in the cache. */
    @NonNull
    public Map<String, Slots> packs() {
        return packs;
    }

    /** Packs this device gave up (markActivePackFailed(), the crash-loop guard): never activated again. */
    @NonNull
    public List<PackId> failed() {
        return failed;
    }

    /** Content versions the manifests block, per locale. */
    @NonNull
    public Map<String, List<Integer>> blocked() {
        return blocked;
    }

    /** Locales whose kill switch was on in the last manifest seen. */
    @NonNull
    public List<String> killed() {
        return killed;
    }

    /** The index sequence last accepted (0: never refreshed). */
    public long indexSequence() {
        return indexSequence;
    }

    /** When the last refresh round whose index and manifests verified began, or null. */
    @Nullable
    public Instant lastRefresh() {
        return lastRefresh;
    }

    /** The crash-loop guard: packs awaiting a successful launch, failed launches, rollbacks. */
    @NonNull
    public LaunchStatus launch() {
        return launch;
    }

    /** The version of the key list the device accepted, or null: none, or an app that pins a key. */
    @Nullable
    public Long keysVersion() {
        return keysVersion;
    }

    /** When the accepted index expires, or null: it does not. */
    @Nullable
    public Instant indexExpires() {
        return indexExpires;
    }

    /**
     * The accepted index is past its expiry at the client's clock: the site stopped being refreshed,
     * or something between the device and it serves an old copy. The packs stay in use.
     */
    public boolean isStale() {
        return stale;
    }

    /** The variant the device is in, from its own locale's last verified manifest; or null: none. */
    @Nullable
    public Experiment experiment() {
        return experiment;
    }

    @NonNull
    @Override
    public String toString() {
        return "Status{locale=" + locale + ", chain=" + chain + ", packs=" + packs + ", failed=" + failed
                + ", blocked=" + blocked + ", killed=" + killed + ", indexSequence=" + indexSequence
                + ", lastRefresh=" + lastRefresh + ", launch=" + launch + ", keysVersion=" + keysVersion
                + ", indexExpires=" + indexExpires + ", stale=" + stale + ", experiment=" + experiment + "}";
    }
}
