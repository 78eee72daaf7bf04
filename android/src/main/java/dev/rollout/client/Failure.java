package dev.rollout.client;

import androidx.annotation.NonNull;
import androidx.annotation.Nullable;
import java.util.Objects;

/** Why a refresh, or one pack of it, was refused: a reason to compare and a message to read. */
public final class Failure {
    private final FailureReason reason;
    private final String message;

    public Failure(@NonNull FailureReason reason, @NonNull String message) {
        this.reason = Objects.requireNonNull(reason, "reason");
        this.message = Objects.requireNonNull(message, "message");
    }

    @NonNull
    public FailureReason reason() {
        return reason;
    }

    /** For people: names the file and what is wrong with it. */
    @NonNull
    public String message() {
        return message;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        if (!(other instanceof Failure)) return false;
        Failure that = (Failure) other;
        return reason == that.reason && message.equals(that.message);
    }

    @Override
    public int hashCode() {
        return reason.hashCode() * 31 + message.hashCode();
    }

    @NonNull
    @Override
    public String toString() {
        return reason.code() + ": " + message;
    }
}
