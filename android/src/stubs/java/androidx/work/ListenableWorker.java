package androidx.work;

import android.content.Context;

/** Stand-in for androidx.work.ListenableWorker (work-runtime 1.0.0): see ../../README.md. */
public abstract class ListenableWorker {
    public ListenableWorker(Context appContext, WorkerParameters workerParams) {}

    /** 1.0.0. */
    public final Context getApplicationContext() {
        throw new RuntimeException("Stub!");
    }

    /** 1.0.0. */
    public abstract static class Result {
        /** 1.0.0. */
        public static Result success() {
            throw new RuntimeException("Stub!");
        }

        /** 1.0.0. */
        public static Result retry() {
            throw new RuntimeException("Stub!");
        }

        /** 1.0.0. */
        public static Result failure() {
            throw new RuntimeException("Stub!");
        }
    }
}
