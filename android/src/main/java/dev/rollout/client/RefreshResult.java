package dev.rollout.client;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What a refresh did, for logs and tests; the user never sees it. */
public final class RefreshResult {
    public enum Kind {
        /**
         * New packs are verified and waiting for {@link RolloutClient#activatePending()};
         * {@link #dropped()} were blocked, or their locale now gives this device nothing, and are gone already.
         */
        STAGED,
        /** Nothing to download; dropped as above. */
        UP_TO_DATE,
        /**
         * The index and manifests were accepted (blocks and kill switches took effect), but the packs
         * of some locales could not be fetched or verified; those locales keep what they have.
         */
        PARTIAL,
        /**
         * Nothing changed: the network, a time-out, a bad signature, a stale or replayed index or
         * manifest. The current packs stay.
         */
        FAILED,
        /** Another refresh was already running. */
        BUSY,
        /** The last round was less than the minimum refresh interval ago: no request was made. */
        TOO_SOON
    }

    private final Kind kind;
    private final List<PackId> staged;
    private final List<PackId> dropped;
    private final List<Failure> failures;
    private final long retryAfterMillis;

    private RefreshResult(Kind kind, List<PackId> staged, List<PackId> dropped, List<Failure> failures,
            long retryAfterMillis) {
        this.kind = kind;
        this.staged = Collections.unmodifiableList(new ArrayList<>(staged));
        this.dropped = Collections.unmodifiableList(new ArrayList<>(dropped));
        this.failures = Collections.unmodifiableList(new ArrayList<>(failures));
        this.retryAfterMillis = retryAfterMillis;
    }

    static RefreshResult staged(List<PackId> staged, List<PackId> dropped) {
        return new RefreshResult(Kind.STAGED, staged, dropped, Collections.emptyList(), 0);
    }

    static RefreshResult upToDate(List<PackId> dropped) {
        return new RefreshResult(Kind.UP_TO_DATE, Collections.emptyList(), dropped, Collections.emptyList(), 0);
    }

    static RefreshResult partial(List<PackId> staged, List<PackId> dropped, List<Failure> failures) {
        return new RefreshResult(Kind.PARTIAL, staged, dropped, failures, 0);
    }

    static RefreshResult failed(Failure failure) {
        return new RefreshResult(Kind.FAILED, Collections.emptyList(), Collections.emptyList(),
                Collections.singletonList(failure), 0);
    }

    static RefreshResult busy() {
        return new RefreshResult(Kind.BUSY, Collections.emptyList(), Collections.emptyList(), Collections.emptyList(), 0);
    }

    static RefreshResult tooSoon(long retryAfterMillis) {
        return new RefreshResult(Kind.TOO_SOON, Collections.emptyList(), Collections.emptyList(),
                Collections.emptyList(), retryAfterMillis);
    }

    @NonNull
    public Kind kind() {
        return kind;
    }

    /** STAGED: the packs waiting for activation; empty otherwise. */
    @NonNull
    public List<PackId> staged() {
        return staged;
    }

    /** STAGED, UP_TO_DATE and PARTIAL: the packs the round took away; empty otherwise. */
    @NonNull
    public List<PackId> dropped() {
        return dropped;
    }

    /** PARTIAL: why each pack was not staged; FAILED: the one failure; empty otherwise. */
    @NonNull
    public List<Failure> failures() {
        return failures;
    }

    /** FAILED: why nothing changed; null for every other kind. */
    @Nullable
    public Failure failure() {
        return kind == Kind.FAILED ? failures.get(0) : null;
    }

    /** TOO_SOON: how long until a refresh asks the network again; 0 otherwise. */
    public long retryAfterMillis() {
        return retryAfterMillis;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        if (!(other instanceof RefreshResult)) return false;
        RefreshResult that = (RefreshResult) other;
        return kind == that.kind && staged.equals(that.staged) && dropped.equals(that.dropped)
                && failures.equals(that.failures) && retryAfterMillis == that.retryAfterMillis;
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + staged.hashCode();
    }

    @NonNull
    @Override
    public String toString() {
        switch (kind) {
            case STAGED:
                return "staged " + staged + (dropped.isEmpty() ? "" : ", dropped " + dropped);
            case UP_TO_DATE:
                return "up to date" + (dropped.isEmpty() ? "" : ", dropped " + dropped);
            case PARTIAL:
                return "partial: " + failures + (dropped.isEmpty() ? "" : ", dropped " + dropped);
            case FAILED:
                return "failed: " + failures.get(0);
            case BUSY:
                return "busy";
            default:
                return "too soon: retry after " + retryAfterMillis + " ms";
        }
    }
}
