package dev.rollout.client;

/**
 * The device's Outcomes in memory, behind a lock of its own held for one update: string() counts an exposure without
 * the writers' lock, and a save copies them into the device state (Swift's OutcomeTally).
 */
final class OutcomeTally {
    interface Change<T> {
        T apply(Outcomes outcomes);
    }

    private Outcomes outcomes = new Outcomes();

    synchronized Outcomes current() {
        return outcomes.copy();
    }

    synchronized <T> T update(Change<T> change) {
        return change.apply(outcomes);
    }

    synchronized void set(Outcomes next) {
        outcomes = next.copy();
    }
}
