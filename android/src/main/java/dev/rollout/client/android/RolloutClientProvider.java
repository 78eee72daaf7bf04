package dev.rollout.client.android;

import dev.rollout.client.RolloutClient;

/**
 * Implemented by the app's {@code Application}, which holds the one client of the process, made on
 * first use: how {@link RolloutRefreshWorker}, which WorkManager constructs, finds it. When
 * WorkManager started the process, the client it gets counts no launch (docs/android.md, "Crash
 * loops and background starts").
 */
public interface RolloutClientProvider {
    RolloutClient rolloutClient();
}
