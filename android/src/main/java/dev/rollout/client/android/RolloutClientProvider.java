package dev.rollout.client.android;

import androidx.annotation.Nullable;
import dev.rollout.client.RolloutClient;

/**
 * Implemented by the app's {@code Application}, which holds the one client of the process, made on
 * first use: how {@link RolloutRefreshWorker}, which WorkManager constructs, finds it. When
 * WorkManager started the process, the client it gets counts no launch (docs/android.md, "Crash
 * loops and background starts"). Null when the app cannot make a client: the worker then tells WorkManager
 * {@code failure()}.
 */
public interface RolloutClientProvider {
    @Nullable
    RolloutClient rolloutClient();
}
