package dev.rollout.client;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/** Why the strings string() returns may have changed, and the packs concerned. */
public final class Change {
    public enum Reason {
        /**
         * Pending packs became active (activatePending(), or a refresh that replaced a dropped active
         * pack at once).
         */
        ACTIVATED,
        /** setLocale() switched the device to another locale's chain. */
        LOCALE_CHANGED,
        /** The active pack gave way to the previous one (markActivePackFailed(), or the crash-loop guard at start). */
        ROLLED_BACK,
        /** A refresh took packs away (blocked, a kill switch, nothing left for this device). */
        DROPPED
    }

    private final Reason reason;
    private final List<PackId> packs;
    private final String locale;

    public Change(@NonNull Reason reason, @NonNull List<PackId> packs, @NonNull String locale) {
        this.reason = Objects.requireNonNull(reason, "reason");
        this.packs = Collections.unmodifiableList(new ArrayList<>(packs));
        this.locale = Objects.requireNonNull(locale, "locale");
    }

    @NonNull
    public Reason reason() {
        return reason;
    }

    /** The packs that became active, were dropped, or were given up; empty for LOCALE_CHANGED. */
    @NonNull
    public List<PackId> packs() {
        return packs;
    }

    /** The device's locale after the change. */
    @NonNull
    public String locale() {
        return locale;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        if (!(other instanceof Change)) return false;
        Change that = (Change) other;
        return reason == that.reason && packs.equals(that.packs) && locale.equals(that.locale);
    }

    @Override
    public int hashCode() {
        return Objects.hash(reason, packs, locale);
    }

    @NonNull
    @Override
    public String toString() {
        return reason + " " + packs + " (" + locale + ")";
    }
}
