package dev.rollout.client;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * The keys an app builds in to check what it downloads (docs/client.md, "Keys and expiry"; docs/keys.md): the root
 * keys that sign the site's key list, and how many of them must. The same value as the Swift client's
 * {@code RolloutClient.Trust}. Immutable.
 *
 * <p>Keys that do not parse are not refused here: a client given them verifies nothing and every refresh fails with
 * {@link FailureReason#MISCONFIGURED}, saying which key, as the Swift client does.
 */
public final class Trust {
    private final List<String> rootKeys;
    private final int threshold;
    private final String pinnedKey;
    private final int minimumKeysVersion;

    /**
     * @param rootKeys the root public keys, {@code ed25519:BASE64} as {@code rollout keys init} printed them
     * @param threshold how many of {@code rootKeys} must sign a key list
     * @param pinnedKey the key an earlier version of the app pinned ({@code publicKey}), or null: it vouches for the
     *     packs that version cached until this device holds a key list, so an update keeps them
     * @param minimumKeysVersion the key list version current when the app was built ({@code rollout keys
     *     init/rotate/revoke/rotate-root} print it), or 0: a device refuses an older list, so a fresh install, or one
     *     whose saved list is damaged, never takes a list from before a revocation
     */
    public Trust(@NonNull List<String> rootKeys, int threshold, @Nullable String pinnedKey, int minimumKeysVersion) {
        List<String> copy = new ArrayList<>(Objects.requireNonNull(rootKeys, "rootKeys"));
        for (String key : copy) Objects.requireNonNull(key, "a root key");
        this.rootKeys = Collections.unmodifiableList(copy);
        this.threshold = threshold;
        this.pinnedKey = pinnedKey;
        this.minimumKeysVersion = minimumKeysVersion;
    }

    /** Root keys with a threshold of one, no pinned key and no minimum key list version. */
    public Trust(@NonNull List<String> rootKeys) {
        this(rootKeys, 1, null, 0);
    }

    /** The root public keys, {@code ed25519:BASE64}. */
    @NonNull
    public List<String> rootKeys() {
        return rootKeys;
    }

    /** How many of {@link #rootKeys()} must sign a key list. */
    public int threshold() {
        return threshold;
    }

    /** The key an earlier version of the app pinned, or null. */
    @Nullable
    public String pinnedKey() {
        return pinnedKey;
    }

    /** The oldest key list version this app accepts (0: any). */
    public int minimumKeysVersion() {
        return minimumKeysVersion;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        if (!(other instanceof Trust)) return false;
        Trust that = (Trust) other;
        return rootKeys.equals(that.rootKeys) && threshold == that.threshold
            && Objects.equals(pinnedKey, that.pinnedKey) && minimumKeysVersion == that.minimumKeysVersion;
    }

    @Override
    public int hashCode() {
        return Objects.hash(rootKeys, threshold, pinnedKey, minimumKeysVersion);
    }

    @NonNull
    @Override
    public String toString() {
        return "Trust(rootKeys: " + rootKeys + ", threshold: " + threshold + ", pinnedKey: " + pinnedKey
            + ", minimumKeysVersion: " + minimumKeysVersion + ")";
    }
}
