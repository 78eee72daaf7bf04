package dev.rollout.client.android;

import dev.rollout.client.RolloutClient;

/**
 * Implemented by the app's {@code Application}, which makes the one client of the process in
 * {@code onCreate()}: how {@link RolloutRefreshWorker}, which WorkManager constructs, finds it.
 */
public interface RolloutClientProvider {
    RolloutClient rolloutClient();
}
