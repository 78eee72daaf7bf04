package dev.rollout.client;

/** A registered listener; close() removes it (calling it twice is harmless). */
public interface Subscription extends AutoCloseable {
    @Override
    void close();
}
