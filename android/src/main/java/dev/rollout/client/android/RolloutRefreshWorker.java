package dev.rollout.client.android;

import android.content.Context;
import androidx.annotation.NonNull;
import androidx.work.ListenableWorker;
import androidx.work.Worker;
import androidx.work.WorkerParameters;
import dev.rollout.client.Failure;
import dev.rollout.client.FailureReason;
import dev.rollout.client.RefreshResult;
import dev.rollout.client.RolloutClient;
import java.util.ArrayList;
import java.util.List;

/**
 * A WorkManager job that refreshes the app's client in the background (docs/android.md,
 * "Background refresh"): schedule it as unique periodic work under {@link #UNIQUE_NAME}. It calls
 * {@code refresh(false)}, so the client's minimum interval (4 hours by default) still holds when
 * the job runs more often, and never activates anything: the app does that at a safe moment.
 *
 * <p>The app's {@code Application} must implement {@link RolloutClientProvider}.
 */
public final class RolloutRefreshWorker extends Worker {
    /** The name to enqueue it under with {@code enqueueUniquePeriodicWork}, so it is scheduled once. */
    @NonNull
    public static final String UNIQUE_NAME = "dev.rollout.refresh";

    public RolloutRefreshWorker(@NonNull Context context, @NonNull WorkerParameters workerParams) {
        super(context, workerParams);
    }

    @NonNull
    @Override
    public ListenableWorker.Result doWork() {
        switch (run(getApplicationContext())) {
            case SUCCESS:
                return ListenableWorker.Result.success();
            case RETRY:
                return ListenableWorker.Result.retry();
            default:
                return ListenableWorker.Result.failure();
        }
    }

    /** What WorkManager should do next: nothing, try again with backoff, or wait for the next period. */
    enum Outcome {
        SUCCESS,
        RETRY,
        FAILURE
    }

    /** Refreshes the client {@code application} provides; FAILURE when it provides none. */
    static Outcome run(Context application) {
        if (!(application instanceof RolloutClientProvider)) return Outcome.FAILURE;
        RolloutClient client = ((RolloutClientProvider) application).rolloutClient();
        if (client == null) return Outcome.FAILURE;
        RefreshResult result = client.refresh(false);
        List<FailureReason> reasons = new ArrayList<>();
        for (Failure failure : result.failures()) reasons.add(failure.reason());
        return outcome(result.kind(), reasons);
    }

    /**
     * Success for every round that ended well or needed no request (staged, up to date, too soon,
     * busy: another refresh is running). A round refused for a reason that can pass by itself (the
     * network, a server error, a full disk, a CDN still serving the previous publish's files) is
     * retried with WorkManager's backoff. One refused for a reason no retry within the hour fixes
     * (a signature, the trust chain, a replayed index, a schema or app version the site does not
     * serve this build, the app's own configuration) is a failure: periodic work runs again at its
     * next period anyway, and retrying sooner would only repeat the requests.
     */
    static Outcome outcome(RefreshResult.Kind kind, List<FailureReason> reasons) {
        switch (kind) {
            case STAGED:
            case UP_TO_DATE:
            case TOO_SOON:
            case BUSY:
                return Outcome.SUCCESS;
            default:
                for (FailureReason reason : reasons) {
                    if (passesByItself(reason)) return Outcome.RETRY;
                }
                return Outcome.FAILURE;
        }
    }

    private static boolean passesByItself(FailureReason reason) {
        switch (reason) {
            case UNREACHABLE:
            case TIMED_OUT:
            case HTTP_STATUS:
            case NOT_FOUND:
            case CANCELLED:
            case STORAGE_FAILED:
            case SUPERSEDED:
            case PACK_MISMATCH:
                return true;
            default:
                return false;
        }
    }
}
