package dev.rollout.client;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Executor;

/**
 * What a device does with a published rollout site (docs/client.md, docs/manifest.md): strings from
 * the bundle at once, verified packs from its cache, updates fetched when the app asks and activated
 * at a safe moment, and counters for the metrics CSVs. The same names and behaviour as the Swift
 * client's RolloutClient.
 *
 * <p>Every method may be called from any thread. {@link #string(String)} never waits for the
 * network or the disk, never returns an empty string or a key name, and nothing here throws at the
 * app: a failed refresh keeps what the device has and says why in its result. {@link #refresh}
 * blocks: call it off the main thread. The client starts no thread of its own except one that
 * writes the counters in the background and ends when idle.
 */
public final class RolloutClient {
    /** How a client runs; every option has a default. */
    public static final class Options {
        final String defaultLocale;
        final String installId;
        final Transport transport;
        final int timeoutMillis;
        final Clock clock;
        final Set<Integer> schemaVersions;
        final long minimumRefreshIntervalMillis;
        final int launchAttempts;
        final boolean countsLaunch;
        final boolean continuesSession;
        final long minimumIndexSequence;
        final long storageBudget;
        final long spaceLeft;

        private Options(Builder b) {
            defaultLocale = b.defaultLocale;
            installId = b.installId;
            transport = b.transport;
            timeoutMillis = b.timeoutMillis;
            clock = b.clock;
            schemaVersions = Collections.unmodifiableSet(new HashSet<>(b.schemaVersions));
            minimumRefreshIntervalMillis = b.minimumRefreshIntervalMillis;
            launchAttempts = b.launchAttempts;
            countsLaunch = b.countsLaunch;
            continuesSession = b.continuesSession;
            minimumIndexSequence = b.minimumIndexSequence;
            storageBudget = b.storageBudget;
            spaceLeft = b.spaceLeft;
        }

        @NonNull
        public static Builder builder() {
            return new Builder();
        }

        /** The defaults. */
        @NonNull
        public static Options defaults() {
            return new Builder().build();
        }

        public static final class Builder {
            private String defaultLocale = "en-US";
            private String installId;
            private Transport transport = new HttpTransport();
            private int timeoutMillis = 15_000;
            private Clock clock = Clock.systemUTC();
            private Set<Integer> schemaVersions = new HashSet<>(Pack.SUPPORTED_SCHEMA_VERSIONS);
            private long minimumRefreshIntervalMillis = 4 * 3600 * 1000L;
            private int launchAttempts = 2;
            private boolean countsLaunch = true;
            private boolean continuesSession;
            private long minimumIndexSequence;
            private long storageBudget = -1;
            private long spaceLeft = -1;

            private Builder() {}

            /** The locale whose bundled strings are the last resort for every key (en-US). */
            @NonNull
            public Builder defaultLocale(@NonNull String locale) {
                defaultLocale = Objects.requireNonNull(locale, "locale");
                return this;
            }

            /**
             * The install id that places the device in percent rollouts, or null (the default): a random
             * UUID kept in the cache directory.
             */
            @NonNull
            public Builder installId(@Nullable String id) {
                installId = id;
                return this;
            }

            /** How the site is fetched ({@link HttpTransport}). */
            @NonNull
            public Builder transport(@NonNull Transport transport) {
                this.transport = Objects.requireNonNull(transport, "transport");
                return this;
            }

            /** Each download's time-out (15 s): past it the refresh gives up. */
            @NonNull
            public Builder timeoutMillis(int millis) {
                if (millis <= 0) throw new IllegalArgumentException("timeoutMillis must be positive");
                timeoutMillis = millis;
                return this;
            }

            /** The clock refreshes, expiry and the counters' days read (the system's, UTC). */
            @NonNull
            public Builder clock(@NonNull Clock clock) {
                this.clock = Objects.requireNonNull(clock, "clock");
                return this;
            }

            /** Pack schema versions this build of the app understands. */
            @NonNull
            public Builder schemaVersions(@NonNull Set<Integer> versions) {
                schemaVersions = new HashSet<>(versions);
                return this;
            }

            /**
             * How long after a refresh round refresh(false) asks the network again (4 hours; kept
             * across launches in state.json); refresh(true) ignores it.
             */
            @NonNull
            public Builder minimumRefreshIntervalMillis(long millis) {
                minimumRefreshIntervalMillis = Math.max(0, millis);
                return this;
            }

            /**
             * Failed launches (ended before markLaunchSucceeded()) after which a pack activated since
             * the last successful launch is rolled back (2).
             */
            @NonNull
            public Builder launchAttempts(int attempts) {
                launchAttempts = attempts;
                return this;
            }

