package dev.rollout.client;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * When the counts are written (docs/client.md#counters), with a lock of its own so that string()
 * never takes the writers' lock to decide; and where: one background thread at most, started when
 * there is a save to run and gone a few seconds after the last one, so that neither string() nor
 * recordSession() waits for the disk.
 */
final class CounterSaver {
    private boolean scheduled;
    /** System.nanoTime() of the last write, or 0 for none. */
    private long lastSave;
    /** A save is scheduled after this many unwritten lookups... */
    long lookups = 1000;
    /** ...but not sooner than this long after the last one. */
    long intervalNanos = TimeUnit.SECONDS.toNanos(10);

    private final ThreadPoolExecutor queue;

    CounterSaver() {
        queue = new ThreadPoolExecutor(1, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> {
            Thread thread = new Thread(runnable, "RolloutClient counters");
            thread.setDaemon(true);
            return thread;
        });
        queue.allowCoreThreadTimeOut(true);
    }

    /**
     * True when the caller should schedule a save now (and the saver counts it as scheduled); {@code
     * unsavedLookups} negative: a save asked for directly.
     */
    synchronized boolean claim(long unsavedLookups) {
        if (scheduled) return false;
        if (unsavedLookups >= 0
                && (unsavedLookups < lookups || (lastSave != 0 && System.nanoTime() - lastSave < intervalNanos))) {
            return false;
        }
        scheduled = true;
        return true;
    }

    synchronized void started() {
        scheduled = false;
    }

    synchronized void saved() {
        lastSave = System.nanoTime();
    }

    void run(Runnable save) {
        queue.execute(save);
    }

    /** Tests: returns once the saves scheduled so far have run. */
    void waitForSaves() {
        java.util.concurrent.Future<?> marker = queue.submit(() -> {});
        try {
            marker.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }
}
