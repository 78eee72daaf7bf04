package dev.rollout.client;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import java.util.Objects;

/** A fetch that did not deliver the whole file: no response, a time-out, a status, a refused URL, too large. */
public final class TransportException extends Exception {
    private static final long serialVersionUID = 1L;

    private final FailureReason reason;

    public TransportException(@NonNull FailureReason reason, @NonNull String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public TransportException(@NonNull FailureReason reason, @NonNull String message, @Nullable Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    @NonNull
    public FailureReason reason() {
        return reason;
    }

    /** The failure a refresh reports for it. */
    @NonNull
    public Failure failure() {
        return new Failure(reason, getMessage());
    }
}