            /**
             * Constructing the client is a process start (true): it counts for the crash-loop guard and
             * activates the packs a refresh staged. False for a client that only inspects the cache: it
             * counts nothing and leaves staged packs waiting.
             */
            @NonNull
            public Builder countsLaunch(boolean counts) {
                countsLaunch = counts;
                return this;
            }

            /**
             * This process continues the session the last one recorded (state.json keeps it until the next
             * recordSession()), for its exposures and conversions: a tool that plays one device across invocations
             * ({@code rollout device}). An app leaves it false (the default): before its first recordSession(), a
             * process counts no exposure and no conversion.
             */
            @NonNull
            public Builder continuesSession(boolean continues) {
                continuesSession = continues;
                return this;
            }

            /**
             * The oldest index sequence this build of the app accepts, even on a fresh install: the
             * sequence of the site the app was built against, so that an old copy of the site never
             * shows its since-blocked packs.
             */
            @NonNull
            public Builder minimumIndexSequence(long sequence) {
                minimumIndexSequence = sequence;
                return this;
            }

            /**
             * Tests: the units the process writes before it dies (DeviceStorage.budget), from the
             * first write of the constructor.
             */
            Builder storageBudget(long units) {
                storageBudget = units;
                return this;
            }

            /** Tests: the bytes the disk has left (DeviceStorage.spaceLeft). */
            Builder spaceLeft(long bytes) {
                spaceLeft = bytes;
                return this;
            }

            @NonNull
            public Options build() {
                return new Options(this);
            }
        }
    }

    /** What this process knows about its own launch; not persisted. */
    static final class LaunchSession {
        /** markLaunchSucceeded() was called in this process. */
        boolean succeeded;
        /** The launch before this one ended before markLaunchSucceeded(). */
        boolean previousLaunchFailed;
    }

    /** A change of the device state, applied to a copy. */
    interface StateChange {
        void apply(DeviceState next);
    }

    /**
     * The writers' lock: refresh, activation, rollback, a locale change and start-up take it to change
     * the device's memory and files. Readers never take it: string() reads the immutable snapshot the
     * writers publish. A monitor, so re-entrant: verification reads the device's memory inside and
     * outside it.
     */
    final Object lock = new Object();
    private volatile Snapshot snapshot = Snapshot.EMPTY;
    final Tally tally = new Tally();
    /** Exposures, conversions and the session's memory of them (docs/experiments.md), with a lock of its own. */
    final OutcomeTally outcomeTally = new OutcomeTally();
    /** The experiment variant the device is in for its own locale, or null; published with the snapshot. */
    private volatile ExperimentAssignment experiment;
    final CounterSaver counterSaver = new CounterSaver();
    private final Observers observers = new Observers();
    final BundledStrings bundled;
    final DeviceStorage storage;
    final URI manifestUrl;
    final SignatureCheck signatureCheck;
    final String appVersionText;
    /** Or null, when the app's version does not parse: then no pack is new enough for it. */
    final AppVersion appVersion;
    final String region;
    final Options options;
    private final String installId;
    final Verification verification;

    // Guarded by lock; after changing locale, state or active, call publish() before letting go of it.
    String locale;
    DeviceState state;
    final Map<String, LoadedPack> active = new TreeMap<>();
    boolean refreshing;
    /** The state in memory holds counts a failed write did not put on disk. */
    private boolean stateUnwritten;
    final LaunchSession launchSession = new LaunchSession();

    /**
     * A device that trusts the site's key list, signed by {@code trust}'s root keys (docs/client.md,
     * "Keys and expiry"): rotation and revocation of publishing keys need no app update. Never fails
     * and never touches the network: keys that do not parse or a damaged cache only mean the device
     * runs on its bundled strings until a refresh succeeds.
     *
     * @param cacheDirectory the client's own directory (created if missing), e.g. under Context.getNoBackupFilesDir()
     * @param manifestUrl the site's index.json: https, http to a loopback host, or a file: URL
     * @param appVersion the app's version (4.8.1); one that does not parse gets no pack
     * @param region the device's region for rollouts (TR), any case
     * @param locale the device's locale as BCP 47 (tr-TR)
     * @param options or null for the defaults
     */
    public RolloutClient(@NonNull BundledStrings bundled, @NonNull File cacheDirectory, @NonNull URI manifestUrl,
            @NonNull Trust trust, @NonNull String appVersion, @NonNull String region, @NonNull String locale,
            @Nullable Options options) {
        this(bundled, cacheDirectory, manifestUrl, SignatureCheck.roots(trust), appVersion, region, locale, options);
    }

