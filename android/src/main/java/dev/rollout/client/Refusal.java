package dev.rollout.client;

import java.io.IOException;

/**
 * Why a step of a refresh, or the check of one pack, stopped: the Failure it reports. Every error
 * a round meets becomes one of these where it happens, so the reason is decided once (the Swift
 * client's Failure(error)).
 */
final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;

    final transient Failure failure;

    Refusal(Failure failure) {
        super(failure.message(), null, false, false);
        this.failure = failure;
    }

    Refusal(FailureReason reason, String message) {
        this(new Failure(reason, message));
    }

    /** A document that does not parse or breaks a wire rule. */
    static Refusal damaged(DocumentException e) {
        return new Refusal(FailureReason.DAMAGED, e.getMessage());
    }

    /** A write, fsync or rename of the cache that failed. */
    static Refusal storage(IOException e) {
        return new Refusal(FailureReason.STORAGE_FAILED, String.valueOf(e.getMessage()));
    }

    /** A trust check's refusal: its own code. */
    static Refusal trust(TrustFailure e) {
        FailureReason reason = FailureReason.fromCode(e.code());
        return new Refusal(reason == null ? FailureReason.DAMAGED : reason, e.getMessage());
    }
}
