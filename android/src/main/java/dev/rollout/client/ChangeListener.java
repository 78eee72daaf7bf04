package dev.rollout.client;

/** Told whenever the strings string() returns may have changed (see RolloutClient.addChangeListener). */
public interface ChangeListener {
    void onChange(Change change);
}