    /**
     * A device that pins one publishing key (the site's .sig files), as apps built before key lists
     * do. Never fails and never touches the network. The parameters are those of the other
     * constructor; {@code publicKey} is {@code ed25519:BASE64} (one that does not parse makes every
     * refresh fail MISCONFIGURED).
     */
    public RolloutClient(@NonNull BundledStrings bundled, @NonNull File cacheDirectory, @NonNull URI manifestUrl,
            @NonNull String publicKey, @NonNull String appVersion, @NonNull String region, @NonNull String locale,
            @Nullable Options options) {
        this(bundled, cacheDirectory, manifestUrl, SignatureCheck.pinned(publicKey), appVersion, region, locale,
                options);
    }

    private RolloutClient(BundledStrings bundled, File cacheDirectory, URI manifestUrl, SignatureCheck check,
            String appVersion, String region, String locale, Options options) {
        this.bundled = Objects.requireNonNull(bundled, "bundled");
        this.storage = new DeviceStorage(Objects.requireNonNull(cacheDirectory, "cacheDirectory"));
        this.manifestUrl = Objects.requireNonNull(manifestUrl, "manifestUrl");
        this.signatureCheck = check;
        this.appVersionText = Objects.requireNonNull(appVersion, "appVersion");
        this.appVersion = AppVersion.parse(appVersion);
        this.region = Objects.requireNonNull(region, "region").toUpperCase(Locale.ROOT);
        this.locale = Objects.requireNonNull(locale, "locale");
        this.options = options == null ? Options.defaults() : options;
        this.verification = new Verification(this);
        storage.budget = this.options.storageBudget;
        storage.spaceLeft = this.options.spaceLeft;
        cacheDirectory.mkdirs();
        storage.removeTemporaries();
        DeviceState stored = DeviceState.parse(storage.read(DeviceState.FILE));
        state = stored != null ? stored : new DeviceState();
        if (!this.options.continuesSession) state.outcomes.session = null;
        outcomeTally.set(state.outcomes);
        installId = installId(this.options.installId);
        synchronized (lock) {
            if (this.options.countsLaunch) LaunchGuardSteps.beginLaunch(this);
            for (String cached : storage.children("packs")) start(cached);
            // Every committed pending pack is active now, or was refused: none is pending any more.
            if (this.options.countsLaunch && !state.staged.isEmpty()) {
                try {
                    save(next -> next.staged.clear());
                } catch (IOException e) {
                    // The next start clears them; the packs they name are active or gone already.
                }
            }
            if (this.options.countsLaunch) LaunchGuardSteps.finishLaunchStart(this);
            publish();
        }
        // No listener can be registered before the constructor returns: a rollback at start is what
        // launchStatus() says (previousLaunchFailed, rolledBack), not a Change.
    }

