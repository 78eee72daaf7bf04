package androidx.work;

/** Stand-in for androidx.work.WorkerParameters (work-runtime 1.0.0): see ../../README.md. WorkManager makes them. */
public final class WorkerParameters {}
