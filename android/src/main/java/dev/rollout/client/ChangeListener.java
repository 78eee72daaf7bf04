package dev.rollout.client;

import androidx.annotation.NonNull;

/** Told whenever the strings string() returns may have changed (see RolloutClient.addChangeListener). */
public interface ChangeListener {
    void onChange(@NonNull Change change);
}
