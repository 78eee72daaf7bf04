package android.os;

/** Stand-in for android.os.Handler (API 1): see ../../README.md. */
public class Handler {
    /** API 1. */
    public Handler(Looper looper) {}

    /** API 1. */
    public final boolean post(Runnable r) {
        throw new RuntimeException("Stub!");
    }
}
