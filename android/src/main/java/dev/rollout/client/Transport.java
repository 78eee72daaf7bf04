package dev.rollout.client;

import androidx.annotation.NonNull;
import java.net.URI;

/**
 * How the client fetches the published site. The default is {@link HttpTransport}; tests and apps
 * with their own networking stack supply their own.
 */
public interface Transport {
    /**
     * The whole file at {@code url}. An implementation stops reading at {@code maxBytes + 1} bytes
     * and fails with {@link FailureReason#TOO_LARGE}, so that nothing larger is ever held in memory,
     * and gives up after {@code timeoutMillis} with {@link FailureReason#TIMED_OUT}. Called on the
     * thread that called {@link RolloutClient#refresh}; an interrupt of that thread is
     * {@link FailureReason#CANCELLED}.
     */
    @NonNull
    byte[] fetch(@NonNull URI url, long maxBytes, int timeoutMillis) throws TransportException;
}
