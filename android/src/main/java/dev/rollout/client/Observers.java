package dev.rollout.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

/** The live change listeners, each told on its own executor, outside every lock of the client. */
final class Observers {
    private static final class Entry {
        final Executor executor;
        final ChangeListener listener;

        Entry(Executor executor, ChangeListener listener) {
            this.executor = executor;
            this.listener = listener;
        }
    }

    private final CopyOnWriteArrayList<Entry> entries = new CopyOnWriteArrayList<>();

    Subscription add(Executor executor, ChangeListener listener) {
        if (executor == null || listener == null) throw new NullPointerException("executor and listener");
        Entry entry = new Entry(executor, listener);
        entries.add(entry);
        return () -> entries.remove(entry);
    }

    void announce(List<Change> changes) {
        if (changes.isEmpty()) return;
        List<Entry> now = new ArrayList<>(entries);
        for (Change change : changes) {
            for (Entry entry : now) {
                // A listener removed after this change was sent is not told it. An executor that refuses
                // (shut down) or a listener that throws on a direct executor must neither reach the caller
                // (refresh, setLocale, activatePending never throw) nor keep the change from the others.
                try {
                    entry.executor.execute(() -> {
                        if (entries.contains(entry)) entry.listener.onChange(change);
                    });
                } catch (RuntimeException refused) {
                    // The app's executor or listener failed; the change stands, and the next listener is told.
                }
            }
        }
    }
}
