package androidx.work;

import android.content.Context;

/** Stand-in for androidx.work.Worker (work-runtime 1.0.0): see ../../README.md. */
public abstract class Worker extends ListenableWorker {
    public Worker(Context context, WorkerParameters workerParams) {
        super(context, workerParams);
    }

    /** 1.0.0: runs on WorkManager's background executor. */
    public abstract ListenableWorker.Result doWork();
}