    private String installId(String given) {
        if (given != null) return given;
        byte[] stored = storage.read("install-id");
        if (stored != null && stored.length > 0) return new String(stored, StandardCharsets.UTF_8);
        String fresh = UUID.randomUUID().toString().toUpperCase(Locale.ROOT);
        try {
            storage.write("install-id", fresh.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // A full disk: this process buckets with it, the next one draws again.
        }
        return fresh;
    }

    /** The install id that places the device in percent rollouts. */
    @NonNull
    public String installId() {
        return installId;
    }

    // Start-up

    /**
     * A locale's packs at start: a pending pack becomes active now (this is the next launch), an
     * active pack that no longer verifies gives way to the previous one, and anything blocked, failed,
     * killed or damaged is deleted. A bad active pack is deleted before a pending one is promoted, so
     * that it never becomes the "previous" (last good) pack.
     */
    private void start(String locale) {
        LoadedPack current = verification.verifiedSlot(Slot.ACTIVE, locale);
        if (current == null) quietly(() -> storage.remove(Slot.ACTIVE.file(locale)));
        LoadedPack pending = committedPending(locale);
        if (pending != null) {
            // Only a launch activates what a refresh staged: a client made to look at the cache
            // (countsLaunch false) leaves it waiting.
            if (options.countsLaunch && quietly(() -> promotePending(locale))) {
                active.put(locale, pending);
                return;
            }
        } else {
            quietly(() -> storage.remove(Slot.PENDING.file(locale)));
        }
        if (current != null && storage.exists(Slot.ACTIVE.file(locale))) {
            active.put(locale, current);
            return;
        }
        LoadedPack previous = verification.verifiedSlot(Slot.PREVIOUS, locale);
        if (previous != null && quietly(() -> move(Slot.PREVIOUS, Slot.ACTIVE, locale))) {
            active.put(locale, previous);
        } else {
            quietly(() -> storage.remove(Slot.PREVIOUS.file(locale)));
        }
    }

    interface StorageStep {
        void run() throws IOException;
    }

    /** Runs a step whose failure only means the device keeps what it has; true when it succeeded. */
    static boolean quietly(StorageStep step) {
        try {
            step.run();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * pending -> active, keeping the active one as previous. A process killed between the two renames
     * finds no active pack but a previous and a pending one, and finishes the job.
     */
    void promotePending(String locale) throws IOException {
        if (storage.exists(Slot.ACTIVE.file(locale))) move(Slot.ACTIVE, Slot.PREVIOUS, locale);
        move(Slot.PENDING, Slot.ACTIVE, locale);
    }

    void move(Slot from, Slot to, String locale) throws IOException {
        storage.rename(from.file(locale), to.file(locale));
    }

    /**
     * The pending pack of {@code locale}, if it verifies and a refresh round committed it (a round
     * killed before its commit leaves pending files that are never used); or null.
     */
    LoadedPack committedPending(String locale) {
        LoadedPack pending = verification.verifiedSlot(Slot.PENDING, locale);
        if (pending == null) return null;
        synchronized (lock) {
            return state.staged.contains(pending.id().toString()) ? pending : null;
        }
    }

    /**
     * Writes the state with {@code change} applied, if that changes it, and keeps it in memory once it
     * is on disk. Call with lock held.
     */
    void save(StateChange change) throws IOException {
        DeviceState next = state.copy();
        change.apply(next);
        if (next.equals(state)) return;
        storage.write(DeviceState.FILE, next.bytes());
        state = next;
    }

    // Refresh

    /**
     * Fetches the index and the manifests of the device's chain, verifies them, resolves each
     * locale's plan for this device and downloads what it resolves to into the pending slots: one
     * round that stages every new pack or none (docs/client.md, Refresh). Blocked packs, and packs of
     * a locale the device should no longer get anything from, are dropped at once, from memory and
     * from the cache, as soon as the index and every manifest verify. Within the minimum refresh
     * interval of the last round, returns TOO_SOON without a request, unless {@code force}.
     *
     * <p>Blocks the calling thread for the round (call it off the main thread); a refresh called
     * while another runs returns BUSY at once. Interrupting the thread ends the round CANCELLED when
     * its download in progress returns (at the latest at its time-out). Never throws; an index or
     * manifest that fails changes nothing.
     */
    @NonNull
    public RefreshResult refresh(boolean force) {
        long now = options.clock.millis();
        String roundLocale;
        long lastSequence;
        synchronized (lock) {
            if (refreshing) return RefreshResult.busy();
            if (!force && state.lastRefresh != null) {
                // A clock set back makes the interval over: the device would otherwise wait for it.
                long elapsed = now - state.lastRefresh * 1000;
                if (elapsed >= 0 && elapsed < options.minimumRefreshIntervalMillis) {
                    return RefreshResult.tooSoon(options.minimumRefreshIntervalMillis - elapsed);
                }
            }
            refreshing = true;
            roundLocale = locale;
            lastSequence = state.indexSequence;
        }
        List<Change> changes = new ArrayList<>();
        try {
            return new RefreshRound(this, roundLocale, lastSequence, now, changes).run();
        } catch (Refusal refusal) {
            return RefreshResult.failed(refusal.failure);
        } catch (RuntimeException unexpected) {
            // refresh() never throws at the app (docs/client.md): an app's own Transport that throws, or a
            // case this code did not foresee, is a failed round that changed nothing it had not committed.
            return RefreshResult.failed(new Failure(FailureReason.UNREACHABLE, String.valueOf(unexpected)));
        } finally {
            synchronized (lock) {
                refreshing = false;
            }
            // Announced after refreshing is cleared: a listener that refreshes again on a change is not told BUSY.
            for (Change change : changes) announce(change);
        }
    }

    /** {@code refresh(false)}. */
    @NonNull
    public RefreshResult refresh() {
        return refresh(false);
    }

    // Activation

    private static final class Ready {
        final String locale;
        final byte[] bytes;
        final LoadedPack pack;

        Ready(String locale, byte[] bytes, LoadedPack pack) {
            this.locale = locale;
            this.bytes = bytes;
            this.pack = pack;
        }
    }

    /**
     * Makes every pending pack a refresh round committed active. Call it at a safe moment (a new
     * screen, the app coming to the foreground); a pending pack also becomes active at the next start.
     * Returns the packs that became active.
     */
    @NonNull
    public List<PackId> activatePending() {
        // Verified outside the lock: the checks are the slow part.
        List<Ready> ready = new ArrayList<>();
        for (String locale : storage.children("packs")) {
            String name = Slot.PENDING.file(locale);
            byte[] bytes = storage.read(name);
            if (bytes == null) continue;
            PackSlot slot = PackSlot.parse(bytes);
            LoadedPack verified = slot == null ? null : verification.verifiedOrNull(slot, locale);
            boolean committed;
            synchronized (lock) {
                committed = verified != null && state.staged.contains(verified.id().toString());
            }
            if (committed) {
                ready.add(new Ready(locale, bytes, verified));
                continue;
            }
            // Removed only if still the file read above, and still not committed: a refresh may have
            // written and committed this slot meanwhile.
            synchronized (lock) {
                if (!Arrays.equals(storage.read(name), bytes)) continue;
                if (verified != null && state.staged.contains(verified.id().toString())) continue;
                quietly(() -> storage.remove(name));
            }
        }
        List<PackId> activated = new ArrayList<>();
        String current;
        synchronized (lock) {
            for (Ready item : ready) {
                if (!Arrays.equals(storage.read(Slot.PENDING.file(item.locale)), item.bytes)) continue;
                if (!quietly(() -> promotePending(item.locale))) continue;
                active.put(item.locale, item.pack);
                activated.add(item.pack.id());
            }
            // The counts so far are written with it (docs/client.md#counters).
            saveState(next -> {
                for (PackId id : activated) next.staged.remove(id.toString());
            });
            publish();
            Collections.sort(activated);
            current = locale;
        }
        if (!activated.isEmpty()) announce(new Change(Change.Reason.ACTIVATED, activated, current));
        return Collections.unmodifiableList(activated);
    }

    /**
     * The app says the active pack of its locale is bad (it crashed at start with it, a screen broke):
     * that pack is never activated again on this device, and the previous good pack (or the bundled
     * strings) returns at once. Returns the pack given up, or null when the locale had none.
     */
    @Nullable
    public PackId markActivePackFailed() {
        PackId bad;
        String badLocale;
        synchronized (lock) {
            LoadedPack current = active.get(locale);
            if (current == null) return null;
            badLocale = locale;
            bad = current.id();
            try {
                save(next -> next.failed.add(bad.toString()));
            } catch (IOException e) {
                return null;
            }
            active.remove(badLocale);
            quietly(() -> storage.remove(Slot.ACTIVE.file(badLocale)));
            for (Slot slot : new Slot[] {Slot.PREVIOUS, Slot.PENDING}) {
                if (!storage.exists(slot.file(badLocale))) continue;
                LoadedPack candidate = slot == Slot.PENDING
                        ? committedPending(badLocale)
                        : verification.verifiedSlot(slot, badLocale);
                if (candidate != null && quietly(() -> move(slot, Slot.ACTIVE, badLocale))) {
                    active.put(badLocale, candidate);
                    break;
                }
                quietly(() -> storage.remove(slot.file(badLocale)));
            }
            publish();
        }
        announce(new Change(Change.Reason.ROLLED_BACK, Collections.singletonList(bad), badLocale));
        return bad;
    }

    // Strings

    /** Publishes what string() reads from the device's memory now. Call with lock held. */
    void publish() {
        List<String> chain = chain(locale);
        // Each locale's bundled table resolved once here, not per lookup.
        Map<String, Map<String, String>> tables = new HashMap<>();
        for (String name : chain) tables.put(name, bundled.table(name));
        tables.put(options.defaultLocale, bundled.table(options.defaultLocale));
        Map<String, Map<String, String>> packs = new HashMap<>();
        Map<String, PackId> ids = new HashMap<>();
        for (Map.Entry<String, LoadedPack> entry : active.entrySet()) {
            LoadedPack pack = entry.getValue();
            packs.put(entry.getKey(), pack.shown(state.bundleOnly.get(pack.pack.locale())));
            ids.put(entry.getKey(), pack.id());
        }
        snapshot = new Snapshot(locale, chain, packs, ids, tables, Snapshot.bundledLocales(bundled, tables.keySet()));
        // Exposures count by the own locale's assignment (intention to treat), whichever pack is active.
        experiment = state.experiment != null && state.experiment.locale.equals(locale) ? state.experiment : null;
    }

    /**
     * The locales a key is looked up in, in order, before the default locale's bundled strings: the
     * device's own locale first, then the chain the last index gives it, or until the first refresh,
     * its language and the default. The own locale comes first even when the index does not list it,
     * so that an app that bundles a language the site does not publish shows it before another
     * language's pack.
     */
    List<String> chain(String locale) {
        List<String> chain;
        if (state.indexSequence > 0 || !state.chains.isEmpty()) {
            chain = SiteIndex.chain(locale, state.chains, state.fallbackChains,
                    state.defaultLocale != null ? state.defaultLocale : options.defaultLocale);
        } else {
            chain = new ArrayList<>();
            chain.add(locale);
            LocaleTags.Tag tag = LocaleTags.tryParse(locale);
            if (tag != null) chain.addAll(tag.truncationParents());
            chain.add(options.defaultLocale);
        }
        List<String> ordered = new ArrayList<>();
        ordered.add(locale);
        for (String next : chain) {
            if (!ordered.contains(next)) ordered.add(next);
        }
        return ordered;
    }

    /** {@code string(key, no arguments, no fallback)}. */
    @NonNull
    public String string(@NonNull String key) {
        return string(key, Collections.<String, String>emptyMap(), null);
    }

    /** {@code string(key, arguments, no fallback)}. */
    @NonNull
    public String string(@NonNull String key, @NonNull Map<String, String> arguments) {
        return string(key, arguments, null);
    }

    /**
     * The text for {@code key}, formatted with {@code arguments}: for each locale of the chain, its
     * active pack and then the app's bundled strings of that same locale, before the next locale; then
     * the default locale's bundled strings; then {@code fallback} (or null). So a screen stays in one
     * language while the app bundles it. Never empty and never the key: a key the app does not bundle
     * at all and has no fallback for shows "…". Reads one immutable snapshot: never waits on disk,
     * network or a refresh.
     */
    @NonNull
    public String string(@NonNull String key, @NonNull Map<String, String> arguments, @Nullable String fallback) {
        Snapshot view = snapshot;
        String found = null;
        // The locale the text is in, which formats it (Snapshot.textLocale); the app's own fallback
        // is in no known locale: the device's formats it.
        String textLocale = view.locale;
        boolean fromOwnPack = false;
        for (String candidate : view.chain) {
            Map<String, String> pack = view.packs.get(candidate);
            String value = pack == null ? null : pack.get(key);
            if (value != null && !value.isEmpty()) {
                found = value;
                textLocale = view.textLocale(candidate, true);
                fromOwnPack = candidate.equals(view.locale);
                break;
            }
            Map<String, String> table = view.bundled.get(candidate);
            value = table == null ? null : table.get(key);
            if (value != null && !value.isEmpty()) {
                found = value;
                textLocale = view.textLocale(candidate, false);
                break;
            }
        }
        if (found == null) {
            Map<String, String> table = view.bundled.get(options.defaultLocale);
            String value = table == null ? null : table.get(key);
            if (value != null && !value.isEmpty()) {
                found = value;
                textLocale = view.textLocale(options.defaultLocale, false);
            }
        }
        // A fallback is any text that did not come from the own locale's pack, the own locale's
        // bundled text included: the counter measures the pack (docs/client.md, Counters).
        if (view.ownPack != null) countLookup(view.ownPack, !fromOwnPack);
        // One set lookup for every other key: only a varied key goes further.
        ExperimentAssignment assigned = experiment;
        if (assigned != null && assigned.keys.contains(key)) countExposure(assigned);
        String text = found != null ? found : (fallback != null && !fallback.isEmpty() ? fallback : "…");
        String formatted = MessageFormat.format(text, textLocale,
                arguments == null ? Collections.<String, String>emptyMap() : arguments);
        return formatted.isEmpty() ? text : formatted;
    }

    /**
     * Switches the device's locale; the next string() reads the new chain. A refresh fetches the new
     * locale's packs.
     */
    public void setLocale(@NonNull String newLocale) {
        Objects.requireNonNull(newLocale, "locale");
        synchronized (lock) {
            if (newLocale.equals(locale)) return;
            locale = newLocale;
            publish();
        }
        announce(new Change(Change.Reason.LOCALE_CHANGED, Collections.<PackId>emptyList(), newLocale));
    }

    @NonNull
    public String currentLocale() {
        return snapshot.locale;
    }

    /** The active pack of each locale that has one, sorted. */
    @NonNull
    public List<PackId> activePacks() {
        List<PackId> packs = new ArrayList<>(snapshot.activePacks.values());
        Collections.sort(packs);
        return Collections.unmodifiableList(packs);
    }

    /** The pack in use for the device's own locale, or null: bundled strings. */
    @Nullable
    public PackId activePack() {
        return snapshot.ownPack;
    }

    /** Packs a refresh round verified and committed, waiting for activatePending(), sorted. */
    @NonNull
    public List<PackId> pendingPacks() {
        List<PackId> pending = new ArrayList<>();
        for (String locale : storage.children("packs")) {
            LoadedPack pack = committedPending(locale);
            if (pack != null) pending.add(pack.id());
        }
        Collections.sort(pending);
        return Collections.unmodifiableList(pending);
    }

    // Status

    /** A consistent picture of the device: its memory, and the slots in its cache. */
    @NonNull
    public Status status() {
        String locale;
        List<String> chain;
        DeviceState state;
        Map<String, PackId> active = new TreeMap<>();
        synchronized (lock) {
            locale = this.locale;
            chain = chain(locale);
            state = this.state.copy();
            for (Map.Entry<String, LoadedPack> entry : this.active.entrySet()) {
                active.put(entry.getKey(), entry.getValue().id());
            }
        }
        TreeSet<String> names = new TreeSet<>(storage.children("packs"));
        names.addAll(active.keySet());
        Map<String, Status.Slots> packs = new TreeMap<>();
        for (String name : names) {
            PackId pending = verification.storedId(Slot.PENDING, name);
            if (pending != null && !state.staged.contains(pending.toString())) pending = null;
            Status.Slots slots = new Status.Slots(active.get(name), pending, verification.storedId(Slot.PREVIOUS, name));
            if (!slots.isEmpty()) packs.put(name, slots);
        }
        List<PackId> failed = new ArrayList<>();
        for (String text : state.failed) {
            PackId id = PackIds.parse(text);
            if (id != null) failed.add(id);
        }
        Collections.sort(failed);
        Map<String, List<Integer>> blocked = new TreeMap<>();
        for (Map.Entry<String, List<Integer>> entry : state.blocked.entrySet()) {
            if (!entry.getValue().isEmpty()) blocked.put(entry.getKey(), Collections.unmodifiableList(entry.getValue()));
        }
        Long keysVersion = signatureCheck.usesKeyList() && state.keyList != null ? state.keyList.version : null;
        Instant expires = state.indexExpires == null ? null : Instant.ofEpochSecond(state.indexExpires);
        boolean stale = state.indexExpires != null && state.indexExpires * 1000 <= options.clock.millis();
        return new Status(locale, chain, packs, failed, blocked, new ArrayList<>(state.killed), state.indexSequence,
                state.lastRefresh == null ? null : Instant.ofEpochSecond(state.lastRefresh), launchStatus(),
                keysVersion, expires, stale,
                state.experiment != null && state.experiment.locale.equals(locale)
                        ? new Status.Experiment(state.experiment)
                        : null);
    }

    // The crash-loop guard

    /** The crash-loop guard as the app (or {@code rollout device status}) sees it. */
    @NonNull
    public LaunchStatus launchStatus() {
        return LaunchGuardSteps.status(this);
    }

    /**
     * The app's first screen is usable: the packs this launch began with are confirmed good, and the
     * guard is armed from now on. Call it as soon as the first screen works. Only the first call of a
     * launch counts, and a pack activated after the launch began (activatePending()) stays on trial
     * until a later launch that begins with it succeeds. Returns what this call confirmed: each
     * locale's active pack when the launch began, sorted (empty: the bundled strings); null when it
     * confirmed nothing (the launch succeeded already: a pack activated since stays on trial, as
     * launchStatus() lists; or its start was never recorded, a full disk).
     */
    @Nullable
    public List<PackId> markLaunchSucceeded() {
        return LaunchGuardSteps.markLaunchSucceeded(this);
    }

    // Counters

    /** The UTC day counts are recorded under now. */
    String counterDay() {
        long seconds = Math.max(0, Math.min(Math.floorDiv(options.clock.millis(), 1000L), 253_402_300_799L));
        return Timestamp.format(seconds - seconds % 86_400).substring(0, 10);
    }

    /** One lookup, from string(), against the pack it was attributed to. */
    private void countLookup(PackId pack, boolean fellBack) {
        long shardLookups = tally.lookup(pack, options.clock.millis(), fellBack);
        // Every 64th lookup of a shard checks whether enough are unwritten for a save.
        if (shardLookups % 64 == 0 && counterSaver.claim(tally.unsavedLookups())) dispatchSave();
    }

    /** Writes the counts on the saver's thread: neither string() nor recordSession() waits for the disk. */
    private void scheduleSave() {
        if (counterSaver.claim(-1)) dispatchSave();
    }

    private void dispatchSave() {
        counterSaver.run(() -> {
            counterSaver.started();
            // A cache directory deleted meanwhile (an uninstall, a test's scratch) is not recreated.
            if (!storage.directory.exists()) return;
            synchronized (lock) {
                saveState(next -> {});
            }
        });
    }

    /** Tests: returns once the saves scheduled so far have run. */
    void waitForSaves() {
        counterSaver.waitForSaves();
    }

    /**
     * Moves what the tally holds into the device state, applies {@code change}, and writes the state
     * if that changed it. The memory keeps the counts even when the write fails (a full disk): the
     * next save writes them. Caller holds lock.
     */
    boolean saveState(StateChange change) {
        DeviceState next = state.copy();
        next.counters.add(tally.take(true), region, appVersionText);
        next.outcomes = outcomeTally.current();
        change.apply(next);
        // Swift returns here whenever nothing changed, so counts whose write failed waited for a
        // new count before a save wrote them; here the next save does, as promised.
        if (next.equals(state) && !stateUnwritten) return true;
        state = next;
        try {
            storage.write(DeviceState.FILE, next.bytes());
        } catch (IOException e) {
            stateUnwritten = true;
            return false;
        }
        stateUnwritten = false;
        counterSaver.saved();
        return true;
    }

    /**
     * One app session with the current pack (call it once per launch or foreground session). Saved at
     * once, in the background.
     */
    public void recordSession() {
        // A session for the experiment even on the bundled strings: exposures count by assignment, not by the pack
        // that shows (docs/experiments.md).
        outcomeTally.update(outcomes -> {
            outcomes.startSession();
            return null;
        });
        PackId own = snapshot.ownPack;
        if (own != null) {
            tally.session(own, options.clock.millis());
            synchronized (lock) {
                if (state.launch.open != null) state.launch.open.session = true;
            }
        }
        scheduleSave();
    }

    /**
     * A crash the app's crash reporter attributes to this session, after markLaunchSucceeded() (the
     * client counts a launch that never got there itself). Saved at once, in the background.
     */
    public void recordCrash() {
        PackId own = snapshot.ownPack;
        if (own == null) return;
        tally.crash(own, options.clock.millis());
        scheduleSave();
    }

    /**
     * The counters as a metrics CSV that {@code rollout metrics ingest --kind KIND} reads: a header and
     * one row per day, pack, region and app version (docs/metrics.md), including the counts of earlier
     * processes not reset yet. Rows for the bundled strings are not written: there is no pack to
     * attribute them to.
     */
    @NonNull
    public String metricsCsv(@NonNull MetricKind kind) {
        Counters counters;
        // Under the writers' lock, which a save holds while it moves the tally into the state.
        synchronized (lock) {
            counters = state.counters.copy();
            counters.add(tally.take(false), region, appVersionText);
        }
        return counters.csv(kind);
    }

    /**
     * A conversion of the experiment metric {@code name} ({@code checkout}) in this session (docs/experiments.md).
     * Ignored when the device is in no experiment for its locale, {@code name} is not one of its metrics, or no
     * session was recorded yet in this process. Counted at most once per session and name: at once when a string() of
     * the session already counted its exposure, otherwise with the exposure, if the session has one; so conversions
     * never exceed exposures. Returns whether it counts for this session. Saved at once, in the background.
     */
    public boolean recordConversion(@NonNull String name) {
        Objects.requireNonNull(name, "name");
        ExperimentAssignment assigned = experiment;
        if (assigned == null) return false;
        boolean counted = outcomeTally.update(outcomes -> outcomes.convert(name, assigned));
        if (counted) scheduleSave();
        return counted;
    }

    /** A lookup of a varied key, from string(): the session's exposure, if it is the first. */
    private void countExposure(ExperimentAssignment assigned) {
        boolean counted = outcomeTally.update(
                outcomes -> outcomes.expose(assigned, new Outcomes.Place(counterDay(), region, appVersionText)));
        if (counted) scheduleSave();
    }

    /**
     * The experiment's exposures and conversions as the outcome CSV that {@code rollout metrics ingest --kind outcome}
     * reads: the header {@code date,locale,pack,region,app_version,metric,exposures,conversions}, then one row per day,
     * assigned variant, region, app version and metric (docs/experiments.md), including the counts of earlier processes
     * not reset yet.
     */
    @NonNull
    public String outcomeCsv() {
        return outcomeTally.current().csv(null);
    }

    /**
     * The rows of one metric of the outcome CSV ({@code rollout metrics ingest --kind outcome-METRIC}): what the Swift
     * client's {@code metricsCSV(.outcome(metric))} returns.
     */
    @NonNull
    public String outcomeCsv(@NonNull String metric) {
        return outcomeTally.current().csv(Objects.requireNonNull(metric, "metric"));
    }

    /**
     * Forgets the counters and the exposures and conversions (after they were all exported), on disk too. The session
     * goes on: a conversion after it counts only for a session exposed after it.
     */
    public void resetCounters() {
        synchronized (lock) {
            outcomeTally.update(outcomes -> {
                outcomes.resetRows();
                return null;
            });
            saveState(next -> next.counters = new Counters());
        }
    }

    /**
     * Writes the counters now, for a process about to end (the app going to the background). Returns
     * false when the state file could not be written.
     */
    public boolean saveCounters() {
        synchronized (lock) {
            return saveState(next -> {});
        }
    }

    // Observation

    /**
     * Tells {@code listener}, on {@code executor}, every change of the strings string() returns from
     * now on, until the subscription is closed. Never called with a lock of the client held.
     */
    @NonNull
    public Subscription addChangeListener(@NonNull Executor executor, @NonNull ChangeListener listener) {
        return observers.add(executor, listener);
    }

    void announce(Change change) {
        observers.announce(Collections.singletonList(change));
    }

    // Tests

    /** Tests: how many more units the process may write before it "dies" (see DeviceStorage). */
    long storageBudget() {
        synchronized (lock) {
            return storage.budget;
        }
    }

    void storageBudget(long units) {
        synchronized (lock) {
            storage.budget = units;
        }
    }

    void spaceLeft(long bytes) {
        synchronized (lock) {
            storage.spaceLeft = bytes;
        }
    }
}
